"""The campaign's corpus of user code (``chainrules.testing.campaign.corpus``), all of it.

``python -m chainrules.testing.campaign --source corpus`` checks every entry with the native
relations (argument against closure, ``grad``/``vjp``/``jvp``/both Jacobians, the Hessian,
finite differences, purity). It runs in a subprocess: SciPy reads ``SCIPY_ARRAY_API=1`` once, at
its import, and other tests of this session import SciPy without it. What it finds is compared
with ``campaign_findings.json``'s ``corpus`` keys, as ``test_campaign.py`` does for generated
programs: a new wrong value fails, a listed one that is right now fails (remove it), and the
count of clear errors may only fall.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import chainrules as cr

HERE = Path(__file__).parent
FINDINGS = HERE / "campaign_findings.json"

pytest.importorskip("sklearn")
pytest.importorskip("scipy")
pytest.importorskip("array_api_extra")


def _key(outcome: dict[str, Any]) -> str:
    name = outcome["program"].split(" [", 1)[0]  # "corpus <entry name>"
    return f"{name} {outcome['engine']} {outcome['transform']} {outcome['relation']}"


def test_corpus_against_findings(tmp_path: Path) -> None:
    """``--source all`` (two generated programs, then the whole corpus in a process of its own,
    which sets ``SCIPY_ARRAY_API=1``): the corpus's outcomes against the findings."""
    env = {k: v for k, v in os.environ.items() if k != "SCIPY_ARRAY_API"}
    cmd = [sys.executable, "-m", "chainrules.testing.campaign", "--source", "all"]
    cmd += ["--seeds", "0:2", "--engines", "native", "--json", str(tmp_path / "out.json")]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    out = tmp_path / "out-corpus.json"  # the corpus's, next to the generated programs'
    assert out.exists() and (tmp_path / "out.json").exists(), r.stdout[-3000:] + r.stderr[-3000:]
    assert "2 programs in" in r.stdout
    outcomes = json.loads(out.read_text())
    findings = json.loads(FINDINGS.read_text())
    declared = set(findings["wrong"].get("corpus", {}))
    wrong = {_key(o): o["detail"] for o in outcomes if o["status"] == "wrong"}
    new = {k: v for k, v in wrong.items() if k not in declared}
    fixed = sorted(declared - set(wrong))
    assert not new, f"{len(new)} new wrong values: {new}"
    assert not fixed, f"listed in campaign_findings.json but right now (remove them): {fixed}"
    errors = sum(1 for o in outcomes if o["status"] == "error")
    most = findings["errors"]["corpus"]
    assert errors <= most, f"corpus: {errors} errors, more than the recorded {most}"
    if errors < most and os.environ.get("CHAINRULES_CAMPAIGN_STRICT"):
        pytest.fail(f"corpus: {errors} errors, fewer than {most}: lower the recorded count")
    assert "| native | grad |" in r.stdout and "corpus entries" in r.stdout, r.stdout[-3000:]


def test_corpus_size_and_coverage() -> None:
    """At least 60 entries, and the user code the issue names: in-place writes, list operands,
    Python scalars, boolean masks, SciPy and scikit-learn, every signature."""
    from chainrules.testing.campaign.corpus import USER, entries

    es = entries()
    assert len(es) >= 60
    assert len({e.name for e in es}) == len(es)
    tags = [t for e in USER for t in e.tags]
    for t in ("in-place", "list operand", "python scalar", "mask", "scipy", "sklearn"):
        assert tags.count(t) >= 3, (t, tags.count(t))
    sigs = {e.signature for e in es}
    assert sigs == {"args", "kwarg", "tuple", "dict"}


def test_a_wrong_rule_turns_corpus_cells_red(clean_registry: object) -> None:
    """The corpus's relations can fail: a user's function whose registered pullback is 2x the
    derivative disagrees with finite differences, in a corpus entry as in a generated program."""
    from chainrules.testing.campaign.corpus import Entry, program
    from chainrules.testing.campaign.oracles import check

    @cr.traceable
    def softplus(x: Any) -> Any:
        return np.logaddexp(x, 0.0)

    @cr.register_rrule(softplus)
    def _bad(x: Any) -> Any:
        def pb(y_bar: Any) -> Any:
            return cr.NoTangent(), 2 * cr.unthunk(y_bar) / (1 + np.exp(-x))

        return softplus(x), pb

    def user_code(x: Any, d: Any) -> Any:
        out = x.copy()
        out[1:] += softplus(x[:-1]) * d
        return out

    e = Entry("softplus_user", user_code, np.array([0.3, -1.2, 0.7]), np.array([0.5, 2.0]))
    red = {o.relation for o in check(program(e), ()) if o.status == "wrong"}
    assert "fd" in red, red


def test_a_hermitian_d_is_compared_along_hermitian_directions() -> None:
    """``multivariate_normal.logpdf(x, cov=d)``: SciPy reads one triangle of ``cov``, so its
    derivative in ``d`` is defined along symmetric directions only, and chainrules' cotangent is
    the symmetric representative (DESIGN). The entry declares ``hermitian_d``: compared along
    symmetric directions it agrees with finite differences; along any direction (the flag off)
    the finite difference reads SciPy's triangle and the cell is red."""
    import dataclasses

    pytest.importorskip("scipy.stats")
    from chainrules.testing.campaign.corpus import USER, program
    from chainrules.testing.campaign.oracles import check

    (e,) = [e for e in USER if e.name == "multivariate_normal_logpdf"]
    assert e.hermitian_d
    bad = {(o.relation, o.status) for o in check(program(e), ()) if o.status == "wrong"}
    assert not bad, bad
    off = dataclasses.replace(e, hermitian_d=False)
    red = {o.relation for o in check(program(off), ()) if o.status == "wrong"}
    assert "fd" in red, red
