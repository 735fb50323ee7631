"""autograd's differential operators, built on ``core.make_vjp`` / ``core.make_jvp``."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import core
from .core import tree_map
from .wrap_util import unary_to_nary

make_vjp = unary_to_nary(core.make_vjp)
make_jvp = unary_to_nary(core.make_jvp)


def _ones_like(y: Any) -> Any:
    return tree_map(lambda e: np.ones_like(e) if hasattr(e, "shape") else 1.0 + 0 * e, y)


def _size(y: Any) -> int:
    return int(np.prod(np.shape(y))) if hasattr(y, "shape") else 1


@unary_to_nary
def grad(fun: Any, x: Any) -> Any:
    """
    Returns a function which computes the gradient of `fun` with respect to
    positional argument number `argnum`. The returned function takes the same
    arguments as `fun`, but returns the gradient instead. The function `fun`
    should be scalar-valued. The gradient has the same type as the argument."""
    vjp, ans = core.make_vjp(fun, x)
    scalar = hasattr(ans, "shape") or isinstance(ans, (float, int, complex))
    if not scalar or type(ans) is bool or _size(ans) != 1 or np.iscomplexobj(ans):
        raise TypeError(
            "Grad only applies to real scalar-output functions. Try jacobian, elementwise_grad "
            "or holomorphic_grad."
        )
    return vjp(_ones_like(ans))


@unary_to_nary
def elementwise_grad(fun: Any, x: Any) -> Any:
    vjp, ans = core.make_vjp(fun, x)
    return vjp(_ones_like(ans))


@unary_to_nary
def deriv(fun: Any, x: Any) -> Any:
    return core.make_jvp(fun, x)(_ones_like(x))[1]


@unary_to_nary
def holomorphic_grad(fun: Any, x: Any) -> Any:
    vjp, ans = core.make_vjp(fun, x)
    return vjp(_ones_like(ans))


@unary_to_nary
def jacobian(fun: Any, x: Any) -> Any:
    vjp, ans = core.make_vjp(fun, x)
    shape = np.shape(ans)
    n = _size(ans)
    basis = np.eye(n).reshape((n, *shape)) if shape else np.ones((1,))
    rows = [vjp(b if shape else 1.0) for b in basis]
    return np.reshape(np.stack(rows), shape + np.shape(x))


@unary_to_nary
def hessian(fun: Any, x: Any) -> Any:
    return jacobian(jacobian(fun))(x)


@unary_to_nary
def make_hvp(fun: Any, x: Any) -> Any:
    return core.make_vjp(grad(fun), x)


def hessian_tensor_product(fun: Any, argnum: int = 0) -> Any:
    fun_grad = grad(fun, argnum)

    def vector_dot_grad(*args: Any, **kwargs: Any) -> Any:
        args, vector = args[:-1], args[-1]
        return np.tensordot(fun_grad(*args, **kwargs), vector, np.ndim(vector))

    return grad(vector_dot_grad, argnum)


hessian_vector_product = hessian_tensor_product


def tensor_jacobian_product(fun: Any, argnum: int = 0) -> Any:
    def vector_dot_fun(*args: Any, **kwargs: Any) -> Any:
        args, vector = args[:-1], args[-1]
        return np.tensordot(vector, fun(*args, **kwargs), axes=np.ndim(vector))

    return jacobian(vector_dot_fun, argnum)


vector_jacobian_product = tensor_jacobian_product


@unary_to_nary
def value_and_grad(fun: Any, x: Any) -> tuple[Any, Any]:
    vjp, ans = core.make_vjp(fun, x)
    return ans, vjp(_ones_like(ans))


@unary_to_nary
def grad_and_aux(fun: Any, x: Any) -> tuple[Any, Any]:
    aux: list[Any] = []

    def first(x: Any) -> Any:
        out, a = fun(x)
        aux.append(a)
        return out

    vjp, ans = core.make_vjp(first, x)
    return vjp(_ones_like(ans)), core.tree_map(core.untraced, aux[0])


def grad_named(fun: Any, argname: str) -> Any:
    import inspect

    names = list(inspect.signature(fun).parameters)
    return grad(fun, names.index(argname))


def multigrad_dict(fun: Any) -> Any:
    """The gradients with respect to every argument, as a dict by parameter name."""
    import inspect

    sig = inspect.signature(fun)

    def select(preds: Any, lst: Any) -> tuple[list[Any], list[Any]]:
        idx = [i for i, p in enumerate(preds) if p]
        return idx, [lst[i] for i in idx]

    def gradfun(*args: Any, **kwargs: Any) -> dict[str, Any]:
        bound = sig.bind(*args, **kwargs)
        names = list(bound.arguments)
        values = [bound.arguments[n] for n in names]

        def f(xs: Any) -> Any:
            b = dict(zip(names, xs))
            return fun(**b)

        return dict(zip(names, grad(f)(list(values))))

    return gradfun


def checkpoint(fun: Any) -> Any:
    """autograd recomputes ``fun`` in the backward pass to save memory; here it is ``fun``."""
    return fun


def make_ggnvp(
    f: Any, g: Any = lambda x: 1.0 / 2 * np.sum(x**2, axis=-1), f_argnum: int = 0
) -> Any:
    @unary_to_nary
    def _make_ggnvp(f: Any, x: Any) -> Any:
        f_vjp, f_x = core.make_vjp(f, x)
        g_hvp, _ = core.make_vjp(grad(g), f_x)
        f_jvp, _ = core.make_vjp(f_vjp, core.tree_map(np.zeros_like, f_x))

        def ggnvp(v: Any) -> Any:
            return f_vjp(g_hvp(f_jvp(v)))

        return ggnvp

    return _make_ggnvp(f, f_argnum)
