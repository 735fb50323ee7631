"""The package's public face: names, and what importing it costs."""

from __future__ import annotations

import subprocess
import sys

import chainrules as cr


def test_public_names_exist() -> None:
    for name in cr.__all__:
        assert hasattr(cr, name), name


# chainrules.interop.keras's dependencies: Keras and what it imports of its own (keras reads its
# backend from KERAS_BACKEND at import and then imports that engine)
KERAS_DEPENDENCIES = ("keras", "absl", "h5py", "namex", "optree", "rich")


def test_import_imports_no_engine() -> None:
    code = (
        "import sys, chainrules, chainrules.interop; "
        "print(sorted(m for m in ('jax', 'torch', 'cupy', 'autograd', 'hypothesis', "
        f"'array_api_strict', 'pytensor', 'pymc', *{KERAS_DEPENDENCIES!r}) if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
