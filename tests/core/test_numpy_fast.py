"""The NumPy fast paths of scalar_rule's pullbacks (chainrules.core.numpy_fast) give exactly what
the generic path gives: for every elementwise formula rule of the library, at its examples."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.core import numpy_fast
from chainrules.testing.backends import BACKENDS
from chainrules.testing.examples import examples_for


def _formula_rules() -> list[cr.Registration]:
    regs = []
    for reg in cr.registrations():
        module = str(reg.module)
        if module != "chainrules.rules.elementwise" or reg.non_differentiable:
            continue
        if reg.domain is None or len(reg.domain) not in (1, 2):
            continue
        if "bind" in reg.meta or BACKENDS["numpy"].function(reg) is None:
            continue
        if getattr(reg.rrule, "__name__", "") != "scalar_rrule":
            continue  # a hand-written rule (abs, sign, conj): no fast path of this module
        regs.append(reg)
    return regs


FORMULAS = _formula_rules()


def _same(a: object, b: object) -> None:
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, (np.ndarray, np.generic)):
        assert a.dtype == b.dtype and a.shape == b.shape  # type: ignore[union-attr]
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b


def test_the_formula_rules_are_found() -> None:
    names = {r.name for r in FORMULAS}
    assert {"sin", "exp", "multiply", "atan2", "maximum", "numpy:logaddexp2"} <= names


@pytest.mark.parametrize("reg", FORMULAS, ids=lambda r: r.name)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fast_path_agrees_with_the_generic_path(reg: cr.Registration, dtype: type) -> None:
    f = BACKENDS["numpy"].function(reg)
    rng = np.random.default_rng(1)
    taken = 0
    for ex in examples_for(reg):
        if ex.complex:
            continue
        args = tuple(a.astype(dtype) if isinstance(a, np.ndarray) else a for a in ex.args)
        y, pb = cr.rrule(f, *args)
        if not all(numpy_fast.is_real(a) for a in args):
            continue  # an integer or boolean operand: the generic path only
        g = rng.standard_normal(np.shape(y)).astype(np.asarray(y).dtype)
        if not isinstance(g, np.ndarray):
            g = np.asarray(g)
        fast = tuple(map(cr.unthunk, pb(g)))  # a Python float's cotangent is deferred
        generic = pb(cr.Thunk(lambda g=g: g))  # a thunk is never taken by the fast path
        assert pb.__name__ == "real_pullback", pb.__name__
        assert len(fast) == len(generic)
        for a, b in zip(fast, generic):
            _same(a, b)
        taken += 1
    assert taken, f"no real example of {reg.name} took the fast path"


@pytest.mark.parametrize("f", [np.multiply, np.add, np.divide, np.power])
@pytest.mark.parametrize("size", [3, 1 << 15])  # below and above DEFER_SIZE
def test_a_python_float_operands_cotangent_is_deferred(f, size) -> None:  # type: ignore[no-untyped-def]
    x = np.linspace(0.5, 1.5, size)
    g = np.cos(x)
    for args in ((x, 2.0), (2.0, x)):
        _, pb = cr.rrule(f, *args)
        out = pb(g)
        i = 1 if type(args[0]) is float else 2
        assert isinstance(out[i], cr.Thunk)  # no pass until a caller forces it
        _same(cr.unthunk(out[i]), pb(cr.Thunk(lambda: g))[i])  # a thunk: the generic path
        _same(cr.unthunk(out[3 - i]), cr.unthunk(pb(cr.Thunk(lambda: g))[3 - i]))


@pytest.mark.parametrize("name", ["sum", "mean"])
@pytest.mark.parametrize(
    ("shape", "kwargs"),
    [
        ((5,), {}),
        ((3, 4), {"axis": 0}),
        ((3, 4), {"axis": -1, "keepdims": True}),
        ((2, 3, 4), {"axis": (0, 2)}),
        ((2, 3, 4), {}),
        ((), {}),
        ((3, 4), {"keepdims": True}),
    ],
)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sum_fast_path_agrees_with_numpy_and_the_generic_path(name, shape, kwargs, dtype) -> None:  # type: ignore[no-untyped-def]
    f = getattr(np, name)
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape).astype(dtype)
    y, pb = cr.rrule(f, x, **kwargs)
    ref = f(x, **kwargs)
    assert type(y) is type(ref)  # a NumPy scalar for a full reduction, as NumPy's own
    _same(y, ref)
    g = np.asarray(rng.standard_normal(np.shape(y))).astype(dtype)
    fast = pb(g)
    assert pb.__name__ == "sum_pullback" and fast[1].base is not None  # the view, no copy
    generic = pb(cr.Thunk(lambda: g))  # a thunk: the toolkit's pullback
    assert len(fast) == len(generic) == 2
    _same(fast[0], generic[0])
    np.testing.assert_array_equal(fast[1], generic[1])
    assert fast[1].dtype == generic[1].dtype and fast[1].shape == x.shape
    assert pb(cr.ZeroTangent()) == (cr.NoTangent(), cr.ZeroTangent())
    chunk = pb(np.stack([g, 2 * g]), chunk=1)[1]  # a chunk: the general path
    np.testing.assert_array_equal(chunk[1], 2 * np.asarray(generic[1]))


@pytest.mark.parametrize(
    "shapes", [((3, 4), (4, 2)), ((3, 4), (4,)), ((4,), (4, 2)), ((1, 1), (1,))]
)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_matmul_fast_path_agrees_with_numpy_and_the_generic_path(shapes, dtype) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(5)
    a, b = (rng.standard_normal(s).astype(dtype) for s in shapes)
    y, pb = cr.rrule(np.matmul, a, b)
    _same(y, np.matmul(a, b))
    g = rng.standard_normal(y.shape).astype(dtype)
    fast = pb(g)
    assert pb.__name__ == "matmul_pullback" and pb.__module__ == numpy_fast.__name__
    assert all(isinstance(t, cr.Thunk) for t in fast[1:])  # only the cotangents asked for
    generic = pb(cr.Thunk(lambda: g))  # a thunk: the generic rule's pullback
    assert len(fast) == len(generic) == 3
    for f_, g_ in zip(fast[1:], generic[1:]):
        f_, g_ = cr.unthunk(f_), cr.unthunk(g_)
        assert type(f_) is type(g_) and f_.dtype == g_.dtype and f_.shape == g_.shape
        np.testing.assert_allclose(f_, g_, rtol=1e-6 if dtype == np.float32 else 1e-13)
    chunk = pb(np.stack([g, 2 * g]), chunk=1)  # a chunk: the generic rule's pullback
    np.testing.assert_allclose(cr.unthunk(chunk[2])[1], 2 * cr.unthunk(generic[2]), rtol=1e-6)
    assert pb(cr.ZeroTangent())[1:] == (cr.ZeroTangent(), cr.ZeroTangent())


def test_matmul_fast_path_declines() -> None:
    m, v = np.ones((2, 2)), np.ones(2)

    def slow(y: Any) -> Any:  # never built: each call declines
        raise AssertionError

    for a, b in [
        (v, v),  # two vectors: a 0-d product
        (m, m.astype(np.float32)),  # mixed dtypes: promotion and projection
        (m + 0j, m + 0j),  # complex: conjugates
        (np.ones((2, 2, 2)), m),  # a stack
        (np.ones((0, 2)), m),  # empty
        (m.astype(int), m.astype(int)),
        (2.0, m),
    ]:
        assert numpy_fast.matmul_rrule(a, b, slow) is None


def test_extremum_fast_path_counts_many_ties_exactly() -> None:
    # 3000 ties in float16, past float16's exact integers step of 1 (2048): each gets 1/3000
    x = np.ones((2, 3000), dtype=np.float16)
    _, pb = cr.rrule(np.max, x, axis=1, keepdims=True)
    g = np.ones((2, 1), dtype=np.float16)
    fast = pb(g)[1]
    _same(fast, pb(cr.Thunk(lambda: g))[1])
    np.testing.assert_array_equal(fast, np.full(x.shape, np.float16(1 / 3000)))


@pytest.mark.parametrize("name", ["max", "min", "amax"])
@pytest.mark.parametrize(
    ("x", "kwargs"),
    [
        ([1.0, -3.0, 3.0, 2.0, 3.0], {}),  # a tie: shared equally
        ([[1.0, 5.0, 5.0], [2.0, 2.0, 1.0]], {"axis": 1}),
        ([[1.0, 5.0, 5.0], [2.0, 2.0, 1.0]], {"axis": 0, "keepdims": True}),
        ([[1.0, 5.0, 5.0], [2.0, 2.0, 1.0]], {"keepdims": True}),
        ([[[1.0, 2.0], [2.0, 0.0]], [[2.0, -1.0], [0.5, 2.0]]], {"axis": (0, 2)}),
        ([1.0, np.nan, 2.0], {}),  # NaN: no element equals the extremum, cotangent 0
        ([[np.nan, 1.0], [2.0, 2.0]], {"axis": -1}),
        (4.0, {}),  # 0-d
    ],
)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_extremum_fast_path_agrees_with_numpy_and_the_generic_path(name, x, kwargs, dtype) -> None:  # type: ignore[no-untyped-def]
    f = getattr(np, name)
    x = np.asarray(x, dtype=dtype)
    y, pb = cr.rrule(f, x, **kwargs)
    ref = f(x, **kwargs)
    assert type(y) is type(ref)  # a NumPy scalar for a full reduction, as NumPy's own
    np.testing.assert_array_equal(y, ref)
    g = np.asarray(np.random.default_rng(3).standard_normal(np.shape(y))).astype(dtype)
    fast = pb(g)
    assert pb.__module__ == numpy_fast.__name__
    generic = pb(cr.Thunk(lambda: g))  # a thunk: the rule's general pullback
    assert len(fast) == len(generic) == 2
    _same(fast[1], generic[1])
    assert pb(cr.ZeroTangent()) == (cr.NoTangent(), cr.ZeroTangent())


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_abs_fast_path_agrees_with_numpy_and_the_generic_path(dtype) -> None:  # type: ignore[no-untyped-def]
    x = np.array([[-2.0, -0.0, 0.0, 3.0], [np.inf, -np.inf, np.nan, 1e-300]], dtype=dtype)
    y, pb = cr.rrule(np.abs, x)
    _same(y, np.abs(x))
    g = np.random.default_rng(4).standard_normal(x.shape).astype(dtype)
    fast = pb(g)
    assert pb.__module__ == numpy_fast.__name__
    _same(fast[1], pb(cr.Thunk(lambda: g))[1])  # a thunk: the generic pullback
    assert numpy_fast.abs_rrule(np.float64(2.0), lambda out: None) is None  # 0-d: generic
    assert numpy_fast.abs_rrule(x + 1j, lambda out: None) is None  # complex: generic


def test_project_declines_what_needs_a_projector() -> None:
    x = np.ones((2, 3))
    assert numpy_fast.project(x, np.ones((2, 3))) is not None
    assert numpy_fast.project(x, np.ones(3)) is None  # broadcast: ProjectTo sums
    assert numpy_fast.project(x, np.ones((2, 3), np.float32)) is None  # another dtype
    assert numpy_fast.project(1.0, np.ones(3)) == 3.0  # a Python float: summed
    assert numpy_fast.project(1.0, np.ones(3, complex)) is None
    assert not numpy_fast.is_real(np.ones(2, complex)) and not numpy_fast.is_real(1)


@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 3, 4), (0,)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("keepdims", [False, True])
def test_vector_norm_fast_path_agrees(shape, dtype, keepdims) -> None:  # type: ignore[no-untyped-def]
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    fast = numpy_fast.vector_norm(x, None, keepdims, 2)
    ref = np.linalg.vector_norm(x, keepdims=keepdims)
    assert fast.dtype == ref.dtype and np.shape(fast) == np.shape(ref)
    np.testing.assert_allclose(fast, ref, rtol=1e-6 if dtype == np.float32 else 1e-14)


def test_vector_norm_fast_path_declines() -> None:
    x = np.ones(3)
    assert numpy_fast.vector_norm(x, 0, False, 2) is None
    assert numpy_fast.vector_norm(x, None, False, 1) is None
    assert numpy_fast.vector_norm(x + 0j, None, False, 2) is None
    assert numpy_fast.vector_norm([1.0, 2.0], None, False, 2) is None


@pytest.mark.parametrize("b", ["array", "float", "generic"])
def test_masked_product_fast_path_agrees(b) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(1)
    mask = rng.random((3, 4)) > 0.6
    a = rng.standard_normal((3, 4))
    other = {"array": rng.standard_normal((1, 4)), "float": 2.5, "generic": np.float64(-1.5)}[b]
    fast = numpy_fast.masked_product(mask, a, other)
    ref = np.where(mask, a * other, 0.0)
    assert fast.shape == ref.shape and fast.dtype == ref.dtype
    np.testing.assert_array_equal(fast, ref)


def test_masked_product_fast_path_declines() -> None:
    assert numpy_fast.masked_product([True], np.ones(1), np.ones(1)) is None
    assert numpy_fast.masked_product(np.ones(1, bool), [1.0], np.ones(1)) is None


# --- the host checks that skip a limit's masks agree with the masked formulas ---------------------
def test_cumprod_back_agrees_with_the_division_free_scan() -> None:
    xps = pytest.importorskip("array_api_strict")
    rng = np.random.default_rng(3)
    for x in (rng.uniform(0.5, 1.5, (4, 6)), rng.standard_normal((3, 5)) + 1j):
        g = rng.standard_normal(x.shape)
        assert numpy_fast.cumprod_back(x, g, 1, x.dtype.kind == "c") is not None
        _, pb = cr.rrule(np.cumprod, x, axis=1)
        _, pbs = cr.rrule(xps.cumulative_prod, xps.asarray(x), axis=1)
        np.testing.assert_allclose(pb(g)[1], np.asarray(pbs(xps.asarray(g))[1]), rtol=1e-12)
    # a zero or an overflow: the fast path declines, and the scan's exact partials are used
    assert numpy_fast.cumprod_back(np.array([2.0, 0.0, 3.0]), np.ones(3), 0, False) is None
    assert numpy_fast.cumprod_back(np.array([1e300, 1e300]), np.ones(2), 0, False) is None
    assert numpy_fast.cumprod_back(xps.ones(3), xps.ones(3), 0, False) is None


# --- partials written in one buffer (log1p, tanh): the formula's values, half the allocations ----
_ONE_BUFFER = [
    ("log1p", numpy_fast.reciprocal_1p, lambda x, y: 1 / (1 + x)),
    ("tanh", numpy_fast.one_minus_square, lambda x, y: 1 - y * y),
]


def _big(dtype: type) -> Any:
    x: Any = np.random.default_rng(5).uniform(-0.9, 3.0, 2 * numpy_fast.INPLACE_SIZE).astype(dtype)
    x[:5] = [-1.0, np.inf, np.nan, -0.0, 1e30]  # a pole, the limits, NaN, a huge square
    return x


@pytest.mark.parametrize(("name", "fast", "formula"), _ONE_BUFFER, ids=["log1p", "tanh"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_one_buffer_partial_is_the_formula(name, fast, formula, dtype) -> None:  # type: ignore[no-untyped-def]
    x = _big(dtype)
    with np.errstate(all="ignore"):  # log1p(-1) = -inf, 1 / 0
        y = getattr(np, name)(x)
        got, want = fast(x if name == "log1p" else y), formula(x, y)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    # small, integer, complex and non-NumPy arguments keep the formula
    assert fast(np.ones(3, dtype)) is None and fast(np.ones(numpy_fast.INPLACE_SIZE, int)) is None
    assert fast(np.ones(numpy_fast.INPLACE_SIZE, complex)) is None and fast([1.0] * 5000) is None


@pytest.mark.parametrize(("name", "fast", "formula"), _ONE_BUFFER, ids=["log1p", "tanh"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_one_buffer_pullback_agrees_and_its_partial_allocates_once(  # type: ignore[no-untyped-def]
    name, fast, formula, dtype
) -> None:
    """The pullback agrees with the generic path; its partial takes one buffer where the formula
    takes two. (The product with the cotangent is a new array: no pullback writes into a buffer
    it cannot prove it owns, and ownership is never inferred from a reference count.)"""
    import tracemalloc

    f = getattr(np, name)
    x = _big(dtype)[5:]  # finite, away from the pole
    g: Any = np.random.default_rng(6).standard_normal(x.shape).astype(dtype)
    y, pb = cr.rrule(f, x)
    fast_ct = pb(g)[1]
    _same(fast_ct, pb(cr.Thunk(lambda: g))[1])  # the generic path's cotangent
    arg = x if name == "log1p" else y
    peaks = []
    for partial in (fast, lambda a: formula(x, y)):
        tracemalloc.start()
        try:
            tracemalloc.reset_peak()
            partial(arg)
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
    assert peaks[0] < 1.5 * x.nbytes <= peaks[1], (name, [p / x.nbytes for p in peaks])


@pytest.mark.parametrize("name", ["log1p", "tanh", "sin", "exp", "multiply"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("value", [1.0, -1.0, 2.5])
def test_a_broadcast_constant_cotangent(name: str, dtype: type, value: float) -> None:
    """``sum``'s pullback hands the next pullback one value broadcast (zero strides). A partial
    that is a fresh temporary (log1p, tanh, sin) is then the cotangent of a 1 itself, with no
    pass; a partial that someone holds (exp's output, multiply's other operand) is multiplied,
    never handed out. Every value equals the generic path's."""
    f = getattr(np, name)
    x = _big(dtype)[5:]
    c = (x[::-1] + 2.0).astype(dtype)
    args = (x, c) if name == "multiply" else (x,)
    y, pb = cr.rrule(f, *args)
    _, spb = cr.rrule(np.sum, y)
    y_bar = spb(np.asarray(value, dtype))[1]  # the view that sum's pullback gives
    assert y_bar.strides == (0,)
    got = tuple(map(cr.unthunk, pb(y_bar)))
    want = pb(cr.Thunk(lambda: np.full(y.shape, value, dtype)))  # the generic path
    for a, b in zip(got, want):
        _same(a, b)
    for a in got[1:]:
        assert not any(np.shares_memory(a, v) for v in (x, c, y))


def test_reads_param_finds_the_partials_that_read_the_output() -> None:
    assert not numpy_fast.reads_param(lambda xp, out, x, y: y * x, False)
    assert not numpy_fast.reads_param(lambda xp, out, x, y: out, True)  # a constant partial
    assert numpy_fast.reads_param(lambda xp, out, x, y: -out / y, False)
    assert numpy_fast.reads_param(lambda xp, y, x: (lambda: y)(), False)  # a closure over it
    assert numpy_fast.reads_param(lambda xp, out, x: locals()["out"], False)
    assert numpy_fast.reads_param(lambda *a: a[1], False)
    assert numpy_fast.reads_param(np.cos, False)  # no Python code: it may
    # parameter 2, a unary rule's argument
    assert not numpy_fast.reads_param(lambda xp, out, x: out, False, 2)
    assert numpy_fast.reads_param(lambda xp, out, x: 1 / (1 + x), False, 2)
    assert not numpy_fast.reads_param(lambda xp, out, x: 1 / (1 + x), False, 1)
    assert numpy_fast.reads_param(lambda xp, out: out, False, 2)  # no such parameter: it may
    assert numpy_fast.reads_param(lambda xp, out, *a: a[0], False, 2)


@pytest.mark.parametrize(
    ("name", "x_freed", "out_freed"),
    [("exp", True, False), ("log1p", False, True), ("sin", False, True), ("tanh", True, False)],
)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_large_array_no_unary_partial_reads_is_not_kept(
    name: str, x_freed: bool, out_freed: bool, dtype: type
) -> None:
    """A unary rule's pullback keeps the record of a large argument (exp, tanh: the partial
    reads the output) or output (log1p, sin: the partial reads the argument) it never reads,
    not the array; the cotangents equal the generic path's (a thunk cotangent takes it)."""
    import gc
    import weakref

    x = np.random.default_rng(5).uniform(0.25, 3.0, 2 * numpy_fast.INPLACE_SIZE).astype(dtype)
    xc = x.copy()
    y, pb = cr.rrule(getattr(np, name), x)
    yc = y.copy()
    refs = weakref.ref(x), weakref.ref(y)
    del x, y
    gc.collect()
    assert (refs[0]() is None, refs[1]() is None) == (x_freed, out_freed)
    g = np.cos(xc)
    _same(pb(g)[1], cr.unthunk(pb(cr.Thunk(lambda: g))[1]))
    d = {"exp": yc, "log1p": 1 / (1 + xc), "sin": np.cos(xc), "tanh": 1 - yc * yc}[name]
    np.testing.assert_allclose(pb(g)[1], g * d, rtol=1e-6 if dtype == np.float32 else 1e-14)


@pytest.mark.parametrize(("name", "freed"), [("multiply", True), ("add", True), ("divide", False)])
def test_a_large_output_no_partial_reads_is_not_kept(name: str, freed: bool) -> None:
    """multiply's and add's partials never read the output: their pullbacks keep its record, so
    ``Y * Z`` before a ``sum`` is freed once summed. divide's partial reads it: kept. The
    cotangents are the same either way (a thunk takes the generic path, with the record)."""
    import gc
    import weakref

    x = _big(np.float64)[5:]
    c = x[::-1] + 2.0
    y, pb = cr.rrule(getattr(np, name), x, c)
    ref = weakref.ref(y)
    del y
    gc.collect()
    assert (ref() is None) is freed
    g = np.cos(x)
    fast = tuple(map(cr.unthunk, pb(g)))
    for a, b in zip(fast, pb(cr.Thunk(lambda: g))):
        _same(a, cr.unthunk(b))


@pytest.mark.parametrize("name", ["multiply", "divide", "atan2"])
@pytest.mark.parametrize("value", [1.0, -1.0, 2.5])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_deferred_cotangent_added_in_one_pass(name: str, value: float, dtype: type) -> None:
    """``add_deferred``: a deferred ``y_bar * d`` with ``y_bar`` one +-1 broadcast, added to an
    array, is ``g + d`` or ``g - d``, equal to the thunk's value plus ``g``; written into a fresh
    ``d`` (divide's ``1 / y``), never into ``g``, an operand or a held partial (multiply's other
    operand). Any other value of ``y_bar`` declines."""
    x = np.tile(_big(dtype)[5:], 3)  # above DEFER_SIZE: the cotangents are deferred
    c = (x[::-1] + 2.0).astype(dtype)
    keep = (x.copy(), c.copy())
    _, pb = cr.rrule(getattr(np, name), x, c)
    y_bar = np.broadcast_to(np.asarray(value, dtype), x.shape)
    g = np.cos(x)
    g0 = g.copy()
    for t in pb(y_bar)[1:]:
        assert isinstance(t, cr.Thunk)
        got = numpy_fast.add_deferred(t, g)
        if value == 2.5:
            assert got is None
            continue
        _same(got, cr.unthunk(t) + g)
        assert not any(np.shares_memory(got, v) for v in (x, c, g))
    np.testing.assert_array_equal(g, g0)
    np.testing.assert_array_equal(x, keep[0])
    np.testing.assert_array_equal(c, keep[1])
    assert numpy_fast.add_deferred(cr.Thunk(lambda: g), g) is None  # not a rule's product
    assert numpy_fast.add_deferred(pb(y_bar)[1], g[:-1]) is None  # another shape


@pytest.mark.parametrize("name", ["sin", "exp", "tanh", "log1p"])
@pytest.mark.parametrize("value", [1.0, -1.0, 2.5])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_unary_pullback_of_a_deferred_product(name: str, value: float, dtype: type) -> None:
    """``sum(sin(x) * exp(x))``: multiply's pullback hands each factor's pullback a deferred
    ``1 * other``; the unary pullback takes it as ``other * partial`` in one pass
    (``unary_deferred``), equal to the generic path's value of the forced thunk. Nothing that
    anyone holds is written."""
    x = np.tile(_big(dtype)[5:], 3)  # above DEFER_SIZE: multiply defers
    u, pb = cr.rrule(getattr(np, name), x)
    c = (x[::-1] + 2.0).astype(dtype)
    keep = (x.copy(), u.copy(), c.copy())
    _, mpb = cr.rrule(np.multiply, u, c)
    t = mpb(np.broadcast_to(np.asarray(value, dtype), x.shape))[1]
    assert isinstance(t, cr.Thunk)
    want = pb(cr.Thunk(lambda: cr.unthunk(t)))[1]  # a plain thunk: the generic path
    _same(pb(t)[1], want)
    for a, b in zip((x, u, c), keep):
        np.testing.assert_array_equal(a, b)
