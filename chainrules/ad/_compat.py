"""``array_namespace`` of array-api-compat, and of the copies SciPy and scikit-learn vendor, made
to see a tracer's namespace when a tracer meets plain values of its own library -- only while a
transformation runs.

Every copy maps a NumPy scalar (``numpy.bool_`` from ``ddof == n``, ``finfo(...).eps``) or a plain
array to *its own* wrapped namespace (``scipy._lib.array_api_compat.numpy``) and a tracer to the
traced namespace, then refuses two namespaces ("Multiple namespaces for array inputs"): SciPy's
copy (1.13) keeps a set of namespace objects, the newer ones dedupe by ``__name__`` but keep the
first, and each copy's NumPy namespace has its own name. No attribute of the tracer can change
that, so the engine wraps each copy's ``array_namespace`` / ``get_namespace`` (where the copy and
the modules that imported it by name hold it): when a tracer is among the arguments and every
other argument is a scalar (Python's or NumPy's) or a plain array of the tracer's own library, the
answer is the tracer's namespace. Anything else (two libraries, two traced namespaces) goes to
the copy's own function, which raises as before.

The patch is scoped (issue 27: no process-wide patch outlives its call):

* :func:`scope_enter` / :func:`scope_exit` bracket every call of a user's function by a
  transformation (``_user_rules.call_user``). The first entry in the process installs the
  wrappers; the last exit, in whichever thread, puts every original back (``getattr(mod, attr)
  is original`` again), also in modules imported meanwhile that copied a wrapper by name. A
  depth count under a lock decides first and last, so nested transformations (``hessian`` is
  ``jacobian(grad)``), re-entry from a rule (``rrule_via_ad``) and other threads' transformations
  share one installation.
* A wrapper changes an answer only in a thread (a ``contextvars`` context) that is inside a
  transformation *and* only for a call with a tracer among its arguments; every other call --
  in another thread while this one runs, with no tracer, or from a reference to the wrapper kept
  after the exit -- is the original function's, with the same result or the same exception.
* An exception leaving the user's function passes ``scope_exit`` (a ``finally``), so the count
  and the context variable are restored on every path.
* A pullback that ``ad.vjp`` returned and the user calls later runs the tape's rules on plain
  arrays (the tracers existed only during the forward run), which need no wrapper; a pullback that
  runs traced code itself (``rrule_via_ad`` inside a rule) goes through ``call_user`` again and so
  enters the scope again.

Known limit: ``scipy.linalg`` or ``scipy.stats`` imported inside the user's function, at the
first call of a transformation, gets its ruled class at the next scope entry, not during that
call: SciPy's own body then converts the tracer, and ``call_user`` adds to the error that the
module was imported during the call (:func:`late_ruled_imports`).

Known limit: a module that stored ``array_namespace`` somewhere other than a module attribute
(a dict, a class) while a transformation ran keeps the wrapper after the exit, and it behaves
as the original there (the context variable is unset outside transformations).

The same scope makes the functions of ``scipy.linalg`` that the registry has rules for reach
them from plain code (issue 29, item 4): ``scipy.linalg.cho_solve(c, x)`` inside ``ad.grad``
is recorded as one operation through its rules, where its body would convert the tracer with
``numpy.asarray`` (SciPy's linalg converts even with ``SCIPY_ARRAY_API=1``). Which functions:
every attribute of the module whose object the registry has a rule for (``registry.entry_of``,
never a list of names), not a ufunc (NumPy dispatches those itself). How: while the scope is
entered the module's class is a subclass of its own whose attribute lookup answers such a name
with a wrapper -- ``chainrules.traceable`` of the function -- in a context inside a
transformation, and with the function itself everywhere else; the last exit puts the class
back. One class assignment each way instead of one attribute per function (about 40): the
scope's cost does not grow with the number of rules (0.23 us per outermost call here). The
wrapper, if kept (``from scipy.linalg import cho_solve`` run inside a transformation), calls the
function itself outside transformations. A name bound by ``from scipy.linalg import
cho_solve`` *before* the transformation is SciPy's own function, which the scope does not see:
it converts the tracer and the error says to call ``scipy.linalg.cho_solve``,
``chainrules.ad.scipy.linalg.cho_solve`` or ``chainrules.traceable(cho_solve)``.

``scipy.stats``' distributions the same way, and there the name a user binds is no limit:
``from scipy.stats import norm`` binds the distribution *object*, whose methods (``norm.logpdf``)
convert their arguments with ``numpy.asarray``. Which objects: those of ``scipy.stats`` that the
registry holds bound methods of (``table.bound_methods``: rules for ``scipy.stats.norm.logpdf``
and its siblings, never a list of names). How: while the scope is entered each such object's
class is a subclass of its own that overrides exactly those methods: inside a transformation
(in this context) a call is ``chainrules.ad.scipy.stats``' route of the original bound method
(``traceable``, keyword parameters taken positionally); everywhere else it is the original
method. The last exit puts each object's class back.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable
from contextvars import ContextVar, Token
from operator import is_
from types import MethodType, ModuleType
from typing import Any

from ..core import table as _table
from ..core.namespaces import namespace_of
from ..core.registry import entry_of, traceable
from ._tracer import Tracer, primal

_PREFIXES = ("array_api_compat", "array_api_extra", "scipy", "sklearn")
_NAMES = ("array_namespace", "get_namespace")

# True in a context (thread, asyncio task) while a transformation calls the user's function there
_INSIDE: ContextVar[bool] = ContextVar("chainrules_ad_inside", default=False)

_LOCK = threading.Lock()
_WRAPPED: dict[int, Callable[..., Any]] = {}  # id(original) -> its wrapper (the wrapper keeps it)
_WRAPPERS: dict[int, Callable[..., Any]] = {}  # id(wrapper) -> its original
# transformations running (all threads); len(sys.modules) at the last scan; whether the last install
# swapped every site at once (so the restore may too)
_state = {"depth": 0, "seen": -1, "bulk": 0}
# the sites known: (module's __dict__, attribute, original, wrapper, module)
_sites: list[tuple[dict[str, Any], str, Any, Any, Any]] = []
_installed: list[tuple[dict[str, Any], str, Any, Any, Any]] = []  # the sites holding a wrapper
# the sites as columns (dicts, attributes, originals, wrappers, modules): the common install and
# restore check and swap every site in a few calls of C functions
_cols: tuple[tuple[Any, ...], ...] = ((), (), (), (), ())


def _traced_namespace(xs: tuple[Any, ...]) -> Any:
    ns = None
    for x in xs:
        if isinstance(x, Tracer):
            xns = type(x)._ns
            if ns is not None and xns is not ns:
                return None
            ns = xns
    if ns is None:
        return None
    base = ns._cr_base
    np = sys.modules.get("numpy")
    for x in xs:
        if x is None or isinstance(x, Tracer) or type(x) in (bool, int, float, complex):
            continue
        if np is not None and isinstance(x, np.generic):
            continue  # a NumPy scalar mixes with a tracer as a Python scalar does
        try:
            same = namespace_of(primal(x)) is base
        except Exception:  # noqa: BLE001  (not an array: the copy's own function decides)
            return None
        if not same:
            return None
    return ns


def _wrap(orig: Callable[..., Any]) -> Callable[..., Any]:
    w = _WRAPPED.get(id(orig))
    if w is not None:
        return w

    def array_namespace(*xs: Any, **kwargs: Any) -> Any:
        if _INSIDE.get():
            ns = _traced_namespace(xs)
            if ns is not None:
                return ns
        return orig(*xs, **kwargs)

    array_namespace.__wrapped__ = orig  # type: ignore[attr-defined]
    array_namespace.__doc__ = orig.__doc__
    array_namespace.__module__ = getattr(orig, "__module__", __name__)
    _WRAPPED[id(orig)] = array_namespace
    _WRAPPERS[id(array_namespace)] = orig
    return array_namespace


def _scan() -> None:
    """Find every module attribute that holds a copy's ``array_namespace`` / ``get_namespace``
    (or a wrapper of one: a module imported while the wrappers were in place copied it)."""
    compat = {
        id(getattr(m, "array_namespace", None))
        for name, m in list(sys.modules.items())
        if name.endswith("array_api_compat") and m is not None
    }
    compat.discard(id(None))
    found = []
    for name, mod in list(sys.modules.items()):
        if mod is None or not name.startswith(_PREFIXES):
            continue
        d = getattr(mod, "__dict__", None)
        if d is None:
            continue
        for attr in _NAMES:
            f = d.get(attr)
            if f is None:
                continue
            orig = _WRAPPERS.get(id(f))
            if orig is None and (id(f) in compat or id(f) in _WRAPPED):
                orig = f
            if orig is not None:
                found.append((d, attr, orig, _wrap(orig), mod))
    global _cols
    _sites[:] = found
    _cols = tuple(zip(*found)) if found else ((), (), (), (), ())
    _state["seen"] = len(sys.modules)


def _install() -> None:
    """Put the wrappers in place (the first transformation in)."""
    if len(sys.modules) != _state["seen"]:
        _scan()
    dicts, attrs, origs, ws, mods = _cols
    if all(map(is_, map(dict.get, dicts, attrs), origs)):  # the common case: every original
        any(map(setattr, mods, attrs, ws))  # (setattr returns None: any() runs it on all)
        _installed.extend(_sites)
        _state["bulk"] = 1
        return
    for site in _sites:
        d, attr, orig, w, mod = site
        cur = d.get(attr)
        if cur is orig:
            setattr(mod, attr, w)
        elif cur is not w:
            continue  # someone else's replacement since the scan: theirs stays
        _installed.append(site)


def _install_new() -> None:
    """Wrap, while transformations run, the copies in modules imported since the last scan."""
    _scan()
    _state["bulk"] = 0
    done = {(id(s[0]), s[1]) for s in _installed}
    for site in _sites:
        d, attr, orig, w, mod = site
        if (id(d), attr) not in done and d.get(attr) in (orig, w):
            setattr(mod, attr, w)
            _installed.append(site)


def _restore() -> None:
    """Put every original back (the last transformation out)."""
    if len(sys.modules) != _state["seen"]:
        _install_new()  # modules imported meanwhile may hold a wrapper: restored below
    if _state["bulk"]:
        _state["bulk"] = 0
        dicts, attrs, origs, ws, mods = _cols
        if all(map(is_, map(dict.get, dicts, attrs), ws)):
            any(map(setattr, mods, attrs, origs))
            _installed.clear()
            return
    for d, attr, orig, w, mod in _installed:
        if d.get(attr) is w:
            setattr(mod, attr, orig)
    _installed.clear()


# --- the modules whose registered functions the scope records through their rules ---------------
# scipy.linalg's functions convert their arguments with numpy.asarray, also in array API mode
_RULED_MODULES = ("scipy.linalg",)
# modules whose objects' methods with rules are recorded through them (scipy.stats' distributions)
_RULED_OBJECTS = ("scipy.stats",)
# module name -> (module, its own class, its ruled class, {attribute: (function, wrapper)}, the
# number of registrations it was made with)
_Ruled = tuple[Any, type, type, dict[str, tuple[Any, Any]], int]
_ruled: dict[str, _Ruled] = {}
# id(object) -> (the object, its own class, its ruled class, the number of registrations it was
# made with): the objects of _RULED_OBJECTS' modules whose methods have rules
_ruled_objs: dict[int, tuple[Any, type, type, int]] = {}
# what the outermost entry swaps: (module, its own class, its ruled class) of each imported ruled
# module, made again when a module was imported or a rule registered since (_swaps_key)
_swaps: list[tuple[Any, type, type]] = []
_swaps_key = [-1, -1]  # len(sys.modules), len(registrations) when _swaps was made
_seen_ruled: set[str] = set()  # the ruled modules imported when _swaps was made


def _ruled_call(fn: Any) -> Any:
    """``traceable(fn)`` inside a transformation (in this context), ``fn`` itself elsewhere."""
    op = traceable(fn)

    @functools.wraps(fn)
    def ruled(*args: Any, **kwargs: Any) -> Any:
        if _INSIDE.get():
            return op(*args, **kwargs)
        return fn(*args, **kwargs)

    ruled.__chainrules_traceable__ = True  # type: ignore[attr-defined]
    return ruled


def _ruled_class(own: type, table: dict[str, tuple[Any, Any]]) -> type:
    """A subclass of the module class ``own`` whose attribute lookup answers a name of ``table``
    that still holds its function with the function's wrapper, in a context inside a
    transformation."""
    get: Any = own.__getattribute__  # the unbound lookup of the module class

    def __getattribute__(self: Any, name: str) -> Any:
        value = get(self, name)
        if _INSIDE.get():
            hit = table.get(name)
            if hit is not None and hit[0] is value:
                return hit[1]
        return value

    attrs = {"__slots__": (), "__getattribute__": __getattribute__, "__module__": own.__module__}
    attrs["_cr_own"] = own
    return type(own.__name__, (own,), attrs)


def _ruled_entry(name: str, mod: Any, key: int) -> _Ruled:
    """The ruled class of ``mod`` and its table, made with ``key`` registrations (made again
    when there are more or fewer: a rule registered since for one of its functions). An
    attribute replaced since is answered as it is (the lookup checks that the attribute still
    holds the function)."""
    entry = _ruled.get(name)
    if entry is not None and entry[0] is mod and entry[4] == key:
        return entry
    import numpy as np

    before = entry[3] if entry is not None else {}
    table: dict[str, tuple[Any, Any]] = {}
    for attr, value in list(mod.__dict__.items()):
        if not callable(value) or isinstance(value, type | np.ufunc):  # NumPy dispatches ufuncs
            continue
        e = entry_of(value)  # what the registry holds for the object: never its name
        if e is not None and (e.rrule is not None or e.frule is not None):
            old = before.get(attr)
            table[attr] = (
                old if old is not None and old[0] is value else (value, _ruled_call(value))
            )
    own = getattr(type(mod), "_cr_own", type(mod))
    entry = _ruled[name] = (mod, own, _ruled_class(own, table), table, key)
    return entry


def _ruled_method(func: Any) -> Any:
    """A method that calls ``func`` (an object's method with a rule, unbound) itself, and inside
    a transformation (in this context) the route of the original bound method: ``traceable``,
    keyword parameters taken positionally (``chainrules.ad.scipy._route.method_route``)."""
    routes: dict[int, tuple[Any, Any]] = {}  # id(object) -> (object, its route)

    @functools.wraps(func)
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not _INSIDE.get():
            return func(self, *args, **kwargs)
        hit = routes.get(id(self))
        if hit is None or hit[0] is not self:
            from .scipy._route import method_route

            hit = routes[id(self)] = (self, method_route(self, MethodType(func, self)))
        return hit[1](*args, **kwargs)

    # bound, it is SciPy's method for the registry (table._traceable_of): looked up inside a
    # transformation and handed to cr.rrule, cr.traceable or an engine, it finds its rules
    method.__chainrules_traceable__ = True  # type: ignore[attr-defined]
    return method


def _ruled_objects(key: int) -> list[tuple[Any, type, type]]:
    """``(object, its own class, its ruled class)`` of each object of an imported module of
    ``_RULED_OBJECTS`` that the registry holds bound methods of; each ruled class overrides the
    attributes of the own class that hold those methods' functions. Made with ``key``
    registrations (made again with more or fewer)."""
    ids = {
        id(v): v
        for name in _RULED_OBJECTS
        if (mod := sys.modules.get(name)) is not None
        for v in vars(mod).values()
        if not isinstance(v, type | ModuleType)
    }
    funcs: dict[int, dict[int, Any]] = {}  # id(object) -> {id(function): function}
    for m in _table.bound_methods():
        if ids.get(id(m.__self__)) is m.__self__:
            funcs.setdefault(id(m.__self__), {})[id(m.__func__)] = m.__func__
    out = []
    for i, fs in funcs.items():
        obj = ids[i]
        entry = _ruled_objs.get(i)
        if entry is None or entry[0] is not obj or entry[3] != key:
            own = getattr(type(obj), "_cr_own", type(obj))
            attrs: dict[str, Any] = {
                attr: _ruled_method(f)
                for klass in reversed(own.__mro__)
                for attr, f in vars(klass).items()
                if fs.get(id(f)) is f
            }
            attrs.update(__slots__=(), __module__=own.__module__, _cr_own=own)
            entry = _ruled_objs[i] = (obj, own, type(own.__name__, (own,), attrs), key)
        out.append(entry[:3])
    return out


def late_ruled_imports() -> list[str]:
    """The modules of ``_RULED_MODULES`` and ``_RULED_OBJECTS`` imported after the outermost
    transformation running now began (``import scipy.linalg`` inside the function, at its first
    call): their functions and objects reach their rules from the next call on. For errors."""
    with _LOCK:
        if _state["depth"] == 0:
            return []
        names = (*_RULED_MODULES, *_RULED_OBJECTS)
        return [n for n in names if n in sys.modules and n not in _seen_ruled]


def _install_ruled() -> None:
    """Give each imported module of ``_RULED_MODULES`` its ruled class, and each object of
    ``_RULED_OBJECTS``' modules whose methods have rules its own (the lock is held)."""
    nmod, nreg = len(sys.modules), len(_table._REGISTRATIONS)
    if _swaps_key[0] != nmod or _swaps_key[1] != nreg:
        _seen_ruled.clear()
        _seen_ruled.update(n for n in (*_RULED_MODULES, *_RULED_OBJECTS) if n in sys.modules)
        _swaps[:] = []
        for name in _RULED_MODULES:
            mod = sys.modules.get(name)
            if mod is not None:
                mod, own, cls, _, _ = _ruled_entry(name, mod, nreg)
                _swaps.append((mod, own, cls))
        _swaps.extend(_ruled_objects(nreg))
        _swaps_key[:] = [nmod, nreg]
    for mod, own, cls in _swaps:
        if type(mod) is own:  # its own class (else ours already, or someone else's)
            mod.__class__ = cls


def _restore_ruled() -> None:
    """Put each ruled module's and object's own class back (the last transformation out): any
    ruled class of ours, also one made before the registrations changed."""
    for mod, own, _ in _swaps:
        t = type(mod)
        if t is not own and getattr(t, "_cr_own", None) is own:
            mod.__class__ = own


def ruled_functions() -> list[tuple[Any, str, Any]]:
    """``(module, attribute, function)`` of every function the scope records through its rules
    (for tests): those of the imported modules of ``_RULED_MODULES``."""
    with _LOCK:
        out = []
        for name in _RULED_MODULES:
            mod = sys.modules.get(name)
            if mod is not None:
                entry = _ruled_entry(name, mod, len(_table._REGISTRATIONS))
                out += [(mod, a, f) for a, (f, _) in entry[3].items()]
        return out


def scope_enter() -> Token[bool]:
    """Enter the scope of a transformation's call of the user's function (see the module's
    docs); pass the token to :func:`scope_exit`, in a ``finally``."""
    with _LOCK:
        depth = _state["depth"]
        if depth == 0:
            _install()
            _install_ruled()
        elif len(sys.modules) != _state["seen"]:
            _install_new()
            _install_ruled()  # scipy.linalg imported meanwhile
        _state["depth"] = depth + 1
    return _INSIDE.set(True)


def scope_exit(token: Token[bool]) -> None:
    """Leave the scope entered with ``token``; the last transformation out restores every
    original."""
    _INSIDE.reset(token)
    with _LOCK:
        depth = _state["depth"] - 1
        _state["depth"] = depth
        if depth == 0:
            _restore()
            _restore_ruled()


def patched_sites() -> list[tuple[Any, str, Any]]:
    """``(module, attribute, original)`` of every attribute the scope replaces (for tests)."""
    with _LOCK:
        if len(sys.modules) != _state["seen"]:
            _scan()
        return [(m, a, o) for _, a, o, _, m in _sites]
