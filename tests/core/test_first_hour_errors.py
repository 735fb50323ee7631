"""The mistakes of a first hour with chainrules (issue 30, item 6): each gets a message that names
the function, the argument, what was expected and the fix."""

from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.core.scalar import scalar_mode

X = np.array([0.5, 1.0])
DX = np.ones(2)


# --- a function passed by name, or after its arguments -----------------------------------------
def _call(kind: str, f: Any, *args: Any) -> Any:
    if kind == "rrule":
        return cr.rrule(f, *args)
    return cr.frule((cr.NoTangent(), *(DX for _ in args)), f, *args)


@pytest.mark.parametrize("kind", ["rrule", "frule"])
@pytest.mark.parametrize(
    ("name", "example"),
    [
        ("sin", "np.sin"),
        ("linalg.vector_norm", "np.linalg.vector_norm"),
        ("numpy:linalg.norm", "np.linalg.norm"),
        ("scipy:special.gammaln", "scipy.special.gammaln"),
        ("numpy.sin", "numpy.sin"),
    ],
)
def test_function_passed_by_its_name(kind: str, name: str, example: str) -> None:
    head = "" if kind == "rrule" else "tangents, "
    fix = f"cr.{kind}({head}{example}, x)"
    with pytest.raises(TypeError) as info:
        _call(kind, name, X)
    msg = str(info.value)
    assert msg.startswith(f"{kind}: its function argument f is the string {name!r}")
    assert "expected the function itself (a callable)" in msg
    assert f"Pass the function, not its name: {fix}" in msg


@pytest.mark.parametrize("kind", ["rrule", "frule"])
@pytest.mark.parametrize(
    ("f", "args", "fix"),
    [
        (X, (np.sin,), "numpy.sin, x)"),
        (X, (X, np.add), "numpy.add, x1, x2)"),
    ],
    ids=["sin", "add"],
)
def test_function_passed_after_its_arguments(
    kind: str, f: Any, args: tuple[Any, ...], fix: str
) -> None:
    head = "" if kind == "rrule" else "tangents, "
    with pytest.raises(TypeError) as info:
        _call(kind, f, *args)
    msg = str(info.value)
    assert msg.startswith(f"{kind}: the function comes first: expected cr.{kind}({head}f, *args)")
    assert "got a numpy.ndarray as f and the function numpy." in msg
    assert msg.endswith(f"Swap them: cr.{kind}({head}{fix}")


@pytest.mark.parametrize("kind", ["rrule", "frule"])
def test_something_that_is_no_function_first(kind: str) -> None:
    with pytest.raises(TypeError, match=rf"^{kind}: its function argument f is a numpy\.ndarray"):
        _call(kind, X, X)


def test_a_missing_rule_still_says_how_to_register_one() -> None:
    def mystery(x: Any) -> Any:
        return x

    with pytest.raises(cr.NoRuleError, match=r"no rrule is registered for .*mystery"):
        cr.rrule(mystery, X)


# --- frule without its tangents ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("f", "args", "fix"),
    [
        (np.exp, (X,), "cr.frule((cr.NoTangent(), dx), numpy.exp, x)"),
        (np.add, (X, X), "cr.frule((cr.NoTangent(), dx1, dx2), numpy.add, x1, x2)"),
    ],
    ids=["exp", "add"],
)
def test_frule_without_its_tangents_tuple(f: Any, args: tuple[Any, ...], fix: str) -> None:
    with pytest.raises(TypeError) as info:
        cr.frule(f, *args)  # type: ignore[arg-type]
    msg = str(info.value)
    assert msg.startswith("frule: its first argument is the tangents tuple (f_dot, *arg_dots)")
    assert f"got the function {cr.core.registry.function_name(f)} first" in msg
    assert f"Pass the tangents: {fix}" in msg
    assert "frule of ndarray" not in msg  # the old message named the array as the function
    y, _ = eval(
        fix, {"cr": cr, "numpy": np, "x": X, "x1": X, "x2": X, "dx": DX, "dx1": DX, "dx2": DX}
    )
    np.testing.assert_allclose(y, f(*args))  # the suggested call runs


@pytest.mark.parametrize(
    ("tangents", "got"),
    [((DX,), "got 1 tangent;"), ([cr.NoTangent(), DX], "got list; pass a tuple, not a list")],
    ids=["short", "list"],
)
def test_frule_with_a_wrong_tangents_tuple(tangents: Any, got: str) -> None:
    with pytest.raises(ValueError) as info:
        cr.frule(tangents, np.sin, X)
    msg = str(info.value)
    assert msg.startswith("frule of numpy.sin: expected a tuple of 2 tangents")
    assert got in msg and "cr.frule((cr.NoTangent(), dx), numpy.sin, x)" in msg


# --- a list where an array is expected -----------------------------------------------------------
@pytest.mark.parametrize("kind", ["rrule", "frule"])
@pytest.mark.parametrize("seq", [list, tuple])
@pytest.mark.parametrize(
    ("f", "args", "pos", "param", "fix"),
    [
        (np.sin, ([1.0, 2.0],), 0, "x", "numpy.sin, np.asarray(x))"),
        (np.add, (X, [1.0, 2.0]), 1, "x2", "numpy.add, x1, np.asarray(x2))"),
    ],
    ids=["sin", "add"],
)
def test_a_list_argument_names_function_and_argument(
    kind: str, seq: type, f: Any, args: tuple[Any, ...], pos: int, param: str, fix: str
) -> None:
    args = tuple(seq(a) if isinstance(a, list) else a for a in args)
    head = "" if kind == "rrule" else "tangents, "
    name = cr.core.registry.function_name(f)
    with pytest.raises(TypeError) as info:
        _call(kind, f, *args)
    msg = str(info.value)
    what = "a list" if seq is list else "a tuple"
    assert msg.startswith(
        f"{kind} of {name}: argument {pos} ('{param}') is {what}; expected an array"
    )
    assert f"Convert it first: cr.{kind}({head}{fix}" in msg


@pytest.mark.parametrize("transform", ["grad", "vjp", "jacobian", "jvp"])
@pytest.mark.parametrize(
    "body",
    [
        lambda v: np.sum(np.sin(v)),  # NumPy converts the list of tracers: a host read
        lambda v: np.sum(v * v),  # Python's list * list
    ],
    ids=["numpy", "operator"],
)
def test_a_list_into_ad_names_the_argument(transform: str, body: Any) -> None:
    def loss(v: Any) -> Any:
        return body(v)

    v = [1.0, 2.0]
    calls = {
        "grad": lambda: ad.grad(loss)(v),
        "vjp": lambda: ad.vjp(loss, v),
        "jacobian": lambda: ad.jacobian(loss)(v),
        "jvp": lambda: ad.jvp(loss, (v,), ([1.0, 0.0],)),
    }
    with pytest.raises(TypeError) as info:
        calls[transform]()
    msg = str(info.value)
    assert msg.startswith(f"{transform}: argument 0 ('v') of loss is a list of 2 floats;")
    assert "used it where an array is expected" in msg
    assert "If loss expects an array, pass one: np.asarray(v)" in msg
    assert "The error was TypeError: " in msg  # what loss raised, kept


def test_a_list_used_as_a_list_is_still_a_pytree() -> None:
    g = ad.grad(lambda v: v[0] * np.sin(v[1]))([2.0, 0.5])
    assert isinstance(g, list)
    np.testing.assert_allclose(g, [np.sin(0.5), 2.0 * np.cos(0.5)])
    np.testing.assert_allclose(  # the fix the message gives
        ad.grad(lambda v: np.sum(np.sin(v)))(np.asarray([1.0, 2.0])), np.cos([1.0, 2.0])
    )


# --- allowscalar without its parentheses ---------------------------------------------------------
def test_allowscalar_without_parentheses_in_a_with() -> None:
    with (
        pytest.raises(
            TypeError,
            match=re.escape("allowscalar is a function: use `with chainrules.allowscalar():`"),
        ),
        cr.allowscalar,  # type: ignore[attr-defined]
    ):
        pass


def test_allowscalar_without_parentheses_as_a_decorator() -> None:
    with pytest.raises(
        TypeError, match=re.escape("use @chainrules.allowscalar() (with parentheses) above first")
    ):

        @cr.allowscalar  # type: ignore[arg-type]
        def first(x: Any) -> float:
            return float(x[0])


def test_allowscalar_with_parentheses_still_works() -> None:
    outside = scalar_mode()
    with cr.allowscalar():
        assert scalar_mode() == "allowed"
    assert scalar_mode() == outside
    assert isinstance(cr.allowscalar(False), cr.allowscalar)
    with pytest.raises(ValueError, match="invalid scalar-indexing mode 'sometimes'"):
        cr.allowscalar("sometimes")  # type: ignore[arg-type]


# --- an integer array: NoTangent by contract, and saying so when it is used as an array ---------
@pytest.mark.parametrize("f", [np.sin, np.exp, np.sqrt])
def test_integer_argument_gets_no_tangent_that_explains_itself(f: Any) -> None:
    x = np.arange(1, 4)
    with pytest.warns(cr.IntegerArgumentWarning) as record:
        y, pullback = cr.rrule(f, x)
    (w,) = record
    assert w.filename == __file__  # points at the user's call
    name = cr.function_name(f)
    assert str(w.message) == (
        f"rrule of {name}: argument 0 ('x') is an array of dtype int64; integer and boolean "
        f"arrays have no tangent space, so the pullback gives NoTangent() for it though {name}'s "
        f"result is floating. To differentiate with respect to it, cast first: "
        f"cr.rrule({name}, x.astype(np.float64))"
    )
    np.testing.assert_allclose(y, f(x))
    _, dx = pullback(np.ones(3))
    assert dx is cr.NoTangent()  # DESIGN.md: integers have no tangent space
    with pytest.raises(AttributeError) as info:
        dx.shape  # used as the array it is not
    msg = str(info.value)
    assert msg.startswith("NoTangent() has no attribute 'shape': it is not an array")
    assert "an integer or boolean array" in msg
    assert "x.astype(np.float64)" in msg
    _, dxf = cr.rrule(f, x.astype(np.float64))[1](np.ones(3))  # the fix gives the cotangent
    assert dxf.shape == (3,)


@pytest.mark.parametrize(
    ("f", "args"),
    [
        (np.take, (np.ones(3), np.arange(2))),  # an index beside a floating array
        (np.multiply, (np.arange(3), 2.0)),  # a Python float is differentiable
        (np.floor_divide, (np.arange(3), np.arange(1, 4))),  # an integer result
        (np.add, (np.arange(3), 1)),  # an integer result from a Python int
        (np.sin, (0.5,)),  # no array at all
        (np.astype, (np.arange(3), np.float64)),  # a dtype: the call converts
        (np.choose, (np.array([0, 1]), [np.ones(2), np.zeros(2)])),  # a sequence of arrays
    ],
    ids=["take", "multiply-float", "floor_divide", "add-int", "python-float", "astype", "choose"],
)
def test_integer_arguments_that_do_not_warn(f: Any, args: tuple[Any, ...]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", cr.IntegerArgumentWarning)
        cr.rrule(f, *args)


def test_integer_argument_warning_names_every_integer_argument() -> None:
    name = cr.function_name(np.arctan2)
    with pytest.warns(cr.IntegerArgumentWarning) as record:
        cr.rrule(np.arctan2, np.arange(3), np.arange(1, 4, dtype=np.int32))
    assert str(record[0].message) == (
        f"rrule of {name}: arguments 0 ('x1') and 1 ('x2') are arrays of dtype int64 and int32; "
        f"integer and boolean arrays have no tangent space, so the pullback gives NoTangent() "
        f"for them though {name}'s result is floating. To differentiate with respect to them, "
        f"cast first: cr.rrule({name}, x1.astype(np.float64), x2.astype(np.float64))"
    )


@pytest.mark.parametrize("zero", [cr.NoTangent(), cr.ZeroTangent()], ids=repr)
def test_zero_markers_used_as_arrays(zero: Any) -> None:
    assert getattr(zero, "dtype", None) is None and not hasattr(zero, "shape")  # probes: a miss
    with pytest.raises(AttributeError, match=rf"^{re.escape(repr(zero))} has no attribute 'sum'"):
        zero.sum()
    with pytest.raises(AttributeError, match=r"chainrules\.is_zero"):
        zero.astype(np.float32)
    with pytest.raises(AttributeError, match=r"has no attribute '__array_namespace__'$"):
        zero.__array_namespace__  # a protocol probe: a plain miss
