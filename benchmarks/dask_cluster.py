"""Gradient time of a logistic regression against the number of row chunks, on a LocalCluster.

``python benchmarks/dask_cluster.py`` builds ``ad.grad`` of the loss of 200 000 x 20 data split
into 1 ... 64 row chunks, computes it on a cluster of two in-process workers (one thread each),
and prints the median and the range over 3 runs of build + compute (the table in
docs/beyond-one-machine.md).
"""

from __future__ import annotations

import statistics
import time
import warnings

import dask
import dask.array as da
import numpy as np
from array_api_compat import array_namespace
from distributed import Client, LocalCluster

from chainrules import ad


def logistic(w, X, y):  # type: ignore[no-untyped-def]
    xp = array_namespace(w, X)
    return xp.sum(xp.log(1 + xp.exp(-y * (X @ w))))


def main(rows: int = 200_000, d: int = 20, repeats: int = 3) -> None:
    warnings.simplefilter("ignore")
    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    )
    client = Client(cluster)
    rng = np.random.default_rng(0)
    Xn, yn, wn = rng.standard_normal((rows, d)), np.sign(rng.standard_normal(rows)), np.zeros(d)
    print("| row chunks | tasks | build + compute (median, range over 3 runs) |")
    print("|---:|---:|---|")
    for n in (1, 4, 16, 64):
        X = client.persist(da.from_array(Xn, chunks=(rows // n, d)))
        y = client.persist(da.from_array(yn, chunks=rows // n))
        w = da.from_array(wn)
        times, tasks = [], 0
        for _ in range(repeats):
            t0 = time.perf_counter()
            g = ad.grad(logistic)(w, X, y)
            tasks = len(g.__dask_graph__())
            dask.compute(g)
            times.append(time.perf_counter() - t0)
        print(
            f"| {n} | {tasks} | {statistics.median(times) * 1e3:.0f} ms "
            f"({min(times) * 1e3:.0f}-{max(times) * 1e3:.0f}) |"
        )
    client.close()
    cluster.close()


if __name__ == "__main__":
    main()
