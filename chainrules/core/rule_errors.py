"""The error messages of ``rrule`` / ``frule`` calls: a misplaced argument, tangents of the wrong
shape, an argument that is not an array, an integer argument to a float-only rule, a function
without a rule, and the renaming of errors raised inside a rule so that they name the function
the user called (``named_error``)."""

from __future__ import annotations

import contextlib
import inspect
import sys
import warnings
from typing import Any

from . import table
from .namespaces import NotAnArrayError, qualified_name, scalar_kind
from .registration import NoRuleError
from .table import _REGISTRATIONS, _Installed, find_frule, find_rrule, function_name


# --- the errors of a call that went wrong before any rule ran (only ever built on a miss) -------
def _placeholders(n: int) -> list[str]:
    """Names for ``n`` arguments in a suggested call: ``x``, or ``x1, x2, ...``."""
    return ["x"] if n == 1 else [f"x{i + 1}" for i in range(n)]


def _what(x: Any) -> str:
    """``x`` in a message: ``the string 'sin'``, ``a numpy.ndarray``, ``the function numpy.sin``."""
    if isinstance(x, str):
        return f"the string {x!r}"
    if callable(x) and not hasattr(x, "shape"):
        return f"the function {function_name(x)}"
    t = type(x)
    mod = t.__module__.partition(".")[0]
    return f"a {t.__qualname__ if mod == 'builtins' else f'{mod}.{t.__qualname__}'}"


def _misplaced(kind: str, f: Any, args: tuple[Any, ...]) -> TypeError | None:
    """The error for a call whose ``f`` is no function -- a name (``rrule("sin", x)``) or an
    argument that belongs after it (``rrule(x, np.sin)``) -- or ``None`` when ``f`` is callable.
    Reached only when no rule is found, so the common call pays nothing for it."""
    if callable(f) and not isinstance(f, str):
        return None
    call = "cr.rrule(f, *args)" if kind == "rrule" else "cr.frule(tangents, f, *args)"
    head = "" if kind == "rrule" else "tangents, "
    if isinstance(f, str):
        family, _, name = f.rpartition(":")
        # a standard or NumPy name is NumPy's in the example; a dotted name that starts with an
        # imported module ("numpy.sin") is shown as given
        top = name.partition(".")[0]
        example = (
            f"scipy.{name}" if family == "scipy" else name if top in sys.modules else f"np.{name}"
        )
        xs = ", ".join(_placeholders(max(len(args), 1)))
        return TypeError(
            f"{kind}: its function argument f is {_what(f)}; expected the function itself (a "
            f"callable), as in {call}. Pass the function, not its name: "
            f"cr.{kind}({head}{example}, {xs}) (names such as 'sin' are for registering "
            f"rules: @cr.register_{kind}('sin'))"
        )
    fns = [i for i, a in enumerate(args) if callable(a) and not hasattr(a, "shape")]
    if fns:  # the function came later: the arguments were swapped
        fn = args[fns[0]]
        rest = [f, *(a for i, a in enumerate(args) if i != fns[0])]
        xs = ", ".join(_placeholders(len(rest)))
        return TypeError(
            f"{kind}: the function comes first: expected {call}, got {_what(f)} as f and "
            f"{_what(fn)} after it. Swap them: cr.{kind}({head}{function_name(fn)}, {xs})"
        )
    return TypeError(
        f"{kind}: its function argument f is {_what(f)}; expected the function to "
        f"differentiate (a callable) first, as in {call}, e.g. cr.{kind}({head}np.sin, x)"
    )


def _tangents_error(f: Any, tangents: Any, args: tuple[Any, ...]) -> TypeError | ValueError:
    """The error for an frule call whose ``tangents`` is not a tuple of one tangent for ``f``
    and one per positional argument; the suggested call is built from what was passed."""
    if callable(tangents) and not isinstance(tangents, tuple) and not hasattr(tangents, "shape"):
        # cr.frule(np.exp, x): the tangents were left out, so the function came first
        n = len(args) + 1
        xs = _placeholders(n)
        dxs = ", ".join(f"d{x}" for x in xs)
        return TypeError(
            f"frule: its first argument is the tangents tuple (f_dot, *arg_dots), then the "
            f"function, then its arguments; got {_what(tangents)} first. Pass the tangents: "
            f"cr.frule((cr.NoTangent(), {dxs}), {function_name(tangents)}, {', '.join(xs)}), "
            f"with {dxs} the tangent{'s' * (n > 1)} of {', '.join(xs)} (NoTangent() for f itself)"
        )
    n = len(args) + 1
    xs = _placeholders(len(args)) if args else []
    example = f"(cr.NoTangent(), {', '.join(f'd{x}' for x in xs)})" if xs else "(cr.NoTangent(),)"
    if isinstance(tangents, tuple):
        got = f"{len(tangents)} tangent{'s' * (len(tangents) != 1)}"
    else:
        got = type(tangents).__name__
    fix = "a tuple, not a list" if isinstance(tangents, list) else example
    return ValueError(
        f"frule of {function_name(f)}: expected a tuple of {n} tangents (f_dot, then one per "
        f"positional argument), got {got}; pass {fix}, as in "
        f"cr.frule({example}, {function_name(f)}{''.join(', ' + x for x in xs)})"
    )


def _not_an_array(kind: str, f: Any, args: tuple[Any, ...], err: BaseException) -> TypeError | None:
    """The error for an argument that is no array (``rrule(np.sin, [1.0, 2.0])``), naming the
    function and the argument, when the rule failed to find the namespace of ``args``' value of
    type ``err.got``; ``None`` for any other error."""
    if not isinstance(err, NotAnArrayError):
        return None
    pos = next((i for i, a in enumerate(args) if type(a) is err.got), None)
    if pos is None:
        return None  # from a keyword argument or a value the rule built: the message stands
    name = function_name(f)
    param = _param_name(f, pos)
    xs = _placeholders(len(args))
    xs[pos] = f"np.asarray({xs[pos]})"
    head = "" if kind == "rrule" else "tangents, "
    return TypeError(
        f"{kind} of {name}: argument {pos}{param} is {_what(args[pos])}; expected an array (or "
        f"a Python scalar). Convert it first: cr.{kind}({head}{name}, {', '.join(xs)}) -- or "
        f"xp.asarray with another array library's namespace xp"
    )


def _param_name(f: Any, pos: int) -> str:
    """`` ('x')``, the name of ``f``'s positional parameter ``pos`` in parentheses, or ``""``."""
    with contextlib.suppress(TypeError, ValueError):
        params = list(inspect.signature(f).parameters.values())
        if pos < len(params) and params[pos].kind in (
            inspect.Parameter.POSITIONAL_ONLY,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
        ):
            return f" ({params[pos].name!r})"
    return ""


class IntegerArgumentWarning(UserWarning):
    """:func:`rrule` was called with integer or boolean arrays only, for a floating result
    (``rrule(np.sin, np.arange(3))``): such arrays have no tangent space, so the pullback can give
    nothing but ``NoTangent()``. Cast the argument to floating point to differentiate it."""


def _kind_of(a: Any) -> str | None:
    """``b``/``i``/``f``/``c`` for an array or a Python number, ``None`` for anything else."""
    if type(a) in (bool, int, float, complex) or (
        not isinstance(a, type) and hasattr(a, "dtype") and hasattr(a, "shape")
    ):
        with contextlib.suppress(TypeError, AttributeError):
            return scalar_kind(a)
    return None


def _warn_integer_only(f: Any, args: tuple[Any, ...], y: Any) -> None:
    """Warn when every array among ``args`` is an integer or boolean one and ``y`` is floating:
    the pullback could then only answer ``NoTangent()`` (the silent case of ``rrule(np.sin,
    np.arange(3))``). Cheap: one look at each argument's dtype."""
    ints = []
    for i, a in enumerate(args):
        k = _kind_of(a)
        if k is None and not (a is None or isinstance(a, str)):
            return  # a sequence (np.choose's choices) may hold floating arrays; a dtype converts
        if k is not None and k in "fc":
            return
        if k is not None and k in "bi" and type(a) not in (bool, int):
            ints.append(i)
    if not ints:
        return
    ys = y if isinstance(y, tuple) else (y,)
    if not any((_kind_of(v) or "") in ("f", "c") for v in ys):
        return
    name = function_name(f)
    xs = _placeholders(len(args))
    for i in ints:
        xs[i] = f"{xs[i]}.astype(np.float64)"
    which = " and ".join(f"{i}{_param_name(f, i)}" for i in ints)
    dtypes = " and ".join(dict.fromkeys(str(args[i].dtype) for i in ints))
    what, it = ("argument", "it") if len(ints) == 1 else ("arguments", "them")
    are = "is an array" if len(ints) == 1 else "are arrays"
    warnings.warn(
        f"rrule of {name}: {what} {which} {are} of dtype {dtypes}; integer and boolean arrays "
        f"have no tangent space, so the pullback gives NoTangent() for {it} though {name}'s "
        f"result is floating. To differentiate with respect to {it}, cast first: "
        f"cr.rrule({name}, {', '.join(xs)})",
        IntegerArgumentWarning,
        stacklevel=3,
    )


def _no_rule(kind: str, f: Any) -> NoRuleError:
    name = function_name(f)
    other = find_frule(f) if kind == "rrule" else find_rrule(f)
    hint = f" (an {'frule' if kind == 'rrule' else 'rrule'} is registered for it)" if other else ""
    return NoRuleError(
        f"no {kind} is registered for {name}{hint}. Register one with "
        f"@chainrules.register_{kind}({name}) -- or for a function of the Array API standard by "
        f"its name, e.g. @chainrules.register_{kind}('sin') -- or declare it with "
        f"chainrules.non_differentiable({name})"
    )


# Arguments that hold axes: a refused call names the first that is no integer (axis=1.5).
_AXIS_PARAMS = (
    "axis",
    "axes",
    "axis1",
    "axis2",
    "axisa",
    "axisb",
    "axisc",
    "source",
    "destination",
)


def _not_an_axis(v: Any) -> bool:
    if v is None:
        return False
    if isinstance(v, (tuple, list)):
        return any(_not_an_axis(a) for a in v)
    if isinstance(v, bool):
        return True
    try:
        v.__index__()
    except (AttributeError, TypeError):
        return True
    return False


def _is_rule_name(head: str) -> bool:
    """Whether a message's ``head: ...`` names a registered function (``max``, ``prod``)."""
    short = head.rpartition(".")[2]
    return short.isidentifier() and any(
        isinstance(t, str) and t.rpartition(".")[2] == short for _, t in list(_REGISTRATIONS)
    )


def named_error(
    name: str,
    err: BaseException,
    kwargs: Any = None,
    bare: bool = True,
    aliases: tuple[str, ...] = (),
) -> BaseException | None:
    """``err`` (a ``TypeError`` or ``ValueError``) as the same type, its message naming ``name``,
    the function the user called: a message that names another registered function first
    (``max: ...`` from the rule ``amax`` shares, ``prod: ...`` from the rule ``nanprod`` calls) is
    renamed; with
    ``bare``, a message naming none (the library's own) is prefixed, with the axis-like keyword
    that is no integer if there is one. ``None`` when nothing changes or the type cannot carry a
    new message. ``aliases``: the other names of the same function object (``np.concat`` is
    ``np.concatenate``), which a message may name as well."""
    msg = str(err)
    head, sep, rest = msg.partition(": ")
    if sep and head.rpartition(".")[2] in (name, *aliases):
        return None
    if sep and head not in (kwargs or ()) and _is_rule_name(head):
        msg = f"{name}: {rest}"  # another rule's name, from a rule shared or called
    elif not bare:
        return None
    else:
        bad = next(
            (p for p in _AXIS_PARAMS if p in (kwargs or ()) and _not_an_axis(kwargs[p])), None
        )
        arg = f"{bad}={kwargs[bad]!r} is refused: " if bad is not None else ""
        msg = f"{name}: {arg}{msg}"
    try:
        new = type(err)(msg)
    except Exception:  # noqa: BLE001  (an exception type with its own constructor: keep it)
        return None
    return new if str(new) == msg else None


def _named(f: Any, e: _Installed | None, err: BaseException, kwargs: Any) -> BaseException | None:
    """``named_error`` for the called ``f`` (``amax`` for ``np.amax``); a bare message is prefixed
    for non-differentiable registrations only, whose rule is the library's own call."""
    if e is None:  # found on a first lookup, which resolved it
        with contextlib.suppress(TypeError):
            e = table._TABLE.get(f)
    full = (e.name if e is not None else None) or qualified_name(f)
    keys = [("callable", f)] if e is None else [("callable", f), *e.keys]
    regs = [_REGISTRATIONS.get(k) for k in keys]
    bare = any(r is not None and r.non_differentiable for r in regs)
    aliases = tuple(str(k[1]).rpartition(".")[2] for k in keys[1:])
    return named_error(full.rpartition(".")[2], err, kwargs, bare, aliases)
