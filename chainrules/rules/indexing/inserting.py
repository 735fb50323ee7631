"""Rules for NumPy's functions that insert data into an array (``"numpy:NAME"``), in their
functional forms (``inplace=False``, ``jax.numpy``'s): ``put``, ``place``, ``put_along_axis`` and
``fill_diagonal``.

Maths note
----------
Every one is a *gather* (see :mod:`chainrules.rules._util.gather`): each output element comes
from the values where they were written and from ``a`` elsewhere. The function itself, called on
index arrays, gives the source of each output element; the pullback is one ``scatter_add`` of the
cotangent at those positions, the pushforward one ``take``. Repeated write positions keep the
value the library's own write keeps: the same function decides it for the index arrays (on a GPU,
where JAX leaves the winner of duplicate writes unspecified, the winner of the index write may
differ from the primal's).

NumPy's ``put``, ``place``, ``put_along_axis`` and ``fill_diagonal`` write into their first
argument and return ``None``: there is no output to differentiate, and a rule cannot express the
mutation. Their rules serve the functional calls (``jax.numpy``'s with ``inplace=False``) and
refuse the in-place ones with a ``TypeError`` that says so. ``copyto`` and ``putmask`` only
write in place: they are declared of kind ``"write"`` (no rules), which ``chainrules.ad``
refuses with an error naming the call and what to write instead -- NumPy calls ``copyto`` itself
inside ``full_like`` when the traced value is the fill, which NumPy does not dispatch on.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from ...core.prelude import *
from .._util.gather import axis_check, register_gather, simple_plan
from .._util.shape import ex, rng_arrays

__all__: list[str] = []  # rules only

_M = __name__


# --- the functional writes: put, place, put_along_axis, fill_diagonal -----------------------------
def _functional(name: str, target: str, *checks: Any) -> Any:
    """The ``prepare`` of :func:`simple_plan` for the write ``name``: its in-place call (into
    ``target``) refused, then each of ``checks`` run."""

    def check(a: dict[str, Any], ikw: dict[str, Any]) -> None:
        if a.get("inplace", True) is not False:
            raise TypeError(
                f"{name}: the call writes into `{target}` in place (NumPy's {name} returns "
                "None), so there is nothing to differentiate; the rule serves the functional "
                f"call, {name}(..., inplace=False) (jax.numpy's spelling). Or build the result "
                "with chainrules.scatter_add or where"
            )
        for c in checks:
            c(a, ikw)

    return check


def _write(f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The functional write: the library's own (``jax.numpy``), or, for NumPy and CuPy, whose
    function only writes in place, the write into a copy of the first argument."""
    if "inplace" in inspect.signature(f).parameters:
        return f(*args, **kwargs)
    if not args:
        raise TypeError(f"{f.__name__}: give the array to write into positionally")
    kw = {k: v for k, v in kwargs.items() if k != "inplace"}
    out = namespace_of(args[0]).asarray(args[0], copy=True)
    f(out, *args[1:], **kw)  # into the copy, which nobody else holds
    return out


# only in place, with no functional form in any library: declared, without rules
register_kind("numpy:copyto", "numpy:putmask", kind="write")

# NumPy's own functions take no inplace=False: the examples are refused there (the rule itself
# takes them on NumPy arrays, writing into a copy: the scalar-free column runs them)
_INPLACE = (Expect("numpy", "NumPy's function writes in place: it takes no inplace=False", "skip"),)


def _write_rule(
    name: str,
    template: Callable[..., None],
    params: dict[str, str],
    *checks: Any,
    expect: tuple[Expect, ...] = (),
) -> Callable[[Any], Any]:
    """Decorator of the examples: register the gather rules of the functional write
    ``"numpy:NAME"``, a :func:`simple_plan` whose sources are ``params`` (the first is the array
    written into), that refuses the in-place call (then runs ``checks``) and calls the function
    through :func:`_write`; ``expect`` adds to ``_INPLACE``."""

    def register(examples: Callable[[np.random.Generator], list[Any]]) -> Any:
        check = _functional(name, next(iter(params)), *checks)
        plan = simple_plan(name, template, params, check, call=_write)
        register_gather(name, plan, examples, _M, (*_INPLACE, *expect))
        return examples

    return register


def _functional_ex(
    args: tuple[Any, ...], kwargs: dict[str, Any] | None = None, *, note: str
) -> Any:
    """An example of the functional call: ``inplace=False``, then ``kwargs``."""
    return ex(args, {"inplace": False, **(kwargs or {})}, note=note)


@_write_rule(
    "put",
    lambda a, ind, v, mode=None, *, inplace=True: None,
    {"a": "array", "v": "array"},
)
def _put_ex(rng: np.random.Generator) -> list[Any]:
    r = rng_arrays(rng)
    return [
        _functional_ex((r(5), np.array([0, 3]), r(2)), note="two writes"),
        _functional_ex((r(2, 3), np.array([1, 4, 5]), r(1)), note="cycled values"),
        _functional_ex((r(4), np.array([1, 7]), r(2)), {"mode": "clip"}, note="mode='clip'"),
        _functional_ex((r(3, c=True), np.array([2]), r(1, c=True)), note="complex"),
    ]


@_write_rule(
    "place",
    lambda arr, mask, vals, *, inplace=True: None,
    {"arr": "array", "vals": "array"},
)
def _place_ex(rng: np.random.Generator) -> list[Any]:
    r = rng_arrays(rng)
    return [
        _functional_ex(
            (r(5), np.array([True, False, True, False, False]), r(2)), note="two writes"
        ),
        _functional_ex(
            (r(2, 2), np.array([[True, True], [False, True]]), r(2)), note="cycled values"
        ),
        _functional_ex((r(2, c=True), np.array([False, True]), r(1, c=True)), note="complex"),
    ]


@_write_rule(
    "put_along_axis",
    lambda arr, indices, values, axis, inplace=True, *, mode=None: None,
    {"arr": "array", "values": "array"},
    axis_check("put_along_axis", "arr"),
)
def _put_along_axis_ex(rng: np.random.Generator) -> list[Any]:
    r = rng_arrays(rng)
    return [
        _functional_ex((r(2, 3), np.array([[0], [2]]), r(2, 1), 1), note="one per row"),
        _functional_ex((r(3, 2), np.array([[1, 0]]), r(1, 2), 0), note="axis=0"),
        _functional_ex((r(2, 2), np.array([[1], [0]]), r(1), -1), note="broadcast values"),
        _functional_ex((r(2, 2, c=True), np.array([[0], [1]]), r(2, 1, c=True), 1), note="complex"),
    ]


@_write_rule(
    "fill_diagonal",
    lambda a, val, wrap=False, *, inplace=True: None,
    {"a": "array", "val": "array"},
    expect=tuple(
        Expect(col, "jax.numpy.fill_diagonal has no wrap=True", kind="skip", example="#2")
        for col in ("jax", "jit")
    ),
)
def _fill_diagonal_ex(rng: np.random.Generator) -> list[Any]:
    r = rng_arrays(rng)
    return [
        _functional_ex((r(3, 3), r()), note="0-d value"),
        _functional_ex((r(3, 3), r(3)), note="one value each"),
        _functional_ex((r(5, 2), r(2)), {"wrap": True}, note="wrap"),
        _functional_ex((r(2, 2, c=True), r(c=True)), note="complex"),
    ]
