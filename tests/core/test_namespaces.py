from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.core.namespaces import qualified_name


def test_namespace_of_numpy_and_scalars() -> None:
    import array_api_compat.numpy as cnp

    assert cr.namespace_of(np.ones(2)) is cnp
    assert cr.namespace_of(1.0, np.ones(2), None) is cnp
    assert cr.namespace_of(2.0) is cnp  # Python scalars alone compute with NumPy


def test_namespace_of_each_backend(backend) -> None:  # type: ignore[no-untyped-def]
    x = backend.asarray(np.ones(2), "float64")
    xp = cr.namespace_of(x)
    assert xp is cr.namespace_of(x, 3.0)
    assert hasattr(xp, "sin")


def test_mixed_libraries_raise_type_error() -> None:
    xs = pytest.importorskip("array_api_strict")
    with pytest.raises(TypeError, match=r"two libraries were mixed in add: numpy\.ndarray and"):
        cr.rrule(np.add, np.ones(2), xs.ones(2))


def test_non_arrays_are_rejected() -> None:
    # (through rrule the message also names the function and the argument:
    # tests/core/test_first_hour_errors.py)
    with pytest.raises(
        TypeError, match=r"expected an array or a Python scalar, got builtins\.list"
    ):
        cr.namespace_of([1.0, 2.0])


def test_dtype_kind() -> None:
    assert cr.dtype_kind(np.dtype(np.float32)) == "f"
    assert cr.dtype_kind(np.dtype(np.complex64)) == "c"
    assert cr.dtype_kind(np.dtype(np.int8)) == "i"
    assert cr.dtype_kind(np.dtype(bool)) == "b"
    assert cr.scalar_kind(1.0) == "f" and cr.scalar_kind(True) == "b" and cr.scalar_kind(1) == "i"


def test_qualified_names() -> None:
    assert qualified_name(np.sin) == "numpy.sin"
    assert qualified_name(test_dtype_kind).endswith("test_dtype_kind")
    assert cr.function_name(np.arccos) in ("numpy.acos", "numpy.arccos")


@pytest.mark.parametrize("library", ["torch", "array_api_strict"])
def test_a_dtype_s_namespace_is_read_from_its_type_not_its_module_name(library: str) -> None:
    """``namespace_of_dtype`` (which ``dtype_kind`` and the creation rules use): a library's own
    dtype and device give its namespace; an object whose class's ``__module__`` says that
    library gives none."""
    from chainrules.core.namespaces import namespace_of_dtype

    lib = pytest.importorskip(library)
    xp = namespace_of_dtype(lib.float64)
    assert xp is namespace_of_dtype(lib.asarray(0.0).device)
    assert type(xp.zeros(1, dtype=lib.float64)) is type(lib.zeros(1))

    class Float64:
        dtype = np.dtype("float64")

    Float64.__module__ = library
    assert namespace_of_dtype(Float64()) is None
    assert namespace_of_dtype(np.float64) is None


def test_a_class_is_not_an_array():  # type: ignore[no-untyped-def]
    """``np.float64`` the type has ``__array_namespace__`` (an unbound method), which
    array-api-compat's test reads as an array: ``np.fromiter(x, np.float64)`` took its dtype
    for the array that decides the library."""
    import numpy as np

    from chainrules.core.namespaces import is_array

    assert not is_array(np.float64)
    assert not is_array(np.ndarray)
    assert is_array(np.float64(1.0)) == is_array(np.asarray(1.0)[()])
    assert is_array(np.zeros(2))
