"""What the rules of ``scipy.linalg`` (``chainrules/rules/scipy/linalg/``) share: binding each
library's function (``_register``: each rule gets the function it was found for, its library's
``linalg`` module and its own signature), SciPy's zero-size batches and non-native byte orders,
and the small matrix helpers (triangles, folded right-hand sides, deferred shared solves).

``A^H`` is the conjugate transpose; cotangents follow DESIGN.md (``dL/dRe + i dL/dIm``), under
which the adjoint of ``X -> B X C`` is ``X̄ -> B^H X̄ C^H``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...core.prelude import *
from ...core.registry import Source
from .._util.linalg import _h
from .._util.linalg import _square_any as _square  # scipy.linalg's modules import it from here
from . import TraceableModule, lazy, zero_d_operands

# SciPy converts its inputs with numpy.asarray, which a guarded device array refuses
_GUARD = Expect(
    "scalar-free",
    "scipy.linalg converts its input with numpy.asarray, which a guarded device array refuses "
    "(that is SciPy's property; CuPy users have cupyx.scipy.linalg)",
)


# --- binding each library's function ------------------------------------------------------------
def _module_of(src: Source) -> Any:
    """The ``linalg`` module the registry found a function in (``src``), as the rules call it:
    SciPy's with its zero-size batches answered (:class:`_ZeroBatches`), another library's as is;
    each with ``library``, the library its registration declares (:func:`_is_jax`)."""
    if src.library == "scipy":
        return _ZeroBatches(src.module)
    return _Library(src.module, src.library)


class _Library:
    """A library's ``linalg`` module with the library its registration declares (``library``):
    attributes are the module's."""

    def __init__(self, mod: Any, library: str) -> None:
        self._mod, self.library = mod, library

    def __getattr__(self, name: str) -> Any:
        return getattr(self._mod, name)


class _ZeroBatches(TraceableModule):
    """SciPy's ``linalg`` module as the rules call it: its functions traceable
    (:class:`TraceableModule`), and ``solve_triangular`` and ``solve_sylvester`` answering a
    zero-size batch with their empty result: SciPy (>= 1.15, which broadcasts batch axes)
    refuses one ("does not support zero-size batches"), so the pullbacks of ``lu`` and
    ``sqrtm`` of a ``(0, n, n)`` stack raised. Shapes only: no value is read."""

    library = "scipy"

    def solve_triangular(self, a: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
        core_b = 2 if b.ndim >= 2 else 1
        empty = _empty_batch((a, 2), (b, core_b), out=(b, core_b))
        return (
            super().__getattr__("solve_triangular")(a, b, *args, **kwargs)
            if empty is None
            else empty
        )

    def solve_sylvester(self, a: Any, b: Any, q: Any, *args: Any, **kwargs: Any) -> Any:
        empty = _empty_batch((a, 2), (b, 2), (q, 2), out=(q, 2))
        return (
            super().__getattr__("solve_sylvester")(a, b, q, *args, **kwargs)
            if empty is None
            else empty
        )


def _empty_batch(*operands: tuple[Any, int], out: tuple[Any, int]) -> Any:
    """The zero-size result of a SciPy solver over broadcast batch axes (each operand with its
    number of core axes; the result has ``out``'s core axes), or None when the batch is not
    empty."""
    batch = np.broadcast_shapes(*(x.shape[: x.ndim - c] for x, c in operands))
    if 0 not in batch:
        return None
    core = out[0].shape[out[0].ndim - out[1] :]
    dtype = np.result_type(*(x.dtype for x, _ in operands), np.float32)
    return np.zeros((*batch, *core), dtype)


def _is_jax(mod: Any) -> bool:
    """Whether ``mod`` (as :func:`_module_of` gives it) is JAX's, as its registration declares."""
    return bool(mod.library == "jax")


def _register(name: str, rrule: Any, frule: Any, examples: Any, **meta: Any) -> None:
    """Register ``rrule(fn, mod, sig, *args, **kwargs)`` and ``frule(fn, mod, sig, tangents,
    *args, **kwargs)`` for ``"scipy:linalg.<name>"``; each library's function gets them bound to
    itself (``fn``), its module (``mod``) and its own signature (``sig``: JAX's keywords and
    positional order differ from SciPy's in places)."""

    def bind(obj: Any, kind: str, src: Source) -> Any:
        mod = _module_of(src)
        impl = rrule if kind == "r" else frule
        sig = signature(f"scipy.linalg.{name}", obj)  # this library's own signature
        # the primal's call traceable too, as the module's functions (TraceableModule)
        call = traceable(obj)

        def rule(*args: Any, **kwargs: Any) -> Any:
            if kind == "r":
                args, kwargs = _native(args), _native(kwargs)
            else:  # the tangents too: an frule's first argument
                args, kwargs = (args[0], *_native(args[1:])), _native(kwargs)
            return impl(call, mod, sig, *args, **kwargs)

        rule.__name__ = rule.__qualname__ = impl.__name__
        if zero_d is not None:  # SciPy reads a 0-d operand as [x] or [[x]]: so does the rule
            return zero_d_operands(*zero_d, frule=kind != "r")(rule)
        return rule

    zero_d = meta.pop("zero_d", None)
    expect = meta.pop("expect", ())
    expect = (expect,) if isinstance(expect, Expect) else tuple(expect)
    meta["expect"] = (*expect, _GUARD) if meta.pop("guarded", True) else expect
    target = f"scipy:linalg.{name}"
    register_rrule(target, bind_in=bind, examples=examples, **meta)(rrule)
    register_frule(target, bind_in=bind, examples=examples, **meta)(frule)


def _native(x: Any) -> Any:
    """``x`` with every NumPy array of a non-native byte order (``'>f8'`` on a little-endian
    machine) copied to the native one, inside tuples, lists and dicts too; anything else as is.

    SciPy's compiled routines read such an array's bytes as if they were native: ``inv``,
    ``lu`` and ``sqrtm`` return wrong values without a word (SciPy 1.17.1), ``det`` and
    ``expm`` raise "Big-endian buffer not supported". Every rule here therefore computes on the
    native copy: its primal is SciPy's at the same values (native dtype, as NumPy's own
    functions return for such input), and its cotangents are native too. Reads the dtype only,
    never a value."""
    t = type(x)
    if t is tuple or t is list:
        return t(_native(e) for e in x) if any(_foreign(e) for e in x) else x
    if t is dict:
        return {k: _native(v) for k, v in x.items()} if any(map(_foreign, x.values())) else x
    if _foreign(x):
        return x.astype(x.dtype.newbyteorder("="))
    return x


def _foreign(x: Any) -> bool:
    """Whether ``x`` is, or holds, a NumPy array of a non-native byte order."""
    if type(x) in (tuple, list):
        return any(map(_foreign, x))
    if type(x) is dict:
        return any(map(_foreign, x.values()))
    dt = getattr(x, "dtype", None)
    return isinstance(x, np.ndarray) and dt is not None and not dt.isnative


# --- small helpers -------------------------------------------------------------------------------
def _cplx(xp: Any, x: Any) -> bool:
    return bool(xp.isdtype(x.dtype, "complex floating"))


def _conj(xp: Any, x: Any) -> Any:
    return xp.conj(x) if _cplx(xp, x) else x


def _t(xp: Any, x: Any) -> Any:
    return xp.matrix_transpose(x)


def _first(sig: Any, args: Any, kwargs: Any, n: int = 1) -> tuple[list[Any], dict[str, Any]]:
    """The first ``n`` arguments of a call (whatever this library names them) and all by name."""
    b = sig.bind(args, kwargs)
    return list(b.values())[:n], b


def _square_call(
    name: str, fn: Any, sig: Any, args: Any, kwargs: Any
) -> tuple[Any, Any, dict[str, Any], Any]:
    """``(xp, a, bound, y)`` of a call of ``name``, a function of one square matrix ``a`` (its
    first argument): the namespace, ``a`` checked square, every argument by name, and the
    call's result -- the opening of the rrules of ``cholesky``, ``expm``, ``det`` & co."""
    (a,), b = _first(sig, args, kwargs)
    xp = namespace_of(a, fname=f"scipy.linalg.{name}")
    _square(name, a)
    return xp, a, b, fn(*args, **kwargs)


def _square_dot(
    name: str, fn: Any, sig: Any, tangents: Any, args: Any, kwargs: Any
) -> tuple[Any, Any, dict[str, Any], Any, Any]:
    """:func:`_square_call`'s ``(xp, a, bound, y)`` and ``a``'s tangents (``tangents_in``'s:
    None when they are all zero) -- the opening of the matching frules."""
    xp, a, b, y = _square_call(name, fn, sig, args, kwargs)
    return xp, a, b, y, tangents_in(name, tangents[:2], (a,))


def _pair_solve_dots(
    name: str, tangents: Any, pair: Any, factor: Any, rhs: Any
) -> tuple[Any, Any, int] | None:
    """The tangents of a solve with a factor pair (``cho_solve``'s ``(c, lower)``,
    ``lu_solve``'s ``(lu, piv)``, whose ``factor`` alone has a tangent) and right-hand sides
    ``rhs``: ``(d_factor, d_rhs, extra)``, each ``ZeroTangent()`` where zero, with ``extra``
    leading chunk axes; None when both are zero."""
    t = tangents_in(name, tangents[:3], (pair, rhs))
    df: Any = ZERO if t is None or isinstance(t[0], AbstractZero) else t[0][0]
    db = ZERO if t is None else t[1]
    if isinstance(df, AbstractZero) and isinstance(db, AbstractZero):
        return None
    extra = t.extra if t is not None and not isinstance(db, AbstractZero) else df.ndim - factor.ndim
    return df, db, extra


def _nz(x: Any) -> Any:
    return None if isinstance(x, AbstractZero) else x


def _lapack_float(xp: Any, a: Any) -> Any:
    """``a``, with float16 cast to float32 for the pullback's own factorisations: LAPACK (NumPy's
    ``linalg``, SciPy's ``lu_factor``) refuses float16, and SciPy's ``det`` and ``polar`` upcast it
    for their computation as well. The cotangents are projected back onto ``a``'s dtype."""
    f16 = getattr(xp, "float16", None)
    return xp.astype(a, xp.float32) if f16 is not None and a.dtype == f16 else a


def _refuse(name: str, what: str, value: Any, allowed: Any) -> None:
    if value not in allowed:
        raise ValueError(f"{name}: the rule supports {what} in {allowed!r}, got {value!r}")


def _fold(xp: Any, r: Any, extra: int, vec: bool) -> tuple[Any, Any]:
    """A chunk of right-hand sides ``(*chunk, n)`` or ``(*chunk, n, m)`` as one ``(n, K)``
    matrix, and the function that unfolds a result: 2-D solvers then take the whole chunk in
    one call."""
    lead = tuple(r.shape[:extra])
    k = math.prod(lead)
    n = r.shape[extra]
    if vec:
        folded = _t(xp, xp.reshape(r, (k, n)))
        return folded, lambda z: xp.reshape(_t(xp, z), (*lead, z.shape[0]))
    m = r.shape[-1]
    folded = xp.reshape(xp.permute_dims(xp.reshape(r, (k, n, m)), (1, 0, 2)), (n, k * m))

    def unfold(z: Any) -> Any:
        z = xp.permute_dims(xp.reshape(z, (z.shape[0], k, m)), (1, 0, 2))
        return xp.reshape(z, (*lead, z.shape[1], m))

    return folded, unfold


def _tri(xp: Any, a: Any, lower: bool, unit: bool) -> Any:
    """The triangle of ``a`` that a triangular solve reads (with a unit diagonal if ``unit``)."""
    t = xp.tril(a, k=-int(unit)) if lower else xp.triu(a, k=int(unit))
    if unit:
        t = t + xp.eye(a.shape[-1], dtype=a.dtype, device=device_of(a))
    return t


def _keep(xp: Any, g: Any, lower: bool, unit: bool) -> Any:
    """``g`` on the triangle that was read (the adjoint of :func:`_tri`)."""
    return xp.tril(g, k=-int(unit)) if lower else xp.triu(g, k=int(unit))


def _outer(xp: Any, p: Any, q: Any, vec: bool) -> Any:
    """``p q^H`` (``p``, ``q`` vectors when ``vec``, else matrices)."""
    if vec:
        return xp.expand_dims(p, axis=-1) * xp.expand_dims(_conj(xp, q), axis=-2)
    return p @ _h(xp, q)


def _mat(xp: Any, x: Any, vec: bool) -> Any:
    return xp.expand_dims(x, axis=-1) if vec else x


def _once(fn: Any) -> Any:
    """``fn`` computed at most once, on the first call: the solve that two deferred cotangents
    share (the contract's "only the cotangents asked for", docs/conventions.md), done by
    whichever is forced first. Made inside each pullback call, so pullbacks stay pure."""
    memo: list[Any] = []

    def get() -> Any:
        if not memo:
            memo.append(fn())
        return memo[0]

    return get


def _pair(p: Any, primal: Any, fn: Any) -> Any:
    """The cotangent ``Tangent(p(fn()), NoTangent())`` of a factor pair such as ``(c, lower)`` or
    ``(lu, piv)``. Computed, not deferred: ``cr.testing``'s frule check reads a tuple argument's
    cotangent as a ``Tangent`` without forcing it, and ``chainrules.ad`` indexes it (``out[i][j]``),
    which a ``Thunk`` does not support."""
    return Tangent(p(fn()), NO, primal_type=type(primal))


def _pair_solve_bars(p: Any, pair: Any, factor_bar: Any, pb: Any, b_bar: Any, n: int) -> Any:
    """The cotangents of a solve with a factor pair (``cho_solve``, ``lu_solve``): the pair's
    (:func:`_pair` of ``factor_bar``, projected by ``p``), the right-hand sides' ``b_bar()``
    deferred (projected by ``pb``), and ``NoTangent()`` for the other ``n - 2`` arguments."""
    return (_pair(p, pair, factor_bar), lazy(pb, lambda: pb(b_bar())), *[NO] * (n - 2))


_TRANS = {0: 0, 1: 1, 2: 2, "N": 0, "T": 1, "C": 2}


def _trans(name: str, trans: Any) -> int:
    if trans not in _TRANS:
        raise ValueError(f"{name}: trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}")
    return _TRANS[trans]


def _op(xp: Any, m: Any, trans: int) -> Any:
    return m if trans == 0 else (_t(xp, m) if trans == 1 else _h(xp, m))


def _trsm(mod: Any, xp: Any, a: Any, r: Any, extra: int, vec: bool, **kw: Any) -> Any:
    """``solve_triangular(a, r, **kw)`` for right-hand sides with ``extra`` leading chunk axes."""
    if extra and a.ndim == 2:
        folded, unfold = _fold(xp, r, extra, vec)
        return unfold(mod.solve_triangular(a, folded, **kw))
    return mod.solve_triangular(a, r, **kw)


def _general_ex(rng: Any, n: int, cplx: bool = False) -> Any:
    import numpy as np

    a = 0.4 * (rng.standard_normal((n, n)) + (1j * rng.standard_normal((n, n)) if cplx else 0))
    # well conditioned, with its rows in reverse order: partial pivoting permutes them
    return (a + 1.5 * np.eye(n))[::-1]


def _gather(xp: Any, v: Any, idx: Any) -> Any:
    """``v[..., idx]`` for a host index matrix ``idx`` (a NumPy integer array)."""
    flat = xp.asarray(idx.reshape(-1), device=device_of(v))
    return xp.reshape(xp.take(v, flat, axis=-1), (*v.shape[:-1], *idx.shape))


def _zeros_of(xp: Any, like: Any, n: int) -> Any:
    return xp.zeros((*like.shape[:-1], n), dtype=like.dtype, device=device_of(like))
