"""jacobian(mode="rev") pulls chunks of cotangents back: ceil(m / chunk) backward passes, the
same Jacobian as forward mode, and rules that take no chunk run in a loop over it."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import chainrules.ad._api as api
from chainrules.ad import hessian, jacobian


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = api.backward

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(api, "backward", counted)
    return calls


@pytest.mark.parametrize("chunk", [None, 1, 7, 64])
def test_passes_and_values(monkeypatch: pytest.MonkeyPatch, chunk: int | None) -> None:
    rng = np.random.default_rng(0)
    b = rng.standard_normal((50, 20))
    x = rng.standard_normal(20)

    def f(x: Any) -> Any:
        return np.tanh(b @ x) * 2.0 + np.sum(np.reshape(np.exp(x), (4, 5)), axis=0).mean()

    calls = _counting(monkeypatch)
    j_rev = jacobian(f, mode="rev", chunk_size=chunk)(x)
    want = 1 if chunk is None else math.ceil(50 / chunk)  # 50 * 50 is within the budget
    assert len(calls) == want
    np.testing.assert_allclose(j_rev, jacobian(f)(x), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(("m", "n", "passes"), [(200, 200, 1), (1000, 1000, 1), (300, 4096, 2)])
def test_default_reverse_chunk_is_bounded_by_the_element_budget(
    monkeypatch: pytest.MonkeyPatch, m: int, n: int, passes: int
) -> None:
    """The default reverse chunk is the element budget's (chunk * max(m, n) <= 2**20, at least
    DEFAULT_REV_CHUNK): one pass up to 1024 outputs; a 4096-element input halves it to 256, so
    300 outputs take 2 passes of 150 (ceil(300 / 128) = 3 before the budget)."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal(n)

    def f(x: Any) -> Any:  # m outputs of an n-element input, chunked pullbacks only
        return np.sin(x[:m]) * np.sum(x)

    calls = _counting(monkeypatch)
    j_rev = jacobian(f, mode="rev")(x)
    assert len(calls) == passes
    b = math.ceil(m / passes)
    assert b * max(m, n) <= api.JACOBIAN_CHUNK_ELEMENTS
    np.testing.assert_allclose(j_rev, jacobian(f, mode="rev", chunk_size=m)(x), rtol=1e-12)


def test_rules_without_chunks_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((4, 4)) + 4 * np.eye(4)

    def f(x: Any) -> Any:  # solve and sort take no chunk: each runs once per cotangent
        return np.sort(np.linalg.solve(a * x[0], x)) * np.max(x)

    x = rng.standard_normal(4)
    calls = _counting(monkeypatch)
    j_rev = jacobian(f, mode="rev", chunk_size=3)(x)
    assert len(calls) == 2
    np.testing.assert_allclose(j_rev, jacobian(f)(x), rtol=1e-10, atol=1e-12)


def test_tuple_outputs_and_pytrees() -> None:
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 3))

    def f(d: Any) -> Any:
        w, v = np.linalg.eigh(d["x"] + d["x"].T)
        return {"w": w * d["s"], "v0": np.abs(v[:, 0])}

    args = {"x": x, "s": np.float64(1.5)}
    got = jacobian(f, mode="rev", chunk_size=2)(args)
    ref = jacobian(f)(args)
    for k in ("w", "v0"):
        for i in ("x", "s"):
            np.testing.assert_allclose(got[k][i], ref[k][i], rtol=1e-9, atol=1e-12)


def _counting_forward(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = api.ForwardTrace

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(api, "ForwardTrace", counted)
    return calls


@pytest.mark.parametrize(("n", "chunk"), [(200, None), (40, None), (200, 16), (129, None)])
def test_hessian_forward_passes(monkeypatch: pytest.MonkeyPatch, n: int, chunk: int | None) -> None:
    """hessian pushes whole chunks of up to HESSIAN_CHUNK_THRESHOLD tangents per forward pass
    (each pass runs a tape), and the chunk does not change the Hessian."""
    rng = np.random.default_rng(3)
    b = rng.standard_normal((n, n)) / np.sqrt(n)
    x = rng.standard_normal(n)

    def f(x: Any) -> Any:
        return np.sum(np.tanh(b @ x))

    calls = _counting_forward(monkeypatch)
    h = hessian(f, chunk_size=chunk)(x)
    k = chunk or api.default_chunk_size(n, api.HESSIAN_CHUNK_THRESHOLD)
    assert len(calls) == math.ceil(n / k) == (math.ceil(n / 128) if chunk is None else 13)
    s = 1 - np.tanh(b @ x) ** 2
    want = b.T @ ((-2 * np.tanh(b @ x) * s)[:, None] * b)  # sum_i tanh''(b_i x) b_i b_i^T
    np.testing.assert_allclose(h, want, rtol=1e-10, atol=1e-12)


def test_hessian_chunk_size_error_names_hessian() -> None:
    with pytest.raises(ValueError, match="hessian: chunk_size must be a positive int, got 0"):
        hessian(np.sum, chunk_size=0)
