"""autograd.test_util: ``check_grads`` is chainrules.testing.check_grads (autograd's keyword
``argnum`` is its ``argnums``). ``check_equivalent`` is ``numpy.testing.assert_allclose`` leaf by
leaf at autograd's tolerance, ``combo_check`` is ``check_grads`` over ``itertools.product`` of
the given values, ``scalar_close`` autograd's one-line comparison."""

from __future__ import annotations

from itertools import product
from typing import Any

import numpy as np

from chainrules.testing import check_grads as _check_grads

TOL = 1e-6
RTOL = 1e-6


def check_grads(f: Any, argnum: Any = 0, modes: Any = ("fwd", "rev"), order: int = 2) -> Any:
    return _check_grads(f, argnum, modes, order)


def scalar_close(a: Any, b: Any) -> bool:
    return abs(a - b) < TOL or abs(a - b) / abs(a + b) < RTOL


def _leaves(x: Any) -> list[Any]:
    if type(x) in (tuple, list):
        return [e for v in x for e in _leaves(v)]
    if type(x) is dict:
        return [e for k in sorted(x) for e in _leaves(x[k])]
    return [x]


def check_equivalent(x: Any, y: Any) -> None:
    lx, ly = _leaves(x), _leaves(y)
    assert len(lx) == len(ly), f"VSpace mismatch:\nx: {x}\ny: {y}"
    for a, b in zip(lx, ly):
        assert np.shape(a) == np.shape(b), f"VSpace mismatch:\nx: {x}\ny: {y}"
        np.testing.assert_allclose(a, b, rtol=RTOL, atol=TOL, err_msg="Value mismatch")


def combo_check(fun: Any, *args: Any, **kwargs: Any) -> Any:
    """Check every combination of the given arguments and keyword arguments."""

    def _combo_check(*cargs: Any, **ckwargs: Any) -> None:
        kv = [[(k, v) for v in vs] for k, vs in ckwargs.items()]
        for _args in product(*cargs):
            for _kwargs in product(*kv):
                check_grads(fun, *args, **kwargs)(*_args, **dict(_kwargs))

    return _combo_check
