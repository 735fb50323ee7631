"""Collection at the repository root: the doctests of an engine bridge (``chainrules/interop/``)
are collected only where its engine is installed, so that ``python -m pytest`` in an environment
without an optional extra (``pytensor``, ``jax``, ...) runs the rest instead of stopping at the
bridge's import. The bridges' tests skip themselves the same way (``pytest.importorskip``)."""

from __future__ import annotations

import importlib.util

_BRIDGES = {"jax": "jax", "torch": "torch", "autograd": "autograd", "pytensor": "pytensor"}

collect_ignore = [
    f"chainrules/interop/{bridge}.py"
    for bridge, engine in _BRIDGES.items()
    if importlib.util.find_spec(engine) is None
]
