"""PyTorch bridge: ``wrap(f)`` is a function of tensors whose derivatives come from ``f``'s rules.

Built on ``torch.autograd.Function`` with a context-free ``forward`` and a ``setup_context``
(what ``torch.func`` and ``torch.compile`` need):

* ``forward`` calls the registered **rrule** once and keeps its pullback; ``backward`` applies it
  to the incoming gradient (the residuals are the arrays the pullback closed over), forcing only
  the cotangents of inputs in ``ctx.needs_input_grad``; it first checks that no input or output
  the pullback may read was modified in place since (``_watch``). Where the kept pullback would
  be wrong the rrule is recomputed on the saved inputs (``save_for_backward``): when PyTorch
  records the backward (``create_graph=True``, ``gradgradcheck``), so the pullback is
  differentiated again by PyTorch itself; under ``torch.func`` transforms, whose tensors sit
  outside the levels the pullback saw; and inside ``saved_tensors_hooks``. The rule runs on
  tensors (DTensors included) through ``array_api_compat.torch``.
* ``jvp`` (forward-mode AD: ``torch.autograd.forward_ad``, ``gradcheck(check_forward_ad=True)``)
  calls the registered **frule**. In eager autograd the bridge uses a second Function, without
  ``jvp``, unless an input carries a forward-mode tangent (the ``jvp`` costs a saved input).
  Under ``torch.func`` transforms it is always the Function with ``jvp``: a forward-mode level may
  sit below a reverse-mode one (``hessian`` is ``jacfwd(jacrev)``), where the inputs show no
  tangent, and the Hessian then comes from the frule over the rrule's pullback.
* The rule gets its inputs detached (it computes values, as a backward formula does: some torch
  functions refuse a tensor that requires grad where they take a number), and a zero cotangent
  (``ZeroTangent``, ``NoTangent``) of a floating input that requires grad is returned as zeros,
  as torch's own functions give, so no ``.grad`` is left ``None``.
* ``generate_vmap_rule = True``: ``torch.func.vmap`` runs the rules on batched tensors (they are
  written against the Array API, with no data-dependent Python control flow).

Arguments: tensors anywhere in the (nested tuple / list / named tuple / dict / registered
dataclass: ``core.pytree``) arguments are
passed to the Function and differentiated; NumPy arrays are converted with ``torch.as_tensor`` at
the boundary; every other leaf (Python numbers, axes, orders, slices) is static. Integer and
boolean tensors get ``None`` gradients. A keyword argument holding a floating tensor is moved to
its position (``core.calls.bind_keywords``); one that cannot move raises ``KeywordDerivativeError``
when it requires grad. PyTorch's complex gradient convention is chainrules' own, so no conversion
is needed.

Results may be pytrees too. PyTorch records a tensor or a flat tuple of tensors only, so the
Function returns the leaves and the bridge rebuilds the structure after ``apply`` (``_Call.out``;
the custom op's list of tensors likewise). Under ``torch.compile`` named tuples come back plain.

torch.compile: TorchDynamo does not trace a bridged call. It would trace the rules' Python,
which it cannot always follow (the objects a pullback closes over, a write to a cache), and the
``autograd.Function`` under it: Dynamo inlines a Function none of whose inputs it thinks
requires grad (the *body* is then differentiated, not the rule), reads ``requires_grad`` and so
``ctx.needs_input_grad`` wrong inside ``torch.func`` transforms, and refuses a Function with
``jvp``. So each call is one opaque node of Dynamo's graph (``torch._dynamo.nonstrict_trace``,
``_dynamo_call``: its static arguments are constants of the graph), which AOTAutograd traces by
running the bridge as in eager mode on fake tensors, with the ``torch.func`` levels of the
transforms around it: the graph holds the rules' operations, forward and backward, under every
transform (``grad``, ``vjp``, ``jacrev``, ``jacfwd``, ``hessian``, ``vmap``) and plain
``backward``, on a cold cache, with no graph break from the bridge. Under
``torch.export`` (``strict=False``, the default) each call is recorded as one node of a custom
op (``torch.library.custom_op``, named after the function and the call's static structure),
whose ``register_fake`` runs the rrule on fake tensors and whose ``register_autograd`` backward is
the rrule's pullback: a backward pass through the exported program uses the rules.
``torch.export(strict=True)`` traces with TorchDynamo, where the op cannot be made: it raises
``RuleNotUsedError``; so does ``torch.export`` of a ``torch.func`` transform (``grad``, ``vjp``,
``jvp``, ``jacrev``, ``jacfwd``, ``hessian``, ``vmap``), naming the transforms: torch 2.13's
export traces neither route there, and records tensors made inside a transform as constants of
the program (``_exported_transform_call``). :func:`save` and :func:`load` wrap
``torch.export.save`` and ``load`` so that another process makes the same ops (same names)
before it reads the program. (The custom op is not the route elsewhere: reverse-mode
``torch.func`` transforms fail on custom ops in torch 2.13, they have no forward-mode
registration, and an eager call through one costs 7-10x a native call at n = 10,
``benchmarks/torch_bridge.py``.)
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import re
import weakref
import zipfile
from typing import Any

import numpy as np
import torch
import torch.utils._pytree as _pytree
from torch._C._functorch import unwrap_if_dead as _unwrap_if_dead
from torch.autograd import forward_ad

from ..core.calls import *
from ..core.namespaces import qualified_name
from ..core.pytree import without_named_tuples
from ..core.tangents import AbstractZero, NoTangent, unthunk
from ._derived import complete
from ._functorch import transform_stack
from ._torch_calls import decode_call, encode_call, importable, resolve

__all__ = ["KeywordDerivativeError", "RuleNotUsedError", "load", "save", "wrap"]


class RuleNotUsedError(RuntimeError):
    """A transformation would differentiate the body of a wrapped function, not its rules."""


def _is_dynamic(x: Any) -> bool:
    return isinstance(x, (torch.Tensor, np.ndarray))


def _is_tensor(x: Any) -> bool:
    return isinstance(x, torch.Tensor)


_SIMPLE_CACHE = 64  # call structures kept per wrapped function (static values are part of one)


def _inexact_leaf(x: Any) -> bool:
    if isinstance(x, torch.Tensor):
        return _inexact(x)
    return isinstance(x, np.ndarray) and x.dtype.kind in "fc"


def _tangent_like(t: Any, p: Any) -> Any:
    """Torch's forward-mode tangent ``t`` of the input ``p`` in ``p``'s dtype: under
    ``torch.func.jacfwd`` a float32 input can arrive with a float64 tangent (campaign
    torch-bridge seed 1900: a float32 tensordot's output glued by ``target + 0.1 * tanh(...)``),
    which the frule would carry into a tangent of another dtype than its output."""
    if t.dtype == p.dtype:
        return t
    if t.dtype.is_complex and not p.dtype.is_complex:
        t = torch.real(t)
    return t.to(p.dtype)


def _inexact(x: Any) -> bool:
    dtype = x.dtype
    return bool(dtype.is_floating_point or dtype.is_complex)


def wrap(f: Any) -> Any:
    """A function of tensors computing ``f`` whose derivatives come from ``f``'s rules.

    Reverse mode comes from the rrule, forward mode from the frule; the one missing is derived
    from the other (``chainrules.interop._derived``), and a ``NoRuleError`` naming ``f`` is
    raised when there is neither.

    >>> import torch, numpy as np
    >>> from chainrules.interop import torch as crtorch
    >>> norm = crtorch.wrap(np.linalg.norm)
    >>> x = torch.tensor([3.0, 4.0], requires_grad=True)
    >>> norm(x).backward()
    >>> x.grad
    tensor([0.6000, 0.8000])
    """
    rules = complete(find_rules(f, "torch"))
    plain, with_jvp = _functions(rules)
    # Function.apply binds its arguments to forward's signature with inspect on every call (half
    # of the bridge's fixed cost at n = 10), an identity for forward(call, *dyn). Outside
    # torch.func transforms and torch.compile it then calls the C apply: call that directly
    c_apply = {fn: super(torch.autograd.Function, fn).apply for fn in (plain, with_jvp)}
    simple: dict[Any, SimpleSplit] = {}  # simple_key -> the call's split, without tensors

    @functools.wraps(f)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if _is_dynamo_compiling():
            # TorchDynamo traces this call: it runs opaque to Dynamo (see the module docstring)
            return _dynamo_call(opaque, rules.name, args, kwargs)
        sp = None
        if not kwargs:
            for a in args:  # a loop, not all() of a generator: half the cost at one argument
                if not isinstance(a, torch.Tensor):
                    break
            else:  # the common call: no walk of the arguments
                sp, dyn = flat_split(len(args)), args
        if sp is None:
            # a call of tensors and static scalars (sum(x, axis=0), x * 2.0): its split is made
            # once per structure (SimpleSplit); any other walks its arguments
            key = simple_key(args, kwargs, _is_tensor)
            sp = simple.get(key) if key is not None else None
            if sp is not None:
                dyn = tuple([args[i] for i in sp.dynamic])
            else:
                sp, dyn = _split_call(rules, args, kwargs)
                if key is not None and len(simple) < _SIMPLE_CACHE:
                    simple[key] = SimpleSplit.of(sp, args, kwargs)
        if _is_exporting():
            if _functorch_active():  # torch.export of a torch.func transform
                return _exported_transform_call(rules)
            return _exported_call(rules, sp, dyn)
        if _functorch_active():
            # a torch.func transform's tensors sit outside the pullback's levels: the
            # backward recomputes the rrule from the saved tensors. The
            # Function with jvp, always: a forward-mode level (jvp, jacfwd) may sit anywhere in
            # the stack of transforms, and one under a reverse-mode level (hessian is jacfwd of
            # jacrev) shows no tangent on the inputs here, yet asks for the Function's jvp
            call = _Call(sp, False)
            return _result(call, with_jvp.apply(call, *dyn))
        # dual tensors exist only inside a forward_ad.dual_level (a level >= 0)
        fn = with_jvp if forward_ad._current_level >= 0 and _has_forward_tangent(dyn) else plain
        # saved-tensor hooks (offloading, checkpointing) must see every residual: with them the
        # backward recomputes too. Then what Function.apply does next (see NOTE: [functorch vjp
        # and autograd interaction])
        call = _Call(sp, _saved_tensors_hooks(False) is None)
        if len(dyn) == 1:
            out = c_apply[fn](call, _unwrap_if_dead(dyn[0]))
        else:
            out = c_apply[fn](call, *map(_unwrap_if_dead, dyn))
        return out if call.out is None else call.out(list(out))

    opaque = _opaque(wrapped, rules.name)
    wrapped.__chainrules_rules__ = rules  # type: ignore[attr-defined]
    wrapped.__chainrules_splits__ = simple  # type: ignore[attr-defined]
    return wrapped


def _split_call(rules: Rules, args: Any, kwargs: Any) -> tuple[Split, tuple[Any, ...]]:
    """A call's split and its dynamic leaves as tensors (NumPy arrays converted), floating
    tensors in keyword arguments moved to their positions, and a ``KeywordDerivativeError`` for
    one that cannot move and needs a derivative."""
    args, kwargs, unbound = bind_keywords(rules, args, kwargs, _inexact_leaf)
    sp = split(args, kwargs, _is_dynamic, f"chainrules.interop.torch.wrap({rules.name})")
    dyn = tuple(
        torch.as_tensor(sp.leaves[i]) if isinstance(sp.leaves[i], np.ndarray) else sp.leaves[i]
        for i in sp.dynamic
    )
    for k, kw in sp.keyword_leaves(unbound):
        _check_keyword_leaf(rules.name, kw, dyn[k])
    return sp, dyn


def _custom_op_route(f: Any) -> Any:
    """``f`` called through the custom op that ``torch.export`` records for it
    (:func:`_exported_call`), eagerly too: the route ``benchmarks/torch_bridge.py`` times beside
    the ``autograd.Function`` one, and which the tests compare with it."""
    rules = complete(find_rules(f, "torch"))

    @functools.wraps(f)
    def op_call(*args: Any, **kwargs: Any) -> Any:
        return _exported_call(rules, *_split_call(rules, args, kwargs))

    return op_call


def _check_keyword_leaf(name: str, keyword: str, t: Any) -> None:
    """Raise when the floating tensor ``t`` of a keyword argument that cannot be passed
    positionally needs a derivative (it requires grad or carries a forward-mode tangent)."""
    if not _inexact(t):
        return
    if t.requires_grad:
        raise keyword_error("torch", name, keyword, "requires grad")
    if forward_ad._current_level >= 0 and forward_ad.unpack_dual(t).tangent is not None:
        raise keyword_error("torch", name, keyword, "carries a forward-mode tangent")


# --- TorchDynamo: the call runs opaque to it ------------------------------------------------


class _Static:
    """A static leaf of a call's arguments that a graph cannot hold as a value (``None``, a
    slice, ``...``, a NumPy dtype, a function): a pytree node with no children whose context is
    the leaf, so that Dynamo passes it to the opaque call as a constant. It unflattens to the
    leaf itself."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


_pytree.register_pytree_node(
    _Static,
    lambda s: ([], s.value),
    lambda _, value: value,
    serialized_type_name="chainrules.interop.torch._Static",
)
_GRAPHABLE = torch.fx.node.base_types


def _graph_leaf(a: Any) -> Any:
    return a if isinstance(a, _GRAPHABLE) else _Static(a)


def _opaque(wrapped: Any, name: str) -> Any:
    """``wrapped``'s eager call, for TorchDynamo to record as one opaque node (see
    ``_dynamo_call``). One per ``wrap``, defined outside any compiled region (as
    ``nonstrict_trace`` requires) and named after the function, so that Dynamo's errors and
    graphs name it."""

    def call(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        # TorchDynamo's nonstrict_trace refuses a named tuple in the output (KeyError:
        # namedtuple, torch 2.13; dicts, lists and tuples pass): a plain tuple under compile
        return without_named_tuples(wrapped(*args, **kwargs))

    call.__name__ = call.__qualname__ = "chainrules_" + re.sub(r"\W", "_", name)
    return call


def _dynamo_call(opaque: Any, name: str, args: tuple[Any, ...], kwargs: Any) -> Any:
    """The call of a wrapped function under TorchDynamo (``torch.compile``; ``torch.export``
    with ``strict=True``), which only Dynamo runs: ``opaque`` (the eager call, ``_opaque``)
    through ``torch._dynamo.nonstrict_trace``, which Dynamo records as one opaque node (a
    ``flat_apply``) and AOTAutograd traces by running it -- the bridge's Python (the rules, their
    pullbacks, the ``autograd.Function`` with its ``jvp``, the ``torch.func`` levels) runs as in
    eager mode, on fake tensors, and its operations are what the graph holds. The arguments'
    static leaves are passed as constants. (Applied here, not in ``wrap``: importing
    ``torch._dynamo`` costs over a second, which eager users would pay.)"""
    if _is_exporting():
        raise RuleNotUsedError(
            f"chainrules.interop.torch: torch.export(strict=True) traces {name} with "
            f"TorchDynamo, where the bridge cannot record its custom op, and the exported "
            f"program would differentiate the body of {name}, not its registered rules. "
            f"Export with strict=False (the default): the bridge records {name} as a "
            f"custom op whose backward is the rule's pullback"
        )
    args, kwargs = _pytree.tree_map(_graph_leaf, (args, kwargs))
    return torch._dynamo.nonstrict_trace(opaque)(args, kwargs)


# --- torch.export: a custom op per wrapped function and call structure -------------------------

# op name -> (the rrule it calls, the op, [the rebuilder of its rule's output from the op's list
# of tensors: None for one array], the rules and the call's split, which save() writes down)
_OPS: dict[str, tuple[Any, Any, list[Any], Rules, Split]] = {}


def _op_name(rules: Rules, sp: Split) -> str:
    """A name for the custom op of ``rules``' function called with ``sp``'s structure: the
    function's name and a digest of the static parts of the call (the tree of the arguments and
    every leaf that is not a tensor), the same in every process where those have the same
    ``repr`` (``tests/interop/test_torch_fresh.py`` exports in two processes)."""
    dynamic = set(sp.dynamic)
    static = [None if i in dynamic else leaf for i, leaf in enumerate(sp.leaves)]
    # the function's own module and name, not rules.name: that one is the table's, whose
    # choice among a function's aliases (torch.exp, array_api_compat.torch.exp) depends on
    # what the process imported first
    fname = qualified_name(rules.f)
    text = repr((fname, sp.skeleton, static, sp.dynamic))  # (the same for every Split class)
    digest = hashlib.sha1(text.encode()).hexdigest()[:16]
    short = re.sub(r"\W", "_", fname)
    return f"chainrules::{short}_{digest}"


def _exported_call(rules: Rules, sp: Split, dyn: tuple[Any, ...]) -> Any:
    """Under ``torch.export``: the call as a custom op (``torch.library.custom_op``), which the
    exported program records as one node, whose backward (``register_autograd``) is the rrule's
    pullback and whose shapes (``register_fake``) come from the rrule on fake tensors. So a
    backward pass through the exported program uses the rules."""
    name = _op_name(rules, sp)
    entry = _OPS.get(name)
    k = 1
    while entry is not None and entry[0] is not rules.rrule:  # rules registered again
        k += 1
        entry = _OPS.get(f"{name}_{k}")
    if k > 1:
        name = f"{name}_{k}"
    op, out_kind = _make_op(name, rules, sp) if entry is None else entry[1:3]
    outs = op(list(dyn))
    rebuild = out_kind[0]  # the op returns a list of tensors: the rule's result rebuilt
    return outs[0] if rebuild is None else rebuild(list(outs))


def _exported_transform_call(rules: Rules) -> Any:
    """Under ``torch.export`` of a ``torch.func`` transform: ``RuleNotUsedError`` naming the
    transforms, before torch's own failure. Torch 2.13's export traces neither route there (the
    custom op's autograd has no ``setup_context``; a Function under ``torch.func`` has no
    pre-dispatch tracing), and records a tensor made inside a transform (``ones_like``, ``grad``'s
    saved tensors) as a fake constant of the program, for its own functions too. Each transform
    unwinds its own level on the error: torch's state is left as it was."""
    stack = transform_stack()
    # the first line says what and where (a cell of the matrix shows the first line only)
    raise RuleNotUsedError(
        f"chainrules.interop.torch: torch.export of torch.func's {stack} around {rules.name}: "
        "torch 2.13's export cannot trace the bridge inside a torch.func transform\n"
        "(torch.func.grad, vjp and jacrev are grad; jacfwd is vmap of jvp; hessian is jacfwd of "
        "jacrev.) It records tensors made inside a transform as constants of the program, for "
        "torch's own functions too. Export the function itself and differentiate the exported "
        "program (ep.module()(x).backward() or torch.autograd.grad: its backward is the rule's "
        "pullback), or torch.compile the transform"
    )


def _make_op(name: str, rules: Rules, sp: Split) -> tuple[Any, list[Any]]:
    rrule = rules.rrule
    assert rrule is not None

    def call_rule(xs: Any) -> Any:
        args, kwargs = sp.rebuild(tuple(xs))
        return rrule(*args, **kwargs)

    def forward(xs: list[torch.Tensor]) -> list[torch.Tensor]:
        y, _ = call_rule(xs)
        ys, rebuild = output_leaves(y)
        # the structure of the output (a rebuilder of its leaves, None for one array), read by
        # _exported_call after the op (first set on fake tensors while export traces)
        out_kind[0] = None if _single(y, ys) else rebuild
        # a custom op's outputs may not alias its inputs
        return [v.clone() for v in ys]

    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        ctx.save_for_backward(*inputs[0])

    def backward(ctx: Any, grads: list[Any]) -> Any:
        xs = ctx.saved_tensors
        y, pullback = call_rule(xs)
        ys, rebuild = output_leaves(y)
        bar = rebuild([torch.zeros_like(yi) if g is None else g for g, yi in zip(grads, ys)])
        args, _ = sp.rebuild(xs)
        cts = sp.cotangents(pullback(bar), args)
        out: list[Any] = []
        for pos, p in zip(sp.dynamic, xs, strict=True):
            c = cts[pos]
            if c is None or not _inexact(p):
                out.append(_zero_grad(p))
                continue
            check_leaf(rules.name, "rrule", sp.arg_of[pos], c, p, c.dtype == p.dtype)
            out.append(c)
        return (out,)

    out_kind: list[Any] = [None]
    op = torch.library.custom_op(name, forward, mutates_args=())
    op.register_fake(forward)
    op.register_autograd(backward, setup_context=setup_context)
    _OPS[name] = (rrule, op, out_kind, rules, sp)
    return op, out_kind


# --- torch.export.save / load: the custom ops written down, and made again before loading -------

_SPEC = "chainrules_ops.json"  # the extra file of a saved program that lists its ops


def save(ep: Any, f: Any, **kwargs: Any) -> None:
    """``torch.export.save(ep, f)``, with the bridge's custom ops in ``ep`` written down beside
    it (an extra file: each op's function, by its importable name, and its call's static
    structure) so that :func:`load` in another process makes them again before loading: a
    loaded program's backward pass calls the rules. Raises ``ValueError`` naming the function
    when it or a static argument cannot be written down (a function defined in a closure, a
    NumPy dtype)."""
    ops: dict[str, Any] = {}
    for node in ep.graph.nodes:
        if node.op != "call_function" or getattr(node.target, "namespace", None) != "chainrules":
            continue
        name = node.target._schema.name  # "chainrules::<function>_<digest>"
        entry = _OPS.get(name)
        if entry is None:
            raise ValueError(f"chainrules.interop.torch.save: {name} is not an op of this process")
        rules, sp = entry[3], entry[4]
        ops[name] = {"function": importable(rules), "call": encode_call(rules.name, sp)}
    extra = dict(kwargs.pop("extra_files", None) or {})
    extra[_SPEC] = json.dumps(ops)
    torch.export.save(ep, f, extra_files=extra, **kwargs)


def load(f: Any, **kwargs: Any) -> Any:
    """``torch.export.load(f)`` of a program saved by :func:`save`: each custom op it lists is
    made again from its function's rules (imported by name) and its call's structure, under the
    same name -- op names are a digest of the function's name and the call's static structure,
    the same in every process; a mismatch (the rules or the function changed) raises."""
    if isinstance(f, (str, bytes)) or hasattr(f, "__fspath__"):
        with open(f, "rb") as fh:
            data = fh.read()
    else:
        data = f.read()
    # the list of ops first, straight from the archive (a zip): torch.export.load cannot read
    # the program before its ops exist
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        listed = [n for n in z.namelist() if n.rsplit("/", 1)[-1] == _SPEC]
        spec_text = z.read(listed[0]).decode() if listed else "{}"
    for name, spec in json.loads(spec_text).items():
        if name in _OPS:
            continue
        module, _, qual = spec["function"].partition(":")
        fn = resolve(module, qual)
        if fn is None:
            raise ValueError(
                f"chainrules.interop.torch.load: the program's op {name} calls {module}.{qual}, "
                "which this process cannot import"
            )
        rules = complete(find_rules(fn, "torch"))
        sp = decode_call(spec["call"])
        base = _op_name(rules, sp)
        if name != base and not re.fullmatch(re.escape(base) + r"_\d+", name):
            raise ValueError(
                f"chainrules.interop.torch.load: the program's op {name} is not what "
                f"{rules.name} called this way gives in this process ({base}): its rules or "
                "its name changed since it was saved"
            )
        _make_op(name, rules, sp)
    return torch.export.load(io.BytesIO(data), **kwargs)


class _Call:
    """One call's static state, passed to the Function as its first input: the split arguments,
    whether the forward's pullback may serve the backward pass (``keep``: not under a
    ``torch.func`` transform, ``torch.compile`` or saved-tensor hooks, decided by ``wrap``), and
    that pullback, with the rebuilder of a structured output's cotangent and the arguments; and
    ``out``, set by ``forward``: ``None`` for one array, else the rebuilder of the rule's result
    (a tuple, list, dict, named tuple or registered dataclass, nested) from the flat tuple of its
    leaves that the Function returns -- PyTorch records a tensor or a tuple of tensors only."""

    __slots__ = ("keep", "out", "outs", "pullback", "sp", "versions", "watch")
    # set by _watch with the kept pullback, and read only where there is one: the inputs, their
    # version counters after the forward, and the outputs' (weak reference, version counter)
    watch: tuple[Any, ...]
    versions: list[int]
    outs: list[tuple[Any, int]]

    def __init__(self, sp: Split, keep: bool) -> None:
        self.sp = sp
        self.keep = keep
        self.pullback: Any = None
        self.out: Any = None


def _watch(call: _Call, inputs: tuple[Any, ...], ys: Any) -> None:
    """Record, for a kept pullback, the inputs and the rule's outputs and their version
    counters: the backward pass refuses one modified in place since (:func:`_unmodified`), as
    ``saved_tensors`` would. The inputs are held (the kept pullback holds their detached aliases
    in ``call.pullback`` anyway), the outputs by weak reference: a returned output is a detached
    alias of the rule's, which shares its version counter, and an output no one holds any more,
    the pullback included, is neither read nor modified. Saving them with ``save_for_backward``
    instead cost 3-5 us per call at n = 10 (benchmarks/torch_bridge.py --cpu, over the
    hand-written Function: ``exp`` 1.80x -> 1.69x, the 2-norm 2.08x -> 1.91x, ``matmul`` 1.59x
    -> 1.48x)."""
    call.watch = inputs
    call.versions = [t._version for t in inputs]
    call.outs = [(weakref.ref(y), y._version) for y in ys if type(y) is torch.Tensor]


def _unmodified(name: str, call: _Call) -> tuple[Any, ...]:
    """The inputs recorded by :func:`_watch`, after checking that none of them, and none of the
    outputs still alive, was modified in place since the forward (torch's error, naming the
    tensor, where one was)."""
    watch = call.watch
    if [t._version for t in watch] != call.versions:
        k = next(k for k, t in enumerate(watch) if t._version != call.versions[k])
        raise _modified(name, f"input {k}", watch[k], call.versions[k])
    for k, (ref, v) in enumerate(call.outs):
        t = ref()
        if t is not None and t._version != v:
            raise _modified(name, f"output {k}", t, v)
    return watch


def _modified(name: str, what: str, t: Any, version: int) -> RuntimeError:
    return RuntimeError(
        f"chainrules.interop.torch.wrap({name}): one of the variables needed for gradient "
        f"computation has been modified by an inplace operation: {what} of the call (a "
        f"{t.dtype} tensor of shape {tuple(t.shape)}) is at version {t._version}; expected "
        f"version {version} instead: the rule's pullback would read the modified values"
    )


def _single(y: Any, ys: list[Any]) -> bool:
    """Whether the rule's result ``y`` (whose leaves are ``ys``) is one array, not a structure."""
    return len(ys) == 1 and ys[0] is y


def _result(call: _Call, out: Any) -> Any:
    """The wrapped function's result from what the Function returned (see ``_Call.out``)."""
    return out if call.out is None else call.out(list(out))


_functorch_active = torch._C._are_functorch_transforms_active
_is_dynamo_compiling = torch.compiler.is_dynamo_compiling
_is_exporting = torch.compiler.is_exporting
_saved_tensors_hooks = torch._C._autograd._top_saved_tensors_default_hooks


def _has_forward_tangent(dyn: tuple[Any, ...]) -> bool:
    return any(forward_ad.unpack_dual(t).tangent is not None for t in dyn)


def _zero_grad(p: Any) -> Any:
    """The gradient ``backward`` returns for input ``p``, which needs one, where the rule's
    cotangent is a zero (``ZeroTangent``, ``NoTangent``): zeros of ``p``'s shape for a floating
    or complex ``p``, as torch's own functions give (``floor``): ``None`` would leave a leaf's
    ``.grad`` at ``None``, a silent "no gradient" for an array that asked for one. ``None`` for
    integer and boolean inputs (asked for only when every cotangent is, under torch.compile),
    which have no gradient."""
    return torch.zeros_like(p) if _inexact(p) else None


def _wanted_cotangents(sp: Split, cts: Any, args: tuple[Any, ...], want: set[int]) -> list[Any]:
    """``sp.cotangents(cts, args)`` for the positional arguments in ``want`` only: the entries
    of the others (often ``Thunk``s of work nobody asked for) are never forced."""
    out: list[Any] = [None] * len(sp.leaves)
    start = 0
    for i, a in enumerate(args):
        n = sp.arg_of.count(i)
        if i in want:
            out[start : start + n] = cotangent_leaves(cts[i + 1], a)
        start += n
    return out


def _fresh(y: Any, dyn: tuple[Any, ...], inputs: tuple[Any, ...], keep: bool) -> Any:
    """What ``forward`` returns for a rule's output ``y`` (``dyn``: what the rule was given,
    ``inputs``: the Function's inputs they were detached from). An input returned as it is
    cannot be saved for backward with ``setup_context``: a view of it (getitem of a tuple, a
    no-op reshape). With the pullback kept (``keep``), which may hold ``y`` itself, a detached
    alias: PyTorch sets the returned tensor's ``grad_fn`` to the node that holds the pullback, and
    returning ``y`` would close a reference cycle (output -> node -> pullback -> output) that
    only Python's cyclic collector frees -- every call's outputs and residuals would outlive
    the graph."""
    for d, i in zip(dyn, inputs, strict=True):
        if y is d:
            return i.view_as(i)
    return y.detach() if keep and isinstance(y, torch.Tensor) else y


def _functions(rules: Rules) -> tuple[Any, Any]:
    rrule, frule, name = rules.rrule, rules.frule, rules.name
    assert rrule is not None and frule is not None

    def forward(call: _Call, *dyn: Any) -> Any:
        inputs = dyn
        for t in dyn:
            if t.requires_grad:
                # the rule computes values: it gets its inputs detached, as torch's own
                # functions see them in a backward formula. Some torch functions refuse a
                # tensor that requires grad where they take a number (full's fill_value) or
                # export it (numpy(), from_dlpack)
                dyn = tuple([t.detach() if t.requires_grad else t for t in dyn])
                break
        if type(call.sp) is FlatSplit:
            args: tuple[Any, ...] = dyn
            y, pullback = rrule(*dyn)
        else:
            args, kwargs = call.sp.rebuild(dyn)
            y, pullback = rrule(*args, **kwargs)
        keep = call.keep
        flat = None if type(y) is torch.Tensor else output_leaves(y)
        if flat is None or _single(y, flat[0]):  # one output: _fresh(y, dyn, inputs, keep), inline
            if keep:
                call.pullback = (pullback, None, args)
                _watch(call, inputs, (y,))
            for d, i in zip(dyn, inputs):
                if y is d:
                    return i.view_as(i)
            return y.detach() if keep and type(y) is torch.Tensor else _fresh(y, (), (), keep)
        # a structured result: the Function returns its leaves as a flat tuple (what PyTorch
        # records), and the bridge rebuilds the structure after apply (call.out)
        ys, rebuild = flat
        call.out = rebuild
        if keep:
            call.pullback = (pullback, rebuild, args)
            _watch(call, inputs, ys)
        return tuple([_fresh(v, dyn, inputs, keep) for v in ys])

    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        call = inputs[0]
        ctx.call = call  # with the kept pullback: freed with the graph
        if call.pullback is None:
            ctx.save_for_backward(*inputs[1:])
        # else the kept pullback reads the inputs and may read the outputs: the backward pass
        # refuses them when modified in place since (_watch), as torch's own functions do,
        # instead of pulling back through the modified values

    def setup_context_fwd(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        setup_context(ctx, inputs, output)
        ctx.save_for_forward(*inputs[1:])

    def flat_cotangent(c: Any, p: Any, i: int) -> Any:
        """What ``backward`` returns for positional tensor ``i`` (``p``) of a flat call, whose
        cotangent entry is ``c``: forced if it is a Thunk, zeros for a zero (``_zero_grad``),
        checked against ``p``'s shape and dtype (an error naming the function)."""
        if type(c) is not torch.Tensor:
            c = unthunk(c)
            if isinstance(c, AbstractZero):
                return _zero_grad(p)
        if c.shape != p.shape or c.dtype != p.dtype:
            check_leaf(name, "rrule", i, c, p, c.dtype == p.dtype)
        return c

    def backward(ctx: Any, *grads: Any) -> Any:
        call: _Call = ctx.call
        sp = call.sp
        # also the check that no input (or output, for a kept pullback) was modified in place
        kept = call.pullback
        saved = ctx.saved_tensors if kept is None else _unmodified(name, call)
        if kept is None or torch.is_grad_enabled():
            # create_graph=True (the backward is recorded: the pullback must be differentiable
            # in the inputs, which the forward's, built under no_grad, is not), or a transform
            # or hook that excluded the saved pullback: recompute the rrule from saved tensors
            args, kwargs = sp.rebuild(saved[: len(sp.dynamic)])
            y, pullback = rrule(*args, **kwargs)
            ys, rebuild = output_leaves(y)
            bar = rebuild([torch.zeros_like(yi) if g is None else g for g, yi in zip(grads, ys)])
        else:
            # the forward's pullback: its residuals are the arrays it closed over. Gradients
            # are materialised (zeros, never None) unless a user turned that off
            pullback, rebuild, args = kept
            bar = grads[0] if rebuild is None else rebuild(list(grads))
        # an input that needs a gradient requires grad, which only floating and complex tensors
        # can: integer and boolean inputs (indices, masks) are never asked for
        need = ctx.needs_input_grad
        if type(sp) is FlatSplit:  # one positional tensor per input: no leaf bookkeeping
            if sp.nargs == 1:
                return None, (flat_cotangent(pullback(bar)[1], saved[0], 0) if need[1] else None)
            # the entries of inputs not needed (Thunks) are never forced
            cts: Any = pullback(bar) if any(need) else None
            res: list[Any] = [None]
            for k in range(1, sp.nargs + 1):
                res.append(flat_cotangent(cts[k], saved[k - 1], k - 1) if need[k] else None)
            return tuple(res)
        if type(sp) is SimpleSplit:  # tensor k is positional argument dynamic[k]
            cts = pullback(bar) if any(need) else None
            res = [None]
            for k, pos in enumerate(sp.dynamic, 1):
                res.append(flat_cotangent(cts[pos + 1], saved[k - 1], pos) if need[k] else None)
            return tuple(res)
        dyn = saved[: len(sp.dynamic)]
        wanted = {sp.arg_of[pos] for k, pos in enumerate(sp.dynamic, 1) if need[k]}
        if not wanted:
            return (None,) * (len(dyn) + 1)
        out: list[Any] = [None]
        cts = _wanted_cotangents(sp, pullback(bar), args, wanted)
        for pos, p in zip(sp.dynamic, dyn, strict=True):
            c = cts[pos]
            if c is None or not need[len(out)]:
                out.append(_zero_grad(p) if need[len(out)] else None)
                continue
            check_leaf(name, "rrule", sp.arg_of[pos], c, p, c.dtype == p.dtype)
            out.append(c)
        return tuple(out)

    def jvp(ctx: Any, *tangents: Any) -> Any:
        sp: Split = ctx.call.sp
        dyn = ctx.saved_tensors[: len(sp.dynamic)]
        args, kwargs = sp.rebuild(dyn)
        leaf_t = {
            pos: _tangent_like(t, p)
            for pos, p, t in zip(sp.dynamic, dyn, tangents[1:], strict=True)
            if t is not None and sp.arg_of[pos] >= 0 and _inexact(p)
        }
        targs = sp.tangents(leaf_t, NoTangent())
        y, y_dot = frule((NoTangent(), *targs), *args, **kwargs)
        ys, _ = output_leaves(y)
        dots = tangent_output_leaves(y_dot, len(ys), y)
        out = []
        for yi, di in zip(ys, dots, strict=True):
            if di is None:
                out.append(torch.zeros_like(yi))
                continue
            check_leaf(name, "frule", -1, di, yi, di.dtype == yi.dtype)
            out.append(di)
        return out[0] if _single(y, ys) else tuple(out)  # as forward returns

    body = {
        "forward": staticmethod(forward),
        "setup_context": staticmethod(setup_context),
        "backward": staticmethod(backward),
        "generate_vmap_rule": True,
    }
    short = name.rsplit(".", 1)[-1]
    plain = type(f"{short}_rule", (torch.autograd.Function,), dict(body))
    with_jvp = type(
        f"{short}_rule_fwd",
        (torch.autograd.Function,),
        {**body, "setup_context": staticmethod(setup_context_fwd), "jvp": staticmethod(jvp)},
    )
    return plain, with_jvp
