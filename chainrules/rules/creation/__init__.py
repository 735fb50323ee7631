"""Rules for the standard's creation functions (``creation_functions``) and NumPy's, by topic.

==============  ===================================================================================
module          functions
==============  ===================================================================================
``ranges``      ``arange``, ``linspace``, ``meshgrid``; NumPy's ``logspace``, ``geomspace``,
                ``ix_``, ``indices``
``filled``      ``full``, ``full_like``, ``zeros``, ``ones``, ``empty``, ``eye`` and their
                ``*_like``; NumPy's ``identity``
``conversion``  ``asarray``, ``from_dlpack``; NumPy's ``array``, ``fromiter``
``matrices``    ``tril``, ``triu``; NumPy's ``tri`` and the index builders ``tril_indices``, ...
``windows``     NumPy's ``kaiser`` (differentiable in ``beta``), ``hanning``, ``hamming``, ...
==============  ===================================================================================

Each module holds the standard's functions of its topic and NumPy's (``"numpy:NAME"``). Which
library computes a call without array arguments: :mod:`chainrules.rules._util.creation`.
"""

from . import conversion, filled, matrices, ranges, windows  # noqa: F401
