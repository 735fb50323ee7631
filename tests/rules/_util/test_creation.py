"""The creation rules' shared helpers (``rules/_util/creation.py``): which library a creation call
computes in, and what a pullback's zero short-circuit reads of the arguments."""

from __future__ import annotations

import numpy as np
import pytest

from chainrules.core import namespace_of
from chainrules.rules._util.creation import (
    call_namespace,
    fixed_examples,
    is_array_arg,
    tangent_args,
)


def test_an_array_argument_decides_the_library() -> None:
    x = np.ones(3)
    assert call_namespace((x,), {}, "full_like") is namespace_of(x)
    assert call_namespace((3,), {}, "zeros") is namespace_of()  # no array, no dtype: NumPy's


def test_a_torch_dtype_decides_without_arrays() -> None:
    torch = pytest.importorskip("torch")
    xp = call_namespace(((2,),), {"dtype": torch.float64}, "zeros")
    assert type(xp.zeros(2, dtype=torch.float64)) is torch.Tensor


@pytest.mark.parametrize("library", ["torch", "array_api_strict"])
def test_a_dtype_decides_by_its_type_not_its_module_name(library: str) -> None:
    """A dtype NumPy takes (it has ``.dtype``) whose class's ``__module__`` says another library
    is NumPy's: the library is the one whose dtype or device type it is an instance of."""
    strict_or_torch = pytest.importorskip(library)

    class Float64:
        dtype = np.dtype("float64")

    Float64.__module__ = library
    xp = call_namespace(((2,),), {"dtype": Float64()}, "zeros")
    assert xp is namespace_of()
    assert type(xp.zeros(2, dtype=Float64())) is np.ndarray
    # and that library's own dtype and device decide for it
    own = strict_or_torch.float64
    device = strict_or_torch.asarray(0.0).device
    for kw in ({"dtype": own}, {"device": device}):
        xp = call_namespace(((2,),), kw, "zeros")
        assert type(xp.zeros(2, **kw)) is type(strict_or_torch.zeros(2, **kw))


def test_a_dtype_class_is_not_an_array() -> None:
    assert not is_array_arg(np.float64) and is_array_arg(np.ones(2))
    x = np.ones(2)
    kept, dtype = tangent_args((x, np.float64))
    assert kept is x and dtype is None
    assert tangent_args((np.ones(2), 1.5), differentiable=False) == (None, None)


def test_fixed_examples_ignore_the_generator() -> None:
    calls = (((3,), {}), ((2, 3), {"k": 1}))
    ex = fixed_examples(*calls)
    assert ex(np.random.default_rng(0)) == ex(None) == list(calls)
