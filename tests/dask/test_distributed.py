"""Point 3 of issue 13: ``chainrules.ad`` on a ``dask.distributed.LocalCluster``.

Gradients and Hessians of a logistic regression and of a two-layer MLP, taken of dask arrays held
by a cluster, are built without submitting a graph (a scheduler plugin counts ``update_graph``, a
local-scheduler callback counts local runs), then run on the cluster's workers in one ``compute``
and match closed forms computed in NumPy. The cluster runs in this process (two workers of one
thread each, ``processes=False``): it starts in well under a second.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from chainrules import ad

da = pytest.importorskip("dask.array")
pytest.importorskip("array_api_compat.dask.array")
distributed = pytest.importorskip("distributed")

from array_api_compat import array_namespace  # noqa: E402
from distributed.diagnostics.plugin import SchedulerPlugin  # noqa: E402


class _GraphCounter(SchedulerPlugin):
    """Counts the graphs clients submit to the scheduler."""

    def __init__(self) -> None:
        self.graphs = 0

    def update_graph(self, scheduler: Any, **kwargs: Any) -> None:
        self.graphs += 1


@pytest.fixture(scope="module")
def cluster() -> Iterator[tuple[Any, _GraphCounter]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # distributed's own start-up warnings (ports, memory)
        lc = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        )
        client = distributed.Client(lc)
    counter = _GraphCounter()
    lc.scheduler.add_plugin(counter)
    try:
        yield client, counter
    finally:
        client.close()
        lc.close()


@contextlib.contextmanager
def _nothing_runs(counter: _GraphCounter) -> Iterator[None]:
    """Fails when a graph is submitted to the cluster or run by a local scheduler inside."""
    from dask.callbacks import Callback

    local = [0]
    before = counter.graphs
    with Callback(start=lambda dsk: local.__setitem__(0, local[0] + 1)):
        yield
    assert counter.graphs == before, "a graph was submitted to the cluster while building"
    assert local[0] == 0, "a graph ran on a local scheduler while building"


def logistic(w: Any, X: Any, y: Any) -> Any:
    xp = array_namespace(w, X)
    return xp.sum(xp.log(1 + xp.exp(-y * (X @ w))))


def logistic_padded(w: Any, X: Any, y: Any) -> Any:
    """The same loss, through ``zeros_like`` of a traced value and of a constant."""
    xp = array_namespace(w, X)
    z = X @ w + xp.zeros_like(X @ w)
    return xp.sum(xp.log(1 + xp.exp(-y * z))) + xp.sum(xp.zeros_like(w) * w)


def mlp(W1: Any, W2: Any, X: Any, y: Any) -> Any:
    xp = array_namespace(W1, X)
    return xp.mean((xp.tanh(X @ W1) @ W2 - y) ** 2)


def _data(rows: int = 60, d: int = 4, h: int = 5) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {
        "X": rng.standard_normal((rows, d)),
        "y": np.sign(rng.standard_normal(rows)),
        "t": rng.standard_normal((rows, 1)),
        "w": rng.standard_normal(d) / 2,
        "W1": rng.standard_normal((d, h)) / 2,
        "W2": rng.standard_normal((h, 1)) / 2,
    }


def _logistic_closed_form(w: np.ndarray, X: np.ndarray, y: np.ndarray) -> tuple[Any, Any]:
    s = 1 / (1 + np.exp(y * (X @ w)))  # sigmoid(-y z)
    return -X.T @ (y * s), X.T @ (X * (s * (1 - s))[:, None])


def _mlp_closed_form(
    W1: np.ndarray, W2: np.ndarray, X: np.ndarray, t: np.ndarray
) -> tuple[Any, Any]:
    h = np.tanh(X @ W1)
    r = 2 * (h @ W2 - t) / t.size
    return X.T @ ((r @ W2.T) * (1 - h**2)), h.T @ r


def test_gradients_and_hessians_build_lazily_and_run_on_the_workers_in_one_compute(
    cluster: tuple[Any, _GraphCounter],
) -> None:
    import dask
    from distributed import get_task_stream

    client, counter = cluster
    n = _data()
    X = da.from_array(n["X"], chunks=(15, 2))  # 4 x 2 blocks
    y = da.from_array(n["y"], chunks=15)
    t = da.from_array(n["t"], chunks=(15, 1))
    w = da.from_array(n["w"], chunks=2)
    W1 = da.from_array(n["W1"], chunks=(2, 3))
    W2 = da.from_array(n["W2"], chunks=(3, 1))
    X, y, t, w, W1, W2 = client.persist([X, y, t, w, W1, W2])  # the data live on the workers
    distributed.wait([X, y, t, w, W1, W2])  # (the persist's own graph reaches the scheduler)
    with _nothing_runs(counter):
        g_log = ad.grad(logistic)(w, X, y)
        H_log = ad.hessian(logistic)(w, X, y)
        H_pad = ad.hessian(logistic_padded)(w, X, y)
        g1, g2 = ad.grad(mlp, argnums=(0, 1))(W1, W2, X, t)
    lazy = (g_log, H_log, H_pad, g1, g2)
    assert all(isinstance(v, da.Array) for v in lazy)
    before = counter.graphs
    with get_task_stream(client) as ts:
        got = dask.compute(*lazy)
    assert counter.graphs == before + 1, "one compute, one graph"
    workers = set(client.scheduler_info()["workers"])
    assert ts.data and {r["worker"] for r in ts.data} <= workers

    g_want, H_want = _logistic_closed_form(n["w"], n["X"], n["y"])
    g1_want, g2_want = _mlp_closed_form(n["W1"], n["W2"], n["X"], n["t"])
    for name, a, b in (
        ("logistic grad", got[0], g_want),
        ("logistic hessian", got[1], H_want),
        ("logistic hessian through zeros_like", got[2], H_want),
        ("mlp grad W1", got[3], g1_want),
        ("mlp grad W2", got[4], g2_want),
    ):
        assert isinstance(a, np.ndarray) and a.shape == b.shape, name
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, err_msg=name)


def test_mlp_hessian_on_the_cluster(cluster: tuple[Any, _GraphCounter]) -> None:
    """The Hessian of the MLP loss in its first-layer weights, against NumPy's own run of
    ``ad.hessian`` (checked against finite differences by the engine's own tests)."""
    client, counter = cluster
    n = _data(rows=30, d=3, h=2)
    X = da.from_array(n["X"], chunks=(10, 2))
    t = da.from_array(n["t"], chunks=(10, 1))
    W1 = da.from_array(n["W1"], chunks=(2, 1))
    W2 = da.from_array(n["W2"], chunks=(1, 1))
    with _nothing_runs(counter):
        H = ad.hessian(mlp)(W1, W2, X, t)
    assert isinstance(H, da.Array)
    want = ad.hessian(mlp)(n["W1"], n["W2"], n["X"], n["t"])
    got = client.compute(H).result()
    assert got.shape == (3, 2, 3, 2)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_the_graph_counter_sees_a_compute_on_the_cluster(
    cluster: tuple[Any, _GraphCounter],
) -> None:
    _, counter = cluster
    x = da.ones(4, chunks=2)
    with pytest.raises(AssertionError, match="submitted to the cluster"), _nothing_runs(counter):
        float((x * 2).sum())


def test_the_docs_example_runs_as_written() -> None:
    """The worked example of docs/beyond-one-machine.md, run as written (its own cluster)."""
    import re
    from pathlib import Path

    page = Path(__file__).resolve().parents[2] / "docs" / "beyond-one-machine.md"
    section = page.read_text().split("## `chainrules.ad` on a cluster", 1)[1].split("\n## ")[0]
    (block,) = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    ns: dict[str, Any] = {"__name__": "docs"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # distributed's start-up warnings (the dashboard's port)
        exec(compile(block, str(page), "exec"), ns)
    client = ns["client"]
    try:
        assert isinstance(ns["g"], np.ndarray) and ns["H"].shape == (4, 4)
        assert ns["gW1"].shape == (4, 5) and ns["gW2"].shape == (5, 1)
        g_want, H_want = _logistic_closed_form(*(np.asarray(ns[k]) for k in ("w", "X", "y")))
        np.testing.assert_allclose(ns["g"], g_want, rtol=1e-10)
        np.testing.assert_allclose(ns["H"], H_want, rtol=1e-10)
    finally:
        cluster = client.cluster
        client.close()
        cluster.close()
