"""Rules for the decompositions of the ``linalg`` extension -- ``cholesky``, ``eigh``,
``eigvalsh``, ``qr``, ``svd``, ``svdvals`` -- with NumPy's signatures (``numpy:linalg.eigh``,
``eigvalsh``, ``qr``, ``svd``), and ``matrix_rank`` (non-differentiable: an integer).

Every rule works on stacks of matrices (leading batch axes), real and complex, and pushes chunks
of tangents (extra leading axes) in one call. ``A^H`` is the conjugate transpose, ``∘`` the
elementwise product, and cotangents follow the project's complex convention
(``dL/dRe + i dL/dIm``), under which the adjoint of ``X -> B X C`` is ``X̄ -> B^H X̄ C^H``.

Conventions
-----------
* **Hermitian inputs** (``cholesky``, ``eigh``, ``eigvalsh``, ``svd(hermitian=True)``): these
  read one triangle of the matrix. The rules treat the function as one of the Hermitian part
  ``(A + A^H) / 2`` -- as JAX (which symmetrises its input) and PyTorch do: the cotangent is
  Hermitian, and a tangent is symmetrised before it is pushed forward. The cotangent is therefore
  the gradient for *Hermitian* perturbations, whichever triangle (``UPLO``, ``upper``) is read.
* **Degenerate spectra** (``eigh``, ``svd``): the eigenvector terms carry ``F_ij = 1 / (w_j -
  w_i)``, which is 0 where ``|w_j - w_i| <= 10 max(n, 1) eps max|w|``: the rotation inside a
  degenerate eigenspace (which the outputs do not determine) is dropped. For ``svd``,
  ``1 / (s_j^2 - s_i^2)`` is split as ``1 / (2 (s_j - s_i)) +- 1 / (2 (s_j + s_i))`` and only the
  first part is dropped at a tie. ``1 / s`` is 0 for singular values within the tolerance of 0.
  The result is always finite, and exact for losses that do not depend on that rotation:
  functions of the eigenvalues symmetric within a cluster (``sum(w)``, ``sum(h(w))``), projectors
  onto whole clusters, the polar factor ``U Vh``. For ``V diag(g(w)) V^H`` with ``g'`` non-zero
  on a repeated eigenvalue the exact derivative needs ``g'`` inside the cluster, which the
  cotangents of ``(w, V)`` do not carry: the result is finite but misses that term (JAX and
  PyTorch return NaN there).
* **Gauge**: eigenvectors and singular vectors are defined up to a sign (a phase for complex
  inputs). The pushforwards fix it as JAX does: ``V^H dV`` has a zero diagonal for ``eigh``;
  for ``svd`` ``V^H dV`` has a zero diagonal and ``U^H dU`` an imaginary one
  ``i Im(diag(U^H dA V)) / s``. LAPACK fixes complex phases differently, so for complex inputs
  only gauge-invariant losses can be compared with finite differences.
* **Non-unique parts**: ``svd(full_matrices=True)`` and ``qr(mode="complete")`` of an ``m x n``
  matrix return ``max(m, n) - min(m, n)`` extra basis vectors of the orthogonal complement,
  which are arbitrary. Their tangent is the smallest one that keeps the basis orthonormal,
  ``dU2 = -U1 (dU1^H U2)``, and the pullback is its adjoint (``U1_bar -= U2 U2_bar^H U1``): a
  consistent choice, exact for losses that use the complement only through its projector
  ``U2 U2^H = I - U1 U1^H``. (JAX raises for these cases.)
* ``qr`` assumes LAPACK's real diagonal of ``R`` and a first ``min(m, n)`` columns of full rank;
  ``numpy`` ``mode="r"`` gives ``R``'s rule, ``mode="raw"`` is rejected (Householder data).

Maths notes
-----------
* ``cholesky`` (``A = L L^H``): ``dL = L Φ(L^-1 dA L^-H)``, ``Φ(X) = (tril(X) + tril(X, -1)) / 2``;
  ``A_bar = L^-H (P + P^H) L^-1 / 2`` with ``P = Φ(L^H tril(L_bar))``. ``upper=True`` is
  ``L^H``. The pullback is made of ``matmul``, ``linalg.solve``, ``matrix_transpose``, ``conj``
  and ``tril`` only -- functions with rules -- so it can be differentiated again. The standard
  has no triangular solve: each ``L^-1``/``L^-H`` is a general ``solve`` (an LU factorisation,
  about ``2.7 n^3`` flops for ``n`` right-hand sides, instead of ``n^3`` for a triangular solve).
* ``eigh`` (``A = V diag(w) V^H``): ``K = V^H dA V``, ``dw = Re diag(K)``, ``dV = V (F ∘ K)``;
  ``A_bar = herm(V (diag(w_bar) + F ∘ (V^H V_bar)) V^H)``; ``eigvalsh``:
  ``A_bar = V diag(w_bar) V^H``.
* ``svd`` (reduced, ``k = min(m, n)``, ``P = U^H dA V``, ``F_ij = 1 / (s_j^2 - s_i^2)``, split
  as above):
  ``ds = Re diag(P)``, ``dU = U (F ∘ (P S + S P^H) + i Im diag(P) / S) + (I - U U^H) dA V S^-1``,
  ``dV = V (F ∘ (S P + P^H S)) + (I - V V^H) dA^H U S^-1``; the pullback is its adjoint
  (``J = U^H U_bar``, ``L = V^H V_bar``):
  ``A_bar = U (diag(s_bar) + (F ∘ (J - J^H)) S + S (F ∘ (L - L^H)) + i Im diag(J) / S) V^H
  + (I - U U^H) U_bar S^-1 V^H + U S^-1 V_bar^H (I - V V^H)``. ``svdvals``: ``U diag(s_bar) V^H``.
* ``qr`` (``m >= n``; ``X = dA R^-1``, ``C = Q^H X``, ``Ω = tril(C, -1) - tril(C, -1)^H + i Im
  diag(C)``): ``dQ = Q (Ω - C) + X``, ``dR = (C - Ω) R``; the pullback is
  ``A_bar = (Q_bar + Q herm_u(R_bar R^H - Q^H Q_bar)) R^-H`` with ``herm_u(M)`` the Hermitian
  matrix with ``M``'s strict upper triangle and ``Re diag(M)``. Wide ``A = [X | Y]`` (``m < n``):
  ``X = Q R1`` is a square QR and ``R2 = Q^H Y``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...core.namespaces import device_of, namespace_of
from ...core.projection import ProjectTo
from ...core.registry import register_frule, register_rrule
from ...core.scalar_rule import non_differentiable
from ...core.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, unthunk
from .._util import cotangent, in_dtype, numpy_kwargs, tangent_extra

_NO = NoTangent()
_ZERO = ZeroTangent()


# --- small helpers (standard functions only: every one has a rule) ------------------------------
def _complex(xp: Any, x: Any) -> bool:
    return bool(xp.isdtype(x.dtype, "complex floating"))


def _h(xp: Any, x: Any) -> Any:
    """``x^H``: the conjugate transpose of the last two axes."""
    t = xp.matrix_transpose(x)
    return xp.conj(t) if _complex(xp, t) else t


def _herm(xp: Any, x: Any) -> Any:
    """The Hermitian part ``(x + x^H) / 2``."""
    return (x + _h(xp, x)) / 2


def _re(xp: Any, x: Any) -> Any:
    return xp.real(x) if _complex(xp, x) else x


def _eye_times(xp: Any, v: Any, dtype: Any) -> Any:
    """``diag(v)`` over the last axis of ``v`` (stacked), in ``dtype``."""
    n = v.shape[-1]
    return xp.eye(n, dtype=dtype, device=device_of(v)) * v[..., None, :]


def _tolerance(xp: Any, w: Any, n: int) -> Any:
    """``10 max(n, 1) eps max|w|`` per matrix, shaped ``(..., 1, 1)``: gaps below it are ties."""
    eps = float(xp.finfo(w.dtype).eps)
    if w.shape[-1] == 0:
        return xp.zeros((*w.shape[:-1], 1, 1), dtype=w.dtype, device=device_of(w))
    scale = xp.max(xp.abs(w), axis=-1, keepdims=True)
    return (10.0 * max(n, 1) * eps) * scale[..., None]


def _inverse_gaps(xp: Any, w: Any, n: int, plus: bool = False) -> Any:
    """``F_ij = 1 / (w_j - w_i)`` (``1 / (w_j + w_i)`` with ``plus``) over the last axis of
    ``w``, stacked: 0 on the diagonal and wherever the denominator is within
    ``10 max(n, 1) eps max|w|`` of 0 (a repeated eigen- or singular value: the gauge-dependent
    term is dropped, never NaN). A mask and ``where``: nothing is read on the host."""
    d = w[..., None, :] + w[..., :, None] if plus else w[..., None, :] - w[..., :, None]
    small = xp.abs(d) <= _tolerance(xp, w, n)
    if plus:
        small = small | xp.astype(xp.eye(w.shape[-1], dtype=w.dtype, device=device_of(w)), xp.bool)
    return xp.where(small, xp.zeros_like(d), 1 / xp.where(small, xp.ones_like(d), d))


def _safe_inverse(xp: Any, s: Any, n: int) -> Any:
    """``1 / s`` with 0 where ``s`` is within the tie tolerance of 0 (a zero singular value)."""
    small = s <= _tolerance(xp, s, n)[..., 0]
    return xp.where(small, xp.zeros_like(s), 1 / xp.where(small, xp.ones_like(s), s))


def _solve(xp: Any, a: Any, b: Any) -> Any:
    """``linalg.solve(a, b)`` for stacks of right-hand sides ``b`` (``(..., n, k)``) whose batch
    axes extend ``a``'s (a chunk of tangents): ``a`` is broadcast first, as CuPy requires."""
    batch = tuple(b.shape[:-2])
    if tuple(a.shape[:-2]) != batch:
        a = xp.broadcast_to(a, (*batch, *a.shape[-2:]))
    return xp.linalg.solve(a, b)


def _square(name: str, x: Any) -> None:
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(
            f"{name}: expected a (stack of) square matrices, got shape {tuple(x.shape)}"
        )


def _matrix(name: str, x: Any) -> None:
    if x.ndim < 2:
        raise ValueError(f"{name}: expected a (stack of) matrices, got shape {tuple(x.shape)}")


def _parts(name: str, y_bar: Any, y: Any) -> list[Any]:
    """The cotangents of a tuple output ``y`` (a ``Tangent``, tuple or list, named fields too), one
    per element, forced and shape-checked; ``None`` for a zero one."""
    y_bar = unthunk(y_bar)
    n = len(y)
    if isinstance(y_bar, AbstractZero):
        return [None] * n
    if isinstance(y_bar, Tangent):
        if y_bar.is_sequence:
            elems = list(y_bar.elements())
        else:
            names = getattr(type(y), "_fields", None) or getattr(y_bar.primal_type, "_fields", None)
            elems = [getattr(y_bar, f) for f in names or ()]
    elif isinstance(y_bar, (tuple, list)):
        elems = list(y_bar)
    else:
        raise TypeError(
            f"{name}: the cotangent of a {n}-tuple output must be a Tangent, tuple or list, "
            f"got {type(y_bar).__name__}"
        )
    if len(elems) != n:
        raise ValueError(f"{name}: the cotangent has {len(elems)} parts for {n} outputs")
    out: list[Any] = []
    for e, v in zip(elems, y):
        e = unthunk(e)
        out.append(None if isinstance(e, AbstractZero) else cotangent(name, e, v))
    return out


def _tuple_tangent(y: Any, parts: list[Any]) -> Any:
    if all(p is None for p in parts):
        return _ZERO
    return Tangent(*(_ZERO if p is None else p for p in parts), primal_type=type(y))


def _input_tangent(name: str, tangents: Any, x: Any) -> Any:
    """The input's tangent, forced (``None`` for a zero one); its shape is checked."""
    t = unthunk(tangents[1])
    if isinstance(t, AbstractZero):
        return None
    tangent_extra(name, t, x)
    return t


def _parse(
    name: str, args: tuple[Any, ...], kwargs: dict[str, Any], order: tuple[str, ...]
) -> tuple[Any, dict[str, Any]]:
    """``x`` and NumPy's parameters, from positional ``order`` and keywords."""
    if not args:
        raise TypeError(f"{name} needs an array argument")
    if len(args) > 1 + len(order):
        raise TypeError(
            f"{name} takes at most {1 + len(order)} positional arguments, got {len(args)}"
        )
    params = dict(zip(order, args[1:]))
    for k, v in kwargs.items():
        if k in params:
            raise TypeError(f"{name} got multiple values for argument {k!r}")
        params[k] = v
    numpy_kwargs(name, params, ())
    params.pop("out", None)
    unknown = set(params) - set(order)
    if unknown:
        raise TypeError(f"{name} got unexpected keyword arguments {sorted(unknown)}")
    return args[0], params


# --- cholesky ----------------------------------------------------------------------------------
def _phi(xp: Any, m: Any) -> Any:
    """``Φ(M)``: the lower triangle with the diagonal halved."""
    return (xp.tril(m) + xp.tril(m, k=-1)) / 2


def cholesky_back(factor: Any, factor_bar: Any, upper: bool = False) -> Any:
    """The pullback of ``cholesky``: the Hermitian cotangent of ``A`` given the factor
    (``L``, or ``U = L^H`` with ``upper``) and its cotangent.

    ``A_bar = L^-H (P + P^H) L^-1 / 2`` with ``P = Φ(L^H tril(L_bar))``, built from ``matmul``,
    ``linalg.solve``, ``matrix_transpose``, ``conj`` and ``tril`` only, so that it can be
    differentiated again. Two general solves stand in for the triangular ones the standard lacks.
    """
    xp = namespace_of(factor, factor_bar)
    if upper:
        factor, factor_bar = _h(xp, factor), _h(xp, factor_bar)
    lh = _h(xp, factor)
    p = _phi(xp, lh @ xp.tril(factor_bar))
    x1 = xp.linalg.solve(lh, p + _h(xp, p))  # L^-H S
    a0 = xp.linalg.solve(lh, _h(xp, x1))  # L^-H S L^-1, conjugate-transposed (it is Hermitian)
    return (a0 + _h(xp, a0)) / 4


def _cholesky_dot(xp: Any, factor: Any, x_dot: Any, upper: bool) -> Any:
    low = _h(xp, factor) if upper else factor
    y = _solve(xp, low, _herm(xp, x_dot))  # L^-1 dA
    z = _solve(xp, low, _h(xp, y))  # (L^-1 dA L^-H)^H = L^-1 dA L^-H
    d = low @ _phi(xp, z)
    return _h(xp, d) if upper else d


@register_rrule("linalg.cholesky", examples=lambda rng: _cholesky_ex(rng), hermitian=(0,))
def _cholesky_rrule(x: Any, /, *, upper: bool = False) -> Any:
    xp = namespace_of(x, fname="linalg.cholesky")
    _square("linalg.cholesky", x)
    y = xp.linalg.cholesky(x, upper=upper)
    project = ProjectTo(x, xp)

    def cholesky_pullback(y_bar: Any) -> tuple[Any, Any]:
        if isinstance(y_bar, AbstractZero):
            return _NO, _ZERO
        y_bar = cotangent("linalg.cholesky", y_bar, y)
        return _NO, project(cholesky_back(y, y_bar, upper=upper))

    return y, cholesky_pullback


@register_frule("linalg.cholesky", examples=lambda rng: _cholesky_ex(rng), hermitian=(0,))
def _cholesky_frule(tangents: Any, x: Any, /, *, upper: bool = False) -> Any:
    xp = namespace_of(x, fname="linalg.cholesky")
    _square("linalg.cholesky", x)
    y = xp.linalg.cholesky(x, upper=upper)
    t = _input_tangent("linalg.cholesky", tangents, x)
    if t is None:
        return y, _ZERO
    return y, in_dtype(xp, _cholesky_dot(xp, y, t, upper), y.dtype)


# --- eigh, eigvalsh ----------------------------------------------------------------------------
class _Eigh:
    """An ``eigh``/``eigvalsh`` call (standard or NumPy signature): ``w``, ``V`` and the parts
    of the derivative."""

    def __init__(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], numpy: bool):
        self.name = name
        if numpy:
            x, params = _parse(name, args, kwargs, ("UPLO",))
        else:
            if len(args) != 1:
                raise TypeError(f"{name} takes 1 positional argument, got {len(args)}")
            _parse(name, args, kwargs, ())
            x, params = args[0], {}
        self.xp = xp = namespace_of(x, fname=name)
        _square(name, x)
        self.x, self.nargs = x, len(args)
        uplo = params.get("UPLO", "L")
        if uplo not in ("L", "U", "l", "u"):
            raise ValueError(f"{name}: UPLO must be 'L' or 'U', got {uplo!r}")
        res = xp.linalg.eigh(x) if uplo in ("L", "l") else xp.linalg.eigh(x, UPLO=uplo)
        self.res = res
        self.w, self.v = res[0], res[1]

    def back(self, w_bar: Any, v_bar: Any) -> Any:
        """``herm(V (diag(w_bar) + F ∘ (V^H V_bar)) V^H)``."""
        xp, w, v = self.xp, self.w, self.v
        inner = None
        if v_bar is not None:
            inner = _inverse_gaps(xp, w, w.shape[-1]) * (_h(xp, v) @ v_bar)
        if w_bar is not None:
            d = _eye_times(xp, w_bar, v.dtype)
            inner = d if inner is None else inner + d
        if inner is None:
            return None
        return _herm(xp, v @ inner @ _h(xp, v))

    def dot(self, x_dot: Any, vectors: bool) -> tuple[Any, Any]:
        xp, w, v = self.xp, self.w, self.v
        k = _h(xp, v) @ _herm(xp, x_dot) @ v
        w_dot = _re(xp, xp.linalg.diagonal(k))
        v_dot = v @ (_inverse_gaps(xp, w, w.shape[-1]) * k) if vectors else None
        return in_dtype(xp, w_dot, w.dtype), v_dot

    def rest(self) -> tuple[Any, ...]:
        return (_NO,) * (self.nargs - 1)


def _eigh_rules(numpy: bool) -> tuple[Callable[..., Any], Callable[..., Any]]:
    def eigh_rrule(*args: Any, **kwargs: Any) -> Any:
        c = _Eigh("linalg.eigh", args, kwargs, numpy)
        project = ProjectTo(c.x, c.xp)

        def eigh_pullback(y_bar: Any) -> tuple[Any, ...]:
            w_bar, v_bar = _parts("linalg.eigh", y_bar, c.res)
            g = c.back(w_bar, v_bar)
            return (_NO, _ZERO if g is None else project(g), *c.rest())

        return c.res, eigh_pullback

    def eigh_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        c = _Eigh("linalg.eigh", args, kwargs, numpy)
        t = _input_tangent("linalg.eigh", tangents, c.x)
        if t is None:
            return c.res, _ZERO
        return c.res, _tuple_tangent(c.res, list(c.dot(t, vectors=True)))

    return eigh_rrule, eigh_frule


def _eigvalsh_rules(numpy: bool) -> tuple[Callable[..., Any], Callable[..., Any]]:
    def eigvalsh_rrule(*args: Any, **kwargs: Any) -> Any:
        c = _Eigh("linalg.eigvalsh", args, kwargs, numpy)
        project = ProjectTo(c.x, c.xp)

        def eigvalsh_pullback(y_bar: Any) -> tuple[Any, ...]:
            if isinstance(y_bar, AbstractZero):
                return (_NO, _ZERO, *c.rest())
            y_bar = cotangent("linalg.eigvalsh", y_bar, c.w)
            return (_NO, project(c.back(y_bar, None)), *c.rest())

        return c.w, eigvalsh_pullback

    def eigvalsh_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        c = _Eigh("linalg.eigvalsh", args, kwargs, numpy)
        t = _input_tangent("linalg.eigvalsh", tangents, c.x)
        if t is None:
            return c.w, _ZERO
        return c.w, c.dot(t, vectors=False)[0]

    return eigvalsh_rrule, eigvalsh_frule


# --- the orthonormal complement of svd(full_matrices=True) and qr(mode="complete") -----------
def _complement_dot(xp: Any, q1: Any, q2: Any, dq1: Any) -> Any:
    """``dQ2 = -Q1 (dQ1^H Q2)``: the smallest tangent keeping ``[Q1 Q2]`` orthonormal."""
    return -(q1 @ (_h(xp, dq1) @ q2))


def _complement_back(xp: Any, q1: Any, q2: Any, q1_bar: Any, q2_bar: Any) -> Any:
    """The adjoint of :func:`_complement_dot`: ``Q1_bar - Q2 (Q2_bar^H Q1)``."""
    if q2_bar is None:
        return q1_bar
    extra = -(q2 @ (_h(xp, q2_bar) @ q1))
    return extra if q1_bar is None else q1_bar + extra


# --- svd, svdvals ------------------------------------------------------------------------------
class _Svd:
    """An ``svd`` call: the reduced factors ``U (m x k)``, ``s``, ``Vh (k x n)`` and, for
    ``full_matrices`` with ``m != n``, the complement bases."""

    def __init__(
        self, name: str, xp: Any, x: Any, full: bool, hermitian: bool, res: Any, uv: bool
    ) -> None:
        self.name, self.xp, self.x = name, xp, x
        self.hermitian = hermitian
        m, n = x.shape[-2], x.shape[-1]
        self.m, self.n, self.k = m, n, min(m, n)
        k = self.k
        self.res = res
        if uv:
            u, s, vh = res[0], res[1], res[2]
        else:
            u, s, vh = None, res, None
        self.s = s
        self.full = full and uv and m != n
        if u is not None:
            self.u, self.vh = u[..., :, :k], vh[..., :k, :]
            self.u2 = u[..., :, k:] if self.full and m > k else None
            self.vh2 = vh[..., k:, :] if self.full and n > k else None

    def _sym(self, g: Any) -> Any:
        return _herm(self.xp, g) if self.hermitian else g

    def back(self, u_bar: Any, s_bar: Any, vh_bar: Any) -> Any:
        xp, s, u, vh, m, n, k = self.xp, self.s, self.u, self.vh, self.m, self.n, self.k
        dtype = u.dtype
        if self.full:
            if self.u2 is not None and u_bar is not None:
                u_bar, u2_bar = u_bar[..., :, :k], u_bar[..., :, k:]
                u_bar = _complement_back(xp, u, self.u2, u_bar, u2_bar)
            if self.vh2 is not None and vh_bar is not None:
                vh_bar, vh2_bar = vh_bar[..., :k, :], vh_bar[..., k:, :]
                v_bar = _complement_back(
                    xp, _h(xp, vh), _h(xp, self.vh2), _h(xp, vh_bar), _h(xp, vh2_bar)
                )
                vh_bar = _h(xp, v_bar)
        v = _h(xp, vh)
        inner = None
        outer = None  # terms outside U (...) V^H
        sinv = _safe_inverse(xp, s, max(m, n))
        ja = la = None  # J - J^H, L - L^H
        if u_bar is not None:
            j = _h(xp, u) @ u_bar
            ja = j - _h(xp, j)
            if _complex(xp, j):
                dj = xp.linalg.diagonal(j)
                inner = _eye_times(xp, (dj - xp.conj(dj)) / 2 * sinv, dtype)
            if m > k:
                outer = ((u_bar - u @ j) * sinv[..., None, :]) @ vh
        if vh_bar is not None:
            v_bar = _h(xp, vh_bar)
            lm = vh @ v_bar
            la = lm - _h(xp, lm)
            if n > k:
                o = u @ (sinv[..., :, None] * _h(xp, v_bar - v @ lm))
                outer = o if outer is None else outer + o
        if ja is not None or la is not None:
            # F_ij (Ja_ij s_j + s_i La_ij), F = 1 / (s_j^2 - s_i^2), split by partial fractions
            # so that a tie (s_i = s_j) drops only the term that the outputs do not determine
            both = ja if la is None else (la if ja is None else ja + la)
            diff = ja if la is None else (-la if ja is None else ja - la)
            term = (
                _inverse_gaps(xp, s, max(m, n)) * both
                + _inverse_gaps(xp, s, max(m, n), True) * diff
            ) / 2
            inner = term if inner is None else inner + term
        if s_bar is not None:
            d = _eye_times(xp, s_bar, dtype)
            inner = d if inner is None else inner + d
        if inner is None:
            return None
        g = u @ inner @ vh
        if outer is not None:
            g = g + outer
        return self._sym(g)

    def back_s(self, s_bar: Any) -> Any:
        """``U diag(s_bar) V^H`` (the pullback of the singular values alone)."""
        xp = self.xp
        return self._sym((self.u * xp.astype(s_bar, self.u.dtype)[..., None, :]) @ self.vh)

    def dot(self, x_dot: Any, vectors: bool) -> tuple[Any, Any, Any]:
        xp, s, u, vh, m, n, k = self.xp, self.s, self.u, self.vh, self.m, self.n, self.k
        if self.hermitian:
            x_dot = _herm(xp, x_dot)
        v = _h(xp, vh)
        av = x_dot @ v
        p = _h(xp, u) @ av
        s_dot = in_dtype(xp, _re(xp, xp.linalg.diagonal(p)), s.dtype)
        if not vectors:
            return None, s_dot, None
        sinv = _safe_inverse(xp, s, max(m, n))
        ph = _h(xp, p)
        # F ∘ (P S + S P^H) and F ∘ (S P + P^H S), F_ij = 1 / (s_j^2 - s_i^2), by partial
        # fractions: (P + P^H) / (2 (s_j - s_i)) +- (P - P^H) / (2 (s_j + s_i))
        fm = _inverse_gaps(xp, s, max(m, n)) * (p + ph) / 2
        fp = _inverse_gaps(xp, s, max(m, n), True) * (p - ph) / 2
        inner_u = fm + fp
        if _complex(xp, p):
            dp = xp.linalg.diagonal(p)
            inner_u = inner_u + _eye_times(xp, (dp - xp.conj(dp)) / 2 * sinv, u.dtype)
        du = u @ inner_u
        if m > k:
            du = du + (av - u @ p) * sinv[..., None, :]
        dv = v @ (fm - fp)
        if n > k:
            ahu = _h(xp, x_dot) @ u
            dv = dv + (ahu - v @ ph) * sinv[..., None, :]
        if self.u2 is not None:
            du = xp.concat([du, _complement_dot(xp, u, self.u2, du)], axis=-1)
        if self.vh2 is not None:
            dv = xp.concat([dv, _complement_dot(xp, v, _h(xp, self.vh2), dv)], axis=-1)
        return du, s_dot, _h(xp, dv)


def _svd_call(
    name: str, args: tuple[Any, ...], kwargs: dict[str, Any], numpy: bool
) -> tuple[_Svd, int, bool]:
    """Parse ``svd``: ``(call, number of positional arguments, whether U and Vh are returned)``."""
    if numpy:
        x, params = _parse(name, args, kwargs, ("full_matrices", "compute_uv", "hermitian"))
    else:
        if len(args) != 1:
            raise TypeError(f"{name} takes 1 positional argument, got {len(args)}")
        x, params = _parse(name, args, kwargs, ("full_matrices",))
    xp = namespace_of(x, fname=name)
    _matrix(name, x)
    full = bool(params.get("full_matrices", True))
    uv = bool(params.get("compute_uv", True))
    herm = bool(params.get("hermitian", False))
    if herm:
        _square(name, x)
    # the factors are needed for the derivative even when only s is returned
    fm = full if uv else False
    res = (
        xp.linalg.svd(x, full_matrices=fm, hermitian=True)
        if herm
        else xp.linalg.svd(x, full_matrices=fm)
    )
    if not uv:
        c = _Svd(name, xp, x, False, herm, res, True)
        c.res = res[1]
        return c, len(args), False
    return _Svd(name, xp, x, full, herm, res, True), len(args), True


def _svd_rules(numpy: bool) -> tuple[Callable[..., Any], Callable[..., Any]]:
    def svd_rrule(*args: Any, **kwargs: Any) -> Any:
        c, nargs, uv = _svd_call("linalg.svd", args, kwargs, numpy)
        project = ProjectTo(c.x, c.xp)
        rest = (_NO,) * (nargs - 1)

        def svd_pullback(y_bar: Any) -> tuple[Any, ...]:
            if not uv:
                if isinstance(y_bar, AbstractZero):
                    return (_NO, _ZERO, *rest)
                return (_NO, project(c.back_s(cotangent("linalg.svd", y_bar, c.s))), *rest)
            u_bar, s_bar, vh_bar = _parts("linalg.svd", y_bar, c.res)
            if u_bar is None and vh_bar is None:
                g = None if s_bar is None else c.back_s(s_bar)
            else:
                g = c.back(u_bar, s_bar, vh_bar)
            return (_NO, _ZERO if g is None else project(g), *rest)

        return c.res, svd_pullback

    def svd_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        c, _, uv = _svd_call("linalg.svd", args, kwargs, numpy)
        t = _input_tangent("linalg.svd", tangents, c.x)
        if t is None:
            return c.res, _ZERO
        du, ds, dvh = c.dot(t, vectors=uv)
        if not uv:
            return c.res, ds
        return c.res, _tuple_tangent(c.res, [du, ds, dvh])

    return svd_rrule, svd_frule


def _svdvals_call(args: tuple[Any, ...], kwargs: dict[str, Any]) -> _Svd:
    if len(args) != 1:
        raise TypeError(f"linalg.svdvals takes 1 positional argument, got {len(args)}")
    x, _ = _parse("linalg.svdvals", args, kwargs, ())
    xp = namespace_of(x, fname="linalg.svdvals")
    _matrix("linalg.svdvals", x)
    return _Svd("linalg.svdvals", xp, x, False, False, xp.linalg.svd(x, full_matrices=False), True)


@register_rrule("linalg.svdvals", examples=lambda rng: _svdvals_ex(rng))
def _svdvals_rrule(*args: Any, **kwargs: Any) -> Any:
    c = _svdvals_call(args, kwargs)
    project = ProjectTo(c.x, c.xp)

    def svdvals_pullback(y_bar: Any) -> tuple[Any, Any]:
        if isinstance(y_bar, AbstractZero):
            return _NO, _ZERO
        return _NO, project(c.back_s(cotangent("linalg.svdvals", y_bar, c.s)))

    return c.s, svdvals_pullback


@register_frule("linalg.svdvals", examples=lambda rng: _svdvals_ex(rng))
def _svdvals_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    c = _svdvals_call(args, kwargs)
    t = _input_tangent("linalg.svdvals", tangents, c.x)
    if t is None:
        return c.s, _ZERO
    return c.s, c.dot(t, vectors=False)[1]


# --- qr ----------------------------------------------------------------------------------------
def _qr_square_back(xp: Any, q: Any, r: Any, q_bar: Any, r_bar: Any) -> Any:
    """``(Q_bar + Q herm_u(R_bar R^H - Q^H Q_bar)) R^-H`` for ``m >= n`` (``R`` square)."""
    m = None
    if r_bar is not None:
        m = xp.triu(r_bar) @ _h(xp, r)
    if q_bar is not None:
        qq = _h(xp, q) @ q_bar
        m = -qq if m is None else m - qq
    if m is None:
        return None
    upper = (xp.triu(m) + xp.triu(m, k=1)) / 2
    xb = q @ (upper + _h(xp, upper))
    if q_bar is not None:
        xb = xb + q_bar
    return _h(xp, xp.linalg.solve(r, _h(xp, xb)))  # X_bar R^-H = (R^-1 X_bar^H)^H


def _qr_square_dot(xp: Any, q: Any, r: Any, x_dot: Any) -> tuple[Any, Any]:
    x = _h(xp, _solve(xp, _h(xp, r), _h(xp, x_dot)))  # dA R^-1
    c = _h(xp, q) @ x
    low = xp.tril(c, k=-1)
    omega = low - _h(xp, low)
    if _complex(xp, c):
        omega = omega + _eye_times(
            xp, (xp.linalg.diagonal(c) - xp.conj(xp.linalg.diagonal(c))) / 2, c.dtype
        )
    return q @ (omega - c) + x, (c - omega) @ r


class _Qr:
    """A ``qr`` call: the factors and, for ``mode="complete"`` with ``m > n``, the complement."""

    def __init__(self, args: tuple[Any, ...], kwargs: dict[str, Any], numpy: bool) -> None:
        name = "linalg.qr"
        if numpy:
            x, params = _parse(name, args, kwargs, ("mode",))
        else:
            if len(args) != 1:
                raise TypeError(f"{name} takes 1 positional argument, got {len(args)}")
            x, params = _parse(name, args, kwargs, ("mode",))
        mode = params.get("mode", "reduced")
        allowed = ("reduced", "complete", "r") if numpy else ("reduced", "complete")
        if mode not in allowed:
            raise ValueError(
                f"{name}: the rule supports mode in {allowed}, got {mode!r}"
                + (
                    " (mode='raw' returns Householder data, not a differentiable factor)"
                    if mode == "raw"
                    else ""
                )
            )
        self.xp = xp = namespace_of(x, fname=name)
        _matrix(name, x)
        self.x, self.nargs, self.mode = x, len(args), mode
        m, n = x.shape[-2], x.shape[-1]
        self.m, self.n, self.k = m, n, min(m, n)
        qmode = "complete" if mode == "complete" else "reduced"
        q, r = xp.linalg.qr(x, mode=qmode)
        self.res = r if mode == "r" else (q, r)
        self.complete = mode == "complete" and m > n
        k = self.k
        self.q, self.r = q[..., :, :k], r[..., :k, :]
        self.q2 = q[..., :, k:] if self.complete else None

    def back(self, q_bar: Any, r_bar: Any) -> Any:
        xp, q, r, m, n, k = self.xp, self.q, self.r, self.m, self.n, self.k
        if self.complete:
            if q_bar is not None:
                q_bar = _complement_back(xp, q, self.q2, q_bar[..., :, :k], q_bar[..., :, k:])
            if r_bar is not None:
                r_bar = r_bar[..., :k, :]  # the rows below are 0 whatever A is
        if m >= n:
            return _qr_square_back(xp, q, r, q_bar, r_bar)
        # wide: A = [X | Y], X = Q R1, R2 = Q^H Y
        r1, y = r[..., :, :m], self.x[..., :, m:]
        r1_bar = None if r_bar is None else r_bar[..., :, :m]
        y_bar = None
        if r_bar is not None:
            r2_bar = r_bar[..., :, m:]
            extra = y @ _h(xp, r2_bar)
            q_bar = extra if q_bar is None else q_bar + extra
            y_bar = q @ r2_bar
        x_bar = _qr_square_back(xp, q, r1, q_bar, r1_bar)
        if x_bar is None:
            x_bar = xp.zeros_like(self.x[..., :, :m])
        if y_bar is None:
            y_bar = xp.zeros_like(y)
        return xp.concat([x_bar, y_bar], axis=-1)

    def dot(self, x_dot: Any) -> tuple[Any, Any]:
        xp, q, r, m, n = self.xp, self.q, self.r, self.m, self.n
        if m >= n:
            dq, dr = _qr_square_dot(xp, q, r, x_dot)
        else:
            dq, dr1 = _qr_square_dot(xp, q, r[..., :, :m], x_dot[..., :, :m])
            dr2 = _h(xp, dq) @ self.x[..., :, m:] + _h(xp, q) @ x_dot[..., :, m:]
            dr = xp.concat([dr1, dr2], axis=-1)
        if self.complete:
            dq = xp.concat([dq, _complement_dot(xp, q, self.q2, dq)], axis=-1)
            dr = xp.concat(
                [dr, xp.zeros((*dr.shape[:-2], m - n, n), dtype=dr.dtype, device=device_of(dr))],
                axis=-2,
            )
        return dq, dr


def _qr_rules(numpy: bool) -> tuple[Callable[..., Any], Callable[..., Any]]:
    def qr_rrule(*args: Any, **kwargs: Any) -> Any:
        c = _Qr(args, kwargs, numpy)
        project = ProjectTo(c.x, c.xp)
        rest = (_NO,) * (c.nargs - 1)

        def qr_pullback(y_bar: Any) -> tuple[Any, ...]:
            if c.mode == "r":
                if isinstance(y_bar, AbstractZero):
                    return (_NO, _ZERO, *rest)
                q_bar, r_bar = None, cotangent("linalg.qr", y_bar, c.res)
            else:
                q_bar, r_bar = _parts("linalg.qr", y_bar, c.res)
            g = c.back(q_bar, r_bar)
            return (_NO, _ZERO if g is None else project(g), *rest)

        return c.res, qr_pullback

    def qr_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        c = _Qr(args, kwargs, numpy)
        t = _input_tangent("linalg.qr", tangents, c.x)
        if t is None:
            return c.res, _ZERO
        dq, dr = c.dot(t)
        if c.mode == "r":
            return c.res, dr
        return c.res, _tuple_tangent(c.res, [dq, dr])

    return qr_rrule, qr_frule


# --- registrations -----------------------------------------------------------------------------
def _register(
    name: str, make: Callable[[bool], Any], examples: Any, np_examples: Any, **meta: Any
) -> None:
    r, f = make(False)
    register_rrule(f"linalg.{name}", examples=examples, **meta)(r)
    register_frule(f"linalg.{name}", examples=examples, **meta)(f)
    r, f = make(True)
    register_rrule(f"numpy:linalg.{name}", examples=np_examples, **meta)(r)
    register_frule(f"numpy:linalg.{name}", examples=np_examples, **meta)(f)


def _ex(name: str, numpy: bool) -> Callable[[Any], list[Any]]:
    return lambda rng: _EXAMPLES[name](rng, numpy)


# hermitian=(0,): argument 0 is read as a Hermitian matrix (one triangle); the testers perturb it
# along Hermitian directions
# gauge=True: the eigen/singular vectors' signs (phases) are the library's choice, so outputs
# and cotangents of two libraries compare only through gauge-invariant functions
_register("eigh", _eigh_rules, _ex("eigh", False), _ex("eigh", True), hermitian=(0,), gauge=True)
_register(
    "eigvalsh", _eigvalsh_rules, _ex("eigvalsh", False), _ex("eigvalsh", True), hermitian=(0,)
)
_register("svd", _svd_rules, _ex("svd", False), _ex("svd", True), gauge=True)
_register("qr", _qr_rules, _ex("qr", False), _ex("qr", True))
non_differentiable("linalg.matrix_rank", examples=lambda rng: _rank_ex(rng))


# --- examples ------------------------------------------------------------------------------------
def hermitian(rng: Any, shape: tuple[int, ...], cplx: bool = False, spread: float = 1.0) -> Any:
    """A random Hermitian (real symmetric) matrix stack with well-separated eigenvalues
    (``0.5 spread`` apart at least): ``Q diag(w) Q^H``."""
    import numpy as np

    n = shape[-1]
    z = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if cplx else 0)
    q, _ = np.linalg.qr(z)
    w = spread * (np.arange(n) - (n - 1) / 2) + rng.uniform(-0.2, 0.2, (*shape[:-2], n)) * spread
    a = (q * w[..., None, :]) @ np.conj(np.swapaxes(q, -1, -2))
    return (a + np.conj(np.swapaxes(a, -1, -2))) / 2


def positive_definite(rng: Any, shape: tuple[int, ...], cplx: bool = False) -> Any:
    """A random Hermitian positive-definite matrix stack, ``B B^H + n I``."""
    import numpy as np

    n = shape[-1]
    b = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if cplx else 0)
    return b @ np.conj(np.swapaxes(b, -1, -2)) + n * np.eye(n)


def _cholesky_ex(rng: Any) -> list[Any]:
    import numpy as np

    return [
        ((positive_definite(rng, (3, 3)),), {}),
        ((positive_definite(rng, (2, 3, 3)),), {"upper": True}),
        ((positive_definite(rng, (1, 1)),), {}),
        ((positive_definite(rng, (3, 3), cplx=True),), {}),
        ((positive_definite(rng, (2, 2), cplx=True),), {"upper": True}),
        ((np.zeros((2, 0, 0)),), {}),
    ]


def _eigh_ex(rng: Any, numpy: bool) -> list[Any]:
    out: list[Any] = [
        ((hermitian(rng, (3, 3)),), {}),
        ((hermitian(rng, (2, 3, 3)),), {}),
        ((hermitian(rng, (1, 1)),), {}),
    ]
    if numpy:
        out += [((hermitian(rng, (3, 3)), "U"), {}), ((hermitian(rng, (2, 2)),), {"UPLO": "U"})]
    return out


def _eigvalsh_ex(rng: Any, numpy: bool) -> list[Any]:
    return [*_eigh_ex(rng, numpy), ((hermitian(rng, (2, 3, 3), cplx=True),), {})]


def _general(rng: Any, shape: tuple[int, ...], cplx: bool = False) -> Any:
    """A matrix stack with well-separated singular values (for the gauge-dependent vectors)."""
    import numpy as np

    m, n = shape[-2], shape[-1]
    k = min(m, n)
    zu = rng.standard_normal((*shape[:-2], m, m)) + (
        1j * rng.standard_normal((*shape[:-2], m, m)) if cplx else 0
    )
    zv = rng.standard_normal((*shape[:-2], n, n)) + (
        1j * rng.standard_normal((*shape[:-2], n, n)) if cplx else 0
    )
    u, _ = np.linalg.qr(zu)
    v, _ = np.linalg.qr(zv)
    s = 1.0 + np.arange(k)[::-1] + rng.uniform(0, 0.3, (*shape[:-2], k))
    return (u[..., :, :k] * s[..., None, :]) @ np.conj(np.swapaxes(v[..., :, :k], -1, -2))


def _svd_ex(rng: Any, numpy: bool) -> list[Any]:
    out: list[Any] = [
        ((_general(rng, (3, 3)),), {}),
        ((_general(rng, (4, 3)),), {"full_matrices": False}),
        ((_general(rng, (2, 3, 4)),), {"full_matrices": False}),
        ((_general(rng, (2, 2)),), {"full_matrices": True}),
    ]
    if numpy:
        out += [
            ((_general(rng, (3, 2)), False), {}),
            ((_general(rng, (3, 4)),), {"compute_uv": False}),
            ((_general(rng, (2, 3, 2)), False, False), {}),
        ]
    return out


def _svdvals_ex(rng: Any) -> list[Any]:
    return [
        ((_general(rng, (3, 3)),), {}),
        ((_general(rng, (4, 2)),), {}),
        ((_general(rng, (2, 2, 3)),), {}),
        ((_general(rng, (3, 3), cplx=True),), {}),
        ((_general(rng, (2, 4, 3), cplx=True),), {}),
    ]


def _qr_ex(rng: Any, numpy: bool) -> list[Any]:
    out: list[Any] = [
        ((rng.standard_normal((3, 3)),), {}),
        ((rng.standard_normal((4, 3)),), {}),
        ((rng.standard_normal((2, 4, 2)),), {"mode": "reduced"}),
        ((rng.standard_normal((2, 4)),), {}),
        ((rng.standard_normal((2, 3)),), {"mode": "complete"}),
        ((rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2)),), {}),
        ((rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3)),), {}),
    ]
    if numpy:
        out += [
            ((rng.standard_normal((3, 2)), "r"), {}),
            ((rng.standard_normal((3, 3)), "reduced"), {}),
        ]
    return out


def _rank_ex(rng: Any) -> list[Any]:
    return [((rng.standard_normal((3, 3)),), {}), ((rng.standard_normal((2, 4, 3)),), {})]


_EXAMPLES: dict[str, Callable[[Any, bool], list[Any]]] = {
    "eigh": _eigh_ex,
    "eigvalsh": _eigvalsh_ex,
    "svd": _svd_ex,
    "qr": _qr_ex,
}
