"""``python -m benchmarks.population``: BLAS and OpenMP pinned to one thread, and SciPy's
array-API mode on, before NumPy and SciPy load; with ``--pin-malloc``, the process starts again
with glibc's allocator thresholds fixed (read only at start: see ``bench.PINNED_MALLOC``)."""

import os
import sys

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")
# SciPy's array-API mode, read once when SciPy loads: how chainrules.ad differentiates SciPy's
# Python functions (logsumexp, rosen) unchanged (docs/ad.md); the campaign's corpus runs so too
os.environ.setdefault("SCIPY_ARRAY_API", "1")

from .bench import PINNED_MALLOC  # noqa: E402

if "--pin-malloc" in sys.argv[1:] and any(os.environ.get(k) != v for k, v in PINNED_MALLOC.items()):
    os.environ.update(PINNED_MALLOC)
    os.execv(sys.executable, [sys.executable, "-m", "benchmarks.population", *sys.argv[1:]])

from .bench import main  # noqa: E402

sys.exit(main())
