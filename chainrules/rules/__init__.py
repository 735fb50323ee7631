"""Rule sets, one module per section of the Array API standard (and its extensions).

=====================  ================================================================
module                 functions
=====================  ================================================================
``creation``           ``asarray``, ``full``, ``linspace``, ``meshgrid``, ``tril``, NumPy's
                       ``logspace``, windows, ... (a package, by topic)
``data_types``         ``astype`` (and the non-differentiable dtype queries)
``elementwise``        ``sin``, ``add``, ``clip``, NumPy's ``angle``, ``gradient``, ... (by topic)
``polynomial``         NumPy's ``convolve``, ``polyval``, ``polyfit``, ``roots``, ...
``indexing``           ``x[key]``, ``take``, ... (and NumPy's ``choose``, ``put``, ...)
``linear_algebra``     ``matmul``, ``matrix_transpose``, ``tensordot``, ``vecdot``, ``einsum``
``manipulation``       ``reshape``, ``concat``, ``flip``, ... (and NumPy's ``vstack``, ``pad``, ...)
``searching``          ``where`` (and ``argmax``, ``nonzero``, NumPy's ``argwhere``, ... non-diff.)
``sets``               ``unique_*``, NumPy's ``unique``, ``union1d``, ... (ties split equally)
``sorting``            ``sort``, NumPy's ``partition`` (and ``argsort``, ``lexsort``, non-diff.)
``statistical``        ``sum``, ``mean``, ``max``, ``var``, ``cumulative_sum``, ... and NumPy's
                       ``median``, ``quantile``, ``nanmax``, ``cov``, ``bincount``, ... (by topic)
``utility``            ``diff`` (and ``all``, ``any``, non-differentiable)
``linalg``             the ``linalg`` extension: norms, products, solvers, decompositions
``fft``                the ``fft`` extension
``operators``          Python's operators on arrays (``operator.add``, ``x @ y``, ...)
``torch_numpy``        torch's ``cov``, ``diag_embed``, ``nn.functional.pad``, ``eq``, ...
``scipy``              SciPy's ``special``, ``linalg``, ``signal`` (each library's own)
=====================  ================================================================

Importing this package registers every rule; ``import chainrules`` does it.
"""

from . import (  # noqa: F401
    creation,
    data_types,
    elementwise,
    fft,
    indexing,
    linalg,
    linear_algebra,
    manipulation,
    operators,
    polynomial,
    scipy,
    searching,
    sets,
    sorting,
    statistical,
    torch_numpy,
    utility,
)
