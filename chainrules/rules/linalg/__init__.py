"""Rules for the standard's ``linalg`` extension (and NumPy's ``numpy.linalg`` names).

* :mod:`.norms` -- ``vector_norm``, ``matrix_norm``, ``numpy.linalg.norm``;
* :mod:`.products` -- ``matmul``, ``matrix_transpose``, ``tensordot``, ``vecdot``, ``outer``,
  ``cross``, ``trace``, ``diagonal``;
* :mod:`.solvers` -- ``solve``, ``inv``, ``pinv``, ``det``, ``slogdet``, ``matrix_power``;
* :mod:`.decompositions` -- ``cholesky``, ``eigh``, ``eigvalsh``, ``qr``, ``svd``, ``svdvals``;
* :mod:`.numpy_extras` -- NumPy's ``eig``, ``eigvals``, ``lstsq``, ``multi_dot``, ``cond``,
  ``tensorsolve``, ``tensorinv``.
"""

from . import decompositions, norms, numpy_extras, products, solvers  # noqa: F401
from .norms import norm2_back

__all__ = ["norm2_back"]
