"""``chainrules.core.adapters.register_adapter``: a foreign spelling of a standard function takes
the standard function's rules through a declared renaming (issue 28). The torch adapters are
tested against torch itself in ``tests/rules/test_torch_numpy.py``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.core.adapters import register_adapter
from chainrules.core.registry import unregister
from chainrules.core.signature import signature
from chainrules.testing import test_frule, test_rrule


def my_norm(v: Any, p: Any = 2, dims: Any = None, keep: bool = False, *, dtype: Any = None) -> Any:
    """A foreign 2-norm: the standard's ``vector_norm`` under other names."""
    return np.linalg.vector_norm(v, ord=p, axis=dims, keepdims=keep)


@pytest.fixture(scope="module", autouse=True)
def _adapted() -> Any:
    register_adapter(
        my_norm,
        lambda xp: xp.linalg.vector_norm,
        signature("my_norm", lambda v, p=2, dims=None, keep=False, *, dtype=None: None),
        rename={"v": "x", "p": "ord", "dims": "axis", "keep": "keepdims"},
        positional=("x",),
        dropped={"dtype": None},
        module=__name__,
    )
    yield
    unregister(my_norm)


X = np.array([[1.0, -2.0, 0.5], [0.7, 1.5, -1.1]])


@pytest.mark.parametrize(
    ("args", "kw"), [((), {}), ((3, 1), {}), ((), {"dims": 0, "keep": True}), ((1, (0, 1)), {})]
)
def test_adapter_takes_the_counterparts_rules(args: tuple, kw: dict) -> None:
    y, pb = cr.rrule(my_norm, X, *args, **kw)
    np.testing.assert_allclose(y, my_norm(X, *args, **kw))
    bars = pb(np.ones(np.shape(y)))
    _, ref = cr.rrule(
        np.linalg.vector_norm,
        X,
        **dict(zip(("ord", "axis"), args)),
        **{{"dims": "axis", "keep": "keepdims"}[k]: v for k, v in kw.items()},
    )
    np.testing.assert_allclose(bars[1], ref(np.ones(np.shape(y)))[1])
    # the foreign positional parameters the counterpart takes by keyword: no tangent
    assert len(bars) == 2 + len(args) and all(isinstance(b, cr.NoTangent) for b in bars[2:])
    fk = dict(zip(("p", "dims"), args), **kw)
    test_rrule(my_norm, X, fkwargs=fk, jit=False)
    test_frule(my_norm, X, fkwargs=fk, jit=False)


def test_adapter_refuses_a_parameter_the_counterpart_lacks() -> None:
    with pytest.raises(TypeError, match=r"my_norm: dtype=.*no counterpart"):
        cr.rrule(my_norm, X, dtype=np.float32)
