"""The call a rule is tested on, for ``test_rrule`` and ``test_frule`` (``chainrules.testing
.tester``): the arguments classified into leaves with and without a tangent space (``_Case``),
their precision, the read-only copies that catch a rule writing into its inputs, and the checks
both contracts share (primal, dtypes, ``NoTangent`` entries, thunks)."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.namespaces import dtype_kind, namespace_of
from ..core.registry import function_name
from ..core.tangents import AbstractZero, NoTangent, Tangent, Thunk, ZeroTangent, unthunk
from .arrays import TOLERANCES, is_zero_value, leaves, like, nest, to_numpy
from .finite_differences import STEP

_SCALARS = (bool, int, float, complex)


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
