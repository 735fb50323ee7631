"""``check_scalar_free`` and ``check_jit``: run a rule where GPU-unsafe code fails.

Finite differences (``test_rrule``) judge whether a rule is *correct*; these two judge whether it
is *usable on a GPU and under a compiler*. Each runs the rule's rrule, its pullback and its frule
twice -- once as a reference on NumPy float64 (complex128) arrays, once in a hostile setting --
and insists on the same results:

* :func:`check_scalar_free` runs them on :func:`~chainrules.testing.device.device_array` inputs
  (float32 / complex64) with scalar indexing disallowed. ``float(x)``, ``int(xp.argmax(x))``,
  ``bool(...)``, ``x[i]``, ``g[i] = v`` with a host index, iteration, ``np.asarray(x)`` and
  mixing host with device arrays fail there, exactly where they would synchronise a GPU. Results
  must be device arrays, not host arrays.
* :func:`check_jit` traces them under ``jax.jit`` with JAX inputs, where every one of those
  accesses is a tracer error, and so is an in-place write.

Both raise ``AssertionError`` naming the function, the phase (rrule, pullback or frule) and the
access. They also catch a backend fast path that disagrees with the generic code: the reference
runs the NumPy path, the checks run the generic one.

>>> import numpy as np
>>> from chainrules.testing.checks import check_scalar_free
>>> check_scalar_free(np.sin, np.array([0.1, 0.2, 0.3]))
>>> check_scalar_free(np.multiply, np.ones((2, 3)), np.arange(3.0))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.namespaces import is_array
from ..core.registry import counterpart, find_frule, find_rrule, frule, function_name, rrule
from ..core.scalar import ScalarIndexingError, allowscalar
from ..core.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent
from .arrays import TOLERANCES, leaves, nest, place, to_numpy
from .device import DeviceMismatchError, device_array, is_device_array

__all__ = ["CheckNotApplicable", "check_jit", "check_scalar_free"]

_ARRAY_KINDS = ("f", "c", "i", "b")


@dataclass
class _Arg:
    """One positional argument: how it is treated, and its NumPy value at the rule's precision."""

    value: Any
    # "f" "c" "i" "b" (arrays), "pf" "pc" (Python float/complex), "o" (static),
    # "k" (a tuple or list holding integer/boolean arrays: an index key),
    # "s" (a tuple or list holding floating arrays: concat's; ``host`` holds its elements' _Arg)
    kind: str
    host: Any = None  # arrays: a NumPy copy rounded to the checked precision

    @property
    def is_array(self) -> bool:
        return self.kind in _ARRAY_KINDS

    @property
    def diff(self) -> bool:
        return self.kind in ("f", "c", "pf", "pc", "s")

    def parts(self) -> list[tuple[int | None, _Arg]]:
        """``(position, element)`` for a sequence argument, ``[(None, self)]`` otherwise."""
        if self.kind == "s":
            return list(enumerate(self.host))
        return [(None, self)]


def _has_tangent_space(v: Any) -> bool:
    if type(v) in (float, complex):
        return True
    dtype = getattr(v, "dtype", None)
    return dtype is not None and np.dtype(dtype).kind in "fc"


class _Check:
    """The reference run on NumPy float64 and the comparison of another run with it."""

    def __init__(
        self,
        checker: str,
        f: Callable[..., Any],
        run_f: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        precision: str,
        seed: int,
        rtol: float | None,
        atol: float | None,
        output_cotangent: Any,
        phases: Sequence[str] = ("rrule", "frule"),
    ) -> None:
        bad = set(phases) - {"rrule", "frule"}
        if bad:
            raise ValueError(f"{checker}: phases are 'rrule' and 'frule', got {sorted(bad)}")
        self.checker = checker
        self.f = f
        self.name = function_name(f)
        self.kwargs = kwargs
        self.precision = precision
        self.real: Any = np.float32 if precision == "32" else np.float64
        self.complex: Any = np.complex64 if precision == "32" else np.complex128
        default_rtol, default_atol = TOLERANCES[precision]
        self.rtol = default_rtol if rtol is None else rtol
        self.atol = default_atol if atol is None else atol
        self.rng = np.random.default_rng(seed)
        self.args = [self._classify(i, a) for i, a in enumerate(args)]
        # the phases that exist for the function that is really run (f, or its JAX counterpart)
        self.has_rrule = "rrule" in phases and find_rrule(run_f) is not None
        self.has_frule = "frule" in phases and find_frule(run_f) is not None
        if find_rrule(run_f) is None and find_frule(run_f) is None:
            rrule(run_f, *args, **kwargs)  # raises NoRuleError with its usual message
        f_np = counterpart(f, np)
        if f_np is None:
            raise ValueError(
                f"{checker}({self.name}): no NumPy counterpart of {self.name} to compute the "
                "reference with (register the rule for a standard name, a 'numpy:' name, or for "
                "a generic callable)"
            )
        self.f_np = f_np
        # reference arguments: float64/complex128 copies of the values the rule will really see
        self.ref_args = [self._to_reference(a) for a in self.args]
        # random tangents, one per argument with a tangent space (rounded like the arguments)
        self.tangents = [self._tangent(a) for a in self.args]
        self.output_cotangent = output_cotangent
        if self.has_rrule:
            self._reference_rrule()
        if self.has_frule:
            self._reference_frule()

    # -- setting up ------------------------------------------------------------------------------
    def fail(self, msg: str) -> AssertionError:
        return AssertionError(f"{self.checker}({self.name}): {msg}")

    def _classify(self, i: int, a: Any) -> _Arg:
        t = type(a)
        if t is float:
            return _Arg(a, "pf")
        if t is complex:
            return _Arg(a, "pc")
        if t is int or t is bool or a is None:
            return _Arg(a, "o")
        if isinstance(a, (tuple, list)):
            if any(_floating(e) for e in a):  # a sequence of arrays (concat's, stack's)
                elems = [self._classify(i, e) for e in a]
                if any(e.kind in ("s", "k") for e in elems):
                    raise TypeError(
                        f"{self.checker}({self.name}): argument {i} nests sequences of arrays"
                    )
                return _Arg(a, "s", elems)
            if any(is_array(e) for e in a):  # an index key: (slice, integer array), ...
                return _Arg(a, "k", type(a)(_host(e) for e in a))
            return _Arg(a, "o")  # shapes, axes
        if not is_array(a):
            return _Arg(a, "o")  # slices, dtypes, strings, callables
        host = np.asarray(to_numpy(a))
        kind = {"u": "i"}.get(host.dtype.kind, host.dtype.kind)
        if kind not in _ARRAY_KINDS:
            raise TypeError(f"{self.checker}({self.name}): argument {i} has dtype {host.dtype}")
        if kind == "f":
            host = host.astype(self.real)
        elif kind == "c":
            host = host.astype(self.complex)
        return _Arg(a, kind, host)

    def _to_reference(self, a: _Arg) -> Any:
        if a.kind == "s":
            return type(a.value)(self._to_reference(e) for e in a.host)
        if a.kind == "k":
            return a.host
        if a.kind == "f":
            return a.host.astype(np.float64)
        if a.kind == "c":
            return a.host.astype(np.complex128)
        if a.is_array:
            return a.host.copy()
        return a.value

    def _tangent(self, a: _Arg) -> Any:
        """A random tangent for ``a`` (a list with ``None`` entries for a sequence), or None."""
        if a.kind == "s":
            return [self._random(e.value, e.kind) if e.diff else None for e in a.host]
        return self._random(a.value, a.kind) if a.diff else None

    def _round(self, r: Any, cplx: bool) -> Any:
        """``r`` at the checked precision, then as float64/complex128 for the reference."""
        if cplx:
            return np.asarray(r).astype(self.complex).astype(np.complex128)
        return np.asarray(r).astype(self.real).astype(np.float64)

    def _random(self, like: Any, kind: str) -> Any:
        cplx = kind in ("c", "pc")
        if kind in ("pf", "pc"):  # a Python scalar argument keeps a Python scalar tangent
            re = float(self.rng.standard_normal())
            return complex(re, float(self.rng.standard_normal())) if cplx else re
        shape = tuple(getattr(like, "shape", ()))
        r: Any = self.rng.standard_normal(shape)
        if cplx:
            r = r + 1j * self.rng.standard_normal(shape)
        return self._round(r, cplx)

    def _cotangent_leaves(self, y_leaves: list[Any]) -> list[Any]:
        """NumPy cotangents for the outputs (``None`` where an output has no tangent space)."""
        if self.output_cotangent is None:
            out: list[Any] = []
            for v in y_leaves:
                if not _has_tangent_space(v):
                    out.append(None)
                elif type(v) in (float, complex):
                    out.append(self._random(v, "pc" if type(v) is complex else "pf"))
                else:
                    out.append(self._random(v, "c" if np.iscomplexobj(v) else "f"))
            return out
        given = leaves(self.output_cotangent)
        if len(given) != len(y_leaves):
            raise ValueError(
                f"{self.checker}({self.name}): output_cotangent has {len(given)} parts for "
                f"{len(y_leaves)} outputs"
            )
        return [
            None
            if isinstance(g, AbstractZero) or not _has_tangent_space(v)
            else self._round(to_numpy(g), np.iscomplexobj(v))
            for g, v in zip(given, y_leaves)
        ]

    @staticmethod
    def structure(y: Any, parts: Sequence[Any]) -> Any:
        """The cotangent of ``y`` from one part per output (``NoTangent()`` when none has a
        tangent space)."""
        if all(isinstance(p, AbstractZero) for p in parts):
            return NoTangent()
        return nest(y, parts)

    def tangents_for(self, convert: Callable[[_Arg, Any], Any]) -> tuple[Any, ...]:
        """``(f_dot, *arg_dots)`` with the random tangents converted for the run."""

        def one(a: _Arg, t: Any) -> Any:
            if t is None:
                return NoTangent()
            if a.kind == "s":
                elems = (one(e, te) for e, te in zip(a.host, t))
                return Tangent(*elems, primal_type=type(a.value))
            return convert(a, t)

        return (NoTangent(), *(one(a, t) for a, t in zip(self.args, self.tangents)))

    def _reference_rrule(self) -> None:
        y, pullback = rrule(self.f_np, *self.ref_args, **self.kwargs)
        self.y_ref = leaves(y)
        self.ybar = self._cotangent_leaves(self.y_ref)
        parts = [NoTangent() if c is None else c for c in self.ybar]
        res = pullback(self.structure(y, parts))
        self.res_ref = [leaves(r) for r in res]

    def _reference_frule(self) -> None:
        tangents = self.tangents_for(lambda a, t: t)
        y, y_dot = frule(tangents, self.f_np, *self.ref_args, **self.kwargs)
        self.yf_ref = leaves(y)
        self.ydot_ref = self.spread(y_dot, len(self.yf_ref))

    @staticmethod
    def spread(x: Any, n: int) -> list[Any]:
        """The leaves of a tangent; one zero marker stands for every output."""
        if isinstance(x, AbstractZero):
            return [x] * n
        return leaves(x)

    # -- comparing -------------------------------------------------------------------------------
    def compare(
        self,
        what: str,
        got: Any,
        want: Any,
        on_target: Callable[[Any], bool] | None,
        phase: str,
    ) -> None:
        if isinstance(want, NoTangent):
            if not isinstance(got, NoTangent):
                raise self.fail(f"{what} is {_describe(got)}, but NumPy's gives NoTangent()")
            return
        if isinstance(got, NoTangent):
            raise self.fail(f"{what} is NoTangent(), but NumPy's gives {_describe(want)}")
        if isinstance(want, ZeroTangent):
            if isinstance(got, ZeroTangent) or np.all(_numpy(got) == 0):
                return
            raise self.fail(f"{what} is a non-zero {_describe(got)}, NumPy's gives ZeroTangent()")
        if isinstance(got, ZeroTangent):
            if np.all(np.asarray(want) == 0):
                return
            raise self.fail(f"{what} is ZeroTangent(), NumPy's gives a non-zero array")
        wants_array = isinstance(want, (np.ndarray, np.generic))
        if on_target is not None and wants_array and not on_target(got):
            raise self.fail(
                f"{what} is a {_describe(got)}, not a device array: the {phase} moved it to "
                "the host or built it there (create arrays with the inputs' namespace and "
                "device)"
            )
        g, w = _numpy(got), np.asarray(want)
        if g.shape != w.shape:
            raise self.fail(f"{what} has shape {g.shape}, NumPy's has {w.shape}")
        if w.dtype.kind not in "fc":
            if not np.array_equal(g, w):
                raise self.fail(f"{what} differs from NumPy's: {g!r} vs {w!r}")
            return
        w = w.astype(np.complex128)
        g = g.astype(np.complex128)
        scale = max(1.0, float(np.max(np.abs(w), initial=0.0)))
        err = np.abs(g - w)
        bound = self.atol * scale + self.rtol * np.abs(w)
        bad = ~((err <= bound) | (np.isnan(g) & np.isnan(w)))
        if np.any(bad):
            idx = np.unravel_index(int(np.argmax(np.where(bad, err, -1.0))), err.shape)
            where = tuple(int(i) for i in idx) if err.ndim else ()
            raise self.fail(
                f"{what} differs from the NumPy float64 reference: error {float(err[idx]):.3g} at "
                f"index {where} (allowed {float(bound[idx]):.3g}); got {_fmt(g[idx])}, reference "
                f"{_fmt(w[idx])}"
            )

    def compare_rrule(
        self, y: list[Any], res: list[list[Any]], on_target: Callable[[Any], bool] | None
    ) -> None:
        if len(y) != len(self.y_ref):
            raise self.fail(f"the rrule returned {len(y)} outputs, NumPy's {len(self.y_ref)}")
        for i, (g, w) in enumerate(zip(y, self.y_ref)):
            what = "the primal output" if len(y) == 1 else f"primal output {i}"
            self.compare(what, g, w, on_target, "rrule")
        if len(res) != len(self.res_ref):
            raise self.fail(
                f"the pullback returned {len(res)} entries, NumPy's {len(self.res_ref)} (f's own "
                "tangent, then one per positional argument)"
            )
        for k, (gs, ws) in enumerate(zip(res, self.res_ref)):
            what = "the tangent of f itself" if k == 0 else f"the cotangent of argument {k - 1}"
            if len(gs) != len(ws):
                raise self.fail(f"{what} has {len(gs)} parts, NumPy's has {len(ws)}")
            for g, w in zip(gs, ws):
                self.compare(what, g, w, on_target, "pullback")

    def compare_frule(
        self, y: list[Any], y_dot: list[Any], on_target: Callable[[Any], bool] | None
    ) -> None:
        if len(y) != len(self.yf_ref):
            raise self.fail(f"the frule returned {len(y)} outputs, NumPy's {len(self.yf_ref)}")
        if len(y_dot) != len(self.ydot_ref):
            raise self.fail(
                f"the frule's tangent has {len(y_dot)} parts, NumPy's has {len(self.ydot_ref)}"
            )
        for i, (g, w, gd, wd) in enumerate(zip(y, self.yf_ref, y_dot, self.ydot_ref)):
            one = len(y) == 1
            self.compare(
                "the frule's primal output" if one else f"the frule's primal output {i}",
                g,
                w,
                on_target,
                "frule",
            )
            what = "the output tangent" if one else f"the tangent of output {i}"
            self.compare(what, gd, wd, on_target, "frule")


class CheckNotApplicable(Exception):
    """The check cannot judge this call: the function itself cannot run there (``x[mask]`` has a
    data-dependent shape, so ``jax.jit`` cannot trace it however the rule is written)."""


def _host(e: Any) -> Any:
    """An index key's entry on the host: arrays as NumPy, the rest (slices, ints) as they are."""
    return np.asarray(to_numpy(e)) if is_array(e) else e


def _floating(e: Any) -> bool:
    if type(e) in (float, complex):
        return True
    return is_array(e) and np.asarray(to_numpy(e)).dtype.kind in "fc"


def _numpy(x: Any) -> np.ndarray:
    return np.asarray(to_numpy(x))


def _describe(x: Any) -> str:
    if isinstance(x, AbstractZero):
        return f"{type(x).__name__}()"
    t = type(x)
    return f"{t.__module__}.{t.__qualname__}"


def _fmt(v: Any) -> str:
    return f"{complex(v):.8g}" if complex(v).imag else f"{complex(v).real:.8g}"


def _kwargs(kwargs: dict[str, Any], fkwargs: dict[str, Any] | None) -> dict[str, Any]:
    return dict(kwargs, **(fkwargs or {}))


# -- check_scalar_free -------------------------------------------------------------------------
def check_scalar_free(
    f: Callable[..., Any],
    /,
    *args: Any,
    output_cotangent: Any = None,
    rtol: float | None = None,
    atol: float | None = None,
    backing: str = "numpy",
    seed: int = 0,
    fkwargs: dict[str, Any] | None = None,
    phases: Sequence[str] = ("rrule", "frule"),
    **kwargs: Any,
) -> None:
    """Check that the rules of ``f`` never touch single elements or leave the device.

    Computes a reference on NumPy float64 (the rrule and frule of ``f``'s NumPy counterpart, or of
    ``f`` itself for a directly registered generic function): the pullback of a seeded random
    cotangent and the pushforward of seeded random tangents. Then runs the rrule, the pullback
    and the frule of ``f`` on :func:`~chainrules.testing.device.device_array` copies of the
    arguments (floating arrays in float32 / complex64, integer and boolean arrays as they are)
    inside ``allowscalar(False)``, and checks that

    * no single element is read or written and no host array is mixed in;
    * every output, cotangent and tangent is a device array where NumPy's is an array;
    * they agree with the reference (float32 tolerances);
    * ``NoTangent()`` and ``ZeroTangent()`` appear where the reference has them
      (``ZeroTangent()`` may also be an all-zero array).

    Parameters
    ----------
    f
        A function with registered rules (``np.sin``, a standard name's function, a callable).
    *args
        Its positional arguments: arrays of any library, Python scalars, sequences of arrays
        (``concat``'s), index keys and static values (ints, axes, ``None``).
    output_cotangent
        The cotangent to pull back (default: random, seeded).
    rtol, atol
        Tolerances (default ``2e-3`` and ``2e-4``; ``atol`` is relative to
        ``max(1, max |reference|)``).
    backing
        The device arrays' backing: ``"numpy"`` or ``"array_api_strict"``.
    seed
        Seed of the random cotangent and tangents.
    fkwargs
        Keyword arguments of ``f`` whose names clash with this function's.
    phases
        Which rules to check: ``("rrule", "frule")`` (the default), or one of them (the testers
        ``test_rrule`` / ``test_frule`` each check their own).
    **kwargs
        Keyword arguments of ``f`` (never differentiated).

    Raises
    ------
    AssertionError
        Naming ``f``, the phase and the offending access or value.

    Examples
    --------
    >>> import numpy as np
    >>> from chainrules.testing.checks import check_scalar_free
    >>> check_scalar_free(np.maximum, np.array([1.0, -2.0, 3.0]), 0.5)
    """
    kw = _kwargs(kwargs, fkwargs)
    check = _Check(
        "check_scalar_free", f, f, args, kw, "32", seed, rtol, atol, output_cotangent, phases
    )
    if not any(e.is_array for a in check.args for _, e in a.parts()):
        raise ValueError(
            f"check_scalar_free({check.name}): give at least one array argument (with Python "
            "scalars only, nothing runs on the device)"
        )

    def on_device(a: _Arg, value: Any) -> Any:
        if a.kind in ("pf", "pc"):
            return value
        if a.kind == "f":
            value = np.asarray(value).astype(np.float32)
        elif a.kind == "c":
            value = np.asarray(value).astype(np.complex64)
        return device_array(value, backing)

    def argument(a: _Arg) -> Any:
        if a.kind == "s":
            return type(a.value)(argument(e) for e in a.host)
        if a.kind == "k":  # an index key: its arrays live on the device too
            return type(a.value)(device_array(e, backing) if is_array(e) else e for e in a.host)
        return on_device(a, a.host) if a.is_array else a.value

    dev_args = [argument(a) for a in check.args]
    guard = _Guard(check)
    if check.has_rrule:
        with guard("rrule"), allowscalar(False):
            y, pullback = rrule(f, *dev_args, **kw)
        y_leaves = leaves(y)
        parts = [NoTangent() if c is None else _device_cotangent(c, backing) for c in check.ybar]
        with guard("pullback"), allowscalar(False):
            res = pullback(check.structure(y, parts))
            res_leaves = [leaves(r) for r in res]  # forces thunks inside the guard
        check.compare_rrule(y_leaves, res_leaves, is_device_array)
    if check.has_frule:
        tangents = check.tangents_for(on_device)
        with guard("frule"), allowscalar(False):
            y, y_dot = frule(tangents, f, *dev_args, **kw)
            ydot_leaves = check.spread(y_dot, len(leaves(y)))
        check.compare_frule(leaves(y), ydot_leaves, is_device_array)


def _device_cotangent(c: Any, backing: str) -> Any:
    if type(c) in (float, complex):
        return c
    dtype = np.complex64 if np.iscomplexobj(c) else np.float32
    return device_array(np.asarray(c).astype(dtype), backing)


class _Guard:
    """Turns the errors of a GPU-unsafe access inside one phase into ``AssertionError``."""

    def __init__(self, check: _Check) -> None:
        self.check = check
        self.phase = ""

    def __call__(self, phase: str) -> _Guard:
        self.phase = phase
        return self

    def __enter__(self) -> None:
        return None

    def __exit__(self, et: Any, e: Any, tb: Any) -> None:
        if isinstance(e, ScalarIndexingError):
            raise self.check.fail(f"the {self.phase} touched single elements: {e}") from e
        if isinstance(e, DeviceMismatchError):
            raise self.check.fail(f"the {self.phase} mixed host and device arrays: {e}") from e


# -- check_jit ---------------------------------------------------------------------------------
def _import_jax() -> tuple[Any, Any]:
    try:
        import jax
        import jax.numpy as jnp
    except ImportError as e:
        raise ModuleNotFoundError(
            "check_jit needs JAX, which is not installed: pip install 'chainrules[jax]'",
            name="jax",
        ) from e
    return jax, jnp


def _tracer_errors(jax: Any) -> tuple[type[BaseException], ...]:
    """The exceptions that mean "this code needs concrete values" (jax 0.10.2 has them all;
    older releases lack some, hence the lookup by name)."""
    names = (
        "JAXTypeError",  # base of the four below in jax >= 0.4.36
        "JAXIndexError",  # base of NonConcreteBooleanIndexError
        "ConcretizationTypeError",
        "TracerBoolConversionError",
        "TracerIntegerConversionError",
        "TracerArrayConversionError",
        "NonConcreteBooleanIndexError",
    )
    return tuple(getattr(jax.errors, n) for n in names if hasattr(jax.errors, n))


class _Encoder:
    """Rule results as pytrees of arrays for ``jit`` (zero markers become ``None``), with the
    marker kinds recorded while tracing so they can be restored outside."""

    def __init__(self, jnp: Any) -> None:
        self.jnp = jnp
        self.kinds: list[list[str]] = []

    def encode(self, values: list[Any]) -> list[Any]:
        kinds: list[str] = []
        out: list[Any] = []
        for v in values:
            if isinstance(v, NoTangent):
                kinds.append("no")
                out.append(None)
            elif isinstance(v, AbstractZero):
                kinds.append("zero")
                out.append(None)
            else:
                kinds.append("array")
                out.append(self.jnp.asarray(v) if type(v) in (float, complex, int) else v)
        self.kinds.append(kinds)
        return out

    def decode(self, groups: list[list[Any]]) -> list[list[Any]]:
        markers = {"no": NoTangent(), "zero": ZeroTangent()}
        return [
            [markers.get(k, v) for k, v in zip(kinds, group)]
            for kinds, group in zip(self.kinds, groups)
        ]


def check_jit(
    f: Callable[..., Any],
    /,
    *args: Any,
    output_cotangent: Any = None,
    rtol: float | None = None,
    atol: float | None = None,
    seed: int = 0,
    fkwargs: dict[str, Any] | None = None,
    phases: Sequence[str] = ("rrule", "frule"),
    f_jax: Callable[..., Any] | None = None,
    **kwargs: Any,
) -> None:
    """Check that the rules of ``f`` can be traced by ``jax.jit`` and agree with NumPy there.

    ``f``'s ``jax.numpy`` counterpart (or ``f`` itself for a generic function) is differentiated
    inside ``jax.jit``, in one compiled program: the rrule followed by the pullback of a seeded
    random cotangent, and the frule of seeded random tangents. Array arguments become traced
    arguments -- in float64 when ``jax_enable_x64`` is on, else in float32 with float32
    tolerances (the global JAX configuration is never changed here) -- and everything else
    (Python scalars, axes, ``None``, slices and keyword arguments) is closed over as a static
    value. A tracer error -- ``float()``,
    ``int()``, ``bool()`` or ``np.asarray`` of a traced value, a Python ``if`` on one, boolean-mask
    indexing, an in-place write -- fails with the phase that raised it. The results are compared
    with the NumPy float64 reference as in :func:`check_scalar_free`.

    Parameters are those of :func:`check_scalar_free` (without ``backing``), and ``f_jax``: the
    JAX function to run (default: ``f``'s counterpart in ``jax.numpy`` by name; give it when
    ``f`` is a NumPy-signature function whose JAX name means the standard's function, as
    ``np.concatenate`` and ``jnp.concat``).

    Raises
    ------
    AssertionError
        Naming ``f``, the phase and JAX's message.
    ModuleNotFoundError
        When JAX is not installed.

    Examples
    --------
    >>> import numpy as np
    >>> from chainrules.testing.checks import check_jit
    >>> check_jit(np.exp, np.array([0.5, 1.0 + 1.0j]))
    """
    jax, jnp = _import_jax()
    kw = _kwargs(kwargs, fkwargs)
    name = function_name(f)
    if f_jax is None:
        f_jax = counterpart(f, jnp)
    if f_jax is None:
        raise ValueError(f"check_jit({name}): {name} has no counterpart in jax.numpy")
    x64 = bool(jax.config.jax_enable_x64)
    precision = "64" if x64 else "32"
    check = _Check(
        "check_jit", f, f_jax, args, kw, precision, seed, rtol, atol, output_cotangent, phases
    )
    real = jnp.float64 if x64 else jnp.float32
    cplx = jnp.complex128 if x64 else jnp.complex64

    def to_jax(a: _Arg, value: Any) -> Any:
        if a.kind in ("pf", "pc"):
            return value
        dtype = real if a.kind == "f" else cplx if a.kind == "c" else None
        return jnp.asarray(value, dtype=dtype)

    # the traced arrays: (argument, position in a sequence or None) of every array
    positions = [(i, j) for i, a in enumerate(check.args) for j, e in a.parts() if e.is_array]
    arrays = [to_jax(_part(check.args, i, j), _part(check.args, i, j).host) for i, j in positions]
    static = [
        type(a.host)(jnp.asarray(e) if isinstance(e, np.ndarray) else e for e in a.host)
        if a.kind == "k"
        else a.value
        for a in check.args
    ]
    errors = _tracer_errors(jax)
    phase = ["rrule"]

    def full_args(traced: list[Any]) -> list[Any]:
        return place(list(static), positions, traced)

    def run(fn: Callable[..., Any], *jit_args: Any) -> Any:
        try:
            return jax.jit(fn)(*jit_args)
        except errors as e:
            raise check.fail(f"the {phase[0]} is not traceable under jax.jit: {e}") from e
        except TypeError as e:  # x[i] = v on a traced array
            if "immutable" not in str(e):
                raise
            raise check.fail(f"the {phase[0]} is not traceable under jax.jit: {e}") from e

    try:  # the function itself first: what jit cannot trace is not the rule's failure
        # (traced abstractly, as jit traces it, but not compiled: compiling is most of the cost);
        # nor is a call the JAX function refuses outright (a keyword it lacks: eigh's driver=)
        jax.eval_shape(lambda traced: _count_leaves(f_jax(*full_args(traced), **kw)), arrays)
    except Exception as e:  # no rule runs here: whatever f_jax raises is its own
        raise CheckNotApplicable(
            f"check_jit({check.name}): {check.name} itself cannot be traced by jax.jit at these "
            f"arguments ({type(e).__name__}: {str(e).splitlines()[0]})"
        ) from e

    # Both phases are traced into one program: XLA compiles it once, sharing the primal, which
    # takes about two thirds of the time of compiling them apart (the jit column's cost).
    programs: list[Callable[..., Any]] = []
    inputs: list[Any] = []
    if check.has_rrule:
        enc = _Encoder(jnp)
        # every argument static: the primal is NumPy's, so is its cotangent (closed over)
        static_ybar = not positions
        ybar = [
            None
            if c is None
            else c
            if type(c) in (float, complex) or static_ybar
            else to_jax(_cot_arg(c), c)
            for c in check.ybar
        ]

        def rrule_and_pullback(traced: list[Any], ybar: list[Any]) -> Any:
            enc.kinds.clear()  # a retrace records afresh
            phase[0] = "rrule"
            y, pullback = rrule(f_jax, *full_args(traced), **kw)
            parts = [NoTangent() if c is None else c for c in (held if static_ybar else ybar)]
            phase[0] = "pullback"
            res = pullback(check.structure(y, parts))
            return [enc.encode(leaves(y)), *(enc.encode(leaves(r)) for r in res)]

        held = ybar
        programs.append(rrule_and_pullback)
        inputs.append([] if static_ybar else ybar)

    if check.has_frule:
        enc_f = _Encoder(jnp)
        t_positions = [(i, j) for i, j in positions if _part(check.args, i, j).diff]
        t_arrays = [
            to_jax(_part(check.args, i, j), _part(check.tangents, i, j)) for i, j in t_positions
        ]

        def frule_only(traced: list[Any], traced_t: list[Any]) -> Any:
            enc_f.kinds.clear()
            phase[0] = "frule"
            tangents = list(check.tangents_for(lambda a, t: t))  # Python-scalar ones stay static
            for (i, j), t in zip(t_positions, traced_t):
                if j is None:
                    tangents[1 + i] = t
                else:
                    seq = tangents[1 + i]
                    elems = [t if k == j else e for k, e in enumerate(seq.elements())]
                    tangents[1 + i] = Tangent(*elems, primal_type=type(static[i]))
            y, y_dot = frule(tuple(tangents), f_jax, *full_args(traced), **kw)
            y_leaves = leaves(y)
            return [enc_f.encode(y_leaves), enc_f.encode(check.spread(y_dot, len(y_leaves)))]

        programs.append(frule_only)
        inputs.append(t_arrays)

    if not programs:
        return

    def all_phases(traced: list[Any], per_phase: list[Any]) -> Any:
        return [prog(traced, extra) for prog, extra in zip(programs, per_phase)]

    results = run(all_phases, arrays, inputs)
    if check.has_rrule:
        y_enc, *res_enc = enc.decode(results.pop(0))
        check.compare_rrule(y_enc, res_enc, None)
    if check.has_frule:
        y_f, ydot_f = enc_f.decode(results.pop(0))
        check.compare_frule(y_f, ydot_f, None)


def _part(values: Sequence[Any], i: int, j: int | None) -> Any:
    """Entry ``i`` of ``values`` (``_Arg``s or tangents), or element ``j`` of a sequence's."""
    v = values[i]
    if j is None:
        return v
    return v.host[j] if isinstance(v, _Arg) else v[j]


def _count_leaves(y: Any) -> list[Any]:
    return [v for v in leaves(y) if not isinstance(v, AbstractZero)]


def _cot_arg(c: Any) -> _Arg:
    return _Arg(c, "c" if np.iscomplexobj(c) else "f")
