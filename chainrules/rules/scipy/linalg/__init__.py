"""Rules for ``scipy.linalg`` -- registered as ``"scipy:linalg.NAME"``, so that each covers
``scipy.linalg.NAME``, ``jax.scipy.linalg.NAME`` and ``cupyx.scipy.linalg.NAME``.

Every rule is bound to the function it was found for (``bind=``): the primal is that function's
own result, and the solves inside its pullback and pushforward call the same library's
``solve_triangular``, ``lu_solve``, ``cho_solve``, ``expm_frechet`` or ``solve_sylvester``. The
structured matrices take their pullbacks from static slicing and reshapes of the array namespace.
Nothing reads array values on the host. What the modules share (the binding, SciPy's zero-size
batches and byte orders, the small matrix helpers) is in ``chainrules/rules/_util/scipy_linalg.py``;
the maths notes are in ``docs/rules/scipy-linalg.md``.

====================  ==========================================================================
module                functions
====================  ==========================================================================
``solvers``           ``solve``, ``inv``, ``det``, ``solve_triangular``, ``solve_banded``,
                      ``solve_sylvester``
``lu``                ``lu``, ``lu_factor``, ``lu_solve``
``cholesky``          ``cholesky``, ``cho_factor``, ``cho_solve``
``decompositions``    ``eigh``, ``eigh_tridiagonal``, ``qr``, ``qr_multiply``, ``svd``, ``polar``
``matrix_functions``  ``expm``, ``expm_frechet``, ``sqrtm``
``special_matrices``  ``block_diag``, ``toeplitz``, ``circulant``, ``hankel``, ``leslie``,
                      ``companion``, ``fiedler``, ``convolution_matrix``, ... (and the constant
                      ``hadamard``, ``dft``, ``pascal``, ...)
====================  ==========================================================================
"""

from . import (  # noqa: F401
    cholesky,
    decompositions,
    lu,
    matrix_functions,
    solvers,
    special_matrices,
)
