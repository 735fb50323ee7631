"""The rest of autograd's differential operators, on ``chainrules.ad``'s engine.

``grad``, ``value_and_grad``, ``jacobian``, ``hessian``, ``vjp`` and ``jvp`` are in ``_api``. The
operators here carry autograd's names and call shapes, so that code written for
``autograd.differential_operators`` ports by changing its imports (``docs/porting-from-autograd.md``
lists the differences):

* ``argnums`` (an int, or a tuple for several arguments) where autograd says ``argnum``;
* the gradient of a complex input is ``dL/dRe + i dL/dIm`` (chainrules' convention), the conjugate
  of autograd's; ``holomorphic_grad`` returns ``f'(z)`` in both;
* the makers return autograd's pairs: ``make_vjp(f)(x)`` is ``(vjp, value)``, ``make_hvp(f)(x)``
  is ``(hvp, gradient)``, ``make_jvp(f)(x)(v)`` is ``(value, tangent)``.

Every operator is built from the engine's one reverse pass (``vjp_of``, a recording of ``f`` and its
pullback) or one forward pass (``jvp``): no operator has a derivative of its own to get wrong.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core.namespaces import dtype_kind
from ..core.pytree import flatten, map_leaves, unflatten
from ..core.tangents import ZeroTangent, unthunk
from ._api import (
    _argnums,
    _ns,
    _ones_like,
    _output_value,
    _Recording,
    _regroup,
    _scalar_output,
    _zeros_like,
    grad,
    jacobian,
    jvp,
    vjp_of,
)

__all__ = [
    "deriv",
    "elementwise_grad",
    "grad_and_aux",
    "hessian_vector_product",
    "holomorphic_grad",
    "make_ggnvp",
    "make_hvp",
    "make_jvp",
    "make_vjp",
    "vector_jacobian_product",
]

Argnums = int | Sequence[int]


def _name(f: Any) -> str:
    return getattr(f, "__name__", type(f).__name__)


def _named(g: Callable[..., Any], op: str, f: Any) -> Callable[..., Any]:
    g.__name__ = g.__qualname__ = f"{op}({_name(f)})"
    return g


def _ones(y: Any) -> Any:
    """Ones of ``y``'s structure: an array of ones per array leaf (at ``y``'s tracing levels),
    ``1.0`` per Python number (an output that does not depend on the input)."""
    return map_leaves(lambda e: _ones_like(e) if hasattr(e, "shape") else 1.0, y)


def _conj(x: Any) -> Any:
    """The complex conjugate of every complex leaf of ``x`` (real leaves as they are)."""

    def one(e: Any) -> Any:
        if isinstance(e, complex):
            return e.conjugate()
        if hasattr(e, "dtype") and dtype_kind(e.dtype) == "c":
            return _ns(e).conj(e)
        return e

    return map_leaves(one, x)


def _complex_leaf(y: Any) -> bool:
    return any(
        isinstance(e, complex) or (hasattr(e, "dtype") and dtype_kind(e.dtype) == "c")
        for e in flatten(y)[0]
    )


def _size(y: Any) -> int:
    """The number of elements of the output ``y`` (0 when it is not one array or number)."""
    if isinstance(y, float | int | complex):
        return 1
    shape = getattr(y, "shape", None)
    return 0 if shape is None else int(np.prod(tuple(shape)))


def as_tree(t: Any, like: Any, zeros: bool = False) -> Any:
    """The (co)tangent ``t`` of a value ``like`` as a pytree of ``like``'s structure: a rule's
    ``Tangent`` of a tuple, list or dict read entry by entry (``core.calls.cotangent_leaves``),
    thunks forced. A missing entry is ``ZeroTangent()``, or with ``zeros=True`` an array of
    zeros of that entry's shape (``0.0`` for a number): what a transformation's cotangent needs."""
    from ..core.calls import cotangent_leaves  # on first use, as _pytree does: import time

    leaves, treedef = flatten(like)
    parts = cotangent_leaves(t, like)
    if treedef is None and parts[0] is not None:
        return unthunk(parts[0])
    out = []
    for p, e in zip(parts, leaves):
        if p is not None:
            out.append(unthunk(p))
        elif zeros:
            out.append(_zeros_like(e) if hasattr(e, "shape") else 0.0)
        else:
            out.append(ZeroTangent())
    return unflatten(treedef, out)


def _at(args: tuple[Any, ...], nums: tuple[int, ...], xs: Sequence[Any]) -> list[Any]:
    full = list(args)
    for i, x in zip(nums, xs):
        full[i] = x
    return full


def _jvp_at(
    f: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    nums: tuple[int, ...],
    tangents: tuple[Any, ...],
) -> tuple[Any, Any]:
    """``jvp`` of ``f(*args, **kwargs)`` with respect to the arguments ``nums`` (one tangent
    each). ``f`` itself is what the engine is given when it takes every argument, so that its own
    frule is used; otherwise a function of the differentiated arguments that calls it."""
    if not kwargs and nums == tuple(range(len(args))):
        return jvp(f, args, tangents)

    def at(*xs: Any) -> Any:
        return f(*_at(args, nums, xs), **kwargs)

    at.__name__ = at.__qualname__ = _name(f)
    return jvp(at, tuple(args[i] for i in nums), tangents)


# --- reverse mode ------------------------------------------------------------------------------
def make_vjp(f: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., tuple[Any, Any]]:
    """autograd's ``make_vjp``: ``make_vjp(f, argnums)(*args)`` is ``(vjp, f(*args))``.

    ``vjp(v)`` is the cotangent of the arguments ``argnums`` for the output cotangent ``v`` (the
    output's structure): one cotangent, of the argument's structure, for an int ``argnums``, a
    tuple of them for a tuple. ``f`` runs once; ``vjp`` may be called many times (one backward
    pass each). This is :func:`chainrules.ad.vjp` with autograd's order of the pair and with
    respect to chosen arguments.

    >>> import numpy as np
    >>> from chainrules import ad
    >>> vjp, y = ad.make_vjp(lambda x, w: np.tanh(w * x), argnums=1)(np.ones(2), np.zeros(2))
    >>> vjp(np.array([1.0, 2.0]))
    array([1., 2.])
    """

    def make_vjp_f(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
        nums = _argnums(argnums, len(args), "make_vjp")
        y, pullback = vjp_of(f, args, kwargs, nums, argnums)
        return pullback, y

    return _named(make_vjp_f, "make_vjp", f)


def elementwise_grad(f: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., Any]:
    """The sum of each column of ``f``'s Jacobian, in one backward pass: the VJP of ``f`` with a
    cotangent of ones.

    When ``f`` acts elementwise (its Jacobian is diagonal) this is the derivative of each output
    element with respect to its own input element. For any other ``f`` it is the gradient of
    ``sum(f(x))``, not a diagonal. ``f``'s output must be real (a ``TypeError`` otherwise).

    >>> import numpy as np
    >>> from chainrules import ad
    >>> ad.elementwise_grad(np.sin)(np.array([0.0, np.pi]))
    array([ 1., -1.])
    """
    mv = make_vjp(f, argnums)

    def elementwise_grad_f(*args: Any, **kwargs: Any) -> Any:
        vjp_fn, y = mv(*args, **kwargs)
        if _complex_leaf(y):
            raise TypeError(
                f"elementwise_grad: {_name(f)} returned a complex output; elementwise_grad "
                "needs a real one (take real, imag or abs of it, or use make_vjp with a "
                "complex cotangent)"
            )
        return vjp_fn(_ones(y))

    return _named(elementwise_grad_f, "elementwise_grad", f)


def holomorphic_grad(f: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., Any]:
    """``f'(z)`` of a holomorphic scalar function ``f`` of a complex input ``z``.

    With chainrules' convention a VJP of ``1`` gives ``conj(f'(z))``; this returns ``f'(z)``
    itself, as autograd's ``holomorphic_grad`` does. For a real input it warns
    (``UserWarning``) and returns the real part of ``f'(x)``, as autograd does.

    >>> import numpy as np
    >>> from chainrules import ad
    >>> complex(ad.holomorphic_grad(lambda z: z**2)(np.complex128(1 + 2j)))
    (2+4j)
    """
    mv = make_vjp(f, argnums)

    def holomorphic_grad_f(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums(argnums, len(args), "holomorphic_grad")
        if not _complex_leaf(tuple(args[i] for i in nums)):
            warnings.warn(
                f"holomorphic_grad: the input of {_name(f)} is real; the result is the real "
                "part of the derivative (pass a complex input for f'(z))",
                UserWarning,
                stacklevel=2,
            )
        vjp_fn, y = mv(*args, **kwargs)
        if _size(y) != 1:
            raise TypeError(
                f"holomorphic_grad: {_name(f)} must return a scalar, got "
                f"{type(y).__name__} of shape {tuple(getattr(y, 'shape', ()))}; use "
                "chainrules.ad.jacobian for other outputs"
            )
        return _conj(vjp_fn(_ones(y)))

    return _named(holomorphic_grad_f, "holomorphic_grad", f)


def grad_and_aux(f: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., tuple[Any, Any]]:
    """For ``f`` returning a pair ``(loss, aux)``: ``(gradient of loss, aux)``, from one run of
    ``f``. ``aux`` may be anything (arrays computed on the way, a dict of statistics); its arrays
    come back as plain arrays. (JAX spells it ``grad(f, has_aux=True)``.)

    >>> import numpy as np
    >>> from chainrules import ad
    >>> ad.grad_and_aux(lambda x: (np.sum(x**2), x.shape))(np.array([1.0, 2.0]))
    (array([2., 4.]), (2,))
    """

    def grad_and_aux_f(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
        nums = _argnums(argnums, len(args), "grad_and_aux")
        rec = _Recording(f, args, kwargs, nums, "grad_and_aux")
        out = rec.out
        if not (isinstance(out, tuple | list) and len(out) == 2):
            raise TypeError(
                f"grad_and_aux: {_name(f)} must return a pair (loss, aux), got {type(out).__name__}"
            )
        y, aux = out
        _scalar_output(y, "grad_and_aux", f)
        value = _output_value(y, rec.trace)
        if type(value) is float or type(value) is int:
            value = np.asarray(float(value))
        grads = rec.pull([(y, _ones_like(value))], release=True)
        defs, counts = rec.defs
        aux = map_leaves(lambda o: _output_value(o, rec.trace), aux)
        return _regroup(argnums, defs, counts, grads), aux

    return _named(grad_and_aux_f, "grad_and_aux", f)


def vector_jacobian_product(f: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., Any]:
    """autograd's ``vector_jacobian_product`` (its ``tensor_jacobian_product``):
    ``vector_jacobian_product(f, argnums)(*args, v)`` is ``tensordot(v, J, v.ndim)``.

    ``v`` comes after ``f``'s arguments. When ``v`` has the output's shape this is one VJP (the
    contraction is a scalar, so one backward pass); a ``v`` whose shape is a leading part of the
    output's shape leaves the other output axes in the result, one backward pass per element of
    them (the Jacobian of the contraction, ``jacobian(mode="rev")``).

    >>> import numpy as np
    >>> from chainrules import ad
    >>> ad.vector_jacobian_product(np.sin)(np.zeros(2), np.array([1.0, 2.0]))
    array([1., 2.])
    """

    def vector_jacobian_product_f(*args: Any, **kwargs: Any) -> Any:
        if not args:
            raise TypeError(
                f"vector_jacobian_product: call it with {_name(f)}'s arguments and then the "
                "vector, (*args, v)"
            )
        *fargs, v = args
        rank = len(tuple(getattr(v, "shape", ())))

        def contracted(*a: Any, **k: Any) -> Any:
            y = f(*a, **k)
            if rank == 0:  # a scalar v (a Python number too): tensordot with no axes
                return v * y
            return _ns(y, v).tensordot(v, y, axes=rank)

        _named(contracted, "vector_dot", f)
        return jacobian(contracted, argnums, mode="rev")(*fargs, **kwargs)

    return _named(vector_jacobian_product_f, "vector_jacobian_product", f)


# --- forward mode ------------------------------------------------------------------------------
def make_jvp(f: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., Any]:
    """autograd's ``make_jvp``: ``make_jvp(f, argnums)(*args)`` is a function ``jvp(v)`` returning
    ``(f(*args), J @ v)`` for a tangent ``v`` of the arguments ``argnums`` (a tuple of tangents
    for a tuple ``argnums``). Each call of ``jvp`` is one forward pass; ``v`` may carry leading
    chunk axes, ``(k, *x.shape)``, to push ``k`` tangents at once.

    >>> import numpy as np
    >>> from chainrules import ad
    >>> ad.make_jvp(np.sin)(np.zeros(2))(np.array([1.0, 2.0]))
    (array([0., 0.]), array([1., 2.]))
    """

    def make_jvp_f(*args: Any, **kwargs: Any) -> Callable[[Any], tuple[Any, Any]]:
        nums = _argnums(argnums, len(args), "make_jvp")

        def jvp_fn(v: Any) -> tuple[Any, Any]:
            tangents = (v,) if isinstance(argnums, int) else tuple(v)
            return _jvp_at(f, args, kwargs, nums, tangents)

        return _named(jvp_fn, "jvp", f)

    return _named(make_jvp_f, "make_jvp", f)


def deriv(f: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., Any]:
    """The JVP of ``f`` with a tangent of ones: ``f'(x)`` for a scalar ``x`` (and the sum of each
    row of the Jacobian for an array), in one forward pass.

    >>> import numpy as np
    >>> from chainrules import ad
    >>> float(ad.deriv(lambda x: x**3)(2.0))
    12.0
    """
    mj = make_jvp(f, argnums)

    def deriv_f(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums(argnums, len(args), "deriv")
        x = args[nums[0]] if isinstance(argnums, int) else tuple(args[i] for i in nums)
        return mj(*args, **kwargs)(_ones(x))[1]

    return _named(deriv_f, "deriv", f)


# --- second order ------------------------------------------------------------------------------
def hessian_vector_product(f: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., Any]:
    """autograd's ``hessian_vector_product`` (its ``hessian_tensor_product``):
    ``hessian_vector_product(f, argnums)(*args, v)`` is ``H @ v`` for the Hessian ``H`` of the
    scalar function ``f``, ``v`` of the argument's shape (after ``f``'s arguments).

    Forward over reverse: the gradient's JVP in the direction ``v``, one forward pass through the
    gradient's computation (autograd takes a second reverse pass). ``v`` may carry leading chunk
    axes, ``(k, *x.shape)``: ``k`` products in one pass.

    >>> import numpy as np
    >>> from chainrules import ad
    >>> ad.hessian_vector_product(lambda x: np.sum(x**3))(np.array([1.0, 2.0]), np.ones(2))
    array([ 6., 12.])
    """
    g = grad(f, argnums)

    def hessian_vector_product_f(*args: Any, **kwargs: Any) -> Any:
        if not args:
            raise TypeError(
                f"hessian_vector_product: call it with {_name(f)}'s arguments and then the "
                "vector, (*args, v)"
            )
        *fargs, v = args
        nums = _argnums(argnums, len(fargs), "hessian_vector_product")
        tangents = (v,) if isinstance(argnums, int) else tuple(v)
        return _jvp_at(g, tuple(fargs), kwargs, nums, tangents)[1]

    return _named(hessian_vector_product_f, "hessian_vector_product", f)


def make_hvp(f: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., tuple[Any, Any]]:
    """autograd's ``make_hvp``: ``make_hvp(f, argnums)(*args)`` is ``(hvp, gradient)``, where
    ``hvp(v)`` is ``H @ v``.

    The gradient's computation is recorded once (reverse over reverse: ``make_vjp`` of
    ``grad(f)``) and each ``hvp(v)`` is one backward pass through that recording, so many
    products at one point reuse it. For one product, :func:`hessian_vector_product` (forward over
    reverse) records nothing.

    >>> import numpy as np
    >>> from chainrules import ad
    >>> hvp, g = ad.make_hvp(lambda x: np.sum(x**3))(np.array([1.0, 2.0]))
    >>> hvp(np.ones(2)), g
    (array([ 6., 12.]), array([ 3., 12.]))
    """
    return _named(make_vjp(grad(f, argnums), argnums), "make_hvp", f)


def _half_squared_norm(y: Any) -> Any:
    return 0.5 * _ns(y).sum(y * y)


def make_ggnvp(
    f: Callable[..., Any], g: Callable[[Any], Any] | None = None, f_argnums: Argnums = 0
) -> Callable[..., Callable[[Any], Any]]:
    """Generalised Gauss-Newton products: ``make_ggnvp(f, g)(*args)`` is a function of ``v``
    returning ``J^T H_g J v``, with ``J`` the Jacobian of ``f`` at ``args`` with respect to the
    arguments ``f_argnums`` and ``H_g`` the Hessian of the scalar loss ``g`` at ``f(*args)``.

    ``g`` defaults to ``0.5 * sum(y**2)`` (the squared loss, ``H_g = I``; autograd's default sums
    over the last axis only, which is the same for a vector ``y``). ``J v`` is a forward pass of
    ``f``, ``H_g`` a recorded gradient of ``g`` (``make_hvp``) and ``J^T`` a backward pass
    through the recording of ``f`` made once, when the function of ``v`` is made.

    >>> import numpy as np
    >>> from chainrules import ad
    >>> A = np.array([[1.0, 2.0], [0.0, 1.0]])
    >>> ad.make_ggnvp(lambda x: A @ x)(np.zeros(2))(np.array([1.0, 0.0]))  # A^T A v
    array([1., 2.])
    """
    loss = _half_squared_norm if g is None else g

    def make_ggnvp_f(*args: Any, **kwargs: Any) -> Callable[[Any], Any]:
        f_vjp, y = make_vjp(f, f_argnums)(*args, **kwargs)
        g_hvp, _ = make_hvp(loss)(y)
        f_jvp = make_jvp(f, f_argnums)(*args, **kwargs)

        def ggnvp(v: Any) -> Any:
            return f_vjp(g_hvp(f_jvp(v)[1]))

        return _named(ggnvp, "ggnvp", f)

    return _named(make_ggnvp_f, "make_ggnvp", f)
