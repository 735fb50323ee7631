"""The adjugate of a (stack of) square matrices, a function with rules of its own: ``det``'s
gradient (``numpy.linalg.det``'s and ``scipy.linalg.det``'s) is ``adjugate(x)^H``, and its
second derivative differentiates the adjugate's rules."""

from __future__ import annotations

from typing import Any

import array_api_compat

from ...core.prelude import *
from . import in_dtype
from .linalg import _bcast, _complex, _h, _matrix_arg, finite_svd


@traceable
def adjugate(x: Any) -> Any:
    """The adjugate ``adj(x)`` of a (stack of) square matrices: ``det(x) inv(x)`` where ``x`` is
    invertible, and its continuous extension where it is not (finite, exact for rank ``n - 1``,
    zero below). Computed from the SVD ``x = U S V^H`` as ``det(U) det(V^H) V diag(p) U^H`` with
    ``p_i`` the product of the singular values other than ``s_i``: no inverse, no division, no
    host read. ``det``'s gradient is ``adjugate(x)^H``.

    A function with rules of its own, so that ``det``'s pullback differentiates again (its
    Hessian): traced through the SVD instead, the derivative at a singular ``x`` -- repeated zero
    singular values, where the SVD's derivative divides by ``s_i^2 - s_j^2`` -- was wrong."""
    return _adjugate_parts(x)[0]


def _adjugate_parts(x: Any) -> Any:
    """``(adj(x), xp, U, V^H, c, Q)`` with ``c = det(U) det(V^H)`` and ``Q_ij`` the product of
    the singular values other than ``s_i`` and ``s_j`` (``Q_ii = 0``), computed lazily."""
    xp = namespace_of(x, fname="adjugate")
    _matrix_arg("adjugate", x)
    u, s, vh = finite_svd(xp, x, False)  # NaN at a non-finite x, never a hang
    n = s.shape[-1]
    dev = array_api_compat.device(x)
    own = xp.eye(n, dtype=s.dtype, device=dev) == 1
    stretched = xp.expand_dims(s, axis=-2)  # (..., 1, n): row i will leave out s_i
    p = xp.prod(xp.where(own, xp.ones_like(stretched), stretched), axis=-1)
    c = xp.linalg.det(u) * xp.linalg.det(vh)
    vp = _h(xp, vh) * xp.astype(xp.expand_dims(p, axis=-2), vh.dtype)
    adj = _bcast(xp, c) * xp.matmul(vp, _h(xp, u))

    def q() -> Any:
        k = xp.arange(n, device=dev)
        left = (k[:, None, None] == k[None, None, :]) | (k[None, :, None] == k[None, None, :])
        s3 = xp.expand_dims(xp.expand_dims(s, axis=-2), axis=-2)  # (..., 1, 1, n)
        prod = xp.prod(xp.where(left, xp.ones_like(s3), s3), axis=-1)  # (..., n, n)
        return xp.where(own, xp.zeros_like(prod), prod)

    return adj, xp, u, vh, c, q


def _adjugate_dot(xp: Any, q: Any, m: Any) -> Any:
    """``d adj(S)[M]`` at a diagonal ``S``: ``diag(Q diag(M)) - Q * M`` (``Q_ii = 0``). It is
    its own adjoint in the real inner product (``Q`` is real and symmetric)."""
    n = m.shape[-1]
    diag = xp.linalg.diagonal(m)  # (..., n)
    qd = xp.sum(q * xp.expand_dims(diag, axis=-2), axis=-1)  # (Q diag(M))_i
    eye = xp.eye(n, dtype=m.dtype, device=array_api_compat.device(m))
    return xp.expand_dims(qd, axis=-1) * eye - q * m


# adj(U (S + M) V^H) = c V adj(S + M) U^H exactly, for the fixed unitary U and V of x's SVD, and
# adj is a polynomial: d adj(x)[dx] = c V (d adj(S)[U^H dx V]) U^H, exact at every rank (no
# division by gaps between singular values). The pullback is the adjoint of each step.
@register_rrule(adjugate)
def _adjugate_rrule(x: Any) -> Any:
    adj, xp, u, vh, c, q = _adjugate_parts(x)
    project = ProjectTo(x, xp)

    @pullback(adj, (x,), name="adjugate")
    def adjugate_pullback(g: Any) -> Any:
        cc = xp.conj(c) if _complex(xp, c) else c
        k = _bcast(xp, cc) * (vh @ g @ u)  # conj(c) V^H G U
        qm = xp.astype(q(), k.dtype)
        return project(u @ _adjugate_dot(xp, qm, k) @ vh)

    return adj, adjugate_pullback


@register_frule(adjugate)
def _adjugate_frule(tangents: Any, x: Any) -> Any:
    adj, xp, u, vh, c, q = _adjugate_parts(x)
    t = tangents_in("adjugate", tangents, (x,))
    if t is None:
        return adj, ZERO
    uh, v = _h(xp, u), _h(xp, vh)
    m = uh @ t[0] @ v
    d = _bcast(xp, c) * (v @ _adjugate_dot(xp, xp.astype(q(), m.dtype), m) @ uh)
    return adj, in_dtype(xp, d, adj.dtype)
