"""Run HIPS autograd's own test suite on chainrules.ad through the stand-in ``autograd``.

The suite is vendored under ``autograd_suite/`` (HIPS/autograd at commit ``bff107b``, MIT licence
in ``autograd_suite/LICENSE``); ``autograd_standin/`` is put first on ``sys.path`` so that
``import autograd`` finds the stand-in. Tests of autograd-only API are listed, with a reason
each, in ``not_applicable.txt`` and counted apart.

    python tests/external/run_autograd_suite.py [--plain] [--json F] [--failures] [pytest args]

prints ``passed / failed / not applicable`` and the pass rate of the applicable tests.
``--plain`` runs the suite with NumPy and SciPy themselves as ``autograd.numpy`` /
``autograd.scipy`` (and ``SCIPY_ARRAY_API=1``): code written with plain imports.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SUITE = HERE / "autograd_suite"
STANDIN = HERE / "autograd_standin"
NOT_APPLICABLE = HERE / "not_applicable.txt"
AUTOGRAD_COMMIT = "bff107b"  # HIPS/autograd, the vendored tests' commit

_PLUGIN = """
import json, os
_results = {}
def pytest_runtest_logreport(report):
    key = report.nodeid
    if report.when == "call" or report.outcome != "passed":
        if report.outcome == "failed":
            msg = str(report.longrepr).strip().splitlines()
            _results[key] = ("failed", msg[-1] if msg else "")
        elif key not in _results or _results[key][0] == "passed":
            _results[key] = (report.outcome, "")
def pytest_collectreport(report):
    if report.failed:  # a module that does not import: one failure under its name
        msg = str(report.longrepr).strip().splitlines()
        _results[report.nodeid + "::<collection>"] = ("failed", msg[-1] if msg else "")
def pytest_sessionfinish(session):
    with open(os.environ["CR_AG_RESULTS"], "w") as f:
        json.dump(_results, f)
"""


def not_applicable() -> list[tuple[str, str]]:
    """``(pattern, reason)`` rows of not_applicable.txt (fnmatch patterns of test ids)."""
    rows = []
    for line in NOT_APPLICABLE.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        pattern, _, reason = line.partition("  ")
        rows.append((pattern.strip(), reason.strip()))
    return rows


def run(pytest_args: list[str], plain: bool = False) -> dict[str, tuple[str, str]]:
    """Outcome and last message line per test id; ``plain``: the stand-in's ``autograd.numpy``
    and ``autograd.scipy`` are NumPy and SciPy themselves, with ``SCIPY_ARRAY_API=1``."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "cr_ag_plugin.py").write_text(_PLUGIN)
        out = Path(tmp) / "results.json"
        root = HERE.parent.parent
        env = dict(os.environ)
        env["CR_AG_RESULTS"] = str(out)
        if plain:
            env["CR_AG_PLAIN"] = env["SCIPY_ARRAY_API"] = "1"
        env["PYTHONPATH"] = os.pathsep.join(
            [str(STANDIN), str(SUITE), tmp, str(root), env.get("PYTHONPATH", "")]
        )
        cmd = [
            sys.executable, "-m", "pytest", "-q", "-p", "cr_ag_plugin", "-p", "no:cacheprovider",
            "-c", str(SUITE / "pytest.ini"), "--rootdir", str(SUITE), "-W", "ignore",
            "--tb=line", "-o", "console_output_style=classic", "--continue-on-collection-errors",
            *pytest_args,
        ]  # fmt: skip
        if not any(a.endswith(".py") or "::" in a for a in pytest_args):
            cmd += sorted(str(p) for p in SUITE.glob("test_*.py"))
        subprocess.run(
            cmd,
            env=env,
            cwd=SUITE,
            stdout=None if os.environ.get("CR_AG_VERBOSE") else subprocess.DEVNULL,
            check=False,
        )
        return json.loads(out.read_text()) if out.exists() else {}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the outcomes to this file")
    parser.add_argument("--failures", action="store_true", help="list the failed tests")
    parser.add_argument(
        "--plain",
        action="store_true",
        help="plain NumPy and SciPy in place of chainrules.ad.numpy / .scipy (SCIPY_ARRAY_API=1)",
    )
    args, rest = parser.parse_known_args()
    t0 = time.perf_counter()
    results = run(rest, plain=args.plain)
    na_rows = not_applicable()
    counts = {"passed": 0, "failed": 0, "skipped": 0, "not applicable": 0}
    failures = []
    for test_id, (outcome, msg) in sorted(results.items()):
        if any(fnmatch.fnmatchcase(test_id, p) for p, _ in na_rows):
            counts["not applicable"] += 1
        elif outcome == "passed":
            counts["passed"] += 1
        elif outcome == "skipped":
            counts["skipped"] += 1
        else:
            counts["failed"] += 1
            failures.append((test_id, msg))
    applicable = counts["passed"] + counts["failed"]
    rate = 100.0 * counts["passed"] / applicable if applicable else 0.0
    if args.failures:
        for test_id, msg in failures:
            print(f"FAILED {test_id}: {msg[:200]}")
    print(
        f"autograd suite @{AUTOGRAD_COMMIT} on chainrules.ad"
        f"{' with plain NumPy/SciPy' if args.plain else ''}: {counts['passed']} passed, "
        f"{counts['failed']} failed, {counts['not applicable']} not applicable, "
        f"{counts['skipped']} skipped; {rate:.1f}% of {applicable} applicable "
        f"({time.perf_counter() - t0:.0f} s)"
    )
    if args.json:
        Path(args.json).write_text(json.dumps({"counts": counts, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
