"""What ``torch.func`` transforms are active, for the torch and Keras bridges' errors."""

from __future__ import annotations

from torch._C._functorch import TransformType
from torch._functorch.pyfunctorch import retrieve_all_functorch_interpreters

_NAMES = {TransformType.Grad: "grad", TransformType.Jvp: "jvp", TransformType.Vmap: "vmap"}


def transform_stack() -> str:
    """The ``torch.func`` levels active now, outermost first: ``"vmap of jvp of grad"`` in
    ``torch.func.hessian`` (``jacfwd`` of ``jacrev``)."""
    levels = retrieve_all_functorch_interpreters()
    return " of ".join(_NAMES.get(i.key(), str(i.key())) for i in levels)
