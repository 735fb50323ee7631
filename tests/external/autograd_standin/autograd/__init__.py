"""A stand-in for HIPS ``autograd`` whose transformations are ``chainrules.ad``'s.

Only autograd's *user* API is provided (``grad``, ``jacobian``, ``make_vjp`` ...); its extension
API (``primitive``, ``defvjp``, ``vspace``, boxes) has no counterpart and is left out. Complex
numbers follow autograd's convention: its VJP is ``conj(pullback(conj(g)))`` of chainrules'.
"""

from .builtins import dict, isinstance, list, tuple, type
from .differential_operators import (
    checkpoint,
    deriv,
    elementwise_grad,
    grad,
    grad_and_aux,
    grad_named,
    hessian,
    hessian_tensor_product,
    hessian_vector_product,
    holomorphic_grad,
    jacobian,
    make_ggnvp,
    make_hvp,
    make_jvp,
    make_vjp,
    multigrad_dict,
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
    "grad_named",
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
    "multigrad_dict",
    "primitive",
    "tensor_jacobian_product",
    "tuple",
    "type",
    "value_and_grad",
    "vector_jacobian_product",
]
