"""autograd's containers are Python's own here (chainrules.ad takes tuples, lists and dicts);
``isinstance`` looks through traced values, as autograd's looks through boxes."""

import builtins as _b
from builtins import dict, list, tuple, type  # noqa: UP029 (autograd.dict ...)

from chainrules.ad import Tracer as _Tracer


def isinstance(obj, classinfo):
    while _b.isinstance(obj, _Tracer):
        obj = obj._value
    return _b.isinstance(obj, classinfo)


__all__ = ["dict", "isinstance", "list", "tuple", "type"]
