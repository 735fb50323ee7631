"""The JAX bridge's closure conversion (``chainrules/interop/_closure.py``): the walk finds the
JAX arrays a pullback reaches, the rebuild puts new ones in their place and shares the rest, and
a pullback holding an object the walk cannot look into falls back to recomputing the rrule --
with the same values."""

from __future__ import annotations

import functools
import types

import numpy as np
import pytest

import chainrules as cr

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from chainrules.interop import jax as crjax  # noqa: E402
from chainrules.interop._closure import Opaque, Walk, rebuild  # noqa: E402


class _Holder:  # not chainrules', not JAX's: the walk cannot look into it
    def __init__(self, v):  # type: ignore[no-untyped-def]
        self.v = v


def test_walk_reaches_arrays_through_cells_defaults_partials_and_methods() -> None:
    a, b, c, d = (jnp.full(2, float(k)) for k in range(4))
    scale = 3.0

    def inner(y, w=b):  # type: ignore[no-untyped-def]
        return y * a * w * scale

    part = functools.partial(lambda p, y: p * y, c)
    method = types.MethodType(lambda self: self["k"][0], {"k": [d]})  # bound to a dict holding d

    def pullback(y):  # type: ignore[no-untyped-def]
        return inner(y) + part(y) + method()

    walk = Walk()
    assert walk.visit(pullback)
    assert {id(x) for x in walk.leaves} == {id(a), id(b), id(c), id(d)}

    new = [x + 10 for x in walk.leaves]  # each array replaced by another one
    rebuilt = rebuild(pullback, walk, new, {})
    y = jnp.ones(2)
    got = rebuilt(y)
    k = {id(x): n for x, n in zip(walk.leaves, new, strict=True)}
    want = y * k[id(a)] * k[id(b)] * scale + k[id(c)] * y + k[id(d)]
    np.testing.assert_allclose(got, want)
    np.testing.assert_allclose(pullback(y), y * a * b * scale + c * y + d)  # the original kept


def test_walk_shares_what_holds_no_array() -> None:
    table = {"n": 3}

    def pullback(y):  # type: ignore[no-untyped-def]
        return y * table["n"]

    walk = Walk()
    assert not walk.visit(pullback)
    assert rebuild(pullback, walk, [], {}) is pullback


def test_an_object_the_walk_cannot_read_is_opaque() -> None:
    h = _Holder(jnp.ones(2))
    with pytest.raises(Opaque, match="_Holder"):
        Walk().visit(lambda y: y * h.v)


def opaque_square(x):  # type: ignore[no-untyped-def]
    return x * x


def walkable_square(x):  # type: ignore[no-untyped-def]
    return x * x


@pytest.fixture
def counted(clean_registry):  # type: ignore[no-untyped-def]
    """rrules whose pullbacks hold an opaque object / only arrays; counts the rrules' calls."""
    calls = {"opaque": 0, "walkable": 0}

    @cr.register_rrule(opaque_square)
    def _opaque(x):  # type: ignore[no-untyped-def]
        calls["opaque"] += 1
        h = _Holder(2 * x)
        return x * x, lambda y_bar: (cr.NoTangent(), h.v * y_bar)

    @cr.register_rrule(walkable_square)
    def _walkable(x):  # type: ignore[no-untyped-def]
        calls["walkable"] += 1
        two_x = 2 * x
        return x * x, lambda y_bar: (cr.NoTangent(), two_x * y_bar)

    return calls


@pytest.mark.parametrize("jit", [False, True])
def test_an_opaque_pullback_recomputes_the_rrule_with_the_same_values(counted, jit) -> None:  # type: ignore[no-untyped-def]
    x = jnp.array([1.0, -2.0, 3.0])
    grads = {}
    for name in ("opaque", "walkable"):
        f = crjax.wrap(opaque_square if name == "opaque" else walkable_square, mode="vjp")
        g = jax.grad(lambda x, f=f: jnp.sum(jnp.sin(f(x))))
        g = jax.jit(g) if jit else g
        before = counted[name]
        grads[name] = g(x)
        grads[name + " again"] = g(x + 1)
        counted[name + " calls"] = counted[name] - before
    want = np.cos(np.asarray(x) ** 2) * 2 * np.asarray(x)
    np.testing.assert_allclose(grads["opaque"], want, rtol=1e-6)
    np.testing.assert_allclose(grads["walkable"], want, rtol=1e-6)
    np.testing.assert_allclose(grads["opaque again"], grads["walkable again"], rtol=1e-6)
    # the opaque pullback could not be a residual: its backward pass ran the rrule again
    assert counted["opaque calls"] > counted["walkable calls"]
