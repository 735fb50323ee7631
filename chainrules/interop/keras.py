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
  ``CustomGradientFunction``) whose ``backward`` passes one upstream gradient: a function of
  several outputs (a tuple, list or dict of tensors) has its floating outputs packed into one
  tensor (raveled and concatenated: a copy), which the call unpacks into views outside the
  Function (``_Packed``); floating outputs of two dtypes raise ``TypeError`` naming the function.
  The rule gets its inputs detached, and the backward pass calls the forward's pullback; when the
  backward is itself recorded (``create_graph=True``), the rrule is recomputed from the saved
  inputs so that PyTorch differentiates the pullback (second order). Keras's Function has no
  ``setup_context`` and no ``jvp``: under ``torch.func`` transforms and forward-mode AD the
  bridge raises ``NotImplementedError`` naming the transformation (use
  ``chainrules.interop.torch.wrap`` there). Under ``torch.compile`` (Keras's
  ``jit_compile=True`` too) each call is one opaque node of TorchDynamo's graph, as in the torch
  bridge (``torch._dynamo.nonstrict_trace``), which AOTAutograd traces by running the call on
  fake tensors: Dynamo does not trace the rules' Python (where it broke the graph), and
  ``fullgraph=True`` holds.

``f`` needs a registered rrule (``chainrules.NoRuleError`` naming ``f`` otherwise, at wrap
time). Call a wrapped function inside a layer's ``call`` (or on eager tensors): Keras's
functional API calls layers on symbolic ``KerasTensor`` objects and computes their output shapes by
running ``call`` on the backend's tensors, which the bridge handles; a ``KerasTensor`` given to
the wrapped function directly raises ``TypeError``.
"""

from __future__ import annotations

import functools
import re
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
        if be.compiling():
            # TorchDynamo traces this call (torch.compile of a Keras model on the torch backend):
            # it runs opaque to Dynamo, as the torch bridge's calls do
            return be.opaque_call(eager, rules.name, args, kwargs)
        args, kwargs, unbound = bind_keywords(rules, args, kwargs, _inexact_leaf)
        sp = split(args, kwargs, _is_dynamic, f"chainrules.interop.keras.wrap({rules.name})")
        dyn = tuple(be.native(sp.leaves[i]) for i in sp.dynamic)
        for k, kw in sp.keyword_leaves(unbound):
            if be.inexact(dyn[k]) and be.may_differentiate(dyn[k]):
                raise keyword_error("keras", rules.name, kw, be.differentiated)
        be.check_transforms(rules.name, dyn)
        forward, finish = _forward(rules, sp, be)
        return finish(keras.ops.custom_gradient(forward)(*dyn))

    eager = _opaque(wrapped, rules.name)
    wrapped.__chainrules_rules__ = rules  # type: ignore[attr-defined]
    return wrapped


def _forward(rules: Rules, sp: Split, be: _Backend) -> tuple[Callable[..., Any], Any]:
    """The function given to ``keras.ops.custom_gradient`` -- the rrule on the dynamic leaves,
    returning its output and a gradient function that calls the pullback -- and what turns that
    function's result into the call's (on torch, several outputs travel packed, ``_Packed``)."""
    rrule = rules.rrule
    assert rrule is not None
    name = rules.name
    packed: list[_Packed] = []  # set by forward, on torch, for a rule with several outputs

    def forward(*dyn: Any) -> Any:
        inputs = be.for_rule(dyn)
        args, kwargs = sp.rebuild(inputs)
        y, pullback = rrule(*args, **kwargs)
        pack = _Packed.of(be, name, y) if be.one_output else None
        packed[:] = [] if pack is None else [pack]
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
            bars = pack.cotangents(upstream) if pack is not None else output_leaves(upstream)[0]
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

        return (be.output(y, inputs, dyn) if pack is None else pack.packed), grad

    def finish(out: Any) -> Any:
        return packed[0].unpack(out) if packed else out

    return forward, finish


class _Packed:
    """A rule's several outputs (a tuple, list or dict of tensors, nested) as the one tensor
    that Keras's torch ``CustomGradientFunction`` may return: its ``backward`` takes one upstream
    gradient. The floating and complex outputs, raveled and concatenated (detached: a copy), are
    the packed tensor; the call's outputs are views of it (``unpack``, outside the Function, so
    torch differentiates the unpacking), and the gradient function splits the packed upstream
    gradient back into the outputs' cotangents (``cotangents``). Integer and boolean outputs have
    no gradient: they are returned as the rule gave them, with zero cotangents."""

    def __init__(self, torch: Any, leaves: list[Any], rebuild: Any, diff: list[int]) -> None:
        self.torch, self.leaves, self.rebuild, self.diff = torch, leaves, rebuild, diff
        self.packed = torch.cat([leaves[i].detach().reshape(-1) for i in diff])
        self.sizes = [leaves[i].numel() for i in diff]

    @classmethod
    def of(cls, be: _Backend, name: str, y: Any) -> _Packed | None:
        """``None`` for one tensor (or outputs none of which is floating); else ``y`` packed,
        or a ``TypeError`` naming ``name`` when its floating outputs differ in dtype."""
        torch = be.torch  # type: ignore[attr-defined]
        if isinstance(y, torch.Tensor):
            return None
        leaves, rebuild = output_leaves(y)
        diff = [i for i, v in enumerate(leaves) if isinstance(v, torch.Tensor) and be.inexact(v)]
        if not diff:
            return None
        dtypes = sorted({str(leaves[i].dtype) for i in diff})
        if len(dtypes) > 1:
            raise TypeError(
                f"chainrules.interop.keras: {name} returned outputs of dtypes "
                f"{', '.join(dtypes)}; on the {be.name} backend keras.ops.custom_gradient passes "
                "one upstream gradient, so the bridge packs a function's floating outputs into "
                "one tensor, which needs them to share a dtype"
            )
        return cls(torch, leaves, rebuild, diff)

    def cotangents(self, upstream: Any) -> list[Any]:
        """The packed upstream gradient as one cotangent per output leaf."""
        torch = self.torch
        out = [torch.zeros_like(v) if isinstance(v, torch.Tensor) else None for v in self.leaves]
        for i, piece in zip(self.diff, torch.split(upstream, self.sizes), strict=True):
            out[i] = piece.reshape(self.leaves[i].shape)
        return out

    def unpack(self, out: Any) -> Any:
        """The call's outputs, as the rule gave them, from the Function's packed output."""
        leaves = list(self.leaves)
        for i, piece in zip(self.diff, self.torch.split(out, self.sizes), strict=True):
            leaves[i] = piece.reshape(self.leaves[i].shape)
        return self.rebuild(leaves)


def _opaque(wrapped: Any, name: str) -> Any:
    """``wrapped``'s eager call, for TorchDynamo to record as one opaque node: one per ``wrap``,
    defined outside any compiled region and named after the function (Dynamo's errors and graphs
    name it), as the torch bridge's."""

    def call(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return wrapped(*args, **kwargs)

    call.__name__ = call.__qualname__ = "chainrules_keras_" + re.sub(r"\W", "_", name)
    return call


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

    def compiling(self) -> bool:
        """Whether TorchDynamo traces the call (torch only)."""
        return False

    def opaque_call(self, eager: Any, name: str, args: Any, kwargs: Any) -> Any:
        raise NotImplementedError

    def check_transforms(self, name: str, dyn: tuple[Any, ...]) -> None:
        """Raise, naming the transformation, where the backend would refuse Keras's
        ``custom_gradient`` with an error of its own (torch: ``torch.func``, forward mode)."""

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

    def compiling(self) -> bool:
        return bool(self.torch.compiler.is_dynamo_compiling())

    def check_transforms(self, name: str, dyn: tuple[Any, ...]) -> None:
        torch = self.torch
        # the first line says what and where (a cell of the matrix shows the first line only)
        instead = (
            f"\nWrap {name} with chainrules.interop.torch.wrap where torch.func or forward mode "
            "is needed: the same rules, through an autograd.Function that has both"
        )
        if torch._C._are_functorch_transforms_active():
            from ._functorch import transform_stack

            raise NotImplementedError(
                f"chainrules.interop.keras: torch.func's {transform_stack()} of {name}: "
                "keras.ops.custom_gradient on torch is an autograd.Function without "
                "setup_context, which torch.func refuses\n(grad, vjp and jacrev are grad; "
                f"jacfwd is vmap of jvp.){instead}"
            )
        fwd = torch.autograd.forward_ad
        if fwd._current_level >= 0 and any(fwd.unpack_dual(t).tangent is not None for t in dyn):
            raise NotImplementedError(
                f"chainrules.interop.keras: forward-mode AD (torch.autograd.forward_ad) of "
                f"{name}: keras.ops.custom_gradient on torch is an autograd.Function without "
                f"jvp{instead}"
            )

    def opaque_call(self, eager: Any, name: str, args: Any, kwargs: Any) -> Any:
        """The call under TorchDynamo, which does not trace the bridge's Python -- the rules, their
        pullbacks, Keras's ``CustomGradientFunction``: it broke the graph on a scoped patch's
        context manager, on objects a pullback holds, on SciPy's lookup -- but records one
        opaque node (the torch bridge's ``nonstrict_trace`` call) that AOTAutograd traces by
        running the eager call on fake tensors; the graph holds the rules' operations, forward
        and backward. A Keras variable is passed as its value (a tensor of the graph)."""
        import keras
        import torch.utils._pytree as pytree

        from .torch import _dynamo_call

        args, kwargs = pytree.tree_map(
            lambda x: x.value if isinstance(x, keras.Variable) else x, (args, kwargs)
        )
        return _dynamo_call(eager, name, args, kwargs)

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
