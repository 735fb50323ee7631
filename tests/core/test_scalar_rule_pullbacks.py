"""scalar_rule's pullbacks, one path for every library (issue 27: the NumPy fast layer is gone).

* a cotangent handed in as a ``Thunk`` gives what the array gives: every elementwise formula rule,
  at its examples;
* a Python float operand's cotangent is deferred (no engine traces a Python number), as every
  operand's that costs a pass is from ``DEFER_SIZE`` elements on;
* ``tanh``'s and ``log1p``'s partials are written to allocate one buffer, on every library, with
  the formula's values.
"""

from __future__ import annotations

import tracemalloc
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.core.scalar_rule import DEFER_SIZE
from chainrules.rules.elementwise import exp_log, trigonometric
from chainrules.testing.backends import BACKENDS
from chainrules.testing.examples import examples_for
from chainrules.testing.suite import defined_in


def _formula_rules() -> list[cr.Registration]:
    """The elementwise formula rules (``scalar_rule``) of one or two arguments."""
    regs = []
    for reg in cr.registrations():
        if not defined_in(reg, "chainrules.rules.elementwise") or reg.non_differentiable:
            continue
        if reg.domain is None or len(reg.domain) not in (1, 2) or "bind" in reg.meta:
            continue
        if not all(isinstance(d, tuple) for d in reg.domain):
            continue  # an integer argument (ldexp's exponent): the examples are cast to floats
        if BACKENDS["numpy"].function(reg) is None:
            continue
        if getattr(reg.rrule, "__module__", "") != "chainrules.core.scalar_rule":
            continue  # a hand-written rule (abs, sign, conj)
        regs.append(reg)
    return regs


FORMULAS = _formula_rules()


def is_real(a: Any) -> bool:
    """A real floating NumPy array or scalar, or a Python float."""
    return type(a) is float or (isinstance(a, np.ndarray | np.generic) and a.dtype.kind == "f")


def same(a: object, b: object) -> None:
    """Equal type, and for arrays equal dtype, shape and values."""
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, np.ndarray | np.generic):
        assert a.dtype == b.dtype and a.shape == b.shape  # type: ignore[union-attr]
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b


def test_the_formula_rules_are_found() -> None:
    names = {r.name for r in FORMULAS}
    assert {"sin", "exp", "multiply", "atan2", "maximum", "numpy:logaddexp2"} <= names


@pytest.mark.parametrize("reg", FORMULAS, ids=lambda r: r.name)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_thunk_cotangent_gives_what_the_array_gives(reg: cr.Registration, dtype: type) -> None:
    f = BACKENDS["numpy"].function(reg)
    rng = np.random.default_rng(1)
    taken = 0
    for ex in examples_for(reg):
        if ex.complex:
            continue
        args = tuple(a.astype(dtype) if isinstance(a, np.ndarray) else a for a in ex.args)
        y, pb = cr.rrule(f, *args)
        g = np.asarray(rng.standard_normal(np.shape(y)).astype(np.asarray(y).dtype))
        direct = tuple(map(cr.unthunk, pb(g)))
        thunked = tuple(map(cr.unthunk, pb(cr.Thunk(lambda g=g: g))))  # type: ignore[misc]
        assert len(direct) == len(thunked)
        for a, b in zip(direct, thunked):
            same(a, b)
        taken += 1
    assert taken, f"no real example of {reg.name}"


@pytest.mark.parametrize("f", [np.multiply, np.add, np.divide, np.power])
def test_a_python_float_operands_cotangent_is_deferred(f: Any) -> None:
    for size in (3, DEFER_SIZE * 2):
        x = np.linspace(0.5, 1.5, size)
        g = np.cos(x)
        for args in ((x, 2.0), (2.0, x)):
            _, pb = cr.rrule(f, *args)
            out = pb(g)
            i = 1 if type(args[0]) is float else 2
            assert isinstance(out[i], cr.Thunk)  # no pass until a caller forces it
            assert isinstance(cr.unthunk(out[i]), np.floating)  # a scalar, as the operand
            # the value: the partial times the cotangent, summed (a Python float is a scalar)
            h = 1e-6
            shifted = [a + h if type(a) is float else a for a in args]
            fd = np.sum(g * (f(*shifted) - f(*args)) / h)
            np.testing.assert_allclose(cr.unthunk(out[i]), fd, rtol=1e-4)


# --- partials written in one buffer (log1p, tanh): the formula's values, half the allocations ----
_ONE_BUFFER = [
    ("log1p", exp_log._log1p_dx, lambda x, y: 1 / (1 + x)),
    ("tanh", trigonometric._tanh_dx, lambda x, y: 1 - y * y),
]


def _big(dtype: type) -> Any:
    """Large enough (512 KiB in float32) for NumPy to reuse a temporary (from 256 KiB on)."""
    x: Any = np.random.default_rng(5).uniform(-0.9, 3.0, 1 << 17).astype(dtype)
    x[:5] = [-1.0, np.inf, np.nan, -0.0, 1e30]  # a pole, the limits, NaN, a huge square
    return x


@pytest.mark.parametrize(("name", "partial", "formula"), _ONE_BUFFER, ids=["log1p", "tanh"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_one_buffer_partial_is_the_formula_and_allocates_once(  # type: ignore[no-untyped-def]
    name, partial, formula, dtype
) -> None:
    xp = cr.namespace_of(np.ones(1))
    x = _big(dtype)
    with np.errstate(all="ignore"):  # log1p(-1) = -inf, 1 / 0
        y = getattr(np, name)(x)
        got, want = partial(xp, y, x), formula(x, y)
        same(got, want)
        peaks = []
        for p in (lambda: partial(xp, y, x), lambda: formula(x, y)):
            tracemalloc.start()
            try:
                tracemalloc.reset_peak()
                p()
                peaks.append(tracemalloc.get_traced_memory()[1])
            finally:
                tracemalloc.stop()
    if dtype is np.float32 and name == "tanh":
        # NumPy reuses a float32 temporary for ``t - 1`` only with a float32 operand (a Python
        # int is not cast safely for its check): two buffers, as the plain formula
        assert peaks[0] <= peaks[1], (name, [p / x.nbytes for p in peaks])
        return
    assert peaks[0] < 1.5 * x.nbytes <= peaks[1], (name, [p / x.nbytes for p in peaks])


_OPERANDS = {  # name: (x, y) beside an array of 10 (the operands NumPy's method takes)
    "arrays": (np.linspace(0.2, 0.9, 10), np.linspace(1.1, 1.9, 10)),
    "NumPy scalar": (np.linspace(0.2, 0.9, 10), np.float64(1.5)),
    "0-d array first": (np.array(1.5), np.linspace(0.2, 0.9, 10)),
    "Python float": (1.5, np.linspace(0.2, 0.9, 10)),
    "Python int": (np.linspace(0.2, 0.9, 10), 2),
    "integer array": (np.arange(1, 11), np.linspace(0.2, 0.9, 10)),
    "two NumPy scalars": (np.float64(0.7), np.float64(1.3)),
    "0-d array and NumPy scalar": (np.array(0.7), np.float64(1.3)),
    "broadcast rows": (np.linspace(0.2, 0.9, 10).reshape(5, 2), np.array([1.5, 1.7])),
    "float32 arrays": (
        np.linspace(0.2, 0.9, 10, dtype=np.float32),
        np.linspace(1.1, 1.9, 10, dtype=np.float32),
    ),
    "float32 and float64": (np.linspace(0.2, 0.9, 10, dtype=np.float32), np.float64(1.5)),
}


@pytest.mark.parametrize("operands", list(_OPERANDS))
@pytest.mark.parametrize("f", [np.add, np.subtract, np.multiply, np.divide, np.power, np.hypot])
def test_numpys_binary_pullback_method_gives_the_generic_cotangents(f: Any, operands: str) -> None:
    """``binary_pullback_of``'s NumPy method against the generic pullback (``generic_only``), for
    every operand form it takes or leaves: the cotangents' types, shapes and values, a Thunk
    where the generic one defers, and the cotangent forms it hands to the generic pullback (a
    Python float, another dtype, a Thunk, a zero)."""
    from chainrules.core.scalar_rule import binary_pullback_of
    from chainrules.core.specialise import generic_only, record_methods

    x, y = _OPERANDS[operands]
    with record_methods() as used:
        out, pb = cr.rrule(f, x, y)
    with generic_only():
        out_ref, pb_ref = cr.rrule(f, x, y)
    assert type(out) is type(out_ref) and np.array_equal(out, out_ref)
    shape = np.shape(out)
    ct = np.asarray(np.linspace(-1.0, 2.0, int(np.prod(shape))).reshape(shape), out.dtype)
    cts = [ct[()] if type(out) is not np.ndarray else ct, ct.astype(np.float32)]
    if shape == ():
        cts.append(0.5)  # a Python float: the cotangent of a scalar
        cts.append(ct)  # a 0-d array: NumPy's other form of a 0-d value (a sum's seed)
    cts += [cr.Thunk(lambda: cts[0]), cr.ZeroTangent()]
    for c in cts:
        got, want = pb(c), pb_ref(c)
        assert len(got) == len(want) == 3
        for g, w in zip(got[1:], want[1:]):
            assert isinstance(g, cr.Thunk) == isinstance(w, cr.Thunk)
            g, w = cr.unthunk(g), cr.unthunk(w)
            assert type(g) is type(w), (g, w)
            if isinstance(w, np.ndarray | np.generic):
                assert g.dtype == w.dtype and np.shape(g) == np.shape(w)
                np.testing.assert_allclose(g, w, rtol=1e-15, atol=0)
    taken = operands not in ("broadcast rows", "float32 and float64")
    assert (binary_pullback_of in used) is taken


@pytest.mark.parametrize("f", [np.sin, np.exp, np.multiply, np.subtract, np.divide, np.power])
def test_a_0d_value_takes_numpys_pullback_in_either_form(
    f: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NumPy gives a 0-d value as a 0-d array or as a NumPy scalar (a ufunc of 0-d arrays
    returns a scalar, a sum's seed is a 0-d array): the NumPy methods take both forms, for the
    operands and for the cotangent, without building the generic pullback (which every step of
    ``x[0] ** 2 + x[0] * x[1]`` did), and give the generic cotangents' values."""
    import sys

    sr = sys.modules["chainrules.core.scalar_rule"]
    from chainrules.core.specialise import generic_only

    built: list[str] = []
    for spec in (sr.unary_pullback_of, sr.binary_pullback_of):
        generic = spec.generic
        monkeypatch.setattr(
            spec, "generic", lambda *a, _g=generic, **k: built.append("generic") or _g(*a, **k)
        )
    arity = 1 if f in (np.sin, np.exp) else 2
    forms = [np.asarray, np.float64]
    for kinds in np.ndindex(*(2,) * (arity + 1)):
        args = tuple(forms[k](v) for k, v in zip(kinds[:arity], (0.7, 1.3)))
        c = forms[kinds[-1]](-0.5)
        _, pb = cr.rrule(f, *args)
        got = [cr.unthunk(g) for g in pb(c)[1:]]
        assert built == [], (f, [type(a) for a in args], type(c))
        with generic_only():
            _, pb_ref = cr.rrule(f, *args)
            want = [cr.unthunk(w) for w in pb_ref(c)[1:]]
        built.clear()
        for g, w in zip(got, want):
            assert np.shape(g) == np.shape(w) == () and np.asarray(g).dtype == np.float64
            np.testing.assert_allclose(g, w, rtol=1e-15, atol=0)


def test_a_partial_marked_takes_numbers_gets_python_numbers_as_they_are() -> None:
    """A partial marked ``takes_numbers`` receives a Python float operand as the float (pow's:
    ``x ** 2.0``'s partial is ``2.0 * x``); every other partial a 0-d array of the output's dtype
    -- in the rrule's pullback (generic and NumPy's), in the frule and in a Hessian."""
    from chainrules import ad
    from chainrules.core.scalar_rule import takes_numbers

    seen: dict[str, list[type]] = {"marked": [], "plain": []}

    def scaled(x: Any, c: Any) -> Any:
        return x * c

    def marked(x: Any, c: Any) -> Any:
        return x * c

    @takes_numbers
    def d_marked(xp: Any, out: Any, x: Any, c: Any) -> Any:
        seen["marked"].append(type(c))
        return c * xp.ones_like(x) if type(c) is float else xp.ones_like(x) * c

    def d_plain(xp: Any, out: Any, x: Any, c: Any) -> Any:
        seen["plain"].append(type(c))
        return xp.ones_like(x) * c

    def d_c(xp: Any, out: Any, x: Any, c: Any) -> Any:
        return x

    cr.scalar_rule(marked, d_marked, takes_numbers(d_c), domain=((-1.0, 1.0), (-1.0, 1.0)))
    cr.scalar_rule(scaled, d_plain, d_c, domain=((-1.0, 1.0), (-1.0, 1.0)))
    traced_marked = cr.traceable(marked)
    traced_plain = cr.traceable(scaled)
    x = np.array([0.5, -0.25])
    for f, key in ((traced_marked, "marked"), (traced_plain, "plain")):
        seen[key].clear()
        g = ad.grad(lambda v, f=f: np.sum(f(v, 3.0) ** 2))(x)
        np.testing.assert_allclose(g, 2 * 9.0 * x)
        _, pb = cr.rrule(f, x, 3.0)
        np.testing.assert_allclose(cr.unthunk(pb(np.ones(2))[1]), [3.0, 3.0])
        _, dy = cr.frule((None, np.ones(2), cr.ZeroTangent()), f, x, 3.0)
        np.testing.assert_allclose(dy, [3.0, 3.0])
        h = ad.hessian(lambda v, f=f: np.sum(f(v, 3.0) ** 2))(x)
        np.testing.assert_allclose(h, 18.0 * np.eye(2))
    assert seen["marked"] and set(seen["marked"]) == {float}, seen
    assert seen["plain"] and float not in set(seen["plain"]), seen


def test_pow_of_a_python_float_exponent_is_one_operation_in_a_hessian() -> None:
    """``x ** 2.0``'s partial is ``2.0 * x``: its Hessian's forward trace records the product,
    not the general formula's masks (``where``, ``isinf``, ``pow``)."""
    from chainrules import ad
    from chainrules.ad._forward import ForwardTrace

    names: list[str] = []
    process = ForwardTrace.process

    def spy(self: Any, fn: Any, args: Any, kwargs: Any) -> Any:
        names.append(getattr(fn, "__name__", str(fn)))
        return process(self, fn, args, kwargs)

    x = np.array([0.3, -0.7, 1.1])
    ForwardTrace.process = spy  # type: ignore[method-assign]
    try:
        h = ad.hessian(lambda v: np.sum(v**2.0) + np.sum(v**3.0))(x)
    finally:
        ForwardTrace.process = process  # type: ignore[method-assign]
    np.testing.assert_allclose(h, np.diag(2.0 + 6.0 * x))
    assert "where" not in names and "isinf" not in names, names
