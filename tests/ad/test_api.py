"""chainrules.ad: the transformations' contracts, errors, pytrees, chunking and the tape."""

from __future__ import annotations

import gc
import math
import weakref
from typing import Any

import numpy as np
import pytest
from array_api_compat import array_namespace

import chainrules as cr
from chainrules import ad
from chainrules.ad import _api as api
from chainrules.ad import _core


def close(a: Any, b: Any, rtol: float = 1e-10, atol: float = 1e-12) -> None:
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)


X = np.array([0.3, -1.2, 0.7, 2.0])


# --- plain NumPy code --------------------------------------------------------------------------
def test_plain_numpy_code_differentiates_unchanged() -> None:
    g = ad.grad(lambda x: np.sum(np.sin(x) * np.exp(x)))(X)
    close(g, (np.cos(X) + np.sin(X)) * np.exp(X))


def test_numpy_operators_indexing_and_methods() -> None:
    def f(x: Any) -> Any:
        y = (x**2 - 3.0 * x) / (1.0 + x * x) + abs(x) - (-x)
        return (y[1:] * x[:-1]).sum() + x.mean() + np.tanh(x).max() + x.real.sum()

    g = ad.grad(f)(X)
    close(g, ad.jacobian(f, mode="fwd")(X))
    eps = 1e-6
    fd = np.array([(f(X + eps * e) - f(X - eps * e)) / (2 * eps) for e in np.eye(4)])
    close(g, fd, rtol=1e-6, atol=1e-8)


def test_array_api_code() -> None:
    def f(x: Any) -> Any:
        xp = array_namespace(x)
        return xp.sum(xp.exp(x) * xp.linalg.vector_norm(x))

    g = ad.grad(f)(X)
    n = np.linalg.norm(X)
    close(g, np.exp(X) * n + np.sum(np.exp(X)) * X / n)


# --- errors ------------------------------------------------------------------------------------
def test_grad_of_non_scalar_output_says_use_jacobian_or_vjp() -> None:
    with pytest.raises(ValueError, match=r"shape \(4,\).*jacobian.*vjp"):
        ad.grad(np.sin)(X)


def test_grad_of_complex_output_is_refused() -> None:
    """A TypeError, as autograd raises, that is still the ValueError it was before."""
    for error in (TypeError, ValueError):
        with pytest.raises(error, match="complex"):
            ad.grad(lambda z: np.sum(z * z))(X + 1j)


def test_integer_input_names_the_argument() -> None:
    def loss(weights: Any, counts: Any) -> Any:
        return np.sum(weights * counts)

    with pytest.raises(TypeError, match=r"argument 1 \('counts'\) of loss has dtype int64"):
        ad.grad(loss, argnums=1)(X, np.arange(4))
    with pytest.raises(TypeError, match=r"argument 0 \('weights'\)"):
        ad.jacobian(loss)(np.arange(4), X)
    # an integer argument that is not differentiated is fine
    close(ad.grad(loss)(X, np.arange(4)), np.arange(4.0))


def test_no_rule_names_the_function_and_the_user_line() -> None:
    def f(x: Any) -> Any:
        return np.sum(np.piecewise(x, [x > 0], [1.0]))  # np.piecewise has no rule

    for transform in (ad.grad(f), ad.jacobian(f), ad.jacobian(f, mode="rev")):
        with pytest.raises(
            ad.NoRuleError, match=r"numpy\.piecewise.*test_api\.py:\d+ \(return np\.sum"
        ):
            transform(X)
    assert issubclass(ad.NoRuleError, LookupError)


def test_host_reads_of_traced_values_are_refused() -> None:
    with pytest.raises(TypeError, match=r"float\(x\) of a traced array"):
        ad.grad(lambda x: float(np.sum(x)))(X)


def test_comparisons_and_masks_stay_plain_arrays() -> None:
    def f(x: Any) -> Any:
        mask = x > 0  # a plain boolean array: no derivative, usable on the host
        assert type(mask) is np.ndarray
        xp = array_namespace(x)
        return xp.sum(xp.where(mask, x * x, -x))

    close(ad.grad(f)(X), np.where(X > 0, 2 * X, -1.0))


def test_traced_keyword_argument_moves_to_its_position_or_is_refused() -> None:
    """A differentiated array passed by keyword reaches the rule at its position, where the
    function's signature and its rules take it positionally (the standard's ``clip(x, min=)``,
    ``np.average(x, weights=w)``); where a parameter skipped before it has a sentinel default
    (NumPy's ``clip(x, a_max=)``, whose ``a_min`` defaults to ``np._NoValue``) it stays a keyword,
    which is refused, naming it."""

    def f(x: Any) -> Any:
        xp = array_namespace(x)
        return xp.sum(xp.clip(x, min=x[:1]))

    h = 1e-6

    def plain(x: Any) -> Any:
        return np.sum(np.maximum(x, x[0]))

    fd = [(plain(X + h * e) - plain(X - h * e)) / (2 * h) for e in np.eye(4)]
    np.testing.assert_allclose(ad.grad(f)(X), np.array(fd), rtol=1e-6)
    w = np.array([1.0, 2.0, 3.0, 4.0])
    g = ad.grad(lambda w: np.average(X, weights=w))(w)
    close(g, (X - np.average(X, weights=w)) / np.sum(w))
    with pytest.raises(TypeError, match="keyword argument a_max="):
        ad.grad(lambda w: np.sum(np.clip(X, a_max=w)))(w)


# --- pytrees, argnums, value_and_grad ----------------------------------------------------------
def test_pytree_arguments_and_argnums() -> None:
    def loss(params: dict[str, Any], data: tuple[Any, Any]) -> Any:
        a, b = data
        return np.sum(params["w"] * a + params["b"] ** 2 * b) + np.sum(params["w"] ** 3)

    params = {"w": X, "b": np.array(0.5)}
    data = (np.arange(4.0), np.ones(4))
    v, g = ad.value_and_grad(loss)(params, data)
    close(v, loss(params, data))
    assert set(g) == {"w", "b"}
    close(g["w"], data[0] + 3 * X**2)
    close(g["b"], 2 * 0.5 * 4)
    g2 = ad.grad(loss, argnums=(0, 1))(params, data)
    assert isinstance(g2, tuple) and isinstance(g2[1], tuple)
    close(g2[1][0], X)
    close(g2[1][1], np.full(4, 0.25))


def test_unused_input_gets_zeros_and_python_float_input() -> None:
    g = ad.grad(lambda x, y: np.sum(x * 2.0), argnums=(0, 1))(X, np.ones(3))
    close(g[0], np.full(4, 2.0))
    close(g[1], np.zeros(3))
    close(ad.grad(lambda t: np.sin(t) * t)(0.5), np.cos(0.5) * 0.5 + np.sin(0.5))


@pytest.mark.parametrize(
    "loss",
    [
        lambda x, c: np.sum(np.sin(x) * c),  # the common case
        lambda x, c: 3.0,  # a Python float: no dependence on x
        lambda x, c: np.sum(c),  # a plain NumPy value
        lambda x, c: np.sum(c * 0.0 + np.ones(4)),
        lambda x, c: np.sum(x[:1] * 0.0),  # a zero cotangent reaches x
        lambda x, c: x[1],  # an element: a 0-d output
        lambda x, c, *, k=2.0: np.sum(x**k),
    ],
)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_grads_common_call_is_the_general_path(loss: Any, dtype: Any) -> None:
    """``value_and_grad`` with one int ``argnums`` at a real NumPy array takes its written-out
    path; ``argnums=(1,)`` the general one: the same value and gradient, dtype and type."""
    x, c = X.astype(dtype), np.arange(4.0).astype(dtype)
    kw = {"k": 3.0} if "k" in loss.__code__.co_varnames else {}
    v1, g1 = ad.value_and_grad(loss, argnums=0)(x, c, **kw)
    v0, (g0,) = ad.value_and_grad(loss, argnums=(0,))(x, c, **kw)
    assert type(v1) is type(v0) and type(g1) is type(g0)
    assert g1.dtype == g0.dtype == x.dtype
    np.testing.assert_array_equal(v1, v0)
    np.testing.assert_array_equal(g1, g0)
    _, g2 = ad.value_and_grad(lambda c, x: loss(x, c, **kw), argnums=1)(c, x)
    np.testing.assert_array_equal(g2, g0)


def test_grads_common_call_refuses_what_the_general_path_refuses() -> None:
    with pytest.raises(ValueError, match="not a scalar"):
        ad.grad(lambda x: x * 2)(X)
    with pytest.raises(TypeError, match="real scalar"):
        ad.grad(lambda x: (x, x))(X)


def test_float32_stays_float32() -> None:
    x32 = X.astype(np.float32)
    assert ad.grad(lambda x: np.sum(np.sin(x) * x))(x32).dtype == np.float32
    assert ad.jacobian(np.sin)(x32).dtype == np.float32


# --- vjp, jvp ----------------------------------------------------------------------------------
def test_vjp_tuple_output_and_repeated_calls() -> None:
    def f(x: Any, y: Any) -> Any:
        return np.sin(x) * y, np.sum(x * x)

    y = np.arange(1.0, 5.0)
    out, pullback = ad.vjp(f, X, y)
    close(out[0], np.sin(X) * y)
    ct = (np.ones(4), np.array(2.0))
    first = pullback(ct)
    second = pullback(ct)  # the tape is kept for repeated use
    for a, b in zip(first, second):
        close(a, b)
    close(first[0], np.cos(X) * y + 4 * X)
    close(first[1], np.sin(X))
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        pullback((np.ones(3), np.array(1.0)))


def test_jvp_and_chunked_jvp() -> None:
    f = lambda x: np.cumsum(np.sin(x)) * x
    t = np.random.default_rng(0).standard_normal((3, 4))
    y, ydot = ad.jvp(f, (X,), (t[0],))
    close(y, f(X))
    J = ad.jacobian(f)(X)
    close(ydot, J @ t[0])
    _, chunk = ad.jvp(f, (X,), (t,))  # three directions in one pass
    assert chunk.shape == (3, 4)
    close(chunk, t @ J.T)


def test_reverse_over_reverse() -> None:
    f = lambda x: np.sum(np.sin(x) ** 3)
    gg = ad.grad(lambda x: np.sum(ad.grad(f)(x) * np.arange(4.0)))(X)
    # d/dx sum_i c_i * 3 sin^2 cos (x_i) = c * (6 sin cos^2 - 3 sin^3)
    s, c = np.sin(X), np.cos(X)
    close(gg, np.arange(4.0) * (6 * s * c**2 - 3 * s**3))


# --- jacobian: chunks, passes, layout ----------------------------------------------------------
@pytest.mark.parametrize(("n", "t", "k"), [(1, 16, 1), (16, 16, 16), (17, 16, 9), (40, 16, 14)])
def test_default_chunk_size_is_forwarddiffs(n: int, t: int, k: int) -> None:
    assert ad.default_chunk_size(n, t) == k
    assert math.ceil(n / k) == math.ceil(n / t)  # no more passes than the threshold needs


@pytest.mark.parametrize(
    ("n", "k"), [(1, 1), (40, 40), (1000, 1000), (1024, 1024), (1025, 513), (2048, 512)]
)
def test_default_chunk_size_is_bounded_by_the_element_budget(n: int, k: int) -> None:
    """Without a threshold the chunk is the element budget's: chunk * n <= 2**20, split evenly."""
    assert ad.default_chunk_size(n) == k
    assert k * n <= api.JACOBIAN_CHUNK_ELEMENTS
    assert math.ceil(n / k) == math.ceil(n / (api.JACOBIAN_CHUNK_ELEMENTS // n))


def test_default_chunk_size_floor_and_size() -> None:
    """Past 2**20 / 16 elements the floor of 16 holds; ``size`` (a wider array) shrinks it."""
    assert ad.default_chunk_size(100_000) == api.DEFAULT_CHUNK_THRESHOLD == 16
    assert ad.default_chunk_size(70_000) == 16  # the budget alone would allow 14
    assert ad.default_chunk_size(1000, size=4096) == 250  # 256 allowed: 4 passes of 250
    assert ad.default_chunk_size(1000, size=2**19) == 16


def test_chunk_table_in_the_docs_is_the_policy() -> None:
    """docs/ad.md's table of default passes is what default_chunk_size gives (now and before)."""
    from pathlib import Path

    page = (Path(__file__).parents[2] / "docs" / "ad.md").read_text()
    lines = [ln for ln in page.splitlines() if ln.startswith("| ")]
    head = next(ln for ln in lines if ln.startswith("| input elements (forward mode) |"))
    sizes = [int(float(c)) for c in head.strip("|").split("|")[1:]]
    now = next(ln for ln in lines if ln.startswith("| passes, forward (chunk) |"))
    before = next(ln for ln in lines if ln.startswith("| passes before (ForwardDiff's 16) |"))
    for n, cell, old in zip(sizes, now.strip("|").split("|")[1:], before.strip("|").split("|")[1:]):
        k = ad.default_chunk_size(n)
        assert cell.strip() == f"{math.ceil(n / k)} ({k})", n
        assert int(old) == math.ceil(n / ad.default_chunk_size(n, 16)), n


@pytest.mark.parametrize(("n", "passes"), [(40, 1), (1000, 1), (1025, 2), (2048, 4)])
def test_forward_jacobian_default_passes(n: int, passes: int) -> None:
    """The default forward chunk at the sizes users compare (one pass up to 1024 elements, not
    ForwardDiff's ceil(n / 16)); f's output is small so the Jacobian is cheap."""
    calls = []

    def f(x: Any) -> Any:
        calls.append(1)
        return np.sin(x[:3]) * np.sum(x)

    x = np.linspace(0.1, 1.0, n)
    J = ad.jacobian(f)(x)
    assert len(calls) == passes
    close(J, ad.jacobian(f, chunk_size=n)(x))


@pytest.mark.parametrize(("n", "chunk"), [(10, 1), (10, 4), (10, 10), (10, None), (40, None)])
def test_forward_jacobian_uses_ceil_n_over_chunk_passes(n: int, chunk: int | None) -> None:
    calls = []

    def f(x: Any) -> Any:
        calls.append(1)
        return np.sin(x) * np.cumsum(x)

    x = np.linspace(0.1, 1.0, n)
    J = ad.jacobian(f, chunk_size=chunk)(x)
    k = chunk or ad.default_chunk_size(n)
    assert len(calls) == math.ceil(n / k)
    close(J, ad.jacobian(f, mode="rev")(x))


def test_reverse_jacobian_records_once() -> None:
    calls = []

    def f(x: Any) -> Any:
        calls.append(1)
        return np.sin(x) * np.cumsum(x)

    ad.jacobian(f, mode="rev", chunk_size=3)(X)
    assert len(calls) == 1


def test_jacobian_layout_and_pytrees() -> None:
    def f(a: Any, b: Any) -> Any:
        return {"s": np.sum(a) * np.sum(b), "m": np.sin(a)[:, None] * b}

    a, b = X, np.array([1.0, 2.0, 3.0])
    for mode in ("fwd", "rev"):
        J = ad.jacobian(f, argnums=(0, 1), mode=mode)(a, b)
        assert J["s"][0].shape == (4,) and J["s"][1].shape == (3,)
        assert J["m"][0].shape == (4, 3, 4) and J["m"][1].shape == (4, 3, 3)
        close(J["s"][1], np.full(3, a.sum()))
        close(J["m"][0], np.einsum("ij,ik->ijk", np.cos(a)[:, None] * b, np.eye(4)))


def test_jacobian_of_constant_output_is_zero() -> None:
    J = ad.jacobian(lambda x: np.ones(3) * 2.0)(X)
    assert J.shape == (3, 4)
    close(J, np.zeros((3, 4)))


def test_bad_mode_and_chunk() -> None:
    with pytest.raises(ValueError, match="mode"):
        ad.jacobian(np.sin, mode="sideways")
    with pytest.raises(ValueError, match="chunk_size"):
        ad.jacobian(np.sin, chunk_size=0)


# --- the tape ----------------------------------------------------------------------------------
class _Marker:
    pass


def test_pullbacks_released_as_they_run_and_zero_paths_skipped(clean_registry: Any) -> None:
    runs: list[str] = []
    refs: dict[str, Any] = {}

    def tag(x: Any, name: str) -> Any:
        return x

    @cr.register_rrule(tag)
    def _tag_rrule(x: Any, name: str) -> Any:
        marker = _Marker()
        refs[name] = weakref.ref(marker)

        def tag_pullback(g: Any) -> Any:
            runs.append(name)
            assert marker is not None
            if name == "first":  # "second" ran before and has been released already
                gc.collect()
                assert refs["second"]() is None
            return cr.NoTangent(), g, cr.NoTangent()

        return x, tag_pullback

    def f(x: Any) -> Any:
        a = _core.dispatch(tag, (np.sin(x), "first"), {})
        b = _core.dispatch(tag, (a * 2.0, "second"), {})
        _core.dispatch(tag, (x * 3.0, "unused"), {})  # recorded, never reaches the output
        return np.sum(b)

    close(ad.grad(f)(X), 2 * np.cos(X))
    assert runs == ["second", "first"]


def test_accumulation_never_corrupts_inputs_or_cotangents() -> None:
    x = X.copy()

    def f(x: Any) -> Any:
        y = x + x  # add's pullback hands the same cotangent to both arguments
        return np.sum(y * x) + np.sum(x) + np.sum(np.sin(x))

    g = ad.grad(f)(x)
    np.testing.assert_array_equal(x, X)
    close(g, 4 * X + 1 + np.cos(X))
    close(ad.grad(f)(x), g)


BIG = np.random.default_rng(3).uniform(-1.0, 1.0, 1 << 13)  # above the in-place size


def test_accumulation_at_scale_writes_only_arrays_no_one_else_holds(clean_registry: Any) -> None:
    """A node adds later cotangents in place only into the accumulator the engine allocated
    (``Node.receive``): a pullback handing back an array it keeps (directly or through a thunk)
    is never written, though it owns its memory and is writeable."""
    held = BIG * 0.5 + 1.0  # owns its memory, writeable: only explicit ownership protects it
    want = held.copy()

    @cr.traceable
    def keep(x: Any) -> Any:
        return x * 1.0

    @cr.traceable
    def keep_deferred(x: Any) -> Any:
        return x * 1.0

    @cr.register_rrule(keep)
    def _keep_rrule(x: Any) -> Any:
        return keep(x), lambda y_bar: (cr.NoTangent(), held)

    @cr.register_rrule(keep_deferred)
    def _keep_deferred_rrule(x: Any) -> Any:
        return keep_deferred(x), lambda y_bar: (cr.NoTangent(), cr.Thunk(lambda: held))

    for first in (keep, keep_deferred):

        def f(x: Any, first: Any = first) -> Any:
            return np.sum(np.sin(x)) + np.sum(first(x))  # first's cotangent reaches x first

        g = ad.grad(f)(BIG)
        np.testing.assert_array_equal(held, want)
        close(g, np.cos(BIG) + want)
        close(ad.grad(f)(BIG), g)
        _, pb = ad.vjp(f, BIG)  # a kept tape: its pullbacks hold their arrays
        close(pb(np.ones(()))[0], g)
        close(pb(np.ones(()))[0], g)
        np.testing.assert_array_equal(held, want)


@pytest.mark.parametrize("n", [5, BIG.size])
def test_accumulated_cotangents_at_scale(n: int) -> None:
    """Programs whose nodes receive several cotangents (chain: three at x; softmax: a deferred
    product and an array at Z) give the same gradient in place as by new arrays."""
    x = BIG[:n].copy()
    g = ad.grad(lambda x: np.sum(np.sin(x) * np.exp(x) + np.tanh(x)))(x)
    close(g, np.exp(x) * (np.sin(x) + np.cos(x)) + (1 - np.tanh(x) ** 2))
    np.testing.assert_array_equal(x, BIG[:n])
    rng = np.random.default_rng(4)
    X, W = rng.standard_normal((n, 4)), rng.standard_normal((4, 4)) * 0.1
    Y = np.eye(4)[rng.integers(0, 4, n)]
    Xc, Yc = X.copy(), Y.copy()

    def f(W: Any) -> Any:
        Z = X @ W
        return np.sum(np.log(np.sum(np.exp(Z), axis=1))) - np.sum(Y * Z)

    e = np.exp(X @ W)
    close(ad.grad(f)(W), X.T @ (e / e.sum(axis=1, keepdims=True) - Y))
    np.testing.assert_array_equal(X, Xc)
    np.testing.assert_array_equal(Y, Yc)


# --- registered Python functions are recorded as one operation (chainrules.traceable) --------
def test_traceable_functions_give_hessians_through_indexing() -> None:
    """getitem's pullback calls ``scatter_add``, a ``traceable`` function: a forward tracer
    reaching it is recorded as one operation, differentiated by scatter_add's own rules."""

    def rosenbrock(x: Any) -> Any:
        return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)

    x = np.array([0.5, -0.3, 1.2, 0.8])
    H = ad.hessian(rosenbrock)(x)
    ref = np.diag(np.r_[1200 * x[:-1] ** 2 - 400 * x[1:] + 2, 0.0]) + np.diag(np.r_[0, [200.0] * 3])
    ref += np.diag(-400 * x[:-1], 1) + np.diag(-400 * x[:-1], -1)
    close(H, ref)


def test_a_users_traceable_function_is_one_operation(clean_registry: Any) -> None:
    calls = []

    @cr.traceable
    def double(x: Any) -> Any:
        calls.append(type(x).__name__)
        return x * 2.0

    @cr.register_rrule(double)
    def _double_rrule(x: Any) -> Any:
        return double(x), lambda y_bar: (cr.NoTangent(), y_bar * 2.0)

    @cr.register_frule(double)
    def _double_frule(dargs: Any, x: Any) -> Any:
        return double(x), dargs[1] * 2.0

    close(ad.grad(lambda x: np.sum(double(x) * x))(X), 4 * X)
    assert calls and set(calls) == {"ndarray"}  # the body only ever ran on plain arrays


def test_a_pullback_called_on_an_outer_traces_cotangent_keeps_its_derivative() -> None:
    """jvp of a function that calls a vjp's pullback: the cotangent is an outer tracer and must
    not be lifted again (it would lose its tangent)."""
    x, g = np.array([1.0, 2.0]), np.array([0.5, -1.0])

    def pulled(g: Any, x: Any) -> Any:
        return ad.vjp(lambda t: t * t, x)[1](g)[0]  # 2 x g

    y, y_dot = ad.jvp(pulled, (g, x), (np.ones(2), np.zeros(2)))
    assert type(y) is np.ndarray and type(y_dot) is np.ndarray
    close(y, 2 * x * g)
    close(y_dot, 2 * x)
    _, y_dot = ad.jvp(pulled, (g, x), (np.zeros(2), np.ones(2)))
    close(y_dot, 2 * g)


def test_grad_of_a_named_tuple_argument_is_the_same_named_tuple() -> None:
    """A named tuple is a pytree node (chainrules.core.pytree), in ad as in the bridges."""
    import collections

    P = collections.namedtuple("P", "w b")
    p = P(np.array([1.0, 2.0]), np.array(0.5))
    g = ad.grad(lambda p: np.sum(p.w**2) + p.b * 3.0)(p)
    assert type(g) is P
    np.testing.assert_array_equal(g.w, [2.0, 4.0])
    assert float(g.b) == 3.0
