"""Indexing rules (getitem, take, take_along_axis): the tester on every backend, JAX as a
reference, the duplicate-index convention and second derivatives."""

from __future__ import annotations

import contextlib
import operator
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.core.scatter import scatter_add
from chainrules.rules.indexing import getitem as getitem_module
from chainrules.testing import device, examples_for, test_frule, test_rrule, to_numpy
from chainrules.testing.backends import BACKENDS
from chainrules.testing.runner import Backend
from chainrules.testing.suite import rule_tests

# The GPU-safety checks (check_scalar_free, check_jit) run in a test of their own, at the examples
# they can take; the testers here judge the maths on every backend.
NO_DEVICE_CHECKS = {"scalar_free": False, "jit": False}

INDEXING = [r for r in cr.registrations() if r.module == getitem_module.__name__]
NAMED = [r for r in INDEXING if r.family != "callable"]
GETITEM = next(r for r in INDEXING if r.target is operator.getitem)

# examples whose key the library's own __getitem__ rejects: never a rule failure
REJECTED = {
    # the standard leaves integer arrays mixed with slices, and masks beside other entries,
    # unspecified; array-api-strict refuses them
    "array_api_strict": {"(slice, index array)", "(index array, slice)", "separated"},
    "torch": {"negative step"},  # torch has no negative slice steps
    "numpy": set(),
    "jax": set(),
}


def test_every_function_of_the_family_has_both_rules() -> None:
    both = [r for r in INDEXING if r.rrule is not None and r.frule is not None]
    names = {r.name for r in both if r.family != "callable"}
    assert names == {"take", "take_along_axis", "numpy:take", "numpy:take_along_axis"}
    assert any(r.target is operator.getitem for r in both)


# ---- the tester on every backend -----------------------------------------------------------------


# ---- conventions ---------------------------------------------------------------------------------


@pytest.mark.parametrize("as_list", [True, False], ids=["list", "array"])
def test_repeated_indices_accumulate(backend: Backend, as_list: bool) -> None:
    """The convention of the issue: x[[0, 0, 2]] pulls [1, 2, 3] back to [3, 0, 3, 0]."""
    x = backend.asarray(np.arange(4.0), "float64")
    if as_list and backend.name in ("jax", "array_api_strict"):
        pytest.skip(f"{backend.name} does not index with Python lists")
    key = [0, 0, 2] if as_list else backend.asarray(np.array([0, 0, 2]), "int64")
    y, pb = cr.rrule(operator.getitem, x, key)
    _, x_bar, k_bar = pb(backend.asarray(np.array([1.0, 2.0, 3.0]), "float64"))
    assert to_numpy(y).tolist() == [0.0, 0.0, 2.0]
    assert to_numpy(x_bar).tolist() == [3.0, 0.0, 3.0, 0.0]
    assert k_bar is cr.NoTangent()


def test_take_repeats_and_axes() -> None:
    x = np.arange(12.0).reshape(3, 4)
    _, pb = cr.rrule(np.take, x, np.array([1, 1, 3]), axis=1)
    np.testing.assert_array_equal(pb(np.ones((3, 3)))[1], [[0, 2, 0, 1]] * 3)
    _, pb = cr.rrule(np.take, x, np.array([[11, 0], [-1, 11]]))  # axis=None: flattened
    want = np.zeros(12)
    want[[0, 11]] = [1, 3]
    np.testing.assert_array_equal(pb(np.ones((2, 2)))[1], want.reshape(3, 4))
    _, pb = cr.rrule(np.take, x, np.array([5, -1]), axis=1, mode="wrap")
    np.testing.assert_array_equal(pb(np.ones((3, 2)))[1], [[0, 1, 0, 1]] * 3)
    _, pb = cr.rrule(np.take, x, np.array([9, -3]), axis=1, mode="clip")
    np.testing.assert_array_equal(pb(np.ones((3, 2)))[1], [[1, 0, 0, 1]] * 3)
    # positional axis: one cotangent per positional argument
    res = cr.rrule(np.take, x, np.array([0]), 0)[1](np.ones((1, 4)))
    assert len(res) == 4 and res[2] is res[3] is cr.NoTangent()
    with pytest.raises(TypeError, match="out= is not supported"):
        cr.rrule(np.take, x, np.array([0]), 0, np.empty((1, 4)))


def test_take_along_axis_repeats() -> None:
    x = np.arange(6.0).reshape(2, 3)
    y, pb = cr.rrule(np.take_along_axis, x, np.array([[2, 2], [0, 2]]), axis=1)
    assert y.tolist() == [[2.0, 2.0], [3.0, 5.0]]
    np.testing.assert_array_equal(pb(np.ones((2, 2)))[1], [[0, 0, 2], [1, 0, 1]])


def test_integer_arrays_have_no_tangent() -> None:
    y, pb = cr.rrule(operator.getitem, np.arange(5), np.array([1, 1]))
    assert y.tolist() == [1, 1] and pb(np.ones(2)) == (cr.NoTangent(),) * 3
    _, yd = cr.frule(
        (cr.NoTangent(), cr.NoTangent(), cr.NoTangent()), operator.getitem, np.arange(5), 1
    )
    assert yd is cr.NoTangent()


def test_real_input_takes_the_real_part_of_a_complex_cotangent() -> None:
    x = np.arange(3.0, dtype=np.float32)
    _, pb = cr.rrule(operator.getitem, x, np.array([2, 2]))
    x_bar = pb(np.array([1 + 1j, 2 - 1j]))[1]
    assert x_bar.dtype == np.float32 and x_bar.tolist() == [0.0, 0.0, 3.0]


def test_wrong_shape_cotangent_names_both_shapes() -> None:
    _, pb = cr.rrule(operator.getitem, np.zeros((3, 4)), (np.array([0, 0]), 1))
    with pytest.raises(ValueError, match=r"\(3,\).*\(2,\)"):
        pb(np.ones(3))
    _, pb = cr.rrule(np.take, np.zeros(4), np.array([0, 0]))
    with pytest.raises(ValueError, match=r"\(2, 2\).*\(2,\)"):
        pb(np.ones((2, 2)))


def test_pullback_accepts_zero_and_never_mutates() -> None:
    x = np.arange(4.0)
    x.flags.writeable = False
    _, pb = cr.rrule(operator.getitem, x, 1)
    assert pb(cr.ZeroTangent())[1] is cr.ZeroTangent()
    g = np.array(5.0)
    g.flags.writeable = False
    assert pb(g)[1].tolist() == [0.0, 5.0, 0.0, 0.0]


def test_sequences() -> None:
    a, b = np.ones(2), np.arange(3.0)
    y, pb = cr.rrule(operator.getitem, (a, b), -1)
    assert y is b
    t = pb(np.ones(3))[1]
    assert isinstance(t, cr.Tangent) and t[0] is cr.ZeroTangent() and t[1].tolist() == [1.0] * 3
    with pytest.raises(TypeError, match="indexed by an int or a slice"):
        cr.rrule(operator.getitem, (a, b), np.array([0]))


def test_chunked_frule_keeps_chunk_axes_in_front() -> None:
    x = np.arange(24.0).reshape(2, 3, 4)
    xd = np.stack([x, -x, 2 * x])  # a chunk of 3 tangents
    for key in [
        (np.array([0, 1, 1]), slice(None), np.array([3, 3, 0])),  # advanced axes go first
        (Ellipsis, np.array([0, 0])),
        (1, Ellipsis, None, 2),
        np.arange(24).reshape(2, 3, 4) % 3 == 0,
        (np.array([1, 1]), np.array([[0], [2]]), np.array([3, 3])),
    ]:
        _, yd = cr.frule((cr.NoTangent(), xd, cr.NoTangent()), operator.getitem, x, key)
        np.testing.assert_array_equal(yd, np.stack([x[key], -x[key], 2 * x[key]]))


def test_pullback_under_jax_jit(jax_numpy) -> None:  # type: ignore[no-untyped-def]
    import jax

    jnp = jax_numpy
    idx = jnp.asarray([0, 0, 2])

    @jax.jit
    def vjp(x, g):  # type: ignore[no-untyped-def]
        return cr.rrule(operator.getitem, x, (idx, 1))[1](g)[1]

    x_bar = vjp(jnp.zeros((3, 2)), jnp.asarray([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(np.asarray(x_bar), [[0, 3], [0, 0], [0, 3]])

    @jax.jit
    def take_vjp(x, g):  # type: ignore[no-untyped-def]
        flat = cr.rrule(jnp.take, x, jnp.asarray([5, -1, 0]))[1](g)[1]  # axis=None: unravelled
        along = cr.rrule(jnp.take_along_axis, x, jnp.asarray([[1, 1]] * 3), axis=1)[1]
        return flat, along(jnp.ones((3, 2)))[1]

    flat, along = take_vjp(jnp.zeros((3, 2)), jnp.asarray([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(np.asarray(flat), [[3, 0], [0, 0], [0, 3]])
    np.testing.assert_array_equal(np.asarray(along), [[0, 2]] * 3)


@pytest.mark.parametrize("backing", ["numpy", "array_api_strict"])
def test_pullbacks_are_scalar_free_on_device_arrays(backing: str) -> None:
    """Every rule at every example on the guarded device array (a GPU stand-in that refuses
    element access). A host int key makes f itself read one element; the rule reads and writes
    through size-1 slices instead."""

    def on_device(v: Any) -> Any:
        if isinstance(v, tuple):
            return tuple(on_device(e) for e in v)
        return device.device_array(v, backing) if isinstance(v, np.ndarray) else v

    xp = device.device_namespace(backing)
    checked = 0
    for reg in INDEXING:
        if reg.family == "numpy":
            continue
        f = reg.target if reg.family == "callable" else getattr(xp, str(reg.target))
        for ex in examples_for(reg):
            args = on_device(ex.args)
            try:
                f(*args, **ex.kwargs)
            except cr.ScalarIndexingError:
                # x[3] of a vector: f itself reads one element; the rule does not (it reads
                # and writes through size-1 slices), so no allowscalar() is needed around it
                _, pb = cr.rrule(f, *args, **ex.kwargs)
                x_bar = pb(device.device_array(np.asarray(1.5), backing))[1]
                assert device.is_device_array(x_bar)
                assert float(to_numpy(x_bar).sum()) == 1.5
                checked += 1
                continue
            except IndexError:  # the backing library's own indexing rejects the key
                assert backing == "array_api_strict" and ex.note in REJECTED[backing]
                continue
            test_rrule(f, *args, **NO_DEVICE_CHECKS, **ex.kwargs)
            test_frule(f, *args, **NO_DEVICE_CHECKS, **ex.kwargs)
            checked += 1
    assert checked > 20


# ---- JAX as a reference --------------------------------------------------------------------------


def _jax_cases() -> list[Any]:
    cases = [pytest.param(GETITEM, operator.getitem, id="getitem")]
    for reg in NAMED:
        cases.append(pytest.param(reg, None, id=reg.name))
    return cases


@pytest.mark.parametrize(("reg", "fn"), _jax_cases())
def test_agrees_with_jax(reg: cr.Registration, fn: Any, jax_numpy) -> None:  # type: ignore[no-untyped-def]
    """Our NumPy cotangents equal ``jax.vjp`` of the same indexing at random points."""
    import jax

    npf = fn if fn is not None else BACKENDS["numpy"].function(reg)
    jf = fn if fn is not None else BACKENDS["jax"].function(reg)
    rng = np.random.default_rng(5)
    compared = 0
    for ex in examples_for(reg):
        x, *rest = ex.args
        if not isinstance(x, np.ndarray):
            continue  # tuples: nothing for JAX to compare
        y, pb = cr.rrule(npf, x, *rest, **ex.kwargs)
        y_bar = rng.standard_normal(np.shape(y))
        ours = pb(y_bar)[1]
        jrest = [BACKENDS["jax"].asarray(a, "float64") for a in rest]
        _, vjp = jax.vjp(
            lambda v, jrest=jrest, ex=ex: jf(v, *jrest, **ex.kwargs), jax_numpy.asarray(x)
        )
        (theirs,) = vjp(jax_numpy.asarray(y_bar))
        np.testing.assert_allclose(
            ours, np.asarray(theirs), rtol=1e-12, atol=1e-12, err_msg=ex.note
        )
        x_dot = rng.standard_normal(x.shape)
        tangents = (cr.NoTangent(), x_dot, *[cr.NoTangent()] * len(rest))
        _, y_dot = cr.frule(tangents, npf, x, *rest, **ex.kwargs)
        _, jax_dot = jax.jvp(
            lambda v, jrest=jrest, ex=ex: jf(v, *jrest, **ex.kwargs),
            (jax_numpy.asarray(x),),
            (jax_numpy.asarray(x_dot),),
        )
        np.testing.assert_allclose(y_dot, np.asarray(jax_dot), rtol=1e-12, err_msg=ex.note)
        compared += 1
    assert compared > 0


# ---- second derivatives --------------------------------------------------------------------------

SECOND_ORDER_KEYS = [
    ("1-D repeats", (6,), np.array([0, 0, 5, 2, 0])),
    ("int", (6,), -2),
    ("(int, slice)", (3, 4), (1, slice(None))),
    ("two arrays", (3, 4), (np.array([0, 0, 2]), np.array([1, 1, 3]))),
    ("mask", (3, 4), np.arange(12).reshape(3, 4) % 3 == 0),
]


@pytest.mark.parametrize(
    ("note", "shape", "key"), SECOND_ORDER_KEYS, ids=[k[0] for k in SECOND_ORDER_KEYS]
)
@pytest.mark.parametrize("name", ["numpy", "array_api_strict"])
def test_getitem_pullback_is_differentiable(
    clean_registry, name: str, note: str, shape: Any, key: Any
) -> None:  # type: ignore[no-untyped-def]
    """The pullback of getitem, as a function of the cotangent, is scatter_add(zeros, key, ·):
    its rrule (scatter_add's) passes the tester against finite differences of the pullback."""
    backend = BACKENDS[name]
    x = backend.asarray(np.random.default_rng(0).standard_normal(shape), "float64")
    k = backend.asarray(key, "float64")
    y = x[k]
    xp = cr.namespace_of(x)

    def getitem_vjp(y_bar: Any) -> Any:
        return cr.rrule(operator.getitem, x, k)[1](y_bar)[1]

    @cr.register_rrule(getitem_vjp)
    def _getitem_vjp_rrule(y_bar: Any) -> Any:
        # what an engine sees when it differentiates the pullback: one scatter_add call
        zeros = xp.zeros(tuple(x.shape), dtype=x.dtype)
        out, pb = cr.rrule(scatter_add, zeros, k, y_bar)
        return out, lambda g: (cr.NoTangent(), pb(g)[3])

    @cr.register_frule(getitem_vjp)
    def _getitem_vjp_frule(tangents: Any, y_bar: Any) -> Any:
        zeros = xp.zeros(tuple(x.shape), dtype=x.dtype)
        return cr.frule(
            (cr.NoTangent(), cr.ZeroTangent(), cr.NoTangent(), tangents[1]),
            scatter_add,
            zeros,
            k,
            y_bar,
        )

    g = backend.asarray(np.random.default_rng(1).standard_normal(tuple(y.shape)), "float64")
    np.testing.assert_array_equal(
        to_numpy(getitem_vjp(g)),
        to_numpy(scatter_add(xp.zeros(tuple(x.shape), dtype=x.dtype), k, g)),
    )
    test_rrule(getitem_vjp, g, **NO_DEVICE_CHECKS)
    test_frule(getitem_vjp, g, **NO_DEVICE_CHECKS)


@pytest.mark.parametrize(
    ("note", "shape", "key"), SECOND_ORDER_KEYS, ids=[k[0] for k in SECOND_ORDER_KEYS]
)
def test_scatter_pullback_is_differentiable(
    clean_registry, note: str, shape: Any, key: Any
) -> None:  # type: ignore[no-untyped-def]
    """scatter_add's pullback, as a function of the cotangent, is the gather y_bar[key]: getitem's
    rules pass the tester on it."""
    rng = np.random.default_rng(3)
    dest = rng.standard_normal(shape)
    values = rng.standard_normal(dest[key].shape)
    _, pb = cr.rrule(scatter_add, dest, key, values)

    def scatter_vjp(y_bar: Any) -> Any:
        return pb(y_bar)[3]

    @cr.register_rrule(scatter_vjp)
    def _scatter_vjp_rrule(y_bar: Any) -> Any:
        # what an engine sees when it differentiates the pullback: one getitem call
        out, gather_pb = cr.rrule(operator.getitem, y_bar, key)
        return out, lambda g: gather_pb(g)[:2]

    @cr.register_frule(scatter_vjp)
    def _scatter_vjp_frule(tangents: Any, y_bar: Any) -> Any:
        return cr.frule((cr.NoTangent(), tangents[1], cr.NoTangent()), operator.getitem, y_bar, key)

    g = rng.standard_normal(shape)
    np.testing.assert_array_equal(scatter_vjp(g), g[key])
    test_rrule(scatter_vjp, g, **NO_DEVICE_CHECKS)
    test_frule(scatter_vjp, g, **NO_DEVICE_CHECKS)


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests(getitem_module)


@pytest.mark.parametrize(
    ("indices", "kwargs"),
    [(0, {}), (np.array([0, 0, -1]), {}), (np.array([0, 0]), {"axis": 0}), (1, {"mode": "wrap"})],
)
def test_numpy_take_of_a_0d_array(indices, kwargs) -> None:  # type: ignore[no-untyped-def]
    """NumPy takes from a 0-d array as from its 1-element vector (the rule used to refuse)."""
    x = np.asarray(2.0)
    y, pb = cr.rrule(np.take, x, indices, **kwargs)
    np.testing.assert_array_equal(y, np.take(x, indices, **kwargs))
    x_bar = pb(np.ones(np.shape(y)))[1]
    assert np.shape(x_bar) == () and x_bar == np.size(y)
    test_rrule(np.take, x, indices, jit=False, **kwargs)
    test_frule(np.take, x, indices, jit=False, **kwargs)


@pytest.mark.parametrize("generic", [False, True], ids=["numpy-method", "generic"])
@pytest.mark.parametrize(("shape", "key"), [((3,), 5), ((3,), -4), ((2, 3), (1, 3))])
def test_an_int_out_of_bounds_is_numpys_index_error(
    generic: bool, shape: tuple[int, ...], key: Any
) -> None:
    """``x[5]`` of 3 elements raises an ``IndexError`` naming the index and the axis, as NumPy
    does, on the NumPy method and on the generic path (which read it through a size-1 slice and
    failed in a reshape before)."""
    from chainrules.core.specialise import generic_only

    x = np.zeros(shape)
    scope = generic_only() if generic else contextlib.nullcontext()
    with scope, pytest.raises(IndexError, match="out of bounds"):
        cr.rrule(operator.getitem, x, key)


_I = np.array
_NUMPY_METHOD_KEYS = [
    *(0, -1, (1, 2), slice(1, None), (Ellipsis, None), (None, 0, slice(None, None, -2))),
    # advanced keys of NumPy index arrays: repeated and negative indices (np.add.at), masks
    _I([2, 0, 2, -1]),
    (_I([0, 0, 2]), _I([1, 1, 3])),
    (slice(None), _I([3, 3])),
    (_I([[0], [2]]), _I([1, 3])),
    (Ellipsis, _I([0, -4])),
    (None, _I([1, 1])),
    _I([True, False, True]),
    np.arange(12.0).reshape(3, 4) > 4.5,
    (1, _I([False, True, True, False])),
    _I([], dtype=int),
]


_KEY_IDS = [str(i) for i in range(len(_NUMPY_METHOD_KEYS))]


@pytest.mark.parametrize("key", _NUMPY_METHOD_KEYS, ids=_KEY_IDS)
def test_numpy_keys_pull_back_every_cotangent_as_the_generic_rule(key: Any) -> None:
    """The NumPy method's own transpose (a NumPy cotangent of the output's shape and dtype) and
    its fallback to the generic pullback (another dtype, a complex cotangent, a Python float, a
    wrong shape: the generic error) give what the generic rule gives, for basic keys and for
    advanced ones of NumPy index arrays, which the method takes."""
    from chainrules.core.specialise import generic_only, record_methods

    x = np.arange(12.0).reshape(3, 4)
    with record_methods() as used:
        y, pb = cr.rrule(operator.getitem, x, key)
    assert used  # the NumPy method took the key
    with generic_only():
        y_ref, pb_ref = cr.rrule(operator.getitem, x, key)
    assert type(y) is type(y_ref) and np.array_equal(y, y_ref)
    shape = np.shape(y_ref)
    rng = np.random.default_rng(0)
    cts = [rng.standard_normal(shape), rng.standard_normal(shape).astype(np.float32)]
    cts.append(cts[0] + 1j)
    if shape == ():
        cts.append(2.5)
    for ct in cts:
        got, want = pb(ct)[1], pb_ref(ct)[1]
        assert got.dtype == want.dtype and np.array_equal(got, want)
    with pytest.raises(ValueError, match="does not match"):
        pb(np.ones((*shape, 2)))
