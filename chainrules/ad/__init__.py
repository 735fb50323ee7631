"""chainrules.ad: an automatic-differentiation engine built on the rule registry.

Reverse mode records a tape of registered ``rrule`` pullbacks; forward mode pushes chunks of
tangents through registered ``frule``\\ s. Functions may be written against the Array API
(``xp = array_namespace(x)``) or in plain NumPy (``np.sin(x)``, operators, indexing): the engine
hands ``f`` traced arrays that implement ``__array_namespace__``, ``__array_ufunc__`` and
``__array_function__``. It works on NumPy, CuPy, array-api-strict, PyTorch and
``chainrules.testing.device_array`` inputs and never reads an array value on the host.

>>> import numpy as np
>>> from chainrules import ad
>>> ad.grad(lambda x: np.sum(np.sin(x) * np.exp(x)))(np.array([0.0, 1.0]))
array([1.        , 3.75604923])
"""

from ..core.registry import NoRuleError
from ._api import (
    DEFAULT_CHUNK_THRESHOLD,
    DEFAULT_REV_CHUNK,
    HESSIAN_CHUNK_THRESHOLD,
    JACOBIAN_CHUNK_ELEMENTS,
    default_chunk_size,
    grad,
    hessian,
    jacobian,
    jvp,
    value_and_grad,
    vjp,
)
from ._checkpoint import checkpoint
from ._core import Tracer, lift_constants
from ._derive import frule_from_rrule, rrule_from_frule
from ._jit import jit
from ._operators import (
    deriv,
    elementwise_grad,
    grad_and_aux,
    hessian_vector_product,
    holomorphic_grad,
    make_ggnvp,
    make_hvp,
    make_jvp,
    make_vjp,
    vector_jacobian_product,
)
from ._ravel import ravel_pytree

__all__ = [
    "DEFAULT_CHUNK_THRESHOLD",
    "DEFAULT_REV_CHUNK",
    "HESSIAN_CHUNK_THRESHOLD",
    "JACOBIAN_CHUNK_ELEMENTS",
    "NoRuleError",
    "Tracer",
    "checkpoint",
    "default_chunk_size",
    "deriv",
    "elementwise_grad",
    "frule_from_rrule",
    "grad",
    "grad_and_aux",
    "hessian",
    "hessian_vector_product",
    "holomorphic_grad",
    "jacobian",
    "jit",
    "jvp",
    "lift_constants",
    "make_ggnvp",
    "make_hvp",
    "make_jvp",
    "make_vjp",
    "ravel_pytree",
    "rrule_from_frule",
    "value_and_grad",
    "vector_jacobian_product",
    "vjp",
]


def __getattr__(name: str) -> object:
    """``UntracedRuleWarning``, deprecated (issue 27): importable, with a DeprecationWarning."""
    if name == "UntracedRuleWarning":
        import warnings

        from ._user_rules import UntracedRuleWarning

        warnings.warn(
            "chainrules.ad.UntracedRuleWarning is deprecated and never raised: a transformation "
            "uses the rules of the function it is given, and @chainrules.traceable makes calls "
            "inside your code reach them",
            DeprecationWarning,
            stacklevel=2,
        )
        return UntracedRuleWarning
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
