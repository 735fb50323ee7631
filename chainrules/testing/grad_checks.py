"""``check_grads``: autograd's derivative check of a whole function, on ``chainrules.ad``.

``check_grads(f, argnums, modes=("fwd", "rev"), order=2)(*args, **kwargs)`` checks the
derivatives of ``f`` at ``args`` with respect to the arguments ``argnums`` against central finite
differences, as ``autograd.test_util.check_grads`` does, and raises an ``AssertionError`` that
names the check (JVP or VJP), the function, the order and the arguments when one disagrees:

* mode ``"fwd"``: ``chainrules.ad.make_jvp``'s tangent in a random direction ``v`` against
  ``(f(x + eps v / 2) - f(x - eps v / 2)) / eps``, compared through their inner products with a
  random vector;
* mode ``"rev"``: the VJP of a random cotangent ``u`` against the finite difference, through the
  adjoint identity ``<v, vjp(u)> = <u, J v>`` (real inner products: ``Re vdot``, so complex
  inputs and outputs are checked in chainrules' convention);
* ``order = k > 1``: the same checks, of order ``k - 1``, of the derivative functions
  ``jvp_f(x, v)`` and ``vjp_f(x, u)`` with respect to both of their arguments (second derivatives,
  and the linearity of the derivative in ``v`` and ``u``).

Arguments may be arrays of any library (NumPy, JAX, PyTorch, array-api-strict, device arrays),
Python numbers, or pytrees of them. The random directions come from ``rng`` (a NumPy
``Generator`` or a seed), or by default from NumPy's global random state in the order autograd
draws them (a test that calls ``numpy.random.seed`` gets autograd's directions); the finite
differences are computed in the arguments' own library, and the comparisons in NumPy (whole-array
transfers, as everywhere in the testers). A comparison passes when the two numbers are within
``atol`` or within ``rtol`` relative to ``|a + b|`` (autograd's ``scalar_close``, its tolerances
and step by default).

What differs from autograd's: ``argnums`` for its ``argnum``; keyword arguments of ``f`` are passed
through; the failure message names the mode, the order and the arguments; ``rng``, ``eps``,
``rtol`` and ``atol`` may be given.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..ad import make_jvp, make_vjp
from ..core.pytree import flatten, map_leaves, unflatten
from .arrays import like, to_numpy

__all__ = ["check_grads"]

EPS = 1e-6
"""autograd's step of the central difference (``test_util.EPS``)."""
TOL = 1e-6
"""autograd's absolute and relative tolerance (``test_util.TOL``, ``RTOL``)."""

_NUMBERS = (int, float, complex)
_MODES = ("fwd", "rev")


def _name(f: Any) -> str:
    return getattr(f, "__name__", type(f).__name__)


def _value(x: Any) -> Any:
    """``x`` as NumPy arrays, leaf by leaf (Python numbers become 0-d arrays)."""
    return map_leaves(lambda e: np.asarray(to_numpy(e)), x)


Draw = Callable[[tuple[int, ...]], Any]


def _random(x: Any, draw: Draw) -> Any:
    """A random direction in the space of ``x`` (complex where ``x`` is: a real draw, then an
    imaginary one, as autograd's ``vspace(x).randn()``), leaf by leaf in ``x``'s libraries."""

    def one(e: Any) -> Any:
        ref = np.asarray(to_numpy(e))
        r = np.asarray(draw(ref.shape)).astype(ref.dtype)
        if np.iscomplexobj(ref):
            r = r + 1j * np.asarray(draw(ref.shape)).astype(ref.dtype)
        if isinstance(e, _NUMBERS):
            return complex(r) if np.iscomplexobj(ref) else float(r)
        return like(e, r)

    return map_leaves(one, x)


def _global_draw(shape: tuple[int, ...]) -> Any:
    return np.random.randn(*shape)


def _step(x: Any, v: Any, s: float) -> Any:
    """``x + s v`` leaf by leaf, in ``x``'s libraries."""
    xs, d = flatten(x)
    vs, _ = flatten(v)
    return unflatten(d, [a + s * b for a, b in zip(xs, vs)])


def _inner(a: Any, b: Any) -> float:
    """``Re vdot(a, b)`` summed over the leaves (NumPy, float64 or complex128)."""
    la, lb = flatten(_value(a))[0], flatten(_value(b))[0]
    total = 0.0
    for x, y in zip(la, lb):
        x = np.asarray(x, dtype=np.complex128 if np.iscomplexobj(x) else np.float64)
        y = np.asarray(y, dtype=np.complex128 if np.iscomplexobj(y) else np.float64)
        total += float(np.real(np.vdot(x, y)))
    return total


def _shapes(x: Any) -> list[tuple[int, ...]]:
    return [tuple(np.shape(e)) for e in flatten(_value(x))[0]]


def _close(a: float, b: float, rtol: float, atol: float) -> bool:
    """autograd's ``scalar_close``: within ``atol``, or within ``rtol`` of ``|a + b|``."""
    d = abs(a - b)
    return d < atol or (a + b != 0 and d / abs(a + b) < rtol)


def _as_cotangent(y: Any, u: Any) -> Any:
    """The NumPy direction ``u`` as a cotangent of the output ``y``: each leaf in ``y``'s library
    and dtype (a Python number for a number)."""
    ly, d = flatten(y)
    lu, _ = flatten(u)
    out = []
    for e, r in zip(ly, lu):
        if isinstance(e, _NUMBERS):
            out.append(complex(r) if np.iscomplexobj(r) else float(r))
        else:
            out.append(like(e, np.asarray(r).astype(np.asarray(to_numpy(e)).dtype)))
    return unflatten(d, out)


def _wrt(f: Callable[..., Any], nums: tuple[int, ...]) -> str:
    """``argument 0 ('x')`` / ``arguments 0 ('x'), 1 ('v')``: the differentiated arguments."""
    try:
        params = list(inspect.signature(f).parameters)
    except (TypeError, ValueError):
        params = []
    named = [f"{i} ({params[i]!r})" if i < len(params) else str(i) for i in nums]
    return ("argument " if len(nums) == 1 else "arguments ") + ", ".join(named)


@dataclass
class _Settings:
    draw: Draw  # random numbers of a shape: the directions
    eps: float
    rtol: float
    atol: float
    modes: tuple[str, ...]
    total: int  # the order asked for: messages say "order k of total"

    def numerical_jvp(self, g: Callable[[Any], Any], x: Any, v: Any) -> Any:
        """``(g(x + eps v / 2) - g(x - eps v / 2)) / eps``, as NumPy arrays."""
        plus = flatten(_value(g(_step(x, v, self.eps / 2))))
        minus = flatten(_value(g(_step(x, v, -self.eps / 2))))[0]
        return unflatten(plus[1], [(a - b) / self.eps for a, b in zip(plus[0], minus)])

    def compare(self, what: str, name: str, ctx: str, x: Any, exact: float, numeric: float) -> None:
        if not _close(exact, numeric, self.rtol, self.atol):
            raise AssertionError(
                f"check_grads: ({what}) check of {name} failed ({ctx}) with arg {x}:\n"
                f"analytic: {exact}\nnumeric:  {numeric}\n"
                f"(rtol {self.rtol}, atol {self.atol}, finite-difference step {self.eps})"
            )


def check_grads(
    f: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    modes: Sequence[str] = _MODES,
    order: int = 2,
    *,
    eps: float = EPS,
    rtol: float = TOL,
    atol: float = TOL,
    rng: np.random.Generator | int | None = None,
) -> Callable[..., None]:
    """A function of ``f``'s arguments that checks ``f``'s derivatives there (see the module).

    ``modes`` is a subset of ``("fwd", "rev")``; ``order`` the highest order checked; ``rng`` a
    NumPy ``Generator`` or a seed for the random directions. Without ``rng`` they come from
    NumPy's global random state, drawn as autograd draws them, so a test that seeds
    ``numpy.random.seed`` checks the directions autograd's ``check_grads`` would. The returned
    function takes ``f``'s arguments (keywords too) and returns ``None``; it raises
    ``AssertionError`` naming the check, the mode, the order and the arguments when a derivative
    disagrees with finite differences.

    >>> import numpy as np
    >>> from chainrules.testing import check_grads
    >>> check_grads(lambda x, w: np.sum(np.tanh(w * x)), argnums=(0, 1))(np.ones(3), np.ones(3))
    """
    modes = tuple(modes)
    bad = [m for m in modes if m not in _MODES]
    if bad:
        raise ValueError(f"check_grads: modes must be among {_MODES}, got {bad}")
    if type(order) is not int or order < 1:
        raise ValueError(f"check_grads: order must be a positive int, got {order!r}")
    if rng is None:
        draw: Draw = _global_draw
    else:
        gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        draw = gen.standard_normal

    def check(*args: Any, **kwargs: Any) -> None:
        settings = _Settings(draw, eps, rtol, atol, modes, order)
        _check(settings, f, argnums, args, kwargs, order)

    check.__name__ = f"check_grads({_name(f)})"
    return check


def _check(
    s: _Settings,
    f: Callable[..., Any],
    argnums: int | Sequence[int],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    order: int,
) -> None:
    """The checks of ``order`` (and below) of ``f`` at ``args``."""
    one = isinstance(argnums, int)
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    x = args[nums[0]] if one else tuple(args[i] for i in nums)
    name = _name(f)
    level = s.total - order + 1

    def unary(xv: Any) -> Any:  # f as a function of the differentiated arguments alone
        full = list(args)
        for i, e in zip(nums, (xv,) if one else xv):
            full[i] = e
        return f(*full, **kwargs)

    unary.__name__ = name

    def ctx(mode: str) -> str:
        return f"mode {mode!r}, order {level} of {s.total}, with respect to {_wrt(f, nums)}"

    if "fwd" in s.modes:
        v = _random(x, s.draw)
        _, tangent = make_jvp(f, argnums)(*args, **kwargs)(v)
        numeric = s.numerical_jvp(unary, x, v)
        if _shapes(tangent) != _shapes(numeric):
            raise AssertionError(
                f"check_grads: (JVP) check of {name} failed ({ctx('fwd')}): the tangent has "
                f"shapes {_shapes(tangent)}, the output {_shapes(numeric)}"
            )
        w = _random(numeric, s.draw)
        s.compare("JVP", name, ctx("fwd"), x, _inner(w, tangent), _inner(w, numeric))
        if order > 1:

            def jvp_f(x: Any, v: Any) -> Any:
                return make_jvp(unary)(x)(v)[1]

            jvp_f.__name__ = f"jvp_{name}"
            _check(s, jvp_f, (0, 1), (x, _random(x, s.draw)), {}, order - 1)
    if "rev" in s.modes:
        vjp, y = make_vjp(f, argnums)(*args, **kwargs)
        v = _random(x, s.draw)  # autograd's order: the input's direction, then the output's
        u = _as_cotangent(y, _random(_value(y), s.draw))
        ct = vjp(u)
        if _shapes(ct) != _shapes(x):
            raise AssertionError(
                f"check_grads: (VJP) check of {name} failed ({ctx('rev')}): the cotangent has "
                f"shapes {_shapes(ct)}, the argument {_shapes(x)}"
            )
        numeric_v = _inner(u, s.numerical_jvp(unary, x, v))
        s.compare("VJP", name, ctx("rev"), x, _inner(v, ct), numeric_v)
        if order > 1:

            def vjp_f(x: Any, u: Any) -> Any:
                return make_vjp(unary)(x)[0](u)

            vjp_f.__name__ = f"vjp_{name}"
            u2 = _as_cotangent(y, _random(_value(y), s.draw))
            _check(s, vjp_f, (0, 1), (x, u2), {}, order - 1)
