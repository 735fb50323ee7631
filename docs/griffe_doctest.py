"""Griffe extension for the API reference: doctest examples written in a docstring's free text
(outside a numpydoc ``Examples`` section) become ``pycon`` code blocks instead of Markdown quotes."""

from __future__ import annotations

import re
from typing import Any

_SECTION = re.compile(r"^-{3,}$")


def fence_doctests(text: str) -> str:
    lines = text.split("\n")
    out: list[str] = []
    i, in_examples = 0, False
    while i < len(lines):
        line = lines[i]
        underlined = i + 1 < len(lines) and _SECTION.match(lines[i + 1].strip()) is not None
        if underlined and line.strip():
            in_examples = line.strip() == "Examples"  # griffe reads only this one as code
        if not in_examples and line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(indent + "```pycon")
            while i < len(lines) and lines[i].strip():
                out.append(lines[i])
                i += 1
            out.append(indent + "```")
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


try:  # the docs build has griffe; the test suite imports this module for fence_doctests alone
    import griffe
except ImportError:  # pragma: no cover
    pass
else:

    class DoctestBlocks(griffe.Extension):
        def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
            if obj.docstring is not None and ">>>" in obj.docstring.value:
                obj.docstring.value = fence_doctests(obj.docstring.value)
