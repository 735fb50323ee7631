"""scipy.special's hypergeometric functions (hyp1f1, hyp2f1): every registration on every backend,
and hyp1f1 at a huge x (issue 26)."""

from __future__ import annotations

import numpy as np
import pytest

from chainrules.testing.suite import rule_tests

test_rule = rule_tests("chainrules.rules.scipy.special.hypergeometric")

sps = pytest.importorskip("scipy.special")


# --- issue 26: hyp1f1 at huge x ----------------------------------------------------------------
_HYP1F1_PROBE = """
import json, sys
import numpy as np, scipy.special as sp
import chainrules as cr
out = []
for a, b, x in json.loads(sys.argv[1]):
    x = np.asarray(x, dtype=np.float64)
    try:
        y, pb = cr.rrule(sp.hyp1f1, a, b, x)
        bars = pb(np.ones_like(y))
        out.append(["ok", np.asarray(y).tolist(), np.asarray(bars[3]).tolist()])
    except ValueError as e:
        out.append(["ValueError", str(e)])
print(json.dumps(out))
"""


def _hyp1f1_probe(cases):  # type: ignore[no-untyped-def]
    import json
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONWARNINGS="ignore")
    done = subprocess.run(
        [sys.executable, "-c", _HYP1F1_PROBE, json.dumps(cases)],
        capture_output=True,
        text=True,
        timeout=60,  # a hang fails the test instead of hanging the suite
        env=env,
        check=True,
    )
    return json.loads(done.stdout)


def test_hyp1f1_huge_x_is_a_value_error_not_a_hang() -> None:
    """SciPy's hyp1f1 takes time linear in a large x (13 s at 1e13) and never returns at
    x = inf: the rule raises a ValueError naming hyp1f1, x and the range before calling it."""
    from chainrules.rules.scipy.special.hypergeometric import HYP1F1_X_MAX

    inf = float("inf")
    refused = [
        [1.5, 2.5, inf],
        [1.5, 2.5, 1e13],
        [1.5, 2.5, 1e300],
        [0.5, -2.5, [1.0, inf]],  # one element is enough
        [2.5, 2.0, [[0.5], [1e15]]],
    ]
    for case, got in zip(refused, _hyp1f1_probe(refused), strict=True):
        assert got[0] == "ValueError", (case, got)
        assert got[1].startswith("hyp1f1: x = "), got[1]
        assert f"x must be <= {HYP1F1_X_MAX:g}" in got[1], got[1]


def test_hyp1f1_inside_the_range_is_scipys() -> None:
    """Below the bound, at -inf, NaN, and for a a non-positive integer (a polynomial, which
    SciPy evaluates at once, as the derivative's hyp1f1(a + 1, b + 1, x); a = 0 has
    derivative 0) the rule returns SciPy's value."""
    inf = float("inf")
    allowed = [
        [1.5, 2.5, [1e11, -inf, -1e15]],
        [-2.0, 2.5, [1e13, 1e300]],
        [0.0, 2.5, [1e13, inf]],
    ]
    got = _hyp1f1_probe(allowed)
    for (a, b, x), (status, y, x_bar) in zip(allowed, got, strict=True):
        assert status == "ok"
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(y, sps.hyp1f1(a, b, np.asarray(x)))
        if a == 0.0:
            np.testing.assert_array_equal(x_bar, [0.0, 0.0])
