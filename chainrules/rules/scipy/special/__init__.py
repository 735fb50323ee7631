"""Rules for ``scipy.special``: every function that ``jax.scipy.special`` has, registered as
``"scipy:special.NAME"`` for each library's own version -- ``scipy.special``,
``jax.scipy.special``, ``cupyx.scipy.special`` and, where the signature is SciPy's,
``torch.special``; and the rest of autograd's table, which only SciPy and CuPy have (``jv``,
``yn``, ``iv``, ``ive``, ``j0``, ``j1``, ``y0``, ``y1``, ``rgamma``, ``erfcinv``).

Each rule calls the very function it was found for (SciPy's, JAX's, CuPy's or PyTorch's) for the
primal, and builds its derivative from namespace operations and the *same library's* special
functions (``d gammaln = digamma``: ``scipy.special.digamma`` for SciPy's ``gammaln``,
``torch.special.digamma`` for PyTorch's), so a pullback stays on the arrays' device and inside a
``jax.jit`` trace. ``logsumexp``, ``softmax`` and ``log_softmax`` compute with namespace operations
(SciPy's own versions write in place and convert with ``np.asarray``).

Conventions (see ``docs/rules/scipy-special.md``):

* integer orders and counts (``polygamma``'s and ``expn``'s ``n``, ``multigammaln``'s ``d``,
  ``sph_harm_y``'s ``n`` and ``m``, ``bessel_jn``'s ``v``) have no tangent space: ``NoTangent()``;
* a derivative with no closed form in the libraries (``gammainc``/``gammaincc`` in ``a``,
  ``betainc`` in ``a`` and ``b``, ``zeta`` in ``x``, ``hyp1f1``/``hyp2f1`` in their parameters) is
  returned as a ``Thunk`` that raises ``NotImplementedError`` naming the function and the argument
  when it is forced -- only an engine that needs that cotangent forces it; an frule given a nonzero
  tangent for such an argument raises at once;
* keyword arguments are never differentiated (the contract); ``out=`` is refused.

The shared machinery (``elementwise``, the partials' context ``_Ctx``, ``MISSING``,
``ZERO_PARTIAL``, SciPy's formulas for its ``np.asarray`` functions) is in
``chainrules/rules/_util/special.py``.

==================  ============================================================================
module              functions
==================  ============================================================================
``error_functions`` ``erf``, ``erfc``, ``erfcx``, ``erfinv``, ``erfcinv``, ``dawsn``, ``wofz``,
                    ``ndtr``, ``log_ndtr``, ``ndtri``, ``owens_t``, ``fresnel``
``gamma``           ``gamma``, ``gammaln``, ``digamma``, ``polygamma``, ``beta``, ``betaln``,
                    ``poch``, ``comb``, ``gammainc``, ``betainc``, ``zeta``, ... ``bernoulli``
``bessel``          ``i0``, ``i0e``, ``i1``, ``i1e``, ``j0``, ``j1``, ``y0``, ``y1``, ``jv``,
                    ``yn``, ``iv``, ``ive``
``convenience``     ``expit``, ``log_expit``, ``logit``, ``entr``, ``rel_entr``, ``kl_div``,
                    ``xlogy``, ``xlog1py``, ``boxcox``, ``boxcox1p``
``integrals``       ``exp1``, ``expi``, ``expn``, ``sici``, ``spence``
``hypergeometric``  ``hyp1f1``, ``hyp2f1``
``legendre``        ``sph_harm_y``
``reductions``      ``logsumexp``, ``softmax``, ``log_softmax``
==================  ============================================================================
"""

from ....core.registry import register_namespace

# The torch.special functions whose positional signature, defaults and meaning are SciPy's.
# Left out: softmax/log_softmax/logsumexp (``dim`` is required: SciPy's ``axis=None`` default
# reduces over everything), multigammaln (its second argument is called ``p``, not ``d``), and the
# functions SciPy has not (bessel_j0, chebyshev_polynomial_t, ...). zeta is in: torch's needs
# ``q`` (Hurwitz's zeta), as every differentiable call does.
TORCH_NAMES = frozenset(
    {
        "digamma",
        "entr",
        "erf",
        "erfc",
        "erfcx",
        "erfinv",
        "expit",
        "gammainc",
        "gammaincc",
        "gammaln",
        "i0",
        "i0e",
        "i1",
        "i1e",
        "log_ndtr",
        "logit",
        "ndtr",
        "ndtri",
        "polygamma",
        "xlog1py",
        "xlogy",
        "zeta",
    }
)
register_namespace("torch.special", "scipy", names=TORCH_NAMES, prefix="special.", library="torch")

# the rules are registered after torch.special's names, as they were before the split
from . import (  # noqa: E402, F401
    bessel,
    convenience,
    error_functions,
    gamma,
    hypergeometric,
    integrals,
    legendre,
    reductions,
)
