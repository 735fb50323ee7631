"""``test_rrule`` and ``test_frule``: judge a rule against finite differences and the contract.

Both work on arrays of any Array API library (the reference is computed in NumPy float64 from
whole-array copies) and raise ``AssertionError`` naming the function, the argument and the largest
error. Positional arguments are classified by type:

* floating and complex arrays, Python floats and complexes have a tangent space and are checked
  against finite differences;
* integer and boolean arrays, Python ints and bools have none: the rule must return
  ``NoTangent()`` for them (``ZeroTangent()`` is a failure: it claims a tangent space);
* tuples and lists of arrays (``concat``, ``stack``) are structural: their cotangent is a
  ``Tangent`` with one entry per element;
* anything else (``None``, strings, tuples of ints, dtypes) is opaque: ``NoTangent()``.

When the output has no tangent space (comparisons, ``argmax``), every cotangent must be
``NoTangent()``. Keyword arguments are passed to ``f`` and never differentiated; one that clashes
with a tester option (``rtol``, ...) goes through ``fkwargs``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core.registry import counterpart, find_rrule, frule, rrule
from ..core.tangents import AbstractZero, NoTangent, Tangent, Thunk, ZeroTangent, unthunk
from .arrays import is_zero_value, leaves, to_numpy
from .case import (
    _SCALARS,
    _arg_cotangent,
    _Case,
    _check_dtype,
    _check_no_tangent,
    _check_primal,
    _check_thunks,
    _has_tangent_space,
    _kind,
    _NoWrites,
    _ro,
    _same,
    _structure_cotangent,
)
from .finite_differences import directional_derivative, gradient

__all__ = ["test_frule", "test_rrule"]

FD_FULL_MAX = 36  # arguments with more elements are checked by the dot-product test


def test_rrule(
    f: Callable[..., Any],
    /,
    *args: Any,
    rtol: float | None = None,
    atol: float | None = None,
    output_cotangent: Any = None,
    fkwargs: dict[str, Any] | None = None,
    seed: int = 0,
    scalar_free: bool = True,
    jit: bool = True,
    hermitian: Sequence[int] = (),
    deferred: bool = False,
    reference: Callable[..., Any] | None = None,
    **kwargs: Any,
) -> None:
    """Check the registered rrule of ``f`` at ``args`` against finite differences and the contract.

    Checks, each raising ``AssertionError`` naming ``f`` and the argument:

    * the primal equals ``f(*args, **kwargs)`` (library, dtype, shape, value);
    * the pullback returns one cotangent per positional argument, after ``f``'s own;
    * each cotangent agrees with central finite differences (element by element up to
      36 elements, by the dot-product test ``<y_bar, J v> = <J^T y_bar, v>`` above);
    * ``NoTangent()`` for arguments without a tangent space (``ZeroTangent()`` there fails);
    * each cotangent has its primal's dtype (float32 in, float32 out) and library;
    * the pullback accepts ``ZeroTangent()`` (giving zeros) and a ``Thunk`` (giving the same);
    * each cotangent it returns as a ``Thunk`` forces to the same value twice and in either order
      (a computation shared between the thunks of one call must not depend on which runs first);
    * with ``deferred`` ("only the cotangents asked for", ``docs/conventions.md``): every argument
      with a tangent space gets its cotangent as a ``Thunk``, so that an engine that does not
      trace it never pays for it -- what the expensive rules (products, solvers) promise;
    * it mutates neither the inputs nor the cotangent (NumPy inputs are read-only), nor the
      output ``y``;
    * calling it twice gives the same result, and a later call (with another cotangent) leaves
      the result of an earlier one unchanged: no buffer reused across calls;
    * a cotangent of the wrong shape raises ``ValueError`` naming both shapes;
    * with ``scalar_free`` (the default), ``check_scalar_free``: the rrule and the pullback on
      guarded device arrays touch no single element and agree with NumPy;
    * with ``jit`` (the default) and JAX installed, ``check_jit``: they trace under ``jax.jit``.

    The last two run where they apply: a function with a NumPy (and, for ``jit``, a
    ``jax.numpy``) counterpart.

    ``hermitian`` lists the positional arguments that ``f`` reads as Hermitian matrices (one
    triangle: ``cholesky``, ``eigh``): they are perturbed along Hermitian directions only, and
    their cotangents judged by the dot-product test along such directions.

    ``reference`` is a function computing what ``f`` should, for inputs where the library's own
    ``f`` is wrong and the rule, by design, is not (docs/conventions.md, "Where the library's own
    primal is wrong"): the primal and the finite differences are then judged against it.
    """
    kw = dict(kwargs, **(fkwargs or {}))
    _rrule_contract(f, args, kw, rtol, atol, output_cotangent, seed, hermitian, deferred, reference)
    _device_checks(f, args, kw, "rrule", scalar_free, jit)


def _rrule_contract(
    f: Callable[..., Any],
    args: tuple[Any, ...],
    kw: dict[str, Any],
    rtol: float | None,
    atol: float | None,
    output_cotangent: Any,
    seed: int,
    hermitian: Sequence[int],
    deferred: bool = False,
    reference: Callable[..., Any] | None = None,
) -> None:
    case = _Case("rrule", f, args, kw, rtol, atol, seed, hermitian, reference)
    guarded = case.guarded_args()
    before_args = case.snapshot(list(args))
    with _NoWrites(case):
        y, pullback = rrule(f, *guarded, **kw)
    _check_primal(case, y)
    case.primal_shapes = [tuple(getattr(v, "shape", ())) for v in leaves(y)]
    before_y = case.snapshot(y)
    y_leaves = leaves(y)
    output_diff = any(_has_tangent_space(v) for v in y_leaves)

    # the cotangent: random for each differentiable output, NoTangent for the others
    if output_cotangent is not None:
        y_bar = output_cotangent
        ybar_np = [
            np.asarray(to_numpy(v), dtype=np.complex128)
            if not isinstance(v, AbstractZero)
            else None
            for v in leaves(y_bar)
        ]
    else:
        parts, ybar_np = [], []
        for v in y_leaves:
            if _has_tangent_space(v):
                r = case.random_like(v, _kind(v))
                parts.append(_ro(case.backend_like(v, r)))
                ybar_np.append(np.asarray(r, dtype=np.complex128))
            else:
                parts.append(NoTangent())
                ybar_np.append(None)
        y_bar = _structure_cotangent(y, parts) if output_diff else NoTangent()
    before_ybar = case.snapshot(y_bar)

    with _NoWrites(case):
        res = pullback(y_bar)
        if isinstance(res, tuple):  # a rule may return thunks: force them (the contract allows it)
            _check_thunks(case, res, deferred and output_diff)
            res = tuple(unthunk(r) for r in res)
    if not isinstance(res, tuple) or len(res) != len(args) + 1:
        n = len(res) if isinstance(res, tuple) else type(res).__name__
        raise case.fail(
            f"the pullback must return a tuple of {len(args) + 1} entries (f's own tangent, then "
            f"one per positional argument), got {n}"
        )
    if not isinstance(res[0], (AbstractZero, Tangent)):
        raise case.fail(f"the first entry (f's own tangent) is {type(res[0]).__name__}")
    case.check_unchanged("the cotangent it was given", y_bar, before_ybar)
    case.check_unchanged("its inputs", list(args), before_args)
    case.check_unchanged("the output y", y, before_y, who="the pullback")
    before_res = case.snapshot(list(res))

    def loss(values: list[Any]) -> float:
        outs = case.call_at(values)
        total = 0.0
        for o, yb in zip(outs, ybar_np):
            if yb is not None:
                total += float(np.sum(np.real(np.conj(yb) * o)))
        return total

    for li, lf in enumerate(case.leaves):
        if not lf.diff or not output_diff:
            _check_no_tangent(case, res, lf, output_diff)
            continue
        got = _arg_cotangent(case, res, lf)
        if isinstance(got, NoTangent):
            raise case.fail(
                f"the rule returned NoTangent() for {lf.describe()}, which has a tangent space"
            )
        _check_dtype(case, f"the cotangent of {lf.describe()}", got, lf.value)
        base = case.ref
        size = math.prod(tuple(getattr(lf.value, "shape", ())))
        if size <= FD_FULL_MAX and lf.arg not in case.hermitian:

            def element_wise(h: float, li: int = li) -> Any:
                return gradient(loss, case.ref, li, h)

            want = element_wise(case.h)
            case.compare(f"the cotangent of {lf.describe()}", got, want, lf.value, element_wise)
        else:  # dot-product test: d/dt L(x + t v) = Re<x_bar, v>
            v = case.direction(lf)
            vs = [np.zeros_like(b) if b is not None else None for b in base]
            vs[li] = v

            def along(h: float, vs: list[Any] = vs) -> Any:
                return directional_derivative(loss, case.ref, vs, h).real

            want = along(case.h)
            got_np = 0.0 if isinstance(got, AbstractZero) else np.asarray(to_numpy(got))
            got_dot = float(np.sum(np.real(np.conj(got_np) * v)))
            case.compare(
                f"<cotangent, v> of {lf.describe()} (dot-product test)",
                got_dot,
                want,
                lf.value,
                along,
            )

    if not output_diff:
        return
    # the pullback accepts ZeroTangent() and a Thunk, and gives the same result twice
    try:
        zero_res = pullback(ZeroTangent())
    except Exception as e:
        raise case.fail(
            f"the pullback must accept ZeroTangent() (and return zeros); it raised "
            f"{type(e).__name__}: {e}"
        ) from e
    for i, c in enumerate(unthunk(r) for r in zero_res[1:]):
        if not is_zero_value(c) and not isinstance(c, Tangent):
            raise case.fail(
                f"pulling back ZeroTangent() gave a non-zero cotangent for argument {i}"
            )
    _same(case, "calling the pullback twice", res, pullback(y_bar))
    _same(case, "pulling back a Thunk", res, pullback(Thunk(lambda: y_bar)))
    if output_cotangent is None:  # a call with other values must leave the first result alone
        other = [
            _ro(case.backend_like(v, case.random_like(v, _kind(v))))
            if _has_tangent_space(v)
            else NoTangent()
            for v in y_leaves
        ]
        pullback(_structure_cotangent(y, other))
    for i, (v, b) in enumerate(zip(leaves(list(res)), before_res)):
        if b is not None and not np.array_equal(to_numpy(v), b, equal_nan=True):
            raise case.fail(
                f"a later call of the pullback changed entry {i} of an earlier call's result: "
                "the pullback reuses a buffer across calls (return a new array each call)"
            )
    case.check_unchanged("the output y", y, before_y, who="the pullback")

    # a cotangent of the wrong shape is a ValueError naming both shapes
    if len(y_leaves) == 1 and not isinstance(y, (tuple, list)) and type(y) not in _SCALARS:
        yshape = tuple(y.shape)
        bad = case.backend_like(y, np.zeros((2, *yshape)))
        try:
            pullback(bad)
        except ValueError as e:
            msg = str(e)
            if str((2, *yshape)) not in msg or str(yshape) not in msg:
                raise case.fail(
                    f"the ValueError for a cotangent of shape {(2, *yshape)} must name it and the "
                    f"output's shape {yshape}; it says: {msg}"
                ) from None
        except Exception as e:
            raise case.fail(
                f"a cotangent of shape {(2, *yshape)} for an output of shape {yshape} must raise "
                f"ValueError naming both shapes, got {type(e).__name__}: {e}"
            ) from e
        else:
            raise case.fail(
                f"a cotangent of shape {(2, *yshape)} for an output of shape {yshape} was "
                "accepted; the pullback must raise ValueError (never broadcast silently)"
            )


def test_frule(
    f: Callable[..., Any],
    /,
    *args: Any,
    rtol: float | None = None,
    atol: float | None = None,
    chunk: int = 3,
    fkwargs: dict[str, Any] | None = None,
    seed: int = 0,
    scalar_free: bool = True,
    jit: bool = True,
    hermitian: Sequence[int] = (),
    reference: Callable[..., Any] | None = None,
    **kwargs: Any,
) -> None:
    """Check the registered frule of ``f`` at ``args`` against finite differences and the contract.

    Checks: the primal equals ``f``'s; the pushforward of random tangents agrees with the central
    finite difference ``d/dt f(x + t x_dot)``; it has the output's dtype; a chunk of ``chunk``
    tangents stacked along a new leading axis gives the same as ``chunk`` separate calls, in one
    call; zero tangents give zero; neither inputs nor tangents are mutated; and when an rrule is
    registered too, the two agree: ``<y_bar, y_dot> = sum_i <x_bar_i, x_dot_i>``.
    ``hermitian`` and ``reference`` are as in :func:`test_rrule` (its arguments get Hermitian
    tangents).
    """
    kw = dict(kwargs, **(fkwargs or {}))
    _frule_contract(f, args, kw, rtol, atol, chunk, seed, hermitian, reference)
    _device_checks(f, args, kw, "frule", scalar_free, jit)


def _frule_contract(
    f: Callable[..., Any],
    args: tuple[Any, ...],
    kw: dict[str, Any],
    rtol: float | None,
    atol: float | None,
    chunk: int,
    seed: int,
    hermitian: Sequence[int],
    reference: Callable[..., Any] | None = None,
) -> None:
    case = _Case("frule", f, args, kw, rtol, atol, seed, hermitian, reference)
    guarded = case.guarded_args()
    before_args = case.snapshot(list(args))

    def tangents_from(values: list[Any]) -> tuple[Any, ...]:
        per_arg: list[Any] = [NoTangent() for _ in args]
        groups: dict[int, list[Any]] = {}
        for lf, v in zip(case.leaves, values):
            t = _ro(case.backend_like(lf.value, v)) if v is not None else NoTangent()
            if lf.pos is None:
                per_arg[lf.arg] = t
            else:
                groups.setdefault(lf.arg, []).append(t)
        for i, elems in groups.items():
            per_arg[i] = Tangent(*elems, primal_type=type(args[i]))
        return (NoTangent(), *per_arg)

    dirs = [case.direction(lf) if lf.diff else None for lf in case.leaves]
    tangents = tangents_from(dirs)
    before_t = case.snapshot(list(tangents[1:]))
    with _NoWrites(case):
        y, y_dot = frule(tangents, f, *guarded, **kw)
    _check_primal(case, y)
    case.primal_shapes = [tuple(getattr(v, "shape", ())) for v in leaves(y)]
    case.check_unchanged("its inputs", list(args), before_args)
    case.check_unchanged("the tangents it was given", list(tangents[1:]), before_t)
    y_leaves = leaves(y)
    output_diff = any(_has_tangent_space(v) for v in y_leaves)
    if not output_diff:
        if not isinstance(y_dot, NoTangent):
            raise case.fail(f"the output has no tangent space; expected NoTangent(), got {y_dot!r}")
        return

    ydot_leaves = leaves(y_dot) if not isinstance(y_dot, AbstractZero) else [y_dot] * len(y_leaves)
    if len(ydot_leaves) != len(y_leaves):
        raise case.fail(f"y_dot has {len(ydot_leaves)} parts for {len(y_leaves)} outputs")
    want = directional_derivative(case.call_at, case.ref, dirs, case.h)
    for i, (yd, yv, w) in enumerate(zip(ydot_leaves, y_leaves, want)):
        what = f"the tangent of output {i}" if len(y_leaves) > 1 else "the output tangent"
        if not _has_tangent_space(yv):
            continue
        _check_dtype(case, what, yd, yv)
        cplx = np.iscomplexobj(to_numpy(yv))

        def again(h: float, i: int = i, cplx: bool = cplx) -> Any:
            w2 = directional_derivative(case.call_at, case.ref, dirs, h)[i]
            return w2 if cplx else w2.real

        case.compare(what, yd, w if cplx else w.real, yv, again)

    # zero tangents push forward to zero
    _, z = frule(
        tuple(
            NoTangent() if i == 0 else (ZeroTangent() if not isinstance(t, NoTangent) else t)
            for i, t in enumerate(tangents)
        ),
        f,
        *guarded,
        **kw,
    )
    for i, zl in enumerate(leaves(z) if not isinstance(z, AbstractZero) else []):
        if not is_zero_value(zl):
            raise case.fail(f"zero tangents gave a non-zero output tangent (part {i})")

    # a chunk of tangents in one call equals separate calls
    if chunk and any(lf.diff for lf in case.leaves):
        cdirs = [case.direction(lf, (chunk,)) if lf.diff else None for lf in case.leaves]
        _, yc = frule(tangents_from(cdirs), f, *guarded, **kw)
        yc_leaves = leaves(yc) if not isinstance(yc, AbstractZero) else [yc] * len(y_leaves)
        for k in range(chunk):
            _, yk = frule(
                tangents_from([d[k] if d is not None else None for d in cdirs]), f, *guarded, **kw
            )
            yk_leaves = leaves(yk) if not isinstance(yk, AbstractZero) else [yk] * len(y_leaves)
            for i, (c, s, yv) in enumerate(zip(yc_leaves, yk_leaves, y_leaves)):
                if not _has_tangent_space(yv):
                    continue
                shape = (chunk, *tuple(getattr(yv, "shape", ())))
                if isinstance(c, AbstractZero):
                    if not is_zero_value(s):
                        raise case.fail("a chunk of tangents gave ZeroTangent(), one by one not")
                    continue
                cn = to_numpy(c)
                if cn.shape != shape:
                    raise case.fail(
                        f"a chunk of {chunk} tangents gave an output tangent of shape "
                        f"{cn.shape}, expected {shape} (chunk axes lead)"
                    )
                sn = 0.0 if isinstance(s, AbstractZero) else to_numpy(s)
                rtol, atol = case.tol(yv)
                if not np.allclose(cn[k], sn, rtol=rtol, atol=atol, equal_nan=True):
                    raise case.fail(
                        f"chunk entry {k} of output {i} differs from a separate frule call: "
                        f"{cn[k]!r} vs {sn!r}"
                    )

    # rrule and frule agree: <y_bar, y_dot> = sum <x_bar, x_dot>
    if find_rrule(f) is not None:
        _, pullback = rrule(f, *guarded, **kw)
        ybars = [case.random_like(v, _kind(v)) if _has_tangent_space(v) else None for v in y_leaves]
        parts = [
            case.backend_like(v, r) if r is not None else NoTangent()
            for v, r in zip(y_leaves, ybars)
        ]
        res = pullback(_structure_cotangent(y, parts))
        lhs = sum(
            float(np.sum(np.real(np.conj(r) * to_numpy(d))))
            for r, d in zip(ybars, ydot_leaves)
            if r is not None and not isinstance(d, AbstractZero)
        )
        rhs = 0.0
        for lf, d in zip(case.leaves, dirs):
            if d is None:
                continue
            c = _arg_cotangent(case, res, lf)
            if not isinstance(c, AbstractZero):
                rhs += float(np.sum(np.real(np.conj(to_numpy(c)) * d)))
        rtol, atol = case.tol(y_leaves[0])
        if not abs(lhs - rhs) <= atol * max(1.0, abs(lhs)) + rtol * abs(lhs):
            raise case.fail(
                f"rrule and frule disagree: <y_bar, y_dot> = {lhs:.10g} but "
                f"sum <x_bar, x_dot> = {rhs:.10g}"
            )


def device_checks_apply(f: Callable[..., Any], args: tuple[Any, ...], module: Any) -> bool:
    """Whether ``check_scalar_free``/``check_jit`` can judge ``f`` at ``args``: an array among the
    arguments (or inside a sequence argument) and a counterpart of ``f`` in ``module``."""

    def array(a: Any) -> bool:
        return _kind(a) in "fcib" and type(a) not in _SCALARS

    if not any(array(a) or (isinstance(a, (tuple, list)) and any(map(array, a))) for a in args):
        return False
    return counterpart(f, module) is not None


def _device_checks(
    f: Callable[..., Any],
    args: tuple[Any, ...],
    kw: dict[str, Any],
    phase: str,
    scalar_free: bool,
    jit: bool,
) -> None:
    """The GPU-safety checks of one phase, where they apply (see ``device_checks_apply``)."""
    from . import checks

    if scalar_free and device_checks_apply(f, args, np):
        checks.check_scalar_free(f, *args, fkwargs=kw, phases=(phase,))
    if jit and importlib.util.find_spec("jax") is not None:
        import jax.numpy as jnp

        if device_checks_apply(f, args, jnp):
            # f itself may be untraceable here (x[mask]): then nothing is said about the rule
            with contextlib.suppress(checks.CheckNotApplicable):
                checks.check_jit(f, *args, fkwargs=kw, phases=(phase,))


test_rrule.__test__ = False  # type: ignore[attr-defined]  # not a pytest test itself
test_frule.__test__ = False  # type: ignore[attr-defined]
