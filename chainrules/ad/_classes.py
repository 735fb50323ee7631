"""The tracer classes: one per array namespace (:func:`tracer_class`), deriving from
:class:`~chainrules.ad._tracer.Tracer`, NumPy's methods for NumPy-like arrays
(``chainrules.ad._numpy_methods``) and, for libraries whose operators refuse foreign operands,
the array class itself; torch's ``__torch_function__`` for torch tensors."""

from __future__ import annotations

from typing import Any

from ..core import registry
from ..core.namespaces import array_traits, namespace_of
from ._namespace import TracedNamespace
from ._numpy_methods import _NumpyMethods
from ._tracer import ABOVE, Tracer, dispatch

# --- the tracer --------------------------------------------------------------------------------
_CLASSES: dict[int, type[Tracer]] = {}


_BY_TYPE: dict[type, type[Tracer]] = {}


def tracer_class(x: Any) -> type[Tracer]:
    """The tracer class for arrays like ``x``: one class per array namespace (chainrules caches
    namespaces per type). For libraries whose operators refuse foreign operands (array-api-strict,
    device arrays) the class also derives from the array class, so that Python tries the
    tracer's reflected operator first in ``plain_array * tracer``."""
    cls = _BY_TYPE.get(type(x))
    if cls is not None:
        return cls
    if isinstance(x, Tracer):
        return type(x)
    base = namespace_of(x)
    cls = _CLASSES.get(id(base))
    if cls is None:
        t = type(x)
        traits = array_traits(x)
        bases: tuple[type, ...] = (_NumpyMethods, Tracer) if traits.numpy_methods else (Tracer,)
        bases = (*bases, t if traits.refuses_foreign_operands else _Slots)
        ns = TracedNamespace(base)
        ops = {op: getattr(base, fname) for op, fname in _OPERATORS.items() if hasattr(base, fname)}
        slots = _SLOTS if t.__weakrefoffset__ else (*_SLOTS, "__weakref__")
        attrs = {"__slots__": slots, "_ns": ns, "_base": base, "_ops": ops, "_keep": base}
        attrs["_numpy"] = traits.numpy_scalars  # its scalars mix with its values as they are
        if bases[-1] is _Slots:
            attrs["__slots__"] = ()
        if traits.torch_function:
            attrs["__torch_function__"] = classmethod(_torch_function)
        cls = type(f"Tracer[{getattr(base, '__name__', '?')}]", bases, attrs)
        cls.__module__ = __name__
        _CLASSES[id(base)] = cls
    _BY_TYPE[type(x)] = cls
    return cls


_SLOTS = ("_aux", "_trace", "_value", "_view", "_views")


def _torch_function(cls: Any, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
    """torch's protocol, for a tracer among the arguments of torch's own functions. A tracer
    written into a tensor that the code allocated with torch itself (``b = torch.zeros(n);
    b[k] = t``) cannot become a traced update: ``b`` is torch's object, which the engine cannot
    make stand for a traced value, and writing the value alone would silently drop the
    derivative. So it is refused, naming what to write instead. A torch function with a rule
    (``torch.sin(t)``) is recorded through it; one without is refused, naming it."""
    import torch

    if func is torch.Tensor.__setitem__:
        raise TypeError(
            "chainrules.ad: a traced value written into a torch tensor the code allocated with "
            "torch itself (b = torch.zeros(n); b[k] = t) cannot be differentiated: torch's "
            "tensor cannot hold a traced value. Allocate it through the traced namespace, "
            "xp = t.__array_namespace__(); b = xp.zeros(n), or build it with torch.stack / "
            "xp.stack"
        )
    if registry.find_rrule(func) is not None or registry.find_frule(func) is not None:
        return dispatch(func, args, kwargs or {})
    name = registry.function_name(func)
    raise TypeError(
        f"chainrules.ad: {name} was given a traced array, and chainrules has no rule for {name}; "
        "call the traced namespace's function instead (xp = t.__array_namespace__())"
    )


_OPERATORS = {
    "add": "add",
    "sub": "subtract",
    "mul": "multiply",
    "truediv": "divide",
    "floordiv": "floor_divide",
    "mod": "remainder",
    "pow": "pow",
    "matmul": "matmul",
    "lt": "less",
    "le": "less_equal",
    "gt": "greater",
    "ge": "greater_equal",
    "eq": "equal",
    "ne": "not_equal",
    "neg": "negative",
    "pos": "positive",
    "abs": "abs",
    "and": "bitwise_and",
    "or": "bitwise_or",
    "xor": "bitwise_xor",
    "lshift": "bitwise_left_shift",
    "rshift": "bitwise_right_shift",
    "invert": "bitwise_invert",
}


class _Slots:
    """Storage of the tracer classes that do not derive from an array class."""

    __slots__ = (*_SLOTS, "__weakref__")


ABOVE.tracer_class = tracer_class
