"""autograd.builtins: chainrules.ad.builtins (Python's containers; ``isinstance`` and ``type``
that look through traced values)."""

from chainrules.ad.builtins import dict, isinstance, list, tuple, type

__all__ = ["dict", "isinstance", "list", "tuple", "type"]
