"""Rules for the standard's ``linalg`` extension (and NumPy's ``numpy.linalg`` names beside them).

* :mod:`.norms` -- ``vector_norm``, ``matrix_norm``, NumPy's ``linalg.norm``;
* :mod:`.products` -- ``outer``, ``cross``, ``trace``, ``diagonal``, NumPy's ``outer``,
  ``trace``, ``diagonal`` and ``linalg.multi_dot`` (``linalg.matmul``, ``linalg.tensordot``, ...
  are registered beside the standard's top-level functions, in :mod:`..linear_algebra`);
* :mod:`.solvers` -- ``solve``, ``inv``, ``det``, ``slogdet``, ``matrix_power``, NumPy's
  ``linalg.tensorsolve``, ``linalg.tensorinv`` and ``linalg.cond``;
* :mod:`.least_squares` -- ``pinv``, NumPy's ``linalg.pinv`` and ``linalg.lstsq``;
* :mod:`.decompositions` -- ``cholesky``, ``eigh``, ``eigvalsh``, ``qr``, ``svd``, ``svdvals``,
  ``matrix_rank``, NumPy's ``linalg.eig`` and ``linalg.eigvals``.

The maths they share (and SciPy's ``linalg`` rules use) is in :mod:`chainrules.rules._util.linalg`.
"""

from . import decompositions, least_squares, norms, products, solvers  # noqa: F401
from .norms import norm2_back

__all__ = ["norm2_back"]
