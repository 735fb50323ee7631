"""FFT rules: the tester on every backend, JAX as a reference, dense adjoints for the Hermitian
weights (even and odd n, padding and truncation), chunks, errors, second derivatives."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules import fft as fft_rules
from chainrules.rules.fft import resize
from chainrules.testing import examples_for, test_frule, test_rrule
from chainrules.testing.runner import check_registration
from chainrules.testing.suite import rule_tests

ALL = [r for r in cr.registrations() if r.module == fft_rules.__name__]
REGS = [r for r in ALL if not r.non_differentiable]
FREQ = [r for r in ALL if r.non_differentiable]
TRANSFORMS = ("fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft")
SHIFTS = ("fftshift", "ifftshift")
COMPLEX_IN = ("fft", "ifft", "fftn", "ifftn", "irfft", "irfftn", "hfft")
NORMS = ("backward", "ortho", "forward")


def _name(reg: cr.Registration) -> str:
    return reg.name.removeprefix("numpy:").removeprefix("fft.")


def test_everything_is_registered() -> None:
    names = {r.name for r in ALL}
    for n in (*TRANSFORMS, *SHIFTS, "fftfreq", "rfftfreq"):
        assert f"fft.{n}" in names and f"numpy:fft.{n}" in names
    assert "chainrules.rules.fft.resize" in names or any(r.target is resize for r in REGS)
    assert cr.find_rrule(np.fft.fftfreq) is not None


def _backend_examples(reg: cr.Registration, backend_name: str) -> list:  # type: ignore[type-arg]
    examples = examples_for(reg)
    if backend_name == "array_api_strict" and _name(reg) in COMPLEX_IN:
        # array-api-strict's fft, ifft, irfft, hfft take complex arrays only
        examples = [ex for ex in examples if ex.complex]
    if backend_name == "torch":  # torch's MKL FFT rejects zero-size batches
        examples = [ex for ex in examples if 0 not in np.shape(ex.args[0])]
    if backend_name in ("jax", "torch"):  # slow per call (compiles); the weights are covered
        examples = examples[:: 3 if backend_name == "jax" else 2]  # densely below, on NumPy
    return examples


def _jax_examples(reg: cr.Registration) -> list:  # type: ignore[type-arg]
    # jax.numpy's fftn rejects -1 in s (the rule resolves it; NumPy and torch accept it)
    return [ex for ex in examples_for(reg) if -1 not in tuple(ex.kwargs.get("s") or ())]


@pytest.mark.parametrize(
    "reg",
    [r for r in REGS if r.family == "numpy"],
    ids=lambda r: r.name,
)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, _jax_examples(reg))


# ---- the Hermitian weights, exactly: a dense adjoint built from basis vectors -----------------
def _dense_pullback(f, x, y_bar):  # type: ignore[no-untyped-def]
    """The cotangent of a real-linear ``f`` at any point, element by element:
    ``x_bar_j = Re<y_bar, f(e_j)> + i Re<y_bar, f(i e_j)>`` (``<a, b> = sum(conj(a) b)``)."""
    out = np.zeros(x.shape, dtype=x.dtype)
    for j in np.ndindex(x.shape):
        e = np.zeros(x.shape, dtype=x.dtype)
        e[j] = 1
        out[j] = np.real(np.vdot(y_bar, f(e)))
        if np.iscomplexobj(x):
            out[j] += 1j * np.real(np.vdot(y_bar, f(1j * e)))
    return out


def _cotangent_for(y, rng):  # type: ignore[no-untyped-def]
    y_bar = rng.standard_normal(y.shape)
    if np.iscomplexobj(y):
        y_bar = y_bar + 1j * rng.standard_normal(y.shape)
    return y_bar


HERMITIAN_CASES = [
    # (function, input length, n): even and odd n, exactly the bins read, more, fewer
    (np.fft.irfft, 5, None),
    (np.fft.irfft, 5, 9),
    (np.fft.irfft, 3, 4),
    (np.fft.irfft, 6, 3),
    (np.fft.irfft, 3, 10),
    (np.fft.irfft, 3, 7),
    (np.fft.irfft, 3, 1),
    (np.fft.irfft, 3, 2),
    (np.fft.hfft, 5, None),
    (np.fft.hfft, 5, 9),
    (np.fft.hfft, 6, 4),
    (np.fft.hfft, 2, 7),
    (np.fft.rfft, 7, None),
    (np.fft.rfft, 8, None),
    (np.fft.rfft, 6, 9),
    (np.fft.rfft, 6, 4),
    (np.fft.rfft, 5, 2),
    (np.fft.ihfft, 7, None),
    (np.fft.ihfft, 8, None),
    (np.fft.ihfft, 4, 10),
    (np.fft.ihfft, 6, 3),
]


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize(("f", "m", "n"), HERMITIAN_CASES, ids=lambda v: getattr(v, "__name__", v))
def test_hermitian_weights_match_the_dense_adjoint(f, m, n, norm) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(m * 100 + (n or 0))
    real_in = f in (np.fft.rfft, np.fft.ihfft)
    x = rng.standard_normal((2, m))
    if not real_in:
        x = x + 1j * rng.standard_normal((2, m))
    y, pb = cr.rrule(f, x, n, -1, norm)
    y_bar = _cotangent_for(y, rng)
    want = _dense_pullback(lambda v: f(v, n, -1, norm), x, y_bar)
    got = pb(y_bar)[1]
    assert got.dtype == x.dtype and got.shape == x.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    ("f", "shape", "kw"),
    [
        (np.fft.rfftn, (3, 5), {"s": (4, 7), "axes": (0, 1)}),
        (np.fft.rfftn, (3, 5), {"s": (2, 4), "axes": (1, 0), "norm": "ortho"}),
        (np.fft.irfftn, (3, 4), {"s": (5, 6), "axes": (0, 1), "norm": "forward"}),
        (np.fft.irfftn, (3, 4), {"s": (2, 5), "axes": (1, 0)}),
        (np.fft.irfftn, (2, 5), {}),
        (np.fft.fftn, (3, 4), {"s": (5, 2), "axes": (0, 1), "norm": "ortho"}),
        (np.fft.ifftn, (3, 4), {"s": (2, 6), "axes": (1, 0)}),
        (np.fft.fft, (6,), {"n": 4}),
        (np.fft.ifft, (4,), {"n": 7, "norm": "forward"}),
    ],
)
def test_nd_transforms_match_the_dense_adjoint(f, shape, kw) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(7)
    x = rng.standard_normal(shape)
    if f is not np.fft.rfftn:
        x = x + 1j * rng.standard_normal(shape)
    y, pb = cr.rrule(f, x, **kw)
    y_bar = _cotangent_for(y, rng)
    np.testing.assert_allclose(
        pb(y_bar)[1], _dense_pullback(lambda v: f(v, **kw), x, y_bar), rtol=1e-12, atol=1e-12
    )


def test_real_input_to_a_complex_transform_gets_a_real_cotangent() -> None:
    x = np.arange(5.0)
    _, pb = cr.rrule(np.fft.fft, x, 8)
    y_bar = np.exp(1j * np.arange(8.0))
    g = pb(y_bar)[1]
    assert g.dtype == np.float64
    np.testing.assert_allclose(g, np.real(np.fft.ifft(y_bar, norm="forward"))[:5], atol=1e-13)


def test_irfft_reads_only_the_real_part_of_the_edge_bins() -> None:
    # d irfft / d Im(X_0) and d / d Im(X_{n/2}) are 0: the cotangent there is real
    x = np.array([1.0 + 2j, 3.0 - 1j, 0.5 + 4j])
    _, pb = cr.rrule(np.fft.irfft, x)  # n = 4: bins 0 and 2 appear once
    g = pb(np.array([1.0, -2.0, 3.0, 0.5]))[1]
    assert g[0].imag == 0 and g[2].imag == 0 and g[1].imag != 0
    # y_bar = ones: only the DC bin sees it, with weight 1 / n * n = 1
    np.testing.assert_allclose(pb(np.ones(4))[1], [1.0, 0.0, 0.0], atol=1e-15)


# ---- padding, truncation, zero sizes, float32 ---------------------------------------------------
def test_padding_and_truncation_fit_the_cotangent_back() -> None:
    x = np.arange(4.0) + 1j
    _, pb = cr.rrule(np.fft.fft, x, n=6)  # zero padding: the padded entries get no cotangent
    y_bar = np.arange(6.0) - 2j
    np.testing.assert_allclose(pb(y_bar)[1], np.fft.ifft(y_bar, norm="forward")[:4])
    _, pb = cr.rrule(np.fft.fft, x, n=2)  # truncation: the dropped entries get zero
    g = pb(y_bar[:2])[1]
    np.testing.assert_allclose(g[:2], np.fft.ifft(y_bar[:2], norm="forward"))
    assert g[2:].tolist() == [0, 0]


def test_zero_size_batches() -> None:
    for f, x in (
        (np.fft.fft, np.zeros((0, 4), complex)),
        (np.fft.rfft, np.zeros((0, 4))),
        (np.fft.irfft, np.zeros((0, 4), complex)),
        (np.fft.fftshift, np.zeros((0, 3))),
    ):
        y, pb = cr.rrule(f, x)
        g = pb(np.zeros(y.shape, y.dtype))[1]
        assert g.shape == x.shape and g.dtype == x.dtype
        _, yd = cr.frule((cr.NoTangent(), np.zeros((2, *x.shape), x.dtype)), f, x)
        assert yd.shape == (2, *y.shape)


@pytest.mark.parametrize("backend", ["numpy", "array_api_strict"])
@pytest.mark.parametrize("name", ["fftn", "ifftn"])
def test_zero_d_transforms_no_axis(backend: str, name: str) -> None:
    # f of a 0-d array is x itself (NumPy) or x cast to complex (the standard's); the pullback is
    # the cotangent projected onto x, under every norm (nothing is scaled)
    xp = np if backend == "numpy" else pytest.importorskip(backend)
    f = getattr(xp.fft, name)
    x = xp.asarray(2.5) if backend == "numpy" else xp.asarray(2.5 + 0j)  # strict: complex only
    for norm in (None, "ortho", "forward"):
        y, pb = cr.rrule(f, x, norm=norm)
        want = f(x, norm=norm)
        assert y.dtype == want.dtype and y.shape == () and bool(y == want)
        g = cr.unthunk(pb(xp.asarray(3.0, dtype=y.dtype))[1])
        assert g.dtype == x.dtype and bool(g == xp.asarray(3.0))
        t = xp.astype(
            xp.asarray([1.0, -2.0]), x.dtype
        )  # a chunk of 2 tangents: the chunk axis is not transformed
        _, yd = cr.frule((cr.NoTangent(), t), f, x, norm=norm)
        assert yd.dtype == y.dtype and bool(xp.all(yd == xp.astype(t, y.dtype)))
    test_rrule(f, xp.asarray(1.5 + 0.5j))
    test_frule(f, xp.asarray(1.5 + 0.5j))


def test_float32_stays_float32() -> None:
    x = np.arange(6, dtype=np.float32)
    y, pb = cr.rrule(np.fft.rfft, x)
    assert y.dtype == np.complex64 and pb(np.ones(4, np.complex64))[1].dtype == np.float32
    y, pb = cr.rrule(np.fft.irfft, y)
    assert y.dtype == np.float32 and pb(np.ones(6, np.float32))[1].dtype == np.complex64


# ---- chunks: the transform axes are counted from the end ---------------------------------------
@pytest.mark.parametrize(
    ("f", "x", "kw"),
    [
        (np.fft.fft, np.ones((3, 4)) + 1j, {"axis": 0, "n": 5}),
        (np.fft.rfftn, np.ones((3, 4)), {"axes": (1, 0), "s": (2, 6)}),
        (np.fft.irfftn, np.ones((3, 4)) + 0j, {}),
        (np.fft.hfft, np.ones((3, 4)) + 0j, {"axis": 0}),
        (np.fft.fftshift, np.ones((3, 5)), {"axes": 0}),
        (np.fft.ifftshift, np.ones((3, 5)), {}),
    ],
)
def test_chunked_tangents_equal_one_by_one(f, x, kw) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(1)
    t = rng.standard_normal((2, 3, *x.shape)).astype(x.dtype)
    y, yd = cr.frule((cr.NoTangent(), t), f, x, **kw)
    assert yd.shape == (2, 3, *y.shape)
    for i in np.ndindex(2, 3):
        _, one = cr.frule((cr.NoTangent(), t[i]), f, x, **kw)
        np.testing.assert_allclose(yd[i], one, atol=1e-13)


# ---- signatures and errors ----------------------------------------------------------------------
def test_numpy_signatures() -> None:
    x = np.arange(6.0).reshape(2, 3) + 1j
    y, pb = cr.rrule(np.fft.fft, x, 4, 0, None)  # n, axis, norm positional; None is "backward"
    np.testing.assert_allclose(y, np.fft.fft(x, 4, 0))
    out = pb(np.ones((4, 3), complex))
    assert len(out) == 5 and all(o is cr.NoTangent() for o in (out[0], *out[2:]))
    # NumPy's s without axes: the last len(s) axes
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        want = np.fft.fftn(x, (3,))
    y, _ = cr.rrule(np.fft.fftn, x, (3,))
    np.testing.assert_allclose(y, want)
    y, _ = cr.rrule(np.fft.fftn, x, (-1, 5), (0, 1))  # -1: the input's length
    assert y.shape == (2, 5)
    y, _ = cr.rrule(np.fft.irfftn, x, (-1, -1), (0, 1))  # last axis: 2 * (m - 1)
    assert y.shape == (2, 4)


def test_errors() -> None:
    x = np.ones(4, complex)
    with pytest.raises(TypeError, match="out= is not supported"):
        cr.rrule(np.fft.fft, x, out=np.empty(4, complex))
    with pytest.raises(ValueError, match="norm must be one of"):
        cr.rrule(np.fft.fft, x, norm="unitary")
    with pytest.raises(ValueError, match="repeated axes"):
        cr.rrule(np.fft.fftn, np.ones((2, 2), complex), axes=(0, 0))
    for n in (0, -1, 2.0):  # -1 means "the input's length" only in s, as in NumPy
        with pytest.raises(ValueError, match="invalid number of data points"):
            cr.rrule(np.fft.fft, x, n=n)
    with pytest.raises(ValueError, match=r"cotangent of shape \(3,\) does not match .* \(4,\)"):
        cr.rrule(np.fft.fft, x)[1](np.ones(3, complex))
    with pytest.raises(TypeError, match="unexpected keyword"):
        cr.rrule(np.fft.fft, x, axes=(0,))
    xs = pytest.importorskip("array_api_strict")
    with pytest.raises(TypeError, match="keyword-only"):
        cr.rrule(xs.fft.fft, xs.asarray(x), 4)


def _freq_params() -> list:  # type: ignore[type-arg]
    out = []
    for reg in FREQ:
        for b in ("numpy", "array_api_strict", "jax", "torch"):
            if reg.family == "numpy" and b in ("array_api_strict", "torch"):
                continue  # no NumPy-signature fftfreq there
            out.append(pytest.param(reg, b, id=f"{b}-{reg.name}"))
    return out


@pytest.mark.parametrize(("reg", "backend_name"), _freq_params())
def test_frequencies_on_backend(reg: cr.Registration, backend_name: str) -> None:
    from chainrules.testing.backends import BACKENDS

    backend = BACKENDS[backend_name]
    if not backend.available():
        pytest.skip(f"{backend_name} is not installed")
    cell = check_registration(reg, backend)
    assert cell.status == "ok", "\n".join(cell.errors)
    assert cell.checks > 0 and not cell.unsupported


def test_numpy_fftfreq_takes_d_positionally() -> None:
    y, _ = cr.rrule(np.fft.fftfreq, 6, 0.5)
    np.testing.assert_array_equal(y, np.fft.fftfreq(6, 0.5))


def test_frequencies_are_not_differentiable() -> None:
    y, pb = cr.rrule(np.fft.fftfreq, 6, d=0.5)
    np.testing.assert_array_equal(y, np.fft.fftfreq(6, 0.5))
    assert pb(np.ones(6)) == (cr.NoTangent(),) * 2
    y, yd = cr.frule((cr.NoTangent(), cr.NoTangent()), np.fft.rfftfreq, 6)
    assert yd is cr.NoTangent() and y.shape == (4,)


# ---- second derivatives: pullbacks are built from functions with rules --------------------------
def test_resize_rules() -> None:
    rng = np.random.default_rng(2)
    test_rrule(resize, rng.standard_normal((3, 4)), (0, 1), (5, 2))
    test_frule(resize, rng.standard_normal((3, 4)), (0, 1), (5, 2))
    x = rng.standard_normal((2, 3))
    assert resize(x, 1, 3) is x  # nothing to do: no copy
    np.testing.assert_array_equal(resize(resize(x, 1, 5), 1, 3), x)


@pytest.mark.parametrize(
    ("f", "x", "kw"),
    [
        (np.fft.rfft, np.arange(5.0), {"n": 6}),
        (np.fft.irfft, np.arange(4.0) + 1j, {"n": 5}),
        (np.fft.hfft, np.arange(4.0) - 2j, {"n": 4}),
        (np.fft.ihfft, np.arange(5.0), {"n": 3}),
        (np.fft.fftn, np.ones((2, 3)) + 1j, {"s": (3, 2), "axes": (1, 0)}),
    ],
)
def test_pullbacks_have_rules(f, x, kw) -> None:  # type: ignore[no-untyped-def]
    """Every function a pullback calls has rules, and differentiating the pullback (a linear map
    of y_bar) through them gives back the primal map: the adjoint of the adjoint."""
    y, pb = cr.rrule(f, x, **kw)
    rng = np.random.default_rng(3)
    y_bar = _cotangent_for(y, rng)

    def pullback(v):  # type: ignore[no-untyped-def]
        return pb(v)[1]

    # the pullback's own pullback, by composing the rules of what it calls, equals f (linear)
    v = _cotangent_for(x, rng)
    lhs = np.real(np.vdot(v, pullback(y_bar)))
    rhs = np.real(np.vdot(f(v, **kw), y_bar))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-12)
    called = {"resize": resize}
    for name in ("fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft"):
        called[name] = getattr(np.fft, name)
    for g in called.values():
        assert cr.find_rrule(g) is not None and cr.find_frule(g) is not None


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.fft")


# ---- NumPy's 2-D names: fftn & co over axes=(-2, -1) -------------------------------------------
@pytest.mark.parametrize(
    ("two", "nd"), [("fft2", "fftn"), ("ifft2", "ifftn"), ("rfft2", "rfftn"), ("irfft2", "irfftn")]
)
def test_fft2_names_match_fftn_over_the_last_two_axes(two: str, nd: str) -> None:
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3, 4))
    if two.startswith("irfft"):
        x = x + 1j * rng.standard_normal((2, 3, 4))
    f2, fn = getattr(np.fft, two), getattr(np.fft, nd)
    y, pb = cr.rrule(f2, x, (3, 6), norm="ortho")
    _, pb_ref = cr.rrule(fn, x, (3, 6), axes=(-2, -1), norm="ortho")
    np.testing.assert_allclose(y, f2(x, (3, 6), norm="ortho"), rtol=1e-12)
    y_bar = rng.standard_normal(y.shape) + (
        1j * rng.standard_normal(y.shape) if y.dtype.kind == "c" else 0
    )
    np.testing.assert_allclose(pb(y_bar)[1], pb_ref(y_bar)[1], rtol=1e-12)


def test_fft2_rejects_mismatched_s_and_axes() -> None:
    with pytest.raises(ValueError, match=r"fft\.fft2"):
        cr.rrule(np.fft.fft2, np.ones((3, 4)), s=(4,))
