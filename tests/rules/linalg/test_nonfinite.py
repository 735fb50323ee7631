"""Non-finite matrices on the SVD paths: no hang, and NaN where the result is undefined.

The full SVD (``gesdd`` with vectors) of a matrix holding an ``inf`` never returns in some
OpenBLAS builds, and raises ``LinAlgError`` at a NaN; ``svd(compute_uv=False)`` returns NaN at an
``inf``. Every rule that takes an SVD therefore takes it of a finite stand-in (non-finite entries
replaced by zero) and marks the results of non-finite matrices NaN, on the device, with no host
read. The probes run in a subprocess with a timeout, so a hang fails the test instead of hanging
the suite.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

_PROBE = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import chainrules as cr

    def summary(v):
        if isinstance(v, (tuple, list)):
            return [summary(e) for e in v]
        if isinstance(v, np.ndarray) or isinstance(v, np.generic):
            v = np.asarray(v)
            if v.dtype.kind in "fc":
                return "nan" if np.isnan(v).all() else "finite" if np.isfinite(v).all() else "mixed"
        return type(v).__name__

    one, t33 = np.float64(1.0), (cr.NoTangent(), np.ones((3, 3)))
    la = np.linalg
    cases = {
        "rrule(svdvals)": lambda a: cr.rrule(np.linalg.svdvals, a),
        "rrule(svdvals) pullback": lambda a: cr.rrule(np.linalg.svdvals, a)[1](np.ones(3))[1],
        "frule(svdvals)": lambda a: cr.frule(t33, la.svdvals, a),
        "det pullback": lambda a: cr.rrule(np.linalg.det, a)[1](one)[1],
        "matrix_norm(nuc) pullback": lambda a: cr.rrule(la.matrix_norm, a, ord="nuc")[1](one)[1],
        "matrix_norm(2) pullback": lambda a: cr.rrule(la.matrix_norm, a, ord=2)[1](one)[1],
        "matrix_norm(-2) pullback": lambda a: cr.rrule(la.matrix_norm, a, ord=-2)[1](one)[1],
        "norm(2) pullback": lambda a: cr.rrule(np.linalg.norm, a, 2)[1](one)[1],
        "cond pullback": lambda a: cr.rrule(np.linalg.cond, a)[1](one)[1],
        "frule(cond)": lambda a: cr.frule(t33, la.cond, a)[1],
        "rrule(svd, compute_uv=False)": lambda a: cr.rrule(np.linalg.svd, a, compute_uv=False)[0],
        "rrule(svd, full_matrices=False)": lambda a: cr.rrule(la.svd, a, full_matrices=False)[0],
        "rrule(svd)": lambda a: cr.rrule(np.linalg.svd, a)[0],
    }
    out = {}
    for value in sys.argv[1:]:
        a = np.random.default_rng(0).standard_normal((3, 3))
        a[0, 0] = float(value)
        for name, case in cases.items():
            print("start", value, name, file=sys.stderr, flush=True)
            try:
                out[f"{name} at {value}"] = summary(case(a))
            except Exception as exc:
                out[f"{name} at {value}"] = f"{type(exc).__name__}: {exc}"
    print(json.dumps(out))
    """
)


def _probe(*values: str) -> dict[str, object]:
    try:
        res = subprocess.run(
            [sys.executable, "-c", _PROBE, *values], capture_output=True, text=True, timeout=60
        )
    except subprocess.TimeoutExpired as exc:
        err = exc.stderr.decode() if isinstance(exc.stderr, bytes) else str(exc.stderr or "")
        started = [line for line in err.splitlines() if line.startswith("start")]
        pytest.fail(f"hung (60 s) at: {started[-1] if started else 'import'}")
    assert res.returncode == 0, res.stderr[-2000:]
    out: dict[str, object] = json.loads(res.stdout.splitlines()[-1])
    return out


# Where the primal is NumPy's own function and it raises at a NaN, the rule raises as it does.
# svd and svdvals, whose primals the rules take from the guarded SVD, give NaN instead of
# NumPy's LinAlgError (raising would need a host read of the input).
_NUMPY_RAISES_AT_NAN = ("matrix_norm", "norm(2)", "cond", "frule(cond)")


@pytest.mark.parametrize("value", ["inf", "-inf", "nan"])
def test_svd_paths_return_nan_at_a_non_finite_matrix(value: str) -> None:
    out = _probe(value)
    for name, got in out.items():
        if value == "nan" and name.startswith(_NUMPY_RAISES_AT_NAN):
            assert got == "LinAlgError: SVD did not converge", (name, got)
        elif name.startswith("rrule(svdvals) at"):  # (y, pullback): y NaN as NumPy's svdvals
            assert got == ["nan", "function"], (name, got)
        elif name.startswith("frule(svdvals)"):
            assert got == ["nan", "nan"], (name, got)
        elif name.startswith("rrule(svd)") or name.startswith("rrule(svd, full"):
            assert got == ["nan", "nan", "nan"], (name, got)
        else:
            assert got == "nan", (name, got)
