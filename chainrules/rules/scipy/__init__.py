"""Rules for SciPy's functions, registered as ``"scipy:MODULE.NAME"`` targets: each covers
``scipy.MODULE.NAME``, ``jax.scipy.MODULE.NAME`` and ``cupyx.scipy.MODULE.NAME``.

* :mod:`.linalg` -- ``scipy.linalg``: ``expm``, ``solve_triangular``, ``cho_factor``/``cho_solve``,
  ``lu``/``lu_factor``/``lu_solve``, the structured matrices, SciPy's own ``solve``/``inv``/``det``/
  ``cholesky``/``eigh``/``qr``/``svd`` signatures, ``sqrtm``, ``polar``, ``solve_sylvester``, ...

Nothing here imports SciPy, JAX or CuPy: the rules are registered by name and resolved when a
library's SciPy is first looked up.
"""

from . import linalg  # noqa: F401
