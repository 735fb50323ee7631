"""The scalar-indexing mode: whether device arrays may be read or written one element at a time.

On a GPU every single-element access from Python (``x[i]``, ``float(x)``, ``bool(x > 0)``,
iterating over an array) is a device->host synchronisation: a loop over elements turns one kernel
launch into ``n`` round trips. Julia's GPUArrays forbids such access unless it is explicitly
allowed (``allowscalar``); chainrules does the same for the arrays that ask for it -- the
CPU-backed :func:`chainrules.testing.device.device_array` stand-in, and any array type whose
element accessors call :func:`check_scalar`.

There are three modes:

``"allowed"``
    single-element access is silent;
``"warn"``
    the first access of each kind in the process emits a :class:`ScalarIndexingWarning`;
``"disallowed"``
    each access raises :class:`ScalarIndexingError` (the process default).

The mode lives in a :class:`contextvars.ContextVar`, so every thread and every asyncio task sees
its own: ``allowscalar()`` in one task does not let another task's rule through.

>>> import chainrules.core.scalar as sc
>>> sc.scalar_mode()
'disallowed'
>>> with sc.allowscalar():
...     sc.scalar_mode()
'allowed'
>>> sc.check_scalar("float(x)")  # doctest: +IGNORE_EXCEPTION_DETAIL
Traceback (most recent call last):
...
chainrules.core.scalar.ScalarIndexingError: float(x) was refused: ...
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import threading
import warnings
from collections.abc import Callable
from typing import Any, Literal, TypeVar

__all__ = [
    "MODES",
    "ScalarIndexingError",
    "ScalarIndexingWarning",
    "ScalarMode",
    "allowscalar",
    "check_scalar",
    "scalar_mode",
    "set_default_scalar_mode",
]

ScalarMode = Literal["allowed", "warn", "disallowed"]
MODES: tuple[ScalarMode, ...] = ("allowed", "warn", "disallowed")

_F = TypeVar("_F", bound=Callable[..., Any])


class ScalarIndexingError(RuntimeError):
    """A single element of a device array was read or written outside ``allowscalar()``."""


class ScalarIndexingWarning(UserWarning):
    """A single element of a device array was accessed in ``"warn"`` mode (once per kind)."""


# None means "the process default": a new thread starts from it, not from the creating thread's
# mode (threads do not inherit contexts), exactly like a fresh Julia task in GPUArrays.
_MODE: contextvars.ContextVar[ScalarMode | None] = contextvars.ContextVar(
    "chainrules_scalar_mode", default=None
)
# The tokens of the active `with allowscalar(...)` blocks, innermost last, per context (thread,
# asyncio task), not per object: one object may be entered by many threads and tasks at once,
# and each exit must restore the mode its own context had.
_ENTRIES: contextvars.ContextVar[tuple[tuple[Any, contextvars.Token[Any]], ...]] = (
    contextvars.ContextVar("chainrules_allowscalar_entries", default=())
)
_default: ScalarMode = "disallowed"
_warned: set[str] = set()
_warned_lock = threading.Lock()


def _normalize(mode: object) -> ScalarMode:
    """``True``/``False`` or one of :data:`MODES`; anything else is a ``ValueError``."""
    if mode is True:
        return "allowed"
    if mode is False:
        return "disallowed"
    if isinstance(mode, str) and mode in MODES:
        return mode
    raise ValueError(
        f"invalid scalar-indexing mode {mode!r}: use True (= 'allowed'), False (= 'disallowed') "
        "or one of 'allowed', 'warn', 'disallowed'"
    )


def scalar_mode() -> ScalarMode:
    """The mode in effect here: the innermost ``allowscalar`` or else the process default.

    >>> from chainrules.core.scalar import allowscalar, scalar_mode
    >>> with allowscalar("warn"):
    ...     scalar_mode()
    'warn'
    """
    mode = _MODE.get()
    return _default if mode is None else mode


def set_default_scalar_mode(mode: ScalarMode | bool) -> ScalarMode:
    """Set the process-wide default mode (initially ``"disallowed"``) and return the previous one.

    The default applies wherever no ``allowscalar`` is active, in every thread and task. An
    interactive session may prefer ``"warn"``; test suites keep ``"disallowed"``.

    >>> from chainrules.core.scalar import set_default_scalar_mode
    >>> previous = set_default_scalar_mode("warn")
    >>> set_default_scalar_mode(previous)
    'warn'
    """
    global _default
    new = _normalize(mode)
    previous, _default = _default, new
    return previous


def _refuse(what: str) -> ScalarIndexingError:
    return ScalarIndexingError(
        f"{what} was refused: it touches a single element of a device array, and on a GPU each "
        "such access is a device->host synchronisation (a loop over elements becomes one round "
        "trip per element). Use whole-array operations (where, masks, take, take_along_axis, "
        "scatter_add) -- or, where one access per call is really meant, allow it explicitly: "
        "`with chainrules.allowscalar(): ...`"
    )


def check_scalar(what: str, *, kind: str | None = None) -> None:
    """Called by an array type before a single-element read or write; obeys the current mode.

    Parameters
    ----------
    what
        The access, for the message: ``"x[2] (read of one element)"``, ``"float(x)"``.
    kind
        What ``"warn"`` mode warns once about (default: ``what``). Array types pass a kind without
        the index (``"read of one element"``) so that a loop warns once, not once per index.

    Raises
    ------
    ScalarIndexingError
        In ``"disallowed"`` mode, with a message naming ``what`` and how to allow it.

    Examples
    --------
    >>> from chainrules.core.scalar import allowscalar, check_scalar
    >>> with allowscalar():
    ...     check_scalar("x[0] (read of one element)")  # silent
    """
    # the hot path (called on every element access of a guarded array): one ContextVar read and
    # one comparison when the mode is "allowed"
    mode = _MODE.get()
    if mode == "allowed" or (mode is None and _default == "allowed"):
        return
    if (mode or _default) == "disallowed":
        raise _refuse(what)
    key = what if kind is None else kind
    with _warned_lock:  # only reached in "warn" mode
        if key in _warned:
            return
        _warned.add(key)
    warnings.warn(
        f"{what}: single-element access of a device array (a device->host synchronisation per "
        "element on a GPU); this warning is shown once per kind of access",
        ScalarIndexingWarning,
        stacklevel=3,
    )


def _reset_warnings() -> None:
    """Forget which kinds have warned (for tests of ``"warn"`` mode)."""
    with _warned_lock:
        _warned.clear()


class _CalledFirst(type):
    """The metaclass of ``allowscalar``: the class itself used as a context manager or decorator
    (``with allowscalar:``, ``@allowscalar``) -- instead of an instance, ``allowscalar()`` -- is
    a ``TypeError`` that says so, not Python's generic one. Instances are untouched."""

    def __enter__(cls) -> None:
        raise TypeError(
            f"{cls.__name__} is a function: use `with chainrules.{cls.__name__}():` (with "
            f"parentheses; `{cls.__name__}(False)` or `{cls.__name__}('warn')` for other modes)"
        )

    def __exit__(cls, *exc: object) -> None:  # never reached: __enter__ raises
        return None


# lower-case: used like a function, as Julia's allowscalar
class allowscalar(contextlib.ContextDecorator, metaclass=_CalledFirst):
    """Allow (or refuse, or warn about) single-element access of device arrays within a block.

    Usable as a context manager and as a decorator (also of ``async def`` functions); restores
    the previous mode on exit, also when an exception leaves the block, and nests.

    Parameters
    ----------
    mode
        ``True`` (``"allowed"``, the default), ``False`` (``"disallowed"``), or one of
        ``"allowed"``, ``"warn"``, ``"disallowed"``.

    Examples
    --------
    >>> import numpy as np
    >>> from chainrules.core.scalar import allowscalar, scalar_mode
    >>> with allowscalar():
    ...     with allowscalar(False):
    ...         scalar_mode()
    ...     scalar_mode()
    'disallowed'
    'allowed'
    >>> @allowscalar()
    ... def first(x):  # one read per call, not per element
    ...     return float(x[0])
    >>> first(np.array([1.5, 2.0]))
    1.5
    """

    def __init__(self, mode: ScalarMode | bool = True) -> None:
        try:
            self.mode: ScalarMode = _normalize(mode)
        except ValueError:
            if not callable(mode):
                raise
            # @allowscalar above a function: the decorator is allowscalar(), with parentheses
            raise TypeError(
                f"allowscalar takes a mode, not a function: use @chainrules.allowscalar() (with "
                f"parentheses) above {getattr(mode, '__name__', 'the function')}"
            ) from None

    def _recreate_cm(self) -> allowscalar:
        # ContextDecorator reuses `self` for every call by default; a fresh object per call keeps
        # recursive, threaded and concurrent-async calls of a decorated function independent
        return type(self)(self.mode)

    def __enter__(self) -> allowscalar:
        token = _MODE.set(self.mode)
        _ENTRIES.set((*_ENTRIES.get(), (self, token)))
        return self

    def __exit__(self, *exc: object) -> None:
        entries = _ENTRIES.get()
        for i in range(len(entries) - 1, -1, -1):  # the innermost entry of this object
            if entries[i][0] is self:
                break
        else:  # entered in another context only (a generator moved): this one never changed
            return
        token = entries[i][1]
        _ENTRIES.set(entries[:i] + entries[i + 1 :])
        try:
            _MODE.reset(token)
        except ValueError:  # the entry was inherited (an asyncio task created inside the block)
            _MODE.set(token.old_value if token.old_value is not contextvars.Token.MISSING else None)

    def __call__(self, func: _F) -> _F:
        if inspect.iscoroutinefunction(func):
            # ContextDecorator would leave the block before the coroutine even starts
            @functools.wraps(func)
            async def async_inner(*args: Any, **kwargs: Any) -> Any:
                with self._recreate_cm():
                    return await func(*args, **kwargs)

            return async_inner  # type: ignore[return-value]
        return super().__call__(func)

    def __repr__(self) -> str:
        return f"allowscalar({self.mode!r})"
