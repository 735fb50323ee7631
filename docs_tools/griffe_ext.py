"""Griffe extension for the API reference (``mkdocs.yml``: ``docs_tools/griffe_ext.py:Docstrings``),
kept outside ``docs/`` so that the site does not ship it. It changes how docstrings are read, not
what they say:

* doctest examples written in a docstring's free text (outside a numpydoc ``Examples`` section)
  become ``pycon`` code blocks instead of Markdown quotes;
* Sphinx roles (``:func:`check_cotangent```, ``:class:`~chainrules.Tangent```, ``:data:``,
  ``:meth:``, ``:mod:``, ``:attr:``, ...) become code that links to the object where the reference
  documents it (an optional cross-reference: plain code where it does not) -- the docstrings
  keep their roles, and none shows as raw text;
* a name that a package re-exports from a submodule of the same name (``chainrules.scalar_rule``
  is ``chainrules.core.scalar_rule.scalar_rule``, which ``chainrules.core`` imports over its own
  submodule ``scalar_rule``) is documented as the function Python sees, not as the module.
"""

from __future__ import annotations

import html
import re
from typing import Any

_SECTION = re.compile(r"^-{3,}$")
ROLE = re.compile(
    r":(?:py:)?(?:func|class|meth|mod|data|attr|obj|exc|const|type|ref):`(?P<target>[^`]+)`"
)


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


def render_roles(text: str, resolve: Any = None) -> str:
    """Each Sphinx role as an optional autoref around the name in code: ``:func:`~a.b.f``` reads
    ``f`` and links to ``a.b.f``; ``resolve(name)`` gives the full path of a name relative to the
    docstring (``None``: keep the name as written)."""

    def one(m: re.Match[str]) -> str:
        target = m.group("target").strip()
        explicit = re.fullmatch(r"(?P<title>.+?)\s*<(?P<path>[^>]+)>", target)
        if explicit:
            title, path = explicit.group("title"), explicit.group("path")
        else:
            short = target.startswith("~")
            path = target.lstrip("~").rstrip(".()")
            title = path.rsplit(".", 1)[-1] if short else target.lstrip("~")
        path = path.lstrip("~").rstrip(".()")
        if resolve is not None:
            path = resolve(path) or path
        return (
            f'<autoref identifier="{html.escape(path)}" optional>'
            f"<code>{html.escape(title)}</code></autoref>"
        )

    return ROLE.sub(one, text)


try:  # the docs build has griffe; the test suite imports this module for its text functions
    import griffe
except ImportError:  # pragma: no cover
    pass
else:

    def _resolver(obj: griffe.Object) -> Any:
        def resolve(path: str) -> str | None:
            head, _, rest = path.partition(".")
            try:
                full = obj.resolve(head)
            except (griffe.NameResolutionError, AttributeError, KeyError):
                return None
            return f"{full}.{rest}" if rest else full

        return resolve

    def _unshadow(module: griffe.Module) -> None:
        """Point re-exports at the function a same-named submodule was shadowed by."""
        for name, member in list(module.members.items()):
            if member.is_alias:
                try:
                    target = member.final_target
                except (griffe.AliasResolutionError, griffe.CyclicAliasError):
                    continue
                if target.is_module and name in target.members:
                    inner = target.members[name]
                    if not inner.is_module and not inner.is_alias:
                        member.target = inner  # what ``from .x import x`` leaves
            elif member.is_module:
                _unshadow(member)

    class Docstrings(griffe.Extension):
        def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
            _unshadow(pkg)

        def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
            if obj.docstring is None:
                return
            text = obj.docstring.value
            if ">>>" in text:
                text = fence_doctests(text)
            if ":" in text and ROLE.search(text):
                text = render_roles(text, _resolver(obj))
            obj.docstring.value = text
