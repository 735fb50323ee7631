"""The tracer class of an array library follows the library's declared traits
(``chainrules.core.namespaces.ArrayTraits``), never its module's name (issue 27: no
backend-name branches in ``ad/``)."""

from __future__ import annotations

import types
from typing import Any

import numpy as np
import pytest

from chainrules.ad._classes import tracer_class
from chainrules.ad._numpy_methods import _NumpyMethods
from chainrules.core.namespaces import ArrayTraits, array_traits
from chainrules.testing.device import device_array


def _library(traits: ArrayTraits | None, module: str) -> Any:
    """A one-class array library with a namespace of its own; ``module`` is what its class says
    its module is (a lie where it names another library)."""
    ns = types.ModuleType(f"fake_{module}_{id(traits)}")

    class Array:
        def __array_namespace__(self, api_version: Any = None) -> Any:
            return ns

    Array.__module__ = module
    if traits is not None:
        Array.__chainrules_array_traits__ = traits  # type: ignore[attr-defined]
    return Array()


@pytest.mark.parametrize(
    "module", ["numpy", "torch", "array_api_strict", "chainrules.testing.device"]
)
def test_a_module_name_gives_no_traits(module: str) -> None:
    """Before, the tracer class was chosen by ``type(x).__module__``: a class that said "numpy"
    got NumPy's methods and scalars, "torch" the ``__torch_function__`` protocol."""
    x = _library(None, module)
    assert array_traits(x) == ArrayTraits()
    cls = tracer_class(x)
    assert not issubclass(cls, _NumpyMethods)
    assert not issubclass(cls, type(x))
    assert cls._numpy is False
    assert "__torch_function__" not in vars(cls)


def test_declared_traits_shape_the_tracer_class() -> None:
    traits = ArrayTraits(numpy_methods=True, numpy_scalars=True, refuses_foreign_operands=True)
    x = _library(traits, "somewhere")
    assert array_traits(x) is traits
    cls = tracer_class(x)
    assert issubclass(cls, _NumpyMethods)
    assert issubclass(cls, type(x))  # Python tries the tracer's reflected operators first
    assert cls._numpy is True


def test_the_known_libraries_keep_their_traits() -> None:
    assert array_traits(np.ones(2)) == ArrayTraits(numpy_methods=True, numpy_scalars=True)
    assert array_traits(np.float64(1.0)).numpy_scalars
    d = device_array([1.0, 2.0])
    assert array_traits(d) == ArrayTraits(numpy_methods=True, refuses_foreign_operands=True)
    cls = tracer_class(d)
    assert issubclass(cls, _NumpyMethods) and issubclass(cls, type(d))
    assert cls._numpy is False
    torch = pytest.importorskip("torch")
    assert "__torch_function__" in vars(tracer_class(torch.ones(2)))
    strict = pytest.importorskip("array_api_strict")
    s = strict.asarray([1.0])
    assert array_traits(s) == ArrayTraits(refuses_foreign_operands=True)
    assert issubclass(tracer_class(s), type(s))
