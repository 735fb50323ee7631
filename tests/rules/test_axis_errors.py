"""Bad axis arguments, over the registry: every registration whose NumPy function has an axis
parameter (``axis``, ``axes``, ``axis1``, ...) refuses a float or a string axis -- and a bool,
where NumPy refuses one -- with a ``TypeError`` or ``ValueError`` that names the function, never
Python's or NumPy's own message ("'float' object cannot be interpreted as an integer")."""

from __future__ import annotations

import inspect
import warnings
from typing import Any

import pytest

import chainrules as cr
from chainrules.testing import examples_for
from chainrules.testing.backends import get_backend

PARAMS = ("axis", "axes", "axis1", "axis2", "source", "destination", "axisa", "axisb", "axisc")
BAD = (1.5, "a", True)

# Known gaps, by case id, each group with its reason (strict: fixing one makes it xpass and fail,
# so its id must leave the list).
_ND: tuple[str, ...] = ()

_ALIAS: tuple[str, ...] = ()

_TODO = (
    # NumPy's names of these are np.transpose and np.concatenate, whose rules' messages name
    # transpose: / concatenate: (and permute_dims' example gives axes by position, so axes=
    # is a second value): an alias naming case, not an unparsed axis
    "permute_dims-axes=1.5",
    "permute_dims-axes='a'",
    "permute_dims-axes=True",
    "concat-axis=1.5",
    "concat-axis='a'",
    "concat-axis=True",
)

GAPS: dict[str, str] = {
    **dict.fromkeys(
        _ND,
        "non_differentiable: the primal is the library's own call in core/scalar_rule.py, "
        "which passes NumPy's message through (not in the axis parsers' files)",
    ),
    **dict.fromkeys(
        _ALIAS,
        "the NumPy name shares the standard's rule and its message names the standard's "
        "function (max:, cumulative_sum:, prod:), not the one called",
    ),
    **dict.fromkeys(_TODO, "not yet routed through _util.axis_int / axis_ints (issue 15.7)"),
}


def _name(reg: cr.Registration) -> str:
    """The function's short name, as its errors give it (``numpy:fft.fftn`` -> ``fftn``)."""
    return reg.name.split(":")[-1].split(".")[-1]


def _cases() -> list[Any]:
    backend = get_backend("numpy")
    out = []
    for reg in cr.registrations():
        f = backend.function(reg)
        exs = examples_for(reg) if f is not None else []
        if not exs:
            continue
        try:
            params = [p for p in inspect.signature(f).parameters if p in PARAMS]
        except (TypeError, ValueError):  # a ufunc or builtin without a signature
            continue
        for p in params:
            for bad in BAD:
                kwargs = {**exs[0].kwargs, p: bad}
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        f(*exs[0].args, **kwargs)
                    except Exception:  # noqa: BLE001  (NumPy refuses it: so must the rule)
                        pass
                    else:
                        continue  # NumPy accepts it (True as 1): the rule may too
                gap = GAPS.get(f"{reg.name}-{p}={bad!r}")
                marks = [pytest.mark.xfail(reason=gap, strict=True)] if gap else []
                out.append(
                    pytest.param(
                        reg, f, exs[0].args, kwargs, id=f"{reg.name}-{p}={bad!r}", marks=marks
                    )
                )
    return out


@pytest.mark.parametrize(("reg", "f", "args", "kwargs"), _cases())
def test_a_bad_axis_names_the_function(
    reg: cr.Registration, f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    name = _name(reg)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if reg.rrule is not None:
            with pytest.raises((TypeError, ValueError)) as err:
                cr.rrule(f, *args, **kwargs)
            assert f"{name}:" in str(err.value), str(err.value)
        if reg.frule is not None:
            tangents = (cr.NoTangent(),) * (len(args) + 1)
            with pytest.raises((TypeError, ValueError)) as err:
                cr.frule(tangents, f, *args, **kwargs)
            assert f"{name}:" in str(err.value), str(err.value)


def test_numpy_integer_scalars_are_axes() -> None:
    import numpy as np

    x = np.arange(6.0).reshape(2, 3)
    y, _ = cr.rrule(np.take, x, np.array([0, 2]), axis=np.int64(1))
    assert np.array_equal(y, np.take(x, [0, 2], axis=1))
    y, _ = cr.rrule(np.sort, x, axis=np.int32(0))
    assert np.array_equal(y, np.sort(x, axis=0))
