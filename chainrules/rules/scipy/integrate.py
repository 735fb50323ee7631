"""The rule of ``scipy.integrate.odeint``, registered as ``"scipy:integrate.odeint"``.

``odeint(func, y0, t, args=())`` integrates ``dy/ds = func(y, s, *args)`` from ``t[0]`` and
returns ``y`` at every time of ``t``: an array ``(T, D)``. Its derivatives need ``func``'s:

* **pullback** (the adjoint method, as autograd's; Froehlich et al. 2017, sec. 2.4.2): from the
  last time back to the first, the adjoint ``a`` of ``y`` and the accumulated cotangents of ``t[0]``
  and of ``args`` are integrated backwards with ``da/ds = -a^T df/dy``, ``d(args_bar)/ds =
  -a^T df/dargs``, ``d(t0_bar)/ds = -a^T df/ds``, one interval at a time, adding each row of the
  output's cotangent at its time. ``t_bar[i] = <func(y_i, t_i), y_bar_i>`` for ``i > 0``;
* the backward and forward solves take the call's tolerances (``rtol``, ``atol``, ...): the
  derivatives are as accurate as the solves;
* **pushforward** (forward sensitivities): ``S = dy/d(y0, args)`` along the tangents solves
  ``dS/ds = df/dy S + df/dargs args_dot`` from ``S(t0) = y0_dot - func(y0, t0) t0_dot``, and
  ``y_dot(t_i) = S(t_i) + func(y_i, t_i) t_dot_i``. A chunk of ``k`` tangents is ``k`` more
  sensitivities in the same solve.

``func``'s vector-Jacobian and Jacobian-vector products come from the engine that runs the rule:
``chainrules.rule_config().rrule_via_ad`` / ``frule_via_ad`` (the RuleConfig of the docs' AD
authors' guide). Inside ``chainrules.ad`` any Python ``func`` works; called directly
(``chainrules.rrule(odeint, ...)``), ``func`` needs rules of its own (``np.multiply`` has them).
The backward and forward solves call ``odeint`` through a ``traceable`` function with the same
rule, so an engine differentiates the pullback again (second order). ``func`` itself gets no
tangent (what it closes over is not differentiated: pass such values in ``args``).

Only SciPy has this function (JAX's is ``jax.experimental.ode.odeint``, with another signature);
SciPy integrates on the host, so the rule is NumPy-only, and ``full_output`` is refused.
"""

from __future__ import annotations

import importlib
import math
from typing import Any

from ...core.config import rule_config
from ...core.prelude import *

__all__: list[str] = []  # rules only


def _odeint_template(
    func: Any,
    y0: Any,
    t: Any,
    args: Any = (),
    Dfun: Any = None,
    col_deriv: Any = 0,
    full_output: Any = 0,
    ml: Any = None,
    mu: Any = None,
    rtol: Any = None,
    atol: Any = None,
    tcrit: Any = None,
    h0: Any = 0.0,
    hmax: Any = 0.0,
    hmin: Any = 0.0,
    ixpr: Any = 0,
    mxstep: Any = 0,
    mxhnil: Any = 0,
    mxordn: Any = 12,
    mxords: Any = 5,
    printmessg: Any = 0,
    tfirst: Any = False,
) -> None:
    """SciPy's signature of ``odeint``."""


_ODEINT = signature("integrate.odeint", _odeint_template)
_SOLVER_KEYS = ("rtol", "atol", "tcrit", "h0", "hmax", "hmin", "mxstep", "mxordn", "mxords")


def _scipy_odeint() -> Any:
    return importlib.import_module("scipy.integrate").odeint


@traceable
def odeint_solve(func: Any, y0: Any, t: Any, args: Any = (), **kwargs: Any) -> Any:
    """``scipy.integrate.odeint(func, y0, t, args, **kwargs)``, visible to AD engines as one
    operation with odeint's rule: the pullback and pushforward solve through it."""
    return _scipy_odeint()(func, y0, t, tuple(args), **kwargs)


def _bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    b = _ODEINT.bind(args, kwargs)
    if b["full_output"]:
        raise ValueError(
            "integrate.odeint: full_output=True is not supported by the rule (its info dict has "
            "no derivative); call it with full_output=False"
        )
    func, y0, t, fargs = b["func"], b["y0"], b["t"], b["args"]
    if not callable(func):
        raise TypeError(f"integrate.odeint: func must be callable, got {type(func).__name__}")
    if isinstance(fargs, list):
        fargs = tuple(fargs)
    elif not isinstance(fargs, tuple):
        fargs = (fargs,)  # SciPy's own convenience
    xp = namespace_of(y0, t, *fargs, fname="integrate.odeint")
    if getattr(y0, "ndim", 0) > 1:
        raise ValueError(
            f"integrate.odeint: y0 must be 0-d or 1-D, got shape {tuple(y0.shape)} (as SciPy's)"
        )
    # the primal takes every option as given (Dfun, ml, mu, ...); the backward and forward solves
    # of other systems take the tolerances and step settings only
    solver = {k: b[k] for k in _SOLVER_KEYS}
    primal_kw = {k: v for k, v in b.items() if k not in ("func", "y0", "t", "args", "full_output")}
    return xp, func, y0, t, fargs, bool(b["tfirst"]), solver, primal_kw


def _caller(func: Any, tfirst: bool) -> Any:
    """``func`` as ``g(y, s, *args)`` whatever its argument order."""
    if not tfirst:
        return func
    return lambda y, s, *a: func(s, y, *a)


def _flat(xp: Any, parts: list[Any], like: list[Any]) -> Any:
    """The concatenation of ``parts`` (one per ``like`` entry, zeros for symbolic zeros)."""
    vals = []
    for p, a in zip(parts, like):
        p = unthunk(p)
        if isinstance(p, AbstractZero) or p is None:
            p = xp.zeros(tuple(getattr(a, "shape", ())), dtype=xp.float64)
        vals.append(xp.reshape(xp.asarray(p, dtype=xp.float64), (-1,)))
    return xp.concat(vals) if vals else xp.zeros((0,), dtype=xp.float64)


def _split(xp: Any, flat: Any, like: list[Any]) -> list[Any]:
    """Undo :func:`_flat`: each piece in its argument's shape."""
    out, start = [], 0
    for a in like:
        shape = tuple(getattr(a, "shape", ()))
        n = math.prod(shape)
        out.append(xp.reshape(flat[start : start + n], shape))
        start += n
    return out


@register_rrule(
    "scipy:integrate.odeint",
    odeint_solve,
    examples=lambda rng: _examples(rng),
    expect=Expect(
        "scalar-free",
        "scipy.integrate.odeint converts its inputs with numpy.asarray (and integrates on the "
        "host), which a guarded device array refuses; that is SciPy's property",
    ),
)
def odeint_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, func, y0, t, fargs, tfirst, solver, primal_kw = _bind(args, kwargs)
    g = _caller(func, tfirst)
    y = odeint_solve(func, y0, t, fargs, **primal_kw)
    config = rule_config()  # the engine running this rule differentiates func in the pullback
    n_t, dim = int(y.shape[0]), int(y.shape[1])
    project_y0, project_t = ProjectTo(y0, xp), ProjectTo(t, xp)
    project_args = [ProjectTo(a, xp) for a in fargs]
    arg_list = list(fargs)

    def augmented(state: Any, s: Any, flat_args: Any) -> Any:
        # the original system with the adjoint of y and the accumulated cotangents of t0, args
        yy, adj = state[:dim], state[dim : 2 * dim]
        vals = _split(xp, flat_args, arg_list)
        fy, pb = config.rrule_via_ad(g, yy, s, *vals)
        _, y_b, s_b, *a_b = pb(-adj)
        return xp.concat(
            [
                xp.reshape(fy, (-1,)),
                _flat(xp, [y_b], [yy]),
                _flat(xp, [s_b], [s]),
                _flat(xp, list(a_b), arg_list),
            ]
        )

    @pullback(y, args, name="integrate.odeint")
    def odeint_pullback(y_bar: Any) -> Any:
        gbar = xp.reshape(xp.asarray(y_bar, dtype=xp.float64), (n_t, dim))
        flat_args = _flat(xp, arg_list, arg_list)
        adj = gbar[n_t - 1]
        t0_bar = xp.zeros((1,), dtype=xp.float64)
        args_bar = xp.zeros(flat_args.shape, dtype=xp.float64)
        t_bars = []
        for i in range(n_t - 1, 0, -1):
            f_i = xp.reshape(g(y[i], t[i], *arg_list), (-1,))
            t_i_bar = xp.reshape(xp.sum(f_i * gbar[i]), (1,))  # moving the i-th time
            t_bars.append(t_i_bar)
            t0_bar = t0_bar - t_i_bar
            state = xp.concat([y[i], adj, t0_bar, args_bar])
            times = xp.stack([t[i], t[i - 1]])
            back = odeint_solve(augmented, state, times, (flat_args,), **solver)
            adj = back[1, dim : 2 * dim] + gbar[i - 1]
            t0_bar = back[1, 2 * dim : 2 * dim + 1]
            args_bar = back[1, 2 * dim + 1 :]
        t_bars.append(t0_bar)
        t_bar = xp.concat(t_bars[::-1])
        y0_bar = project_y0(xp.reshape(adj, tuple(getattr(y0, "shape", ()))))
        a_bars = [p(v) for p, v in zip(project_args, _split(xp, args_bar, arg_list))]
        rest = [NO] * (len(args) - 4)
        cot = [NO, y0_bar, project_t(xp.reshape(t_bar, tuple(t.shape)))]
        if len(args) > 3:
            cot.append(Tangent(*a_bars, primal_type=tuple))
        return (*cot, *rest)

    return y, odeint_pullback


@register_frule(
    "scipy:integrate.odeint",
    odeint_solve,
    examples=lambda rng: _examples(rng),
    kind="sequence",  # args=: a tuple of func's extra arguments
)
def odeint_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, func, y0, t, fargs, tfirst, solver, primal_kw = _bind(args, kwargs)
    g = _caller(func, tfirst)
    y = odeint_solve(func, y0, t, fargs, **primal_kw)
    diff = (y0, t, *fargs)
    dots = tangents_in("integrate.odeint", _unpack_tangents(tangents, len(fargs)), diff)
    if dots is None:
        return y, ZERO
    config = rule_config()
    n_t, dim = int(y.shape[0]), int(y.shape[1])
    chunk = tuple(next(iter(d.shape[: dots.extra] for d in dots if _is_array(d)), ()))
    k = math.prod(chunk)
    arg_list = list(fargs)

    def as_chunk(d: Any, a: Any) -> Any:
        shape = tuple(getattr(a, "shape", ()))
        if isinstance(d, AbstractZero):
            return xp.zeros((k, *shape), dtype=xp.float64)
        return xp.reshape(xp.asarray(d, dtype=xp.float64), (k, *shape))

    y0_dot, t_dot = as_chunk(dots[0], y0), as_chunk(dots[1], t)
    a_dots = [as_chunk(d, a) for d, a in zip(dots.values[2:], arg_list)]
    t_dot = xp.reshape(t_dot, (k, n_t))
    f0 = xp.reshape(g(xp.reshape(y[0], (dim,)), t[0], *arg_list), (dim,))
    s0 = xp.reshape(y0_dot, (k, dim)) - t_dot[:, 0:1] * f0

    def sensitivities(state: Any, s: Any, flat_args: Any) -> Any:
        yy, sens = state[:dim], xp.reshape(state[dim:], (k, dim))
        vals = _split(xp, flat_args, arg_list)
        fy, f_dot = config.frule_via_ad((NO, sens, ZERO, *a_dots), g, yy, s, *vals)
        f_dot = xp.zeros((k, dim), dtype=xp.float64) if isinstance(f_dot, AbstractZero) else f_dot
        return xp.concat([xp.reshape(fy, (-1,)), xp.reshape(f_dot, (-1,))])

    flat_args = _flat(xp, arg_list, arg_list)
    state0 = xp.concat([xp.reshape(xp.asarray(y0, dtype=xp.float64), (-1,)), xp.reshape(s0, (-1,))])
    sol = odeint_solve(sensitivities, state0, t, (flat_args,), **solver)
    sens = xp.reshape(sol[:, dim:], (n_t, k, dim))
    f_all = xp.stack([xp.reshape(g(y[i], t[i], *arg_list), (dim,)) for i in range(n_t)])
    y_dot = xp.permute_dims(sens, (1, 0, 2)) + t_dot[:, :, None] * f_all
    y_dot = xp.reshape(y_dot, (*chunk, n_t, dim))
    return y, y_dot


def _unpack_tangents(tangents: Any, nfargs: int) -> tuple[Any, ...]:
    """``(f_dot, y0_dot, t_dot, *args_dots)``: odeint's tangents with ``func``'s dropped and the
    ``args`` tuple's tangent spread (zeros where there is none)."""
    tangents = tuple(tangents)
    out = [tangents[0], *tangents[2:4]]
    at = unthunk(tangents[4]) if len(tangents) > 4 else ZERO
    if isinstance(at, Tangent):
        out.extend(at.elements())
    elif isinstance(at, (tuple, list)):
        out.extend(at)
    else:  # a zero for the whole tuple
        out.extend([ZERO] * nfargs)
    return tuple(out)


def _is_array(d: Any) -> bool:
    return hasattr(d, "shape") and not isinstance(d, AbstractZero)


def _examples(rng: Any) -> list[Any]:
    import numpy as np

    # func = np.multiply: dy/ds = y s, whose own rules give its derivatives without an engine;
    # the derivatives are as accurate as the solves, so the examples ask for tight tolerances
    tight = {"rtol": 1e-12, "atol": 1e-12}
    return [
        Example((np.multiply, rng.uniform(0.5, 1.5, 3), np.linspace(0.1, 0.6, 4)), tight),
        Example((np.multiply, rng.uniform(0.5, 1.5, 2), np.array([0.0, 0.3, 0.5])), tight),
    ]
