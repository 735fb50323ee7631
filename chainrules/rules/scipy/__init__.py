"""Rules for SciPy's functions, registered as ``"scipy:MODULE.NAME"`` targets: each covers
``scipy.MODULE.NAME``, ``jax.scipy.MODULE.NAME``, ``cupyx.scipy.MODULE.NAME`` and the namespaces
registered for the family (``torch.special`` for the functions whose signature is SciPy's).

* :mod:`.special` -- ``scipy.special``: every function ``jax.scipy.special`` has (``gammaln``,
  ``erf``, ``logsumexp``, ``softmax``, ``betainc``, ...);
* :mod:`.linalg` -- ``scipy.linalg``: ``expm``, ``solve_triangular``, ``cho_factor``/``cho_solve``,
  ``lu``/``lu_factor``/``lu_solve``, the structured matrices, SciPy's own ``solve``/``inv``/``det``/
  ``cholesky``/``eigh``/``qr``/``svd`` signatures, ``sqrtm``, ``polar``, ``solve_sylvester``, ...
* :mod:`.stats` -- ``scipy.stats``: the distributions' methods autograd differentiates (``norm``,
  ``t``, ``gamma``, ``beta``, ``chi2``, ``poisson``, ``dirichlet``, ``multivariate_normal``);
* :mod:`.signal` -- ``scipy.signal``: ``convolve`` and ``correlate`` (n-d, every mode).

Nothing here imports SciPy, JAX, PyTorch or CuPy: the rules are registered by name and resolved
when a library's function is first looked up.
"""

from . import integrate, linalg, signal, special, stats  # noqa: F401
