"""The engine's error messages that point at the user's code: the line that called a function
with no rule, or the library function (NumPy's ``select``) through which a traced array reached
a host conversion; and the errors for what NumPy does not hand to the engine (docs/ad.md, "Plain
NumPy and SciPy code"): a traced value converted with ``numpy.asarray`` or written into a NumPy
array. Frames are read here for messages only (where it happened), never to decide anything:
what a message advises follows from the hook NumPy called and from SciPy's own array API flag."""

from __future__ import annotations

import os
import sys
import types
from typing import Any

from ..core.registry import NoRuleError, function_name


def no_rule(kind: str, fn: Any) -> NoRuleError:
    """``NoRuleError`` naming ``fn`` and the line of user code that called it."""
    where = user_frame()
    return NoRuleError(
        f"chainrules.ad: no {kind} is registered for {function_name(fn)}, called at {where}. "
        f"Register one with @chainrules.register_{kind}(...) (or declare the function "
        "with chainrules.non_differentiable) to differentiate through it"
    )


def in_place_write(fn: Any) -> TypeError:
    """The error for a function of kind ``"write"`` (``numpy.copyto``) called with traced
    arguments: it names the call, the user's line, and what to write instead."""
    return TypeError(
        f"chainrules.ad: {function_name(fn)}, called at {user_frame()}, writes a traced array "
        "into another array in place and returns None, so no derivative can come out of it. "
        "NumPy makes such a call itself where it dispatches a function on another argument than "
        "the traced one: np.full_like(a, fill_value) with a traced fill_value is one. Build the "
        "array from the traced value instead (fill_value * np.ones_like(a), np.broadcast_to, "
        "np.where), or write with chainrules.scatter_add or into an array created in traced code"
    )


def library_call() -> tuple[str, str] | None:
    """``(library's function, user's line)`` of the library function the user's code called
    that led here -- the outermost frame of an installed package (NumPy, SciPy) below the
    user's frame, as ``"numpy's select"`` -- or ``None`` when the user's code called in
    directly. For error messages only."""
    lib: types.FrameType | None = None
    f: types.FrameType | None = sys._getframe(1)
    while f is not None and _frame_kind(f) != "user":
        if _frame_kind(f) == "library":
            lib = f
        f = f.f_back
    if lib is None or f is None:
        return None
    package = str(lib.f_globals.get("__name__", "")).split(".")[0] or "a library"
    return f"{package}'s {lib.f_code.co_qualname}", _line_of(f)


_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _frame_kind(f: types.FrameType) -> str:
    """``"ours"`` (chainrules, or code with no file), ``"library"`` (an installed package, NumPy)
    or ``"user"``: where a frame's code comes from, for error messages."""
    name = f.f_code.co_filename
    if name.startswith(_PKG) or name.startswith("<"):
        return "ours"
    if "site-packages" in name or f"{os.sep}numpy{os.sep}" in name:
        return "library"
    return "user"


def _line_of(f: types.FrameType) -> str:
    """``file:line (source)`` of frame ``f``."""
    import linecache

    name = f.f_code.co_filename
    line = linecache.getline(name, f.f_lineno).strip()
    return f"{name}:{f.f_lineno}" + (f" ({line})" if line else "")


def user_frame() -> str:
    """``file:line: source`` of the innermost frame outside chainrules and the array libraries."""
    f: types.FrameType | None = sys._getframe(1)
    while f is not None:
        if _frame_kind(f) == "user":
            return _line_of(f)
        f = f.f_back
    return "<unknown>"


def _host_read_error(message: str, what: str) -> TypeError:
    """A ``TypeError`` for a traced value read on the host (``float(x)``, ``numpy.asarray(x)``),
    marked with the conversion (``chainrules_host_read``: ``"float(x)"``, ...) so that
    :func:`element_write` knows it as the engine's when NumPy chains it under its own error."""
    err = TypeError(message)
    err.chainrules_host_read = what  # type: ignore[attr-defined]
    return err


_FIX_FLOAT = {
    "bool(x)": "for control flow on values use array functions (np.where, np.maximum, ...)",
    "float(x)": "use NumPy's functions on arrays (np.exp(x), not math.exp(x)), and array "
    "functions (np.where, np.maximum, ...) for control flow on values",
}


def host_read(what: str) -> TypeError:
    """The error for ``what`` (``float(x)``, ``bool(x)``, ...) of a traced array."""
    fix = _FIX_FLOAT.get(what, _FIX_FLOAT["float(x)"])
    return _host_read_error(
        f"chainrules.ad: {what} of a traced array reads its value on the host, which cannot be "
        f"differentiated; {fix}",
        what,
    )


def scipy_array_api() -> bool | None:
    """Whether SciPy's array API mode is on: SciPy's own flag where SciPy has read it (at the
    import of ``scipy._lib``'s array API module), else the environment variable SciPy will read;
    ``None`` when SciPy is not imported."""
    for name in ("scipy._lib._array_api_override", "scipy._lib._array_api"):
        mod = sys.modules.get(name)
        if mod is not None and hasattr(mod, "SCIPY_ARRAY_API"):
            return bool(mod.SCIPY_ARRAY_API)
    if "scipy" not in sys.modules:
        return None
    return bool(os.environ.get("SCIPY_ARRAY_API", False))


def _library_advice() -> str:
    """What the asarray error says of a library function that converts its arguments, from
    SciPy's state."""
    mode = scipy_array_api()
    if mode is None:
        scipy = (
            "with SciPy, set SCIPY_ARRAY_API=1 in the environment before SciPy is imported (its "
            "Python functions then take traced arrays)"
        )
    elif not mode:
        scipy = (
            "SciPy is imported without its array API mode: set SCIPY_ARRAY_API=1 in the "
            "environment before SciPy is imported (its Python functions then take traced arrays)"
        )
    else:
        scipy = (
            "SciPy's array API mode is on (SCIPY_ARRAY_API=1), and some of its functions still "
            "convert (scipy.stats' distributions, where a method has no rule or was looked up "
            "before the transformation): use chainrules.ad.scipy"
        )
    return (
        f"{scipy}; scipy.linalg's functions with rules are recorded through them when called as "
        "scipy.linalg.NAME, not through a name imported with `from scipy.linalg import NAME` "
        "before the transformation (call it as scipy.linalg.NAME or from chainrules.ad.scipy"
        ".linalg); any other function: wrap it with chainrules.traceable and register its rules"
    )


def array_conversion() -> TypeError:
    """The error for ``numpy.asarray`` of a traced array (``__array__``), which NumPy calls where
    it does not hand the call to the engine. The hook cannot tell which of the patterns below
    called it (``np.asarray(t, dtype=float)`` and ``out[1:] = t`` call it alike), so the message
    lists them, each with its alternatives, and says where it happened when a library function
    was between the user's line and the conversion."""
    where = library_call()
    inside = "" if where is None else f"\nIt happened inside {where[0]}, called at {where[1]}."
    return _host_read_error(
        "chainrules.ad: numpy.asarray(x) of a traced array reads its value on the host, which "
        "cannot be differentiated. NumPy calls it where it does not hand the call to the "
        "engine:\n"
        "- np.array / np.asarray / np.r_ / np.c_ of traced values, or a list of them where NumPy "
        "expects an array (np.sum([a, b])): build it with np.stack([...]) or np.concatenate, or "
        "use the drop-in namespace (import chainrules.ad.numpy as np), whose array and asarray "
        "take traced values;\n"
        "- a write of a traced value into a NumPy array (out = np.zeros(n); out[1:] = expr): "
        "create out with chainrules.ad.numpy's zeros (the engine records writes into it), add "
        "into it with chainrules.scatter_add, or build the result with np.stack / "
        "np.concatenate;\n"
        f"- a library function that converts its arguments with numpy.asarray: {_library_advice()}"
        "; a NumPy function given the traced array in an argument it does not dispatch on "
        "(select's default, pad's constant_values): pass it where the function takes arrays."
        + inside,
        "numpy.asarray(x)",
    )


def element_write(err: BaseException) -> TypeError | None:
    """The error for NumPy's ``ValueError("setting an array element with a sequence.")`` that
    replaced the engine's refusal of ``float(x)``: NumPy stores a Python number into an element
    of a NumPy array with ``float()`` (``out[i] = expr``) and, when that fails on an object with
    ``__getitem__`` (a tracer), raises its own error with the engine's as its cause. ``None`` for
    any other exception."""
    what = getattr(err.__cause__, "chainrules_host_read", None)
    if not isinstance(err, ValueError) or what not in ("float(x)", "complex(x)", "int(x)"):
        return None
    return TypeError(
        "chainrules.ad: a traced value was written into an element of a NumPy array (out = "
        "np.zeros(n); out[i] = expr, or np.fromiter): NumPy stores it with "
        f"{what}, which reads its value on the host, and the derivative would be lost "
        "(NumPy said: setting an array element with a sequence). Create out with "
        "chainrules.ad.numpy's zeros (import chainrules.ad.numpy as np: the engine records "
        "writes into its arrays), add into it with chainrules.scatter_add, or build the result "
        "with np.stack / np.concatenate"
    )
