"""autograd's ``builtins`` (``autograd.builtins``), for code ported from autograd.

autograd traces values in boxes, and a Python container of boxes is not itself traced, so it
offers differentiable ``list``, ``tuple`` and ``dict`` constructors, and an ``isinstance`` and a
``type`` that look inside boxes. ``chainrules.ad`` differentiates pytrees natively: a tuple, list,
named tuple or dict of arrays may be an argument or a result of any transformation, nested, and its
derivative has the same structure. So:

* ``list``, ``tuple``, ``dict`` are Python's own (re-exported here so that
  ``from autograd.builtins import list`` ports by changing the module name);
* ``isinstance(x, cls)`` and ``type(x)`` see the value under every level of tracing: inside a
  transformation, ``isinstance(x, numpy.ndarray)`` is ``True`` for a traced NumPy array, as it is
  outside. (Python's own ``isinstance`` sees a ``chainrules.ad.Tracer`` there.)

>>> import numpy as np
>>> from chainrules import ad
>>> from chainrules.ad.builtins import isinstance
>>> ad.grad(lambda x: np.sum(x) if isinstance(x, np.ndarray) else 0.0)(np.ones(2))
array([1., 1.])
"""

from __future__ import annotations

import builtins as _builtins
from builtins import dict, list, tuple  # noqa: UP029  (autograd's names: Python's own here)
from typing import Any

from ._tracer import primal

__all__ = ["dict", "isinstance", "list", "tuple", "type"]


def isinstance(obj: Any, classinfo: Any) -> bool:
    """Python's ``isinstance`` of the value under every level of tracing of ``obj``."""
    return _builtins.isinstance(primal(obj), classinfo)


def type(obj: Any) -> Any:
    """The type of the value under every level of tracing of ``obj`` (one-argument ``type``)."""
    return _builtins.type(primal(obj))
