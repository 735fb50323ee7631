"""Rule sets, one module per section of the Array API standard (and its extensions).

=====================  ================================================================
module                 functions
=====================  ================================================================
``creation``           ``asarray``, ``full``, ``linspace``, ``meshgrid``, ``tril``, ...
``data_types``         ``astype`` (and the non-differentiable dtype queries)
``elementwise``        ``sin``, ``add``, ``clip``, ... (and NumPy's names for them)
``indexing``           ``x[key]``, ``take``, ``take_along_axis``
``linear_algebra``     ``matmul``, ``matrix_transpose``, ``tensordot``, ``vecdot``, ``einsum``
``manipulation``       ``reshape``, ``concat``, ``stack``, ``flip``, ``roll``, ...
``searching``          ``where`` (and ``argmax``, ``nonzero``, ... non-differentiable)
``sets``               ``unique_*`` (non-differentiable)
``sorting``            ``sort`` (and ``argsort``, non-differentiable)
``statistical``        ``sum``, ``mean``, ``max``, ``var``, ``cumulative_sum``, ...
``utility``            ``diff`` (and ``all``, ``any``, non-differentiable)
``linalg``             the ``linalg`` extension: norms, products, solvers, decompositions
``fft``                the ``fft`` extension
``operators``          Python's operators on arrays (``operator.add``, ``x @ y``, ...)
``scipy``              SciPy's functions (``scipy:linalg.expm``, ...), each library's SciPy
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
    scipy,
    searching,
    sets,
    sorting,
    statistical,
    utility,
)
