"""``array_namespace`` of array-api-compat, and of the copies SciPy and scikit-learn vendor, made
to see a tracer's namespace when a tracer meets plain values of its own library.

Every copy maps a NumPy scalar (``numpy.bool_`` from ``ddof == n``, ``finfo(...).eps``) or a plain
array to *its own* wrapped namespace (``scipy._lib.array_api_compat.numpy``) and a tracer to the
traced namespace, then refuses two namespaces ("Multiple namespaces for array inputs"): SciPy's
copy (1.13) keeps a set of namespace objects, the newer ones dedupe by ``__name__`` but keep the
first, and each copy's NumPy namespace has its own name. No attribute of the tracer can change
that, so while a transformation runs the engine wraps each copy's ``array_namespace`` /
``get_namespace`` (where the copy and the modules that imported it by name hold it): when a
tracer is among the arguments and every other argument is a scalar (Python's or NumPy's) or a
plain array of the tracer's own library, the answer is the tracer's namespace. Anything else
(two libraries, two traced namespaces) goes to the copy's own function, which raises as before.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

_PREFIXES = ("array_api_compat", "array_api_extra", "scipy", "sklearn")
_NAMES = ("array_namespace", "get_namespace")
_WRAPPED: dict[int, Callable[..., Any]] = {}  # id(original) -> wrapper
_ORIGINALS: set[int] = set()  # ids of the wrappers (not wrapped again)
_SEEN = [0]  # len(sys.modules) at the last scan


def _traced_namespace(xs: tuple[Any, ...]) -> Any:
    from ._core import Tracer, namespace_of, primal

    ns = None
    for x in xs:
        if isinstance(x, Tracer):
            xns = type(x)._ns
            if ns is not None and xns is not ns:
                return None
            ns = xns
    if ns is None:
        return None
    base = ns._cr_base
    np = sys.modules.get("numpy")
    for x in xs:
        if x is None or isinstance(x, Tracer) or type(x) in (bool, int, float, complex):
            continue
        if np is not None and isinstance(x, np.generic):
            continue  # a NumPy scalar mixes with a tracer as a Python scalar does
        try:
            same = namespace_of(primal(x)) is base
        except Exception:  # noqa: BLE001  (not an array: the copy's own function decides)
            return None
        if not same:
            return None
    return ns


def _wrap(orig: Callable[..., Any]) -> Callable[..., Any]:
    w = _WRAPPED.get(id(orig))
    if w is not None:
        return w

    def array_namespace(*xs: Any, **kwargs: Any) -> Any:
        ns = _traced_namespace(xs)
        return orig(*xs, **kwargs) if ns is None else ns

    array_namespace.__wrapped__ = orig  # type: ignore[attr-defined]
    array_namespace.__doc__ = orig.__doc__
    array_namespace.__module__ = getattr(orig, "__module__", __name__)
    _WRAPPED[id(orig)] = array_namespace
    _ORIGINALS.add(id(array_namespace))
    return array_namespace


def install() -> None:
    """Wrap the ``array_namespace`` of every array-api-compat copy imported so far (cheap when no
    module was imported since the last call)."""
    n = len(sys.modules)
    if n == _SEEN[0]:
        return
    _SEEN[0] = n
    compat = {
        id(getattr(m, "array_namespace", None))
        for name, m in list(sys.modules.items())
        if name.endswith("array_api_compat") and m is not None
    }
    compat.discard(id(None))
    for name, mod in list(sys.modules.items()):
        if mod is None or not name.startswith(_PREFIXES):
            continue
        d = getattr(mod, "__dict__", None)
        if d is None:
            continue
        for attr in _NAMES:
            f = d.get(attr)
            if f is None or id(f) in _ORIGINALS:
                continue
            if id(f) in compat or id(f) in _WRAPPED:
                setattr(mod, attr, _wrap(f))
