"""SciPy's functions for the stand-in: ufuncs reach chainrules.ad through NumPy's protocol; a
Python function with a registered rule (``logsumexp``, ``sqrtm``, ...) is handed to the engine
so that its rule is used -- called directly, its body would run on the traced values."""

from chainrules.ad._core import dispatch
from chainrules.core.registry import find_rrule


def routed(module):
    out = {}
    for name in dir(module):
        if name.startswith("_"):
            continue
        f = getattr(module, name)
        if callable(f) and type(f).__name__ == "function" and find_rrule(f) is not None:
            out[name] = _through_engine(f)
        else:
            out[name] = f
    return out


def _through_engine(f):
    def call(*args, **kwargs):
        return dispatch(f, args, kwargs)

    call.__name__ = f.__name__
    call.__doc__ = f.__doc__
    call.__wrapped__ = f
    return call
