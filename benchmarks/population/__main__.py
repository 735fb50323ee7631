"""``python -m benchmarks.population``: BLAS and OpenMP pinned to one thread, and SciPy's
array-API mode on, before NumPy and SciPy load; with ``--keep-heap``, the process starts again
with glibc keeping the memory it frees (read only at start: ``_timing.KEEP_HEAP``)."""

import os
import sys

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")
# SciPy's array-API mode, read once when SciPy loads: how chainrules.ad differentiates SciPy's
# Python functions (logsumexp, rosen) unchanged (docs/ad.md); the campaign's corpus runs so too
os.environ.setdefault("SCIPY_ARRAY_API", "1")

from .._timing import keep_heap_restart  # noqa: E402

keep_heap_restart(["-m", "benchmarks.population", *sys.argv[1:]])

from .bench import main  # noqa: E402

sys.exit(main())
