"""Rules for indexing: ``x[key]`` and the standard's ``indexing_functions``, with NumPy's indexing
functions beside them. Every one is a gather (its pullback a ``scatter_add``).

=============  =================================================================================
module         functions
=============  =================================================================================
``getitem``    ``operator.getitem`` (``x[key]``), ``take``, ``take_along_axis`` (and NumPy's
               signatures of the two)
``selecting``  NumPy's ``choose``, ``compress``, ``extract``, ``diag``, ``diagflat``, ``select``
               (and ``unravel_index``, ``ravel_multi_index``, non-differentiable)
``inserting``  NumPy's ``put``, ``place``, ``put_along_axis``, ``fill_diagonal`` (the functional
               calls, ``inplace=False``)
=============  =================================================================================
"""

from . import getitem, inserting, selecting  # noqa: F401
