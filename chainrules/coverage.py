"""Which functions of the Array API standard have rules: ``python -m chainrules coverage``.

The list of functions is read from the installed ``array_api_strict`` -- the standard's reference
implementation -- not written by hand: every callable of its ``__all__`` and of its ``linalg`` and
``fft`` extensions, grouped by the section of the standard that defines it (its defining module).
``array_api_strict``'s own configuration functions (``set_array_api_strict_flags``, ...) are not
the standard's and are left out.

Each function gets a status, found by looking up the rules of *array_api_strict's own function
object* (so a rule that exists but does not reach the standard's function counts as missing):

* ``rrule+frule`` -- differentiable, both modes (``rrule only`` / ``frule only`` when one lacks);
* ``non-differentiable`` -- declared with ``chainrules.non_differentiable`` (comparisons,
  ``argmax``, ``unique_values``, ...): engines stop there instead of failing;
* ``no array output`` -- inspection functions that take or return no arrays (``finfo``,
  ``can_cast``, ``broadcast_shapes``, ...), nothing to differentiate;
* ``missing``.

``python -m chainrules coverage --against numpy|scipy|jax|autograd`` measures against another
library's own public lists instead, read from the installed library at run time (``ANCHORS``):

* ``numpy``: the functions and ufuncs of ``numpy.__all__``, ``numpy.linalg`` and ``numpy.fft``
  (not classes, scalar types, constants, submodules or index builders such as ``np.r_``);
* ``scipy``: ``scipy.special``'s and ``scipy.linalg``'s public functions, one section each;
* ``jax``: ``jax.numpy``'s public functions with its ``linalg`` and ``fft``; ``jax.scipy.special``;
  ``jax.scipy.linalg`` (three sections);
* ``autograd``: HIPS autograd's VJP table (``autograd.core.primitive_vjps`` once
  ``autograd.numpy`` and ``autograd.scipy.*`` are imported), each primitive mapped to the NumPy or
  SciPy function it wraps, one section per NumPy/SciPy module; autograd's internals are named as
  left out.

A name's status comes from the anchor's own function (``jax.numpy.sin``) or, if that has no rule,
from its NumPy/SciPy counterpart of the same name (``numpy.sin``), looked up by function object;
``no array output`` is decided by name from the short category list
``NO_ARRAY_OUTPUT_CATEGORIES`` (printing, file I/O, dtype queries, shape and type queries,
configuration, function builders), and a missing name gets a reason (``MISSING_REASONS``).
"""

from __future__ import annotations

import importlib
import inspect
import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from typing import Any, TextIO

from .core.registry import (
    ARRAY_API,
    find_frule,
    find_rrule,
    registration_of,
    registrations,
)

__all__ = [
    "ANCHORS",
    "AnchorEntry",
    "AnchorMissing",
    "Entry",
    "anchor_coverage",
    "coverage",
    "write_anchor_json",
    "write_anchor_markdown",
    "write_anchor_table",
    "write_json",
    "write_markdown",
    "write_table",
]

# Functions of the standard that neither take nor return arrays of numbers (they answer questions
# about dtypes, shapes and the namespace): the standard's "data type functions" except astype and
# the broadcasts, and the inspection API.
NO_ARRAY_OUTPUT = frozenset(
    ("can_cast", "finfo", "iinfo", "isdtype", "result_type", "broadcast_shapes")
)
_SECTIONS = {  # array_api_strict's module -> the standard's section
    "_creation_functions": "creation",
    "_data_type_functions": "data types",
    "_elementwise_functions": "elementwise",
    "_indexing_functions": "indexing",
    "_info": "inspection",
    "_linear_algebra_functions": "linear algebra",
    "_manipulation_functions": "manipulation",
    "_searching_functions": "searching",
    "_set_functions": "sets",
    "_sorting_functions": "sorting",
    "_statistical_functions": "statistical",
    "_utility_functions": "utility",
    "_linalg": "linalg extension",
    "_fft": "fft extension",
}
_NOT_STANDARD = ("_flags",)  # array_api_strict's own configuration functions
STATUSES = (
    "rrule+frule",
    "rrule only",
    "frule only",
    "non-differentiable",
    "no array output",
    "missing",
)


@dataclass
class Entry:
    """One function of the standard and what chainrules has for it."""

    name: str  # "sin", "linalg.cholesky", "fft.rfft"
    section: str
    status: str
    rule_module: str | None  # where its rule is defined

    @property
    def covered(self) -> bool:
        return self.status != "missing"


def _standard_functions() -> list[tuple[str, Any, str]]:
    import array_api_strict as xs

    out: list[tuple[str, Any, str]] = []
    spaces = [("", xs, xs.__all__)] + [
        (f"{ext}.", getattr(xs, ext), getattr(xs, ext).__all__) for ext in ("linalg", "fft")
    ]
    for prefix, ns, names in spaces:
        for n in names:
            fn = getattr(ns, n)
            if not callable(fn) or inspect.isclass(fn) or inspect.ismodule(fn):
                continue  # constants, dtypes, the extension modules themselves
            module = str(getattr(fn, "__module__", "")).rsplit(".", 1)[-1]
            if module in _NOT_STANDARD:
                continue
            out.append((prefix + n, fn, _SECTIONS.get(module, module.strip("_"))))
    return out


def coverage() -> tuple[list[Entry], dict[str, Any]]:
    """Every function of the standard with its status, and a summary (counts per status, the
    standard's version, ``covered`` and ``percent``)."""
    import array_api_strict as xs

    named = {str(r.target): r for r in registrations() if r.family == ARRAY_API}
    entries = []
    for name, fn, section in _standard_functions():
        r, f = find_rrule(fn), find_frule(fn)
        reg = named.get(name)
        if name in NO_ARRAY_OUTPUT or name == "__array_namespace_info__":
            status = "no array output"
        elif r is None and f is None:
            status = "missing"
        elif reg is not None and reg.non_differentiable:
            status = "non-differentiable"
        elif r is not None and f is not None:
            status = "rrule+frule"
        else:
            status = "rrule only" if r is not None else "frule only"
        module = reg.module if reg is not None else None
        entries.append(Entry(name, section, status, module))
    counts = {s: sum(e.status == s for e in entries) for s in STATUSES}
    covered = sum(e.covered for e in entries)
    summary = {
        "standard_version": xs.__array_api_version__,
        "array_api_strict": xs.__version__,
        "functions": len(entries),
        "counts": counts,
        "covered": covered,
        "percent": round(100.0 * covered / max(len(entries), 1), 1),
    }
    return entries, summary


def write_table(entries: list[Entry], summary: dict[str, Any], out: TextIO) -> None:
    """A plain-text table, one line per function, then the counts."""
    w = max(len(e.name) for e in entries)
    ws = max(len(e.section) for e in entries)
    out.write(f"{'function'.ljust(w)}  {'section'.ljust(ws)}  status\n")
    out.write(f"{'-' * w}  {'-' * ws}  {'-' * 18}\n")
    for e in entries:
        out.write(f"{e.name.ljust(w)}  {e.section.ljust(ws)}  {e.status}\n")
    out.write("\n" + _summary_line(summary) + "\n")


def _summary_line(summary: dict[str, Any]) -> str:
    counts = ", ".join(f"{n} {s}" for s, n in summary["counts"].items() if n)
    return (
        f"{summary['covered']}/{summary['functions']} functions of the Array API standard "
        f"{summary['standard_version']} covered ({summary['percent']}%): {counts} "
        f"(array_api_strict {summary['array_api_strict']})"
    )


def write_json(entries: list[Entry], summary: dict[str, Any], out: TextIO) -> None:
    json.dump({"summary": summary, "functions": [asdict(e) for e in entries]}, out, indent=2)
    out.write("\n")


def write_markdown(entries: list[Entry], summary: dict[str, Any]) -> str:
    """The docs page's table: one row per function, grouped by section."""
    lines = [_summary_line(summary) + ".", ""]
    lines += ["| section | function | status | rules in |", "|---|---|---|---|"]
    for e in sorted(entries, key=lambda e: (e.section, e.name)):
        where = f"`{e.rule_module}`" if e.rule_module else ""
        lines.append(f"| {e.section} | `{e.name}` | {e.status} | {where} |")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# Anchors: other libraries' own public lists, read at run time
# (``python -m chainrules coverage --against numpy|scipy|jax|autograd``)
#
# Each name of an anchor's list is looked up twice: the anchor's own function (``jax.numpy.sin``:
# a rule registered for ``"numpy:sin"`` reaches it) and its NumPy/SciPy counterpart, the function
# of the same name in NumPy or SciPy (``numpy.sin``). The first that has a rule gives the status.

# Functions that answer questions or act on the world rather than compute an array of numbers from
# arrays: nothing to differentiate. A short list by category (each category's reason is shown in
# the report and the docs); a name counts here in every anchor that has it.
NO_ARRAY_OUTPUT_CATEGORIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "printing": (
        "returns a string or sets print options",
        (
            "array2string",
            "array_repr",
            "array_str",
            "base_repr",
            "binary_repr",
            "format_float_positional",
            "datetime_as_string",
            "format_float_scientific",
            "get_printoptions",
            "printoptions",
            "set_printoptions",
            "typename",
        ),
    ),
    "file I/O": (
        "reads or writes files and buffers",
        (
            "frombuffer",
            "fromfile",
            "fromregex",
            "fromstring",
            "genfromtxt",
            "load",
            "loadtxt",
            "save",
            "savetxt",
            "savez",
            "savez_compressed",
        ),
    ),
    "dtype queries": (
        "answers a question about data types",
        (
            "can_cast",
            "common_type",
            "datetime_data",
            "finfo",
            "iinfo",
            "isdtype",
            "issubdtype",
            "min_scalar_type",
            "mintypecode",
            "promote_types",
            "result_type",
        ),
    ),
    "shape and type queries": (
        "returns Python metadata (a shape, a flag, a contraction plan), not an array",
        (
            "broadcast_shapes",
            "einsum_path",
            "iscomplexobj",
            "isfortran",
            "isrealobj",
            "isscalar",
            "iterable",
            "may_share_memory",
            "ndim",
            "shape",
            "shares_memory",
            "size",
        ),
    ),
    "configuration": (
        "reads or sets the library's configuration or its BLAS/LAPACK handles",
        (
            "get_blas_funcs",
            "get_include",
            "get_lapack_funcs",
            "getbufsize",
            "geterr",
            "geterrcall",
            "info",
            "find_best_blas_type",
            "setbufsize",
            "seterr",
            "seterrcall",
            "show_config",
            "show_runtime",
            "test",
        ),
    ),
    "function builders": (
        "returns a function, not an array (its calls are what gets differentiated)",
        ("frompyfunc", "vectorize"),
    ),
}
_NO_ARRAY_OUTPUT = {
    name: category for category, (_, names) in NO_ARRAY_OUTPUT_CATEGORIES.items() for name in names
}
# Why a name is missing, decided from what the function is (not by hand):
MISSING_REASONS = {
    "takes a function": "takes a Python function to call (the rule would differentiate through it)",
    "no counterpart": "no NumPy/SciPy function of that name (the anchor's own extension)",
    "no rule yet": "no rule registered yet",
}
_FUNCTION_PARAMS = ("function", "pyfunc", "callback")  # and names starting with "func"


class AnchorMissing(ImportError):
    """An anchor's library is not installed. The message names it and how to install it."""

    def __init__(self, anchor: str, package: str, install: str) -> None:
        super().__init__(
            f"coverage --against {anchor} reads its list from {package}, which is not installed: "
            f"install it with `{install}`"
        )
        self.anchor, self.package, self.install = anchor, package, install


@dataclass
class AnchorEntry(Entry):
    """One name of an anchor's list: ``asked`` is the function whose rules gave the status
    (``jax.numpy.sin``, ``numpy.sin``), ``reason`` the category of a ``no array output`` or
    ``missing`` status."""

    asked: str | None = None
    reason: str | None = None


@dataclass
class _Name:
    """One name of an anchor's list, with the functions to ask for rules, in order."""

    name: str  # as listed: "sin", "linalg.eig", "gammaln", "norm.logpdf"
    section: str
    candidates: list[tuple[str, Any]]  # (label, function object)
    has_counterpart: bool = True


@dataclass(frozen=True)
class Anchor:
    """A library whose public list is measured: ``read()`` returns its names, section by section,
    and the versions it read them from."""

    name: str
    packages: tuple[tuple[str, str], ...]  # (import name, what to install) it needs
    read: Callable[[], tuple[list[_Name], dict[str, str], list[str]]]
    description: str


def _import(anchor: str, package: str, install: str) -> Any:
    try:
        return importlib.import_module(package)
    except ImportError:
        raise AnchorMissing(anchor, package, install) from None


def _is_function(obj: Any) -> bool:
    """A public function: callable, and not a class (dtypes, scalar types, exceptions), a module
    or an instance of a non-function class (``np.mgrid``)."""
    if not callable(obj) or inspect.isclass(obj) or inspect.ismodule(obj):
        return False
    return not hasattr(obj, "__getitem__")  # index builders (np.r_, np.c_, np.mgrid, ...)


def _public(module: Any) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    return sorted({n for n in names if _is_function(getattr(module, n, None))})


def _function(module: Any, name: str) -> Any:
    obj = getattr(module, name, None) if module is not None else None
    return obj if obj is not None and _is_function(obj) else None


def _optional(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _versions(*names: str) -> dict[str, str]:
    from importlib import metadata

    out = {}
    for n in names:
        try:
            out[n] = metadata.version(n)
        except metadata.PackageNotFoundError:
            continue
    return out


def _listed(
    section: str,
    module: Any,
    label: str,
    counterpart: Any,
    counterpart_label: str,
    prefix: str = "",
) -> list[_Name]:
    """Every public function of ``module``, asked under its own name and as ``counterpart``'s."""
    out = []
    for n in _public(module):
        cands = [(f"{label}.{n}", getattr(module, n))]
        other = _function(counterpart, n) if counterpart is not module else None
        if other is not None:
            cands.append((f"{counterpart_label}.{n}", other))
        has = counterpart is module or other is not None
        out.append(_Name(prefix + n, section, cands, has))
    return out


def _read_numpy() -> tuple[list[_Name], dict[str, str], list[str]]:
    np = _import("numpy", "numpy", "pip install numpy")
    names = _listed("numpy", np, "numpy", np, "numpy")
    for ext in ("linalg", "fft"):
        mod = getattr(np, ext)
        names += _listed("numpy", mod, f"numpy.{ext}", mod, f"numpy.{ext}", f"{ext}.")
    return names, _versions("numpy"), []


def _read_scipy() -> tuple[list[_Name], dict[str, str], list[str]]:
    _import("scipy", "scipy", "pip install scipy")
    names = []
    for sub in ("special", "linalg"):
        mod = importlib.import_module(f"scipy.{sub}")
        names += _listed(f"scipy.{sub}", mod, f"scipy.{sub}", mod, f"scipy.{sub}")
    return names, _versions("scipy"), []


def _read_jax() -> tuple[list[_Name], dict[str, str], list[str]]:
    _import("jax", "jax", "pip install jax")
    import jax.numpy as jnp
    import jax.scipy.linalg as jsl
    import jax.scipy.special as jss
    import numpy as np

    sp = {sub: _optional(f"scipy.{sub}") for sub in ("special", "linalg")}
    names = _listed("jax.numpy", jnp, "jax.numpy", np, "numpy")
    for ext in ("linalg", "fft"):
        names += _listed(
            "jax.numpy",
            getattr(jnp, ext),
            f"jax.numpy.{ext}",
            getattr(np, ext),
            f"numpy.{ext}",
            f"{ext}.",
        )
    names += _listed("jax.scipy.special", jss, "jax.scipy.special", sp["special"], "scipy.special")
    names += _listed("jax.scipy.linalg", jsl, "jax.scipy.linalg", sp["linalg"], "scipy.linalg")
    return names, _versions("jax", "numpy", "scipy"), []


# autograd's VJP table is keyed by its primitives; each wraps the function it differentiates
# (``primitive.fun``): a NumPy or SciPy function, found there by identity, or autograd's own
# implementation exported by an ``autograd.numpy``/``autograd.scipy`` module (its SciPy
# counterpart is the function of the same name in the mirrored module). Primitives that are
# neither (autograd's internals: VSpace arithmetic, container helpers, adjoints) are left out and
# named in the summary.
_AUTOGRAD_MODULES = (
    "numpy",
    "numpy.linalg",
    "numpy.fft",
    "scipy.special",
    "scipy.linalg",
    "scipy.signal",
    "scipy.integrate",
    "scipy.stats",
)


def _autograd_counterpart(fun: Any, modules: dict[str, Any]) -> tuple[str, str, Any] | None:
    """(section, name, counterpart) for the function an autograd primitive wraps."""
    self = getattr(fun, "__self__", None)
    stats = modules["scipy.stats"]
    if self is not None and inspect.ismethod(fun) and stats is not None:  # a distribution's
        for dist in sorted(dir(stats)):  # method: scipy.stats.norm.logpdf
            if getattr(stats, dist, None) is self:
                return "scipy.stats", f"{dist}.{fun.__name__}", getattr(self, fun.__name__)
        return None
    name = getattr(fun, "__name__", None)
    if not isinstance(name, str):
        return None
    plain = [(m, mod) for m, mod in modules.items() if mod is not None and m != "scipy.stats"]
    for mod_name, mod in plain:
        if getattr(mod, name, None) is fun:
            return _autograd_place(mod_name, name, fun)
    for mod_name, mod in plain:  # a function exported under another name than its own
        for n in _public(mod):
            if getattr(mod, n) is fun:
                return _autograd_place(mod_name, n, fun)
    owner = str(getattr(fun, "__module__", "") or "")
    mirrored = owner.removeprefix("autograd.")
    if owner.startswith("autograd.") and mirrored in modules:  # autograd's own implementation
        other = _function(modules[mirrored], name)
        if other is not None:
            return _autograd_place(mirrored, name, other)
    return None


def _autograd_place(mod_name: str, name: str, fun: Any) -> tuple[str, str, Any]:
    if mod_name.startswith("numpy."):
        return "numpy", f"{mod_name.removeprefix('numpy.')}.{name}", fun
    return mod_name, name, fun


def _read_autograd() -> tuple[list[_Name], dict[str, str], list[str]]:
    _import("autograd", "autograd", "pip install autograd")
    _import("autograd", "scipy", "pip install scipy")  # autograd.scipy's VJPs need it
    import autograd.core

    for sub in ("numpy", "scipy.special", "scipy.linalg", "scipy.signal", "scipy.integrate"):
        importlib.import_module(f"autograd.{sub}")
    import pkgutil

    import autograd.scipy.stats as ag_stats

    for info in pkgutil.iter_modules(ag_stats.__path__):  # each defines its distributions' VJPs
        importlib.import_module(f"autograd.scipy.stats.{info.name}")
    modules = {m: _optional(m) for m in _AUTOGRAD_MODULES}
    seen: dict[tuple[str, str], _Name] = {}
    left_out = set()
    for prim in list(autograd.core.primitive_vjps):
        fun = getattr(prim, "fun", prim)
        place = _autograd_counterpart(fun, modules)
        if place is None:
            left_out.add(str(getattr(fun, "__qualname__", getattr(prim, "__name__", prim))))
            continue
        section, name, obj = place
        label = f"{section}.{name}" if section != "numpy" else f"numpy.{name}"
        seen.setdefault((section, name), _Name(name, section, [(label, obj)]))
    names = sorted(seen.values(), key=lambda n: (_AUTOGRAD_MODULES.index(n.section), n.name))
    return names, _versions("autograd", "numpy", "scipy"), sorted(left_out)


ANCHORS: dict[str, Anchor] = {
    "numpy": Anchor(
        "numpy",
        (("numpy", "pip install numpy"),),
        _read_numpy,
        "NumPy's public functions (numpy.__all__, numpy.linalg, numpy.fft)",
    ),
    "scipy": Anchor(
        "scipy",
        (("scipy", "pip install scipy"),),
        _read_scipy,
        "scipy.special's and scipy.linalg's public functions",
    ),
    "jax": Anchor(
        "jax",
        (("jax", "pip install jax"),),
        _read_jax,
        "jax.numpy's public functions with its linalg and fft; jax.scipy.special; jax.scipy.linalg",
    ),
    "autograd": Anchor(
        "autograd",
        (("autograd", "pip install autograd"), ("scipy", "pip install scipy")),
        _read_autograd,
        "HIPS autograd's VJP table (autograd.core.primitive_vjps after importing autograd.numpy "
        "and autograd.scipy), mapped to the NumPy/SciPy functions its primitives wrap",
    ),
}


def _rule_status(obj: Any) -> tuple[str, str | None] | None:
    """(status, module defining the rule) for a function with rules, ``None`` for none."""
    r, f = find_rrule(obj), find_frule(obj)
    if r is None and f is None:
        return None
    reg = registration_of(obj)
    module = reg.module if reg is not None else None
    if reg is not None and reg.non_differentiable:
        return "non-differentiable", module
    if r is not None and f is not None:
        return "rrule+frule", module
    return ("rrule only" if r is not None else "frule only"), module


def _takes_function(obj: Any) -> bool:
    try:
        params = inspect.signature(obj).parameters
    except (TypeError, ValueError):
        return False
    return any(p in _FUNCTION_PARAMS or p.startswith("func") for p in params)


def classify(item: _Name) -> AnchorEntry:
    """The status of one name of an anchor's list (see the module's docstring)."""
    leaf = item.name.rsplit(".", 1)[-1]
    if leaf in _NO_ARRAY_OUTPUT:
        label = item.candidates[0][0] if item.candidates else None
        return AnchorEntry(
            item.name, item.section, "no array output", None, label, _NO_ARRAY_OUTPUT[leaf]
        )
    for label, obj in item.candidates:
        found = _rule_status(obj)
        if found is not None:
            return AnchorEntry(item.name, item.section, found[0], found[1], label)
    if not item.has_counterpart:
        reason = "no counterpart"
    elif any(_takes_function(obj) for _, obj in item.candidates):
        reason = "takes a function"
    else:
        reason = "no rule yet"
    asked = item.candidates[-1][0] if item.candidates else None
    return AnchorEntry(item.name, item.section, "missing", None, asked, reason)


def _summarise(entries: Iterable[Entry]) -> dict[str, Any]:
    entries = list(entries)
    covered = sum(e.covered for e in entries)
    return {
        "functions": len(entries),
        "counts": {s: sum(e.status == s for e in entries) for s in STATUSES},
        "covered": covered,
        "percent": round(100.0 * covered / max(len(entries), 1), 1),
    }


def anchor_coverage(anchor: str | Anchor) -> tuple[list[AnchorEntry], dict[str, Any]]:
    """Every name of an anchor's list with its status, and a summary: the anchor, the versions
    read, the totals (as ``coverage()``'s) and ``sections`` -- the same per section. Raises
    ``AnchorMissing`` when the anchor's library is not installed."""
    a = ANCHORS[anchor] if isinstance(anchor, str) else anchor
    for package, install in a.packages:
        _import(a.name, package, install)
    names, versions, left_out = a.read()
    entries = [classify(n) for n in names]
    sections: dict[str, list[AnchorEntry]] = {}
    for e in entries:
        sections.setdefault(e.section, []).append(e)
    summary = {
        "anchor": a.name,
        "description": a.description,
        "versions": versions,
        **_summarise(entries),
        "sections": {s: _summarise(es) for s, es in sections.items()},
    }
    if left_out:
        summary["left_out"] = left_out
    return entries, summary


def write_anchor_table(entries: list[AnchorEntry], summary: dict[str, Any], out: TextIO) -> None:
    """A plain-text table per section, one line per name, then its counts and missing names."""
    w = max([len("function")] + [len(e.name) for e in entries])
    out.write(f"coverage against {summary['anchor']}: {summary['description']}\n")
    for section, s in summary["sections"].items():
        rows = [e for e in entries if e.section == section]
        out.write(f"\n{section}\n{'function'.ljust(w)}  {'status'.ljust(18)}  asked / why\n")
        out.write(f"{'-' * w}  {'-' * 18}  {'-' * 24}\n")
        for e in rows:
            why = e.asked or ""
            if e.reason:
                why = f"{why} ({e.reason})"
            out.write(f"{e.name.ljust(w)}  {e.status.ljust(18)}  {why}".rstrip() + "\n")
        missing = [e.name for e in rows if e.status == "missing"]
        out.write(_section_line(section, s) + "\n")
        if missing:
            out.write(f"missing ({len(missing)}): {', '.join(missing)}\n")
    out.write("\n" + _anchor_line(summary) + "\n")


def _section_line(section: str, s: dict[str, Any]) -> str:
    counts = ", ".join(f"{n} {st}" for st, n in s["counts"].items() if n)
    return f"{section}: {s['covered']}/{s['functions']} covered ({s['percent']}%): {counts}"


def _anchor_line(summary: dict[str, Any]) -> str:
    versions = ", ".join(f"{k} {v}" for k, v in summary["versions"].items())
    line = (
        f"{summary['covered']}/{summary['functions']} names of {summary['anchor']}'s lists "
        f"covered ({summary['percent']}%) ({versions})"
    )
    if summary.get("left_out"):
        line += f"; left out, not NumPy/SciPy functions: {', '.join(summary['left_out'])}"
    return line


def write_anchor_json(reports: list[tuple[list[AnchorEntry], dict[str, Any]]], out: TextIO) -> None:
    """``{"anchors": [{"summary": ..., "functions": [...]}, ...]}``, one per anchor asked."""
    data = {
        "anchors": [
            {"summary": summary, "functions": [asdict(e) for e in entries]}
            for entries, summary in reports
        ]
    }
    json.dump(data, out, indent=2)
    out.write("\n")


def write_anchor_markdown(reports: list[tuple[list[AnchorEntry], dict[str, Any]]]) -> str:
    """The docs page's anchor part: a table of numbers per section, then what is missing, by
    reason."""
    lines = ["| anchor | section | covered | of | percent |", "|---|---|---|---|---|"]
    for _, summary in reports:
        for section, s in summary["sections"].items():
            lines.append(
                f"| {summary['anchor']} | `{section}` | {s['covered']} | {s['functions']} | "
                f"{s['percent']}% |"
            )
    lines.append("")
    lines.append(
        "Read from "
        + "; ".join(
            f"{summary['anchor']}: " + ", ".join(f"{k} {v}" for k, v in summary["versions"].items())
            for _, summary in reports
        )
        + "."
    )
    for entries, summary in reports:
        lines += ["", f"### Missing against {summary['anchor']}", ""]
        missing = [e for e in entries if e.status == "missing"]
        if not missing:
            lines.append("Nothing.")
        for reason, why in MISSING_REASONS.items():
            for section in summary["sections"]:
                names = [e.name for e in missing if e.reason == reason and e.section == section]
                if names:
                    shown = ", ".join(f"`{n}`" for n in names)
                    lines.append(f"- `{section}`, {why} ({len(names)}): {shown}")
        if summary.get("left_out"):
            shown = ", ".join(f"`{n}`" for n in summary["left_out"])
            lines.append(
                f"- left out of the list, the anchor's internals (not NumPy/SciPy functions): "
                f"{shown}"
            )
    return "\n".join(lines) + "\n"
