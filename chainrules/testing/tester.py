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
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.namespaces import dtype_kind, namespace_of
from ..core.registry import counterpart, find_rrule, frule, function_name, rrule
from ..core.tangents import AbstractZero, NoTangent, Tangent, Thunk, ZeroTangent, unthunk
from .arrays import TOLERANCES, is_zero_value, leaves, like, nest, to_numpy
from .finite_differences import STEP, directional_derivative, gradient

__all__ = ["test_frule", "test_rrule"]

_SCALARS = (bool, int, float, complex)
FD_FULL_MAX = 36  # arguments with more elements are checked by the dot-product test


@dataclass
class _Leaf:
    """One array (or scalar) inside the positional arguments."""

    arg: int  # positional index
    pos: int | None  # index inside a tuple/list argument, None for a plain argument
    value: Any
    kind: str  # "f", "c", "i", "b" or "o" (opaque)

    @property
    def diff(self) -> bool:
        return self.kind in "fc"

    def describe(self) -> str:
        where = f"argument {self.arg}" + (f"[{self.pos}]" if self.pos is not None else "")
        v = self.value
        if type(v) in _SCALARS:
            return f"{where} (Python {type(v).__name__})"
        shape = tuple(getattr(v, "shape", ()))
        return f"{where} (shape {shape}, {getattr(v, 'dtype', type(v).__name__)})"


def _kind(v: Any) -> str:
    t = type(v)
    if t is float:
        return "f"
    if t is complex:
        return "c"
    if t is int or t is bool:
        return "i"
    dtype = getattr(v, "dtype", None)
    if dtype is None or not hasattr(v, "shape"):
        return "o"
    try:
        return dtype_kind(dtype, namespace_of(v))
    except TypeError:
        return "o"


def _classify(args: tuple[Any, ...]) -> tuple[list[_Leaf], list[bool]]:
    """Leaves of the positional arguments, and for each argument whether it is structural."""
    out: list[_Leaf] = []
    structural: list[bool] = []
    for i, a in enumerate(args):
        if isinstance(a, (tuple, list)) and any(_kind(e) in "fc" for e in a):
            structural.append(True)
            out.extend(_Leaf(i, j, e, _kind(e)) for j, e in enumerate(a))
        else:
            structural.append(False)
            out.append(_Leaf(i, None, a, _kind(a)))
    return out, structural


def _precision(v: Any) -> str:
    if type(v) in _SCALARS:
        return "64"
    return (
        "32"
        if getattr(v.dtype, "itemsize", 8) <= 4
        or "32" in str(v.dtype)
        or ("complex64" in str(v.dtype))
        else "64"
    )


def _fmt(v: Any, like: Any) -> str:
    return f"{complex(v):.10g}" if np.iscomplexobj(like) else f"{float(np.real(v)):.10g}"


class _Case:
    """Everything the checks of one call share: f, its arguments, the reference machinery."""

    def __init__(
        self,
        mode: str,
        f: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        rtol: float | None,
        atol: float | None,
        seed: int,
        hermitian: Sequence[int] = (),
        reference: Callable[..., Any] | None = None,
    ) -> None:
        self.mode = mode
        self.hermitian = frozenset(hermitian)
        self.f = f
        # what f computes, where the library's own f is wrong (docs/conventions.md): the primal
        # and the finite differences are judged against it
        self.reference = f if reference is None else reference
        self.name = function_name(f)
        self.args = args
        self.kwargs = kwargs
        self.rng = np.random.default_rng(seed)
        self.leaves, self.structural = _classify(args)
        self.xp = namespace_of(*(lf.value for lf in self.leaves if lf.kind != "o"))
        self.rtol, self.atol = rtol, atol
        # reference arguments: float64/complex128 NumPy copies of every differentiable leaf
        self.ref = [
            to_numpy(lf.value).astype(np.complex128 if lf.kind == "c" else np.float64)
            if lf.diff
            else None
            for lf in self.leaves
        ]
        self.fd_dtype = self._fd_dtype()
        self.h = STEP[np.dtype(self.fd_dtype)]
        # the shapes of the rule's primal outputs, once known: every reference evaluation of f
        # must give the same (a reference of another shape is another function)
        self.primal_shapes: list[tuple[int, ...]] | None = None

    # -- messages -------------------------------------------------------------------------------
    def fail(self, msg: str) -> AssertionError:
        return AssertionError(f"test_{self.mode}({self.name}): {msg}")

    def tol(self, v: Any) -> tuple[float, float]:
        precision = _precision(v)
        if type(v) in _SCALARS:  # a Python scalar's cotangent is computed with the arrays'
            arrays = [lf.value for lf in self.leaves if lf.diff and type(lf.value) not in _SCALARS]
            precision = min((_precision(a) for a in arrays), default="64")
        rtol, atol = TOLERANCES[precision if self.fd_dtype == np.float64 else "32"]
        return (
            self.rtol if self.rtol is not None else rtol,
            self.atol if self.atol is not None else atol,
        )

    def compare(
        self,
        what: str,
        got: Any,
        want: Any,
        like_value: Any,
        again: Callable[[float], Any] | None = None,
    ) -> None:
        """``got`` agrees with the finite-difference reference ``want``. Where it does not and
        ``again(h)`` recomputes the reference at another step: when the reference itself moves
        with the step (f jumps or kinks here: NumPy's complex ``unique_values`` keeps a hash order
        that a perturbation reshuffles), the failure says finite differences cannot judge, rather
        than blaming the rule for a reference that is not a derivative."""
        try:
            self._compare(what, got, want, like_value)
        except AssertionError as e:
            if again is None:
                raise
            other = np.asarray(again(self.h / 4))
            want_a = np.asarray(want)
            rtol, atol = self.tol(like_value)
            scale = max(1.0, float(np.max(np.abs(want_a), initial=0.0)))
            drift = np.abs(other - want_a)
            if np.all(drift <= atol * scale + rtol * np.abs(want_a)):
                raise
            raise self.fail(
                f"finite differences cannot judge {what} here: the reference moves by up to "
                f"{float(np.max(drift)):.3g} when the step goes from {self.h:g} to "
                f"{self.h / 4:g}, so f is not smooth at this input (a jump, a kink, or an output "
                f"that a perturbation reorders). The comparison said: {e}"
            ) from e

    def _compare(self, what: str, got: Any, want: Any, like_value: Any) -> None:
        got_a = np.asarray(to_numpy(got) if not isinstance(got, AbstractZero) else 0.0)
        want_a = np.asarray(want)
        if got_a.shape != want_a.shape and got_a.shape != ():
            raise self.fail(f"{what} has shape {got_a.shape}, expected {want_a.shape}")
        got_a = np.broadcast_to(got_a, want_a.shape).astype(np.complex128)
        rtol, atol = self.tol(like_value)
        if not np.all(np.isfinite(want_a)):
            raise self.fail(
                f"the finite-difference reference for {what} is not finite; is the input inside "
                "the function's domain?"
            )
        scale = max(1.0, float(np.max(np.abs(want_a), initial=0.0)))
        err = np.abs(got_a - want_a)
        bound = atol * scale + rtol * np.abs(want_a)
        bad = ~(err <= bound)  # also catches NaN in got
        if np.any(bad):
            idx = np.unravel_index(int(np.argmax(np.where(bad, err, -1.0))), err.shape)
            idx_s = tuple(int(i) for i in idx) if err.ndim else ()
            raise self.fail(
                f"{what} differs from the reference: max error {float(np.max(err[bad])):.3g} at "
                f"index {idx_s} (allowed {float(bound[idx]):.3g}); rule gave "
                f"{_fmt(got_a[idx], want)}, reference {_fmt(want_a[idx], want)}"
            )

    # -- evaluating f at reference points --------------------------------------------------------
    def _fd_dtype(self) -> Any:
        """float64 when the library of the arguments can compute in it, else float32."""
        for lf in self.leaves:
            if lf.diff and type(lf.value) not in _SCALARS:
                xp = namespace_of(lf.value)
                # JAX without x64 warns and silently makes float32: look at what comes back
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        probe = xp.asarray(np.zeros(1), dtype=xp.float64)
                    except Exception:  # noqa: BLE001  (a library without float64)
                        return np.float32
                return np.float64 if probe.dtype == xp.float64 else np.float32
        return np.float64

    def _backend_value(self, lf: _Leaf, value: Any) -> Any:
        v = lf.value
        if type(v) in _SCALARS:
            return complex(value) if lf.kind == "c" else float(np.real(value))
        xp = namespace_of(v)
        if lf.kind == "c":
            dt = xp.complex128 if self.fd_dtype == np.float64 else xp.complex64
        else:
            dt = xp.float64 if self.fd_dtype == np.float64 else xp.float32
        return like(v, value, dtype=dt)

    def call_at(self, values: list[Any]) -> list[Any]:
        """``f`` at the differentiable leaves replaced by ``values`` (NumPy), as NumPy leaves."""
        args = list(self.args)
        groups: dict[int, list[Any]] = {}
        for lf, val in zip(self.leaves, values):
            new = self._backend_value(lf, val) if lf.diff and val is not None else lf.value
            if lf.pos is None:
                args[lf.arg] = new
            else:
                groups.setdefault(lf.arg, []).append(new)
        for i, elems in groups.items():
            args[i] = type(self.args[i])(elems)
        y = self.reference(*args, **self.kwargs)
        outs = [np.asarray(to_numpy(leaf), dtype=np.complex128) for leaf in leaves(y)]
        self.check_reference_shapes(outs)
        return outs

    def check_reference_shapes(self, outs: list[Any]) -> None:
        """A reference evaluation of ``f`` (in float64, near the input) has the outputs of the
        rule's primal, in number and shape. Where it has not (NumPy's ``polydiv`` trims the
        remainder's leading entries within 1e-8, so its float64 remainder is shorter than its
        complex64 one), the finite differences are those of another function: comparing them
        would broadcast one against the other, or blame the rule for the difference."""
        if self.primal_shapes is None:
            return
        shapes = [tuple(o.shape) for o in outs]
        if len(shapes) != len(self.primal_shapes):
            raise self.fail(
                f"f at the reference point ({np.dtype(self.fd_dtype).name} copies of the "
                f"arguments, perturbed by finite differences) returns {len(shapes)} arrays, the "
                f"rule's primal {len(self.primal_shapes)}: finite differences cannot judge the "
                "rule at this input"
            )
        for i, (got, want) in enumerate(zip(shapes, self.primal_shapes)):
            if got != want:
                raise self.fail(
                    f"f at the reference point ({np.dtype(self.fd_dtype).name} copies of the "
                    f"arguments, perturbed by finite differences) gives output {i} of shape "
                    f"{got}, but the rule's primal has shape {want}: f's output shape changes "
                    "with the precision or under the perturbation, so finite differences cannot "
                    "judge the rule at this input"
                )

    # -- random values ---------------------------------------------------------------------------
    def random_like(self, v: Any, kind: str, lead: tuple[int, ...] = ()) -> Any:
        shape = lead + tuple(getattr(v, "shape", ()))
        r = self.rng.standard_normal(shape)
        if kind == "c":
            r = r + 1j * self.rng.standard_normal(shape)
        return r

    def direction(self, lf: _Leaf, lead: tuple[int, ...] = ()) -> Any:
        """A random perturbation of ``lf``: Hermitian in the last two axes for an argument
        declared ``hermitian`` (a function that reads one triangle is only judged along
        directions that keep its input in its domain)."""
        r = self.random_like(lf.value, lf.kind, lead)
        if lf.arg in self.hermitian and lf.pos is None:
            r = (r + np.conj(np.swapaxes(r, -1, -2))) / 2
        return r

    def backend_like(self, v: Any, value: Any) -> Any:
        """``value`` in ``v``'s library and dtype. A Python-scalar ``v`` gets a Python scalar, or
        (for a chunk of tangents) an array of the arguments' library."""
        if type(v) in _SCALARS:
            if np.ndim(value) == 0:
                return complex(value) if np.iscomplexobj(value) else float(np.real(value))
            dt = self.xp.complex128 if np.iscomplexobj(value) else self.xp.float64
            return self.xp.asarray(np.asarray(value), dtype=dt)
        return like(v, value)

    # -- purity ----------------------------------------------------------------------------------
    def guarded_args(self) -> tuple[Any, ...]:
        """Arguments with NumPy arrays made read-only (a rule that writes into them raises)."""

        return tuple(_ro(a) for a in self.args)

    def snapshot(self, values: Any) -> list[Any]:
        """Copies of the array leaves of ``values`` (None for zeros and opaque objects)."""
        return [
            np.array(to_numpy(v), copy=True)
            if _kind(v) in "fcib" and type(v) not in _SCALARS
            else None
            for v in leaves(values)
        ]

    def check_unchanged(
        self, what: str, values: Any, before: list[Any], who: str = "the rule"
    ) -> None:
        for i, (v, b) in enumerate(zip(leaves(values), before)):
            if b is not None and not np.array_equal(to_numpy(v), b, equal_nan=True):
                raise self.fail(f"{who} mutated {what} (leaf {i}); rules must be pure")


class _NoWrites:
    """Turn NumPy's 'read-only' error (a rule writing into an input) into a test failure."""

    def __init__(self, case: _Case) -> None:
        self.case = case

    def __enter__(self) -> None:
        return None

    def __exit__(self, et: Any, e: Any, tb: Any) -> None:
        if isinstance(e, ValueError) and "read-only" in str(e):
            raise self.case.fail(
                "the rule tried to write into its input or the (co)tangent it was given (a "
                f"read-only NumPy array): rules must not mutate them ({e})"
            ) from e


def _ro(x: Any) -> Any:
    """A read-only copy of a NumPy array (inside tuples and lists too); anything else as is."""
    if isinstance(x, np.ndarray):
        x = x.copy()
        x.flags.writeable = False
    elif isinstance(x, (tuple, list)):
        return type(x)(_ro(e) for e in x)
    return x


def _structure_cotangent(y: Any, parts: list[Any]) -> Any:
    return nest(y, parts)


def _has_tangent_space(v: Any) -> bool:
    return _kind(v) in "fc"


def _check_primal(case: _Case, y: Any) -> None:
    ref = case.reference(*case.args, **case.kwargs)
    ys, refs = leaves(y), leaves(ref)
    if len(ys) != len(refs):
        raise case.fail(f"the rule's output has {len(ys)} arrays, f returns {len(refs)}")
    for i, (a, b) in enumerate(zip(ys, refs)):
        if tuple(getattr(a, "shape", ())) != tuple(getattr(b, "shape", ())):
            raise case.fail(
                f"primal output {i} has shape {tuple(getattr(a, 'shape', ()))}, f gives "
                f"{tuple(getattr(b, 'shape', ()))}"
            )
        if type(b) not in _SCALARS and type(a) not in _SCALARS:
            if namespace_of(a) is not namespace_of(b):
                raise case.fail(
                    f"primal output {i} is a {type(a).__module__}.{type(a).__name__}, f returns "
                    f"a {type(b).__module__}.{type(b).__name__}"
                )
            if a.dtype != b.dtype:
                raise case.fail(f"primal output {i} has dtype {a.dtype}, f gives {b.dtype}")
        an, bn = to_numpy(a), to_numpy(b)
        if _has_tangent_space(b):
            rtol = 1e-12 if _precision(b) == "64" else 1e-5
            if not np.allclose(an, bn, rtol=rtol, atol=rtol, equal_nan=True):
                raise case.fail(f"primal output {i} differs from f: {an!r} vs {bn!r}")
        elif not np.array_equal(an, bn):
            raise case.fail(f"primal output {i} differs from f: {an!r} vs {bn!r}")


def _arg_cotangent(case: _Case, res: tuple[Any, ...], lf: _Leaf) -> Any:
    c = res[1 + lf.arg]
    if lf.pos is None:
        return c
    if isinstance(c, AbstractZero):
        return c
    if isinstance(c, Tangent):
        return c[lf.pos]
    if isinstance(c, (tuple, list)):
        return c[lf.pos]
    raise case.fail(
        f"the cotangent of argument {lf.arg} (a {type(case.args[lf.arg]).__name__} of arrays) "
        f"must be a Tangent with one entry per element, got {type(c).__name__}"
    )


def _check_dtype(case: _Case, what: str, got: Any, ref: Any) -> None:
    if isinstance(got, AbstractZero) or type(ref) in _SCALARS:
        return
    if type(got) in _SCALARS or not hasattr(got, "dtype"):
        raise case.fail(f"{what} is a {type(got).__name__}, expected an array of dtype {ref.dtype}")
    if got.dtype != ref.dtype:
        raise case.fail(f"{what} has dtype {got.dtype}, expected {ref.dtype} (the primal's)")
    if namespace_of(got) is not namespace_of(ref):
        raise case.fail(
            f"{what} is a {type(got).__module__}.{type(got).__name__}, expected an array of the "
            f"primal's library ({type(ref).__module__}.{type(ref).__name__})"
        )


def _check_no_tangent(case: _Case, res: tuple[Any, ...], lf: _Leaf, output_diff: bool) -> None:
    c = res[1 + lf.arg]
    if lf.pos is not None and isinstance(c, Tangent):
        c = c[lf.pos]
    if isinstance(c, NoTangent):
        return
    if isinstance(c, ZeroTangent):
        raise case.fail(
            f"the rule returned ZeroTangent() for {lf.describe()}, which has no tangent space; "
            "return NoTangent()"
        )
    if not output_diff and lf.diff:
        raise case.fail(
            f"the output has no tangent space, so the cotangent of {lf.describe()} must be "
            f"NoTangent(), got {type(c).__name__}"
        )
    raise case.fail(f"expected NoTangent() for {lf.describe()}, got {type(c).__name__}")


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


def _check_thunks(case: _Case, raw: tuple[Any, ...], deferred: bool) -> None:
    """The deferred cotangents of one pullback call: each forced twice, last to first and then
    first to last, gives the same values; with ``deferred``, every argument with a tangent space
    has one."""
    if deferred:
        for lf in case.leaves:
            if lf.diff and lf.pos is None and not isinstance(raw[1 + lf.arg], Thunk):
                raise case.fail(
                    f"the cotangent of {lf.describe()} is a {type(raw[1 + lf.arg]).__name__}, "
                    "not a Thunk: the rule computes it even for an engine that does not trace "
                    "this argument (docs/conventions.md, only the cotangents asked for)"
                )
    slots = [i for i, r in enumerate(raw) if isinstance(r, Thunk)]
    if not slots:
        return
    backwards = {i: unthunk(raw[i]) for i in reversed(slots)}
    forwards = tuple(unthunk(raw[i]) for i in slots)
    first = tuple(backwards[i] for i in slots)
    _same(case, "forcing the Thunks in the other order", first, forwards)


def _same(case: _Case, what: str, a: tuple[Any, ...], b: tuple[Any, ...]) -> None:
    for i, (x, y) in enumerate(zip(leaves(list(a)), leaves(list(b)))):
        if isinstance(x, AbstractZero) or isinstance(y, AbstractZero):
            if not (is_zero_value(x) and is_zero_value(y)):
                raise case.fail(f"{what} changed entry {i} of the result")
            continue
        xa, ya = to_numpy(x), to_numpy(y)
        if not np.allclose(xa, ya, rtol=1e-12, atol=0, equal_nan=True):
            raise case.fail(f"{what} changed entry {i} of the result: {xa!r} vs {ya!r}")


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
