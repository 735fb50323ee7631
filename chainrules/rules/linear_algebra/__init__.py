"""Rules for the standard's linear algebra functions (``linear_algebra_functions``), each also
registered under the ``linalg`` extension's name, and NumPy's product names beside them.

* :mod:`.matmul` -- ``matmul``, ``matrix_transpose``, NumPy's ``matvec`` and ``vecmat``;
* :mod:`.tensordot` -- ``tensordot``, ``vecdot``, NumPy's ``tensordot``, ``dot``, ``inner``,
  ``vdot``;
* :mod:`.einsum` -- NumPy's ``einsum`` and ``kron``.

The helpers they share with the ``linalg`` products are in :mod:`chainrules.rules._util.products`.
"""

from . import einsum, matmul, tensordot  # noqa: F401
