"""The engine's error messages that point at the user's code: the line that called a function
with no rule, or the library function (NumPy's ``select``) through which a traced array reached
a host conversion. Frames are read here for messages only, never to decide anything."""

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
