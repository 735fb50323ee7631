"""scatter_add: functional, accumulating, every key form, every backend, its own rules."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.core import scatter_backends
from chainrules.core.scatter import parse_key, scatter_add, scatter_add_generic
from chainrules.testing import device, examples_for, test_frule, test_rrule, to_numpy
from chainrules.testing.backends import BACKENDS, Backend
from chainrules.testing.suite import rule_tests

# The GPU-safety checks (check_scalar_free, check_jit) run in a test of their own, at the examples
# they can take; the testers here judge the maths on every backend.
NO_DEVICE_CHECKS = {"scalar_free": False, "jit": False}

REG = next(r for r in cr.registrations() if r.target is scatter_add)
EXAMPLES = examples_for(REG)
# keys that array-api-strict's own indexing rejects (the standard leaves them unspecified)
STRICT_REJECTS = {"(slice, index array)", "(..., None, array)", "separated index arrays"}


def reference(dest: Any, key: Any, values: Any) -> Any:
    """NumPy's own accumulating scatter."""
    out = np.array(dest, dtype=np.result_type(dest, values), copy=True)
    np.add.at(out, key, values)
    return out


def _supported(backend: Backend, note: str) -> bool:
    return not (backend.name == "array_api_strict" and note in STRICT_REJECTS)


# ---- functional and accumulating ------------------------------------------------------------


def test_duplicates_accumulate_and_dest_is_unchanged() -> None:
    x = np.zeros(4)
    y = scatter_add(x, np.array([0, 0, 2]), np.array([1.0, 2.0, 3.0]))
    assert y.tolist() == [3.0, 0.0, 3.0, 0.0]
    assert x.tolist() == [0.0] * 4
    assert scatter_add(x, [0, 0, 0], 1.0).tolist() == [3.0, 0.0, 0.0, 0.0]


def test_read_only_dest() -> None:
    x = np.arange(6.0).reshape(2, 3)
    x.flags.writeable = False
    for key, v in [((0, slice(None)), 1.0), ((np.array([1, 1]), np.array([2, 2])), 1.0)]:
        y = scatter_add(x, key, v)
        assert y.flags.writeable and not np.shares_memory(x, y)
        np.testing.assert_array_equal(y, reference(x, key, v))


def test_never_writes_into_dest_or_values(backend: Backend) -> None:
    for ex in EXAMPLES:
        if not _supported(backend, ex.note):
            continue
        dest, key, values = (backend.asarray(a, "float64") for a in ex.args)
        before = to_numpy(dest).copy(), np.array(to_numpy(values), copy=True)
        scatter_add(dest, key, values)
        np.testing.assert_array_equal(to_numpy(dest), before[0], err_msg=ex.note)
        np.testing.assert_array_equal(to_numpy(values), before[1], err_msg=ex.note)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_agrees_with_numpy_add_at_on_every_backend(backend: Backend, dtype: str) -> None:
    ran = 0
    for ex in EXAMPLES:
        if not _supported(backend, ex.note):
            continue
        dest, key, values = (backend.asarray(a, dtype) for a in ex.args)
        got = scatter_add(dest, key, values)
        assert got.dtype == dest.dtype, ex.note
        want = reference(*(np.asarray(a) if isinstance(a, np.ndarray) else a for a in ex.args))
        tol = 1e-12 if dtype == "float64" else 1e-5
        np.testing.assert_allclose(to_numpy(got), want, rtol=tol, atol=tol, err_msg=ex.note)
        ran += 1
    assert ran >= len(EXAMPLES) - len(STRICT_REJECTS)


def test_many_duplicates_on_every_backend(backend: Backend) -> None:
    rng = np.random.default_rng(3)
    dest = rng.standard_normal((5, 7))
    i, j = rng.integers(-5, 5, 400), rng.integers(-7, 7, 400)
    values = rng.standard_normal(400)
    want = reference(dest, (i, j), values)
    got = scatter_add(*(backend.asarray(a, "float64") for a in (dest, (i, j), values)))
    np.testing.assert_allclose(to_numpy(got), want, rtol=1e-12, atol=1e-12)


# ---- every key form -------------------------------------------------------------------------

# (shape of dest, key)
KEYS = [
    ((6,), 3),
    ((6,), -1),
    ((6,), np.int64(2)),
    ((6,), slice(None)),
    ((6,), slice(4, 0, -2)),
    ((6,), Ellipsis),
    ((6,), None),
    ((6,), ()),
    ((6,), [0, 0, 4, -5]),
    ((6,), np.array([[0, 0], [5, -6]])),
    ((6,), np.array(2)),
    ((6,), np.array([True, False, True, True, False, True])),
    ((6,), True),
    ((2, 3), (Ellipsis, 1)),
    ((2, 3), (1, Ellipsis, None)),
    ((2, 3), (None, slice(1, 3), None)),
    ((2, 3), (np.array([1, 1, 0]), np.array([2, 2, 2]))),
    ((2, 3), (slice(None), [2, 2])),
    ((2, 3), (Ellipsis, np.array([0, 0]))),
    ((2, 3), (np.array([[0], [1]]), np.array([1, 1, 2]))),
    ((2, 3), (np.array([True, False]), np.array([1, 1]))),
    ((2, 3), (np.array([[True, False, True], [False, False, True]]),)),
    ((2, 3), (1, None, np.array([0, 2, 0]))),
    ((2, 3, 4), (np.array([0, 1, 1]), slice(None), np.array([3, 3, 0]))),
    ((2, 3, 4), (0, slice(None), np.array([3, 3, 0]))),
]


@pytest.mark.parametrize(("shape", "key"), KEYS, ids=lambda v: repr(v).replace(" ", ""))
@pytest.mark.parametrize("impl", [scatter_add, scatter_add_generic], ids=["native", "generic"])
def test_every_key_form(shape: tuple[int, ...], key: Any, impl: Any) -> None:
    dest = np.arange(float(np.prod(shape))).reshape(shape)
    target = dest[key].shape
    values = np.random.default_rng(0).standard_normal(target)
    for v in (values, 0.5, values[..., :1] if target and target[-1] else values):
        np.testing.assert_allclose(impl(dest, key, v), reference(dest, key, v), rtol=1e-14)


def test_generic_agrees_with_native_on_random_problems() -> None:
    rng = np.random.default_rng(7)
    for dtype in (np.float64, np.float32, np.complex128):
        dest = rng.standard_normal((40, 3)).astype(dtype)
        idx = rng.integers(-40, 40, 1000)
        values = rng.standard_normal((1000, 3)).astype(dtype)
        if dtype == np.complex128:
            values = values + 1j * rng.standard_normal((1000, 3))
        native, generic = scatter_add(dest, idx, values), scatter_add_generic(dest, idx, values)
        assert native.dtype == generic.dtype == dest.dtype
        tol = 1e-4 if dtype == np.float32 else 1e-11
        np.testing.assert_allclose(native, reference(dest, idx, values), rtol=tol, atol=tol)
        np.testing.assert_allclose(generic, native, rtol=tol, atol=tol)


def test_numpy_paths_agree() -> None:
    """NumPy's three accumulating paths: the 1-D key itself, a few positions into a large array
    (np.add.at with the key) and flat positions from a grid (np.add.at on 1-D positions)."""
    rng = np.random.default_rng(1)
    big = rng.standard_normal((50, 40))
    for key in [
        (np.array([3, 3, 49]), np.array([0, 0, -1])),  # sparse: 3 of 2000
        (rng.integers(0, 50, 3000), rng.integers(0, 40, 3000)),  # dense
        (rng.integers(0, 50, 800),),  # rows, dense
    ]:
        values = rng.standard_normal(big[key].shape)
        np.testing.assert_allclose(scatter_add(big, key, values), reference(big, key, values))
        np.testing.assert_allclose(
            scatter_add_generic(big, key, values), reference(big, key, values), atol=1e-12
        )


def test_complex_and_dtypes() -> None:
    dest = np.zeros(3, dtype=np.complex64)
    y = scatter_add(dest, np.array([1, 1]), np.array([1 + 1j, 2 - 1j], dtype=np.complex128))
    assert y.dtype == np.complex64 and y.tolist() == [0, 3 + 0j, 0]
    assert scatter_add(np.zeros(2, np.float32), [1, 1], np.ones(2)).dtype == np.float32
    assert scatter_add(np.zeros(2), [1, 1], np.array([1, 2])).tolist() == [0.0, 3.0]
    with pytest.raises(TypeError, match="cannot add complex128 values into an array of dtype"):
        scatter_add(np.zeros(2), [0], np.ones(1, dtype=complex))
    with pytest.raises(TypeError, match="cannot add complex values"):
        scatter_add(np.zeros(2), 0, 1j)


def test_bad_keys_and_arguments() -> None:
    with pytest.raises(IndexError):
        scatter_add(np.zeros(3), np.array([0, 3]), 1.0)
    with pytest.raises(IndexError):
        scatter_add(np.zeros((2, 3)), (np.array([0]), np.array([3])), 1.0)
    with pytest.raises(IndexError, match="out of bounds"):
        scatter_add_generic(np.zeros(3), 3, 1.0)
    with pytest.raises(TypeError, match="an index must be"):
        scatter_add(np.zeros(3), "a", 1.0)
    with pytest.raises(TypeError, match="integer or boolean dtype"):
        scatter_add(np.zeros(3), np.array([0.0]), 1.0)
    with pytest.raises(TypeError, match="dest must be an array"):
        scatter_add(1.0, 0, 1.0)
    with pytest.raises(ValueError):  # values that do not broadcast to dest[key]
        scatter_add(np.zeros(3), np.array([0, 1]), np.ones(3))


# ---- JAX: jit, and the generic path under jit ------------------------------------------------


def test_jax_under_jit(jax_numpy) -> None:  # type: ignore[no-untyped-def]
    import jax

    jnp = jax_numpy
    dest = jnp.zeros((3, 4))
    idx = jnp.asarray([0, 0, 2])
    values = jnp.ones((3, 4))
    f = jax.jit(lambda d, i, v: scatter_add(d, i, v))
    np.testing.assert_array_equal(np.asarray(f(dest, idx, values))[:, 0], [2.0, 0.0, 1.0])
    # the generic path is traceable too: no host reads, no data-dependent shapes
    g = jax.jit(
        lambda d, i, v: scatter_backends._scatter_generic(
            jnp, d, parse_key(jnp, (i, slice(None))), v
        )
    )
    np.testing.assert_array_equal(
        np.asarray(g(dest, idx, values)), np.asarray(f(dest, idx, values))
    )


def test_cupy_backend() -> None:
    cupy = pytest.importorskip("cupy")
    if not cupy.cuda.is_available():
        pytest.skip("no CUDA device")
    for ex in EXAMPLES:  # pragma: no cover (needs a GPU)
        dest, key, values = (BACKENDS["cupy"].asarray(a, "float64") for a in ex.args)
        got = scatter_add(dest, key, values)
        np.testing.assert_allclose(to_numpy(got), reference(*ex.args), rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(to_numpy(dest), ex.args[0])


@pytest.mark.parametrize("backing", ["numpy", "array_api_strict"])
def test_guarded_device_array(backing: str) -> None:
    """The generic path on the testing package's guarded device array: no element access."""

    def on_device(v: Any) -> Any:
        if isinstance(v, tuple):
            return tuple(on_device(e) for e in v)
        return device.device_array(v, backing) if isinstance(v, np.ndarray) else v

    for ex in EXAMPLES:
        if backing == "array_api_strict" and ex.note in STRICT_REJECTS:
            continue
        dest, key, values = (on_device(a) for a in ex.args)
        got = scatter_add(dest, key, values)
        assert device.is_device_array(got), ex.note
        np.testing.assert_allclose(
            to_numpy(got), reference(*ex.args), rtol=1e-12, atol=1e-12, err_msg=ex.note
        )


# ---- rules ----------------------------------------------------------------------------------
# the check command's cells (every backend, scalar-free, jit), with the declared limits
test_rule = rule_tests("chainrules.core.scatter")


def test_pullback_is_a_gather_and_differentiable_again() -> None:
    """The values' cotangent is y_bar[key] summed onto the values' shape; that gather passes the
    tester itself (the second derivative of scatter_add goes through getitem's rule)."""
    rng = np.random.default_rng(2)
    dest, key = rng.standard_normal((3, 4)), (np.array([0, 0, 2]), np.array([1, 1, 3]))
    values = rng.standard_normal(1)
    _, pb = cr.rrule(scatter_add, dest, key, values)
    y_bar = rng.standard_normal((3, 4))
    _, d_bar, k_bar, v_bar = pb(y_bar)
    assert d_bar is y_bar and k_bar is cr.NoTangent()
    np.testing.assert_allclose(v_bar, [y_bar[key].sum()])
    import chainrules.rules.indexing  # noqa: F401  (getitem's rules)

    test_rrule(operator.getitem, y_bar, key, **NO_DEVICE_CHECKS)
    test_frule(operator.getitem, y_bar, key, **NO_DEVICE_CHECKS)


def test_wrong_shape_cotangent_names_both_shapes() -> None:
    _, pb = cr.rrule(scatter_add, np.zeros(4), np.array([0, 0]), np.ones(2))
    with pytest.raises(ValueError, match=r"\(5,\).*\(4,\)"):
        pb(np.ones(5))


def test_zero_tangents_and_integer_dest() -> None:
    x, idx, v = np.zeros(4), np.array([1, 1]), np.ones(2)
    _, pb = cr.rrule(scatter_add, x, idx, v)
    assert pb(cr.ZeroTangent()) == (
        cr.NoTangent(),
        cr.ZeroTangent(),
        cr.NoTangent(),
        cr.ZeroTangent(),
    )
    _, yd = cr.frule(
        (cr.NoTangent(), cr.ZeroTangent(), cr.NoTangent(), np.ones((3, 2))), scatter_add, x, idx, v
    )
    assert yd.shape == (3, 4) and yd[:, 1].tolist() == [2.0, 2.0, 2.0]
    _, yd = cr.frule(
        (cr.NoTangent(), np.ones((2, 4)), cr.NoTangent(), cr.ZeroTangent()), scatter_add, x, idx, v
    )
    assert yd.shape == (2, 4)
    _, yd = cr.frule(
        (cr.NoTangent(), np.ones((2, 4)), cr.NoTangent(), np.ones(2)), scatter_add, x, idx, v
    )
    assert yd.shape == (2, 4) and yd[0].tolist() == [1.0, 3.0, 1.0, 1.0]
    y, pb = cr.rrule(scatter_add, np.zeros(3, dtype=np.int64), [0, 0], 1)
    assert y.tolist() == [2, 0, 0] and all(t is cr.NoTangent() for t in pb(np.ones(3)))
