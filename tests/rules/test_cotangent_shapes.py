"""Wrong-shape cotangents, over the registry (issue 26, histogramdd): every registration with
examples, at each of its examples on NumPy, refuses a cotangent of another shape than its output's
with a ``ValueError`` naming both shapes (DESIGN, "Shapes") -- never a silent broadcast. Tuple
outputs, nested ones (``histogramdd``'s ``(counts, [edges, ...])``) too: each floating leaf of the
cotangent gets the wrong shape."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing import examples_for
from chainrules.testing.backends import get_backend

# (name, wrong shape from the output's shape): one more leading axis, and one axis fewer (a
# cotangent that broadcasts against the output); a 0-d output gets shape (2,) for the second
_WRONG = {
    "extra-axis": lambda s: (2, *s),
    "axis-dropped": lambda s: s[1:] if s else (2,),
}


def _floating(y: Any) -> bool:
    if isinstance(y, (tuple, list)):
        return any(_floating(v) for v in y)
    return isinstance(y, (np.ndarray, np.generic)) and np.asarray(y).dtype.kind in "fc"


def _wrong(y: Any, shape: Any) -> Any:
    if isinstance(y, (tuple, list)):
        return cr.Tangent(*(_wrong(v, shape) for v in y), primal_type=type(y))
    if isinstance(y, (np.ndarray, np.generic)) and np.asarray(y).dtype.kind in "fc":
        return np.ones(shape(np.shape(y)), np.asarray(y).dtype)
    return cr.NoTangent()


def _rrule(f: Any, ex: Any) -> Any:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return cr.rrule(f, *ex.args, **ex.kwargs)


def _cases() -> list[Any]:
    """One case per registration with a NumPy function and an example whose output has a
    floating leaf (an integer or boolean output has no cotangent to check)."""
    backend = get_backend("numpy")
    out = []
    for reg in cr.registrations():
        f = backend.function(reg)
        if reg.rrule is None or f is None:
            continue
        try:
            exs = [ex for ex in examples_for(reg) if _floating(_rrule(f, ex)[0])]
        except Exception:  # noqa: BLE001 -- examples the rule refuses are the fuzz's business
            continue
        if exs:
            out.append(pytest.param(f, exs, id=reg.name))
    return out


CASES = _cases()


def test_histogramdd_the_sweep_sees_the_registry() -> None:
    assert len(CASES) > 400  # the registry's rules, not an empty parametrisation
    assert "numpy:histogramdd" in {c.id for c in CASES}


@pytest.mark.parametrize(("f", "exs"), CASES)
def test_histogramdd_wrong_shape_cotangent_is_a_value_error(f: Any, exs: Any) -> None:
    for ex in exs:
        y, pb = _rrule(f, ex)
        for kind, shape in _WRONG.items():
            with pytest.raises(ValueError, match=r"cotangent of shape .* output's shape") as e:
                [cr.unthunk(v) for v in pb(_wrong(y, shape))]
            assert "(2," in str(e.value) or kind == "axis-dropped", str(e.value)
