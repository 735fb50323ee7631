"""Rules for ``scipy.stats``'s distributions -- the 27 methods HIPS autograd differentiates,
registered as ``"scipy:stats.DIST.METHOD"`` so that each covers ``scipy.stats.DIST.METHOD`` (a
bound method of SciPy's distribution object) and ``jax.scipy.stats.DIST.METHOD`` (a function).

Each rule is bound to the function it was found for (``bind_in=``): the primal is that function's
own result, and the derivatives are built from the array namespace and the *same library's*
special functions (``scipy.special`` for SciPy's, ``jax.scipy.special`` for JAX's: the library the
registry declares for the namespace it found the function in), so a pullback stays inside a
``jax.jit`` trace. PyTorch and array-api-strict have no ``scipy.stats``: no rule applies
there (``n/a``).

Location-scale families (``norm``, ``t``, ``gamma``, ``beta``, ``chi2``): with
``z = (x - loc) / scale`` and ``g(z; theta)`` the standardised density,

* ``pdf = g(z)/scale``: ``d/dx = pdf * (log g)'(z) / scale``, ``d/dloc = -d/dx``,
  ``d/dscale = -(z d/dx + pdf/scale)``, ``d/dtheta = pdf * d log g / d theta``;
* ``logpdf``: the same divided by ``pdf`` (``-(z d/dx + 1/scale)`` for the scale);
* ``cdf``/``sf``: ``d/dx = +-g(z)/scale``, ``d/dscale = -z d/dx``; ``logcdf``/``logsf``:
  ``d/dx = +-exp(log g(z) - y)/scale``, in log space (no underflow of ``g`` or of the cdf);
  a shape parameter of a cdf (``gammainc`` in ``a``, ``betainc`` in ``a``/``b``) has no closed
  form: its cotangent is the ``Thunk`` that ``scipy:special.gammainc`` returns for ``a``, which
  raises ``NotImplementedError`` only when forced (an frule given such a tangent raises at once).

``poisson``'s ``k`` and ``loc`` are integers (``NoTangent()``; ``ZeroTangent()`` for float arrays:
the functions are piecewise constant in them). ``dirichlet`` and ``multivariate_normal`` have
hand-written rules. Keyword arguments are never differentiated; ``out=`` does not exist here.
The maths notes and conventions are in ``docs/rules/scipy-stats.md``.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from typing import Any

from ...core.prelude import *
from ...core.registry import Source
from .._util import conj
from .._util.special import MISSING, ZERO_PARTIAL, _Ctx, _elementwise_rules, _in_dtype

_LOG_2PI = math.log(2 * math.pi)

# SciPy's distributions convert their inputs with numpy.asarray, which a guarded device array
# refuses; JAX's functions are checked by the jax and jit columns.
_GUARD = Expect(
    "scalar-free",
    "scipy.stats converts its inputs with numpy.asarray (a host copy), which a guarded device "
    "array refuses; that is SciPy's property (cupyx.scipy.stats has no distributions)",
)


# --- binding each library's function ------------------------------------------------------------
# each library's special functions, by the library its stats namespace's registration declares
_SPECIAL = {"scipy": "scipy.special", "jax": "jax.scipy.special", "cupy": "cupyx.scipy.special"}


def special_of(src: Source) -> Source:
    """The special-function module of the library whose ``stats`` the registry found a
    distribution's method in (``src``): ``jax.scipy.special`` for JAX's functions,
    ``scipy.special`` for SciPy's (and for a namespace of a library that has none here)."""
    library = src.library if src.library in _SPECIAL else "scipy"
    return Source(importlib.import_module(_SPECIAL[library]), library)


def _scipy_stats() -> Source:
    """SciPy's ``scipy.stats`` as the registry would find it: for the rules a registration holds
    itself, which are SciPy's method's."""
    return Source(importlib.import_module("scipy.stats"), "scipy")


def _scipy_function(name: str) -> Any:
    stats = importlib.import_module("scipy.stats")
    dist, method = name.split(".")
    return getattr(getattr(stats, dist), method)


def _register(
    name: str,
    make: Callable[[Any, Source], tuple[Callable[..., Any], Callable[..., Any]]],
    examples: Callable[[Any], list[Any]],
    expect: tuple[Expect, ...] = (),
    **meta: Any,
) -> None:
    """Register ``"scipy:stats.NAME"``; ``make(obj, special)`` gives the rrule and frule of one
    library's function ``obj`` (built once per function), whose partials take that library's
    special functions from ``special`` (:func:`special_of`)."""
    built: dict[Any, tuple[Callable[..., Any], Callable[..., Any]]] = {}

    def bind(obj: Any, kind: str, src: Source) -> Callable[..., Any]:
        if obj not in built:
            # the primal's call traceable: SciPy's methods convert their inputs with
            # numpy.asarray, so the rule run on an engine's traced arrays (a Hessian) would stop
            # there; traceable, the call reaches the engine as one operation, with these rules
            built[obj] = make(traceable(obj), special_of(src))
        return built[obj][0 if kind == "r" else 1]

    def scipy_rrule(*args: Any, **kwargs: Any) -> Any:
        return bind(_scipy_function(name), "r", _scipy_stats())(*args, **kwargs)

    def scipy_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        return bind(_scipy_function(name), "f", _scipy_stats())(tangents, *args, **kwargs)

    target = f"scipy:stats.{name}"
    meta["expect"] = (*expect, _GUARD)
    register_rrule(target, bind_in=bind, examples=examples, **meta)(scipy_rrule)
    register_frule(target, bind_in=bind, examples=examples, **meta)(scipy_frule)


# --- elementwise functions (location-scale families, poisson) -------------------------------------
# A partial reads the context of special's factory (``c.sp``, ``c.xp``, ``c.out``, ``c.v`` by
# name, ``c.memo``): these are the rules of ``special._elementwise_rules``, with each library's
# special module found from the distribution's method and the inputs cast to the output's dtype.
Partial = Callable[[_Ctx], Any] | object  # a callable, MISSING (no closed form) or ZERO_PARTIAL


def _elementwise(
    fname: str, sig: Signature, params: tuple[str, ...], partials: tuple[Partial, ...]
) -> Callable[[Any, Source], tuple[Callable[..., Any], Callable[..., Any]]]:
    """``make(obj, special)`` for an elementwise (broadcasting) function of ``params``, one
    partial each."""
    ps = tuple(_reads_ctx(p) if callable(p) else p for p in partials)

    def make(obj: Any, special: Source) -> tuple[Callable[..., Any], Callable[..., Any]]:
        r, f = _elementwise_rules(fname, obj, special, sig, params, ps, 1, distribution=True)
        r.__qualname__ = r.__name__ = f"{fname.replace('.', '_')}_rrule"
        f.__qualname__ = f.__name__ = f"{fname.replace('.', '_')}_frule"
        return r, f

    return make


def _reads_ctx(p: Callable[[_Ctx], Any]) -> Callable[..., Any]:
    return lambda c, *vals: p(c)


class _Family:
    """A location-scale family: the log of its standardised density ``logg(c, z, *shapes)``, its
    derivative in ``z`` and in each shape parameter (``c.sp``: the library's special module)."""

    def __init__(
        self,
        name: str,
        shapes: tuple[str, ...],
        logg: Callable[..., Any],
        dz: Callable[..., Any],
        dshapes: tuple[Callable[..., Any], ...],
        template: Callable[..., None],
        support: tuple[float, float] | None = None,
        zdz: Callable[..., Any] | None = None,
    ) -> None:
        self.name, self.shapes, self.logg, self.dz, self.dshapes = name, shapes, logg, dz, dshapes
        self.template = template  # SciPy's signature
        self.support = support  # the open interval of z where the density is positive
        # z * d log g / dz (the scale derivative's term): a family whose product has a finite
        # limit as |z| -> inf gives its own (the t's -(df + 1) z^2 / (df + z^2)), where
        # z * dz(z) would be inf * 0
        self.zdz = zdz if zdz is not None else (lambda c, z, *th: z * dz(c, z, *th))


def _z(c: _Ctx, fam: _Family) -> Any:
    """``z = (x - loc) / scale``; for a family with a bounded support, a point inside it where
    ``z`` is outside (the derivatives there are set to 0 by ``_inside``, and no log of a negative
    number is taken on the way)."""
    if "z" not in c.memo:
        xp = c.xp
        z = (c.v["x"] - c.v["loc"]) / c.v["scale"]
        if fam.support is not None:
            lo, hi = fam.support
            inside = (z > lo) & (z < hi)
            c.memo["in"] = inside
            z = xp.where(inside, z, xp.full_like(z, 0.5))
        c.memo["z"] = z
    return c.memo["z"]


def _inside(c: _Ctx, d: Any) -> Any:
    """``d`` inside the support, 0 outside it: the pdf and the cdf are constant there."""
    inside = c.memo.get("in")
    if inside is None:
        return d
    xp = c.xp
    return xp.where(inside, d, xp.zeros_like(d))


def _shapes(c: _Ctx, fam: _Family) -> list[Any]:
    return [c.v[s] for s in fam.shapes]


def _masked(c: _Ctx, d: Any) -> Any:
    """``d`` (a multiple of the pmf) where the pmf is nonzero, 0 outside the support."""
    xp = c.xp
    return xp.where(c.out == 0, xp.zeros_like(d), d)


def _dx(c: _Ctx, fam: _Family, method: str) -> Any:
    """``d y / d x`` of ``fam.METHOD`` (``-d y / d loc``)."""
    if "dx" in c.memo:
        return c.memo["dx"]
    xp, z, s, th = c.xp, _z(c, fam), c.v["scale"], _shapes(c, fam)
    if method == "pdf":  # 0 where the pdf is: its limit at |x| -> inf, not 0 * inf
        d = _masked(c, c.out * fam.dz(c, z, *th)) / s
    elif method == "logpdf":
        d = fam.dz(c, z, *th) / s
    elif method in ("cdf", "sf"):
        d = xp.exp(fam.logg(c, z, *th)) / s
    else:  # logcdf, logsf: g / G in log space
        lg = fam.logg(c, z, *th)
        # in the tail where both g and G underflow (log g = log G = -inf), g / G is its limit,
        # |d log g / dz| (l'Hopital: G' = +-g), not exp(-inf + inf): the normal's z, the t's 0
        tail = (lg == -math.inf) & (c.out == -math.inf)
        d = xp.where(tail, xp.abs(fam.dz(c, z, *th)), xp.exp(xp.where(tail, 0.0, lg - c.out))) / s
    if method in ("sf", "logsf"):
        d = -d
    d = _inside(c, d)
    c.memo["dx"] = d
    return d


def _family_partials(fam: _Family, method: str) -> tuple[Partial, ...]:
    def dx(c: _Ctx) -> Any:
        return _dx(c, fam, method)

    def dloc(c: _Ctx) -> Any:
        return -_dx(c, fam, method)

    def dscale(c: _Ctx) -> Any:
        # -(z dy/dx + [pdf | 1] / scale), with z dy/dx through the family's z * d log g / dz
        # (finite limits at |x| -> inf, no inf * 0)
        z, s = _z(c, fam), c.v["scale"]
        if method == "pdf":
            d = _masked(c, c.out * (fam.zdz(c, z, *_shapes(c, fam)) + 1)) / s
        elif method == "logpdf":
            d = (fam.zdz(c, z, *_shapes(c, fam)) + 1) / s
        else:  # the cdfs: z g(z) -> 0 where g underflows to 0 (every density's tails)
            dx = _dx(c, fam, method)
            d = c.xp.where(dx == 0, c.xp.zeros_like(dx), z * dx)
        return -_inside(c, d)

    def dshape(i: int) -> Partial:
        if method not in ("pdf", "logpdf"):
            return MISSING

        def d(c: _Ctx) -> Any:
            r = fam.dshapes[i](c, _z(c, fam), *_shapes(c, fam))
            return _inside(c, _masked(c, c.out * r) if method == "pdf" else r)

        return d

    return (dx, *(dshape(i) for i in range(len(fam.shapes))), dloc, dscale)


def _register_family(
    fam: _Family, methods: tuple[str, ...], examples: Callable[[Any], list[Any]], **meta: Any
) -> None:
    params = ("x", *fam.shapes, "loc", "scale")
    for method in methods:
        name = f"{fam.name}.{method}"
        sig = signature(name, fam.template)
        make = _elementwise(name, sig, params, _family_partials(fam, method))
        _register(name, make, examples, **meta)


# --- the families --------------------------------------------------------------------------------
def _norm_logg(c: _Ctx, z: Any) -> Any:
    return -z * z / 2 - _LOG_2PI / 2


_NORM = _Family("norm", (), _norm_logg, lambda c, z: -z, (), lambda x, loc=0, scale=1: None)


def _t_logg(c: _Ctx, z: Any, df: Any) -> Any:
    sp, xp = c.sp, c.xp
    return (
        sp.gammaln((df + 1) / 2)
        - sp.gammaln(df / 2)
        - xp.log(df * math.pi) / 2
        - (df + 1) / 2 * xp.log1p(z * z / df)
    )


def _t_ddf(c: _Ctx, z: Any, df: Any) -> Any:
    """``d log g / d df``. Its terms in ``w = |z| / sqrt(df)`` are written so that ``z * z`` never
    overflows: ``log1p(w^2) = 2 log w + log1p(1 / w^2)`` and ``w^2 / (1 + w^2) = 1 / (1 + 1 / w^2)``
    for ``w > 1``. At ``|z| ~ 1e300`` the derivative is then finite (about ``-log|z|``), not
    ``inf - inf``, and the pdf's ``pdf * d`` is its limit 0, not ``0 * NaN``."""
    sp, xp = c.sp, c.xp
    w = xp.abs(z) / xp.sqrt(df)
    big = w > 1
    hi = xp.where(big, w, xp.ones_like(w))  # w where w > 1 (no division by 0 nor log of 0)
    inv2 = (1 / hi) * (1 / hi)
    lo = xp.where(big, xp.zeros_like(w), w)
    w2 = lo * lo  # w^2 where w <= 1 (no overflow)
    log1p_w2 = xp.where(big, 2 * xp.log(hi) + xp.log1p(inv2), xp.log1p(w2))
    frac = xp.where(big, 1 / (1 + inv2), w2 / (1 + w2))  # z^2 / (df + z^2)
    return (
        (sp.digamma((df + 1) / 2) - sp.digamma(df / 2)) / 2
        - 1 / (2 * df)
        - log1p_w2 / 2
        + (df + 1) * frac / (2 * df)
    )


def _t_zdz(c: _Ctx, z: Any, df: Any) -> Any:
    """``z * d log g / dz = -(df + 1) w^2 / (1 + w^2)`` with ``w = z / sqrt(df)``: ``-(df + 1)``
    in the limit ``|z| -> inf`` (``1 / (1 + 1 / w^2)`` for ``|w| > 1``, no overflow)."""
    xp = c.xp
    w = xp.abs(z) / xp.sqrt(df)
    big = w > 1
    inv = 1 / xp.where(big, w, xp.ones_like(w))
    lo = xp.where(big, xp.zeros_like(w), w)
    return -(df + 1) * xp.where(big, 1 / (1 + inv * inv), lo * lo / (1 + lo * lo))


def _t_dz(c: _Ctx, z: Any, df: Any) -> Any:
    """``d log g / d z = -(df + 1) z / (df + z^2) = -(df + 1) / sqrt(df) w / (1 + w^2)`` with
    ``w = z / sqrt(df)``, as ``(1 / w) / (1 + 1 / w^2)`` for ``|w| > 1``: no overflow of ``z * z``
    (``-(df + 1) / z`` at ``|z| ~ 1e300``, not 0)."""
    xp = c.xp
    r = xp.sqrt(df)
    w = z / r
    big = xp.abs(w) > 1
    inv = 1 / xp.where(big, w, xp.ones_like(w))
    lo = xp.where(big, xp.zeros_like(w), w)
    frac = xp.where(big, inv / (1 + inv * inv), lo / (1 + lo * lo))
    return -(df + 1) / r * frac


_T = _Family(
    "t",
    ("df",),
    _t_logg,
    lambda c, z, df: _t_dz(c, z, df),
    (_t_ddf,),
    lambda x, df, loc=0, scale=1: None,
    zdz=_t_zdz,
)


def _gamma_logg(c: _Ctx, z: Any, a: Any) -> Any:
    return c.sp.xlogy(a - 1, z) - z - c.sp.gammaln(a)


_GAMMA = _Family(
    "gamma",
    ("a",),
    _gamma_logg,
    lambda c, z, a: (a - 1) / z - 1,
    (lambda c, z, a: c.xp.log(z) - c.sp.digamma(a),),
    lambda x, a, loc=0, scale=1: None,
    (0.0, math.inf),
)


def _beta_logg(c: _Ctx, z: Any, a: Any, b: Any) -> Any:
    sp = c.sp
    return sp.xlogy(a - 1, z) + sp.xlog1py(b - 1, -z) - sp.betaln(a, b)


_BETA = _Family(
    "beta",
    ("a", "b"),
    _beta_logg,
    lambda c, z, a, b: (a - 1) / z - (b - 1) / (1 - z),
    (
        lambda c, z, a, b: c.xp.log(z) - c.sp.digamma(a) + c.sp.digamma(a + b),
        lambda c, z, a, b: c.xp.log1p(-z) - c.sp.digamma(b) + c.sp.digamma(a + b),
    ),
    lambda x, a, b, loc=0, scale=1: None,
    (0.0, 1.0),
)


def _chi2_logg(c: _Ctx, z: Any, df: Any) -> Any:
    h = df / 2
    return c.sp.xlogy(h - 1, z) - z / 2 - h * math.log(2) - c.sp.gammaln(h)


_CHI2 = _Family(
    "chi2",
    ("df",),
    _chi2_logg,
    lambda c, z, df: (df / 2 - 1) / z - 0.5,
    (lambda c, z, df: (c.xp.log(z / 2) - c.sp.digamma(df / 2)) / 2,),
    lambda x, df, loc=0, scale=1: None,
    (0.0, math.inf),
)


def _family_examples(
    n_shapes: int,
    x: tuple[float, float],
    shape: tuple[float, float],
    unit: bool = False,
    ints: bool = False,
) -> Callable[[Any], list[Any]]:
    """Two examples: ``x`` and the shape parameters of shape ``(4,)`` with loc and scale arrays,
    then ``x`` of shape ``(2, 3)`` with parameters broadcast from ``(3,)`` and default loc/scale
    (``unit``: loc and scale keep ``x - loc`` inside ``[0, scale]`` for ``beta``; ``ints``:
    integer shape parameters, for the cdfs, whose derivative in them has no closed form)."""

    def examples(rng: Any) -> list[Any]:
        import numpy as np

        def par(n: int) -> Any:
            if ints:
                return np.arange(n) % 3 + math.ceil(shape[0])
            return rng.uniform(*shape, n)

        loc = rng.uniform(-0.1, 0.0, 4) if unit else rng.uniform(-0.5, 0.5, 4)
        scale = rng.uniform(1.15, 1.4, 4) if unit else rng.uniform(0.7, 1.5, 4)
        first = (rng.uniform(*x, 4), *(par(4) for _ in range(n_shapes)))
        second = (rng.uniform(*x, (2, 3)), *(par(3) for _ in range(n_shapes)))
        return [Example((*first, loc, scale), {}), Example(second, {})]

    return examples


_register_family(
    _NORM,
    ("pdf", "cdf", "logpdf", "logcdf", "sf", "logsf"),
    _family_examples(0, (-2.0, 2.0), (0, 0)),
)
for _fam, _x, _shape, _unit in (
    (_T, (-2.0, 2.0), (1.5, 6.0), False),
    (_GAMMA, (1.0, 3.0), (1.5, 4.0), False),
    (_BETA, (0.15, 0.85), (1.5, 4.0), True),
    (_CHI2, (1.0, 3.0), (2.5, 6.0), False),
):
    _n = len(_fam.shapes)
    _register_family(_fam, ("pdf", "logpdf"), _family_examples(_n, _x, _shape, _unit))
    _cdfs = ("cdf", "logcdf") if _fam is _T else ("cdf",)
    _register_family(_fam, _cdfs, _family_examples(_n, _x, _shape, _unit, ints=True))


# --- poisson ------------------------------------------------------------------------------------
def _poisson_kk(c: _Ctx) -> Any:
    return c.v["k"] - c.v["loc"]


def _poisson_dmu(method: str) -> Partial:
    def d(c: _Ctx) -> Any:
        xp, sp, mu = c.xp, c.sp, c.v["mu"]
        kk = _poisson_kk(c)
        if method == "cdf":
            # d/dmu gammaincc(floor(k) + 1, mu) = -pmf(floor(k), mu); 0 below the support
            fk = xp.floor(kk)
            r = -xp.exp(sp.xlogy(fk, mu) - mu - sp.gammaln(fk + 1))
            return xp.where(fk < 0, xp.zeros_like(r), r)
        r = kk / mu - 1
        if method == "pmf":
            return _masked(c, c.out * r)
        return xp.where(xp.isfinite(c.out), r, xp.zeros_like(r))  # logpmf: 0 outside the support

    return d


def _poisson_examples(rng: Any) -> list[Any]:
    import numpy as np

    return [
        Example((np.array([0, 1, 3, 5]), rng.uniform(0.5, 4.0, 4)), {}),
        Example((np.array([[1, 2, 4], [1, 3, 6]]), rng.uniform(0.5, 4.0, 3), 1), {}),
    ]


for _method in ("pmf", "cdf", "logpmf"):
    _name = f"poisson.{_method}"
    _register(
        _name,
        _elementwise(
            _name,
            signature(_name, lambda k, mu, loc=0: None),
            ("k", "mu", "loc"),
            (ZERO_PARTIAL, _poisson_dmu(_method), ZERO_PARTIAL),
        ),
        _poisson_examples,
    )


# --- dirichlet ----------------------------------------------------------------------------------
_DIRICHLET = signature("dirichlet", lambda x, alpha: None)


def _dirichlet_make(
    method: str,
) -> Callable[[Any, Source], tuple[Callable[..., Any], Callable[..., Any]]]:
    fname = f"dirichlet.{method}"

    def make(obj: Any, special: Source) -> tuple[Callable[..., Any], Callable[..., Any]]:
        sp = special.module

        def setup(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
            b = _DIRICHLET.bind(args, kwargs)
            x, alpha = b["x"], b["alpha"]
            xp = namespace_of(x, alpha, fname=fname)
            y = obj(*args, **kwargs)
            k = alpha.shape[0]
            full = x.shape[0] == k
            # the arguments' own dtypes for their cotangents; SciPy computes in y's (float64)
            own = (ProjectTo(x, xp), ProjectTo(alpha, xp))
            x, alpha = _in_dtype(xp, x, y), _in_dtype(xp, alpha, y)
            xx = x if full else xp.concat([x, 1 - xp.sum(x, axis=0, keepdims=True)], axis=0)
            a = xp.reshape(alpha, (k,) + (1,) * (x.ndim - 1))
            # d logpdf / d x (x completed by 1 - sum: the last entry's term moves onto each) and
            # d logpdf / d alpha, per sample (the samples on the axes after the first)
            gx = (a - 1) / xx
            if not full:
                gx = gx[:-1, ...] - gx[-1:, ...]
            ga = xp.log(xx) - sp.digamma(a) + sp.digamma(xp.sum(alpha))
            if method == "pdf":
                w = xp.reshape(y, (1, *x.shape[1:]))
                gx, ga = w * gx, w * ga
            return xp, y, x, alpha, gx, ga, own

        def dirichlet_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], Any]]:
            xp, y, x, _, gx, ga, (px, pa) = setup(args, kwargs)
            axes = tuple(range(1, x.ndim))

            @pullback(y, args, name=fname)
            def dirichlet_pullback(y_bar: Any) -> Any:
                # holomorphic in x (log x): conjugated partials, DESIGN's complex convention
                yb = xp.reshape(y_bar, (1, *x.shape[1:]))
                ab = yb * conj(xp, ga)
                return px(yb * conj(xp, gx)), pa(xp.sum(ab, axis=axes) if axes else ab)

            return y, dirichlet_pullback

        def dirichlet_frule(tangents: tuple[Any, ...], *args: Any, **kwargs: Any) -> Any:
            xp, y, x, alpha, gx, ga, _ = setup(args, kwargs)
            dots = tangents_in(fname, tangents, args)
            if dots is None:
                return y, ZERO
            acc: Any = None
            for t, g, arg in zip(dots, (gx, ga), (x, alpha)):
                if isinstance(t, AbstractZero):
                    continue
                if arg is alpha:  # (..., k) -> (..., k, 1, ...) against the samples
                    t = xp.reshape(t, tuple(t.shape) + (1,) * (x.ndim - 1))
                term = xp.sum(g * t, axis=dots.extra)
                acc = term if acc is None else acc + term
            return y, finish_tangent(xp, acc, y)

        return dirichlet_rrule, dirichlet_frule

    return make


def _dirichlet_examples(rng: Any) -> list[Any]:
    # x with one entry fewer than alpha (SciPy's and JAX's own completion by 1 - sum): a function
    # of free entries, so finite differences stay on the simplex
    p = rng.dirichlet([3.0, 3.0, 3.0, 3.0])
    q = rng.dirichlet([3.0, 3.0, 3.0], size=3).T
    return [
        Example((p[:3], rng.uniform(1.5, 4.0, 4)), {}, note="(3,) of 4"),
        Example((q[:2], rng.uniform(1.5, 4.0, 3)), {}, note="(2, 3) of 3"),
    ]


for _method in ("pdf", "logpdf"):
    _register(f"dirichlet.{_method}", _dirichlet_make(_method), _dirichlet_examples)


# --- multivariate_normal --------------------------------------------------------------------------
_MVN = signature("multivariate_normal", lambda x, mean=None, cov=1, allow_singular=False: None)
_MVN_ENTROPY = signature("multivariate_normal.entropy", lambda mean=None, cov=1: None)


def _real_part(xp: Any, v: Any) -> Any:
    """``v``'s real part where it is a complex array, ``v`` otherwise."""
    if is_array(v) and xp.isdtype(v.dtype, "complex floating"):
        return xp.real(v)
    return v


def _mvn_dim(name: str, mean: Any, cov: Any) -> int:
    """SciPy's dimension: from ``mean`` when given, else from ``cov``; SciPy's parameter shapes
    (``mean`` 0-d or 1-d, ``cov`` 0-d, 1-d diagonal or 2-d) are the ones the rule supports."""
    mn = getattr(mean, "ndim", 0)
    cn = getattr(cov, "ndim", 0)
    if mn > 1 or cn > 2:
        raise ValueError(
            f"multivariate_normal.{name}: the rule supports SciPy's parameter shapes (mean of "
            f"at most 1 dimension, cov of at most 2), got mean of shape "
            f"{tuple(getattr(mean, 'shape', ()))} and cov of shape "
            f"{tuple(getattr(cov, 'shape', ()))}"
        )
    if mean is not None and mn == 1:
        return int(mean.shape[0])
    return int(cov.shape[0]) if cn else 1


def _mvn_make(
    method: str,
) -> Callable[[Any, Source], tuple[Callable[..., Any], Callable[..., Any]]]:
    fname = f"multivariate_normal.{method}"

    def make(obj: Any, special: Source) -> tuple[Callable[..., Any], Callable[..., Any]]:
        def setup(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
            b = _MVN.bind(args, kwargs)
            x, mean, cov = b["x"], b["mean"], b["cov"]
            xp = namespace_of(*(v for v in (x, mean, cov) if is_array(v)), fname=fname)
            y = obj(*args, **kwargs)
            # SciPy reads x, mean and cov as real (np.asarray(..., dtype=float), with a
            # ComplexWarning): a complex argument's imaginary part moves nothing
            x, mean, cov = (_real_part(xp, v) for v in (x, mean, cov))
            n = _mvn_dim(method, mean, cov)
            dt = y.dtype
            # the samples, one per output element; a 0-d x is one point with every coordinate x
            # (SciPy broadcasts it to the mean's shape)
            xs = (
                xp.reshape(x, (-1, n)) if x.ndim else xp.broadcast_to(xp.reshape(x, (1, 1)), (1, n))
            )
            d = xs if mean is None else xs - xp.reshape(xp.asarray(mean, dtype=dt), (-1,))
            c = xp.asarray(cov, dtype=dt)
            if c.ndim == 2:
                inv = xp.linalg.pinv if b["allow_singular"] else xp.linalg.inv
                p = inv(c)
                u = d @ p  # cov^-1 (x - mean), per sample (p is symmetric)
            else:
                p = 1 / c
                u = d * p
            w = xp.reshape(y, (-1,)) if method == "pdf" else None
            return xp, y, x, mean, c, p, u, n, w

        def mvn_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], Any]]:
            xp, y, x, mean, c, p, u, n, w = setup(args, kwargs)
            projs = [ProjectTo(a, xp) if is_array(a) else None for a in args[:3]]

            @pullback(y, args, name=fname)
            def mvn_pullback(y_bar: Any) -> Any:
                yb = xp.reshape(y_bar, (-1,))
                if w is not None:
                    yb = yb * w  # d pdf = pdf d logpdf
                gu = yb[:, None] * u
                res: list[Any] = []
                if projs[0] is not None:  # a 0-d x: the sum over its n copies
                    gx = xp.reshape(-gu, x.shape) if x.ndim else -xp.sum(gu)
                    res.append(projs[0](gx))
                if len(args) > 1:
                    pm = projs[1]
                    res.append(NO if pm is None else pm(xp.reshape(xp.sum(gu, axis=0), mean.shape)))
                if len(args) > 2:
                    pc = projs[2]
                    if pc is None:
                        res.append(NO)
                    elif c.ndim == 2:  # -1/2 sum_s yb_s (P - u_s u_s^T)
                        res.append(pc(-(xp.sum(yb) * p - xp.matrix_transpose(gu) @ u) / 2))
                    elif c.ndim == 1:  # diagonal
                        res.append(pc(-(xp.sum(yb) * p - xp.sum(gu * u, axis=0)) / 2))
                    else:
                        res.append(pc(-(xp.sum(yb) * n * p - xp.sum(gu * u)) / 2))
                res.extend(NO for _ in args[3:])
                return res[0] if len(res) == 1 else tuple(res)

            return y, mvn_pullback

        def mvn_frule(tangents: tuple[Any, ...], *args: Any, **kwargs: Any) -> tuple[Any, Any]:
            xp, y, _, _, c, p, u, n, w = setup(args, kwargs)
            dots = tangents_in(fname, tangents, args)
            if dots is None:
                return y, ZERO
            m = u.shape[0]
            ext = tuple(y.shape[:0])
            acc: Any = None
            for i, (a, t) in enumerate(zip(args[:3], dots)):
                if isinstance(t, AbstractZero) or isinstance(zero_tangent(a), NoTangent):
                    continue
                ext = tuple(t.shape[: dots.extra])
                if i == 0:  # a 0-d x moves every coordinate of its point together
                    shape = (-1, m, n) if a.ndim else (-1, 1, 1)
                    term = -xp.sum(u * xp.reshape(t, shape), axis=-1)
                elif i == 1:
                    term = xp.sum(u * xp.reshape(t, (-1, 1, n)), axis=-1)
                elif c.ndim == 2:
                    tc = xp.reshape(t, (-1, n, n))
                    tr = xp.sum(p * tc, axis=(-2, -1))[:, None]
                    term = -(tr - xp.sum((u @ tc) * u, axis=-1)) / 2
                elif c.ndim == 1:
                    tc = xp.reshape(t, (-1, 1, n))
                    term = -xp.sum(tc * (p - u * u), axis=-1) / 2
                else:
                    tc = xp.reshape(t, (-1, 1))
                    term = -tc * (n * p - xp.sum(u * u, axis=-1)) / 2
                acc = term if acc is None else acc + term
            if acc is None:
                return y, ZERO
            if w is not None:
                acc = acc * w
            return y, finish_tangent(xp, xp.reshape(acc, ext + tuple(y.shape)), y)

        return mvn_rrule, mvn_frule

    return make


def _mvn_cov(rng: Any, n: int) -> Any:
    import numpy as np

    a = rng.standard_normal((n, n))
    return a @ a.T / n + np.eye(n)


def _mvn_examples(rng: Any) -> list[Any]:
    return [
        Example((rng.standard_normal((2, 3)), rng.standard_normal(3), _mvn_cov(rng, 3)), {}),
        Example((rng.standard_normal(2), rng.standard_normal(2), _mvn_cov(rng, 2)), {}),
    ]


for _method in ("pdf", "logpdf"):
    _register(f"multivariate_normal.{_method}", _mvn_make(_method), _mvn_examples, hermitian=(2,))


def _entropy_make(obj: Any, special: Source) -> tuple[Callable[..., Any], Callable[..., Any]]:
    fname = "multivariate_normal.entropy"

    def setup(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        b = _MVN_ENTROPY.bind(args, kwargs)
        mean, cov = b["mean"], b["cov"]
        xp = namespace_of(*(v for v in (mean, cov) if is_array(v)), fname=fname)
        y = obj(*args, **kwargs)
        n = _mvn_dim("entropy", mean, cov)
        c = xp.asarray(cov, dtype=y.dtype)
        # d entropy / d cov = cov^-1 / 2 (n / (2 c) for a scalar cov: c times the identity)
        g = xp.linalg.inv(c) / 2 if c.ndim == 2 else (1 / c if c.ndim == 1 else n / c) / 2
        return xp, y, g

    def entropy_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], Any]]:
        xp, y, g = setup(args, kwargs)
        projs = [ProjectTo(a, xp) if is_array(a) else None for a in args]

        @pullback(y, args, name=fname)
        def entropy_pullback(y_bar: Any) -> Any:
            res = [zero_tangent(a) for a in args]  # the entropy does not depend on the mean
            if len(args) > 1 and projs[1] is not None:
                res[1] = projs[1](y_bar * g)
            return res[0] if len(res) == 1 else tuple(res)

        return y, entropy_pullback

    def entropy_frule(tangents: tuple[Any, ...], *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        xp, y, g = setup(args, kwargs)
        dots = tangents_in(fname, tangents, args)
        if dots is None or len(args) < 2 or isinstance(dots[1], AbstractZero):
            return y, ZERO
        t = dots[1]
        axes = tuple(range(dots.extra, t.ndim))
        return y, finish_tangent(xp, xp.sum(g * t, axis=axes) if axes else g * t, y)

    return entropy_rrule, entropy_frule


def _entropy_examples(rng: Any) -> list[Any]:
    return [
        Example((rng.standard_normal(3), _mvn_cov(rng, 3)), {}),
        Example((None, _mvn_cov(rng, 2)), {}, note="mean None"),
    ]


_register("multivariate_normal.entropy", _entropy_make, _entropy_examples, hermitian=(1,))
