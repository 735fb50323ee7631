"""PyTorch fast paths: where a plain CPU tensor lets a rule skip work that the portable,
device-safe formula must do.

Each function returns ``False`` (or ``None``) when it does not apply, and the caller takes the
generic path. torch is found in ``sys.modules``, never imported here (a tensor cannot exist
before ``torch`` was imported), so ``import chainrules`` imports no torch.

* :func:`no_inf`: the host check of ``numpy_fast.no_inf`` for a plain CPU tensor. The norms'
  limits at infinite entries (a count and four masked passes over the array) cost eager torch,
  which fuses nothing, 3-7x the plain pullback at n = 1e6; a CPU tensor's values are in host
  memory and computed when the call returns, so reading the reduced norm forces no device
  synchronisation. Anything that is not a plain eager CPU tensor -- CUDA and other devices,
  ``torch.func``'s wrapped tensors (``grad``, ``vmap``), fake and functional tensors, code that
  ``torch.compile`` traces -- gives ``False``: the masked formula, with no host read and no graph
  break.

``tests/core/test_torch_fast.py`` checks when it applies and that the rules agree either way.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["no_inf"]


def no_inf(a: Any) -> bool:
    """True when ``a`` is a plain eager CPU tensor with no infinite entry (see the module)."""
    torch = sys.modules.get("torch")
    if torch is None or type(a) is not torch.Tensor or a.device.type != "cpu":
        return False
    if torch._C._functorch.is_functorch_wrapped_tensor(a) or torch.compiler.is_compiling():
        return False
    if torch.jit.is_tracing() or torch.jit.is_scripting():
        return False
    return not bool(torch.isinf(a).any())
