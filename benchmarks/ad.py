"""chainrules.ad against autograd, hand-written gradients and per-column Jacobian extraction.

Questions answered (issue 6):
* ``grad`` of a 20-operation program at n=10 (per-call overhead): target at least 2x faster than
  ``autograd.grad`` on the same program.
* The same program at n=1e5 (array work dominates): target within 1.2x of the hand-written
  forward + backward pass.
* ``jacobian(mode="fwd")`` makes ceil(n / chunk) passes (counted), and writing each chunk's
  columns through one reshaped view is no slower than writing column by column (the CPU
  regression question that held ForwardDiff's GPU chunk extraction back): ratio <= 1.0.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

try:
    from ._timing import Row, fmt_time, interleaved
except ImportError:  # run as a script
    from _timing import Row, fmt_time, interleaved

from chainrules import ad


def program(np: Any) -> Callable[[Any], Any]:
    """A 20-operation scalar program, written against a NumPy-like module ``np``."""

    def f(x: Any) -> Any:
        a = np.sin(x)  # 1
        b = a * x  # 2
        c = np.exp(-b)  # 3, 4
        d = c + 1.0  # 5
        e = np.log(d)  # 6
        g = e * e  # 7
        h = np.tanh(g - x)  # 8, 9
        i = h / (1.0 + x * x)  # 10, 11, 12
        j = np.sqrt(i * i + 1.0)  # 13, 14, 15
        k = j * a - b  # 16, 17
        l_ = np.cos(k)  # 18
        return np.sum(l_ * l_)  # 19, 20

    return f


def hand_value_and_grad(x: np.ndarray) -> tuple[Any, np.ndarray]:
    """The program's value and gradient written out by hand (forward, then reverse)."""
    a = np.sin(x)
    b = a * x
    c = np.exp(-b)
    d = c + 1.0
    e = np.log(d)
    g = e * e
    h = np.tanh(g - x)
    q = 1.0 + x * x
    i = h / q
    j = np.sqrt(i * i + 1.0)
    k = j * a - b
    l_ = np.cos(k)
    value = np.sum(l_ * l_)
    k_bar = -2.0 * l_ * np.sin(k)
    a_bar = k_bar * j
    b_bar = -k_bar
    i_bar = k_bar * a * i / j
    h_bar = i_bar / q
    x_bar = -i_bar * h / (q * q) * 2.0 * x
    t_bar = h_bar * (1.0 - h * h)
    x_bar -= t_bar
    b_bar -= 2.0 * e * t_bar / d * c
    a_bar += b_bar * x
    x_bar += b_bar * a + a_bar * np.cos(x)
    return value, x_bar


def rules_only_value_and_grad(x: np.ndarray) -> tuple[Any, Any]:
    """The program through the registered rules called by hand (no engine): the floor that any
    engine built on this registry pays per operation."""
    import chainrules as cr

    r = cr.rrule
    a, pa = r(np.sin, x)
    b, pb = r(np.multiply, a, x)
    nb, pnb = r(np.negative, b)
    c, pc = r(np.exp, nb)
    d, pd = r(np.add, c, 1.0)
    e, pe = r(np.log, d)
    g, pg = r(np.multiply, e, e)
    gx, pgx = r(np.subtract, g, x)
    h, ph = r(np.tanh, gx)
    xx, pxx = r(np.multiply, x, x)
    q, pq = r(np.add, 1.0, xx)
    i, pi = r(np.divide, h, q)
    ii, pii = r(np.multiply, i, i)
    ii1, pii1 = r(np.add, ii, 1.0)
    j, pj = r(np.sqrt, ii1)
    ja, pja = r(np.multiply, j, a)
    k, pk = r(np.subtract, ja, b)
    l_, pl = r(np.cos, k)
    ll, pll = r(np.multiply, l_, l_)
    v, pv = r(np.sum, ll)
    (ll_bar,) = pv(np.ones(()))[1:]
    l1, l2 = pll(ll_bar)[1:]
    (k_bar,) = pl(l1 + l2)[1:]
    ja_bar, b_bar = pk(k_bar)[1:]
    j_bar, a_bar = pja(ja_bar)[1:]
    (ii1_bar,) = pj(j_bar)[1:]
    ii_bar, _ = pii1(ii1_bar)[1:]
    i1, i2 = pii(ii_bar)[1:]
    h_bar, q_bar = pi(i1 + i2)[1:]
    _, xx_bar = pq(q_bar)[1:]
    x1, x2 = pxx(xx_bar)[1:]
    (gx_bar,) = ph(h_bar)[1:]
    g_bar, x3 = pgx(gx_bar)[1:]
    e1, e2 = pg(g_bar)[1:]
    (d_bar,) = pe(e1 + e2)[1:]
    c_bar, _ = pd(d_bar)[1:]
    (nb_bar,) = pc(c_bar)[1:]
    (b2,) = pnb(nb_bar)[1:]
    a2, x4 = pb(b_bar + b2)[1:]
    (x5,) = pa(a_bar + a2)[1:]
    return v, x1 + x2 + x3 + x4 + x5


def pass_count(n: int, chunk: int | None) -> int:
    """How many times ``jacobian(mode="fwd")`` evaluates ``f`` for an input of ``n`` elements."""
    calls = []

    def f(x: Any) -> Any:
        calls.append(1)
        return np.sin(x) * x

    ad.jacobian(f, chunk_size=chunk)(np.linspace(0.1, 1.0, n))
    return len(calls)


def _per_column_jacobian(f: Callable[[Any], Any], x: np.ndarray, k: int) -> np.ndarray:
    """The same chunked forward passes, with the columns written one at a time."""
    n = x.size
    jac: np.ndarray | None = None
    for s in range(0, n, k):
        kk = min(k, n - s)
        seeds = np.eye(kk, n, k=s).reshape((kk, *x.shape))
        y, ydot = ad.jvp(f, (x,), (seeds,))
        m = y.size
        if jac is None:
            jac = np.zeros((m, n))
        for j in range(kk):
            jac[:, s + j] = ydot[j].reshape(m)
    assert jac is not None
    return jac


def _chunks(f: Callable[[Any], Any], x: np.ndarray, k: int) -> list[tuple[int, np.ndarray]]:
    """The chunked forward passes' tangents, ``(start, y_dot of shape (kk, m))`` per chunk."""
    out = []
    n = x.size
    for s in range(0, n, k):
        kk = min(k, n - s)
        seeds = np.eye(kk, n, k=s).reshape((kk, *x.shape))
        _, ydot = ad.jvp(f, (x,), (seeds,))
        out.append((s, ydot.reshape(kk, -1)))
    return out


def _extract_chunked(chunks: list[tuple[int, np.ndarray]], n: int, m: int) -> np.ndarray:
    """The engine's extraction: each chunk as kk contiguous rows of J's transpose, one write."""
    buf = np.empty((n, m))
    for s, ydot in chunks:
        buf[s : s + ydot.shape[0]] = ydot
    return buf.T  # a view: J


def _extract_columns(chunks: list[tuple[int, np.ndarray]], n: int, m: int) -> np.ndarray:
    """Per-column extraction: one write per column of J."""
    jac = np.empty((m, n))
    for s, ydot in chunks:
        for j in range(ydot.shape[0]):
            jac[:, s + j] = ydot[j]
    return jac


def _jacobian_test_function(v: Any) -> Any:
    return np.sin(v) * np.cumsum(v) + np.exp(-v * v)


def run(quick: bool = False) -> list[Row]:
    import autograd
    import autograd.numpy as anp

    budget = 0.2 if quick else 0.5
    rounds = 3 if quick else 5
    rows: list[Row] = []

    # 1. per-call overhead: n = 10
    x = np.linspace(0.1, 1.0, 10)
    ours = ad.value_and_grad(program(np))
    theirs = autograd.value_and_grad(program(anp))
    np.testing.assert_allclose(ours(x)[1], theirs(x)[1], rtol=1e-12)
    np.testing.assert_allclose(ours(x)[1], hand_value_and_grad(x)[1], rtol=1e-12)
    np.testing.assert_allclose(ours(x)[1], rules_only_value_and_grad(x)[1], rtol=1e-12)
    t = interleaved(
        {
            "ours": lambda: ours(x),
            "autograd": lambda: theirs(x),
            "hand": lambda: hand_value_and_grad(x),
            "rules": lambda: rules_only_value_and_grad(x),
        },
        budget=budget,
        rounds=rounds,
    )
    r = t["autograd"] / t["ours"]
    rows.append(
        Row(
            "grad, 20-op program, n=10",
            fmt_time(t["ours"]),
            fmt_time(t["autograd"]) + " autograd.value_and_grad",
            f"{r:.2f}x faster",
            "≥ 2x faster",
            r >= 2.0,
        )
    )
    rows.append(
        Row(
            "  per operation (forward + backward)",
            fmt_time(t["ours"] / 20),
            fmt_time(t["hand"] / 20) + " hand-written",
            f"{t['ours'] / t['hand']:.1f}x",
            "(reported)",
            None,
        )
    )
    rows.append(
        Row(
            "  the registered rules called by hand (no engine)",
            fmt_time(t["rules"]),
            fmt_time(t["autograd"]) + " autograd",
            f"{t['autograd'] / t['rules']:.2f}x faster; engine adds "
            f"{(t['ours'] - t['rules']) / 20 * 1e6:.1f} µs/op",
            "(reported)",
            None,
        )
    )

    # 2. array work dominates: n = 1e5
    x = np.linspace(0.1, 1.0, 100_000)
    np.testing.assert_allclose(ours(x)[1], hand_value_and_grad(x)[1], rtol=1e-10)
    t = interleaved(
        {"ours": lambda: ours(x), "hand": lambda: hand_value_and_grad(x)},
        budget=budget,
        rounds=rounds,
    )
    r = t["ours"] / t["hand"]
    rows.append(
        Row(
            "grad, 20-op program, n=1e5",
            fmt_time(t["ours"]),
            fmt_time(t["hand"]) + " hand-written gradient",
            f"{r:.2f}x",
            "≤ 1.2x",
            r <= 1.2,
        )
    )

    # 3. forward Jacobian: passes and extraction
    for n, chunk in ((100, 1), (100, 8), (100, None)):
        k = chunk or ad.default_chunk_size(n)
        p = pass_count(n, chunk)
        rows.append(
            Row(
                f"jacobian(fwd) passes, n={n}, chunk={chunk or f'default ({k})'}",
                str(p),
                f"ceil(n/chunk) = {math.ceil(n / k)}",
                "",
                "= ceil(n/chunk)",
                p == math.ceil(n / k),
            )
        )
    g = _jacobian_test_function
    for n, k in ((64, 8), (1000, 16)):
        x = np.linspace(0.1, 1.0, n)
        chunked = ad.jacobian(g, chunk_size=k)
        np.testing.assert_allclose(chunked(x), _per_column_jacobian(g, x, k), rtol=1e-12)
        t = interleaved(
            {
                "chunked": functools.partial(chunked, x),
                "columns": functools.partial(_per_column_jacobian, g, x, k),
            },
            budget=budget,
            rounds=rounds,
        )
        r = t["chunked"] / t["columns"]
        rows.append(
            Row(
                f"jacobian(fwd), n={n}, chunk={k}: whole",
                fmt_time(t["chunked"]) + " ad.jacobian",
                fmt_time(t["columns"]) + " ad.jvp passes + per-column writes",
                f"{r:.2f}x",
                "(reported)",
                None,
            )
        )
        # the regression question itself: the same passes' tangents, written two ways
        chunks = _chunks(g, x, k)
        m = chunks[0][1].shape[1]
        np.testing.assert_array_equal(
            _extract_chunked(chunks, n, m), _extract_columns(chunks, n, m)
        )
        t = interleaved(
            {
                "chunked": functools.partial(_extract_chunked, chunks, n, m),
                "columns": functools.partial(_extract_columns, chunks, n, m),
            },
            budget=budget,
            rounds=rounds,
        )
        r = t["chunked"] / t["columns"]
        rows.append(
            Row(
                f"  chunk extraction alone, {m}x{n}, chunk={k}",
                fmt_time(t["chunked"]) + " contiguous chunk rows",
                fmt_time(t["columns"]) + " per-column writes",
                f"{r:.2f}x",
                "≤ 1.0x",
                r <= 1.0,
            )
        )
    # the chunk-size trade-off: one Jacobian, several chunk sizes
    x = np.linspace(0.1, 1.0, 256)
    fns = {str(k): (lambda k=k: ad.jacobian(g, chunk_size=k)(x)) for k in (1, 4, 16, 64, 256)}
    t = interleaved(fns, budget=budget, rounds=max(rounds - 2, 1))
    for k, v in t.items():
        rows.append(
            Row(
                f"  jacobian(fwd), n=256, chunk={k}",
                fmt_time(v),
                fmt_time(t["1"]) + " chunk=1",
                f"{v / t['1']:.2f}x",
                "(reported)",
                None,
            )
        )
    return rows


if __name__ == "__main__":
    from _timing import table

    print(table(run(quick=True)))
