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

# Every probed case must name the function; there are no declared gaps left (a strict xfail
# by case id would go here, with its reason).
GAPS: dict[str, str] = {}


def _names(reg: cr.Registration, f: Any) -> tuple[str, ...]:
    """The names an error may give: the registration's short name (``numpy:fft.fftn`` ->
    ``fftn``) or the called function's own (``np.transpose`` for ``permute_dims``)."""
    return (reg.name.split(":")[-1].split(".")[-1], getattr(f, "__name__", ""))


def _cases() -> list[Any]:
    backend = get_backend("numpy")
    out = []
    for reg in cr.registrations():
        f = backend.function(reg)
        exs = examples_for(reg) if f is not None else []
        if not exs:
            continue
        try:
            names = list(inspect.signature(f).parameters)
        except (TypeError, ValueError):  # a ufunc or builtin without a signature
            continue
        for p in (p for p in names if p in PARAMS):
            pos = names.index(p)
            for bad in BAD:
                args, kwargs = exs[0].args, dict(exs[0].kwargs)
                if pos < len(args):  # the example gives it by position: replace it there
                    args = (*args[:pos], bad, *args[pos + 1 :])
                else:
                    kwargs[p] = bad
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        f(*args, **kwargs)
                    except Exception:  # noqa: BLE001  (NumPy refuses it: so must the rule)
                        pass
                    else:
                        continue  # NumPy accepts it (True as 1): the rule may too
                gap = GAPS.get(f"{reg.name}-{p}={bad!r}")
                marks = [pytest.mark.xfail(reason=gap, strict=True)] if gap else []
                out.append(
                    pytest.param(reg, f, args, kwargs, id=f"{reg.name}-{p}={bad!r}", marks=marks)
                )
    return out


@pytest.mark.parametrize(("reg", "f", "args", "kwargs"), _cases())
def test_a_bad_axis_names_the_function(
    reg: cr.Registration, f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    names = _names(reg, f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if reg.rrule is not None:
            with pytest.raises((TypeError, ValueError)) as err:
                cr.rrule(f, *args, **kwargs)
            assert any(f"{n}:" in str(err.value) for n in names if n), str(err.value)
        if reg.frule is not None:
            tangents = (cr.NoTangent(),) * (len(args) + 1)
            with pytest.raises((TypeError, ValueError)) as err:
                cr.frule(tangents, f, *args, **kwargs)
            assert any(f"{n}:" in str(err.value) for n in names if n), str(err.value)


def test_numpy_integer_scalars_are_axes() -> None:
    import numpy as np

    x = np.arange(6.0).reshape(2, 3)
    y, _ = cr.rrule(np.take, x, np.array([0, 2]), axis=np.int64(1))
    assert np.array_equal(y, np.take(x, [0, 2], axis=1))
    y, _ = cr.rrule(np.sort, x, axis=np.int32(0))
    assert np.array_equal(y, np.sort(x, axis=0))
