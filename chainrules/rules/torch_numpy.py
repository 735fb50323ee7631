"""PyTorch's own functions of NumPy's names, and the few of its own names that array-api-extra and
SciPy call on torch tensors: ``torch.sinc``, ``torch.kron``, ``torch.nan_to_num``,
``torch.nanmean``, ``torch.einsum``, ``torch.cov``, ``torch.diag_embed``, ``torch.special.psi``,
the comparisons ``torch.eq``, ``ne``, ``lt``, ``le``, ``gt``, ``ge`` and
``torch.nn.functional.pad``.

array-api-extra (``xpx.sinc``, ``kron``, ``nan_to_num``, ``nanmean``) and SciPy delegate to the
first four on torch tensors; ``torch.kron``'s rules call ``einsum``, which a second derivative
records as ``torch.einsum`` (NumPy's ``einsum`` rules, tested for the subscripts-string form;
torch's ``einsum(eq, [a, b])`` with a list of operands is not bound).

Their signatures agree with NumPy's for every call those libraries
make, so the ``"numpy:NAME"`` rules (in ``elementwise``, ``linear_algebra``, ``elementwise_numpy``
and ``statistical.sums``) cover them: this module registers ``torch`` as a NumPy-signature
namespace for these names only. Where torch's signature differs, the NumPy rule's binder refuses
the call with an error naming the function and the argument, never a silent misreading:

* ``torch.nanmean(x, dim=..., keepdim=...)``: only NumPy's spelling (``axis=``, which torch also
  takes, and ``keepdims=``) is bound;
* ``torch.nan_to_num(x, nan, posinf, neginf)``: torch's fill values are Python floats (no tangent
  space), and the cotangent of ``x`` does not depend on them, so a positional call is differentiated
  correctly although NumPy's second parameter is ``copy``.

Rules of torch's own signature, registered as ``"numpy:torch.NAME"`` (a name only ``torch``
answers for, through ``register_namespace("torch", "numpy", prefix="torch.")``, so NumPy's
``cov`` rule never meets torch's keywords):

* ``torch.cov(input, *, correction=1, fweights=None, aweights=None)`` (``xpx.cov``): NumPy's
  ``cov`` with ``rowvar=True`` and ``ddof=correction``; the weights get no cotangent;
* ``torch.diag_embed(input, offset=0, dim1=-2, dim2=-1)`` (``xpx.create_diagonal``): linear; the
  cotangent is the diagonal of the output's cotangent, the pushforward embeds the tangent.

``torch.eq``, ``ne``, ``lt``, ``le``, ``gt``, ``ge`` (names the standard does not have: its
``equal``, ``less``... are declared in ``elementwise``) are declared non-differentiable, as
``"numpy:torch.eq"`` and so on: SciPy calls them on torch tensors (``a == max_`` inside a Hessian
reaches ``torch.eq`` on the inner level's tracers).

``torch.nn.functional.pad(input, pad, mode="constant", value=None)`` (``xpx.pad`` on torch):
``mode="constant"`` only (other modes are refused, naming the mode); ``pad`` pairs from the last
axis backwards, negative entries crop; ``value`` gets no tangent. The cotangent is the output's
cotangent with the padding sliced off (and zeros where the call cropped); the pushforward pads
the tangent with zeros.

``torch.special.psi`` is an alias of ``digamma`` but a function object of its own, so the
``"scipy:special.digamma"`` rule does not reach it: ``"scipy:special.psi"`` (``scipy.special.psi``
*is* ``digamma``) is registered with digamma's derivative, and ``torch.special`` answers for it.
"""

from __future__ import annotations

import sys
from typing import Any

import array_api_compat

from ..core.adapters import register_adapter
from ..core.prelude import *
from ..core.registry import register_namespace
from ._util import in_dtype, moveaxis
from ._util.special import _polygamma, elementwise
from ._util.statistical import Cov

__all__: list[str] = []  # rules only


# torch's functions whose calls by array-api-extra and SciPy follow NumPy's signature
TORCH_NUMPY_NAMES = frozenset({"sinc", "kron", "nan_to_num", "nanmean", "einsum"})
register_namespace("torch", "numpy", names=TORCH_NUMPY_NAMES)
# torch's functions with rules of their own signature, registered as "numpy:torch.NAME"
TORCH_OWN_NAMES = frozenset({"cov", "diag_embed", "eq", "ne", "lt", "le", "gt", "ge"})
register_namespace("torch", "numpy", names=TORCH_OWN_NAMES, prefix="torch.")


def _torch() -> Any:
    return sys.modules["torch"]  # a torch function was called: torch is imported


# --- torch.cov ------------------------------------------------------------------------------------
_TORCH_COV = signature(
    "torch.cov", lambda input, *, correction=1, fweights=None, aweights=None: None
)


def _cov_parts(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Cov, Any]:
    a = _TORCH_COV.bind(args, kwargs)
    spec = {
        "m": a["input"],
        "y": None,
        "rowvar": True,
        "ddof": a["correction"],
        "fweights": a["fweights"],
        "aweights": a["aweights"],
    }
    c = Cov("torch.cov", spec)
    if array_api_compat.is_torch_array(spec["m"]):
        return c, _torch().cov(*args, **kwargs)
    # any other array (a guarded device array in the checks): the same value from Cov
    C = c.C if c.C.shape[0] > 1 else c.xp.reshape(c.C, ())
    return c, in_dtype(c.xp, C, spec["m"].dtype)


def _torch_cov_rrule(*args: Any, **kwargs: Any) -> Any:
    c, y = _cov_parts(args, kwargs)
    xp = c.xp

    @pullback(y, args, name="torch.cov")
    def torch_cov_pullback(y_bar: Any) -> Any:
        p = c.C.shape[0]
        Cb = in_dtype(xp, xp.reshape(y_bar, (p, p)), c.Xc.dtype)
        X_bar = ((Cb + xp.matrix_transpose(Cb)) @ c.Xcw) / c.fact
        return c.back(X_bar)[0]

    return y, torch_cov_pullback


def _torch_cov_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    c, y = _cov_parts(args, kwargs)
    xp = c.xp
    ts = tangents_in("torch.cov", tangents, args)
    if ts is None or not ProjectTo(c.m, xp).differentiable:
        return y, ZERO
    lead = ts.lead()
    dC = c.C_dot(c.X_dot(ts[0], ZERO, ts.extra, lead))
    return y, in_dtype(xp, xp.reshape(dC, (*lead, *tuple(y.shape))), y.dtype)


def _cov_ex(rng: Any) -> list[Any]:
    m = rng.standard_normal((3, 6))
    return [
        ((m,), {}),
        ((m,), {"correction": 0}),
        ((m,), {"correction": 2}),
        ((rng.standard_normal(6),), {}),  # one variable: a 0-d result
    ]


register_rrule("numpy:torch.cov", examples=_cov_ex)(_torch_cov_rrule)
register_frule("numpy:torch.cov", examples=_cov_ex)(_torch_cov_frule)


# --- torch.diag_embed -----------------------------------------------------------------------------
_DIAG_EMBED = signature("torch.diag_embed", lambda input, offset=0, dim1=-2, dim2=-1: None)


def _embed_parts(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, int, int, int]:
    a = _DIAG_EMBED.bind(args, kwargs)
    x = a["input"]
    xp = namespace_of(x, fname="torch.diag_embed")
    offset, nd = a["offset"], x.ndim + 1
    if array_api_compat.is_torch_array(x):
        y = _torch().diag_embed(*args, **kwargs)  # checks offset and the dims first
    elif not all(isinstance(d, int) and -nd <= d < nd for d in (a["dim1"], a["dim2"])):
        raise ValueError(
            f"torch.diag_embed: dim1 and dim2 must be ints in [{-nd}, {nd}) for an input of "
            f"{x.ndim} dimensions, got {a['dim1']!r} and {a['dim2']!r}"
        )
    # negative dims: the same axes of a tangent or cotangent with leading chunk axes
    d1, d2 = a["dim1"] % nd - nd, a["dim2"] % nd - nd
    if d1 == d2:
        raise ValueError(f"torch.diag_embed: dim1 and dim2 must differ, got {d1} and {d2}")
    if not array_api_compat.is_torch_array(x):  # a guarded device array in the checks
        y = _embed(xp, x, offset, d1, d2)
    return xp, y, offset, d1, d2


def _embed(xp: Any, t: Any, offset: int, d1: int, d2: int) -> Any:
    """``diag_embed(t, offset, d1, d2)`` (``d1``, ``d2`` negative) with the standard's functions:
    ``R^T diag(t) C``, ``R`` and ``C`` the ``(n, n + |offset|)`` row and column selectors."""
    n = t.shape[-1]
    m = n + abs(offset)
    dev = array_api_compat.device(t)
    rows = xp.eye(n, m, k=max(-offset, 0), dtype=t.dtype, device=dev)
    cols = xp.eye(n, m, k=max(offset, 0), dtype=t.dtype, device=dev)
    z = (xp.matrix_transpose(rows) * xp.expand_dims(t, axis=-2)) @ cols
    return moveaxis(xp, z, (-2, -1), (d1, d2))


def _diag_embed_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, y, offset, d1, d2 = _embed_parts(args, kwargs)
    project = ProjectTo(args[0], xp)
    rest = (NO,) * (len(args) - 1)  # offset, dim1, dim2 given positionally: integers

    @pullback(y, (args[0], *rest), name="torch.diag_embed")
    def torch_diag_embed_pullback(y_bar: Any) -> Any:
        g = moveaxis(xp, y_bar, (d1, d2), (-2, -1))
        x_bar = project(xp.linalg.diagonal(g, offset=offset))
        return (x_bar, *rest) if rest else x_bar

    return y, torch_diag_embed_pullback


def _diag_embed_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, y, offset, d1, d2 = _embed_parts(args, kwargs)
    ts = tangents_in("torch.diag_embed", tangents[:2], args[:1])
    if ts is None or isinstance(ts[0], AbstractZero):
        return y, ZERO
    return y, in_dtype(xp, _embed(xp, ts[0], offset, d1, d2), y.dtype)


def _diag_embed_ex(rng: Any) -> list[Any]:
    return [
        ((rng.standard_normal(3),), {}),
        ((rng.standard_normal(3), 1), {}),
        ((rng.standard_normal(3),), {"offset": -2}),
        ((rng.standard_normal((2, 3)),), {"dim1": 0, "dim2": 2}),
        ((rng.standard_normal((2, 3)),), {"offset": 1, "dim1": -1, "dim2": 0}),
    ]


register_rrule("numpy:torch.diag_embed", examples=_diag_embed_ex)(_diag_embed_rrule)
register_frule("numpy:torch.diag_embed", examples=_diag_embed_ex)(_diag_embed_frule)


# --- torch.special.psi ----------------------------------------------------------------------------
register_namespace(
    "torch.special", "scipy", names=frozenset({"psi"}), prefix="special.", library="torch"
)
elementwise("psi", lambda x, out=None: None, lambda c, x: _polygamma(c, 1, x), domain=((0.3, 2.5),))


# --- torch's comparisons --------------------------------------------------------------------------
# torch.eq, ne, lt, le, gt, ge: names the standard does not have (its equal, less... are
# declared in elementwise). SciPy's array-API code calls them on torch tensors directly, and a
# Hessian's comparisons run on tracers of the inner level.
def _cmp_ex(rng: Any) -> list[Any]:
    a = rng.standard_normal(4)
    return [((a, rng.standard_normal(4)), {}), ((rng.standard_normal((2, 3)), a[:3]), {})]


non_differentiable(
    *(f"numpy:torch.{n}" for n in ("eq", "ne", "lt", "le", "gt", "ge")), examples=_cmp_ex
)


# --- torch.nn.functional.pad ----------------------------------------------------------------------
_PAD = signature("torch.nn.functional.pad", lambda input, pad, mode="constant", value=None: None)


def _pad_parts(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, tuple[int, ...]]:
    a = _PAD.bind(args, kwargs)
    x, pad, mode = a["input"], a["pad"], a["mode"]
    fname = "torch.nn.functional.pad"
    if mode != "constant":
        raise NotImplementedError(
            f"{fname}: only mode='constant' has a rule (array-api-extra's pad calls no other), "
            f"got mode={mode!r}"
        )
    if not (
        isinstance(pad, (tuple, list))
        and all(isinstance(p, int) for p in pad)
        and len(pad) % 2 == 0
        and len(pad) <= 2 * x.ndim
    ):
        raise ValueError(
            f"{fname}: pad must be a sequence of ints of even length at most 2 * input.ndim "
            f"({2 * x.ndim}), got {pad!r}"
        )
    pad = tuple(pad)
    xp = namespace_of(x, fname=fname)
    if array_api_compat.is_torch_array(x):
        y = _torch().nn.functional.pad(*args, **kwargs)
    else:  # a guarded device array in the checks: the same value with the standard's functions
        v = a["value"]
        y = _pad(xp, x, pad, 0.0 if v is None else v)
    return xp, y, pad


def _pad(xp: Any, t: Any, pad: tuple[int, ...], value: Any) -> Any:
    """torch's constant ``pad`` with the standard's functions: pairs ``(before, after)`` from
    the last axis backwards; a negative entry crops. Negative axes, so leading chunk axes of a
    tangent pass through."""
    dev = array_api_compat.device(t)
    for i in range(len(pad) // 2):
        lo, hi = pad[2 * i], pad[2 * i + 1]
        axis, rest = -1 - i, (slice(None),) * i
        n = t.shape[axis]
        if lo < 0 or hi < 0:
            t = t[(..., slice(max(-lo, 0), n - max(-hi, 0)), *rest)]
        parts = []
        for w in (lo, hi):
            shape = list(t.shape)
            shape[axis] = max(w, 0)
            parts.append(xp.full(tuple(shape), value, dtype=t.dtype, device=dev))
        if lo > 0 or hi > 0:
            t = xp.concat([parts[0], t, parts[1]], axis=axis)
    return t


def _pad_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, y, pad = _pad_parts(args, kwargs)
    project = ProjectTo(args[0], xp)
    rest = (NO,) * (len(args) - 1)  # pad, mode, value: no tangent (value is a Python number)
    back = tuple(-p for p in pad)

    @pullback(y, (args[0], *rest), name="torch.nn.functional.pad")
    def torch_pad_pullback(y_bar: Any) -> Any:
        x_bar = project(_pad(xp, y_bar, back, 0.0))  # the slice of the input's entries
        return (x_bar, *rest) if rest else x_bar

    return y, torch_pad_pullback


def _pad_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, y, pad = _pad_parts(args, kwargs)
    ts = tangents_in("torch.nn.functional.pad", tangents[:2], args[:1])
    if ts is None or isinstance(ts[0], AbstractZero):
        return y, ZERO
    return y, in_dtype(xp, _pad(xp, ts[0], pad, 0.0), y.dtype)


def _pad_ex(rng: Any) -> list[Any]:
    return [
        ((rng.standard_normal(3), (1, 2)), {}),
        ((rng.standard_normal((2, 3)), (1, 1, 2, 0)), {"value": 0.5}),
        ((rng.standard_normal((3, 4)), (-1, 2)), {}),
    ]


register_namespace(
    "torch.nn.functional",
    "numpy",
    names=frozenset({"pad"}),
    prefix="torch.nn.functional.",
    library="torch",
)
register_rrule("numpy:torch.nn.functional.pad", examples=_pad_ex)(_pad_rrule)
register_frule("numpy:torch.nn.functional.pad", examples=_pad_ex)(_pad_frule)


# --- torch's functions that are the standard's (or SciPy's) under other parameter names ---------
# declared adapters (chainrules.core.adapters): torch.linalg.vector_norm(x, ord, dim, keepdim) is
# the standard's vector_norm(x, axis=, keepdims=, ord=), torch.logsumexp(input, dim, keepdim)
# SciPy's logsumexp(a, axis=, keepdims=): each takes the rules of its counterpart in the
# arguments' namespace
def _vector_norm_ex(rng: Any) -> list[Any]:
    m = rng.standard_normal((3, 4))
    return [
        ((m,), {}),
        ((m, 1), {"dim": 0}),
        ((m,), {"ord": float("inf"), "dim": (0, 1), "keepdim": True}),
        ((m, 3, -1), {}),
    ]


def _logsumexp_ex(rng: Any) -> list[Any]:
    m = rng.standard_normal((3, 4))
    return [((m, 1), {}), ((m, 0, True), {}), ((m,), {"dim": (0, 1)})]


register_namespace(
    "torch.linalg",
    "numpy",
    names=frozenset({"vector_norm"}),
    prefix="torch.linalg.",
    library="torch",
)
register_adapter(
    "numpy:torch.linalg.vector_norm",
    lambda xp: xp.linalg.vector_norm,
    signature(
        "torch.linalg.vector_norm",
        lambda x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None: None,
        unsupported=("out",),
    ),
    rename={"dim": "axis", "keepdim": "keepdims"},
    positional=("x",),
    dropped={"dtype": None, "out": None},
    module=__name__,
    examples=_vector_norm_ex,
)
register_namespace(
    "torch", "numpy", names=frozenset({"logsumexp"}), prefix="torch.", library="torch"
)


def _scipy_logsumexp(xp: Any) -> Any:
    import scipy.special

    return scipy.special.logsumexp


register_adapter(
    "numpy:torch.logsumexp",
    _scipy_logsumexp,
    signature(
        "torch.logsumexp",
        lambda input, dim, keepdim=False, *, out=None: None,
        unsupported=("out",),
    ),
    rename={"input": "a", "dim": "axis", "keepdim": "keepdims"},
    positional=("a",),
    dropped={"out": None},
    module=__name__,
    examples=_logsumexp_ex,
)
