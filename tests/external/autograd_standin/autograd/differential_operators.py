"""autograd.differential_operators: chainrules.ad's public operators of the same names.

autograd's keyword ``argnum`` is chainrules' ``argnums`` (positional calls are the same), and
``make_ggnvp``'s ``f_argnum`` is ``f_argnums``; ``hessian_tensor_product`` and
``tensor_jacobian_product`` are autograd's own aliases of ``hessian_vector_product`` and
``vector_jacobian_product``. Nothing is computed here (docs/porting-from-autograd.md).
"""

from __future__ import annotations

import functools
from typing import Any

from chainrules import ad


def _argnum(op: Any) -> Any:
    """``op`` taking autograd's keyword ``argnum`` for its ``argnums``."""

    @functools.wraps(op)
    def with_argnum(fun: Any, argnum: Any = 0) -> Any:
        return op(fun, argnum)

    return with_argnum


grad = _argnum(ad.grad)
value_and_grad = _argnum(ad.value_and_grad)
jacobian = _argnum(ad.jacobian)
hessian = _argnum(ad.hessian)
elementwise_grad = _argnum(ad.elementwise_grad)
holomorphic_grad = _argnum(ad.holomorphic_grad)
deriv = _argnum(ad.deriv)
grad_and_aux = _argnum(ad.grad_and_aux)
make_vjp = _argnum(ad.make_vjp)
make_jvp = _argnum(ad.make_jvp)
make_hvp = _argnum(ad.make_hvp)
hessian_vector_product = hessian_tensor_product = _argnum(ad.hessian_vector_product)
vector_jacobian_product = tensor_jacobian_product = _argnum(ad.vector_jacobian_product)
checkpoint = ad.checkpoint


def make_ggnvp(f: Any, g: Any = None, f_argnum: Any = 0) -> Any:
    return ad.make_ggnvp(f, g, f_argnums=f_argnum)
