"""Programs generated from the registry: compositions of 1-6 registered functions.

A program is a list of :class:`Step`\\ s. Each step calls one registered function at one of its
registration's examples (``examples_for``), with one floating array argument -- the step's
*slot* -- replaced by a value computed from the previous step's output (the first step's slot is
the program's input ``x``). Another floating array argument of one step may become the program's
second input ``d`` (the "data" of the argument-versus-closure relation). The glue between steps
is written against the Array API (``tanh``, ``real``, ``reshape``, slicing, ``mean``), so the same
program runs on NumPy under :mod:`chainrules.ad`, on JAX and on torch (each with its own function
objects: :meth:`Program.run` takes ``fn_of``).

Programs vary the things rules get wrong in compositions: shapes from the examples (0-d, empty,
batches), broadcasting between steps, float32/float64/complex64/complex128, keyword arguments
(the examples' own, and ``d`` passed by keyword), parameters passed as a tuple or a dict,
functions with several outputs and sequence arguments (``concat``, ``stack``).

Everything is decided by the seed (``generate(seed)``), and every generated program has been run
once in NumPy: its output is finite and floating, so a program never tests a function outside its
domain.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...core.examples import Example
from ...core.registry import Registration, registrations
from ..backends import BACKENDS
from ..examples import examples_for

__all__ = ["SIGNATURES", "Program", "Step", "differentiable_registrations", "generate"]

# how the program takes its two inputs (x, d)
SIGNATURES = ("args", "tuple", "dict", "kwarg")
DTYPES = ("float64", "float64", "complex128", "float32", "complex64")
_COMPLEX_OF = {"float64": "complex128", "float32": "complex64"}
_REAL_OF = {"complex128": "float64", "complex64": "float32", "float64": "float64"}
_MAX_SIZE = 64  # elements of any argument or output: Jacobians and Hessians stay small
GLUE_SCALE = 0.1


@functools.cache
def differentiable_registrations() -> tuple[Registration, ...]:
    """The registrations the campaign composes: differentiable, with a NumPy function and at
    least one example with a floating array argument."""
    out = []
    numpy = BACKENDS["numpy"]
    for reg in registrations():
        if reg.non_differentiable or numpy.function(reg) is None:
            continue
        try:
            exs = examples_for(reg, 0)
        except Exception:  # noqa: BLE001  (a registration whose examples cannot be built)
            continue
        if any(_slots(ex) for ex in exs):
            out.append(reg)
    return tuple(sorted(out, key=lambda r: r.name))


def _floating(v: Any) -> bool:
    return isinstance(v, np.ndarray) and v.dtype.kind in "fc"


def _slots(ex: Example) -> list[tuple[int, ...]]:
    """Positions of the floating array arguments of ``ex``: ``(i,)`` or, inside a list or tuple
    argument (``concat``), ``(i, j)``."""
    out: list[tuple[int, ...]] = []
    for i, a in enumerate(ex.args):
        if _floating(a) and a.size <= _MAX_SIZE:
            out.append((i,))
        elif type(a) in (list, tuple):
            out.extend((i, j) for j, e in enumerate(a) if _floating(e) and e.size <= _MAX_SIZE)
    return out


def _get(args: tuple[Any, ...], pos: tuple[int, ...]) -> Any:
    v = args[pos[0]]
    return v if len(pos) == 1 else v[pos[1]]


def _put(args: list[Any], pos: tuple[int, ...], value: Any) -> None:
    if len(pos) == 1:
        args[pos[0]] = value
    else:
        seq = list(args[pos[0]])
        seq[pos[1]] = value
        args[pos[0]] = type(args[pos[0]])(seq)


@dataclass
class Step:
    """One call: ``reg``'s function at ``example`` with its argument at ``slot`` computed from
    the previous output (the program's ``x`` for the first step) and, where ``data`` is set,
    the argument there taken from the program's ``d``."""

    reg: Registration
    example: Example
    slot: tuple[int, ...]
    data: tuple[int, ...] | None = None
    hermitian: bool = False  # the slot is read as a Hermitian matrix
    output: int | None = None  # the component taken from a tuple output


@dataclass
class Program:
    """A composition of registered functions; see the module's docstring."""

    seed: int
    steps: list[Step]
    dtype: str
    signature: str
    x: np.ndarray
    d: np.ndarray | None
    w: np.ndarray = field(repr=False, default_factory=lambda: np.ones(()))
    w_imag: np.ndarray = field(repr=False, default_factory=lambda: np.ones(()))
    y_shape: tuple[int, ...] = ()
    y_complex: bool = False

    # --- what the report counts ------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        return [s.reg.name for s in self.steps]

    @property
    def d_hermitian(self) -> bool:
        """Whether the program reads ``d`` as a Hermitian matrix (one triangle), so that its
        derivative is compared along Hermitian directions only (a corpus entry declares it)."""
        return False

    def features(self) -> set[str]:
        """The coverage categories this program falls in."""
        f = set()
        if np.iscomplexobj(self.x) or (self.d is not None and np.iscomplexobj(self.d)):
            f.add("complex")
        if any(_any_array(s.example, lambda a: a.ndim == 0) for s in self.steps) or not self.x.ndim:
            f.add("0-d")
        if any(_any_array(s.example, lambda a: a.size == 0) for s in self.steps):
            f.add("empty")
        if any(s.example.kwargs for s in self.steps) or self.signature == "kwarg":
            f.add("keyword")
        if self.signature in ("tuple", "dict"):
            f.add("pytree")
        if any(s.output is not None for s in self.steps):
            f.add("several outputs")
        if any(len(s.slot) == 2 for s in self.steps):
            f.add("sequence")
        if self.dtype in ("float32", "complex64"):
            f.add("single precision")
        if len(self.steps) >= 3:
            f.add("3+ calls")
        if _broadcasts(self):
            f.add("broadcast")
        return f

    def describe(self) -> str:
        d = "" if self.d is None else f", d{self.d.shape}"
        return (
            f"seed {self.seed}: {' -> '.join(self.names)} [{self.dtype}, {self.signature}, "
            f"x{self.x.shape}{d}]"
        )

    # --- running it --------------------------------------------------------------------------
    def run(
        self,
        x: Any,
        d: Any,
        fn_of: Callable[[Registration], Any],
        asarray: Callable[[Any], Any],
        namespace: Callable[[Any], Any],
    ) -> Any:
        """The program's output on ``x`` and ``d``: ``fn_of(reg)`` is the function object to call
        for a step, ``asarray`` converts the examples' constant NumPy values to the engine's
        arrays, ``namespace(array)`` gives the Array API namespace for the glue."""
        prev = x
        for k, s in enumerate(self.steps):
            args = [_convert(a, asarray) for a in s.example.args]
            kwargs = {key: _convert(v, asarray) for key, v in s.example.kwargs.items()}
            target = _get(s.example.args, s.slot)
            _put(args, s.slot, x if k == 0 else _glue(prev, target, asarray, namespace, s))
            if s.data is not None:
                _put(args, s.data, d)
            out = fn_of(s.reg)(*args, **kwargs)
            prev = out if s.output is None else out[s.output]
        return prev

    def loss_of(
        self, y: Any, asarray: Callable[[Any], Any], namespace: Callable[[Any], Any]
    ) -> Any:
        """The real scalar ``sum(real(y) * w) (+ sum(imag(y) * w_imag))``."""
        xp = namespace(y)
        w = asarray(self.w)
        if self.y_complex:
            return xp.sum(xp.real(y) * w) + xp.sum(xp.imag(y) * asarray(self.w_imag))
        return xp.sum(y * w)

    def call(self, entry: Callable[[Any, Any], Any], x: Any, d: Any) -> Any:
        """``entry(x, d)`` called the way this program's signature takes its inputs (what the
        user's function looks like): ``f(x, d)``, ``f((x, d))``, ``f({"x": x, "d": d})`` or
        ``f(x, d=d)``."""
        return self.as_user_function(entry)(*self.user_args(x, d))

    def in_double(self) -> Program:
        """The same program in float64/complex128 (the reference for a single-precision one)."""
        dt = "complex128" if self.dtype.startswith("complex") else "float64"
        steps = [
            Step(
                s.reg,
                Example(
                    _cast(s.example.args, dt),
                    dict(s.example.kwargs),
                    s.example.note,
                    s.example.complex,
                ),
                s.slot,
                s.data,
                s.hermitian,
                s.output,
            )
            for s in self.steps
        ]
        return Program(
            self.seed,
            steps,
            dt,
            self.signature,
            _cast(self.x, dt),
            None if self.d is None else _cast(self.d, dt),
            self.w.astype(np.float64),
            self.w_imag.astype(np.float64),
            self.y_shape,
            self.y_complex,
        )

    def as_user_function(self, entry: Callable[[Any, Any], Any]) -> Callable[..., Any]:
        if self.signature == "tuple":
            return lambda p: entry(p[0], p[1])
        if self.signature == "dict":
            return lambda p: entry(p["x"], p["d"])
        if self.signature == "kwarg":
            return lambda x, *, d: entry(x, d)
        return entry

    def user_args(self, x: Any, d: Any) -> tuple[Any, ...]:
        if self.signature == "tuple":
            return ((x, d),)
        if self.signature == "dict":
            return ({"x": x, "d": d},)
        return (x,) if self.signature == "kwarg" else (x, d)


def _any_array(ex: Example, pred: Callable[[np.ndarray], bool]) -> bool:
    return any(pred(a) for a in _array_leaves(ex.args))


def _array_leaves(vals: Any) -> Iterator[np.ndarray]:
    for v in vals:
        if isinstance(v, np.ndarray):
            yield v
        elif type(v) in (list, tuple):
            yield from _array_leaves(v)


def _broadcasts(p: Program) -> bool:
    """A step whose floating array arguments have different shapes that broadcast together."""
    for s in p.steps:
        shapes = {a.shape for a in _array_leaves(s.example.args) if a.dtype.kind in "fc"}
        if len(shapes) > 1:
            try:
                np.broadcast_shapes(*shapes)
            except ValueError:
                continue
            return True
    return False


def _convert(v: Any, asarray: Callable[[Any], Any]) -> Any:
    if isinstance(v, np.ndarray):
        return asarray(v)
    if isinstance(v, np.dtype):  # astype's dtype: the engine's library's own (torch.float64)
        return asarray(np.zeros((), v)).dtype
    if type(v) in (list, tuple):
        return type(v)(_convert(e, asarray) for e in v)
    return v


def _glue(prev: Any, target: np.ndarray, asarray: Any, namespace: Any, step: Step) -> Any:
    """A value of ``target``'s shape and dtype that depends on ``prev``: ``target + 0.1 *
    tanh(prev)`` with ``prev`` brought to the shape by broadcasting, a slice and reshape, or
    its mean (and the real part when ``target`` is real)."""
    xp = namespace(prev)
    p = prev
    cplx = xp.isdtype(p.dtype, "complex floating")
    if cplx and target.dtype.kind != "c":
        p, cplx = xp.real(p), False
    t = xp.tanh(xp.real(p)) + 1j * xp.tanh(xp.imag(p)) if cplx else xp.tanh(p)
    shape = tuple(target.shape)
    pshape = tuple(t.shape)
    if pshape != shape:
        if _broadcastable(pshape, shape):
            pass  # added below with broadcasting
        elif _size(pshape) >= _size(shape) and _size(shape) > 0:
            t = xp.reshape(xp.reshape(t, (-1,))[: _size(shape)], shape)
        elif _size(pshape) > 0:
            t = xp.mean(t)
        else:
            t = xp.sum(t)
    out = asarray(target) + GLUE_SCALE * t
    if step.hermitian:
        out = (out + xp.conj(xp.matrix_transpose(out))) / 2
    return out


def _size(shape: tuple[int, ...]) -> int:
    # Python's product: TorchDynamo traces np.prod as a tensor operation and its int() as a
    # graph break (the compiled cells run the glue)
    return math.prod(shape)


def _broadcastable(small: tuple[int, ...], shape: tuple[int, ...]) -> bool:
    """``small`` broadcasts to ``shape`` (``np.broadcast_shapes(small, shape) == shape``, in
    Python: TorchDynamo traces NumPy's as torch's, which raises another error)."""
    if len(small) > len(shape):
        return False
    return all(a in (1, b) for a, b in zip(reversed(small), reversed(shape)))


# --- generation ----------------------------------------------------------------------------------
def _cast(v: Any, dtype: str) -> Any:
    """An example's floating values in the program's precision (complex stays complex)."""
    if isinstance(v, np.ndarray) and v.dtype.kind in "fc":
        single = dtype in ("float32", "complex64")
        if v.dtype.kind == "c":
            return v.astype(np.complex64 if single else np.complex128)
        return v.astype(np.float32 if single else np.float64)
    if type(v) in (list, tuple):
        return type(v)(_cast(e, dtype) for e in v)
    return v


def _pick_example(
    reg: Registration, rng: np.random.Generator, seed: int, want_complex: bool
) -> Example | None:
    exs = [e for e in examples_for(reg, seed % 7) if _slots(e)]
    if not exs:
        return None
    pool = [e for e in exs if e.complex] if want_complex else [e for e in exs if not e.complex]
    return (pool or exs)[int(rng.integers(len(pool or exs)))]


def generate(seed: int, max_tries: int = 40) -> Program:
    """The program of ``seed``: deterministic, valid (finite floating output in NumPy)."""
    regs = differentiable_registrations()
    for attempt in range(max_tries):
        rng = np.random.default_rng([seed, attempt])
        p = _draw(seed, rng, regs)
        if p is not None:
            return p
    raise RuntimeError(f"no valid program for seed {seed} in {max_tries} tries")


def _draw(seed: int, rng: np.random.Generator, regs: tuple[Registration, ...]) -> Program | None:
    dtype = DTYPES[int(rng.integers(len(DTYPES)))]
    want_complex = dtype.startswith("complex")
    n_steps = int(rng.choice([1, 2, 3, 3, 4, 4, 5, 6]))
    steps: list[Step] = []
    for _ in range(n_steps):
        reg = regs[int(rng.integers(len(regs)))]
        ex = _pick_example(reg, rng, seed, want_complex)
        if ex is None:
            return None
        ex = Example(_cast(ex.args, dtype), dict(ex.kwargs), ex.note, ex.complex)
        slots = _slots(ex)
        slot = slots[int(rng.integers(len(slots)))]
        herm = slot[0] in reg.hermitian and len(slot) == 1
        steps.append(Step(reg, ex, slot, hermitian=herm))
    # the data input: another floating argument of one step
    cands = [(k, pos) for k, s in enumerate(steps) for pos in _slots(s.example) if pos != s.slot]
    cands = [(k, pos) for k, pos in cands if pos[0] not in steps[k].reg.hermitian]
    d = None
    if cands and rng.random() < 0.85:
        k, pos = cands[int(rng.integers(len(cands)))]
        steps[k].data = pos
        d = _get(steps[k].example.args, pos).copy()
    x = _get(steps[0].example.args, steps[0].slot).copy()
    if steps[0].hermitian:
        x = (x + np.conj(np.swapaxes(x, -1, -2))) / 2
    sig = SIGNATURES[int(rng.integers(len(SIGNATURES)))] if d is not None else "args"
    p = Program(seed, steps, dtype, sig, x, d)
    # run it once: pick tuple outputs, check the domain
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            y = _validated(p)
    except Exception:  # noqa: BLE001  (a composition outside some function's domain: redraw)
        return None
    if y is None:
        return None
    p.y_shape = tuple(y.shape)
    p.y_complex = y.dtype.kind == "c"
    p.w = rng.standard_normal(y.shape).astype(_REAL_OF.get(str(y.dtype), "float64"))
    p.w_imag = rng.standard_normal(y.shape).astype(p.w.dtype)
    return p


def _validated(p: Program) -> np.ndarray | None:
    """Run ``p`` in NumPy step by step, choosing a floating component of tuple outputs; the final
    output, or None when a step leaves the domain (non-finite, non-floating, too large)."""
    numpy = BACKENDS["numpy"]
    import array_api_compat

    ns = array_api_compat.array_namespace
    prev: Any = p.x
    for k, s in enumerate(p.steps):
        args = list(s.example.args)
        if k:
            _put(args, s.slot, _glue(prev, _get(s.example.args, s.slot), lambda v: v, ns, s))
        else:
            _put(args, s.slot, p.x)
        if s.data is not None:
            _put(args, s.data, p.d)
        out = numpy.function(s.reg)(*args, **s.example.kwargs)
        if type(out) in (tuple, list) or hasattr(out, "_fields"):
            comps = [i for i, o in enumerate(out) if _floating(np.asarray(o)) and np.ndim(o) < 4]
            if not comps:
                return None
            s.output = comps[0]
            out = out[s.output]
        out = np.asarray(out)
        if not _floating(out) or out.size > _MAX_SIZE or not np.all(np.isfinite(out)):
            return None
        if np.max(np.abs(out), initial=0.0) > 1e6:
            return None
        prev = out
    if p.dtype in ("float32", "complex64") and prev.dtype not in (np.float32, np.complex64):
        return None  # a function that promotes: the single-precision program is not one
    return prev
