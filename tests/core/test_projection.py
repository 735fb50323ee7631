from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr


def test_matching_cotangent_passes_through_unchanged() -> None:
    x = np.ones((2, 3))
    dx = np.arange(6.0).reshape(2, 3)
    assert cr.ProjectTo(x)(dx) is dx


def test_broadcast_axes_are_summed_back() -> None:
    x = np.ones((3, 1))
    dx = np.ones((2, 3, 4))
    out = cr.ProjectTo(x)(dx)
    assert out.shape == (3, 1) and np.all(out == 8.0)


def test_incompatible_shape_is_a_value_error_naming_both() -> None:
    with pytest.raises(ValueError, match=r"shape \(4,\) cannot be projected onto .* \(3,\)"):
        cr.ProjectTo(np.ones(3))(np.ones(4))


def test_dtype_real_part_and_integers() -> None:
    x32 = np.ones(2, dtype=np.float32)
    out = cr.ProjectTo(x32)(np.ones(2) + 2j)
    assert out.dtype == np.float32 and np.all(out == 1.0)
    c = cr.ProjectTo(np.ones(2, dtype=np.complex64))(np.ones(2))
    assert c.dtype == np.complex64
    assert cr.ProjectTo(np.ones(2, dtype=int))(np.ones(2)) is cr.NoTangent()
    assert cr.ProjectTo(np.ones(2, dtype=bool))(np.ones(2)) is cr.NoTangent()
    assert not cr.ProjectTo(np.ones(2, dtype=int)).differentiable


def test_python_scalars() -> None:
    assert cr.ProjectTo(1)(np.ones(3)) is cr.NoTangent()
    out = cr.ProjectTo(2.0)(np.ones((2, 3)))
    assert np.shape(out) == () and float(out) == 6.0
    assert cr.ProjectTo(2.0)(1 + 2j) == 1.0
    assert cr.ProjectTo(1j)(np.ones(2) * 1j) == 2j


def test_zeros_and_thunks() -> None:
    p = cr.ProjectTo(np.ones(2))
    assert p(cr.ZeroTangent()) is cr.ZeroTangent()
    assert p(cr.NoTangent()) is cr.NoTangent()
    assert np.array_equal(p(cr.Thunk(lambda: np.ones((3, 2)))), np.full(2, 3.0))


def test_tuples_project_element_by_element() -> None:
    p = cr.ProjectTo((np.ones(2, dtype=np.float32), 3))
    t = p((np.ones(2), np.ones(2)))
    assert isinstance(t, cr.Tangent)
    assert t[0].dtype == np.float32 and t[1] is cr.NoTangent()
    with pytest.raises(ValueError, match="1 elements for a primal of 2"):
        p((np.ones(2),))


def test_projection_in_each_backend(backend) -> None:  # type: ignore[no-untyped-def]
    x = backend.asarray(np.ones((3, 1)), "float32")
    dx = backend.asarray(np.ones((2, 3, 4)), "float64")
    out = cr.ProjectTo(x)(dx)
    assert tuple(out.shape) == (3, 1) and out.dtype == x.dtype
    assert cr.namespace_of(out) is cr.namespace_of(x)


def test_device_is_kept_for_device_aware_libraries() -> None:
    xs = pytest.importorskip("array_api_strict")
    dev = xs.Device("device1")
    x = xs.ones(3, device=dev)
    out = cr.ProjectTo(x)(xs.ones((2, 3)))
    assert out.device == dev


def test_integer_primal_with_matching_integer_cotangent_is_no_tangent() -> None:
    # the fast path (matching type, shape and dtype) must not bypass the integer check
    assert cr.ProjectTo(np.arange(3))(np.arange(3)) is cr.NoTangent()
