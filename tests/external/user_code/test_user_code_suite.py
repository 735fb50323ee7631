"""The user-code suite's quick subset (``run.py --quick``) on chainrules.ad: the pass count of
each backend x transformation must not fall below the one measured when it was last raised.

``run.py`` runs in a subprocess: SciPy reads ``SCIPY_ARRAY_API=1`` once, at its import, and other
tests of this session import SciPy without it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

# measured with `run.py --quick` (16 functions) at the commit that set them
FLOOR = {
    "numpy": {"grad": 14, "jacobian(fwd)": 14, "hessian": 14},
    "array_api_strict": {"grad": 13, "jacobian(fwd)": 13, "hessian": 13},
    "torch": {"grad": 13, "jacobian(fwd)": 13, "hessian": 13},
    "device": {"grad": 4, "jacobian(fwd)": 4, "hessian": 4},
}


def test_user_code_suite_pass_counts(tmp_path: Path) -> None:
    for module in ("sklearn", "jax", "torch", "array_api_strict", "array_api_extra"):
        pytest.importorskip(module)
    out = tmp_path / "results.json"
    subprocess.run(
        [sys.executable, str(HERE / "run.py"), "--quick", "--json", str(out)],
        check=True,
        capture_output=True,
    )
    counts = json.loads(out.read_text())["counts"]
    passed = {b: {t: c.get("pass", 0) for t, c in per.items()} for b, per in counts.items()}
    low = {
        (b, t): (passed[b][t], floor)
        for b, per in FLOOR.items()
        for t, floor in per.items()
        if passed[b][t] < floor
    }
    assert not low, f"(backend, transformation): (passed, floor) {low}"
