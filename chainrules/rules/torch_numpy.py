"""PyTorch's own functions of NumPy's names: ``torch.sinc``, ``torch.kron``, ``torch.nan_to_num``
and ``torch.nanmean``.

array-api-extra (``xpx.sinc``, ``kron``, ``nan_to_num``, ``nanmean``) and SciPy delegate to these
on torch tensors. Their signatures agree with NumPy's for every call those libraries make, so the
``"numpy:NAME"`` rules (in ``elementwise``, ``linear_algebra``, ``elementwise_numpy`` and
``statistical``) cover them: this module registers ``torch`` as a NumPy-signature namespace for
these names only. Where torch's signature differs, the NumPy rule's binder refuses the call with an
error naming the function and the argument, never a silent misreading:

* ``torch.nanmean(x, dim=..., keepdim=...)``: only NumPy's spelling (``axis=``, which torch also
  takes, and ``keepdims=``) is bound;
* ``torch.nan_to_num(x, nan, posinf, neginf)``: torch's fill values are Python floats (no tangent
  space), and the cotangent of ``x`` does not depend on them, so a positional call is differentiated
  correctly although NumPy's second parameter is ``copy``.

``torch.cov`` (``correction=`` instead of ``ddof=``), ``torch.diag_embed`` and ``torch.special.psi``
have no rule yet.
"""

from __future__ import annotations

from ..core.registry import register_namespace

# torch's functions whose calls by array-api-extra and SciPy follow NumPy's signature
TORCH_NUMPY_NAMES = frozenset({"sinc", "kron", "nan_to_num", "nanmean"})
register_namespace("torch", "numpy", names=TORCH_NUMPY_NAMES)
