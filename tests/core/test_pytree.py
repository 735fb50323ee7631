"""The one pytree (``chainrules.core.pytree``), and named-tuple arguments in the engine bridges,
which walk their arguments with it: a named tuple is a node (its array fields are traced and
differentiated), and a rule sees its tangent as a ``Tangent`` readable by field name."""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

import numpy as np
import pytest

import chainrules as cr
from chainrules.core.pytree import flatten, is_named_tuple, is_node, map_leaves, unflatten


class Pair(NamedTuple):
    a: Any
    b: Any


def test_flatten_order_and_round_trip() -> None:
    tree = ([1, (2, 3)], {"z": 4, "a": Pair(5, [6])}, 7)
    leaves, treedef = flatten(tree)
    assert leaves == [1, 2, 3, 4, 5, 6, 7]  # depth first, dict keys in insertion order
    back = unflatten(treedef, leaves)
    assert back == tree
    assert type(back[0]) is list and type(back[1]["a"]) is Pair and type(back[1]["a"].b) is list
    assert list(back[1]) == ["z", "a"]
    hash(treedef)  # a tree definition is hashable (the JAX bridge caches on it)


def test_leaves_and_tree_definitions() -> None:
    assert flatten(1.0) == ([1.0], None)
    assert flatten(()) == ([], (tuple, None, ()))
    assert flatten({}) == ([], (dict, (), ()))
    assert flatten(Pair(1, 2)) == ([1, 2], (Pair, None, (None, None)))
    x = np.arange(3.0)
    for leaf in (x, None, "s", slice(1, 2), {1, 2}, Ellipsis):  # not nodes: leaves
        assert flatten(leaf)[1] is None
    assert flatten([x])[0][0] is x
    assert is_named_tuple(Pair(1, 2)) and not is_named_tuple((1, 2)) and not is_named_tuple(Pair)


def test_unflatten_takes_any_iterable_and_map_leaves() -> None:
    _, treedef = flatten((0, [0, 0]))
    assert unflatten(treedef, iter([1, 2, 3])) == (1, [2, 3])
    assert map_leaves(lambda v: 2 * v, {"k": Pair(1, (2,))}) == {"k": Pair(2, (4,))}


# --- named-tuple arguments in the bridges ---------------------------------------------------


def affine(p: Pair, x: Any) -> Any:
    return p.a * x + p.b


@pytest.fixture
def affine_rules(clean_registry: Any) -> Any:
    @cr.register_rrule(affine)
    def _rrule(p: Pair, x: Any) -> Any:
        def pullback(y_bar: Any) -> Any:
            # the named-field form: the bridges index it by field name
            return cr.NoTangent(), cr.Tangent(a=y_bar * x, b=y_bar), y_bar * p.a

        return affine(p, x), pullback

    @cr.register_frule(affine)
    def _frule(tangents: Any, p: Pair, x: Any) -> Any:
        _, dp, dx = tangents
        return affine(p, x), dp.a * x + dp.b + p.a * dx  # the tangent reads by field name

    return affine


def _want(a: Any, b: Any, x: Any) -> tuple[Any, Any, Any]:
    """Gradients of sum(affine(Pair(a, b), x) ** 2) in (a, b, x)."""
    r = 2 * (a * x + b)
    return r * x, r, r * a


@pytest.mark.parametrize("mode", ["vjp", "jvp"])
def test_jax_named_tuple_argument(affine_rules: Any, mode: str) -> None:
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    from chainrules.interop import jax as crjax

    f = crjax.wrap(affine_rules, mode=mode)
    a, b, x = jnp.array([1.0, 2.0]), jnp.array([0.5, -1.0]), jnp.array([3.0, 4.0])
    g = jax.grad(lambda p, x: jnp.sum(f(p, x) ** 2), argnums=(0, 1))(Pair(a, b), x)
    assert type(g[0]) is Pair
    for got, want in zip((g[0].a, g[0].b, g[1]), _want(a, b, x), strict=True):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
    if mode == "jvp":
        dp, dx = Pair(jnp.ones(2), jnp.zeros(2)), jnp.zeros(2)
        _, y_dot = jax.jvp(f, (Pair(a, b), x), (dp, dx))
        np.testing.assert_allclose(np.asarray(y_dot), np.asarray(x), rtol=1e-6)


def test_torch_named_tuple_argument(affine_rules: Any) -> None:
    torch = pytest.importorskip("torch")
    from chainrules.interop import torch as crtorch

    f = crtorch.wrap(affine_rules)
    a, b, x = (
        torch.tensor(v, dtype=torch.float64, requires_grad=True)
        for v in ([1.0, 2.0], [0.5, -1.0], [3.0, 4.0])
    )
    got = torch.autograd.grad((f(Pair(a, b), x) ** 2).sum(), (a, b, x))
    for g, w in zip(got, _want(a.detach(), b.detach(), x.detach()), strict=True):
        torch.testing.assert_close(g, w)
    dual = torch.func.jvp(
        lambda a: f(Pair(a, b.detach()), x.detach()),
        (a.detach(),),
        (torch.ones(2, dtype=torch.float64),),
    )
    torch.testing.assert_close(dual[1], x.detach())


# --- registered dataclasses (JAX's jax.tree_util.register_dataclass) ---------------------------


@cr.register_dataclass
@dataclasses.dataclass
class Layer:
    w: Any
    b: Any
    name: str = dataclasses.field(default="dense", metadata={"static": True})


@dataclasses.dataclass
class Loose:  # never registered: a leaf
    w: Any


def test_a_registered_dataclass_is_a_node() -> None:
    layer = Layer([1.0, 2.0], 3.0, name="l1")
    leaves, treedef = flatten({"layer": layer, "n": 4})
    assert leaves == [1.0, 2.0, 3.0, 4]  # the data fields in order, the meta field kept aside
    back = unflatten(treedef, [10.0, 20.0, 30.0, 40])
    assert type(back["layer"]) is Layer
    assert back["layer"] == Layer([10.0, 20.0], 30.0, name="l1")
    hash(treedef)  # the meta fields' values are part of it
    assert flatten(Layer(1.0, 2.0, "a"))[1] != flatten(Layer(1.0, 2.0, "b"))[1]
    assert flatten(Layer(1.0, 2.0))[1] == flatten(Layer(5.0, 6.0))[1]
    assert is_node(layer) and not is_node(Loose(1.0))
    assert flatten(Loose(np.ones(2)))[1] is None  # an unregistered dataclass is a leaf
    assert map_leaves(lambda v: v * 2, Layer(1.0, 2.0, "x")) == Layer(2.0, 4.0, "x")


def test_register_dataclass_with_explicit_fields() -> None:
    @dataclasses.dataclass
    class Conv:
        kernel: Any
        stride: int
        bias: Any

    assert cr.register_dataclass(Conv, data_fields=["bias", "kernel"], meta_fields=["stride"])
    leaves, treedef = flatten(Conv(kernel=1.0, stride=2, bias=3.0))
    assert leaves == [3.0, 1.0]  # the order given
    assert unflatten(treedef, [5.0, 6.0]) == Conv(kernel=6.0, stride=2, bias=5.0)


def test_register_dataclass_refuses_what_it_cannot_rebuild() -> None:
    @dataclasses.dataclass
    class Two:
        a: Any
        b: Any
        c: Any = dataclasses.field(default=0, init=False)

    with pytest.raises(TypeError, match=r"expects a dataclass type"):
        cr.register_dataclass(Pair)
    with pytest.raises(TypeError, match=r"Two.*both data_fields and meta_fields"):
        cr.register_dataclass(Two, data_fields=["a", "b"])
    with pytest.raises(ValueError, match=r"\['b'\] are neither data nor meta fields"):
        cr.register_dataclass(Two, data_fields=["a"], meta_fields=[])
    with pytest.raises(ValueError, match=r"\['c'\] are not fields that Two.__init__ takes"):
        cr.register_dataclass(Two, data_fields=["a", "b", "c"], meta_fields=[])
    with pytest.raises(ValueError, match=r"\['a'\] are named more than once"):
        cr.register_dataclass(Two, data_fields=["a", "b"], meta_fields=["a"])
    assert not is_node(Two(1, 2))  # nothing registered by a refused call


def test_unregistered_dataclass_error_names_the_argument_and_how_to_register() -> None:
    from chainrules import ad
    from chainrules.core.calls import split

    def f(p: Any) -> Any:
        return p.w.sum()

    with pytest.raises(
        TypeError,
        match=r"argument 0 \('p'\) of f .*Loose is a dataclass .*"
        r"chainrules.register_dataclass\(Loose\)",
    ):
        ad.grad(f)(Loose(np.ones(2)))
    with pytest.raises(TypeError, match=r"wrap\(g\): argument 1 .*Loose.*register_dataclass"):
        split((1.0, Loose(np.ones(2))), {}, lambda v: isinstance(v, np.ndarray), "wrap(g)")
    # one holding no array is a static leaf, as any object
    sp = split((np.ones(2), Loose("static")), {}, lambda v: isinstance(v, np.ndarray))
    assert sp.dynamic == [0]
