"""PyTensor bridge: ``wrap(f)`` is a function of PyTensor variables whose derivatives come from
``f``'s rules (PyTensor is the graph engine under PyMC).

``wrap(f)(*args)`` puts one node of a PyTensor ``Op`` in the graph:

* its ``perform`` computes ``f`` itself on the NumPy values of the inputs;
* its ``L_op`` (reverse mode: ``pytensor.grad``, PyMC's ``dlogp``) is a second ``Op``, the
  *pullback Op*, whose ``perform`` calls the registered **rrule** and applies its pullback to the
  output gradients;
* its ``R_op`` (forward mode: ``pytensor.gradient.Rop(..., use_op_rop_implementation=True)``)
  is a *pushforward Op* whose ``perform`` calls the registered **frule**.

A function with only an rrule or only an frule gets the other mode derived, as every bridge does
(``chainrules.interop._derived``: the pullback's transpose is the pushforward and the other way
round, by ``chainrules.ad``), so the pullback Op and the pushforward Op always have a rule to call.

Higher orders: the pullback and pushforward Ops (and every Op below) have their own ``L_op``
and ``R_op``, computed by ``chainrules.ad`` differentiating the rule's pullback (pushforward)
code on NumPy -- every function a rule calls has rules of its own -- so
``pytensor.gradient.hessian`` and ``Rop`` of a gradient work, and the second derivative is the
derivative of the rule's own pullback. These derivative Ops are of one kind (``_VjpOp``,
``_JvpOp``: ``chainrules.ad`` on their parent's function) and are differentiated again the same
way, to any order.

Arguments: PyTensor variables and NumPy arrays anywhere in the (nested tuple / list / named tuple
/ dict) arguments are the Op's inputs (NumPy arrays become constants); every other leaf -- Python
numbers, strings, ``None``, slices, axes, orders -- is static, part of the Op's ``__props__``
(``core.calls.static_key``: two calls with the same static structure are the same Op, which
PyTensor's merge rewrite may share). Floating inputs (float32, float64) are differentiated;
integer and boolean inputs are disconnected (``connection_pattern``). A keyword argument holding
a floating variable is moved to its position (``core.calls.bind_keywords``); where it cannot
move, its gradient is PyTensor's undefined gradient (``grad_undefined``): ``pytensor.grad``
raises ``NullTypeGradError`` naming the keyword when the cost depends on it, and ``R_op``
raises ``KeywordDerivativeError`` for a nonzero tangent. Complex inputs are refused. ``f`` may
return an array, or a (nested) tuple, list or named tuple of arrays: one output of the Op each.

Output types: the Op's outputs need a dtype and a number of dimensions when the graph is built,
before any value exists. ``wrap`` finds them by running ``f`` once per call structure and input
types on placeholder arrays of the inputs' dtypes (deterministic values in [0.5, 1.5), integer
inputs 0, unknown dimensions of length 3, the static shape where the type has one); with every
input's shape static the outputs' static shapes are the results' too, otherwise unknown. A
function that fails on such placeholders (a reshape to a fixed size, a product whose inner
dimensions are unknown) raises a ``TypeError`` that asks for static shapes
(``pytensor.tensor.tensor(shape=...)``, ``pytensor.tensor.specify_shape``).

The Ops run Python (``perform``) on NumPy arrays; PyTensor compiles the rest of the graph around
them (its C code), not the rules.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytensor.tensor as pt
from pytensor.gradient import DisconnectedType, _is_zero, disconnected_type, grad_undefined
from pytensor.graph.basic import Apply, Variable
from pytensor.graph.op import Op

from .. import ad
from ..core.calls import *
from ..core.namespaces import namespace_of
from ..core.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk
from ._derived import complete

__all__ = ["KeywordDerivativeError", "wrap"]

_ZERO = ZeroTangent()
_CACHE_SIZE = 256
_UNKNOWN_DIM = 3  # the length of a dimension the input's type does not know, in a placeholder


def wrap(f: Any) -> Callable[..., Any]:
    """A function of PyTensor variables computing ``f`` whose derivatives come from ``f``'s rules:
    ``pytensor.grad`` uses the rrule, ``Rop(..., use_op_rop_implementation=True)`` the frule, and
    second derivatives differentiate the rule's pullback (see the module docstring).

    Raises ``chainrules.NoRuleError`` naming ``f`` unless an rrule or an frule is registered;
    the one missing is derived from the other (``chainrules.interop._derived``).

    >>> import numpy as np, pytensor, pytensor.tensor as pt
    >>> from chainrules.interop import pytensor as crpt
    >>> norm = crpt.wrap(np.linalg.norm)
    >>> x = pt.dvector("x")
    >>> pytensor.function([x], pytensor.grad(norm(x), x))(np.array([3.0, 4.0]))
    array([0.6, 0.8])
    """
    rules = complete(find_rules(f, "pytensor"))

    @functools.wraps(f)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if not kwargs and all(isinstance(a, Variable) for a in args):
            sp = flat_split(len(args))  # the common call: positional variables, no walk
            structure = _Structure(sp, ("flat", len(args)), {})
            dyn = list(args)
        else:
            args, kwargs, unbound = bind_keywords(rules, args, kwargs, _floating_leaf)
            sp = split(args, kwargs, _is_dynamic, f"chainrules.interop.pytensor.wrap({rules.name})")
            dyn = [pt.as_tensor_variable(sp.leaves[i]) for i in sp.dynamic]
            keyword_leaves = {
                k: kw for k, kw in sp.keyword_leaves(unbound) if _floating(dyn[k].dtype)
            }
            structure = _Structure(sp, static_key(sp), keyword_leaves)
        dyn = [pt.as_tensor_variable(x) for x in dyn]
        for x in dyn:
            if np.dtype(x.dtype).kind == "c":
                raise TypeError(
                    f"chainrules.interop.pytensor.wrap({rules.name}): complex inputs are not "
                    f"supported (got {x} of dtype {x.dtype}); PyTensor differentiates real "
                    f"floating graphs"
                )
        op = _RuleOp(rules, structure)
        node = op.make_node(*dyn)
        return op.rebuild_output(node)

    wrapped.__chainrules_rules__ = rules  # type: ignore[attr-defined]
    return wrapped


# --- helpers ----------------------------------------------------------------------------------


def _floating(dtype: Any) -> bool:
    return bool(np.dtype(dtype).kind == "f")


def _floating_value(v: Any) -> bool:
    """A rule's output (an array, a tracer, a NumPy or Python number) is floating."""
    dtype = getattr(v, "dtype", None)
    return _floating(np.result_type(v) if dtype is None else dtype)


def _is_dynamic(x: Any) -> bool:
    return isinstance(x, (Variable, np.ndarray, np.generic))


def _floating_leaf(x: Any) -> bool:
    return _is_dynamic(x) and _floating(x.dtype)


def _zeros_like(x: Any) -> Any:
    return namespace_of(x).zeros_like(x)


def _bar(g: Any, out: Any) -> Any:
    """PyTensor's gradient ``g`` of output ``out`` as the pullback's input: zeros for a
    disconnected output, cast to the output's dtype (a float64 cost may send float64 gradients
    to a float32 output)."""
    if isinstance(g.type, DisconnectedType):
        return pt.zeros_like(out)
    return g if g.dtype == out.dtype else pt.cast(g, out.dtype)


def _as_output(val: Any, var: Any, what: str, cast: bool) -> Any:
    """``val`` as the NumPy value of output ``var``: the shape must fit its type; a dtype that
    differs is cast (``cast``, for values chainrules.ad computed) or refused."""
    out = np.asarray(val)
    if out.ndim != var.type.ndim or any(
        s is not None and s != n for s, n in zip(var.type.shape, out.shape, strict=True)
    ):
        raise ValueError(f"{what} returned an array of shape {out.shape} for {var.type}")
    if out.dtype != var.dtype:
        if not cast:
            raise TypeError(f"{what} returned dtype {out.dtype} for an output of type {var.type}")
        out = out.astype(var.dtype)
    return out


def _placeholder(t: Any, k: int) -> np.ndarray:
    """An array of type ``t`` (input ``k``) to run ``f`` on for its output types."""
    shape = tuple(_UNKNOWN_DIM if s is None else s for s in t.shape)
    dtype = np.dtype(t.dtype)
    if dtype.kind == "f":
        rng = np.random.default_rng(1234 + k)
        return (0.5 + rng.random(shape)).astype(dtype)
    if dtype.kind == "b":
        return np.ones(shape, dtype=dtype)
    return np.zeros(shape, dtype=dtype)


class _Structure:
    """The static half of a call: its ``Split`` (the dynamic leaves blanked) and the keyword
    leaves the rules cannot differentiate; equal to another of the same static key (compared by
    identity when a static leaf is unhashable)."""

    __slots__ = ("key", "keyword_leaves", "sp")

    def __init__(self, sp: Split, key: Any, keyword_leaves: dict[int, str]) -> None:
        dyn = set(sp.dynamic)
        if any(sp.leaves[i] is not None for i in dyn):  # keep no graph variable in an Op
            leaves = [None if i in dyn else x for i, x in enumerate(sp.leaves)]
            sp = Split(sp.skeleton, leaves, list(sp.dynamic), list(sp.arg_of), sp.nargs, sp.kw_of)
        self.sp = sp
        self.key = key
        self.keyword_leaves = keyword_leaves

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        return (
            isinstance(other, _Structure)
            and self.key is not None
            and self.key == other.key
            and self.keyword_leaves == other.keyword_leaves
        )

    def __hash__(self) -> int:
        return hash(self.key) if self.key is not None else id(self)


# --- the Ops ----------------------------------------------------------------------------------


class _Plain(Op):
    """An Op computing a function of NumPy arrays, ``plain`` (which also runs on
    ``chainrules.ad`` tracers), with one output per floating or integer array. Its ``L_op`` and
    ``R_op`` are ``chainrules.ad``'s (``_VjpOp``, ``_JvpOp``) unless a subclass has rules."""

    __props__: tuple[str, ...] = ()
    cast_outputs = True  # values computed by chainrules.ad: cast to the declared dtype

    def plain(self, *vals: Any) -> list[Any]:
        raise NotImplementedError

    def output_types(self, in_types: tuple[Any, ...]) -> list[Any]:
        raise NotImplementedError

    def make_node(self, *inputs: Any) -> Any:
        ins = [pt.as_tensor_variable(x) for x in inputs]
        types = self.output_types(tuple(x.type for x in ins))
        return Apply(self, ins, [t() for t in types])

    def perform(self, node: Any, inputs: Any, output_storage: Any) -> None:
        outs = self.plain(*inputs)
        if len(outs) != len(node.outputs):
            raise ValueError(f"{self} computed {len(outs)} outputs, not {len(node.outputs)}")
        done: list[np.ndarray] = []
        for storage, var, val in zip(output_storage, node.outputs, outs, strict=True):
            out = _as_output(val, var, str(self), self.cast_outputs)
            # PyTensor may overwrite an Op's output in place (FAST_RUN's inplace rewrites): an
            # output that is a view of an input (getitem's x[idx], an identity pullback's g) or
            # of another output is copied, as the Op declares no view_map
            if not out.flags.writeable or any(
                np.may_share_memory(out, a) for a in (*inputs, *done)
            ):
                out = out.copy()
            done.append(out)
            storage[0] = out

    def connection_pattern(self, node: Any) -> list[list[bool]]:
        outs = [_floating(o.dtype) for o in node.outputs]
        return [[_floating(i.dtype) and o for o in outs] for i in node.inputs]

    def L_op(self, inputs: Any, outputs: Any, grads: Any) -> Any:
        bars = [_bar(g, o) for o, g in zip(outputs, grads, strict=True) if _floating(o.dtype)]
        wrt = tuple(_floating(x.dtype) for x in inputs)
        cts = iter(_VjpOp(self, wrt).make_node(*inputs, *bars).outputs)
        return [next(cts) if w else disconnected_type() for w in wrt]

    def R_op(self, inputs: Any, eval_points: Any) -> Any:
        mask = tuple(
            e is not None and _floating(x.dtype) for x, e in zip(inputs, eval_points, strict=True)
        )
        n_out = len(self.make_node(*inputs).outputs)
        if not any(mask):
            return [None] * n_out
        ts = [e for e, m in zip(eval_points, mask, strict=True) if m]
        return _scatter_tangents(self, inputs, _JvpOp(self, mask).make_node(*inputs, *ts).outputs)


def _scatter_tangents(op: _Plain, inputs: Any, dots: Sequence[Any]) -> list[Any]:
    """One ``R_op`` entry per output of ``op``: the tangents of its floating outputs in order,
    ``None`` for the others."""
    it = iter(dots)
    return [next(it) if _floating(o.dtype) else None for o in op.make_node(*inputs).outputs]


class _DerivedOp(_Plain):
    """A derivative of ``parent`` with respect to the inputs marked in ``wrt``, by
    ``chainrules.ad``; its inputs are the parent's, then what the derivative takes (cotangents,
    tangents)."""

    __props__ = ("parent", "wrt")
    kind = ""

    def __init__(self, parent: _Plain, wrt: tuple[bool, ...]) -> None:
        self.parent = parent
        self.wrt = wrt

    def __str__(self) -> str:
        return f"{self.kind}({self.parent})"

    def split(self, vals: Any) -> tuple[Any, Any, list[int], Callable[..., Any]]:
        """``(xs, rest, idx, outputs)``: the parent's inputs, the others, the positions
        differentiated, and the parent's floating outputs as a function of those positions."""
        vals_ = ad.lift_constants(vals)
        n = len(self.wrt)
        xs = vals_[:n]
        idx = [i for i, w in enumerate(self.wrt) if w]

        def outputs(*fx: Any) -> tuple[Any, ...]:
            full = list(xs)
            for i, v in zip(idx, fx, strict=True):
                full[i] = v
            return tuple(y for y in self.parent.plain(*full) if _floating_value(y))

        return xs, vals_[n:], idx, outputs


class _VjpOp(_DerivedOp):
    """``(*xs, *bars) -> cotangents of the xs in wrt``: the vector-Jacobian product of ``parent``
    (``bars``: one per floating output of the parent): the gradient of ``sum(bar * y)`` over the
    parent's floating outputs ``y``."""

    kind = "vjp"

    def output_types(self, in_types: tuple[Any, ...]) -> list[Any]:
        n = len(self.wrt)
        return [t for t, w in zip(in_types[:n], self.wrt, strict=True) if w]

    def plain(self, *vals: Any) -> list[Any]:
        xs, bars, idx, outputs = self.split(vals)

        def loss(*fx: Any) -> Any:
            total = None
            for b, y in zip(bars, outputs(*fx), strict=True):
                t = namespace_of(y).sum(b * y)
                total = t if total is None else total + t
            return total

        if not bars:
            return [_zeros_like(xs[i]) for i in idx]
        return list(ad.grad(loss, argnums=tuple(range(len(idx))))(*[xs[i] for i in idx]))


class _JvpOp(_DerivedOp):
    """``(*xs, *tangents) -> tangents of the parent's floating outputs``: the Jacobian-vector
    product of ``parent`` for the inputs in ``wrt``."""

    kind = "jvp"

    def output_types(self, in_types: tuple[Any, ...]) -> list[Any]:
        types = self.parent.output_types(in_types[: len(self.wrt)])
        return [t for t in types if _floating(t.dtype)]

    def plain(self, *vals: Any) -> list[Any]:
        xs, ts, idx, outputs = self.split(vals)
        ys, dots = ad.jvp(outputs, [xs[i] for i in idx], list(ts))
        return [
            _zeros_like(y) if isinstance(d, AbstractZero) else d
            for y, d in zip(ys, dots, strict=True)
        ]


# (op, input types) -> (output types, rebuilder of f's output structure)
_TYPES: dict[Any, tuple[list[Any], Callable[[list[Any]], Any]]] = {}


class _RuleOp(_Plain):
    """One call of a wrapped function: ``perform`` runs ``f``; ``L_op`` and ``R_op`` are the
    rules (``_PullbackOp``, ``_PushforwardOp``)."""

    __props__ = ("rules", "structure")
    cast_outputs = False

    def __init__(self, rules: Rules, structure: _Structure) -> None:
        self.rules = rules
        self.structure = structure

    def __str__(self) -> str:
        return f"rule[{self.rules.name}]"

    def plain(self, *vals: Any) -> list[Any]:
        args, kwargs = self.structure.sp.rebuild(vals)
        return list(output_leaves(self.rules.f(*args, **kwargs))[0])

    def _typed(self, in_types: tuple[Any, ...]) -> tuple[list[Any], Callable[[list[Any]], Any]]:
        key = (self, in_types)
        got = _TYPES.get(key)
        if got is not None:
            return got
        vals = [_placeholder(t, k) for k, t in enumerate(in_types)]
        try:
            args, kwargs = self.structure.sp.rebuild(vals)
            with np.errstate(all="ignore"):
                y = self.rules.f(*args, **kwargs)
        except Exception as exc:  # any failure: say what to do
            shapes = [v.shape for v in vals]
            raise TypeError(
                f"chainrules.interop.pytensor.wrap({self.rules.name}): the output types are "
                f"found by running {self.rules.name} on placeholder arrays of the inputs' "
                f"types (unknown dimensions of length {_UNKNOWN_DIM}: shapes {shapes}), which "
                f"raised {type(exc).__name__}: {exc}. Give the inputs static shapes "
                f"(pytensor.tensor.tensor(shape=...) or pytensor.tensor.specify_shape)"
            ) from exc
        ys, rebuild = output_leaves(y)
        static = all(None not in t.shape for t in in_types)
        types = []
        for v in ys:
            a = np.asarray(v)
            shape = a.shape if static else (None,) * a.ndim
            types.append(pt.TensorType(dtype=str(a.dtype), shape=shape))
        if len(_TYPES) >= _CACHE_SIZE:
            _TYPES.clear()
        _TYPES[key] = (types, rebuild)
        return types, rebuild

    def output_types(self, in_types: tuple[Any, ...]) -> list[Any]:
        return self._typed(in_types)[0]

    def rebuild_output(self, node: Any) -> Any:
        """The node's outputs in ``f``'s output structure (an array, a tuple, ...)."""
        return self._typed(tuple(x.type for x in node.inputs))[1](list(node.outputs))

    def differentiable(self, in_types: Sequence[Any]) -> list[int]:
        """The inputs the rules differentiate: floating leaves of positional arguments."""
        sp = self.structure.sp
        return [
            k
            for k, t in enumerate(in_types)
            if _floating(t.dtype)
            and sp.arg_of[sp.dynamic[k]] >= 0
            and k not in self.structure.keyword_leaves
        ]

    def _undefined(self, k: int, x: Any) -> Any:
        kw = self.structure.keyword_leaves.get(k)
        err = keyword_error("pytensor", self.rules.name, str(kw), "pytensor.grad differentiates")
        return grad_undefined(self, k, x, str(err))

    def L_op(self, inputs: Any, outputs: Any, grads: Any) -> Any:
        bars = [_bar(g, o) for o, g in zip(outputs, grads, strict=True) if _floating(o.dtype)]
        diff = self.differentiable([x.type for x in inputs])
        it = iter(_PullbackOp(self).make_node(*inputs, *bars).outputs)
        out = []
        for k, x in enumerate(inputs):
            if k in diff:
                out.append(next(it))
            elif _floating(x.dtype):
                out.append(self._undefined(k, x))
            else:
                out.append(disconnected_type())
        return out

    def R_op(self, inputs: Any, eval_points: Any) -> Any:
        diff = self.differentiable([x.type for x in inputs])
        for k, kw in self.structure.keyword_leaves.items():
            e = eval_points[k]
            if e is not None and _is_zero(e) != "yes":
                raise keyword_error("pytensor", self.rules.name, kw, "Rop differentiates")
        mask = tuple(k in diff and eval_points[k] is not None for k in range(len(inputs)))
        if not any(mask):
            return [None] * len(self.make_node(*inputs).outputs)
        ts = [eval_points[k] for k in range(len(inputs)) if mask[k]]
        dots = _PushforwardOp(self, mask).make_node(*inputs, *ts).outputs
        return _scatter_tangents(self, inputs, dots)


class _PullbackOp(_Plain):
    """``(*xs, *bars) -> cotangents of the differentiable xs``: the rrule's pullback applied to
    the gradients of ``fwd``'s floating outputs. Its own ``L_op``/``R_op`` are
    ``chainrules.ad`` differentiating this (the rule's pullback code)."""

    __props__ = ("fwd",)
    cast_outputs = False

    def __init__(self, fwd: _RuleOp) -> None:
        self.fwd = fwd

    def __str__(self) -> str:
        return f"pullback({self.fwd})"

    def output_types(self, in_types: tuple[Any, ...]) -> list[Any]:
        n = len(self.fwd.structure.sp.dynamic)
        return [in_types[k] for k in self.fwd.differentiable(in_types[:n])]

    def plain(self, *vals: Any) -> list[Any]:
        rules, sp = self.fwd.rules, self.fwd.structure.sp
        assert rules.rrule is not None
        vals_ = ad.lift_constants(vals)
        n = len(sp.dynamic)
        dyn, bars = vals_[:n], vals_[n:]
        args, kwargs = sp.rebuild(dyn)
        y, pullback = rules.rrule(*args, **kwargs)
        ys, rebuild = output_leaves(y)
        it = iter(bars)
        full = [next(it) if _floating_value(v) else _ZERO for v in ys]
        per_leaf = sp.cotangents(pullback(rebuild(full)), args)
        out = []
        for k in self.fwd.differentiable(dyn):
            pos, x = sp.dynamic[k], dyn[k]
            c = per_leaf[pos]
            c = None if c is None else unthunk(c)
            if c is None or isinstance(c, AbstractZero):
                out.append(_zeros_like(x))
                continue
            if isinstance(c, (np.ndarray, np.generic)) and isinstance(x, np.ndarray):
                check_leaf(rules.name, "rrule", sp.arg_of[pos], c, x, c.dtype == x.dtype)
            out.append(c)
        return out


class _PushforwardOp(_Plain):
    """``(*xs, *tangents) -> tangents of fwd's floating outputs``: the frule, with tangents for
    the inputs in ``mask`` (zeros for the other differentiable ones). Its own ``L_op``/``R_op``
    are ``chainrules.ad`` differentiating this (the rule's pushforward code)."""

    __props__ = ("fwd", "mask")
    cast_outputs = False

    def __init__(self, fwd: _RuleOp, mask: tuple[bool, ...]) -> None:
        self.fwd = fwd
        self.mask = mask

    def __str__(self) -> str:
        return f"pushforward({self.fwd})"

    def output_types(self, in_types: tuple[Any, ...]) -> list[Any]:
        types = self.fwd.output_types(in_types[: len(self.mask)])
        return [t for t in types if _floating(t.dtype)]

    def plain(self, *vals: Any) -> list[Any]:
        rules, sp = self.fwd.rules, self.fwd.structure.sp
        assert rules.frule is not None
        vals_ = ad.lift_constants(vals)
        n = len(self.mask)
        dyn, ts = vals_[:n], vals_[n:]
        diff = set(self.fwd.differentiable(dyn))
        it = iter(ts)
        leaf_t = {}
        for k, m in enumerate(self.mask):
            t = next(it) if m else _ZERO
            if k in diff:
                leaf_t[sp.dynamic[k]] = t
        args, kwargs = sp.rebuild(dyn)
        y, y_dot = rules.frule((NoTangent(), *sp.tangents(leaf_t, NoTangent())), *args, **kwargs)
        ys, _ = output_leaves(y)
        dots = tangent_output_leaves(y_dot, len(ys), y)
        out = []
        for v, d in zip(ys, dots, strict=True):
            if not _floating_value(v):
                continue
            if d is None:
                out.append(_zeros_like(v))
                continue
            if isinstance(d, (np.ndarray, np.generic)) and isinstance(v, (np.ndarray, np.generic)):
                check_leaf(rules.name, "frule", -1, d, v, np.result_type(d) == np.result_type(v))
            out.append(d)
        return out
