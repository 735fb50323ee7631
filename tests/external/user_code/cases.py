"""The functions of the user-code suite: unchanged functions of SciPy (``SCIPY_ARRAY_API=1``),
array-api-extra and scikit-learn (``array_api_dispatch=True``), each at one point.

A case is ``fn(x, *consts)``: ``x`` is differentiated, ``consts`` are passed as further
(non-differentiated) arguments, the documented way to give data to a traced function. Import
this module only after ``SCIPY_ARRAY_API=1`` is set (``run.py`` does it).
"""

from __future__ import annotations

import sklearn

from chainrules.testing.campaign.corpus import Case, library

sklearn.set_config(array_api_dispatch=True)

__all__ = ["CASES", "QUICK", "Case"]

# the cases live in the campaign's corpus, which checks them (and plain user code) with the
# campaign's relations: python -m chainrules.testing.campaign --source corpus
CASES: list[Case] = library()

# the subset the CI test runs (tests/external/test_user_code_suite.py): every library, passing
# and refused cells alike, JAX and finite-difference references
QUICK = frozenset(
    {
        "scipy.special.logsumexp",
        "scipy.special.log_softmax",
        "scipy.special.entr",
        "scipy.special.log_expit",
        "scipy.stats.zscore",
        "scipy.stats.skew",
        "scipy.stats.tvar",
        "scipy.stats.variation",
        "scipy.optimize.rosen_der",
        "scipy.spatial.distance.cosine",
        "array_api_extra.cov",
        "array_api_extra.pad",
        "array_api_extra.at.add",
        "sklearn.metrics.r2_score",
        "sklearn.preprocessing.StandardScaler.transform",
        "sklearn.metrics.pairwise.rbf_kernel",
    }
)
