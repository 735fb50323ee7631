"""The population: every program, its source, category, spelling and half.

A :class:`Program` is a function of one parameter array ``x`` (its first argument) and constant
arrays (the data), at a fixed point. Its function is taken from a source file loaded for each
engine (:mod:`._load`), or, for the registry-generated programs, built from the registry for
each engine (:mod:`.registry`).
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ._load import load

WRITTEN_HERE = "written here"
GENERATED = "chainrules.testing.campaign (registry-generated)"

# category -> minimum share of the population (checked by tests/benchmarks/test_population.py)
CATEGORIES: dict[str, float] = {
    "test function": 0.40,  # optimisation test functions
    "loss": 0.05,  # losses of predictions against targets
    "likelihood": 0.03,  # log-likelihoods with linear algebra (solve, cholesky, slogdet)
    "small model": 0.05,  # MLP, logistic regression, GP, RNN
    "indexing": 0.04,  # code that indexes or writes: x[i], x[1:] - x[:-1], out[...] = ...
    "registry": 0.08,  # generated from the registry (chainrules.testing.campaign)
}
MIN_PUBLIC = 0.5  # the share of programs whose source is public code that others wrote


@dataclass(frozen=True)
class Program:
    """One program: ``function(engine)(x, *consts)``, ``x = args[0]``.

    ``source`` is ``"owner/repo:path"`` of a public project's file, or ``"written here"``;
    ``family`` names a model written in several spellings (the spelling report), ``spelling``
    the program's spelling group; ``output`` is ``"scalar"`` (grad and hessian) or ``"vector"``
    (jacobian)."""

    name: str
    category: str
    source: str
    licence: str
    args: tuple[Any, ...] = field(repr=False)
    module: str | None = None  # the source file (dotted) whose loads give the function
    entry: Callable[[Any], Callable[..., Any]] | None = field(default=None, repr=False)
    build: Callable[[str], Callable[..., Any]] | None = field(default=None, repr=False)
    spelling: str = ""
    family: str | None = None
    output: str = "scalar"
    note: str = ""

    def function(self, engine: str) -> Callable[..., Any]:
        """The program's function with NumPy resolved for ``engine`` (``"numpy"``,
        ``"autograd"`` or ``"torch"``)."""
        if self.build is not None:
            return self.build(engine)
        assert self.module is not None and self.entry is not None
        return self.entry(load(self.module, engine))

    @property
    def public(self) -> bool:
        return self.source not in (WRITTEN_HERE, GENERATED)

    @property
    def half(self) -> str:
        return half(self.name)


def half(name: str) -> str:
    """``"dev"`` or ``"held-out"``: the first byte of sha256 of the program's name, even or odd
    (fixed: never tuned, never re-drawn)."""
    return "dev" if hashlib.sha256(name.encode()).digest()[0] % 2 == 0 else "held-out"


# --- spelling groups, read from the function's own source ----------------------------------------
_SPELLINGS = [
    ("@", re.compile(r"[\w\)\]]\s*@\s*[\w\(]")),
    ("np.dot", re.compile(r"\bdot\(")),
    ("einsum", re.compile(r"\beinsum\(")),
    ("x**2", re.compile(r"\*\*\s*2(?![\d.])")),
    ("x*x", re.compile(r"\b(\w+(?:\[[^\]]*\])?)\s*\*\s*\1\b(?!\s*\()")),
    ("np.square", re.compile(r"\bsquare\(")),
    ("sum(axis=)", re.compile(r"\bsum\([^)]*axis\s*=")),
    ("method", re.compile(r"\)?\.(sum|mean|dot|prod|max|min|std|var|T|reshape|ravel)\b")),
    ("index", re.compile(r"\w\[[^\]]+\]")),
    ("write", re.compile(r"\w\[[^\]]+\]\s*[-+*/]?=[^=]")),
]


def spelling_of(fn: Callable[..., Any]) -> str:
    """The spelling group of a function: the spellings its source uses, joined by ``,``."""
    try:
        src = inspect.getsource(fn)
    except (OSError, TypeError):
        return ""
    body = src.split(":", 1)[1] if ":" in src else src
    tags = [tag for tag, pat in _SPELLINGS if pat.search(body)]
    return ",".join(tags) or "plain"


# --- the population ------------------------------------------------------------------------------
SOURCES = (
    "benchmarks.population.sources.scipy_go_programs",
    "benchmarks.population.sources.autograd_examples",
    "benchmarks.population.sources.nevergrad_functions",
    "benchmarks.population.sources.written_here",
    "benchmarks.population.registry",
)

_POPULATION: list[Program] | None = None


def population() -> list[Program]:
    """Every program, in a fixed order (built once per process)."""
    global _POPULATION
    if _POPULATION is None:
        out: list[Program] = []
        for mod in SOURCES:
            out.extend(importlib.import_module(mod).programs())
        names = [p.name for p in out]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ValueError(f"population: duplicate program names {sorted(dup)}")
        _POPULATION = out
    return _POPULATION


def from_table(module: str, table: list[dict[str, Any]], **common: Any) -> list[Program]:
    """Programs from a source file's ``PROGRAMS`` table: each row names its function (``fn``,
    an attribute of the file, looked up in each engine's load), its arguments (``args``, a
    function of no arguments giving NumPy arrays, called in the NumPy load only) and its
    category; ``common`` gives the source and licence shared by the rows."""
    mod = load(module, "numpy")
    out = []
    for row in table:
        row = {**common, **row}
        fn_name = row.pop("fn")
        spelling = row.pop("spelling", None) or spelling_of(getattr(mod, fn_name))
        out.append(
            Program(
                module=module,
                entry=lambda m, a=fn_name: getattr(m, a),
                spelling=spelling,
                args=tuple(row.pop("args")()),
                **row,
            )
        )
    return out
