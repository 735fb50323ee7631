"""What the rules of ``scipy.special`` (``chainrules/rules/scipy/special/``) and
``scipy.stats`` share: the rules of an elementwise special function built from one partial
derivative per argument.

:func:`elementwise` registers ``"scipy:special.NAME"`` for each library's own function: the rule
calls the function it was found for (SciPy's, JAX's, CuPy's or PyTorch's) for the primal, and
each partial ``(ctx, *arguments) -> d out / d arg`` reads the *same library's* special functions
from ``ctx.sp`` (:class:`_Ctx`), so a pullback stays on the arrays' device and inside a
``jax.jit`` trace. A partial is ``None`` for an argument with no tangent space (an integer
order), :data:`MISSING` where no closed form exists (a ``Thunk`` that raises
``NotImplementedError`` naming the function and the argument when forced),
:data:`ZERO_PARTIAL` where the function is piecewise constant in it, or a :class:`SplitPartial`
for a function that is not holomorphic in a complex argument. SciPy's Python functions that
convert with ``np.asarray`` (``polygamma``, ``multigammaln``, ``factorial``, ``comb``) are
replaced by their formulas in SciPy's ufuncs (``_SCIPY_PRIMALS``).
"""

from __future__ import annotations

import functools
import importlib
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...core.prelude import *
from ...core.registry import Source, caller_module, traceable_running
from ...core.scalar_rule import align_tangent
from . import forced_like, traceable_module


def _siblings(xp: Any, own: Source) -> Any:
    """The module the partials take sibling functions from (``digamma`` for ``gammaln``): the
    library's own special module (``own.module``, where the registry found the function); or,
    when the arguments are tracers of an engine (a second derivative), that namespace's
    ``special``, whose functions are recorded (``torch.special``'s own functions refuse a
    tracer). SciPy's are NumPy ufuncs, which tracers already take part in."""
    if own.library == "scipy":
        return own.module
    traced = getattr(xp, "special", None)
    return own.module if traced is None else traced


def scipy_special() -> Source:
    """SciPy's ``scipy.special`` as the registry would find it (imported on the first call): for
    the rules a registration holds itself, which are SciPy's function's."""
    return Source(importlib.import_module("scipy.special"), "scipy")


class _Ctx:
    """What a partial derivative reads: ``sp`` (the library's special module), ``scipy``
    (whether ``sp`` is SciPy's, whose Python functions convert with ``np.asarray``), ``xp`` (the
    arrays' namespace), ``out`` (the primal output; its first entry for a tuple output), ``kw``
    (every argument by name, defaults applied), ``v`` (each differentiable parameter's value by
    name, Python floats as 0-d arrays) and ``memo`` (values partials share within one call)."""

    __slots__ = ("kw", "memo", "out", "scipy", "sp", "v", "xp")

    def __init__(
        self, sp: Any, scipy: bool, xp: Any, out: Any, kw: dict[str, Any], v: dict[str, Any]
    ) -> None:
        self.sp, self.scipy, self.xp, self.out, self.kw, self.v = sp, scipy, xp, out, kw, v
        self.memo: dict[str, Any] = {}


# A partial: (ctx, *arguments) -> d out / d arg (a tuple of them for a tuple output); None for an
# argument with no tangent space (an integer order); MISSING where no closed form exists;
# ZERO_PARTIAL where the function is piecewise constant in the argument (a float that has a
# tangent space).
MISSING = object()
ZERO_PARTIAL = object()
Partial = Callable[..., Any] | None | object


class SplitPartial:
    """A partial of a function that is not holomorphic in a complex argument ``z``: ``d out =
    holo * dz + re * Re(dz)`` (``ive``'s ``exp(-|Re z|)``). The pullback is
    ``conj(holo) y_bar + Re(conj(re) y_bar)``; on a real ``z`` both are one derivative,
    ``holo + re``."""

    __slots__ = ("holo", "re")

    def __init__(self, holo: Any, re: Any) -> None:
        self.holo, self.re = holo, re

    def pull(self, xp: Any, y_bar: Any, cplx: bool) -> Any:
        if not cplx:
            return y_bar * (self.holo + self.re)
        return y_bar * xp.conj(self.holo) + xp.real(y_bar * xp.conj(self.re))

    def push(self, xp: Any, t: Any) -> Any:
        if not xp.isdtype(t.dtype, "complex floating"):
            return (self.holo + self.re) * t
        return self.holo * t + self.re * xp.real(t)


def _no_closed_form(fname: str, arg: str) -> Thunk:
    def no_closed_form() -> Any:
        raise NotImplementedError(
            f"{fname}: the derivative in {arg!r} has no closed form in the array libraries, and "
            "chainrules does not approximate it; differentiate only in the other arguments (an "
            f"engine that does not need the cotangent of {arg!r} never forces it)"
        )

    return Thunk(no_closed_form)


def _values(xp: Any, out: Any, vals: Sequence[Any]) -> list[Any]:
    """Python floats and complexes as 0-d arrays of the output's dtype (integers stay)."""
    dt = getattr(out, "dtype", None)  # None: a Python int (comb's and factorial's exact=True)
    if dt is None:
        return list(vals)
    return [xp.asarray(v, dtype=dt) if type(v) in (float, complex) else v for v in vals]


def _in_dtype(xp: Any, v: Any, out: Any) -> Any:
    """A floating array ``v`` in the output's dtype (integers stay)."""
    if is_array(v) and v.dtype != out.dtype and xp.isdtype(v.dtype, "real floating"):
        return xp.astype(v, out.dtype)
    return v


def _no_complex_parameters(fname: str, xp: Any, vals: list[Any]) -> None:
    """A distribution's real result of a complex argument is SciPy's standardised value
    ``(x - loc) / scale`` cast to real, its imaginary part dropped (with a ``ComplexWarning``):
    refused, naming the function, rather than differentiated as if it were analytic."""
    for v in vals:
        if is_array(v) and dtype_kind(v.dtype, xp) == "c":
            raise TypeError(
                f"scipy.stats.{fname}: a complex argument with a real result (SciPy casts the "
                "standardised value (x - loc) / scale to real, dropping its imaginary part) has "
                "no derivative here; pass real arguments, or a complex x for a complex result"
            )


def _elementwise_rules(
    fname: str,
    obj: Any,
    special: Source,
    sig: Signature,
    params: tuple[str, ...],
    partials: tuple[Partial, ...],
    nout: int,
    refuse: Callable[[dict[str, Any]], None] | None = None,
    distribution: bool = False,
) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The rrule and frule of ``obj``, an elementwise function of ``params`` (broadcasting),
    from one partial per parameter (see ``Partial``). ``special`` is the special module the
    partials use and its library, as the registry declares it (for a function of ``special``,
    the module it was found in; SciPy's wrappers in ``_SCIPY_PRIMALS`` then replace SciPy's
    ``obj`` as the primal). ``distribution``: ``obj`` is a distribution's method (its own
    primal always), and floating arrays are brought to the output's dtype before the partials
    read them (SciPy's distributions compute float32 inputs in float64)."""
    cache: list[Any] = []
    scipy = special.library == "scipy"

    def primal() -> Callable[..., Any]:
        if not cache:
            short = fname.rpartition(".")[2]
            own = None if distribution or not scipy else _SCIPY_PRIMALS.get(short)
            # traceable: a primal that is a Python function (sph_harm_y's dispatcher converts
            # with numpy.asarray; comb written here with binom) reaches an engine that runs this
            # rule on its traced arrays (a Hessian) as one call of obj, with obj's rules
            body = obj if own is None else functools.partial(own, special.module)
            cache.append(traceable_running(obj, body))
        return cache[0]

    def setup(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any, list[Any]]:
        if len(args) > len(params):
            raise TypeError(
                f"{fname} takes at most {len(params)} positional arguments in its rule, "
                f"got {len(args)}"
            )
        bound = sig.bind(args, kwargs)
        if refuse is not None:
            refuse(bound)
        arrays = [a for a in args if is_array(a)] or [v for v in bound.values() if is_array(v)]
        xp = namespace_of(*arrays, fname=fname)
        sib = _siblings(xp, special)
        # a traced namespace's special function for a special function (not a distribution's)
        own = sib is special.module or distribution
        f = primal() if own else getattr(sib, fname.rpartition(".")[2])
        mod = traceable_module(sib)  # the partials' calls: a Hessian runs them on tracers
        y = f(*args, **kwargs)
        y0 = y[0] if nout > 1 else y
        vals = _values(xp, y0, [bound[p] for p in params])
        if distribution:
            vals = [_in_dtype(xp, v, y0) for v in vals]
            if dtype_kind(y0.dtype, xp) != "c":
                _no_complex_parameters(fname, xp, vals)
        ctx = _Ctx(mod, scipy, xp, y0, bound, dict(zip(params, vals)))
        return xp, y, ctx, vals

    @specialise
    def special_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], Any]]:
        xp, y, ctx, vals = setup(args, kwargs)
        ys = tuple(y) if nout > 1 else (y,)
        cplx = False
        for v in ys:  # a loop, not any() of a generator: every call runs it
            if getattr(v, "dtype", None) is not None and dtype_kind(v.dtype, xp) == "c":
                cplx = True
        diff = [
            partials[i] is not None and not isinstance(zero_tangent(a), NoTangent)
            for i, a in enumerate(args)
        ]
        projs = [ProjectTo(a, xp) if d else None for a, d in zip(args, diff)]
        pargs = tuple(a if d else NO for a, d in zip(args, diff))

        def cotangent(i: int, ybars: tuple[Any, ...]) -> Any:
            d = partials[i](ctx, *vals)  # type: ignore[operator, misc]
            ds = d if nout > 1 else (d,)
            acc = None
            for yb, di in zip(ybars, ds):
                if isinstance(yb, AbstractZero):
                    continue
                if isinstance(di, SplitPartial):
                    term = di.pull(xp, yb, cplx)
                else:
                    term = yb * (xp.conj(di) if cplx else di)
                acc = term if acc is None else acc + term
            proj: Any = projs[i]  # not None: the argument is differentiated
            return ZERO if acc is None else proj(acc)

        @pullback(y, pargs, name=fname)
        def special_pullback(y_bar: Any) -> Any:
            ybars = y_bar if nout > 1 else (y_bar,)
            res: list[Any] = []
            for i, proj in enumerate(projs):
                p = partials[i]
                if proj is None:
                    res.append(NO)
                elif p is MISSING:
                    res.append(_no_closed_form(fname, params[i]))
                elif p is ZERO_PARTIAL:
                    res.append(ZERO)
                elif type(args[i]) is float:
                    # no engine traces a Python number: its cotangent when forced, as the scalar
                    # rules' (docs/conventions.md, "Only the cotangents asked for"):
                    # t.logpdf(x, 2.4, ...) skips df's digammas
                    res.append(Thunk(functools.partial(cotangent, i, ybars)))
                else:
                    res.append(cotangent(i, ybars))
            return res[0] if len(res) == 1 else tuple(res)

        return y, special_pullback

    def _special_rrule_numpy(*args: Any, **kwargs: Any) -> Any:
        """SciPy's function of NumPy arrays of one shape and floating dtype, all positional, with
        one output of that shape, in that dtype (or complex): the primal and, for a NumPy
        cotangent of its shape and dtype, each argument's cotangent, ``y_bar`` times its
        conjugated partial (the real part for a real argument of a complex output); any other
        cotangent goes to the generic pullback, built then. At n = 5 the generic binding,
        projections and cotangent checks cost about 8 us in the rrule and 5 in the pullback
        around a 0.3 us ufunc (``gammaln``, ``expit``, ``erf``; ``sin``'s rules take 2 + 2):
        scipy.special's functions are in a third of the population's registry-generated
        programs.
        Population (``benchmarks.population.methods``, all 339 programs, b20bb44): 0.91, median of
        11 cells (0.78 at best)."""
        if kwargs or len(args) != len(params):
            return NotImplemented
        shape, dtype = args[0].shape, args[0].dtype
        if dtype.kind not in "fc":
            return NotImplemented
        for a in args:
            if type(a) is not np.ndarray or a.shape != shape or a.dtype != dtype:
                return NotImplemented
        y = primal()(*args)
        if not isinstance(y, np.ndarray | np.generic) or y.shape != shape:
            return NotImplemented
        cplx = y.dtype.kind == "c"
        real = cplx and dtype.kind == "f"  # a complex function of real arguments (wofz)
        if y.dtype != dtype and not real:
            return NotImplemented

        made: list[_Ctx] = []  # what the partials read, made once (at the first pullback)

        def bar(i: int, y_bar: Any) -> Any:
            if not made:
                xp = namespace_of(args[0])
                kw = sig.bind(args, {})
                made.append(_Ctx(traceable_module(special.module), True, xp, y, kw, {}))
                made[0].v.update(zip(params, args))
            d = partials[i](made[0], *args)  # type: ignore[operator, misc]
            if isinstance(d, SplitPartial):
                g = d.pull(made[0].xp, y_bar, cplx)
            else:
                g = y_bar * (np.conj(d) if cplx else d)
            g = g.real if real else g  # onto the real argument, as its projection
            return g if g.dtype == dtype else g.astype(dtype)

        def special_pullback(y_bar: Any) -> tuple[Any, ...]:
            forced = forced_like(y_bar, np.ndarray, shape, y.dtype, np.generic)
            if forced is None:
                return special_rrule.generic(*args)[1](y_bar)
            return (NO, *[bar(i, forced) for i in range(len(args))])  # as the generic: arrays

        return y, special_pullback

    # SciPy's functions with one output and a formula for every argument's partial
    if nout == 1 and scipy and not distribution and refuse is None and all(map(callable, partials)):
        special_rrule.method("numpy")(_special_rrule_numpy)

    def special_frule(tangents: tuple[Any, ...], *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        xp, y, ctx, vals = setup(args, kwargs)
        ys = tuple(y) if nout > 1 else (y,)
        dots = tangents_in(fname, tangents[: len(args) + 1], args)
        accs: list[Any] = [None] * nout
        if dots is not None:
            out_ndim = ys[0].ndim
            for i, (a, t) in enumerate(zip(args, dots)):
                p = partials[i]
                if isinstance(t, AbstractZero) or isinstance(zero_tangent(a), NoTangent):
                    continue
                if p is None or p is ZERO_PARTIAL:
                    continue
                if p is MISSING:
                    unthunk(_no_closed_form(fname, params[i]))  # raises: this tangent is needed
                t = align_tangent(xp, t, getattr(a, "ndim", 0), out_ndim)
                d = p(ctx, *vals)  # type: ignore[operator]
                for j, dj in enumerate(d if nout > 1 else (d,)):
                    term = dj.push(xp, t) if isinstance(dj, SplitPartial) else dj * t
                    accs[j] = term if accs[j] is None else accs[j] + term
        outs = [finish_tangent(xp, acc, yj) for acc, yj in zip(accs, ys)]
        if nout == 1:
            return y, outs[0]
        if all(isinstance(o, AbstractZero) for o in outs):
            return y, ZERO
        return y, Tangent(*outs, primal_type=type(y))

    return special_rrule, special_frule


def _binder(
    fname: str,
    sig: Signature,
    params: tuple[str, ...],
    partials: tuple[Partial, ...],
    nout: int,
    refuse: Callable[[dict[str, Any]], None] | None = None,
) -> Callable[[Any, str, Source], Callable[..., Any]]:
    def bind(obj: Any, kind: str, src: Source) -> Callable[..., Any]:
        r, f = _elementwise_rules(fname, obj, src, sig, params, partials, nout, refuse)
        return r if kind == "r" else f

    return bind


def _scipy_rules(
    fname: str, bind: Callable[[Any, str, Source], Callable[..., Any]]
) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The registration's own rules: those of SciPy's function (imported when first called)."""

    short = fname.rpartition(".")[2]

    def scipy_rrule(*args: Any, **kwargs: Any) -> Any:
        sp = scipy_special()
        return bind(getattr(sp.module, short), "r", sp)(*args, **kwargs)

    def scipy_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        sp = scipy_special()
        return bind(getattr(sp.module, short), "f", sp)(tangents, *args, **kwargs)

    return scipy_rrule, scipy_frule


def elementwise(
    name: str,
    template: Callable[..., Any],
    *partials: Partial,
    nout: int = 1,
    unsupported: Sequence[str] = (),
    refuse: Callable[[dict[str, Any]], None] | None = None,
    also: Sequence[str] = (),
    **meta: Any,
) -> None:
    """Register ``"scipy:special.NAME"``, an elementwise function with SciPy's signature
    ``template``: its first ``len(partials)`` parameters are the (broadcast) arguments, each with
    its partial derivative ``(ctx, *arguments) -> array`` (``None``: no tangent space;
    ``MISSING``: no closed form). The rules of each library's function call that function.
    ``also``: further names of ``scipy.special`` (dotted) for the same function, such as the
    ufunc a Python wrapper calls, which an engine's traced arrays receive through
    ``__array_ufunc__`` when a pullback is differentiated again. The registration's module is
    the caller's (the rule module that registers it), not this helper's."""
    meta.setdefault("module", caller_module())
    fname = f"special.{name}"
    sig = signature(name, template, unsupported)
    params = sig.names[: len(partials)]
    bind = _binder(name, sig, params, partials, nout, refuse)
    r, f = _scipy_rules(fname, bind)
    if "domain" in meta and "examples" not in meta:
        meta["examples"] = _domain_examples(meta.pop("domain"), meta.pop("complex", None))
    targets = (f"scipy:{fname}", *(f"scipy:special.{a}" for a in also))
    register_rrule(*targets, bind_in=bind, **meta)(r)
    register_frule(*targets, bind_in=bind, **meta)(f)


def _domain_examples(domain: tuple[Any, ...], cplx: Any) -> Callable[[Any], list[Any]]:
    """Two small examples from per-argument domains: every argument of shape ``(4,)``, then the
    first of shape ``(2, 3)`` and the others broadcast from ``(3,)`` (``"int"``: 1, 2, 3, ...;
    ``cplx``: a rectangle ``(re_low, re_high, im_low, im_high)`` for complex values)."""

    def examples(rng: Any) -> list[Any]:
        import numpy as np

        from ...core.examples import Example

        def draw(d: Any, shape: tuple[int, ...]) -> Any:
            if d == "int":
                return (np.arange(math.prod(shape)) % 3 + 1).reshape(shape)
            if cplx:
                lo, hi, ilo, ihi = cplx
                return rng.uniform(lo, hi, shape) + 1j * rng.uniform(ilo, ihi, shape)
            return rng.uniform(*d, shape)

        first = tuple(draw(d, (4,)) for d in domain)
        second = tuple(draw(d, (2, 3) if i == 0 else (3,)) for i, d in enumerate(domain))
        return [Example(first, {}, complex=bool(cplx)), Example(second, {}, complex=bool(cplx))]

    return examples


def _polygamma(c: _Ctx, n: Any, x: Any) -> Any:
    """``polygamma(n, x)`` for ``n >= 1`` in the library of ``c``. SciPy's ``polygamma`` is a
    Python function that converts with ``np.asarray``; its formula is written here with its
    ufuncs, ``(-1)**(n+1) n! zeta(n+1, x)``, so it runs on any array ``__array_ufunc__`` takes."""
    sp = c.sp
    if not c.scipy:
        return sp.polygamma(n, x)
    dtype = getattr(x, "dtype", None)
    if isinstance(x, complex) or (dtype is not None and c.xp.isdtype(dtype, "complex floating")):
        raise TypeError(
            f"scipy.special: no derivative at a complex argument: it is polygamma({n}, z) "
            "(digamma's and psi's is polygamma(1, z)), which SciPy computes for real "
            "arguments only"
        )
    if isinstance(n, int):  # a Python constant: SciPy's gamma(n + 1.0) is a NumPy scalar, which
        # makes a NumPy array of another library's array (array-api-strict)
        return float((-1) ** (n + 1) * math.factorial(n)) * sp.zeta(n + 1, x)
    return (-1.0) ** (n + 1) * sp.gamma(n + 1.0) * sp.zeta(n + 1, x)


# SciPy's Python functions that convert their arguments with np.asarray (a host copy, refused
# by device arrays): SciPy's own formulas, written with its ufuncs, which take any array that
# __array_ufunc__ takes (cupyx's versions are CuPy code already).
def _scipy_polygamma(sp: Any, n: Any, x: Any) -> Any:
    import numpy as np

    if isinstance(n, int):  # SciPy takes np.asarray(n): an int64 array, so float64 results
        n1 = np.int64(n + 1)
        y = (
            sp.digamma(x * np.float64(1))
            if n == 0
            else (-1.0) ** n1 * sp.gamma(n1) * sp.zeta(n1, x)
        )
        # SciPy's np.where makes a 0-d array of a scalar result
        return np.asarray(y) if isinstance(y, np.generic) else y
    n1 = n + 1
    return np.where(n == 0, sp.digamma(x), (-1.0) ** n1 * sp.gamma(n1) * sp.zeta(n1, x))


def _scipy_multigammaln(sp: Any, a: Any, d: Any) -> Any:
    import numpy as np

    d = int(d)  # SciPy's d is a Python int (host metadata)
    # as SciPy: the terms in a's precision, summed, then added to a float64 constant
    acc = sp.gammaln(a)
    for j in range(1, d):
        acc = acc + sp.gammaln(a - j / 2)
    return np.float64(d * (d - 1) * 0.25) * np.log(np.pi) + acc


def _scipy_factorial(sp: Any, n: Any, exact: bool = False) -> Any:
    import numpy as np

    if exact:
        return sp.factorial(n, exact=True)
    # 0 below 0, NaN at NaN (n < 0 is False there), float64: SciPy's
    return np.where(n < 0, np.float64(0.0), sp.gamma(n + 1))


def _scipy_comb(
    sp: Any, big_n: Any, k: Any, *, exact: bool = False, repetition: bool = False
) -> Any:
    import numpy as np

    if exact:
        return sp.comb(big_n, k, exact=True, repetition=repetition)
    # SciPy's own, with np.where for its masked writes (a guarded device array refuses those):
    # binom(N + k - 1, k) with 1 where k == 0 <= N when repetition (no zeros: comb(-1.5, 2,
    # repetition=True) is binom(-0.5, 2) = 0.375), else binom(N, k) with 0 outside
    # 0 <= k <= N. Scalar operands give SciPy's NumPy scalar: binom's, or np.float64(1.0) /
    # np.float64(0) where the mask applies (binom's own dtype otherwise: float32 stays).
    if repetition:
        cond = (k == 0) & (big_n >= 0)
        vals = sp.binom(big_n + k - 1, k)
        if isinstance(vals, np.generic):  # a NumPy scalar: a host value, as cond is
            return np.float64(1.0) if cond else vals
        return np.where(cond, 1.0, vals)
    cond = (k <= big_n) & (big_n >= 0) & (k >= 0)
    vals = sp.binom(big_n, k)
    if isinstance(vals, np.generic):
        return vals if cond else np.float64(0)
    return np.where(cond, vals, 0)


_SCIPY_PRIMALS: dict[str, Callable[..., Any]] = {
    "polygamma": _scipy_polygamma,
    "multigammaln": _scipy_multigammaln,
    "factorial": _scipy_factorial,
    "comb": _scipy_comb,
}


def _safe(xp: Any, d: Any) -> Any:
    return xp.where(d == 0, xp.ones_like(d), d)


def _int_first_examples(
    n_int: int, xrange: tuple[float, float], low: int = 1
) -> Callable[[Any], list[Any]]:
    """Examples whose first ``n_int`` arguments are integers (their derivatives have no closed
    form, so the tester must not ask for them) and the last a float array."""

    def examples(rng: Any) -> list[Any]:
        import numpy as np

        ints = [np.arange(low, low + 4) + i for i in range(n_int)]
        x = rng.uniform(*xrange, 4)
        ints2 = [np.array([low + 1 + i]) for i in range(n_int)]
        x2 = rng.uniform(*xrange, (2, 3))
        return [((*ints, x), {}), ((*ints2, x2), {})]

    return examples
