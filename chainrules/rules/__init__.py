"""Rule sets, one module per section of the Array API standard (and its extensions).

=====================  ================================================================
module                 functions
=====================  ================================================================
``creation``           ``asarray``, ``full``, ``linspace``, ``meshgrid``, ``tril``, ...
``data_types``         ``astype`` (and the non-differentiable dtype queries)
``elementwise``        ``sin``, ``add``, ``clip``, ... (and NumPy's names for them)
``elementwise_numpy``  NumPy's ``angle``, ``cross``, ``interp``, ``gradient``, ``trapezoid``, ...
``polynomial``         NumPy's ``convolve``, ``polyval``, ``polyfit``, ``roots``, ...
``indexing``           ``x[key]``, ``take``, ``take_along_axis``
``linear_algebra``     ``matmul``, ``matrix_transpose``, ``tensordot``, ``vecdot``, ``einsum``
``manipulation``       ``reshape``, ``concat``, ``stack``, ``flip``, ``roll``, ...
``manipulation_numpy`` NumPy's ``vstack``, ``split``, ``pad``, ``delete``, ``insert``, ...
``indexing_numpy``     NumPy's ``choose``, ``compress``, ``diag``, ``select``, ``put``, ...
``creation_numpy``     NumPy's ``logspace``, ``geomspace`` (and index builders, windows)
``searching``          ``where`` (and ``argmax``, ``nonzero``, ... non-differentiable)
``searching_numpy``    NumPy's ``partition`` (and ``argpartition``, ``argwhere``, ... non-diff.)
``sets``               ``unique_*`` (values differentiable; ties split equally)
``sets_numpy``         NumPy's ``unique``, ``union1d``, ``intersect1d``, ``setdiff1d``, ...
``sorting``            ``sort`` (and ``argsort``, non-differentiable)
``statistical``        ``sum``, ``mean``, ``max``, ``var``, ``cumulative_sum``, ...
``statistical_numpy``  NumPy's ``median``, ``quantile``, ``nanmax``, ``cov``, ``bincount``, ...
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
    creation_numpy,
    data_types,
    elementwise,
    elementwise_numpy,
    fft,
    indexing,
    indexing_numpy,
    linalg,
    linear_algebra,
    manipulation,
    manipulation_numpy,
    operators,
    polynomial,
    scipy,
    searching,
    searching_numpy,
    sets,
    sets_numpy,
    sorting,
    statistical,
    statistical_numpy,
    torch_numpy,
    utility,
)
