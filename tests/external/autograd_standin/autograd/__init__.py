"""A stand-in for HIPS ``autograd`` made of chainrules' public API.

Each module re-exports the public name that is autograd's counterpart
(``docs/porting-from-autograd.md`` has the table): the differential operators are
``chainrules.ad``'s, ``test_util.check_grads`` is ``chainrules.testing.check_grads``, the
extension API is ``chainrules.ad.extend``, the builtins ``chainrules.ad.builtins``. Complex
gradients follow chainrules' convention (``dL/dRe + i dL/dIm``, the conjugate of autograd's);
the suite's checks are written against finite differences and pass in either.
"""

from .builtins import dict, isinstance, list, tuple, type
from .differential_operators import (
    checkpoint,
    deriv,
    elementwise_grad,
    grad,
    grad_and_aux,
    hessian,
    hessian_tensor_product,
    hessian_vector_product,
    holomorphic_grad,
    jacobian,
    make_ggnvp,
    make_hvp,
    make_jvp,
    make_vjp,
    tensor_jacobian_product,
    value_and_grad,
    vector_jacobian_product,
)
from .extend import primitive

__all__ = [
    "checkpoint",
    "deriv",
    "dict",
    "elementwise_grad",
    "grad",
    "grad_and_aux",
    "hessian",
    "hessian_tensor_product",
    "hessian_vector_product",
    "holomorphic_grad",
    "isinstance",
    "jacobian",
    "list",
    "make_ggnvp",
    "make_hvp",
    "make_jvp",
    "make_vjp",
    "primitive",
    "tensor_jacobian_product",
    "tuple",
    "type",
    "value_and_grad",
    "vector_jacobian_product",
]
