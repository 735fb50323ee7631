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
"""

from __future__ import annotations

import math
from functools import partial, wraps
from typing import Any

from ...core.namespaces import device_of, namespace_of
from ...core.projection import ProjectTo
from ...core.registry import register_frule, register_rrule
from ...core.scalar_rule import non_differentiable
from ...core.specialise import specialise
from ...core.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent
from ...core.toolkit import Signature, pullback, signature, tangents_in
from .._util import in_dtype

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


def _solve(xp: Any, a: Any, b: Any, solve2: Any = None) -> Any:
    """``linalg.solve(a, b)`` for stacks of right-hand sides ``b`` (``(..., n, k)``) whose batch
    axes extend ``a``'s (a chunk of tangents).

    One matrix ``a`` against a stack ``b`` is one 2-D solve with all the columns side by side
    (the stack axes moved into the columns, then back): one factorisation instead of one per
    matrix of the stack, and dask's ``lu`` (behind its ``solve``) takes 2-D arrays only. A stack
    ``a`` is broadcast to ``b``'s batch axes first, as CuPy requires. ``solve2(a, b)``, where
    given, solves instead of ``linalg.solve`` (a triangular solve)."""
    solve = xp.linalg.solve if solve2 is None else solve2
    batch = tuple(b.shape[:-2])
    if a.ndim == 2 and batch:
        n, k = b.shape[-2:]
        cols = xp.reshape(xp.moveaxis(b, -2, 0), (n, math.prod(batch) * k))
        return xp.moveaxis(xp.reshape(solve(a, cols), (n, *batch, k)), 0, -2)
    if tuple(a.shape[:-2]) != batch:
        a = xp.broadcast_to(a, (*batch, *a.shape[-2:]))
    return solve(a, b)


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
    return (_NO,) * (len(args) - 1)


def _register(
    name: str, rrule: Any, frule: Any, sigs: tuple[Signature, Signature], examples: Any, **meta: Any
) -> None:
    """Register ``rrule(sig, *args, **kwargs)`` / ``frule(sig, tangents, *args, **kwargs)`` for
    the standard's ``linalg.<name>`` (signature ``sigs[0]``) and NumPy's ``numpy:linalg.<name>``
    (``sigs[1]``); ``examples(rng, numpy)`` builds each one's examples."""
    for target, sig, numpy in (
        (f"linalg.{name}", sigs[0], False),
        (f"numpy:linalg.{name}", sigs[1], True),
    ):
        ex = partial(examples, numpy=numpy)
        register_rrule(target, examples=ex, **meta)(_with(rrule, sig))
        register_frule(target, examples=ex, **meta)(_with(frule, sig))


def _with(rule: Any, sig: Signature) -> Any:
    """``rule`` with its first argument, the call's signature, given."""

    @wraps(rule)
    def bound(*args: Any, **kwargs: Any) -> Any:
        return rule(sig, *args, **kwargs)

    return bound


# --- cholesky ----------------------------------------------------------------------------------
def _phi(xp: Any, m: Any) -> Any:
    """``Φ(M)``: the lower triangle with the diagonal halved."""
    return (xp.tril(m) + xp.tril(m, k=-1)) / 2


def cholesky_back(factor: Any, factor_bar: Any, upper: bool = False) -> Any:
    """The pullback of ``cholesky``: the Hermitian cotangent of ``A`` given the factor
    (``L``, or ``U = L^H`` with ``upper``) and its cotangent.

    ``A_bar = L^-H (P + P^H) L^-1 / 2`` with ``P = Φ(L^H tril(L_bar))``, built from ``matmul``,
    ``linalg.solve``, ``matrix_transpose``, ``conj`` and ``tril`` only, so that it can be
    differentiated again. The two solves by ``L^H`` are the library's own triangular solve where
    it has one (:func:`solve_lower`'s methods: SciPy for NumPy, torch, JAX, CuPy -- each
    differentiable by its library), else general solves, which the standard has.
    """
    xp = namespace_of(factor, factor_bar)
    if upper:
        factor, factor_bar = _h(xp, factor), _h(xp, factor_bar)
    lh = _h(xp, factor)
    p = _phi(xp, lh @ xp.tril(factor_bar))
    x1 = solve_lower(factor, p + _h(xp, p), adjoint=True)  # L^-H S
    a0 = solve_lower(factor, _h(xp, x1), adjoint=True)  # L^-H S L^-1, conj-transposed (Hermitian)
    return (a0 + _h(xp, a0)) / 4


# --- L^-1 b and L^-H b: the standard's general solve, and each library's triangular one ------
@specialise
def solve_lower(low: Any, b: Any, adjoint: bool = False) -> Any:
    """``L^-H b`` (``adjoint``) or ``L^-1 b`` for a lower-triangular ``L`` (``(..., n, n)``) and
    ``b`` (``(..., n, k)``, batch axes broadcast). The standard has no triangular solve, so the
    generic way is ``linalg.solve`` (an LU factorisation, about 2.7x the flops): with it the
    ``cholesky`` pullback took 1.9x the hand-written ``solve_triangular`` formula at n = 200.
    The methods below are the libraries' own triangular solves, each differentiable by its
    library (so a pullback that calls one can be differentiated again there)."""
    xp = namespace_of(low, b)
    return xp.linalg.solve(_h(xp, low) if adjoint else low, b)


_SCIPY_SOLVE: list[Any] = []  # [scipy.linalg.solve_triangular or None], filled on first use


def _scipy_solve_triangular() -> Any:
    if not _SCIPY_SOLVE:
        try:
            import scipy
            from scipy.linalg import solve_triangular
        except ImportError:  # pragma: no cover - SciPy is optional
            solve_triangular = None
        else:
            major, minor = (int(v) for v in scipy.__version__.split(".")[:2])
            if (major, minor) < (1, 15):  # no broadcasting of batch axes before 1.15
                plain = solve_triangular

                def solve_triangular(a: Any, b: Any, **kw: Any) -> Any:
                    return plain(a, b, **kw) if a.ndim == 2 and b.ndim == 2 else NotImplemented

        _SCIPY_SOLVE.append(solve_triangular)
    return _SCIPY_SOLVE[0]


@solve_lower.method("numpy")
def _solve_lower_numpy(low: Any, b: Any, adjoint: bool = False) -> Any:
    """SciPy's ``solve_triangular`` (imported on first use), for NumPy arrays of one floating
    dtype; SciPy refuses zero-size batches, whose result is the empty array."""
    import numpy as np

    if type(low) is not np.ndarray or type(b) is not np.ndarray or low.dtype != b.dtype:
        return NotImplemented
    solve = _scipy_solve_triangular()
    if solve is None or low.dtype.kind not in "fc":
        return NotImplemented
    if low.size == 0 or b.size == 0:
        batch = np.broadcast_shapes(low.shape[:-2], b.shape[:-2])
        return np.zeros((*batch, *b.shape[-2:]), low.dtype)
    return solve(low, b, lower=True, trans="C" if adjoint else "N", check_finite=False)


@solve_lower.method("torch")
def _solve_lower_torch(low: Any, b: Any, adjoint: bool = False) -> Any:
    """``torch.linalg.solve_triangular``, which broadcasts only over batch axes both have."""
    import torch

    if not isinstance(b, torch.Tensor) or low.dtype != b.dtype:
        return NotImplemented
    if not (low.is_floating_point() or low.is_complex()):
        return NotImplemented
    if low.ndim != b.ndim:
        batch = torch.broadcast_shapes(low.shape[:-2], b.shape[:-2])
        low = low.expand(*batch, *low.shape[-2:])
        b = b.expand(*batch, *b.shape[-2:])
    if adjoint:
        return torch.linalg.solve_triangular(low.mH, b, upper=True)
    return torch.linalg.solve_triangular(low, b, upper=False)


@solve_lower.method("jax")
def _solve_lower_jax(low: Any, b: Any, adjoint: bool = False) -> Any:
    """``jax.scipy.linalg.solve_triangular`` (concrete arrays and JAX's tracers alike)."""
    import jax
    from jax.scipy.linalg import solve_triangular

    if not isinstance(b, jax.Array) or low.dtype != b.dtype:
        return NotImplemented
    return solve_triangular(low, b, lower=True, trans="C" if adjoint else "N")


@solve_lower.method("cupy")
def _solve_lower_cupy(low: Any, b: Any, adjoint: bool = False) -> Any:  # pragma: no cover
    """``cupyx.scipy.linalg.solve_triangular``: single matrices only."""
    if low.ndim != 2 or b.ndim != 2 or low.dtype != b.dtype:
        return NotImplemented
    from cupyx.scipy.linalg import solve_triangular

    return solve_triangular(low, b, lower=True, trans="C" if adjoint else "N")


def _cholesky_dot(xp: Any, factor: Any, x_dot: Any, upper: bool) -> Any:
    low = _h(xp, factor) if upper else factor
    y = _solve(xp, low, _herm(xp, x_dot), solve_lower)  # L^-1 dA
    z = _solve(xp, low, _h(xp, y), solve_lower)  # (L^-1 dA L^-H)^H = L^-1 dA L^-H
    d = low @ _phi(xp, z)
    return _h(xp, d) if upper else d


@register_rrule("linalg.cholesky", examples=lambda rng: _cholesky_ex(rng), hermitian=(0,))
def _cholesky_rrule(x: Any, /, *, upper: bool = False) -> Any:
    xp = namespace_of(x, fname="linalg.cholesky")
    _square("linalg.cholesky", x)
    y = xp.linalg.cholesky(x, upper=upper)
    project = ProjectTo(x, xp)

    @pullback(y, (x,), name="linalg.cholesky")
    def cholesky_pullback(y_bar: Any) -> Any:
        return project(cholesky_back(y, y_bar, upper=upper))

    return y, cholesky_pullback


@register_frule("linalg.cholesky", examples=lambda rng: _cholesky_ex(rng), hermitian=(0,))
def _cholesky_frule(tangents: Any, x: Any, /, *, upper: bool = False) -> Any:
    xp = namespace_of(x, fname="linalg.cholesky")
    _square("linalg.cholesky", x)
    y = xp.linalg.cholesky(x, upper=upper)
    t = tangents_in("linalg.cholesky", tangents, (x,))
    if t is None:
        return y, _ZERO
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
    res = xp.linalg.eigh(x) if uplo in ("L", "l") else xp.linalg.eigh(x, UPLO=uplo)
    return xp, x, res


def _eigh_back(xp: Any, w: Any, v: Any, w_bar: Any, v_bar: Any) -> Any:
    """``herm(V (diag(w_bar) + F ∘ (V^H V_bar)) V^H)``; ``None`` stands for a zero cotangent."""
    inner = None
    if v_bar is not None:
        inner = _inverse_gaps(xp, w, w.shape[-1]) * (_h(xp, v) @ v_bar)
    if w_bar is not None:
        d = _eye_times(xp, w_bar, v.dtype)
        inner = d if inner is None else inner + d
    return _herm(xp, v @ inner @ _h(xp, v))


def _eigh_dot(xp: Any, w: Any, v: Any, x_dot: Any, vectors: bool) -> tuple[Any, Any]:
    k = _h(xp, v) @ _herm(xp, x_dot) @ v
    w_dot = _re(xp, xp.linalg.diagonal(k))
    v_dot = v @ (_inverse_gaps(xp, w, w.shape[-1]) * k) if vectors else None
    return in_dtype(xp, w_dot, w.dtype), v_dot


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
        return res, _ZERO
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
        return w, _ZERO
    return w, _eigh_dot(xp, w, v, t[0], vectors=False)[0]


# hermitian=(0,): argument 0 is read as a Hermitian matrix (one triangle); the testers perturb it
# along Hermitian directions
# gauge=True: the eigen/singular vectors' signs (phases) are the library's choice, so outputs
# and cotangents of two libraries compare only through gauge-invariant functions
_register(
    "eigh",
    _eigh_rrule,
    _eigh_frule,
    (_EIGH, _NP_EIGH),
    lambda rng, numpy: _eigh_ex(rng, numpy),
    hermitian=(0,),
    gauge=True,
)
_register(
    "eigvalsh",
    _eigvalsh_rrule,
    _eigvalsh_frule,
    (_EIGVALSH, _NP_EIGVALSH),
    lambda rng, numpy: _eigvalsh_ex(rng, numpy),
    hermitian=(0,),
)


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
def finite_svd(xp: Any, x: Any, full_matrices: bool = True) -> Any:
    """``xp.linalg.svd(x, full_matrices=...)``, with every factor NaN for a matrix holding a
    non-finite entry. The SVD with vectors of a matrix holding an ``inf`` never returns in some
    OpenBLAS builds (and raises ``LinAlgError`` at a NaN), so the SVD is taken of a finite
    stand-in -- non-finite entries replaced by zero -- and its results for the non-finite
    matrices replaced by NaN: masks and ``where`` on the device, no host read. At a finite ``x``
    the result is that of ``xp.linalg.svd`` itself, of the same result type."""
    ok = xp.isfinite(x)
    good = xp.all(ok, axis=(-2, -1))
    res = xp.linalg.svd(xp.where(ok, x, xp.zeros_like(x)), full_matrices=full_matrices)
    u, s, vh = res[0], res[1], res[2]
    s = xp.where(good[..., None], s, xp.full_like(s, float("nan")))
    u = xp.where(good[..., None, None], u, xp.full_like(u, float("nan")))
    vh = xp.where(good[..., None, None], vh, xp.full_like(vh, float("nan")))
    if hasattr(res, "_fields"):  # NumPy's and JAX's SVDResult
        return type(res)(u, s, vh)
    if type(res) is not tuple:  # torch's return type (a struct sequence)
        return type(res)((u, s, vh))
    return u, s, vh


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


def _svd_factors(res: Any, full: bool) -> tuple[Any, Any, Any, Any, Any]:
    """``(U, s, Vh, U2, Vh2)`` of ``svd``'s result (``full``: it has full matrices)."""
    u, s, vh = res[0], res[1], res[2]
    m, n = u.shape[-2], vh.shape[-1]
    k = min(m, n)
    u2 = u[..., :, k:] if full and m > k else None
    vh2 = vh[..., k:, :] if full and n > k else None
    return u[..., :, :k], s, vh[..., :k, :], u2, vh2


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


def _svd_back(xp: Any, f: tuple[Any, ...], u_bar: Any, s_bar: Any, vh_bar: Any) -> Any:
    """``A_bar`` of ``svd`` (see the maths notes) from the factors ``f``; ``None`` stands for a
    zero cotangent."""
    u, s, vh, u2, vh2 = f
    m, n, k = u.shape[-2], vh.shape[-1], s.shape[-1]
    dtype = u.dtype
    if u2 is not None and u_bar is not None:
        u_bar, u2_bar = u_bar[..., :, :k], u_bar[..., :, k:]
        u_bar = _complement_back(xp, u, u2, u_bar, u2_bar)
    if vh2 is not None and vh_bar is not None:
        vh_bar, vh2_bar = vh_bar[..., :k, :], vh_bar[..., k:, :]
        v_bar = _complement_back(xp, _h(xp, vh), _h(xp, vh2), _h(xp, vh_bar), _h(xp, vh2_bar))
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
            _inverse_gaps(xp, s, max(m, n)) * both + _inverse_gaps(xp, s, max(m, n), True) * diff
        ) / 2
        inner = term if inner is None else inner + term
    if s_bar is not None:
        d = _eye_times(xp, s_bar, dtype)
        inner = d if inner is None else inner + d
    g = u @ inner @ vh
    return g if outer is None else g + outer


def _svd_back_s(xp: Any, f: tuple[Any, ...], s_bar: Any) -> Any:
    """``U diag(s_bar) V^H`` (the pullback of the singular values alone)."""
    u, vh = f[0], f[2]
    return (u * xp.astype(s_bar, u.dtype)[..., None, :]) @ vh


def _svd_dot(xp: Any, f: tuple[Any, ...], x_dot: Any, vectors: bool) -> tuple[Any, Any, Any]:
    u, s, vh, u2, vh2 = f
    m, n, k = u.shape[-2], vh.shape[-1], s.shape[-1]
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
    if u2 is not None:
        du = xp.concat([du, _complement_dot(xp, u, u2, du)], axis=-1)
    if vh2 is not None:
        dv = xp.concat([dv, _complement_dot(xp, v, _h(xp, vh2), dv)], axis=-1)
    return du, s_dot, _h(xp, dv)


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
        return y, _ZERO
    uv = isinstance(y, tuple)
    du, ds, dvh = _svd_dot(xp, f, _herm(xp, t[0]) if herm else t[0], vectors=uv)
    return y, Tangent(du, ds, dvh, primal_type=type(y)) if uv else ds


_register(
    "svd",
    _svd_rrule,
    _svd_frule,
    (_SVD, _NP_SVD),
    lambda rng, numpy: _svd_ex(rng, numpy),
    gauge=True,
)


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
        return s, _ZERO
    return s, in_dtype(xp, _svd_dot(xp, f, t[0], vectors=False)[1], s.dtype)


def named_singular(name: str, why: str, call: Any) -> Any:
    """``call()``, with the backend's ``LinAlgError`` at a singular matrix re-raised (the same
    type: NumPy's is a ``ValueError``) naming the rule and why it needs an inverse. No value is
    read; a backend that does not raise there (JAX) gives inf / NaN."""
    try:
        return call()
    except Exception as e:  # NumPy's / SciPy's LinAlgError, torch's _LinAlgError
        if "LinAlgError" not in type(e).__name__:
            raise
        raise type(e)(f"{name}: {why}, and the matrix is singular ({e})") from e


# --- qr ----------------------------------------------------------------------------------------
_QR = signature("linalg.qr", lambda x, /, *, mode="reduced", out=None: None)
_NP_QR = signature("linalg.qr", lambda x, /, mode="reduced", *, out=None: None)


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
    q, r = xp.linalg.qr(x, mode="complete" if mode == "complete" else "reduced")
    q2 = q[..., :, k:] if mode == "complete" and m > n else None
    return xp, x, r if mode == "r" else (q, r), (q[..., :, :k], r[..., :k, :], q2)


def _qr_back(
    xp: Any, x: Any, f: tuple[Any, Any, Any], q_bar: Any, r_bar: Any, name: str = "linalg.qr"
) -> Any:
    """``A_bar`` of ``qr`` from the factors ``f``; ``None`` stands for a zero cotangent. At a
    rank-deficient ``A`` the backend's LinAlgError is re-raised naming ``name``."""
    return named_singular(name, _QR_WHY, lambda: _qr_back_raw(xp, x, f, q_bar, r_bar))


def _qr_back_raw(xp: Any, x: Any, f: tuple[Any, Any, Any], q_bar: Any, r_bar: Any) -> Any:
    q, r, q2 = f
    m, n, k = x.shape[-2], x.shape[-1], r.shape[-2]
    if q2 is not None:
        if q_bar is not None:
            q_bar = _complement_back(xp, q, q2, q_bar[..., :, :k], q_bar[..., :, k:])
        if r_bar is not None:
            r_bar = r_bar[..., :k, :]  # the rows below are 0 whatever A is
    if m >= n:
        return _qr_square_back(xp, q, r, q_bar, r_bar)
    # wide: A = [X | Y], X = Q R1, R2 = Q^H Y
    r1, y = r[..., :, :m], x[..., :, m:]
    r1_bar = None if r_bar is None else r_bar[..., :, :m]
    y_bar = None
    if r_bar is not None:
        r2_bar = r_bar[..., :, m:]
        extra = y @ _h(xp, r2_bar)
        q_bar = extra if q_bar is None else q_bar + extra
        y_bar = q @ r2_bar
    x_bar = _qr_square_back(xp, q, r1, q_bar, r1_bar)
    if y_bar is None:
        y_bar = xp.zeros_like(y)
    return xp.concat([x_bar, y_bar], axis=-1)


def _qr_dot(
    xp: Any, x: Any, f: tuple[Any, Any, Any], x_dot: Any, name: str = "linalg.qr"
) -> tuple[Any, Any]:
    """``(dQ, dR)`` of ``qr``; at a rank-deficient ``A`` a LinAlgError naming ``name``."""
    return named_singular(name, _QR_WHY, lambda: _qr_dot_raw(xp, x, f, x_dot))


def _qr_dot_raw(xp: Any, x: Any, f: tuple[Any, Any, Any], x_dot: Any) -> tuple[Any, Any]:
    q, r, q2 = f
    m, n = x.shape[-2], x.shape[-1]
    if m >= n:
        dq, dr = _qr_square_dot(xp, q, r, x_dot)
    else:
        dq, dr1 = _qr_square_dot(xp, q, r[..., :, :m], x_dot[..., :, :m])
        dr2 = _h(xp, dq) @ x[..., :, m:] + _h(xp, q) @ x_dot[..., :, m:]
        dr = xp.concat([dr1, dr2], axis=-1)
    if q2 is not None:
        dq = xp.concat([dq, _complement_dot(xp, q, q2, dq)], axis=-1)
        dr = xp.concat(
            [dr, xp.zeros((*dr.shape[:-2], m - n, n), dtype=dr.dtype, device=device_of(dr))],
            axis=-2,
        )
    return dq, dr


# the derivative of Q is not defined at a rank-deficient matrix (Q's columns past the rank are
# arbitrary there): no finite limit, a clear error
_QR_WHY = "the derivative needs R^-1 (Q is not differentiable below full rank)"


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
        return y, _ZERO
    dq, dr = _qr_dot(xp, x, f, t[0], sig.name)
    return y, Tangent(dq, dr, primal_type=type(y)) if isinstance(y, tuple) else dr


_register("qr", _qr_rrule, _qr_frule, (_QR, _NP_QR), lambda rng, numpy: _qr_ex(rng, numpy))
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
