"""autograd's ``check_grads`` with finite differences: modes ``fwd`` / ``rev``, any ``order``
(the checks of order ``k`` run on the derivative functions of order ``k - 1``), as autograd's."""

from __future__ import annotations

from itertools import product
from typing import Any

import numpy as np

from .core import _leaves, make_jvp, make_vjp, tree_map
from .wrap_util import get_name, unary_to_nary

TOL = 1e-6
RTOL = 1e-6
EPS = 1e-6


def scalar_close(a: Any, b: Any) -> bool:
    return abs(a - b) < TOL or abs(a - b) / abs(a + b) < RTOL


def _value(x: Any) -> Any:
    """Plain values: Python numbers stay numbers, arrays become NumPy arrays."""
    return tree_map(lambda e: e if isinstance(e, (int, float, complex)) else np.asarray(e), x)


def _randn(x: Any) -> Any:
    def one(e: Any) -> Any:
        shape = np.shape(e)
        r = np.random.randn(*shape)
        if np.iscomplexobj(e):
            r = r + 1j * np.random.randn(*shape)
        return r if shape else r.item() if hasattr(r, "item") else r

    return tree_map(one, x)


def _add(x: Any, y: Any, s: float = 1.0) -> Any:
    def one(a: Any, b: Any) -> Any:
        r = a + s * b
        if not np.iscomplexobj(a) and np.iscomplexobj(r):
            r = np.real(r)
        return r

    return tree_map(one, x, y)


def _scale(x: Any, s: float) -> Any:
    return tree_map(lambda e: e * s, x)


def _inner(x: Any, y: Any) -> float:
    total = 0.0
    for a, b in zip(_leaves(x), _leaves(y)):
        total += float(np.real(np.vdot(np.asarray(a), np.asarray(b))))
    return total


def _conj(x: Any) -> Any:
    return tree_map(np.conj, x)


def _same_space(x: Any, y: Any) -> bool:
    lx, ly = _leaves(x), _leaves(y)
    return len(lx) == len(ly) and all(np.shape(a) == np.shape(b) for a, b in zip(lx, ly))


def make_numerical_jvp(f: Any, x: Any) -> Any:
    def jvp(v: Any) -> Any:
        plus = f(_add(x, v, EPS / 2))
        minus = f(_add(x, v, -EPS / 2))
        return _scale(_add(_value(plus), _value(minus), -1.0), 1.0 / EPS)

    return jvp


def check_vjp(f: Any, x: Any) -> None:
    vjp, y = make_vjp(f, x)
    jvp = make_numerical_jvp(f, x)
    x_v, y_v = _randn(x), _randn(_value(y))
    vjp_y = _conj(_value(vjp(_conj(y_v))))
    assert _same_space(vjp_y, x), f"VJP of {get_name(f)} has the wrong structure: {vjp_y}"
    exact = _inner(x_v, vjp_y)
    numeric = _inner(y_v, jvp(x_v))
    assert scalar_close(numeric, exact), (
        f"Derivative (VJP) check of {get_name(f)} failed with arg {x}:\n"
        f"analytic: {exact}\nnumeric:  {numeric}"
    )


def check_equivalent(x: Any, y: Any) -> None:
    x, y = _value(x), _value(y)
    assert _same_space(x, y), f"VSpace mismatch:\nx: {x}\ny: {y}"
    v = _randn(x)
    assert scalar_close(_inner(x, v), _inner(y, v)), f"Value mismatch:\nx: {x}\ny: {y}"


def check_jvp(f: Any, x: Any) -> None:
    jvp = make_jvp(f, x)
    x_v = _randn(x)
    check_equivalent(jvp(x_v)[1], make_numerical_jvp(f, x)(x_v))


@unary_to_nary
def check_grads(f: Any, x: Any, modes: Any = ("fwd", "rev"), order: int = 2) -> None:
    assert all(m in ("fwd", "rev") for m in modes)
    if "fwd" in modes:
        check_jvp(f, x)
        if order > 1:

            def jvp_f(x: Any, v: Any) -> Any:
                return make_jvp(f, x)(v)[1]

            jvp_f.__name__ = f"jvp_{get_name(f)}"
            check_grads(jvp_f, (0, 1), modes, order=order - 1)(x, _randn(x))
    if "rev" in modes:
        check_vjp(f, x)
        if order > 1:

            def vjp_f(x: Any, v: Any) -> Any:
                return make_vjp(f, x)[0](v)

            vjp_f.__name__ = f"vjp_{get_name(f)}"
            check_grads(vjp_f, (0, 1), modes, order=order - 1)(x, _randn(_value(f(x))))


def combo_check(fun: Any, *args: Any, **kwargs: Any) -> Any:
    """Check every combination of the given arguments and keyword arguments."""

    def _combo_check(*cargs: Any, **ckwargs: Any) -> None:
        kv = [[(k, v) for v in vs] for k, vs in ckwargs.items()]
        for _args in product(*cargs):
            for _kwargs in product(*kv):
                check_grads(fun, *args, **kwargs)(*_args, **dict(_kwargs))

    return _combo_check
