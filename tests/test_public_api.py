"""The public API and the command line against a committed list (tests/public_api.json).

Issue 27's layout step moves code between files: the public names and the CLI stay as they are,
or change with a deprecation warning. A name added, removed or renamed, or a CLI option changed,
fails here until the list is regenerated on purpose (``python tests/test_public_api.py --write``)
and the change is named in the commit.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

LIST = Path(__file__).with_name("public_api.json")
MODULES = (
    "chainrules",
    "chainrules.ad",
    "chainrules.ad.builtins",
    "chainrules.ad.extend",
    "chainrules.interop",
    "chainrules.testing",
    "chainrules.testing.campaign",
)


def _cli() -> dict[str, list[str]]:
    """Each subcommand of ``python -m chainrules`` with its options (the first spelling of each)."""
    from chainrules.cli import build_parser

    parser = build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {
        name: sorted(a.option_strings[0] if a.option_strings else a.dest for a in sp._actions)
        for name, sp in sorted(subs.choices.items())
    }


def current() -> dict[str, Any]:
    names = {m: sorted(importlib.import_module(m).__all__) for m in MODULES}
    return {"__all__": names, "cli": _cli()}


def test_public_names_and_cli_are_the_committed_ones() -> None:
    want = json.loads(LIST.read_text())
    got = current()
    for m in MODULES:
        added = sorted(set(got["__all__"][m]) - set(want["__all__"].get(m, [])))
        removed = sorted(set(want["__all__"].get(m, [])) - set(got["__all__"][m]))
        assert not added and not removed, f"{m}.__all__: added {added}, removed {removed}"
    assert got["cli"] == want["cli"]


@pytest.mark.parametrize("module", MODULES)
def test_every_listed_name_is_there(module: str) -> None:
    mod = importlib.import_module(module)
    # a submodule listed in __all__ (chainrules.interop's engines) is imported on demand
    missing = [n for n in mod.__all__ if not hasattr(mod, n) and find_spec(f"{module}.{n}") is None]
    assert missing == []


def test_the_comparison_sees_a_removed_name(monkeypatch: pytest.MonkeyPatch) -> None:
    import chainrules

    monkeypatch.setattr(chainrules, "__all__", [n for n in chainrules.__all__ if n != "rrule"])
    with pytest.raises(
        AssertionError, match=r"chainrules.__all__: added \[\], removed \['rrule'\]"
    ):
        test_public_names_and_cli_are_the_committed_ones()


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    LIST.write_text(json.dumps(current(), indent=1, sort_keys=True) + "\n")
