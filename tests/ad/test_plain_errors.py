"""What NumPy does not hand to the engine raises an error that names the line's pattern and its
alternatives (issue 29, item 2).

NumPy calls one of two hooks on a traced array where it does not dispatch:

* ``__array__`` (``numpy.asarray``): ``np.array`` / ``np.asarray`` / ``np.r_`` / ``np.c_`` of
  traced values, a list of them passed where NumPy expects an array (``np.sum([a, b])``), a
  write into a slice or by an index array of a NumPy array (``out[1:] = t``), and a library
  function that converts its arguments (SciPy without ``SCIPY_ARRAY_API=1``). The hook is
  called alike in every case (``np.asarray(t, dtype=float)`` and ``out[1:] = t`` pass the same
  arguments), so the error lists the patterns, each with its alternatives, and says what
  SciPy's own array API flag is -- read from SciPy, never from the frames of the call;
* ``__float__``: a write into one element (``out[0] = t``, ``np.fromiter``). NumPy replaces the
  refusal with its own ``ValueError("setting an array element with a sequence.")`` (the tracer
  has ``__getitem__``), keeping the engine's as its cause; the transformation raises the clear
  error in its place. Before, the user saw NumPy's message alone.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from chainrules import ad

X = np.array([1.5, 2.5, 0.7])

ALTERNATIVES_BUILD = (r"np\.stack", r"chainrules\.ad\.numpy")
ALTERNATIVES_WRITE = (r"chainrules\.ad\.numpy's zeros", r"chainrules\.scatter_add", r"np\.stack")


def _element_write(x: Any) -> Any:
    out = np.zeros(3)
    out[0] = x[0] * 2
    return out


def _element_write_of_a_sum(x: Any) -> Any:
    out = np.zeros(3)
    for i in range(3):
        out[i] = np.sum(x * i)
    return out


def _slice_write(x: Any) -> Any:
    out = np.zeros(3)
    out[1:] = x[1:] * 2
    return out


def _index_write(x: Any) -> Any:
    out = np.zeros(3)
    out[[0, 2]] = x[:2]
    return out


def _row_write(x: Any) -> Any:
    out = np.zeros((2, 3))
    out[0] = x
    return out


def _in_place_add(x: Any) -> Any:
    out = np.zeros(3)
    out += x
    return out


BUILDS: dict[str, Callable[[Any], Any]] = {
    "np.array([x0, x1])": lambda x: np.array([x[0], x[1]]),
    "np.asarray([x0, x1**2])": lambda x: np.asarray([x[0], x[1] ** 2]),
    "np.array([x, x])": lambda x: np.array([x, x]),
    "np.asarray(x)": lambda x: np.asarray(x),
    "np.asarray(x, dtype=float)": lambda x: np.asarray(x, dtype=float),
    "np.r_[x, 1.0]": lambda x: np.r_[x, 1.0],
    "np.c_[x, x]": lambda x: np.c_[x, x],
    "np.sum([x0, x1])": lambda x: np.sum([x[0], x[1]]),
    "np.mean([x0, 2.0])": lambda x: np.mean([x[0], 2.0]),
}

SLICE_WRITES: dict[str, Callable[[Any], Any]] = {
    "out[1:] = t": _slice_write,
    "out[[0, 2]] = t": _index_write,
    "out[0] = row": _row_write,
}

ELEMENT_WRITES: dict[str, Callable[[Any], Any]] = {
    "out[0] = t": _element_write,
    "out[i] = sum": _element_write_of_a_sum,
    "np.fromiter": lambda x: np.fromiter(x, float),
}

TRANSFORMS: dict[str, Callable[[Callable[[Any], Any]], Any]] = {
    "grad": lambda f: ad.grad(lambda v: np.sum(f(v)))(X),
    "jacobian": lambda f: ad.jacobian(f)(X),
    "hessian": lambda f: ad.hessian(lambda v: np.sum(f(v)))(X),
    "jvp": lambda f: ad.jvp(f, (X,), (np.ones(3),)),
}


def _message(f: Callable[[Any], Any], transform: str = "grad") -> str:
    with pytest.raises(TypeError) as info:
        TRANSFORMS[transform](f)
    return str(info.value)


@pytest.mark.parametrize("case", list(BUILDS))
def test_an_array_built_from_traced_values_names_stack_and_the_drop_in_namespace(
    case: str,
) -> None:
    msg = _message(BUILDS[case])
    assert "numpy.asarray(x) of a traced array" in msg
    for alt in ALTERNATIVES_BUILD:
        assert re.search(alt, msg), (alt, msg)


@pytest.mark.parametrize("transform", list(TRANSFORMS))
@pytest.mark.parametrize("case", list(SLICE_WRITES))
def test_a_slice_write_into_a_numpy_array_names_the_write_and_its_alternatives(
    case: str, transform: str
) -> None:
    msg = _message(SLICE_WRITES[case], transform)
    assert "a write of a traced value into a NumPy array (out = np.zeros(n); out[1:] = expr)" in msg
    for alt in ALTERNATIVES_WRITE:
        assert re.search(alt, msg), (alt, msg)


@pytest.mark.parametrize("transform", list(TRANSFORMS))
@pytest.mark.parametrize("case", list(ELEMENT_WRITES))
def test_an_element_write_into_a_numpy_array_is_the_clear_error(case: str, transform: str) -> None:
    """NumPy's own "setting an array element with a sequence" becomes the engine's error
    (NumPy's stays in the chain, as the cause)."""
    with pytest.raises(TypeError) as info:
        TRANSFORMS[transform](ELEMENT_WRITES[case])
    msg = str(info.value)
    assert msg.startswith("chainrules.ad: a traced value was written into an element of a NumPy")
    for alt in ALTERNATIVES_WRITE:
        assert re.search(alt, msg), (alt, msg)
    numpy_error = info.value.__cause__
    assert isinstance(numpy_error, ValueError)
    assert "setting an array element with a sequence" in str(numpy_error)


def test_an_in_place_operator_into_a_numpy_array_names_the_alternatives() -> None:
    msg = _message(_in_place_add)
    assert "a op= t with a traced t" in msg
    assert "chainrules.ad.numpy's zeros" in msg and "chainrules.scatter_add" in msg


def test_the_numpy_array_written_into_is_left_as_it_was() -> None:
    """Nothing is corrupted: the failed write leaves the buffer the code allocated unchanged."""
    kept: list[np.ndarray] = []

    def f(x: Any) -> Any:
        out = np.full(3, 7.0)
        kept.append(out)
        out[1:] = x[1:]
        return out

    with pytest.raises(TypeError):
        ad.grad(lambda v: np.sum(f(v)))(X)
    np.testing.assert_array_equal(kept[0], [7.0, 7.0, 7.0])


def test_a_value_error_of_the_users_own_is_unchanged() -> None:
    def f(x: Any) -> Any:
        raise ValueError("the user's own")

    with pytest.raises(ValueError, match="the user's own"):
        ad.grad(f)(X)


def test_a_float_of_a_traced_value_names_numpys_functions() -> None:
    import math

    msg = _message(lambda x: math.exp(x[0]))
    assert msg.startswith("chainrules.ad: float(x) of a traced array")
    assert "np.exp(x), not math.exp(x)" in msg


# --- what the error says of SciPy: SciPy's own flag, in a process of its own --------------------
def _run(code: str, scipy_array_api: str | None, tmp_path: Any) -> str:
    """Run ``code`` as a script file (so that the error can name its line) with
    ``SCIPY_ARRAY_API`` as given (unset for ``None``)."""
    env = {k: v for k, v in os.environ.items() if k != "SCIPY_ARRAY_API"}
    root = str(Path(__file__).resolve().parents[2])  # this checkout's chainrules
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
    if scipy_array_api is not None:
        env["SCIPY_ARRAY_API"] = scipy_array_api
    script = tmp_path / "user_code.py"
    script.write_text(textwrap.dedent(code))
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


_SCIPY_CALL = """
    import sys
    import numpy as np
    {imports}
    from chainrules import ad
    try:
        ad.grad(lambda x: {call})(np.array([0.5, 1.5]))
    except TypeError as e:
        print(str(e))
    print("scipy imported:", "scipy" in sys.modules)
"""


def test_without_scipy_imported_the_error_says_how_scipy_would_take_traced_arrays(
    tmp_path: Any,
) -> None:
    out = _run(_SCIPY_CALL.format(imports="", call="np.sum(np.asarray(x))"), None, tmp_path)
    assert "with SciPy, set SCIPY_ARRAY_API=1 in the environment before SciPy is imported" in out
    assert "scipy imported: False" in out


def test_scipy_without_its_array_api_mode_is_named_with_the_variable_to_set(
    tmp_path: Any,
) -> None:
    pytest.importorskip("scipy")
    code = _SCIPY_CALL.format(imports="import scipy.special", call="scipy.special.logsumexp(x)")
    out = _run(code, None, tmp_path)
    assert "SciPy is imported without its array API mode: set SCIPY_ARRAY_API=1" in out
    assert "It happened inside scipy's logsumexp, called at " in out
    assert "user_code.py:7 (ad.grad(lambda x: scipy.special.logsumexp(x))" in out


def test_scipy_with_its_array_api_mode_says_so(tmp_path: Any) -> None:
    """With the flag, logsumexp takes the tracer; scipy.stats' distributions whose methods have
    no rule still convert (``laplace``; ``norm.logpdf`` has rules:
    tests/ad/test_plain_scipy_stats.py)."""
    pytest.importorskip("scipy")
    code = _SCIPY_CALL.format(
        imports="import scipy.stats", call="np.sum(scipy.stats.laplace.logpdf(x, 0.0, 1.0))"
    )
    out = _run(code, "1", tmp_path)
    assert "SciPy's array API mode is on (SCIPY_ARRAY_API=1)" in out
    assert "chainrules.ad.scipy" in out
