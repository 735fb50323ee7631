"""Rules for the standard's linear algebra functions (``linear_algebra_functions``), each also
registered under the ``linalg`` extension's name, and NumPy's product names beside them.

* :mod:`.matmul` -- ``matmul``, ``matrix_transpose``, NumPy's ``matvec`` and ``vecmat``;
* :mod:`.tensordot` -- ``tensordot``, ``vecdot``, NumPy's ``tensordot``, ``dot``, ``inner``,
  ``vdot``;
* :mod:`.einsum` -- NumPy's ``einsum`` and ``kron``.

Maths notes (all modules)
-------------------------
Every function here is linear in each operand, so a cotangent is the *adjoint* contraction of the
output cotangent with the other operand(s), and a tangent is the sum, over the operands, of the
function applied with that operand's tangent in its place. Complex operands follow the library's
convention (``x_bar = dL/dRe x + i dL/dIm x``): the adjoint of a holomorphic contraction contracts
with the *conjugated* other operands.

Second derivatives: every pullback is built only from functions with rules of their own
(``matmul``, ``matrix_transpose``, ``tensordot``, ``einsum``, ``conj``, ``sum``, ``reshape``,
``permute_dims``, ``broadcast_to``, ``multiply``, and the constant ``eye``), with no host reads, so
an engine can differentiate it again. ``conj`` is skipped for real arrays (a dtype check on host
metadata), which changes no value.

Degenerate cases: zero-size axes give zero-size or all-zero cotangents; integer and boolean
operands get ``NoTangent()``; a real operand meeting a complex one gets the real part (projection).
``out=`` is rejected.

Layout: each rule reads top to bottom -- bind the call (``signature``), compute the primal, build
the projectors, a named pullback decorated with ``@pullback``, the frule beside it (its tangents
from ``tangents_in``), the registration right there.

The helpers they share with the ``linalg`` products are in :mod:`chainrules.rules._util.products`.
"""

from . import einsum, matmul, tensordot  # noqa: F401
