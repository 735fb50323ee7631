"""The JAX bridge, judged by JAX's own checkers (check_grads, vmap, native derivatives)."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
import pytest

import chainrules as cr

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy
from jax.test_util import check_grads  # noqa: E402

from chainrules.core.registry import counterpart  # noqa: E402
from chainrules.interop import jax as crjax  # noqa: E402

MODES = ["jvp", "vjp"]


def _loss_fn(case, mode):  # type: ignore[no-untyped-def]
    leaves, rebuild = case.split()
    wrapped = crjax.wrap(case.f, mode=mode)

    def fn(*vals):  # type: ignore[no-untyped-def]
        args, kwargs = rebuild(*vals)
        return wrapped(*args, **kwargs)

    return fn, [jnp.asarray(x) for x in leaves]


def _scalarize(fn, w):  # type: ignore[no-untyped-def]
    def loss(*vals):  # type: ignore[no-untyped-def]
        return jnp.real(jnp.sum(fn(*vals) * w))

    return loss


def _xfail_second_order(request, case, through):  # type: ignore[no-untyped-def]
    reason = case.second_order_xfail(through)
    if reason:
        request.applymarker(pytest.mark.xfail(strict=True, reason=reason))


def test_check_grads_jvp_mode(request, gpu_safe_case):  # type: ignore[no-untyped-def]
    _xfail_second_order(request, gpu_safe_case, "frule")
    fn, xs = _loss_fn(gpu_safe_case, "jvp")
    check_grads(jax.jit(fn), xs, order=2, modes=("fwd", "rev"))


def test_check_grads_vjp_mode(gpu_safe_case):  # type: ignore[no-untyped-def]
    # (passes at cumulative_prod's zero too: see test_cumulative_prod_hessian_at_a_zero)
    fn, xs = _loss_fn(gpu_safe_case, "vjp")
    check_grads(jax.jit(fn), xs, order=2, modes=("rev",))


@pytest.mark.parametrize("mode", MODES)
def test_vmap_grad_matches_loop(gpu_safe_case, mode):  # type: ignore[no-untyped-def]
    fn, xs = _loss_fn(gpu_safe_case, mode)
    w = jnp.cos(jnp.arange(np.size(fn(*xs))) + 0.3).reshape(jnp.shape(fn(*xs)))
    loss = _scalarize(fn, w)
    rng = np.random.default_rng(5)
    batch = jnp.stack([xs[0] + 0.01 * k * rng.standard_normal(xs[0].shape) for k in range(3)])
    g = jax.jit(jax.vmap(jax.grad(loss), in_axes=(0,) + (None,) * (len(xs) - 1)))
    got = g(batch, *xs[1:])
    one = jax.jit(jax.grad(loss))
    for k in range(3):
        want = one(batch[k], *xs[1:])
        np.testing.assert_allclose(got[k], want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode", MODES)
def test_agrees_with_jax_native(gpu_safe_case, mode):  # type: ignore[no-untyped-def]
    case = gpu_safe_case
    native_f = counterpart(case.f, jnp) or case.f
    leaves, rebuild = case.split()
    xs = [jnp.asarray(x) for x in leaves]
    wrapped = crjax.wrap(case.f, mode=mode)

    def ours(*vals):  # type: ignore[no-untyped-def]
        args, kwargs = rebuild(*vals)
        return wrapped(*args, **kwargs)

    def native(*vals):  # type: ignore[no-untyped-def]
        args, kwargs = rebuild(*vals)
        args = jax.tree_util.tree_map(
            lambda a: jnp.asarray(a) if isinstance(a, np.ndarray) else a, args
        )
        return native_f(*args, **kwargs)

    y1, pb1 = jax.vjp(ours, *xs)
    y2, pb2 = jax.vjp(native, *xs)
    np.testing.assert_allclose(y1, y2, rtol=1e-10, atol=1e-12)
    rng = np.random.default_rng(1)
    y_bar = rng.standard_normal(np.shape(y1))
    if jnp.iscomplexobj(y1):
        y_bar = y_bar + 1j * rng.standard_normal(np.shape(y1))
    y_bar = jnp.asarray(y_bar, dtype=y1.dtype)
    for a, b in zip(pb1(y_bar), pb2(y_bar), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def test_jvp_mode_transposes_strong_zero_frules(strong_zero_case):  # type: ignore[no-untyped-def]
    """Regression (issue 26): a strong-zero frule masked its tangent (``where(t == 0, 0, t * d)``),
    a select on a linear value, so JAX could not transpose the pushforward: ``jax.grad`` of the
    bridged ``exp``, ``divide``, ``power``, ... raised an empty AssertionError. The frule
    multiplies plainly where the engine transposes it (``RuleConfig.linear_tangents``)."""
    case = strong_zero_case
    fn, xs = _loss_fn(case, "jvp")
    y = fn(*xs)
    rng = np.random.default_rng(2)
    w = rng.standard_normal(np.shape(y))
    loss = _scalarize(fn, jnp.asarray(w))
    grads = jax.grad(loss, argnums=tuple(range(len(xs))))(*xs)
    _assert_native_grads(case, grads, lambda y: np.asarray(w, dtype=np.result_type(y)))


def test_jvp_mode_integer_output_has_a_float0_tangent(integer_output_case):  # type: ignore[no-untyped-def]
    """Regression (issue 26): the frule's tangent of an integer output (frexp's exponent,
    unique's counts) reached JAX as a zero of the output's integer dtype, which ``custom_jvp``
    refuses ("must produce primal and tangent outputs with corresponding shapes and dtypes");
    JAX's tangent of an integer is float0."""
    case = integer_output_case
    fn, xs = _loss_fn(case, "jvp")
    ys = fn(*xs)
    k = next(i for i, v in enumerate(ys) if jnp.issubdtype(v.dtype, jnp.inexact))
    rng = np.random.default_rng(3)
    w = [np.zeros(np.shape(v)) for v in ys]
    w[k] = rng.standard_normal(np.shape(ys[k]))

    def loss(*vals):  # type: ignore[no-untyped-def]
        return jnp.real(jnp.sum(fn(*vals)[k] * w[k]))

    grads = jax.grad(loss, argnums=tuple(range(len(xs))))(*xs)
    # (zeros for the other outputs, of NumPy's shapes: lstsq's residuals differ in JAX)
    _assert_native_grads(
        case, grads, lambda y: tuple(w[k] if i == k else np.zeros_like(v) for i, v in enumerate(y))
    )


@pytest.mark.parametrize("mode", MODES)
def test_list_output_differentiates(list_output_case, mode):  # type: ignore[no-untyped-def]
    """Regression (issue 26): a rule whose function returns a list (``split``, ``dsplit``), or a
    tuple holding one (``histogramdd``'s edges), was taken as one output leaf (or a flat tuple),
    and the bridge refused its tangent ("returned a tangent of shape (2,) for the output, whose
    shape is ()", "zeros_like requires ndarray ... got list")."""
    from chainrules.core.calls import output_leaves

    case = list_output_case
    fn, xs = _loss_fn(case, mode)
    leaves_y, _ = output_leaves(fn(*xs))
    rng = np.random.default_rng(4)
    w = [rng.standard_normal(np.shape(v)) for v in leaves_y]

    def loss(*vals):  # type: ignore[no-untyped-def]
        ys, _ = output_leaves(fn(*vals))
        return sum(jnp.real(jnp.sum(v * wi)) for v, wi in zip(ys, w, strict=True))

    grads = jax.grad(loss, argnums=tuple(range(len(xs))))(*xs)

    def cotangent(y):  # type: ignore[no-untyped-def]
        ys, rebuild_y = output_leaves(y)
        return rebuild_y([np.asarray(wi, dtype=np.asarray(v).dtype) for wi, v in zip(w, ys)])

    _assert_native_grads(case, grads, cotangent)


def test_jvp_mode_of_an_rrule_alone_transposes_the_pullback(gpu_safe_case, clean_registry):  # type: ignore[no-untyped-def]
    """Issue 26: JAX's ``jacfwd`` of a function with only an rrule must give values. ``wrap(g)``
    of a function registered with the case's rrule alone builds its JVP by transposing the
    pullback; its ``jacfwd`` and ``jacrev`` equal those of the frule-built wrapper of the same
    function (both rules registered), for every GPU-safe registration."""
    case = gpu_safe_case

    def g(*args, **kwargs):  # type: ignore[no-untyped-def]
        return case.f(*args, **kwargs)

    cr.register_rrule(g)(cr.find_rrule(case.f))
    fn_r, xs = _loss_fn(Case_with(case, g), "jvp")
    fn_f, _ = _loss_fn(case, "jvp")
    y = fn_f(*xs)
    w = jnp.asarray(np.random.default_rng(5).standard_normal(np.shape(y)))
    real = all(not jnp.iscomplexobj(x) for x in xs) and not jnp.iscomplexobj(y)
    args = tuple(range(len(xs)))
    if real:
        for jt in (jax.jacfwd, jax.jacrev):
            got = jt(fn_r, argnums=args)(*xs)
            want = jt(fn_f, argnums=args)(*xs)
            for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
                np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    # tangents, also of complex functions: jvp along a random direction, and grad
    rng = np.random.default_rng(6)
    ts = [jnp.asarray(rng.standard_normal(x.shape)).astype(x.dtype) for x in xs]
    _, t_r = jax.jvp(fn_r, tuple(xs), tuple(ts))
    _, t_f = jax.jvp(fn_f, tuple(xs), tuple(ts))
    np.testing.assert_allclose(t_r, t_f, rtol=1e-9, atol=1e-12)
    g_r = jax.grad(_scalarize(fn_r, w), argnums=args)(*xs)
    g_f = jax.grad(_scalarize(fn_f, w), argnums=args)(*xs)
    for a, b in zip(g_r, g_f, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def Case_with(case, f):  # type: ignore[no-untyped-def]
    """``case`` calling ``f`` instead of its own function."""
    import dataclasses

    return dataclasses.replace(case, f=f)


def _assert_native_grads(case, grads, cotangent_of):  # type: ignore[no-untyped-def]
    """JAX's ``grads`` in the case's floating leaves (conjugated: JAX's convention) equal the
    rrule's pullback of ``cotangent_of(y)`` (``ZeroTangent``: zeros)."""
    leaves, rebuild = case.split()
    args, kwargs = rebuild(*leaves)
    y, pb = cr.rrule(case.f, *args, **kwargs)
    cts = pb(cotangent_of(y))
    want = [cr.unthunk(ct) for a, ct in zip(args, cts[1:]) if any(a is v for v in leaves)]
    for g, ct in zip(grads, want, strict=True):
        want_ = np.zeros(np.shape(g)) if isinstance(ct, cr.ZeroTangent) else np.asarray(ct)
        np.testing.assert_allclose(np.conj(g), want_, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("mode", ["jvp", "vjp"])
def test_cumulative_prod_hessian_at_a_zero(mode):  # type: ignore[no-untyped-def]
    import array_api_compat.numpy as cnp

    f = crjax.wrap(cnp.cumulative_prod, mode=mode)
    x = jnp.array([[1.1, 0.0, 1.0], [1.3, 0.5, 1.4], [0.0, 0.7, 1.2]])
    w = jnp.cos(jnp.arange(9.0)).reshape(3, 3)
    h = jax.jacrev(jax.grad(lambda x: jnp.sum(f(x, axis=0) * w)))(x)
    want = jax.hessian(lambda x: jnp.sum(jnp.cumulative_prod(x, axis=0) * w))(x)
    np.testing.assert_allclose(h, want, atol=1e-12)


# --- transformations, arguments and conventions --------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_numpy_inputs_are_converted(mode):  # type: ignore[no-untyped-def]
    norm = crjax.wrap(np.linalg.norm, mode=mode)
    x = np.array([3.0, 4.0])
    y = norm(x)
    assert isinstance(y, jax.Array)
    np.testing.assert_allclose(jax.grad(norm)(x), [0.6, 0.8])


def test_forward_transformations_in_jvp_mode():  # type: ignore[no-untyped-def]
    norm = crjax.wrap(np.linalg.norm)
    x = jnp.array([3.0, 4.0, 12.0])
    n = 13.0
    want_h = (jnp.eye(3) - jnp.outer(x, x) / n**2) / n
    np.testing.assert_allclose(jax.jacfwd(norm)(x), x / n)
    np.testing.assert_allclose(jax.jacrev(norm)(x), x / n)
    np.testing.assert_allclose(jax.hessian(norm)(x), want_h, atol=1e-15)
    np.testing.assert_allclose(jax.jit(jax.hessian(norm))(x), want_h, atol=1e-15)
    _, t = jax.jvp(norm, (x,), (jnp.ones(3),))
    np.testing.assert_allclose(t, jnp.sum(x) / n)


def test_vjp_mode_refuses_forward_mode():  # type: ignore[no-untyped-def]
    norm = crjax.wrap(np.linalg.norm, mode="vjp")
    x = jnp.array([3.0, 4.0])
    with pytest.raises(TypeError, match="custom_vjp"):
        jax.jvp(norm, (x,), (x,))
    np.testing.assert_allclose(jax.jacrev(jax.grad(norm))(x), jax.hessian(jnp.linalg.norm)(x))


@pytest.mark.parametrize("mode", MODES)
def test_static_and_integer_arguments(mode):  # type: ignore[no-untyped-def]
    take = crjax.wrap(np.take, mode=mode)
    x = jnp.arange(6.0) + 1.0
    idx = jnp.array([0, 0, 5])

    def loss(x, idx):  # type: ignore[no-untyped-def]
        return jnp.sum(take(x, idx, axis=0) ** 2)

    gx, gi = jax.jit(jax.grad(loss, argnums=(0, 1), allow_int=True))(x, idx)
    np.testing.assert_allclose(gx, [4.0, 0, 0, 0, 0, 12.0])
    assert gi.dtype == jax.dtypes.float0
    # index arrays may be batched by vmap
    got = jax.vmap(jax.grad(loss), in_axes=(None, 0))(x, jnp.array([[0, 1, 2], [3, 3, 3]]))
    np.testing.assert_allclose(got[1], [0, 0, 0, 24.0, 0, 0])
    # axes and orders are static (here positional)
    norm = crjax.wrap(np.linalg.norm, mode=mode)
    m = jnp.array([[3.0, 4.0], [0.0, 1.0]])
    np.testing.assert_allclose(
        jax.jit(jax.grad(lambda m: jnp.sum(norm(m, 2, 1))))(m), [[0.6, 0.8], [0.0, 1.0]]
    )


@pytest.mark.parametrize("mode", MODES)
def test_pytree_argument(mode):  # type: ignore[no-untyped-def]
    getitem = crjax.wrap(operator.getitem, mode=mode)
    a, b = jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0, 5.0])

    def loss(parts):  # type: ignore[no-untyped-def]
        return jnp.sum(getitem(parts, 1) ** 2)

    ga, gb = jax.jit(jax.grad(loss))((a, b))
    np.testing.assert_allclose(ga, [0.0, 0.0])
    np.testing.assert_allclose(gb, 2 * b)


@pytest.mark.parametrize("mode", MODES)
def test_complex_cotangent_is_jax_convention(mode):  # type: ignore[no-untyped-def]
    norm = crjax.wrap(np.linalg.norm, mode=mode)
    z = jnp.array([1.0 + 2.0j, -0.5 + 0.25j, 3.0 - 1.0j])
    got = jax.grad(norm)(z)
    want = jax.grad(jnp.linalg.norm)(z)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    # ours is the conjugate: z / |z|
    _, pb = cr.rrule(np.linalg.norm, np.asarray(z))
    np.testing.assert_allclose(np.conj(pb(1.0)[1]), got, rtol=1e-12)


@pytest.mark.parametrize("mode", MODES)
def test_float32_stays_float32(mode):  # type: ignore[no-untyped-def]
    s = crjax.wrap(np.sum, mode=mode)
    x = jnp.ones(3, dtype=jnp.float32)
    g = jax.jit(jax.grad(s))(x)
    assert g.dtype == jnp.float32


# --- eager calls: jvp mode runs its custom_jvp through jax.jit ----------------------------


def test_eager_jit_path_agrees_with_plain_custom_jvp(gpu_safe_case):  # type: ignore[no-untyped-def]
    """Eagerly, ``jvp`` mode calls its ``custom_jvp`` through ``jax.jit`` (one compiled call, not
    one dispatch per primitive of the frule); its ``vjp`` and ``jvp`` match the ``custom_jvp``
    called without the ``jit`` (``__wrapped__``), the path a rule that reads values on the host
    takes."""
    from chainrules.core.calls import split

    case = gpu_safe_case
    leaves, rebuild = case.split()
    xs = [jnp.asarray(x) for x in leaves]
    crjax._SHARED.clear()  # built callables are shared between wraps: this case's alone below
    wrapped = crjax.wrap(case.f)

    def ours(*vals):  # type: ignore[no-untyped-def]
        args, kwargs = rebuild(*vals)
        return wrapped(*args, **kwargs)

    def plain(*vals):  # type: ignore[no-untyped-def]
        args, kwargs = rebuild(*vals)
        sp = split(args, kwargs, crjax._is_dynamic)
        (built,) = wrapped.__chainrules_built__.values()  # one call structure
        return built.__wrapped__(*(jnp.asarray(sp.leaves[i]) for i in sp.dynamic))

    y1, pb1 = jax.vjp(ours, *xs)
    y2, pb2 = jax.vjp(plain, *xs)
    np.testing.assert_allclose(y1, y2, rtol=1e-13, atol=1e-15)
    rng = np.random.default_rng(2)
    y_bar = jnp.asarray(rng.standard_normal(np.shape(y1)), dtype=jnp.real(y1).dtype)
    if jnp.iscomplexobj(y1):
        y_bar = y_bar + 1j * y_bar[::-1]
    for a, b in zip(pb1(y_bar), pb2(y_bar), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)
    dots = [jnp.asarray(rng.standard_normal(x.shape), dtype=x.dtype) for x in xs]
    _, t1 = jax.jvp(ours, xs, dots)
    _, t2 = jax.jvp(plain, xs, dots)
    np.testing.assert_allclose(t1, t2, rtol=1e-13, atol=1e-15)


def counted_square(x):  # type: ignore[no-untyped-def]
    return x * x


def host_read_square(x):  # type: ignore[no-untyped-def]
    return x * x


@pytest.fixture
def counted_rules(clean_registry):  # type: ignore[no-untyped-def]
    """frules for ``counted_square`` (traceable) and ``host_read_square`` (reads a value on the
    host, so it runs eagerly but not under ``jit``), counting their calls."""
    calls = {"counted": 0, "host": 0}

    @cr.register_frule(counted_square)
    def _counted(tangents, x):  # type: ignore[no-untyped-def]
        calls["counted"] += 1
        return x * x, 2 * x * tangents[1]

    @cr.register_frule(host_read_square)
    def _host(tangents, x):  # type: ignore[no-untyped-def]
        calls["host"] += 1
        two = 2.0 if float(jnp.max(jnp.abs(x))) < 1e300 else 0.0  # a host read
        return x * x, two * x * tangents[1]

    return calls


def _checked_grad_of_square(square: Any) -> tuple[Any, Any]:
    """Eager ``jax.grad`` of ``sum(square(x))`` through the bridge, checked once at ``x``."""
    f = crjax.wrap(square)
    grad = jax.grad(lambda x: jnp.sum(f(x)))
    x = jnp.array([1.0, -2.0, 3.0])
    np.testing.assert_allclose(grad(x), 2 * x)
    return grad, x


def test_eager_grad_traces_the_frule_once(counted_rules):  # type: ignore[no-untyped-def]
    grad, x = _checked_grad_of_square(counted_square)
    first = counted_rules["counted"]
    assert first > 0
    for k in range(3):  # later calls reuse the compiled forward and backward: no new trace
        np.testing.assert_allclose(grad(x + k), 2 * (x + k))
    assert counted_rules["counted"] == first


def test_rule_that_reads_on_the_host_runs_eagerly(counted_rules):  # type: ignore[no-untyped-def]
    grad, x = _checked_grad_of_square(host_read_square)
    # the jit's trace failed once; from then on the structure runs eagerly: two frule calls
    # each, the pushforward and the primal through the custom_jvp (which a higher order
    # differentiates by the rule again)
    before = counted_rules["host"]
    np.testing.assert_allclose(grad(x), 2 * x)
    assert counted_rules["host"] == before + 2
    # under an outer jit the rule fails as it did without the bridge's jit
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(grad)(x)


@pytest.fixture
def counted_pullbacks(clean_registry):  # type: ignore[no-untyped-def]
    """rrules for ``counted_square`` and ``host_read_square`` whose pullbacks count their calls;
    the second pullback reads a value on the host (eagerly fine, not under ``jit``)."""
    calls = {"counted": 0, "host": 0}

    @cr.register_rrule(counted_square)
    def _counted(x):  # type: ignore[no-untyped-def]
        def pullback(y_bar):  # type: ignore[no-untyped-def]
            calls["counted"] += 1
            return cr.NoTangent(), 2 * x * y_bar

        return x * x, pullback

    @cr.register_rrule(host_read_square)
    def _host(x):  # type: ignore[no-untyped-def]
        def pullback(y_bar):  # type: ignore[no-untyped-def]
            calls["host"] += 1
            two = 2.0 if float(jnp.max(jnp.abs(x))) < 1e300 else 0.0  # a host read
            return cr.NoTangent(), two * x * y_bar

        return x * x, pullback

    return calls


def _checked_vjp_grad_of_square(square: Any) -> tuple[Any, Any]:
    f = crjax.wrap(square, mode="vjp")
    grad = jax.grad(lambda x: jnp.sum(f(x)))
    x = jnp.array([1.0, -2.0, 3.0])
    np.testing.assert_allclose(grad(x), 2 * x)
    return grad, x


def test_vjp_mode_eager_grad_traces_the_pullback_once(counted_pullbacks):  # type: ignore[no-untyped-def]
    """Eager ``grad`` in ``vjp`` mode is one compiled forward and one compiled backward: the
    first call traces the pullback (the probe, then the jit), later calls run no Python of it."""
    grad, x = _checked_vjp_grad_of_square(counted_square)
    first = counted_pullbacks["counted"]
    assert first > 0
    for k in range(3):
        np.testing.assert_allclose(grad(x + k), 2 * (x + k))
    assert counted_pullbacks["counted"] == first


@pytest.mark.parametrize("mode", MODES)
def test_a_new_wrap_of_the_same_rules_reuses_the_compiled_call(  # type: ignore[no-untyped-def]
    counted_rules, counted_pullbacks, mode
):
    """``jax.grad(wrap(f))(x)`` with a new wrapper on every call (a wrap inside a loop) traces
    the rule once, not once per wrapper; rules registered again for ``f`` are built afresh."""
    calls = counted_pullbacks if mode == "vjp" else counted_rules

    def grad_once(x):  # type: ignore[no-untyped-def]
        return jax.grad(lambda v: jnp.sum(crjax.wrap(counted_square, mode=mode)(v)))(x)

    x = jnp.array([1.0, -2.0, 3.0])
    np.testing.assert_allclose(grad_once(x), 2 * x)
    first = calls["counted"]
    for k in range(3):
        np.testing.assert_allclose(grad_once(x + k), 2 * (x + k))
    assert calls["counted"] == first
    w1, w2 = crjax.wrap(counted_square, mode=mode), crjax.wrap(counted_square, mode=mode)
    assert w1.__chainrules_built__ is w2.__chainrules_built__

    @cr.register_rrule(counted_square)  # registered again: a new rule
    def _again(x):  # type: ignore[no-untyped-def]
        return x * x, lambda y_bar: (cr.NoTangent(), 3 * x * y_bar)

    @cr.register_frule(counted_square)
    def _again_f(tangents, x):  # type: ignore[no-untyped-def]
        return x * x, 3 * x * tangents[1]

    assert crjax.wrap(counted_square, mode=mode).__chainrules_built__ is not w1.__chainrules_built__
    np.testing.assert_allclose(grad_once(x), 3 * x)


@pytest.mark.parametrize("f", [np.average, np.multiply], ids=["average", "multiply"])
def test_vjp_mode_after_a_transform_in_one_argument_differentiates_both(f):  # type: ignore[no-untyped-def]
    """``jit(grad)``, then ``jit(vmap(grad))`` in the first argument alone, then an eager ``vjp``
    in both: JAX serves the last from a forward traced for the second pattern (the first
    argument alone perturbed), so a backward pass that trusted that pattern gave the second
    argument a zero cotangent. Both cotangents match JAX's own."""
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.standard_normal((3, 4)))
    w = jnp.asarray(rng.uniform(0.5, 1.5, 4))
    wrapped = crjax.wrap(f, mode="vjp")
    native = counterpart(f, jnp)
    if f is np.average:
        fn = lambda a, b: wrapped(a, 1, b)
        nf = lambda a, b: native(a, 1, b)
    else:
        fn, nf = wrapped, native
    check_grads(jax.jit(fn), (x, w), order=2, modes=("rev",))

    def loss(a, b):  # type: ignore[no-untyped-def]
        y = fn(a, b)
        return jnp.sum(y * jnp.cos(jnp.arange(y.size).reshape(y.shape)))

    jax.jit(jax.vmap(jax.grad(loss), in_axes=(0, None)))(jnp.stack([x, x + 1]), w)
    y, pb = jax.vjp(fn, x, w)
    _, pb2 = jax.vjp(nf, x, w)
    y_bar = jnp.cos(jnp.arange(jnp.size(y)).reshape(jnp.shape(y)) + 0.5)
    for a, b in zip(pb(y_bar), pb2(y_bar), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_vjp_mode_pullback_that_reads_on_the_host_runs_eagerly(counted_pullbacks):  # type: ignore[no-untyped-def]
    """The probe's trace of the backward pass fails on the host read, so the structure runs
    without the jit: every eager grad calls the pullback once, with concrete arrays."""
    grad, x = _checked_vjp_grad_of_square(host_read_square)
    for k in range(2):
        before = counted_pullbacks["host"]
        np.testing.assert_allclose(grad(x + k), 2 * (x + k))
        assert counted_pullbacks["host"] == before + 1
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(grad)(x)


# --- bad input ------------------------------------------------------------------------------


def no_rule_function(x):  # type: ignore[no-untyped-def]
    return x


@pytest.mark.parametrize("mode", MODES)
def test_wrap_without_rule_raises(mode):  # type: ignore[no-untyped-def]
    with pytest.raises(cr.NoRuleError, match="no_rule_function"):
        crjax.wrap(no_rule_function, mode=mode)


def test_wrap_rejects_unknown_mode():  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="mode"):
        crjax.wrap(np.sum, mode="both")


def bad_function(x, y):  # type: ignore[no-untyped-def]
    return x * y


@pytest.fixture
def bad_rules(clean_registry):  # type: ignore[no-untyped-def]
    """Rules for ``bad_function`` that return a (co)tangent of the wrong shape for ``y``."""

    @cr.register_rrule(bad_function)
    def _rrule(x, y):  # type: ignore[no-untyped-def]
        def pullback(y_bar):  # type: ignore[no-untyped-def]
            return cr.NoTangent(), y_bar * y, (y_bar * x)[:1]

        return x * y, pullback

    @cr.register_frule(bad_function)
    def _frule(tangents, x, y):  # type: ignore[no-untyped-def]
        _, dx, dy = tangents
        return x * y, (dx * y + dy * x)[:1]

    return bad_function


def test_wrong_shape_cotangent_names_function_and_argument(bad_rules):  # type: ignore[no-untyped-def]
    f = crjax.wrap(bad_rules, mode="vjp")
    x, y = jnp.ones(3), jnp.ones(3)
    with pytest.raises(ValueError, match=r"rrule of .*bad_function.*\(1,\) for argument 1.*\(3,\)"):
        jax.grad(lambda x, y: jnp.sum(f(x, y)), argnums=1)(x, y)


def test_wrong_shape_tangent_names_function(bad_rules):  # type: ignore[no-untyped-def]
    f = crjax.wrap(bad_rules, mode="jvp")
    x, y = jnp.ones(3), jnp.ones(3)
    with pytest.raises(ValueError, match=r"frule of .*bad_function.*output"):
        jax.jvp(f, (x, y), (x, y))


# --- rules that compute on the host (SciPy) ------------------------------------------------------
HOST_CASES = ["expm", "sqrtm", "expm_frechet"]


def _host_case(name):  # type: ignore[no-untyped-def]
    """(a call of the wrapped SciPy function on x, that function, x)"""
    sl = pytest.importorskip("scipy.linalg")
    rng = np.random.default_rng(7)
    a = np.eye(3) + 0.2 * rng.standard_normal((3, 3))
    if name == "expm_frechet":
        e = jnp.ones((3, 3))
        return (lambda w, x: w(x, e, compute_expm=False)), sl.expm_frechet, a
    return (lambda w, x: w(x)), getattr(sl, name), a @ a.T if name == "sqrtm" else a


@pytest.mark.parametrize("name", HOST_CASES)
def test_a_host_rule_differentiates_in_each_mode_its_direction(name):  # type: ignore[no-untyped-def]
    """Regression (campaign jax-bridge seeds 51, 76, 110: TracerArrayConversionError): a SciPy
    function's frule runs SciPy on JAX's traced tangents, and its pullback on traced cotangents
    (jacrev, vmap). Such a rule runs on the host through ``jax.pure_callback``: ``mode="jvp"``
    gives ``jvp`` and ``jacfwd``, ``mode="vjp"`` gives ``grad`` and ``jacrev``, each equal to
    the Jacobian of the rrule's pullback on NumPy arrays (rows: the pullback of each output
    basis matrix); the other direction raises JAX's own error (no JAX extension point gives a
    host function both, jax-ml/jax#9129)."""
    call, scipy_f, x0 = _host_case(name)
    extra = ((np.ones((3, 3)),), {"compute_expm": False}) if name == "expm_frechet" else ((), {})
    y, pb = cr.rrule(scipy_f, x0, *extra[0], **extra[1])
    rows = []
    for k in range(y.size):
        e = np.zeros(y.size)
        e[k] = 1.0
        rows.append(cr.unthunk(pb(e.reshape(y.shape))[1]))
    want = np.stack(rows).reshape(*y.shape, *x0.shape)
    x = jnp.asarray(x0)
    fw, rw = crjax.wrap(scipy_f), crjax.wrap(scipy_f, mode="vjp")
    fwd, rev = (lambda x: call(fw, x)), (lambda x: call(rw, x))
    np.testing.assert_allclose(np.asarray(jax.jacfwd(fwd)(x)), want, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(np.asarray(jax.jacrev(rev)(x)), want, rtol=1e-8, atol=1e-10)
    w = np.cos(np.arange(9.0)).reshape(3, 3)
    g = jax.grad(lambda x: jnp.sum(rev(x) * w))(x)
    np.testing.assert_allclose(np.asarray(g), np.tensordot(w, want, 2), rtol=1e-8, atol=1e-10)
    with pytest.raises(ValueError, match="Pure callbacks do not support transpose"):
        jax.grad(lambda x: jnp.sum(fwd(x) * w))(x)
    with pytest.raises(TypeError, match="forward-mode"):
        jax.jacfwd(rev)(x)


@pytest.mark.parametrize("name", ["zeros_like", "ones_like", "empty_like", "full_like"])
def test_numpys_like_functions_of_jax_arrays_trace(name):  # type: ignore[no-untyped-def]
    """Regression (campaign jax-bridge seeds 54, 170, 238: TracerArrayConversionError under
    ``jit`` and ``vmap``): the rules of NumPy's ``*_like`` functions called NumPy's own function
    on the JAX array. With an array argument the arrays' library computes them, as every NumPy
    rule does, so they trace."""
    f = crjax.wrap(getattr(np, name))
    extra = (2.0,) if name == "full_like" else ()

    def loss(x):  # type: ignore[no-untyped-def]
        return jnp.sum(jnp.sin(x) * (1.0 + 0.0 * f(x, *extra)))

    x = jnp.array([0.3, 1.2, -0.7])
    want = np.cos(np.asarray(x))
    np.testing.assert_allclose(np.asarray(jax.jit(jax.grad(loss))(x)), want, rtol=1e-6)
    got = jax.vmap(jax.grad(loss))(jnp.stack([x, x]))
    np.testing.assert_allclose(np.asarray(got[1]), want, rtol=1e-6)


def test_a_scipy_rule_computes_in_one_library():  # type: ignore[no-untyped-def]
    """Regression (campaign jax-bridge seeds 93, 396): ``wrap(scipy.linalg.lu)`` of a JAX array
    raised "jax.device_put only accepts ... Received invalid value: cpu": the rule built
    ``jax.numpy`` identities on the device of SciPy's NumPy factors. A rule that computes on
    the host runs on NumPy copies of its inputs, its values and derivatives those of NumPy."""
    sl = pytest.importorskip("scipy.linalg")
    a = np.random.default_rng(3).standard_normal((4, 3))
    for mode in ("jvp", "vjp"):
        lu = crjax.wrap(sl.lu, mode=mode)
        for got, want in zip(lu(jnp.asarray(a)), sl.lu(a), strict=True):
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-14)
    w = np.cos(np.arange(12.0)).reshape(4, 3)

    def loss(lu, x):  # type: ignore[no-untyped-def]
        _, low, u = lu(x)
        return jnp.sum(low @ u * w)  # P L U = a: the derivative of sum(P^T a w) is P w

    p = sl.lu(a)[0]
    g = jax.grad(lambda x: loss(crjax.wrap(sl.lu, mode="vjp"), x))(jnp.asarray(a))
    np.testing.assert_allclose(np.asarray(g), p @ w, rtol=1e-10, atol=1e-12)
    t = jax.jvp(lambda x: loss(crjax.wrap(sl.lu), x), (jnp.asarray(a),), (jnp.asarray(w),))[1]
    np.testing.assert_allclose(float(t), float(np.sum((p @ w) * w)), rtol=1e-10)


def test_row_stack_of_jax_arrays():  # type: ignore[no-untyped-def]
    """Regression (campaign jax-bridge seed 243 and six more): ``wrap(np.row_stack)`` of JAX
    arrays raised "module 'jax.numpy' has no attribute 'row_stack'": the gather rule called the
    arrays' library's function by name. NumPy documents ``row_stack`` as ``vstack``'s alias, and
    the rule computes with ``vstack``."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # np.row_stack's own (NumPy >= 2)
        f = crjax.wrap(np.row_stack)
    w = jnp.arange(6.0).reshape(2, 3)

    def loss(x):  # type: ignore[no-untyped-def]
        return jnp.sum(f((x, 2 * x)) * w)  # rows x and 2x against w[0] and w[1]

    x = jnp.array([[0.5, -1.0, 2.0]])
    got = jax.jit(jax.grad(loss))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(w[0] + 2 * w[1])[None], rtol=1e-12)
