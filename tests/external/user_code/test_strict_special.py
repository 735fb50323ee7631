"""SciPy's ``digamma`` and ``gammaln`` on array-api-strict arrays through chainrules.ad, to second
order: their derivatives (``polygamma``, from ``chainrules/rules/_util/special.py``) made a NumPy
scalar constant, which turned array-api-strict arrays into NumPy ones (issue 10).

In a subprocess: SciPy reads ``SCIPY_ARRAY_API=1`` once, at its import, and other tests of this
session import SciPy without it.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

_CODE = """
import numpy as np, array_api_strict as xps, scipy.special as sp
from array_api_compat import array_namespace
from chainrules import ad
x = np.array([0.5, 1.5, 2.5])
xs = xps.asarray(x, dtype=xps.float64)
p1, p2 = sp.polygamma(1, x), sp.polygamma(2, x)
for fn, d1, d2, d3 in ((sp.digamma, p1, p1, p2), (sp.gammaln, sp.digamma(x), sp.digamma(x), p1)):
    f = lambda v, fn=fn: array_namespace(v).sum(fn(v))
    g = ad.grad(f)(xs)
    j = ad.jacobian(fn, mode="fwd")(xs)
    h = ad.hessian(f)(xs)
    assert all(type(r) is type(xs) for r in (g, j, h)), [type(r) for r in (g, j, h)]
    np.testing.assert_allclose(np.asarray(g), d1, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(j), np.diag(d2), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(h), np.diag(d3), rtol=1e-12, atol=1e-14)
print("ok")
"""


def test_digamma_and_gammaln_on_array_api_strict() -> None:
    for module in ("scipy", "array_api_strict"):
        pytest.importorskip(module)
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    r = subprocess.run(
        [sys.executable, "-c", _CODE], env=env, capture_output=True, text=True, check=False
    )
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stderr[-3000:]
