"""Keras 3 bridge: ``wrap(f)`` is a function of Keras tensors whose derivatives come from ``f``'s
registered rrule, built on Keras's own extension point, ``keras.ops.custom_gradient``: one bridge
for the backends Keras runs on.

Keras fixes its backend once per process (``KERAS_BACKEND``, read when ``keras`` is first
imported). Importing this module does not import Keras; ``wrap`` does. The bridge supports, and
is tested on, the **JAX** and **torch** backends; on any other backend (TensorFlow, which is not
installed where this is tested; NumPy and OpenVINO, which have no gradients) a wrapped call
raises ``NotImplementedError`` naming the backend.

What a call does:

* The arguments are walked as a pytree (``core.calls.split``: tuples, lists, named tuples and
  dicts, nested). Its *dynamic* leaves are the backend's tensors (``jax.Array`` /
  ``torch.Tensor``), Keras variables (``keras.Variable``: a layer's weights; their current value
  is read with ``keras.ops.convert_to_tensor``, so that the backend differentiates the value the
  trainer traces) and NumPy arrays (converted the same way). Every other leaf -- Python numbers,
  axes, orders, strings, ``None`` -- is static and closed over.
* The dynamic leaves become the positional arguments of one ``keras.ops.custom_gradient``
  function (the backends differentiate only its top-level arguments: on the torch backend it is a
  ``torch.autograd.Function``). Its forward calls the rrule on the backend's native arrays -- the
  rules run through ``array_api_compat`` on ``jax.Array`` or ``torch.Tensor`` -- and its gradient
  function calls the pullback. Each floating or complex leaf gets its cotangent, or zeros where
  the rule's is a zero (``ZeroTangent``, ``NoTangent``): never ``None`` for an array that asked
  for a gradient. Integer and boolean leaves get none (``None``).
* A keyword argument holding a floating array is moved to its position
  (``core.calls.bind_keywords``). One that cannot move (keyword-only, ``**kwargs``) raises
  ``KeywordDerivativeError`` when the backend may differentiate it: on torch when it requires
  grad; on JAX when it is a tracer (Keras's ``custom_gradient`` does not say which inputs JAX
  differentiates, so a traced keyword array is refused even under ``jit`` alone).

Backends:

* **JAX**: ``keras.ops.custom_gradient`` is ``jax.custom_gradient``, a ``jax.custom_vjp`` that
  traces the gradient function (with an abstract cotangent) when the forward runs. Reverse mode
  of any order (``grad``, ``jacrev``, ``jacrev`` of ``grad``: JAX differentiates the pullback's
  ``jax.numpy`` code) and forward over reverse (``hessian``), under ``jit`` and ``vmap``; forward
  mode of the wrapped function itself (``jvp``, ``jacfwd``) is refused by JAX for a
  ``custom_vjp``. JAX's cotangent of a complex input is the conjugate of chainrules', so the
  bridge conjugates on the way in and out. The output may be a tuple of arrays.
* **torch**: ``keras.ops.custom_gradient`` is a ``torch.autograd.Function`` (Keras's
  ``CustomGradientFunction``) whose ``backward`` passes one upstream gradient: the wrapped
  function must return one tensor (a tuple output raises ``TypeError`` at the call). The rule gets
  its inputs detached, and the backward pass calls the forward's pullback; when the backward is
  itself recorded (``create_graph=True``), the rrule is recomputed from the saved inputs so that
  PyTorch differentiates the pullback (second order). Keras's Function has no ``setup_context``
  and no ``jvp``: ``torch.func`` transforms and forward-mode AD refuse it (PyTorch's errors).
  Keras's ``jit_compile=True`` (``torch.compile`` of the train step) uses the rule.

``f`` needs a registered rrule (``chainrules.NoRuleError`` naming ``f`` otherwise, at wrap
time). Call a wrapped function inside a layer's ``call`` (or on eager tensors): Keras's
functional API calls layers on symbolic ``KerasTensor`` objects and computes their output shapes by
running ``call`` on the backend's tensors, which the bridge handles; a ``KerasTensor`` given to
the wrapped function directly raises ``TypeError``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.calls import *
from ..core.tangents import AbstractZero, unthunk
from ._derived import complete

__all__ = ["KeywordDerivativeError", "wrap"]

SUPPORTED_BACKENDS = ("jax", "torch")


def wrap(f: Any) -> Any:
    """A function of Keras tensors computing ``f`` whose gradient comes from ``f``'s rrule,
    through ``keras.ops.custom_gradient`` (JAX and torch backends).

    Raises ``chainrules.NoRuleError`` naming ``f`` when no rrule is registered for it. Imports
    Keras (which reads ``KERAS_BACKEND`` then) if it is not imported yet.
    """
    rules = complete(find_rules(f, "keras"))
    import keras

    @functools.wraps(f)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        be = _backend(rules.name)
        args, kwargs, unbound = bind_keywords(rules, args, kwargs, _inexact_leaf)
        sp = split(args, kwargs, _is_dynamic, f"chainrules.interop.keras.wrap({rules.name})")
        dyn = tuple(be.native(sp.leaves[i]) for i in sp.dynamic)
        for k, kw in sp.keyword_leaves(unbound):
            if be.inexact(dyn[k]) and be.may_differentiate(dyn[k]):
                raise keyword_error("keras", rules.name, kw, be.differentiated)
        return keras.ops.custom_gradient(_forward(rules, sp, be))(*dyn)

    wrapped.__chainrules_rules__ = rules  # type: ignore[attr-defined]
    return wrapped


def _forward(rules: Rules, sp: Split, be: _Backend) -> Callable[..., Any]:
    """The function given to ``keras.ops.custom_gradient``: the rrule on the dynamic leaves,
    returning its output and a gradient function that calls the pullback."""
    rrule = rules.rrule
    assert rrule is not None
    name = rules.name

    def forward(*dyn: Any) -> Any:
        inputs = be.for_rule(dyn)
        args, kwargs = sp.rebuild(inputs)
        y, pullback = rrule(*args, **kwargs)
        if be.one_output and isinstance(y, (tuple, list)):
            raise TypeError(
                f"chainrules.interop.keras: {name} returned {type(y).__name__} of "
                f"{len(y)} outputs; on the {be.name} backend keras.ops.custom_gradient passes "
                f"one upstream gradient, so a wrapped function must return one tensor"
            )
        _, rebuild_out = output_leaves(y)

        def grad(*saved: Any, upstream: Any = None) -> tuple[Any, ...]:
            if upstream is None:  # JAX (and TensorFlow): grad(upstream)
                (upstream,) = saved
                saved = ()
            pb, rule_args = pullback, args
            if saved and be.recording():
                # torch, create_graph=True: the forward's pullback was built from detached
                # inputs; recompute it from the saved ones so that PyTorch differentiates it
                rule_args, kwargs2 = sp.rebuild(saved)
                _, pb = rrule(*rule_args, **kwargs2)
            bars, _ = output_leaves(upstream)
            cts = sp.cotangents(pb(rebuild_out([be.ours(b) for b in bars])), rule_args)
            out: list[Any] = []
            for pos, p in zip(sp.dynamic, dyn, strict=True):
                if not be.inexact(p):
                    out.append(None)  # integer and boolean inputs have no gradient
                    continue
                c = cts[pos]
                c = None if c is None else unthunk(c)
                if c is None or isinstance(c, AbstractZero):
                    out.append(be.zeros_like(p))
                    continue
                check_leaf(name, "rrule", sp.arg_of[pos], c, p, be.same_dtype(c, p))
                out.append(be.theirs(c))
            return tuple(out)

        return be.output(y, inputs, dyn), grad

    return forward


def _is_dynamic(x: Any) -> bool:
    import keras

    if isinstance(x, keras.KerasTensor):
        raise TypeError(
            "chainrules.interop.keras: a wrapped function was given a symbolic KerasTensor; "
            "call it inside a layer's call() (Keras then runs call() on the backend's tensors "
            "to infer shapes), or on eager tensors"
        )
    return isinstance(x, (keras.Variable, np.ndarray)) or keras.ops.is_tensor(x)


def _inexact_leaf(x: Any) -> bool:
    if not _is_dynamic(x):
        return False
    import keras

    dtype = keras.backend.standardize_dtype(x.dtype)
    return keras.backend.is_float_dtype(dtype) or dtype.startswith("complex")


class _Backend:
    """What the bridge does differently on one Keras backend."""

    name = ""
    one_output = False  # torch: Keras's backward takes one upstream gradient
    differentiated = ""  # the words for "the backend may differentiate it"

    def native(self, x: Any) -> Any:
        """A dynamic leaf as the backend's tensor (a Keras variable's current value)."""
        import keras

        return x if keras.ops.is_tensor(x) else keras.ops.convert_to_tensor(x)

    def inexact(self, x: Any) -> bool:
        raise NotImplementedError

    def may_differentiate(self, x: Any) -> bool:
        raise NotImplementedError

    def for_rule(self, dyn: tuple[Any, ...]) -> tuple[Any, ...]:
        return dyn

    def output(self, y: Any, inputs: tuple[Any, ...], dyn: tuple[Any, ...]) -> Any:
        return y

    def recording(self) -> bool:
        return False

    def ours(self, bar: Any) -> Any:
        """The backend's cotangent of an output in chainrules' convention."""
        return bar

    def theirs(self, c: Any) -> Any:
        """chainrules' cotangent of an input in the backend's convention."""
        return c

    def zeros_like(self, p: Any) -> Any:
        raise NotImplementedError

    def same_dtype(self, c: Any, p: Any) -> bool:
        return bool(getattr(c, "dtype", None) == p.dtype)


class _Jax(_Backend):
    name = "jax"
    differentiated = "may be differentiated by JAX (a traced array)"

    def __init__(self) -> None:
        import jax
        import jax.numpy as jnp

        self.jax, self.jnp = jax, jnp

    def inexact(self, x: Any) -> bool:
        return bool(self.jnp.issubdtype(x.dtype, self.jnp.inexact))

    def may_differentiate(self, x: Any) -> bool:
        return isinstance(x, self.jax.core.Tracer)

    def _conj(self, x: Any) -> Any:
        x = self.jnp.asarray(x)
        return self.jnp.conj(x) if self.jnp.iscomplexobj(x) else x

    def ours(self, bar: Any) -> Any:  # JAX's cotangent is the conjugate of chainrules'
        return self._conj(bar)

    def theirs(self, c: Any) -> Any:
        return self._conj(c)

    def zeros_like(self, p: Any) -> Any:
        return self.jnp.zeros_like(p)


class _Torch(_Backend):
    name = "torch"
    one_output = True
    differentiated = "requires grad"

    def __init__(self) -> None:
        import torch

        self.torch = torch

    def inexact(self, x: Any) -> bool:
        return bool(x.dtype.is_floating_point or x.dtype.is_complex)

    def may_differentiate(self, x: Any) -> bool:
        return bool(x.requires_grad)

    def for_rule(self, dyn: tuple[Any, ...]) -> tuple[Any, ...]:
        # the rule computes values, as a backward formula does: some torch functions refuse a
        # tensor that requires grad where they take a number
        return tuple(t.detach() for t in dyn)

    def output(self, y: Any, inputs: tuple[Any, ...], dyn: tuple[Any, ...]) -> Any:
        # a fresh alias: PyTorch sets the returned tensor's grad_fn to the node that holds the
        # gradient function (and so the pullback, which may hold y): returning y itself would
        # close a reference cycle; an input returned as it is must be a view of it
        for d, i in zip(inputs, dyn, strict=True):
            if y is d:
                return i.view_as(i)
        return y.detach() if isinstance(y, self.torch.Tensor) else y

    def recording(self) -> bool:
        return bool(self.torch.is_grad_enabled())

    def zeros_like(self, p: Any) -> Any:
        return self.torch.zeros_like(p)


_BACKENDS: dict[str, _Backend] = {}
_MAKERS: dict[str, Callable[[], _Backend]] = {"jax": _Jax, "torch": _Torch}


def _backend(name: str) -> _Backend:
    """The bridge's side of the running Keras backend; ``NotImplementedError`` for one it does
    not support, naming ``name`` (the wrapped function)."""
    import keras

    which = keras.backend.backend()
    be = _BACKENDS.get(which)
    if be is None:
        maker = _MAKERS.get(which)
        if maker is None:
            raise NotImplementedError(
                f"chainrules.interop.keras.wrap({name}): Keras runs on its {which!r} backend; "
                f"the bridge supports {' and '.join(SUPPORTED_BACKENDS)} (set KERAS_BACKEND "
                f"before keras is imported)"
            )
        be = _BACKENDS[which] = maker()
    return be
