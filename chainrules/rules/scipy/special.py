"""Rules for ``scipy.special``: every function that ``jax.scipy.special`` has, registered as
``"scipy:special.NAME"`` for each library's own version -- ``scipy.special``,
``jax.scipy.special``, ``cupyx.scipy.special`` and, where the signature is SciPy's,
``torch.special``; and the rest of autograd's table, which only SciPy and CuPy have (``jv``,
``yn``, ``iv``, ``ive``, ``j0``, ``j1``, ``y0``, ``y1``, ``rgamma``, ``erfcinv``).

Each rule calls the very function it was found for (SciPy's, JAX's, CuPy's or PyTorch's) for the
primal, and builds its derivative from namespace operations and the *same library's* special
functions (``d gammaln = digamma``: ``scipy.special.digamma`` for SciPy's ``gammaln``,
``torch.special.digamma`` for PyTorch's), so a pullback stays on the arrays' device and inside a
``jax.jit`` trace. ``logsumexp``, ``softmax`` and ``log_softmax`` compute with namespace operations
(SciPy's own versions write in place and convert with ``np.asarray``).

Conventions (see ``docs/rules/scipy-special.md``):

* integer orders and counts (``polygamma``'s and ``expn``'s ``n``, ``multigammaln``'s ``d``,
  ``sph_harm_y``'s ``n`` and ``m``, ``bessel_jn``'s ``v``) have no tangent space: ``NoTangent()``;
* a derivative with no closed form in the libraries (``gammainc``/``gammaincc`` in ``a``,
  ``betainc`` in ``a`` and ``b``, ``zeta`` in ``x``, ``hyp1f1``/``hyp2f1`` in their parameters) is
  returned as a ``Thunk`` that raises ``NotImplementedError`` naming the function and the argument
  when it is forced -- only an engine that needs that cotangent forces it; an frule given a nonzero
  tangent for such an argument raises at once;
* keyword arguments are never differentiated (the contract); ``out=`` is refused.
"""

from __future__ import annotations

import functools
import importlib
import math
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...core.namespaces import device_of, is_array, namespace_of
from ...core.projection import ProjectTo
from ...core.registry import register_frule, register_namespace, register_rrule
from ...core.scalar_rule import finish_tangent, non_differentiable, zero_derivative
from ...core.tangents import AbstractZero, NoTangent, Tangent, Thunk, ZeroTangent, unthunk
from ...core.toolkit import Signature, numpy_result, pullback, signature, tangents_in, zero_tangent
from .._util import conj, normalize_axis

_NO = NoTangent()
_ZERO = ZeroTangent()
_SQRT_PI = math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2 * math.pi)

# The torch.special functions whose positional signature, defaults and meaning are SciPy's.
# Left out: softmax/log_softmax/logsumexp (``dim`` is required: SciPy's ``axis=None`` default
# reduces over everything), multigammaln (its second argument is called ``p``, not ``d``), and the
# functions SciPy has not (bessel_j0, chebyshev_polynomial_t, ...). zeta is in: torch's needs
# ``q`` (Hurwitz's zeta), as every differentiable call does.
TORCH_NAMES = frozenset(
    {
        "digamma",
        "entr",
        "erf",
        "erfc",
        "erfcx",
        "erfinv",
        "expit",
        "gammainc",
        "gammaincc",
        "gammaln",
        "i0",
        "i0e",
        "i1",
        "i1e",
        "log_ndtr",
        "logit",
        "ndtr",
        "ndtri",
        "polygamma",
        "xlog1py",
        "xlogy",
        "zeta",
    }
)
register_namespace("torch.special", "scipy", names=TORCH_NAMES, prefix="special.")

_LIBRARIES = ("scipy.special", "jax.scipy.special", "cupyx.scipy.special", "torch.special")


def special_module(obj: Any, name: str) -> Any:
    """The special-function module ``obj`` (the function registered as ``special.NAME``) comes
    from: ``scipy.special``, ``jax.scipy.special``, ``cupyx.scipy.special`` or ``torch.special``.
    Its siblings (``digamma`` for ``gammaln``) give the derivatives."""
    short = name.rpartition(".")[2]
    for m in _LIBRARIES:
        mod = sys.modules.get(m)
        if mod is not None and getattr(mod, short, None) is obj:
            return mod
    return importlib.import_module("scipy.special")


def _siblings(xp: Any, own: Any) -> Any:
    """The module the partials take sibling functions from (``digamma`` for ``gammaln``): the
    library's own special module; or, when the arguments are tracers of an engine (a second
    derivative), that namespace's ``special``, whose functions are recorded (``torch.special``'s
    own functions refuse a tracer). SciPy's are NumPy ufuncs, which tracers already take part in."""
    if own.__name__ == "scipy.special":
        return own
    traced = getattr(xp, "special", None)
    return own if traced is None else traced


class _Ctx:
    """What a partial derivative reads: ``sp`` (the library's special module), ``xp`` (the
    arrays' namespace), ``out`` (the primal output; its first entry for a tuple output), ``kw``
    (every argument by name, defaults applied), ``v`` (each differentiable parameter's value by
    name, Python floats as 0-d arrays) and ``memo`` (values partials share within one call)."""

    __slots__ = ("kw", "memo", "out", "sp", "v", "xp")

    def __init__(self, sp: Any, xp: Any, out: Any, kw: dict[str, Any], v: dict[str, Any]) -> None:
        self.sp, self.xp, self.out, self.kw, self.v = sp, xp, out, kw, v
        self.memo: dict[str, Any] = {}


# A partial: (ctx, *arguments) -> d out / d arg (a tuple of them for a tuple output); None for an
# argument with no tangent space (an integer order); MISSING where no closed form exists; ZERO
# where the function is piecewise constant in the argument (a float that has a tangent space).
MISSING = object()
ZERO = object()
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


def _align(xp: Any, t: Any, a: Any, extra: int, out_ndim: int) -> Any:
    """A tangent of ``a`` (after ``extra`` chunk axes) with axes inserted after its chunk axes so
    that it broadcasts against an output of rank ``out_ndim``."""
    a_ndim = getattr(a, "ndim", 0)
    if a_ndim < out_ndim and getattr(t, "ndim", 0) > a_ndim:
        s = tuple(t.shape)
        t = xp.reshape(t, s[:extra] + (1,) * (out_ndim - a_ndim) + s[extra:])
    return t


def _elementwise_rules(
    fname: str,
    obj: Any,
    sig: Signature,
    params: tuple[str, ...],
    partials: tuple[Partial, ...],
    nout: int,
    refuse: Callable[[dict[str, Any]], None] | None = None,
    module: Callable[[Any], Any] | None = None,
    cast: bool = False,
) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The rrule and frule of ``obj``, an elementwise function of ``params`` (broadcasting),
    from one partial per parameter (see ``Partial``). ``module(obj)`` gives the special module
    the partials use (default: the one ``obj`` belongs to; then SciPy's wrappers in
    ``_SCIPY_PRIMALS`` replace ``obj`` as the primal); ``cast``: floating arrays are brought to
    the output's dtype before the partials read them (SciPy's distributions compute float32
    inputs in float64)."""
    cache: list[Any] = []

    def sp() -> Any:
        if not cache:
            cache.append(special_module(obj, fname) if module is None else module(obj))
        return cache[0]

    def primal() -> Callable[..., Any]:
        if len(cache) < 2:
            short = fname.rpartition(".")[2]
            own = None
            if sp().__name__ == "scipy.special" and module is None:
                own = _SCIPY_PRIMALS.get(short)
            cache.append(obj if own is None else functools.partial(own, sp()))
        return cache[1]

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
        mod = _siblings(xp, sp())
        # a traced namespace's special function for a special function (not a distribution's)
        own = mod is sp() or module is not None
        f = primal() if own else getattr(mod, fname.rpartition(".")[2])
        y = f(*args, **kwargs)
        y0 = y[0] if nout > 1 else y
        vals = _values(xp, y0, [bound[p] for p in params])
        if cast:
            vals = [_in_dtype(xp, v, y0) for v in vals]
        return xp, y, _Ctx(mod, xp, y0, bound, dict(zip(params, vals))), vals

    def special_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], Any]]:
        xp, y, ctx, vals = setup(args, kwargs)
        ys = tuple(y) if nout > 1 else (y,)
        cplx = any(getattr(v, "dtype", None) is not None and _is_complex(xp, v) for v in ys)
        diff = [
            partials[i] is not None and not isinstance(zero_tangent(a), NoTangent)
            for i, a in enumerate(args)
        ]
        projs = [ProjectTo(a, xp) if d else None for a, d in zip(args, diff)]
        pargs = tuple(a if d else _NO for a, d in zip(args, diff))

        @pullback(y, pargs, name=fname)
        def special_pullback(y_bar: Any) -> Any:
            ybars = y_bar if nout > 1 else (y_bar,)
            res: list[Any] = []
            for i, proj in enumerate(projs):
                p = partials[i]
                if proj is None:
                    res.append(_NO)
                    continue
                if p is MISSING:
                    res.append(_no_closed_form(fname, params[i]))
                    continue
                if p is ZERO:
                    res.append(_ZERO)
                    continue
                d = p(ctx, *vals)  # type: ignore[operator, misc]
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
                res.append(_ZERO if acc is None else proj(acc))
            return res[0] if len(res) == 1 else tuple(res)

        return y, special_pullback

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
                if p is None or p is ZERO:
                    continue
                if p is MISSING:
                    unthunk(_no_closed_form(fname, params[i]))  # raises: this tangent is needed
                t = _align(xp, t, a, dots.extra, out_ndim)
                d = p(ctx, *vals)  # type: ignore[operator]
                for j, dj in enumerate(d if nout > 1 else (d,)):
                    term = dj.push(xp, t) if isinstance(dj, SplitPartial) else dj * t
                    accs[j] = term if accs[j] is None else accs[j] + term
        outs = [finish_tangent(xp, acc, yj) for acc, yj in zip(accs, ys)]
        if nout == 1:
            return y, outs[0]
        if all(isinstance(o, AbstractZero) for o in outs):
            return y, _ZERO
        return y, Tangent(*outs, primal_type=type(y))

    return special_rrule, special_frule


def _is_complex(xp: Any, v: Any) -> bool:
    from ...core.namespaces import scalar_kind

    return scalar_kind(v, xp) == "c"


def _binder(
    fname: str,
    sig: Signature,
    params: tuple[str, ...],
    partials: tuple[Partial, ...],
    nout: int,
    refuse: Callable[[dict[str, Any]], None] | None = None,
) -> Callable[[Any, str], Callable[..., Any]]:
    def bind(obj: Any, kind: str) -> Callable[..., Any]:
        r, f = _elementwise_rules(fname, obj, sig, params, partials, nout, refuse)
        return r if kind == "r" else f

    return bind


def _scipy_rules(
    fname: str, bind: Callable[[Any, str], Callable[..., Any]]
) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The registration's own rules: those of SciPy's function (imported when first called)."""

    def scipy_rrule(*args: Any, **kwargs: Any) -> Any:
        obj = getattr(importlib.import_module("scipy.special"), fname.rpartition(".")[2])
        return bind(obj, "r")(*args, **kwargs)

    def scipy_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        obj = getattr(importlib.import_module("scipy.special"), fname.rpartition(".")[2])
        return bind(obj, "f")(tangents, *args, **kwargs)

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
    ``__array_ufunc__`` when a pullback is differentiated again."""
    fname = f"special.{name}"
    sig = signature(name, template, unsupported)
    params = sig.names[: len(partials)]
    bind = _binder(name, sig, params, partials, nout, refuse)
    r, f = _scipy_rules(fname, bind)
    if "domain" in meta and "examples" not in meta:
        meta["examples"] = _domain_examples(meta.pop("domain"), meta.pop("complex", None))
    targets = (f"scipy:{fname}", *(f"scipy:special.{a}" for a in also))
    register_rrule(*targets, bind=bind, **meta)(r)
    register_frule(*targets, bind=bind, **meta)(f)


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
    if sp.__name__ != "scipy.special":
        return sp.polygamma(n, x)
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


# --- partials -------------------------------------------------------------------------------------
def _gauss(c: _Ctx, x: Any) -> Any:
    return c.xp.exp(-x * x / 2) / _SQRT_2PI


def _safe(xp: Any, d: Any) -> Any:
    return xp.where(d == 0, xp.ones_like(d), d)


def _digamma(c: _Ctx, x: Any) -> Any:
    return c.sp.digamma(x)


def _boxcox_dl(c: _Ctx, logx: Any, xl: Any, lmbda: Any) -> Any:
    """``d/d lambda`` of ``(x**l - 1) / l``: ``(x**l log x - y) / l``, and ``(log x)**2 / 2`` at
    ``l = 0`` (its limit)."""
    xp = c.xp
    small = lmbda == 0
    ls = xp.where(small, xp.ones_like(lmbda), lmbda)
    return xp.where(small, logx * logx / 2, (xl * logx - c.out) / ls)


def _comb_d(c: _Ctx, big_n: Any, k: Any) -> tuple[Any, Any]:
    """``comb = Gamma(N + 1) / (Gamma(k + 1) Gamma(N - k + 1))`` (with ``N + k - 1`` for ``N``
    when ``repetition``): digamma differences where it is nonzero, 0 where SciPy returns 0."""
    xp, sp, out = c.xp, c.sp, c.out
    if c.kw.get("exact"):  # an integer, piecewise constant in N and k
        zero = xp.zeros_like(xp.asarray(out, dtype=xp.float64))
        return zero, zero
    rep = bool(c.kw.get("repetition"))
    nr = big_n + k - 1 if rep else big_n
    a, b, m = sp.digamma(nr + 1), sp.digamma(k + 1), sp.digamma(nr - k + 1)
    zero = xp.zeros_like(out)
    if rep:  # SciPy's 1 at k == 0 <= N: constant in N; in k the formula's where N > 0
        one = (k == 0) & (big_n >= 0)
        dn = xp.where(one, zero, out * (a - m))
        dk = xp.where(one & (big_n == 0), zero, out * (a - b))
        return dn, dk
    valid = (k <= nr) & (nr >= 0) & (k >= 0)
    return xp.where(valid, out * (a - m), zero), xp.where(valid, out * (m - b), zero)


def _i1_d(c: _Ctx, x: Any) -> Any:
    # I1' = I0 - I1 / x, 1/2 at 0
    xp = c.xp
    return xp.where(x == 0, xp.full_like(c.out, 0.5), c.sp.i0(x) - c.out / _safe(xp, x))


def _i1e_d(c: _Ctx, x: Any) -> Any:
    # i1e = exp(-|x|) I1: i1e' = i0e - i1e (sign(x) + 1/x), 1/2 at 0
    xp = c.xp
    xs = _safe(xp, x)
    return xp.where(x == 0, xp.full_like(c.out, 0.5), c.sp.i0e(x) - c.out * (xp.sign(x) + 1 / xs))


def _logit_d(c: _Ctx, x: Any) -> Any:
    xp = c.xp
    d = 1 / (x * (1 - x))
    eps = c.kw.get("eps")  # torch's clamp: the derivative is 0 where x is clamped
    if eps is not None:
        d = xp.where((x >= eps) & (x <= 1 - eps), d, xp.zeros_like(d))
    return d


def _xlogy_dy(c: _Ctx, x: Any, y: Any) -> Any:
    xp = c.xp
    return xp.where(x == 0, xp.zeros_like(c.out), x / _safe(xp, y))


def _xlog1py_dy(c: _Ctx, x: Any, y: Any) -> Any:
    xp = c.xp
    return xp.where(x == 0, xp.zeros_like(c.out), x / _safe(xp, 1 + y))


def _expn_dx(c: _Ctx, n: Any, x: Any) -> Any:
    # E_n' = -E_{n-1} (n >= 1); E_0 = exp(-x) / x, so E_0' = -exp(-x) (x + 1) / x**2
    xp = c.xp
    e0 = -xp.exp(-x) * (x + 1) / (x * x)
    if isinstance(n, int):
        return e0 if n == 0 else -c.sp.expn(n - 1, x)
    nm1 = xp.where(n == 0, xp.ones_like(n), n - 1)
    return xp.where(n == 0, e0, -c.sp.expn(nm1, x))


def _gammainc_dx(c: _Ctx, a: Any, x: Any) -> Any:
    # x**(a-1) exp(-x) / Gamma(a)
    xp, sp = c.xp, c.sp
    return xp.exp(sp.xlogy(a - 1, x) - x - sp.gammaln(a))


def _betainc_dx(c: _Ctx, a: Any, b: Any, x: Any) -> Any:
    # x**(a-1) (1-x)**(b-1) / B(a, b)
    xp, sp = c.xp, c.sp
    return xp.exp(sp.xlogy(a - 1, x) + sp.xlog1py(b - 1, -x) - sp.betaln(a, b))


def _owens_dh(c: _Ctx, h: Any, a: Any) -> Any:
    # dT/dh = -exp(-h**2/2) erf(h a / sqrt 2) / (2 sqrt(2 pi))
    xp = c.xp
    # h * h * -0.5, not -h * h / 2: a bool h has no negative
    return -xp.exp(h * h * -0.5) * c.sp.erf(h * a / math.sqrt(2)) / (2 * _SQRT_2PI)


def _owens_da(c: _Ctx, h: Any, a: Any) -> Any:
    # dT/da = exp(-h**2 (1 + a**2) / 2) / (2 pi (1 + a**2))
    xp = c.xp
    q = 1 + a * a
    return xp.exp(h * h * q * -0.5) / (2 * math.pi * q)


def _multigammaln_da(c: _Ctx, a: Any, d: Any) -> Any:
    # sum_{j < d} digamma(a - j/2); d is SciPy's Python int (host metadata)
    acc = c.sp.digamma(a)
    for j in range(1, int(d)):
        acc = acc + c.sp.digamma(a - j / 2)
    return acc


def _factorial_d(c: _Ctx, n: Any) -> Any:
    xp = c.xp
    return xp.where(n < 0, xp.zeros_like(c.out), c.out * c.sp.digamma(n + 1))


def _sph_dtheta(c: _Ctx, n: Any, m: Any, theta: Any, phi: Any) -> Any:
    # dY/dtheta = m cot(theta) Y + sqrt((n - m)(n + m + 1)) exp(-i phi) Y_n^{m+1}
    xp = c.xp
    y = c.out
    up = c.sp.sph_harm_y(n, m + 1, theta, phi, **_sph_kw(c))
    coef = xp.sqrt(xp.astype(xp.asarray((n - m) * (n + m + 1)), theta.dtype))
    rot = xp.exp(-1j * phi)
    return m * xp.cos(theta) / xp.sin(theta) * y + coef * rot * up


def _sph_refuse(bound: dict[str, Any]) -> None:
    if bound.get("diff_n", 0) != 0:
        raise TypeError(
            f"sph_harm_y: the rule supports diff_n=0 only (got {bound['diff_n']!r}); "
            "differentiate the diff_n=0 value instead"
        )


# SciPy's hyp1f1 (Boost's hypergeometric_1F1, SciPy 1.17.1) takes time linear in a large
# positive x: about 1.3 s per 1e12 on these machines (1.5 s at 1e12, 13 s at 1e13, ~20 min at
# 1e15), and never returns at x = +inf, unless a is a non-positive integer (a polynomial, at
# once; so is the derivative's hyp1f1(a + 1, b + 1, x) for a <= -1, and a = 0 has derivative 0).
# Its value there is +-inf or NaN otherwise (e^x overflows from x ~ 710).
HYP1F1_X_MAX = 1e12


def _nonpositive_integer(v: Any) -> Any:
    import numpy as np

    return (v <= 0) & (np.floor(v) == v)


def _hyp1f1_refuse(bound: dict[str, Any]) -> None:
    """SciPy's hyp1f1 on NumPy (host) operands: a ``ValueError`` naming hyp1f1 and ``x``
    where x > HYP1F1_X_MAX (and a is not a non-positive integer), before SciPy is called
    (it would hang). One host read per call, of NumPy memory only: JAX's, PyTorch's and CuPy's
    operands are not read (their hyp1f1 is their own and returns)."""
    import numpy as np

    vals = [bound.get(k) for k in ("a", "b", "x")]
    if not all(type(v) in (int, float, np.ndarray) or isinstance(v, np.generic) for v in vals):
        return
    a, x = np.asarray(vals[0]), np.asarray(vals[2])
    if x.dtype.kind not in "biuf":  # complex x: SciPy's other algorithm (specfun)
        return
    with np.errstate(invalid="ignore"):
        slow = (x > HYP1F1_X_MAX) & ~_nonpositive_integer(a)
    if slow.any():
        bad = np.broadcast_to(x, slow.shape)[slow]
        raise ValueError(
            f"hyp1f1: x = {bad.flat[0]!r} is out of the range the rule calls SciPy on: x must be "
            f"<= {HYP1F1_X_MAX:g} (or NaN, or a a non-positive integer); SciPy's hyp1f1 "
            "takes time linear in x there (about 13 s at x = 1e13) and never returns at "
            "x = inf, where its value would overflow to inf anyway"
        )


def _hyp1f1_dx(c: _Ctx, a: Any, b: Any, x: Any) -> Any:
    """``a / b * hyp1f1(a + 1, b + 1, x)``; 0 at a = 0 (hyp1f1(0, b, x) = 1), where x is
    not passed on: hyp1f1(1, b + 1, x) would not return at a huge x the primal allowed."""
    xp = c.xp
    zero = a == 0
    xs = xp.where(zero, xp.zeros_like(x), x)
    return xp.where(zero, xp.zeros_like(c.out), a / b * c.sp.hyp1f1(a + 1, b + 1, xs))


def _sph_kw(c: _Ctx) -> dict[str, Any]:
    n_max = c.kw.get("n_max")
    return {} if n_max is None else {"n_max": n_max}


def _sph_dphi(c: _Ctx, n: Any, m: Any, theta: Any, phi: Any) -> Any:
    return 1j * m * c.out


# --- registrations --------------------------------------------------------------------------------
def _reg_elementwise() -> None:
    pos = ((0.3, 2.5),)
    e = elementwise
    # error functions and the normal distribution
    e(
        "erf",
        lambda x, out=None: None,
        lambda c, x: 2 / _SQRT_PI * c.xp.exp(-x * x),
        domain=((-2.0, 2.0),),
    )
    e(
        "erfc",
        lambda x, out=None: None,
        lambda c, x: -2 / _SQRT_PI * c.xp.exp(-x * x),
        domain=((-2.0, 2.0),),
    )
    e(
        "erfcx",
        lambda x, out=None: None,
        lambda c, x: 2 * x * c.out - 2 / _SQRT_PI,
        domain=((-1.5, 3.0),),
    )
    e(
        "erfinv",
        lambda x, out=None: None,
        lambda c, x: _SQRT_PI / 2 * c.xp.exp(c.out * c.out),
        domain=((-0.9, 0.9),),
    )
    e("ndtr", lambda x, out=None: None, _gauss, domain=((-3.0, 3.0),))
    e(
        "log_ndtr",
        lambda x, out=None: None,
        lambda c, x: c.xp.exp(-x * x / 2 - c.out) / _SQRT_2PI,
        domain=((-5.0, 3.0),),
    )
    e(
        "ndtri",
        lambda x, out=None: None,
        lambda c, x: _SQRT_2PI * c.xp.exp(c.out * c.out / 2),
        domain=((0.05, 0.95),),
    )
    e("dawsn", lambda x, out=None: None, lambda c, x: 1 - 2 * x * c.out, domain=((-3.0, 3.0),))
    e(
        "wofz",
        lambda z, out=None: None,
        lambda c, z: -2 * z * c.out + 2j / _SQRT_PI,
        domain=((-2.0, 2.0),),
        complex=(-2.0, 2.0, 0.1, 2.0),
    )
    e(
        "owens_t",
        lambda h, a, out=None: None,
        _owens_dh,
        _owens_da,
        domain=((-2.0, 2.0), (-2.0, 2.0)),
    )
    # logistic
    e("expit", lambda x, out=None: None, lambda c, x: c.out * (1 - c.out), domain=((-4.0, 4.0),))
    # d/dx log(expit(x)) = 1 - expit(x) = expit(-x)
    e("log_expit", lambda x, out=None: None, lambda c, x: c.sp.expit(-x), domain=((-4.0, 4.0),))
    e("logit", lambda x, eps=None, out=None: None, _logit_d, domain=((0.05, 0.95),))
    # gamma family
    e("gamma", lambda x, out=None: None, lambda c, x: c.out * c.sp.digamma(x), domain=pos)
    e("gammaln", lambda x, out=None: None, _digamma, domain=pos)
    e("loggamma", lambda x, out=None: None, _digamma, domain=pos)
    e("digamma", lambda x, out=None: None, lambda c, x: _polygamma(c, 1, x), domain=pos)
    e(
        "polygamma",
        lambda n, x, out=None: None,
        None,
        lambda c, n, x: _polygamma(c, n + 1, x),
        examples=_polygamma_examples,
    )
    e(
        "beta",
        lambda a, b, out=None: None,
        lambda c, a, b: c.out * (c.sp.digamma(a) - c.sp.digamma(a + b)),
        lambda c, a, b: c.out * (c.sp.digamma(b) - c.sp.digamma(a + b)),
        domain=(pos[0], pos[0]),
    )
    e(
        "betaln",
        lambda a, b, out=None: None,
        lambda c, a, b: c.sp.digamma(a) - c.sp.digamma(a + b),
        lambda c, a, b: c.sp.digamma(b) - c.sp.digamma(a + b),
        domain=(pos[0], pos[0]),
    )
    e(
        "poch",
        lambda z, m, out=None: None,
        lambda c, z, m: c.out * (c.sp.digamma(z + m) - c.sp.digamma(z)),
        lambda c, z, m: c.out * c.sp.digamma(z + m),
        domain=(pos[0], (0.2, 1.5)),
    )
    e("multigammaln", lambda a, d: None, _multigammaln_da, None, examples=_multigammaln_examples)
    e("factorial", lambda n, exact=False: None, _factorial_d, domain=((0.2, 3.5),))
    e(
        "comb",
        lambda N, k, *, exact=False, repetition=False: None,
        lambda c, n, k: _comb_d(c, n, k)[0],
        lambda c, n, k: _comb_d(c, n, k)[1],
        examples=_comb_examples,
    )
    # incomplete functions: the derivative in x only
    e(
        "gammainc",
        lambda a, x, out=None: None,
        MISSING,
        _gammainc_dx,
        examples=_int_first_examples(1, (0.3, 3.0)),
    )
    e(
        "gammaincc",
        lambda a, x, out=None: None,
        MISSING,
        lambda c, a, x: -_gammainc_dx(c, a, x),
        examples=_int_first_examples(1, (0.3, 3.0)),
    )
    e(
        "betainc",
        lambda a, b, x, out=None: None,
        MISSING,
        MISSING,
        _betainc_dx,
        examples=_int_first_examples(2, (0.1, 0.9)),
    )
    e(
        "hyp1f1",
        lambda a, b, x, out=None: None,
        MISSING,
        MISSING,
        _hyp1f1_dx,
        examples=_int_first_examples(2, (-1.0, 1.0), low=1),
        refuse=_hyp1f1_refuse,
    )
    e(
        "hyp2f1",
        lambda a, b, c, x, out=None: None,
        MISSING,
        MISSING,
        MISSING,
        lambda c, a, b, cc, x: a * b / cc * c.sp.hyp2f1(a + 1, b + 1, cc + 1, x),
        examples=_int_first_examples(3, (-0.8, 0.6), low=1),
    )
    e(
        "zeta",
        lambda x, q=None, out=None: None,
        MISSING,
        lambda c, x, q: -x * c.sp.zeta(x + 1, q),
        examples=_int_first_examples(1, (0.5, 2.5), low=2),
        also=("_ufuncs._zeta",),  # what scipy.special.zeta(x, q) calls: polygamma's pullback
    )
    # exponential integrals
    e("exp1", lambda x, out=None: None, lambda c, x: -c.xp.exp(-x) / x, domain=pos)
    e("expi", lambda x, out=None: None, lambda c, x: c.xp.exp(x) / x, domain=pos)
    e("expn", lambda n, x, out=None: None, None, _expn_dx, domain=("int", pos[0]))
    e(
        "sici",
        lambda x, out=None: None,
        lambda c, x: (c.xp.sin(x) / x, c.xp.cos(x) / x),
        nout=2,
        domain=pos,
    )
    e(
        "fresnel",
        lambda x, out=None: None,
        lambda c, x: (c.xp.sin(math.pi / 2 * x * x), c.xp.cos(math.pi / 2 * x * x)),
        nout=2,
        domain=((-1.5, 1.5),),
    )
    e("spence", lambda z, out=None: None, _spence_d, domain=((0.2, 2.5),))
    # Bessel functions of order 0 and 1
    e("i0", lambda x, out=None: None, lambda c, x: c.sp.i1(x), domain=((-3.0, 3.0),))
    e(
        "i0e",
        lambda x, out=None: None,
        lambda c, x: c.sp.i1e(x) - c.xp.sign(x) * c.out,
        domain=((-3.0, 3.0),),
    )
    e("i1", lambda x, out=None: None, _i1_d, domain=((-3.0, 3.0),))
    e("i1e", lambda x, out=None: None, _i1e_d, domain=((-3.0, 3.0),))
    # entropies and x log y
    e("entr", lambda x, out=None: None, lambda c, x: -(c.xp.log(x) + 1), domain=((0.1, 3.0),))
    e(
        "rel_entr",
        lambda x, y, out=None: None,
        lambda c, x, y: c.xp.log(x / y) + 1,
        lambda c, x, y: -(x / y),  # not -x / y: a bool x has no negative
        domain=((0.1, 3.0), (0.1, 3.0)),
    )
    e(
        "kl_div",
        lambda x, y, out=None: None,
        lambda c, x, y: c.xp.log(x / y),
        lambda c, x, y: 1 - x / y,
        domain=((0.1, 3.0), (0.1, 3.0)),
    )
    e(
        "xlogy",
        lambda x, y, out=None: None,
        lambda c, x, y: c.xp.log(y),
        _xlogy_dy,
        domain=((-2.0, 2.0), (0.1, 3.0)),
    )
    e(
        "xlog1py",
        lambda x, y, out=None: None,
        lambda c, x, y: c.xp.log1p(y),
        _xlog1py_dy,
        domain=((-2.0, 2.0), (-0.8, 2.0)),
    )
    # Box-Cox transforms
    e(
        "boxcox",
        lambda x, lmbda, out=None: None,
        lambda c, x, lmbda: x ** (lmbda - 1),
        lambda c, x, lmbda: _boxcox_dl(c, c.xp.log(x), x**lmbda, lmbda),
        domain=((0.3, 3.0), (-1.0, 1.0)),
    )
    e(
        "boxcox1p",
        lambda x, lmbda, out=None: None,
        lambda c, x, lmbda: (1 + x) ** (lmbda - 1),
        lambda c, x, lmbda: _boxcox_dl(c, c.xp.log1p(x), (1 + x) ** lmbda, lmbda),
        domain=((-0.5, 3.0), (-1.0, 1.0)),
    )
    # spherical harmonics (JAX and SciPy >= 1.15): complex output of real angles
    e(
        "sph_harm_y",
        lambda n, m, theta, phi, *, diff_n=0, n_max=None: None,
        None,
        None,
        _sph_dtheta,
        _sph_dphi,
        examples=_sph_examples,
        refuse=_sph_refuse,
        expect=_sph_expect(),
    )


def _spence_d(c: _Ctx, z: Any) -> Any:
    # spence(z) = int_1^z log(t) / (1 - t) dt: spence' = log(z) / (1 - z), -1 at z = 1
    xp = c.xp
    one = z == 1
    return xp.where(one, -xp.ones_like(c.out), xp.log(z) / _safe(xp, 1 - z))


def _asarray_expect(name: str) -> Any:
    from ...core.examples import Expect

    return Expect(
        "scalar-free",
        f"scipy.special.{name} is a Python function that converts its arguments with "
        "np.asarray (a host copy), so it cannot run on device arrays; JAX's, CuPy's and the rule "
        "are checked by the other columns",
        kind="xfail",
    )


def _sph_expect() -> Any:
    from ...core.examples import Expect

    return (
        Expect(
            "jit",
            "jax.scipy.special.sph_harm_y needs n_max (a host int) under jax.jit, which SciPy's "
            "signature lacks",
            kind="skip",
        ),
        _asarray_expect("sph_harm_y"),  # its primal runs on the host
    )


def _polygamma_examples(rng: Any) -> list[Any]:
    # n a Python int: torch.special.polygamma takes no other
    return [((1, rng.uniform(0.3, 2.5, 4)), {}), ((2, rng.uniform(0.3, 2.5, (2, 3))), {})]


def _multigammaln_examples(rng: Any) -> list[Any]:
    return [((rng.uniform(1.6, 4.0, 4), 3), {}), ((rng.uniform(0.6, 3.0, (2, 3)), 1), {})]


def _comb_examples(rng: Any) -> list[Any]:
    return [
        ((rng.uniform(4.0, 7.0, 4), rng.uniform(0.5, 3.0, 4)), {}),
        ((rng.uniform(2.0, 5.0, (2, 3)), rng.uniform(0.5, 2.0, 3)), {"repetition": True}),
    ]


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


def _sph_examples(rng: Any) -> list[Any]:
    import numpy as np

    n = np.array([1, 2, 3, 2])
    m = np.array([0, 1, -2, -1])
    return [((n, m, rng.uniform(0.3, 2.8, 4), rng.uniform(-3.0, 3.0, 4)), {})]


_reg_elementwise()


# --- Bessel functions of any order, rgamma, erfcinv (the rest of autograd's table) ---------------
# SciPy's and CuPy's only: jax.scipy.special and torch.special have none of these names (torch's
# bessel_j0/bessel_y0 are other names). The derivatives in x come from the same library's siblings
# by the standard recurrences; a real order v has no closed-form derivative (MISSING), an integer
# order n (yn) no tangent space.
def _j1_d(c: _Ctx, x: Any) -> Any:
    # J1' = J0 - J1 / x, 1/2 at 0 (its limit)
    xp = c.xp
    return xp.where(x == 0, xp.full_like(c.out, 0.5), c.sp.j0(x) - c.out / _safe(xp, x))


def _iv_dx(c: _Ctx, v: Any, x: Any) -> Any:
    # I_v' = (I_{v-1} + I_{v+1}) / 2
    return (c.sp.iv(v - 1, x) + c.sp.iv(v + 1, x)) / 2


def _ive_dx(c: _Ctx, v: Any, x: Any) -> Any:
    # ive = exp(-|Re x|) I_v: d ive = (ive_{v-1} + ive_{v+1}) / 2 dx - sign(Re x) ive d(Re x),
    # not holomorphic for complex x (one derivative, ive' on real x)
    xp = c.xp
    re = xp.real(x) if xp.isdtype(x.dtype, "complex floating") else x
    return SplitPartial((c.sp.ive(v - 1, x) + c.sp.ive(v + 1, x)) / 2, -xp.sign(re) * c.out)


def _jv_dx(c: _Ctx, v: Any, x: Any) -> Any:
    # J_v' = (J_{v-1} - J_{v+1}) / 2
    return (c.sp.jv(v - 1, x) - c.sp.jv(v + 1, x)) / 2


def _yn_dx(c: _Ctx, n: Any, x: Any) -> Any:
    # Y_n' = (Y_{n-1} - Y_{n+1}) / 2 (SciPy's yn takes negative n: Y_{-n} = (-1)^n Y_n)
    return (c.sp.yn(n - 1, x) - c.sp.yn(n + 1, x)) / 2


def _order_examples(xrange: tuple[float, float]) -> Callable[[Any], list[Any]]:
    """An integer order array (its cotangent is not asked for: an integer has no tangent space,
    and a real order's derivative has no closed form) broadcast against float x."""

    def examples(rng: Any) -> list[Any]:
        import numpy as np

        return [
            ((np.array([0, 1, 2, 3]), rng.uniform(*xrange, 4)), {}),
            ((np.array([1, 2, 4]), rng.uniform(*xrange, (2, 3))), {}),
        ]

    return examples


def _reg_bessel_orders() -> None:
    e = elementwise
    e("j0", lambda x, out=None: None, lambda c, x: -c.sp.j1(x), domain=((-4.0, 4.0),))
    e("j1", lambda x, out=None: None, _j1_d, domain=((-4.0, 4.0),))
    e("y0", lambda x, out=None: None, lambda c, x: -c.sp.y1(x), domain=((0.3, 4.0),))
    e(
        "y1",
        lambda x, out=None: None,
        lambda c, x: c.sp.y0(x) - c.out / x,  # Y1' = Y0 - Y1 / x (Y1 has a pole at 0)
        domain=((0.3, 4.0),),
    )
    e("jv", lambda v, z, out=None: None, MISSING, _jv_dx, examples=_order_examples((-4.0, 4.0)))
    e("yn", lambda n, x, out=None: None, None, _yn_dx, examples=_order_examples((0.3, 4.0)))
    e("iv", lambda v, z, out=None: None, MISSING, _iv_dx, examples=_order_examples((-3.0, 3.0)))
    # ive has a kink at x = 0 (exp(-|x|)): examples on one side, sign(0) = 0 there
    e("ive", lambda v, z, out=None: None, MISSING, _ive_dx, examples=_order_examples((0.2, 3.0)))
    # rgamma = 1/Gamma: rgamma' = -rgamma digamma (at the poles of Gamma, NaN: see the docs)
    e(
        "rgamma",
        lambda z, out=None: None,
        lambda c, z: -c.out * c.sp.digamma(z),
        domain=((0.3, 3.0),),
    )
    e(
        "erfcinv",
        lambda y, out=None: None,
        lambda c, y: -_SQRT_PI / 2 * c.xp.exp(c.out * c.out),
        domain=((0.1, 1.9),),
    )


_reg_bessel_orders()


# piecewise constant and integer functions
zero_derivative("scipy:special.gammasgn", domain=((0.3, 3.0),))
non_differentiable("scipy:special.bernoulli", examples=lambda rng: [((5,), {})])


# --- reductions: logsumexp, softmax, log_softmax --------------------------------------------------
_LOGSUMEXP = signature(
    "logsumexp",
    lambda a, axis=None, b=None, keepdims=False, return_sign=False, where=None: None,
    ("where",),
)


def _axes(axis: Any, ndim: int, name: str) -> tuple[int, ...]:
    return normalize_axis(axis, ndim, name)


def _keep(xp: Any, v: Any, axes: tuple[int, ...], ndim: int) -> Any:
    """A reduction over ``axes`` (without keepdims) reshaped to broadcast against the input."""
    shape = list(v.shape)
    for a in axes:
        shape.insert(a, 1)
    return xp.reshape(v, tuple(shape))


def _lse(xp: Any, a: Any, b: Any, axes: tuple[int, ...]) -> tuple[Any, Any, Any, Any]:
    """``log |sum(b exp(a))|`` over ``axes`` (kept as length-1 axes), the sum's sign, and what
    the cotangent weight is built from: ``exp(a - max)`` and the sum. For complex ``a``: the
    complex ``log(sum(b exp(a)))`` (its phase in ``(-pi, pi]``, SciPy's) and the sign ``s / |s|``,
    whose shift is the largest real part (as SciPy's)."""
    cplx = xp.isdtype(a.dtype, "complex floating")
    ar = xp.real(a) if cplx else a
    if any(a.shape[ax] == 0 for ax in axes):  # an empty sum: no max; lse = log(0) = -inf
        kept = tuple(1 if i in axes else n for i, n in enumerate(a.shape))
        m = xp.zeros(kept, dtype=ar.dtype, device=device_of(a))
    else:
        m = xp.max(ar, axis=axes, keepdims=True) if axes else ar
    m = xp.where(xp.isfinite(m), m, xp.zeros_like(m))
    e0 = xp.exp(a - m)
    e = e0 if b is None else b * e0
    s = xp.sum(e, axis=axes, keepdims=True) if axes else e
    return (xp.log(s) if cplx else xp.log(xp.abs(s))) + m, xp.sign(s), e0, s


def _logsumexp_bind(obj: Any, kind: str) -> Callable[..., Any]:
    """``logsumexp``'s rule for ``obj``, the library's own function (``bind=``)."""
    if kind == "r":

        def logsumexp_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], Any]]:
            return _logsumexp_rrule(obj, args, kwargs)

        return logsumexp_rrule

    def logsumexp_frule(tangents: tuple[Any, ...], *args: Any, **kwargs: Any) -> Any:
        return _logsumexp_frule(obj, tangents, args, kwargs)

    return logsumexp_frule


def _scipy_primal(obj: Any, args: tuple[Any, ...], kwargs: dict[str, Any], y: Any) -> Any:
    """SciPy's own value when ``obj`` is SciPy's function and every array argument is a NumPy
    array (SciPy splits off the maximal terms and uses ``log1p``: its last bit differs from the
    namespace formula's); else ``y``. SciPy's converts with ``np.asarray`` and writes in place, so
    another library's arrays keep the namespace formula."""
    if getattr(obj, "__module__", "").startswith("scipy.") and all(
        type(v) is np.ndarray or not is_array(v) for v in (*args, *kwargs.values())
    ):
        return obj(*args, **kwargs)
    return y


def _logsumexp_rrule(
    obj: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, Callable[[Any], Any]]:
    bound = _LOGSUMEXP.bind(args, kwargs)
    a, b = bound["a"], bound["b"]
    xp = namespace_of(*(v for v in (a, b) if is_array(v)), fname="logsumexp")
    y, w, sgn, axes, ndim = _logsumexp_forward(xp, bound)
    y = _scipy_primal(obj, args, kwargs, y)
    proj_a = ProjectTo(a, xp)
    proj_b = ProjectTo(b, xp) if b is not None and len(args) > 2 else None
    pargs = list(args)
    if len(pargs) > 2 and b is None:
        pargs[2] = _NO

    @pullback(y, pargs, name="logsumexp")
    def logsumexp_pullback(y_bar: Any) -> Any:
        if bound["return_sign"]:
            y_bar = _lse_signed_bar(xp, y_bar[0], y_bar[1], sgn)
        if isinstance(y_bar, AbstractZero):
            return tuple(zero_tangent(v) for v in pargs)
        g = y_bar if bound["keepdims"] else _keep(xp, y_bar, axes, ndim)
        # w = exp(a - lse) * sign = d lse / d b, b w = d lse / d a (holomorphic for complex a:
        # the cotangent is conj(derivative) * y_bar, docs/conventions.md)
        gw = g * conj(xp, w)
        res: list[Any] = [proj_a(gw if b is None else gw * conj(xp, b))]
        if len(args) > 1:
            res.append(_NO)
        if len(args) > 2:
            res.append(_NO if proj_b is None else proj_b(gw))
        res.extend(_NO for _ in args[3:])
        return res[0] if len(res) == 1 else tuple(res)

    return y, logsumexp_pullback


def _lse_signed_bar(xp: Any, mag_bar: Any, sign_bar: Any, sgn: Any) -> Any:
    """The cotangent of ``log S`` from those of ``return_sign``'s two outputs, ``log|S| =
    Re(log S)`` and ``sign = S / |S| = exp(i Im(log S))``. A real sign is piecewise constant (no
    cotangent); a complex one moves with the phase: ``d sign = i sign d Im(log S)``, so its
    cotangent adds ``i Im(sign_bar conj(sign))``."""
    if isinstance(sign_bar, AbstractZero) or not xp.isdtype(sgn.dtype, "complex floating"):
        return mag_bar
    phase_bar = xp.imag(sign_bar * xp.conj(sgn))
    if isinstance(mag_bar, AbstractZero):
        return 1j * phase_bar
    return mag_bar + 1j * phase_bar


def _logsumexp_forward(xp: Any, bound: dict[str, Any]) -> tuple[Any, Any, Any, Any, int]:
    a, b = bound["a"], bound["b"]
    if not is_array(a):
        a = xp.asarray(a)
    if not xp.isdtype(a.dtype, ("real floating", "complex floating")):
        a = xp.astype(a, _default_float(xp, a))  # SciPy computes bool / int in floating point
    if b is not None:
        if not is_array(b):
            b = xp.asarray(b, dtype=a.dtype)
        a, b = xp.broadcast_arrays(a, b)
    ndim = a.ndim
    axes = _axes(bound["axis"], ndim, "logsumexp")
    lse_k, sgn_k, e0, s = _lse(xp, a, b, axes)
    if any(a.shape[ax] == 0 for ax in axes):
        sgn_k = xp.full_like(sgn_k, -1)  # SciPy's sign of an empty sum is sign(-inf)
    # the cotangent weight exp(a - lse) * sign = exp(a - max) / sum, from the forward's
    # exponentials (a second exp over a costs 1.3x native JAX's jit(grad) at n = 1e6); every
    # term zero (sum = 0, lse = -inf) gives 0, not NaN
    nz = s != 0
    w = e0 * xp.where(nz, 1 / xp.where(nz, s, xp.ones_like(s)), xp.zeros_like(s))
    if bound["return_sign"] and xp.isdtype(lse_k.dtype, "complex floating"):
        lse_k = xp.real(lse_k)  # log|S|, the phase in the sign
    lse = lse_k if bound["keepdims"] else xp.reshape(lse_k, _squeezed(lse_k.shape, axes))
    if bound["return_sign"]:
        sgn = sgn_k if bound["keepdims"] else xp.reshape(sgn_k, _squeezed(sgn_k.shape, axes))
        return (numpy_result(lse), numpy_result(sgn)), w, sgn, axes, ndim
    if b is not None and not xp.isdtype(lse.dtype, "complex floating"):
        # a negative sum has no real logarithm: NaN, as SciPy gives
        neg = xp.reshape(sgn_k, lse.shape) < 0
        lse = xp.where(neg, xp.full_like(lse, math.nan), lse)
    return numpy_result(lse), w, None, axes, ndim


def _default_float(xp: Any, a: Any) -> Any:
    """The namespace's default real floating dtype (SciPy's ``force_floating``)."""
    info = getattr(xp, "__array_namespace_info__", None)
    if info is None:
        return xp.float64
    return info().default_dtypes(device=device_of(a))["real floating"]


def _squeezed(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def _logsumexp_frule(
    obj: Any, tangents: tuple[Any, ...], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, Any]:
    bound = _LOGSUMEXP.bind(args, kwargs)
    a, b = bound["a"], bound["b"]
    xp = namespace_of(*(v for v in (a, b) if is_array(v)), fname="logsumexp")
    y, w, sgn, axes, ndim = _logsumexp_forward(xp, bound)
    y = _scipy_primal(obj, args, kwargs, y)
    diffs = [a] + ([b] if len(args) > 2 and b is not None else [])
    ts = [tangents[1]] + ([tangents[3]] if len(diffs) > 1 else [])
    dots = tangents_in("logsumexp", (tangents[0], *ts), diffs)
    y0 = y[0] if bound["return_sign"] else y
    if dots is None:
        return y, (Tangent(_ZERO, _NO, primal_type=tuple) if bound["return_sign"] else _ZERO)
    extra = dots.extra
    acc: Any = None
    for i, t in enumerate(dots):
        if isinstance(t, AbstractZero):
            continue
        t = _align(xp, t, diffs[i], extra, ndim)
        term = w * t * (b if i == 0 and b is not None else 1)
        acc = term if acc is None else acc + term
    red = tuple(ax + extra for ax in axes)
    y_dot = xp.sum(acc, axis=red, keepdims=bool(bound["keepdims"])) if red else acc
    if not bound["return_sign"]:
        return y, finish_tangent(xp, y_dot, y0)
    if not xp.isdtype(sgn.dtype, "complex floating"):  # a real sign is piecewise constant
        return y, Tangent(finish_tangent(xp, y_dot, y0), _NO, primal_type=tuple)
    # complex input: log|S| = Re(log S) and sign = exp(i Im(log S)) move with d log S = y_dot
    mag_dot = finish_tangent(xp, xp.real(y_dot), y0)
    sign_dot = finish_tangent(xp, 1j * xp.imag(y_dot) * sgn, y[1])
    return y, Tangent(mag_dot, sign_dot, primal_type=tuple)


def _logsumexp_examples(rng: Any) -> list[Any]:
    return [
        ((rng.standard_normal(5),), {}),
        ((rng.standard_normal((2, 3)),), {"axis": 1}),
        ((rng.standard_normal((2, 3)), 0, rng.uniform(0.5, 2.0, (2, 3))), {"keepdims": True}),
        ((rng.standard_normal((2, 3)), -1, rng.uniform(0.5, 2.0, 3)), {}),
    ]


_LSE_META: dict[str, Any] = {"examples": _logsumexp_examples, "bind": _logsumexp_bind}
register_rrule("scipy:special.logsumexp", **_LSE_META)(_logsumexp_bind(None, "r"))
register_frule("scipy:special.logsumexp", **_LSE_META)(_logsumexp_bind(None, "f"))


_SOFTMAX = signature("softmax", lambda x, axis=None: None)
_LOG_SOFTMAX = signature("log_softmax", lambda x, axis=None: None)


def _softmax_examples(rng: Any) -> list[Any]:
    return [
        ((rng.standard_normal(5),), {}),
        ((rng.standard_normal((2, 3)),), {"axis": 1}),
        ((rng.standard_normal((2, 3)),), {"axis": 0}),
    ]


def _softmax_setup(
    name: str, sig: Signature, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, Any, tuple[int, ...], Any]:
    bound = sig.bind(args, kwargs)
    x = bound["x"]
    xp = namespace_of(x, fname=name)
    axes = _axes(bound["axis"], x.ndim, name)
    # SciPy's own formulas, so that the primal is f's to the last bit (int input included)
    m = xp.max(x, axis=axes, keepdims=True) if axes else x
    if name == "softmax":  # exp(x - max) / sum: the max is not guarded, as in SciPy
        e = xp.exp(x - m)
        return xp, x, axes, e / (xp.sum(e, axis=axes, keepdims=True) if axes else e)
    t = x - xp.where(xp.isfinite(m), m, xp.zeros_like(m))
    et = xp.exp(t)
    return xp, x, axes, t - xp.log(xp.sum(et, axis=axes, keepdims=True) if axes else et)


@register_rrule("scipy:special.softmax", examples=_softmax_examples)
def softmax_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], Any]]:
    xp, x, axes, y = _softmax_setup("softmax", _SOFTMAX, args, kwargs)
    proj = ProjectTo(x, xp)

    @pullback(y, args, name="softmax")
    def softmax_pullback(y_bar: Any) -> Any:
        # J = diag(y) - y y^T (symmetric, holomorphic): x_bar = conj(J) y_bar
        yc = conj(xp, y)
        gy = y_bar * yc
        g = proj(gy - yc * xp.sum(gy, axis=axes, keepdims=True))
        return g if len(args) == 1 else (g, _NO)

    return y, softmax_pullback


@register_frule("scipy:special.softmax", examples=_softmax_examples)
def softmax_frule(tangents: tuple[Any, ...], *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    xp, x, axes, y = _softmax_setup("softmax", _SOFTMAX, args, kwargs)
    dots = tangents_in("softmax", tangents[:2], (x,))
    if dots is None:
        return y, _ZERO
    (t,) = dots
    red = tuple(a + dots.extra for a in axes)
    ty = y * t
    return y, finish_tangent(xp, ty - y * xp.sum(ty, axis=red, keepdims=True), y)


@register_rrule("scipy:special.log_softmax", examples=_softmax_examples)
def log_softmax_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], Any]]:
    xp, x, axes, y = _softmax_setup("log_softmax", _LOG_SOFTMAX, args, kwargs)
    proj = ProjectTo(x, xp)

    @pullback(y, args, name="log_softmax")
    def log_softmax_pullback(y_bar: Any) -> Any:
        # J = I - 1 softmax^T (holomorphic): x_bar = y_bar - conj(softmax) sum(y_bar)
        g = proj(y_bar - conj(xp, xp.exp(y)) * xp.sum(y_bar, axis=axes, keepdims=True))
        return g if len(args) == 1 else (g, _NO)

    return y, log_softmax_pullback


@register_frule("scipy:special.log_softmax", examples=_softmax_examples)
def log_softmax_frule(tangents: tuple[Any, ...], *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    xp, x, axes, y = _softmax_setup("log_softmax", _LOG_SOFTMAX, args, kwargs)
    dots = tangents_in("log_softmax", tangents[:2], (x,))
    if dots is None:
        return y, _ZERO
    (t,) = dots
    red = tuple(a + dots.extra for a in axes)
    return y, finish_tangent(xp, t - xp.sum(xp.exp(y) * t, axis=red, keepdims=True), y)
