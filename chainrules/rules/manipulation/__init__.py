"""Rules for the standard's manipulation functions (``manipulation_functions``), with NumPy's
names and signatures for them and NumPy's manipulation functions beside them, one module per
topic (the sections of NumPy's "Array manipulation routines"):

================  ===============================================================================
module            functions
================  ===============================================================================
``reshaping``     ``reshape``, ``squeeze``, ``expand_dims``; NumPy's ``ravel``, ``atleast_1d``,
                  ``atleast_2d``, ``atleast_3d``, ``copy``
``reordering``    ``permute_dims``, ``moveaxis``, ``flip``, ``roll``; NumPy's ``transpose``,
                  ``swapaxes``, ``rollaxis``, ``fliplr``, ``flipud``, ``rot90``
``broadcasting``  ``broadcast_to``, ``broadcast_arrays``
``tiling``        ``repeat``, ``tile``
``joining``       ``concat``, ``stack``; NumPy's ``concatenate``, ``vstack``, ``hstack``,
                  ``dstack``, ``column_stack``, ``row_stack``, ``block``
``splitting``     ``unstack``; NumPy's ``split``, ``array_split``, ``hsplit``, ``vsplit``,
                  ``dsplit``
``resizing``      NumPy's ``append``, ``insert``, ``delete``, ``pad``, ``resize``, ``trim_zeros``
================  ===============================================================================

Every rule of the standard's functions takes the standard's signature, and, registered under
``"numpy:NAME"``, NumPy's (positional axes, ``axis=None`` defaults, ``order="C"`` only; ``out=``,
``subok=True``, ``dtype=`` and ``casting=`` are rejected with a ``TypeError``). Shared helpers:
:mod:`chainrules.rules._util.shape` (linear maps) and :mod:`chainrules.rules._util.gather`
(NumPy's functions, every one a gather).
"""

from . import (  # noqa: F401  (registers the rules, in this order)
    broadcasting,
    joining,
    reordering,
    reshaping,
    resizing,
    splitting,
    tiling,
)
