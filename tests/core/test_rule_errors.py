"""A refused call names the function the user called (issue 15.7): a rule shared by several names
(``np.amax`` and ``np.max``) or one that calls another rule (``nanprod`` calls ``prod``'s) gives
the called name; a non-differentiable rule, whose primal is the library's own call, prefixes the
library's bare message with the name and the axis-like keyword at fault."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.core.registry import find_frule, find_rrule, named_error

X = np.arange(12.0).reshape(3, 4) + 1


@pytest.mark.parametrize(
    ("f", "name"),
    [(np.amax, "amax"), (np.amin, "amin"), (np.cumsum, "cumsum"), (np.cumprod, "cumprod")],
)
def test_a_shared_rule_names_the_function_called(f: object, name: str) -> None:
    with pytest.raises(TypeError, match=rf"^{name}: axis must be an int or a tuple of ints"):
        cr.rrule(f, X, axis=1.5)
    with pytest.raises(TypeError, match=rf"^{name}: axis must be an int or a tuple of ints"):
        cr.frule((cr.NoTangent(), cr.NoTangent()), f, X, axis="a")


@pytest.mark.parametrize("f", [np.nanprod, np.nancumsum, np.nancumprod])
def test_a_rule_that_calls_another_names_the_function_called(f: object) -> None:
    name = f.__name__  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match=rf"^{name}: axis must be an int"):
        cr.rrule(f, X, axis=1.5)
    # the frule without a tangent goes through the plain rule too (not NumPy's bare message)
    with pytest.raises(TypeError, match=rf"^{name}: axis must be an int"):
        cr.frule((cr.NoTangent(), cr.NoTangent()), f, X, axis=1.5)


def test_the_standard_names_keep_their_own_messages() -> None:
    with pytest.raises(TypeError, match=r"^max: axis must be"):
        cr.rrule(np.max, X, axis=1.5)
    with pytest.raises(TypeError, match=r"^cumulative_sum: axis must be"):
        cr.rrule(np.cumulative_sum, X, axis=1.5)


@pytest.mark.parametrize(
    ("f", "x"),
    [(np.argmax, X), (np.argsort, X), (np.all, X), (np.packbits, X > 2), (np.nanargmin, X)],
)
def test_a_non_differentiable_rule_names_the_function_and_the_axis(f: object, x: object) -> None:
    name = f.__name__  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match=rf"^{name}: axis=1.5 is refused: ") as err:
        cr.rrule(f, x, axis=1.5)
    assert isinstance(err.value.__cause__, TypeError)  # NumPy's own error, chained
    with pytest.raises(TypeError, match=rf"^{name}: axis='a' is refused: "):
        cr.frule((cr.NoTangent(), cr.NoTangent()), f, x, axis="a")


def test_engines_calling_a_core_non_differentiable_rule_get_the_name_too() -> None:
    # engines call the rule they find, without cr.rrule's renaming
    with pytest.raises(TypeError, match=r"^argmax: axis=1.5 is refused: "):
        find_rrule(np.argmax)(X, axis=1.5)  # type: ignore[misc]
    with pytest.raises(TypeError, match=r"^count_nonzero: axis=True is refused: "):
        find_frule(np.count_nonzero)((cr.NoTangent(),) * 2, X, axis=True)  # type: ignore[misc]


def test_the_library_error_type_is_kept() -> None:
    with pytest.raises(np.exceptions.AxisError, match=r"^argmax: axis 5 is out of bounds"):
        cr.rrule(np.argmax, X, axis=5)


def test_named_error_leaves_a_message_that_names_the_function() -> None:
    assert named_error("amax", TypeError("amax: bad")) is None
    assert named_error("erf", ValueError("special.erf: bad")) is None
    # another name of the same function object (np.concat is np.concatenate)
    assert named_error("concat", TypeError("concatenate: bad"), aliases=("concatenate",)) is None
    # a registered rule's name is replaced; a head that is no rule's name is not
    new = named_error("amax", ValueError("max: bad"), bare=False)
    assert type(new) is ValueError and str(new) == "amax: bad"
    assert named_error("amax", ValueError("no_such_rule_name: bad"), bare=False) is None
    # a head that is the keyword given is the argument, not another function
    new = named_error("f", TypeError("axis: bad"), {"axis": 1.5})
    assert str(new) == "f: axis=1.5 is refused: axis: bad"


def test_named_error_keeps_an_exception_it_cannot_rebuild() -> None:
    class Odd(TypeError):
        def __init__(self, a: object, b: object) -> None:
            super().__init__(f"{a} {b}")

    assert named_error("argmax", Odd("x", "y")) is None


def test_a_user_rule_message_is_not_renamed(clean_registry: object) -> None:
    def my_fn(x: object) -> object:
        return x

    @cr.register_rrule(my_fn)
    def _my_rrule(x: object) -> object:
        raise ValueError("helper_of_mine: x must be positive")

    with pytest.raises(ValueError, match=r"^helper_of_mine: x must be positive$"):
        cr.rrule(my_fn, X)
