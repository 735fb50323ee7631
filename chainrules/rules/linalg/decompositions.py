"""Rules for the decompositions of the ``linalg`` extension -- ``cholesky``, ``eigh``,
``eigvalsh``, ``qr``, ``svd``, ``svdvals`` -- with NumPy's signatures (``numpy:linalg.eigh``,
``eigvalsh``, ``qr``, ``svd``), NumPy's ``linalg.eig`` and ``linalg.eigvals``, and
``matrix_rank`` (non-differentiable: an integer). The derivatives, as functions of the factors,
are in :mod:`chainrules.rules._util.linalg` (SciPy's ``linalg`` rules use them too).

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
  about ``2.7 n^3`` flops for ``n`` right-hand sides, instead of ``n^3`` for a triangular solve),
  except where the library has its own (:func:`solve_lower`'s methods: SciPy's for NumPy,
  torch's, JAX's, CuPy's), which that library differentiates again; ``chainrules.ad`` traces
  and array-api-strict take the general solves.
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
* ``eig`` (``A = V diag(w) V^-1``): ``K = V^-1 dA V``, ``dw = diag(K)``,
  ``dV = V (F ∘ K + diag(c))`` with ``F_ij = 1 / (w_j - w_i)`` off the diagonal (0 on it and
  at degenerate eigenvalues). ``c`` fixes the gauge to LAPACK's (``geev``): every eigenvector
  has unit norm (``Re c_j = -Re (V^H V (F ∘ K))_jj``) and its largest-modulus entry ``k_j`` real
  (``Im c_j = -Im (V (F ∘ K))_{k_j j} / V_{k_j j}``). The pullback is the adjoint: with
  ``W = V^H V_bar``, ``G = W - V^H V diag(Re diag W) - V^H Q`` (``Q`` holds
  ``i Im W_jj / V_{k_j j}`` at ``(k_j, j)``), ``A_bar = V^-H (conj(F) ∘ G + diag(w_bar)) V^H``.
  ``eigvals``: ``A_bar = V^-H diag(w_bar) V^H``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial, wraps
from typing import Any

from ...core.prelude import *
from .._util import in_dtype
from .._util.linalg import (
    _as,
    _cholesky_dot,
    _complex,
    _conj,
    _eigh_back,
    _eigh_dot,
    _general,
    _h,
    _herm,
    _qr_back,
    _qr_dot,
    _re,
    _solve,
    _square_any,
    _svd_back,
    _svd_back_s,
    _svd_dot,
    _svd_factors,
    cholesky_back,
    finite_svd,
    hermitian,
    positive_definite,
)
from .._util.numpy_like import numpy_like_module, numpy_module


# --- small helpers (standard functions only: every one has a rule) ------------------------------
def _square(name: str, x: Any) -> None:
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(
            f"{name}: expected a (stack of) square matrices, got shape {tuple(x.shape)}"
        )


def _matrix(name: str, x: Any) -> None:
    if x.ndim < 2:
        raise ValueError(f"{name}: expected a (stack of) matrices, got shape {tuple(x.shape)}")


def _nonzero(parts: tuple[Any, ...]) -> list[Any]:
    """The cotangents of a tuple output as the pullback receives them, ``None`` for a zero one
    (the formulas leave its terms out)."""
    return [None if isinstance(p, AbstractZero) else p for p in parts]


def _static(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """``NoTangent()`` for each positional argument after the matrix (NumPy's flags, ``UPLO``,
    ``mode``: static)."""
    return (NO,) * (len(args) - 1)


def _register(
    name: str, rrule: Any, frule: Any, sigs: tuple[Signature, Signature], **meta: Any
) -> Callable[[Any], Any]:
    """Decorator of the examples ``examples(rng, numpy)``: register ``rrule(sig, *args,
    **kwargs)`` / ``frule(sig, tangents, *args, **kwargs)`` for the standard's ``linalg.<name>``
    (signature ``sigs[0]``) and NumPy's ``numpy:linalg.<name>`` (``sigs[1]``), each with its
    examples.

    ``hermitian=(0,)``: argument 0 is read as a Hermitian matrix (one triangle); the testers
    perturb it along Hermitian directions. ``gauge=True``: the eigen/singular vectors' signs
    (phases) are the library's choice, so outputs and cotangents of two libraries compare only
    through gauge-invariant functions."""

    def register(examples: Any) -> Any:
        for target, sig, numpy in (
            (f"linalg.{name}", sigs[0], False),
            (f"numpy:linalg.{name}", sigs[1], True),
        ):
            ex = partial(examples, numpy=numpy)
            register_rrule(target, examples=ex, **meta)(_with(rrule, sig))
            register_frule(target, examples=ex, **meta)(_with(frule, sig))
        return examples

    return register


def _with(rule: Any, sig: Signature) -> Any:
    """``rule`` with its first argument, the call's signature, given."""

    @wraps(rule)
    def bound(*args: Any, **kwargs: Any) -> Any:
        return rule(sig, *args, **kwargs)

    return bound


# --- cholesky ----------------------------------------------------------------------------------
def _cholesky(xp: Any, x: Any, upper: bool) -> Any:
    """``x``'s Cholesky factor as its library computes it: ``upper=True`` reads ``x``'s upper
    triangle (NumPy's and torch's own ``cholesky``, LAPACK's ``'U'``), the lower factor of ``x^H``
    transposed back; array-api-compat's wrapper transposes the factor of the lower triangle, another
    matrix where ``x`` is not Hermitian (JAX symmetrises ``x`` first: the same either way)."""
    if not upper:
        return xp.linalg.cholesky(x)
    return xp.conj(xp.matrix_transpose(xp.linalg.cholesky(xp.conj(xp.matrix_transpose(x)))))


@register_rrule("linalg.cholesky", examples=lambda rng: _cholesky_ex(rng), hermitian=(0,))
def _cholesky_rrule(x: Any, /, *, upper: bool = False) -> Any:
    xp = namespace_of(x, fname="linalg.cholesky")
    _square("linalg.cholesky", x)
    y = _cholesky(xp, x, upper)
    project = ProjectTo(x, xp)

    @pullback(y, (x,), name="linalg.cholesky")
    def cholesky_pullback(y_bar: Any) -> Any:
        return project(cholesky_back(y, y_bar, upper=upper))

    return y, cholesky_pullback


@register_frule("linalg.cholesky", examples=lambda rng: _cholesky_ex(rng), hermitian=(0,))
def _cholesky_frule(tangents: Any, x: Any, /, *, upper: bool = False) -> Any:
    xp = namespace_of(x, fname="linalg.cholesky")
    _square("linalg.cholesky", x)
    y = _cholesky(xp, x, upper)
    t = tangents_in("linalg.cholesky", tangents, (x,))
    if t is None:
        return y, ZERO
    return y, in_dtype(xp, _cholesky_dot(xp, y, t[0], upper), y.dtype)


# --- eigh, eigvalsh ----------------------------------------------------------------------------
# the standard's signatures and NumPy's (``UPLO``); out= is refused
_EIGH = signature("linalg.eigh", lambda x, /, *, out=None: None)
_NP_EIGH = signature("linalg.eigh", lambda x, /, UPLO="L", *, out=None: None)
_EIGVALSH = signature("linalg.eigvalsh", lambda x, /, *, out=None: None)
_NP_EIGVALSH = signature("linalg.eigvalsh", lambda x, /, UPLO="L", *, out=None: None)


def _eigh(sig: Signature, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any]:
    """``(xp, x, (w, V))`` of an ``eigh``/``eigvalsh`` call (``V`` is needed for ``w``'s
    derivative too)."""
    a = sig.bind(args, kwargs)
    name, x = sig.name, a["x"]
    xp = namespace_of(x, fname=name)
    _square(name, x)
    uplo = a.get("UPLO", "L")
    if uplo not in ("L", "U", "l", "u"):
        raise ValueError(f"{name}: UPLO must be 'L' or 'U', got {uplo!r}")
    if uplo in ("L", "l"):  # the standard's eigh reads the lower triangle
        return xp, x, xp.linalg.eigh(x)
    # UPLO= to NumPy's-signature eigh (NumPy's, JAX's, CuPy's; NumPy's dispatches an engine's
    # traced arrays to these rules): the standard's namespaces, traced ones too, take no UPLO
    return xp, x, numpy_like_module(x, xp).linalg.eigh(x, UPLO=uplo)


def _eigh_rrule(sig: Signature, *args: Any, **kwargs: Any) -> Any:
    xp, x, res = _eigh(sig, args, kwargs)
    w, v = res[0], res[1]
    project = ProjectTo(x, xp)

    @pullback(res, args, name=sig.name)
    def eigh_pullback(y_bar: tuple[Any, Any]) -> tuple[Any, ...]:
        w_bar, v_bar = _nonzero(y_bar)
        return (project(_eigh_back(xp, w, v, w_bar, v_bar)), *_static(args))

    return res, eigh_pullback


def _eigh_frule(sig: Signature, tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, x, res = _eigh(sig, args, kwargs)
    t = tangents_in(sig.name, tangents[:2], (x,))  # the other arguments are static
    if t is None:
        return res, ZERO
    w_dot, v_dot = _eigh_dot(xp, res[0], res[1], t[0], vectors=True)
    return res, Tangent(w_dot, v_dot, primal_type=type(res))


def _eigvalsh_rrule(sig: Signature, *args: Any, **kwargs: Any) -> Any:
    xp, x, (w, v) = _eigh(sig, args, kwargs)
    project = ProjectTo(x, xp)

    @pullback(w, args, name=sig.name)
    def eigvalsh_pullback(w_bar: Any) -> tuple[Any, ...]:
        return (project(_eigh_back(xp, w, v, w_bar, None)), *_static(args))

    return w, eigvalsh_pullback


def _eigvalsh_frule(sig: Signature, tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, x, (w, v) = _eigh(sig, args, kwargs)
    t = tangents_in(sig.name, tangents[:2], (x,))
    if t is None:
        return w, ZERO
    return w, _eigh_dot(xp, w, v, t[0], vectors=False)[0]


# --- svd, svdvals ------------------------------------------------------------------------------
def _finite_svdvals(xp: Any, x: Any) -> Any:
    """``xp.linalg.svdvals(x)``, NaN for a matrix holding a non-finite entry, guarded as
    :func:`finite_svd` (no host read); at a finite ``x`` exactly ``svdvals(x)``."""
    ok = xp.isfinite(x)
    s = xp.linalg.svdvals(xp.where(ok, x, xp.zeros_like(x)))
    good = xp.all(ok, axis=(-2, -1))
    return xp.where(good[..., None], s, xp.full_like(s, float("nan")))


# the factors below are the reduced ones, U (m x k), s, Vh (k x n), k = min(m, n), and for
# full_matrices with m != n the complement bases U2 (m x (m - k)) / Vh2 ((n - k) x n), else None
_SVD = signature("linalg.svd", lambda x, /, *, full_matrices=True, out=None: None)
_NP_SVD = signature(
    "linalg.svd",
    lambda x, /, full_matrices=True, compute_uv=True, hermitian=False, *, out=None: None,
)
_SVDVALS = signature("linalg.svdvals", lambda x, /, *, out=None: None)


def _svd(sig: Signature, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """``(xp, x, y, (U, s, Vh, U2, Vh2), hermitian)`` of an ``svd`` call; ``y`` is ``s`` alone
    for ``compute_uv=False`` (the factors are needed for the derivative all the same)."""
    a = sig.bind(args, kwargs)
    name, x = sig.name, a["x"]
    xp = namespace_of(x, fname=name)
    _matrix(name, x)
    full, uv = bool(a["full_matrices"]), bool(a.get("compute_uv", True))
    herm = bool(a.get("hermitian", False))
    if herm:
        _square(name, x)
    fm = full if uv else False
    # hermitian: NumPy's eigh path returns at non-finite input, so it is called as it is
    res = xp.linalg.svd(x, full_matrices=fm, hermitian=True) if herm else finite_svd(xp, x, fm)
    return xp, x, res if uv else res[1], _svd_factors(res, fm), herm


def _svd_rrule(sig: Signature, *args: Any, **kwargs: Any) -> Any:
    xp, x, y, f, herm = _svd(sig, args, kwargs)
    project = ProjectTo(x, xp)
    sym = partial(_herm, xp) if herm else (lambda g: g)  # hermitian=True reads one triangle

    if not isinstance(y, tuple):  # compute_uv=False: s alone

        @pullback(y, args, name=sig.name)
        def svd_s_pullback(s_bar: Any) -> tuple[Any, ...]:
            return (project(sym(_svd_back_s(xp, f, s_bar))), *_static(args))

        return y, svd_s_pullback

    @pullback(y, args, name=sig.name)
    def svd_pullback(y_bar: tuple[Any, Any, Any]) -> tuple[Any, ...]:
        u_bar, s_bar, vh_bar = _nonzero(y_bar)
        if u_bar is None and vh_bar is None:
            g = _svd_back_s(xp, f, s_bar)
        else:
            g = _svd_back(xp, f, u_bar, s_bar, vh_bar)
        return (project(sym(g)), *_static(args))

    return y, svd_pullback


def _svd_frule(sig: Signature, tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, x, y, f, herm = _svd(sig, args, kwargs)
    t = tangents_in(sig.name, tangents[:2], (x,))
    if t is None:
        return y, ZERO
    uv = isinstance(y, tuple)
    du, ds, dvh = _svd_dot(xp, f, _herm(xp, t[0]) if herm else t[0], vectors=uv)
    return y, Tangent(du, ds, dvh, primal_type=type(y)) if uv else ds


@register_rrule("linalg.svdvals", examples=lambda rng: _svdvals_ex(rng))
def _svdvals_rrule(*args: Any, **kwargs: Any) -> Any:
    x = _SVDVALS.bind(args, kwargs)["x"]
    xp = namespace_of(x, fname="linalg.svdvals")
    _matrix("linalg.svdvals", x)
    f = _svd_factors(finite_svd(xp, x, False), False)
    # f's own values: the SVD without vectors differs from the one with them in the last bits
    # (LAPACK takes another path); the vectors are what the pullback needs
    s = _finite_svdvals(xp, x)
    project = ProjectTo(x, xp)

    @pullback(s, args, name="linalg.svdvals")
    def svdvals_pullback(s_bar: Any) -> Any:
        return project(_svd_back_s(xp, f, s_bar))

    return s, svdvals_pullback


@register_frule("linalg.svdvals", examples=lambda rng: _svdvals_ex(rng))
def _svdvals_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    x = _SVDVALS.bind(args, kwargs)["x"]
    xp = namespace_of(x, fname="linalg.svdvals")
    _matrix("linalg.svdvals", x)
    f = _svd_factors(finite_svd(xp, x, False), False)
    s = _finite_svdvals(xp, x)  # f's own values (see the rrule)
    t = tangents_in("linalg.svdvals", tangents, (x,))
    if t is None:
        return s, ZERO
    return s, in_dtype(xp, _svd_dot(xp, f, t[0], vectors=False)[1], s.dtype)


# --- qr ----------------------------------------------------------------------------------------
_QR = signature("linalg.qr", lambda x, /, *, mode="reduced", out=None: None)
_NP_QR = signature("linalg.qr", lambda x, /, mode="reduced", *, out=None: None)


def _qr(sig: Signature, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """``(xp, x, y, (Q, R, Q2))`` of a ``qr`` call: ``y`` is ``(Q, R)``, or ``R`` for NumPy's
    ``mode="r"``; ``Q`` (``m x k``) and ``R`` (``k x n``) are the reduced factors, ``Q2`` the
    complement basis of ``mode="complete"`` with ``m > n`` (else ``None``)."""
    a = sig.bind(args, kwargs)
    name, x, mode = sig.name, a["x"], a["mode"]
    allowed = ("reduced", "complete", "r") if sig is _NP_QR else ("reduced", "complete")
    if mode not in allowed:
        raise ValueError(
            f"{name}: the rule supports mode in {allowed}, got {mode!r}"
            + (
                " (mode='raw' returns Householder data, not a differentiable factor)"
                if mode == "raw"
                else ""
            )
        )
    xp = namespace_of(x, fname=name)
    _matrix(name, x)
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    res = xp.linalg.qr(x, mode="complete" if mode == "complete" else "reduced")
    q, r = res[0], res[1]  # res itself is the result: the library's named tuple (.Q, .R)
    q2 = q[..., :, k:] if mode == "complete" and m > n else None
    return xp, x, r if mode == "r" else res, (q[..., :, :k], r[..., :k, :], q2)


def _qr_rrule(sig: Signature, *args: Any, **kwargs: Any) -> Any:
    xp, x, y, f = _qr(sig, args, kwargs)
    project = ProjectTo(x, xp)

    if not isinstance(y, tuple):  # NumPy's mode="r": R alone

        @pullback(y, args, name=sig.name)
        def qr_r_pullback(r_bar: Any) -> tuple[Any, ...]:
            return (project(_qr_back(xp, x, f, None, r_bar, sig.name)), *_static(args))

        return y, qr_r_pullback

    @pullback(y, args, name=sig.name)
    def qr_pullback(y_bar: tuple[Any, Any]) -> tuple[Any, ...]:
        q_bar, r_bar = _nonzero(y_bar)
        return (project(_qr_back(xp, x, f, q_bar, r_bar, sig.name)), *_static(args))

    return y, qr_pullback


def _qr_frule(sig: Signature, tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, x, y, f = _qr(sig, args, kwargs)
    t = tangents_in(sig.name, tangents[:2], (x,))
    if t is None:
        return y, ZERO
    dq, dr = _qr_dot(xp, x, f, t[0], sig.name)
    return y, Tangent(dq, dr, primal_type=type(y)) if isinstance(y, tuple) else dr


non_differentiable("linalg.matrix_rank", examples=lambda rng: _rank_ex(rng))


# --- examples ------------------------------------------------------------------------------------
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


@_register("eigh", _eigh_rrule, _eigh_frule, (_EIGH, _NP_EIGH), hermitian=(0,), gauge=True)
def _eigh_ex(rng: Any, numpy: bool) -> list[Any]:
    out: list[Any] = [
        ((hermitian(rng, (3, 3)),), {}),
        ((hermitian(rng, (2, 3, 3)),), {}),
        ((hermitian(rng, (1, 1)),), {}),
    ]
    if numpy:
        out += [((hermitian(rng, (3, 3)), "U"), {}), ((hermitian(rng, (2, 2)),), {"UPLO": "U"})]
    return out


@_register("eigvalsh", _eigvalsh_rrule, _eigvalsh_frule, (_EIGVALSH, _NP_EIGVALSH), hermitian=(0,))
def _eigvalsh_ex(rng: Any, numpy: bool) -> list[Any]:
    return [*_eigh_ex(rng, numpy), ((hermitian(rng, (2, 3, 3), cplx=True),), {})]


@_register("svd", _svd_rrule, _svd_frule, (_SVD, _NP_SVD), gauge=True)
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


@_register("qr", _qr_rrule, _qr_frule, (_QR, _NP_QR))
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


# --- NumPy's eig, eigvals ------------------------------------------------------------------
def _diag(xp: Any, m: Any) -> Any:
    return xp.linalg.diagonal(m)


def _eye_times_as(xp: Any, v: Any, dtype: Any) -> Any:
    n = v.shape[-1]
    return xp.eye(n, dtype=dtype, device=device_of(v)) * xp.astype(v, dtype)[..., None, :]


_EIG = signature("linalg.eig", lambda a, /: None)


_EIGVALS = signature("linalg.eigvals", lambda a, /: None)


def _eig(name: str, sig: Any, args: Any, kwargs: Any) -> tuple[Any, Any, Any]:
    a = sig.bind(args, kwargs)["a"]
    xp = namespace_of(a, fname=name)
    _square_any(name, a)
    return xp, a, numpy_module(a).linalg.eig(a)


def _eig_gaps(xp: Any, w: Any, conj: bool = False) -> Any:
    """``F_ij = 1 / (w_j - w_i)`` (its conjugate with ``conj``), 0 on the diagonal and where
    ``|w_j - w_i| <= 10 n eps max|w|`` (degenerate eigenvalues: the rotation within the
    eigenspace is dropped). Computed as ``conj(d) / |d|^2``: a real division, no square root."""
    n = w.shape[-1]
    d = w[..., None, :] - w[..., :, None]
    mag = xp.abs(w)
    eps = float(xp.finfo(mag.dtype).eps)
    if n == 0:
        return d
    tol = (10.0 * n * eps) * xp.max(mag, axis=-1, keepdims=True)[..., None]
    m = numpy_module(w)  # NumPy's where takes the scalars: no full-size zeros and ones
    if _complex(xp, d):
        d2 = xp.real(d) ** 2 + xp.imag(d) ** 2
        small = d2 <= tol * tol
        num = d if conj else xp.conj(d)
        return m.where(small, 0, num / m.where(small, 1, d2))
    small = xp.abs(d) <= tol
    return m.where(small, 0, 1 / m.where(small, 1, d))


def _gauge(xp: Any, v: Any) -> tuple[Any, Any]:
    """LAPACK's gauge: the mask ``E`` (``E_ij``: ``i`` is column ``j``'s largest-modulus entry,
    the first one on a tie) and that entry's value, real (``(..., n)``). ``argmax`` and a
    comparison: nothing reaches the host."""
    n = v.shape[-2]
    k = xp.argmax(xp.abs(v), axis=-2, keepdims=True)  # (..., 1, n)
    rows = xp.reshape(xp.arange(n, device=device_of(v)), (n, 1))
    mask = rows == k
    top = xp.sum(numpy_module(v).where(mask, v, 0), axis=-2)
    return mask, _re(xp, top)


def _eig_back(xp: Any, w: Any, v: Any, w_bar: Any, v_bar: Any) -> Any:
    """``A_bar`` of ``eig`` (maths notes); ``None`` is a zero cotangent."""
    g = None
    vh = _h(xp, v)
    if v_bar is not None:
        wm = vh @ _as(xp, v_bar, v.dtype)
        dw = _diag(xp, wm)
        g = wm - (vh @ v) * _re(xp, dw)[..., None, :]
        if _complex(xp, v):
            mask, top = _gauge(xp, v)
            q = numpy_module(v).where(mask, (1j * xp.imag(dw) / top)[..., None, :], 0)
            g = g - vh @ q
        g = _eig_gaps(xp, w, conj=True) * g
    if w_bar is not None:
        d = _eye_times_as(xp, w_bar, v.dtype)
        g = d if g is None else g + d
    return numpy_module(vh).linalg.solve(vh, g @ vh)  # NumPy's: no compat wrapper (square b)


def _eig_dot(xp: Any, w: Any, v: Any, a_dot: Any, vectors: bool) -> tuple[Any, Any]:
    k = _solve(xp, v, _as(xp, a_dot, v.dtype) @ v)  # V^-1 dA V (chunk axes lead)
    w_dot = in_dtype(xp, _diag(xp, k), w.dtype)
    if not vectors:
        return w_dot, None
    dv0 = v @ (_eig_gaps(xp, w) * k)
    c = -_re(xp, xp.sum(_conj(xp, v) * dv0, axis=-2))  # unit norm
    if _complex(xp, v):
        mask, top = _gauge(xp, v)
        im = -xp.imag(xp.sum(xp.where(mask, dv0, xp.zeros_like(dv0)), axis=-2)) / top
        c = xp.astype(c, v.dtype) + 1j * im  # the largest entry stays real
    return w_dot, in_dtype(xp, dv0 + v * c[..., None, :], v.dtype)


def _eig_ex(rng: Any) -> list[Any]:
    import numpy as np

    def well(n: int, *batch: int, cplx: bool = False) -> Any:
        # well-separated eigenvalues 1, 2.5, 4, ... under a random similarity
        z = rng.standard_normal((*batch, n, n)) + (
            1j * rng.standard_normal((*batch, n, n)) if cplx else 0
        )
        s = z + 2 * np.eye(n)
        d = 1.0 + 1.5 * np.arange(n)
        return s @ (d[:, None] * np.linalg.inv(s))

    rot = np.array([[0.3, -2.0, 0.1], [2.0, 0.2, 0.4], [0.0, 0.3, 3.0]])  # a complex pair
    return [
        ((well(3),), {}),
        ((rot,), {}),
        ((well(2, 2),), {}),
        ((well(3, cplx=True),), {}),
    ]


@register_rrule("numpy:linalg.eig", examples=_eig_ex)
def eig_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, a, res = _eig("linalg.eig", _EIG, args, kwargs)
    w, v = res[0], res[1]
    project = ProjectTo(a, xp)

    @pullback(res, args, name="linalg.eig")
    def eig_pullback(y_bar: tuple[Any, Any]) -> Any:
        w_bar, v_bar = (None if isinstance(p, AbstractZero) else p for p in y_bar)
        return project(_eig_back(xp, w, v, w_bar, v_bar))

    return res, eig_pullback


@register_frule("numpy:linalg.eig", examples=_eig_ex)
def eig_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, res = _eig("linalg.eig", _EIG, args, kwargs)
    t = tangents_in("linalg.eig", tangents, (a,))
    if t is None:
        return res, ZERO
    w_dot, v_dot = _eig_dot(xp, res[0], res[1], t[0], vectors=True)
    return res, Tangent(w_dot, v_dot, primal_type=type(res))


@register_rrule("numpy:linalg.eigvals", examples=_eig_ex)
def eigvals_rrule(*args: Any, **kwargs: Any) -> Any:
    # eig's eigenvalues: the same LAPACK call, and the eigenvectors the derivative needs
    xp, a, (w, v) = _eig("linalg.eigvals", _EIGVALS, args, kwargs)
    project = ProjectTo(a, xp)

    @pullback(w, args, name="linalg.eigvals")
    def eigvals_pullback(w_bar: Any) -> Any:
        return project(_eig_back(xp, w, v, w_bar, None))

    return w, eigvals_pullback


@register_frule("numpy:linalg.eigvals", examples=_eig_ex)
def eigvals_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, (w, v) = _eig("linalg.eigvals", _EIGVALS, args, kwargs)
    t = tangents_in("linalg.eigvals", tangents, (a,))
    if t is None:
        return w, ZERO
    return w, _eig_dot(xp, w, v, t[0], vectors=False)[0]
