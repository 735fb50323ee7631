"""What a reader reads to read one rule whole: lines, places and files (issue 27, item 4).

``python -m benchmarks.rule_reading [name ...] [--json OUT]``

A reader of a rule reads its registered ``rrule`` and ``frule``, their pullbacks and pushforwards,
and every helper they reach in ``chainrules/``. This script starts from the registered rule
objects (the registry's, as ``chainrules.rrule`` finds them), parses each one's module with
``ast`` and follows, transitively, every name the code refers to that resolves -- through the
module's own definitions and its imports -- to a definition in ``chainrules/``.

The vocabulary every rule is written in is read once for all rules and is not counted, as
ChainRules.jl's count leaves out ChainRulesCore: ``core/toolkit.py`` and ``core/projection.py``
(``pullback``, ``tangents_in``, ``ProjectTo``), ``core/prelude.py`` (the line ``from
...core.prelude import *`` a rule module begins with, its ``using ChainRulesCore``: names are
followed through it to where they are defined) and the three modules the toolkit is made of and
re-exports, ``core/signature.py`` (the binder), ``core/tangents.py`` (``NoTangent``,
``ZeroTangent``, ``unthunk``) and ``core/namespaces.py`` (``namespace_of``). The table's last
columns count those three too, leaving out only the first three (``--exclude`` leaves out more
files or folders in both).

What counts, and how:

* the unit is a whole top-level statement of a module -- a function or a class with its
  decorators, or an assignment: a rule nested in a factory is read with the factory, a function
  with branches for many ``ord``s is read whole;
* *lines* are the units' physical lines (docstrings and comments included), each unit once;
  *places* are the functions and classes among them; *files* the files they are in;
* a :func:`~chainrules.core.specialise.specialise` function is read with its library methods
  (counted, and shown apart: a backend's faster way, checked against the generic path by a test
  generated from the registry), and a function with rules of its own (``norm2_back``,
  ``unsum``: what makes a pullback differentiable again) with those rules;
* names only in decorators (``register_rrule(..., examples=...)``, ``specialise``) are not
  followed: registration and examples are not what a rule calls;
* ``name[k=v,...]`` reads the rule for a call with those keyword values: an ``if`` or a
  conditional expression *of the rule function itself* whose test is decided by them (``ord ==
  2``, ``ord is None or ...``) has its dead branch's names left unfollowed. Its lines still count.

Targets are registry names (``linalg.vector_norm``, ``numpy:linalg.norm``, ``sum``) or a
``module.attribute`` callable (``operator.getitem``).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import inspect
import json
import operator
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

import chainrules

ROOT = Path(chainrules.__file__).resolve().parent
TOOLKIT = ("core/toolkit.py", "core/projection.py", "core/prelude.py")
VOCABULARY = (*TOOLKIT, "core/signature.py", "core/tangents.py", "core/namespaces.py")

# label -> target (with the keyword values of the call read): the rules of issue 27, item 4
DEFAULT = {
    "2-norm": "linalg.vector_norm[ord=2]",
    "2-norm (numpy linalg.norm)": "numpy:linalg.norm[ord=None]",
    "sum": "sum",
    "matmul": "matmul",
    "reshape": "reshape",
    "getitem": "operator.getitem",
}

Unit = tuple[Path, int]  # a file and the index of a top-level statement in it


class Read(NamedTuple):
    """One unit read: its file, first and last line, name, whether it is a function or a class
    (a place), and whether it is only a library method of a specialised function."""

    file: Path
    first: int
    last: int
    name: str
    place: bool
    method: bool

    @property
    def lines(self) -> int:
        return self.last - self.first + 1


class Reading:
    """The units read for one rule, in the order they were reached."""

    def __init__(self) -> None:
        self.units: list[Read] = []

    @property
    def lines(self) -> int:
        return sum(u.lines for u in self.units)

    @property
    def method_lines(self) -> int:
        """The lines of library methods (``specialise``'s): a backend's faster way, which the
        generic path, read without them, computes too (issue 27, item 3)."""
        return sum(u.lines for u in self.units if u.method)

    @property
    def places(self) -> int:
        return sum(1 for u in self.units if u.place)

    @property
    def files(self) -> int:
        return len({u.file for u in self.units})

    def by_file(self, root: Path) -> dict[str, int]:
        out: dict[str, int] = {}
        for u in self.units:
            key = str(u.file.relative_to(root.parent))
            out[key] = out.get(key, 0) + u.lines
        return out


class Reader:
    """Follows names from rule objects through the modules of the package at ``root``."""

    def __init__(self, root: Path = ROOT, exclude: Iterable[str] = VOCABULARY) -> None:
        self.root = root.resolve()
        self.exclude = [(self.root / e).resolve() for e in exclude]
        self._trees: dict[Path, ast.Module] = {}

    # --- files, modules and their top-level statements ------------------------------------------
    def inside(self, path: Path) -> bool:
        p = path.resolve()
        if not p.is_relative_to(self.root):
            return False
        return not any(p == e or p.is_relative_to(e) for e in self.exclude)

    def tree(self, path: Path) -> ast.Module:
        if path not in self._trees:
            self._trees[path] = ast.parse(path.read_text(), str(path))
        return self._trees[path]

    def module_name(self, path: Path) -> str:
        parts = list(path.resolve().relative_to(self.root.parent).with_suffix("").parts)
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    def module_file(self, name: str) -> Path | None:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return None
        if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
            return None
        return Path(spec.origin).resolve()

    def unit_at(self, path: Path, line: int) -> Unit | None:
        """The top-level statement of ``path`` that holds ``line``."""
        for i, node in enumerate(self.tree(path).body):
            first = min([node.lineno, *(d.lineno for d in _decorators(node))])
            if first <= line <= (node.end_lineno or node.lineno):
                return path, i
        return None

    def unit_of(self, obj: Any) -> Unit | None:
        """The unit where the function or class ``obj`` is defined, if it is in the package."""
        obj = inspect.unwrap(obj)
        try:
            path = Path(inspect.getsourcefile(obj) or "").resolve()
            line = inspect.getsourcelines(obj)[1]
        except (TypeError, OSError):
            return None
        if not self.inside(path):
            return None
        return self.unit_at(path, line)

    # --- names ------------------------------------------------------------------------------------
    def resolve(self, module: str, name: str, depth: int = 0) -> tuple[str, Any] | None:
        """What ``name`` is at the top level of ``module``: ``("unit", Unit)``, ``("module",
        dotted name)`` or ``None`` (outside the package, excluded, or not found)."""
        path = self.module_file(module)
        if path is None or depth > 20 or not path.resolve().is_relative_to(self.root):
            return None
        found: tuple[str, Any] | None = None
        for i, node in enumerate(self.tree(path).body):
            for stmt in _flat(node):
                hit = self._binds(module, path, i, stmt, name, depth)
                if hit is not None:
                    found = hit  # the last binding wins, as at run time
        if found is None and path.name == "__init__.py":
            sub = f"{module}.{name}"
            if self.module_file(sub) is not None:
                found = ("module", sub)
        if found is not None and found[0] == "unit" and not self.inside(found[1][0]):
            return None
        return found

    def _binds(
        self, module: str, path: Path, i: int, stmt: ast.stmt, name: str, depth: int
    ) -> tuple[str, Any] | None:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return ("unit", (path, i)) if stmt.name == name else None
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            return ("unit", (path, i)) if name in names else None
        if isinstance(stmt, ast.ImportFrom):
            package = module if path.name == "__init__.py" else module.rpartition(".")[0]
            base = importlib.util.resolve_name("." * stmt.level + (stmt.module or ""), package)
            for a in stmt.names:
                if a.name == "*":  # a rule module's vocabulary (core/prelude.py): its __all__
                    if name in getattr(importlib.import_module(base), "__all__", ()):
                        return self.resolve(base, name, depth + 1)
                elif (a.asname or a.name) == name:
                    if self.module_file(f"{base}.{a.name}") is not None:
                        return ("module", f"{base}.{a.name}")
                    return self.resolve(base, a.name, depth + 1)
        if isinstance(stmt, ast.Import):
            for a in stmt.names:
                if a.asname == name:
                    return ("module", a.name)
                if a.asname is None and a.name.split(".")[0] == name:
                    return ("module", name)
        return None

    def runtime(self, module: str, name: str) -> Any:
        """The object ``name`` of ``module`` (for the methods and rules it carries)."""
        try:
            return getattr(importlib.import_module(module), name, None)
        except ImportError:
            return None

    # --- the walk ---------------------------------------------------------------------------------
    def read(self, starts: Iterable[Any], bindings: dict[str, Any] | None = None) -> Reading:
        """The units a reader reads from the rule objects ``starts`` (``bindings``: the keyword
        values of the call read, which decide the starts' own ``if`` tests)."""
        queued: dict[Unit, None] = {}  # in the order reached
        named: set[Unit] = set()  # reached otherwise than as a library method
        todo: list[tuple[Unit, ast.AST | None]] = []  # (unit, the def of a start in it)

        def enqueue(unit: Unit, start: ast.AST | None = None, method: bool = False) -> None:
            if not method:
                named.add(unit)
            if unit in queued and start is None:
                return
            if unit not in queued:
                queued[unit] = None
                name = getattr(self.tree(unit[0]).body[unit[1]], "name", None)
                for extra, is_method in [] if name is None else self._extras(unit[0], name):
                    u = self.unit_of(extra)
                    if u is not None:
                        enqueue(u, method=is_method)
            todo.append((unit, start))

        for obj in starts:
            for o, is_method in self._with_methods(obj):
                u = self.unit_of(o)
                if u is not None:
                    top = self.tree(u[0]).body[u[1]]
                    enqueue(u, _function_node(top, inspect.unwrap(o)) or top, is_method)
        while todo:
            (path, i), start = todo.pop(0)
            node = self.tree(path).body[i]
            if start is None:
                refs = _references(node, None)
            else:  # a start's own code, its dead branches left; then the rest of its unit
                refs = _references(start, bindings)
                if start is not node:
                    refs += _references(node, None, skip=start)
            module = self.module_name(path)
            for ref in refs:
                target = self._follow(module, ref)
                if target is not None and target[0] == "unit":
                    enqueue(target[1])
        out = Reading()
        for path, i in queued:
            node = self.tree(path).body[i]
            first = min([node.lineno, *(d.lineno for d in _decorators(node))])
            defines = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            name = getattr(node, "name", None)
            if name is None:
                targets = getattr(node, "targets", None) or [getattr(node, "target", node)]
                name = ", ".join(ast.unparse(t) for t in targets)
            last = node.end_lineno or node.lineno
            method = (path, i) not in named
            out.units.append(Read(path, first, last, name, defines, method))
        return out

    def _follow(self, module: str, ref: tuple[str, ...]) -> tuple[str, Any] | None:
        target = self.resolve(module, ref[0])
        for attr in ref[1:]:
            if target is None or target[0] != "module":
                break
            target = self.resolve(target[1], attr)
        return target

    def _with_methods(self, obj: Any) -> list[tuple[Any, bool]]:
        """``obj`` and, for a specialised function, its library methods (flagged ``True``)."""
        from chainrules.core.specialise import Specialised

        if isinstance(obj, Specialised):
            return [(obj.generic, False), *((m, True) for m in obj.library_methods.values())]
        return [(obj, False)]

    def _extras(self, path: Path, name: str) -> list[tuple[Any, bool]]:
        """A specialised function's library methods, and a function's own registered rules."""
        from chainrules.core.table import find_frule, find_rrule

        obj = self.runtime(self.module_name(path), name)
        if obj is None or not callable(obj) or isinstance(obj, type):
            return []
        out = self._with_methods(obj)[1:]
        for find in (find_rrule, find_frule):
            rule = find(obj)
            if rule is not None:
                out += self._with_methods(rule)
        return out


def _decorators(node: ast.stmt) -> list[ast.expr]:
    return list(getattr(node, "decorator_list", []))


def _flat(node: ast.stmt) -> list[ast.stmt]:
    """A top-level statement, and those inside a top-level ``if`` or ``try`` (optional imports)."""
    if isinstance(node, ast.If):
        return [s for b in (node.body, node.orelse) for n in b for s in _flat(n)]
    if isinstance(node, ast.Try):
        blocks = [node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)]
        return [s for b in blocks for n in b for s in _flat(n)]
    return [node]


def _function_node(top: ast.stmt, fn: Any) -> ast.AST | None:
    """The ``def`` of ``fn`` inside the top-level statement ``top`` (by its first line)."""
    try:
        line = inspect.getsourcelines(fn)[1]
    except (TypeError, OSError):
        return None
    for n in ast.walk(top):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([n.lineno, *(d.lineno for d in n.decorator_list)])
            if first == line or n.lineno == line:
                return n
    return None


_UNKNOWN = object()


def _value(e: ast.expr, binds: dict[str, Any]) -> Any:
    """``e`` evaluated from constants and the bound names, or ``_UNKNOWN``."""
    if isinstance(e, ast.Constant):
        return e.value
    if isinstance(e, ast.Name):
        return binds.get(e.id, _UNKNOWN)
    if isinstance(e, ast.Tuple):
        items = [_value(x, binds) for x in e.elts]
        return _UNKNOWN if any(v is _UNKNOWN for v in items) else tuple(items)
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        v = _value(e.operand, binds)
        return _UNKNOWN if v is _UNKNOWN else not v
    if isinstance(e, ast.BoolOp):
        vals = [_value(x, binds) for x in e.values]
        decisive = isinstance(e.op, ast.Or)  # True decides an `or`, False an `and`
        if any(v is not _UNKNOWN and bool(v) is decisive for v in vals):
            return decisive
        return _UNKNOWN if any(v is _UNKNOWN for v in vals) else not decisive
    if isinstance(e, ast.Compare) and len(e.ops) == 1:
        a, b = _value(e.left, binds), _value(e.comparators[0], binds)
        if a is _UNKNOWN or b is _UNKNOWN:
            return _UNKNOWN
        ops = {
            ast.Eq: operator.eq,
            ast.NotEq: operator.ne,
            ast.Is: operator.is_,
            ast.IsNot: operator.is_not,
            ast.In: lambda u, v: u in v,
            ast.NotIn: lambda u, v: u not in v,
        }
        op = ops.get(type(e.ops[0]))
        return _UNKNOWN if op is None else op(a, b)
    return _UNKNOWN


def _references(
    node: ast.AST, binds: dict[str, Any] | None, skip: ast.AST | None = None
) -> list[tuple[str, ...]]:
    """The global names (with their attribute chains: ``("_util", "linalg", "f")``) that the
    code of ``node`` reads, decorators left out. With ``binds`` (the values of some of ``node``'s
    parameters, a function's), not those of dead code: the branch an ``if`` test or a conditional
    expression decided by them does not take, and what follows an ``if`` whose taken branch
    returns or raises. A parameter the code assigns to is not taken as bound."""
    local = _bound_names(node)
    if binds is not None and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        params = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
        stored = {
            n.id
            for n in ast.walk(node)
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
        }
        binds = {k: v for k, v in binds.items() if k in params and k not in stored}
    out: list[tuple[str, ...]] = []

    def decided(n: ast.AST) -> Any:
        if not binds or not isinstance(n, (ast.If, ast.IfExp)):
            return _UNKNOWN
        return _value(n.test, binds)

    def block(stmts: list[ast.stmt]) -> None:
        for st in stmts:
            visit(st)
            v = decided(st)
            if v is not _UNKNOWN:
                live = st.body if v else st.orelse  # type: ignore[attr-defined]
                if live and isinstance(live[-1], (ast.Return, ast.Raise)):
                    return  # the rest of the block is not reached

    def children(n: ast.AST) -> None:
        for name, value in ast.iter_fields(n):
            if name == "decorator_list":
                continue
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                block(value)
            elif isinstance(value, list):
                for c in value:
                    if isinstance(c, ast.AST):
                        visit(c)
            elif isinstance(value, ast.AST):
                visit(value)

    def visit(n: ast.AST) -> None:
        if n is skip:
            return
        v = decided(n)
        if v is not _UNKNOWN:
            visit(n.test)  # type: ignore[attr-defined]
            live = n.body if v else n.orelse  # type: ignore[attr-defined]
            if isinstance(live, list):
                block(live)
            else:
                visit(live)
            return
        if isinstance(n, ast.Attribute):
            chain: list[str] = []
            cur: ast.AST = n
            while isinstance(cur, ast.Attribute):
                chain.append(cur.attr)
                cur = cur.value
            if isinstance(cur, ast.Name) and isinstance(cur.ctx, ast.Load):
                if cur.id not in local:
                    out.append((cur.id, *reversed(chain)))
                return
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in local:
            out.append((n.id,))
        children(n)

    if node is not skip:
        children(node)
    return out


def _bound_names(node: ast.AST) -> set[str]:
    """Names bound anywhere inside ``node`` (arguments, assignments, nested definitions), except
    those declared ``global``: the local names of its code."""
    bound: set[str] = set()
    declared: set[str] = set()
    top = node
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            bound.add(n.id)
        elif isinstance(n, ast.arg):
            bound.add(n.arg)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n is not top:
            bound.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in n.names)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            bound.add(n.name)
        elif isinstance(n, ast.Global):
            declared.update(n.names)
    if isinstance(top, (ast.Assign, ast.AnnAssign)):  # a module's assignment binds globals
        return (
            bound
            - declared
            - {
                t.id
                for t in ast.walk(top)
                if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)
            }
        )
    return bound - declared


# --- targets -------------------------------------------------------------------------------------
def parse_target(spec: str) -> tuple[str, dict[str, Any]]:
    """``"linalg.vector_norm[ord=2]"`` -> ``("linalg.vector_norm", {"ord": 2})``."""
    if not spec.endswith("]") or "[" not in spec:
        return spec, {}
    name, _, rest = spec[:-1].partition("[")
    binds = {}
    for item in filter(None, (s.strip() for s in rest.split(","))):
        k, _, v = item.partition("=")
        binds[k.strip()] = ast.literal_eval(v.strip())
    return name, binds


def rules_of(name: str) -> list[Any]:
    """The registered rrule and frule of a registry name or a ``module.attribute`` callable."""
    from chainrules.core.table import find_frule, find_rrule, registrations

    family, _, bare = name.rpartition(":")
    for reg in registrations():
        if reg.target == bare and reg.family == (family or "array_api"):
            return [r for r in (reg.rrule, reg.frule) if r is not None]
    mod, _, attr = name.rpartition(".")
    f = getattr(importlib.import_module(mod), attr)
    return [r for r in (find_rrule(f), find_frule(f)) if r is not None]


def measure(
    targets: dict[str, str], exclude: Iterable[str] = VOCABULARY, root: Path = ROOT
) -> dict[str, dict[str, Any]]:
    reader = Reader(root, exclude)
    out = {}
    for label, spec in targets.items():
        name, binds = parse_target(spec)
        starts = rules_of(name)
        if not starts:
            raise SystemExit(f"rule_reading: no rule registered for {name!r}")
        r = reader.read(starts, binds or None)
        out[label] = {
            "target": spec,
            "lines": r.lines,
            "method_lines": r.method_lines,
            "places": r.places,
            "files": r.files,
            "by_file": r.by_file(reader.root),
            "units": [
                {
                    "file": str(u.file.relative_to(reader.root.parent)),
                    "lines": [u.first, u.last],
                    "name": u.name,
                    "method": u.method,
                }
                for u in r.units
            ],
        }
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.rule_reading", description=__doc__)
    p.add_argument("names", nargs="*", help="registry names or module.attr, with [k=v,...]")
    p.add_argument("--json", metavar="OUT", help="write the measurements as JSON")
    p.add_argument("--exclude", action="append", default=[], help="more files or folders")
    p.add_argument("--units", action="store_true", help="list what is read, unit by unit")
    a = p.parse_args(argv)
    targets = {n: n for n in a.names} if a.names else DEFAULT
    res = measure(targets, (*VOCABULARY, *a.exclude))
    full = measure(targets, (*TOOLKIT, *a.exclude))
    for label, r in res.items():
        r["with_vocabulary"] = {k: full[label][k] for k in ("lines", "places", "files", "by_file")}
    width = max(len(k) for k in res)
    print(f"{'':<{width}}  {'read':^26}  {'+ signature, tangents, namespaces':^18}")
    head = "lines (methods) places files  lines places files  files read (lines)"
    print(f"{'rule':<{width}}  {head}")
    for label, r in res.items():
        w = r["with_vocabulary"]
        files = ", ".join(f"{f.removeprefix('chainrules/')} {n}" for f, n in r["by_file"].items())
        print(
            f"{label:<{width}}  {r['lines']:>5} {'(' + str(r['method_lines']) + ')':>9} "
            f"{r['places']:>6} {r['files']:>5}  {w['lines']:>5} {w['places']:>6} {w['files']:>5}"
            f"  {files}"
        )
        if a.units:
            for u in r["units"]:
                where = f"{u['file']}:{u['lines'][0]}-{u['lines'][1]}"
                print(f"{'':<{width}}    {where} {u['name']}{' (method)' * u['method']}")
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
