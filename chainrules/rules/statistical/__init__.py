"""Rules for the standard's statistical functions (``statistical_functions``) and NumPy's, one
module per topic, each holding the standard's functions and NumPy's of that topic.

==============  =================================================================================
module          functions
==============  =================================================================================
``sums``        ``sum``, ``mean``; NumPy's ``nansum``, ``nanmean``, ``average``
``products``    ``prod``; NumPy's ``nanprod``
``extrema``     ``max``/``amax``, ``min``/``amin``; NumPy's ``ptp``, ``nanmax``, ``nanmin``
``variance``    ``var``, ``std``; NumPy's ``nanvar``, ``nanstd``
``cumulative``  ``cumulative_sum``/``cumsum``, ``cumulative_prod``/``cumprod``; NumPy's
                ``nancumsum``, ``nancumprod``
``quantiles``   NumPy's ``median``, ``quantile``, ``percentile`` and their NaN forms
``covariance``  NumPy's ``cov``, ``corrcoef``
``histograms``  NumPy's ``bincount``, ``histogram``, ``histogram2d``, ``histogramdd``,
                ``histogram_bin_edges``, ``digitize``
==============  =================================================================================

The standard's reductions (``sum``, ``mean``, ``prod``, ``max``, ``min``, ``var``, ``std``) are
registered twice: under the standard's name with its keyword-only signature, and under
``"numpy:NAME"`` with NumPy's (``axis`` positional, ``dtype``, ...). The positional arguments after
the array are never differentiated; ``out=`` and ``where=`` are rejected. (``cumulative``'s
registrations are described in that module.)

The helpers several of them share (binding a reduction's call, registering under both names,
``cov``'s variables) are in :mod:`chainrules.rules._util.statistical`.
"""

from . import (  # noqa: F401
    covariance,
    cumulative,
    extrema,
    histograms,
    products,
    quantiles,
    sums,
    variance,
)
