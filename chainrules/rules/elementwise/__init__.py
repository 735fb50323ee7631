"""Rules for the standard's elementwise functions (``elementwise_functions``) and NumPy's, one
module per topic; each holds the standard's functions of its topic and NumPy's names beside them.

=================  ===================================================================
module             functions
=================  ===================================================================
``trigonometric``  ``sin``, ``atan2``, ``hypot``, ``tanh``, ... NumPy's ``deg2rad``, ``unwrap``
``exp_log``        ``exp``, ``expm1``, ``log``, ``log1p``, ``logaddexp``, ... NumPy's ``exp2``
``arithmetic``     ``add``, ``multiply``, ``divide``, ``pow``, ``sqrt``, ``remainder``, ...
                   NumPy's ``float_power``, ``cbrt``, ``fmod``, ``divmod``
``extrema``        ``maximum``, ``minimum``, ``clip``; NumPy's ``fmax``, ``fmin``
``rounding``       ``floor``, ``ceil``, ``trunc``, ``round``, ``nextafter``; NumPy's ``rint``,
                   ``fix``, ``modf``, ``frexp``, ``ldexp``, ``spacing``, ``nan_to_num``
``abs_sign``       ``abs``, ``sign``, ``copysign``; NumPy's ``fabs``, ``heaviside``
``complex_parts``  ``conj``, ``real``, ``imag``; NumPy's ``angle``, ``real_if_close``,
                   ``sort_complex``
``special``        NumPy's ``sinc``, ``i0``
``logic``          comparisons, predicates, logical and bitwise functions (non-differentiable);
                   NumPy's ``isclose``, ``gcd``, ``allclose``, ``packbits``, ...
``calculus``       NumPy's ``gradient``, ``ediff1d``, ``trapezoid``
``cross``          NumPy's ``cross``
``interp``         NumPy's ``interp``
=================  ===================================================================

Every NumPy name is registered as ``"numpy:NAME"`` (NumPy, ``jax.numpy`` and CuPy); the primal
is the library's own function. Helpers the modules share live in
:mod:`chainrules.rules._util.elementwise`.

Maths notes
-----------
* Holomorphic functions (``sin``, ``exp``, ``log``, ``pow``, ...) are ``scalar_rule``\\ s:
  ``x_bar = y_bar * conj(f'(x))`` and ``y_dot = f'(x) * x_dot``. For complex arguments that is the
  cotangent ``dL/dRe + i dL/dIm`` (ChainRules' and PyTorch's convention; JAX's is its conjugate).
* ``abs``, ``sign``, ``conj``, ``real`` and ``imag`` are not holomorphic and have rules of their
  own, written from ``dy = Re(conj(g) dz)``-style differentials.
* Kinks take the minimum-norm subgradient, never NaN: ``abs'(0) = 0``; ``hypot`` and ``atan2`` at
  the origin give 0; ``copysign(x, y)`` has derivative 0 in ``x`` at ``x = 0``;
  ``d pow(x, y) / dy = 0`` at ``x = 0``.
* Ties: ``maximum``/``minimum`` (and ``clip`` at its bounds, and ``fmax``/``fmin``) give half of the
  cotangent to each tied argument, as JAX does.
* Rounding functions (``floor``, ``ceil``, ``trunc``, ``round``, ``floor_divide``) and ``sign`` of a
  real argument have derivative zero: their pullbacks return ``ZeroTangent()``.
* Comparisons, logical and bitwise functions and predicates (``isnan``) are non-differentiable:
  ``NoTangent()`` for every argument.

Partials are functions ``(xp, out, *args)``; Python-float arguments arrive as 0-d arrays of the
output's dtype, so formulas can call ``xp`` functions on every argument.

Conventions at kinks of NumPy's functions beyond the standard: docs/rules/
numpy-elementwise-polynomial.md.
"""

from . import (  # noqa: F401
    abs_sign,
    arithmetic,
    calculus,
    complex_parts,
    cross,
    exp_log,
    extrema,
    interp,
    logic,
    rounding,
    special,
    trigonometric,
)
