"""autograd's API on chainrules.ad (issue 29, item 6): the differential operators of
``chainrules.ad`` that carry autograd's names, ``checkpoint``, ``ravel_pytree``,
``chainrules.ad.extend`` and ``chainrules.ad.builtins``.

Each operator is compared with HIPS autograd itself on the same functions (complex gradients
converted: autograd's are the conjugates of ours) and with finite differences, and run on the
scalar-guarded device array.
"""

from __future__ import annotations

import tracemalloc
import warnings
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.ad import builtins as cb
from chainrules.ad.extend import (
    def_linear,
    defjvp,
    defjvp_argnum,
    defvjp,
    defvjp_argnum,
    notrace_primitive,
    primitive,
)
from chainrules.testing import central_difference, device_array, to_numpy

RNG = np.random.default_rng(29)
X = RNG.standard_normal(4)
W = RNG.standard_normal(4)
A = RNG.standard_normal((3, 4))
Z = RNG.standard_normal(3) + 1j * RNG.standard_normal(3)


def close(a: Any, b: Any, rtol: float = 1e-9, atol: float = 1e-11) -> None:
    np.testing.assert_allclose(to_numpy(a), to_numpy(b), rtol=rtol, atol=atol)


def fd_jvp(f: Any, x: Any, v: Any, h: float = 1e-3) -> Any:
    """The directional derivative of ``f`` at ``x`` along ``v`` (5-point stencil)."""
    return central_difference(lambda t: f(x + t * v), h)


def fd_jacobian(f: Any, x: np.ndarray) -> np.ndarray:
    """``(*out, *in)`` Jacobian by finite differences along each basis vector."""
    cols = [fd_jvp(f, x, e.reshape(x.shape)) for e in np.eye(x.size)]
    out = np.stack(cols, axis=-1)
    return out.reshape(np.shape(f(x)) + x.shape)


@pytest.fixture
def ag():  # type: ignore[no-untyped-def]
    """HIPS autograd (its ``numpy`` wrapper is ``ag.np``)."""
    autograd = pytest.importorskip("autograd")
    import autograd.numpy as anp

    autograd.np = anp
    return autograd


# --- against autograd --------------------------------------------------------------------------
def mlp(np_: Any) -> Any:
    def f(w: Any, x: Any) -> Any:
        return np_.tanh(np_.dot(A, w * x)) ** 2

    return f


def test_make_vjp_and_make_jvp_match_autograd(ag) -> None:  # type: ignore[no-untyped-def]
    u = RNG.standard_normal(3)
    for argnum in (0, 1):
        vjp, y = ad.make_vjp(mlp(np), argnum)(W, X)
        avjp, ay = ag.make_vjp(mlp(ag.np), argnum)(W, X)
        close(y, ay)
        close(vjp(u), avjp(u))
        y, t = ad.make_jvp(mlp(np), argnum)(W, X)(X)
        ay, at = ag.make_jvp(mlp(ag.np), argnum)(W, X)(X)
        close(y, ay)
        close(t, at)
    # several arguments: a tuple of cotangents, autograd's structure
    vjp, _ = ad.make_vjp(mlp(np), (0, 1))(W, X)
    avjp, _ = ag.make_vjp(mlp(ag.np), (0, 1))(W, X)
    for a, b in zip(vjp(u), avjp(u), strict=True):
        close(a, b)


def test_complex_vjp_is_the_conjugate_of_autograds(ag) -> None:  # type: ignore[no-untyped-def]
    """chainrules' convention (dL/dRe + i dL/dIm) against autograd's (its conjugate)."""

    def f(np_: Any) -> Any:
        return lambda z: np_.sin(z) * np_.conj(z)

    u = RNG.standard_normal(3) + 1j * RNG.standard_normal(3)
    vjp, _ = ad.make_vjp(f(np))(Z)
    avjp, _ = ag.make_vjp(f(ag.np))(Z)
    close(vjp(u), np.conj(avjp(np.conj(u))))


def test_elementwise_deriv_holomorphic_match_autograd(ag) -> None:  # type: ignore[no-untyped-def]
    close(ad.elementwise_grad(np.sinh)(X), ag.elementwise_grad(ag.np.sinh)(X))
    close(ad.elementwise_grad(mlp(np), 1)(W, X), ag.elementwise_grad(mlp(ag.np), 1)(W, X))
    close(ad.deriv(lambda x: x * np.sin(x**2))(1.3), ag.deriv(lambda x: x * ag.np.sin(x**2))(1.3))
    close(ad.deriv(np.sinh)(X), ag.deriv(ag.np.sinh)(X))
    z = complex(Z[0])
    close(
        ad.holomorphic_grad(lambda z: z**3 * np.exp(z))(np.complex128(z)),
        ag.holomorphic_grad(lambda z: z**3 * ag.np.exp(z))(z),
    )


def test_second_order_operators_match_autograd(ag) -> None:  # type: ignore[no-untyped-def]
    def loss(np_: Any) -> Any:
        return lambda w, x: np_.sum(np_.tanh(np_.dot(A, w * x)) ** 3)

    v = RNG.standard_normal(4)
    close(
        ad.hessian_vector_product(loss(np))(W, X, v),
        ag.hessian_vector_product(loss(ag.np))(W, X, v),
    )
    close(
        ad.hessian_vector_product(loss(np), 1)(W, X, v),
        ag.hessian_vector_product(loss(ag.np), 1)(W, X, v),
    )
    hvp, g = ad.make_hvp(loss(np))(W, X)
    ahvp, ag_g = ag.make_hvp(loss(ag.np))(W, X)
    close(g, ag_g)
    close(hvp(v), ahvp(v))
    close(ad.make_ggnvp(mlp(np))(W, X)(v), ag.make_ggnvp(mlp(ag.np))(W, X)(v))
    g_ours = lambda y: np.sum(2.0 * y**2 + y**4)
    g_theirs = lambda y: ag.np.sum(2.0 * y**2 + y**4)
    close(ad.make_ggnvp(mlp(np), g_ours)(W, X)(v), ag.make_ggnvp(mlp(ag.np), g_theirs)(W, X)(v))
    close(
        ad.make_ggnvp(mlp(np), g_ours, f_argnums=1)(W, X)(v),
        ag.make_ggnvp(mlp(ag.np), g_theirs, f_argnum=1)(W, X)(v),
    )


def test_vector_jacobian_product_matches_autograd(ag) -> None:  # type: ignore[no-untyped-def]
    def f(np_: Any) -> Any:
        return lambda a: np_.roll(np_.sin(a), 1)

    a = RNG.standard_normal((5, 4, 3))
    for shape in ((5, 4, 3), (5, 4), (5,)):  # the output's shape, and leading parts of it
        v = RNG.standard_normal(shape)
        got = ad.vector_jacobian_product(f(np))(a, v)
        close(got, ag.vector_jacobian_product(f(ag.np))(a, v))
        J = fd_jacobian(f(np), a)
        close(got, np.tensordot(v, J, axes=v.ndim), rtol=1e-7, atol=1e-9)
    # a scalar output and a Python-number v
    sq = lambda np_: lambda x: np_.sum(x**2)
    close(ad.vector_jacobian_product(sq(np))(X, 2.0), ag.vector_jacobian_product(sq(ag.np))(X, 2.0))


def test_grad_and_aux_matches_autograd(ag) -> None:  # type: ignore[no-untyped-def]
    def f(np_: Any) -> Any:
        return lambda x: (np_.sum(np_.dot(A, x) ** 2), {"sq": x**2, "n": 3.0})

    g, aux = ad.grad_and_aux(f(np))(X)
    ag_g, ag_aux = ag.grad_and_aux(f(ag.np))(X)
    close(g, ag_g)
    assert type(aux["sq"]) is np.ndarray and aux["n"] == ag_aux["n"] == 3.0
    close(aux["sq"], X**2)  # (autograd's aux holds its box here)
    # anything may be aux here (autograd's must be in one of its vector spaces)
    assert ad.grad_and_aux(lambda x: (np.sum(x), ("shape", x.shape)))(X)[1] == ("shape", (4,))


# --- against finite differences ----------------------------------------------------------------
def test_operators_against_finite_differences() -> None:
    f = mlp(np)
    J = fd_jacobian(lambda w: f(w, X), W)
    u = RNG.standard_normal(3)
    vjp, _ = ad.make_vjp(f)(W, X)
    close(vjp(u), u @ J, rtol=1e-7, atol=1e-9)
    close(ad.make_jvp(f)(W, X)(X)[1], J @ X, rtol=1e-7, atol=1e-9)
    close(ad.elementwise_grad(f)(W, X), J.sum(axis=0), rtol=1e-7, atol=1e-9)
    close(ad.deriv(f)(W, X), J.sum(axis=1), rtol=1e-7, atol=1e-9)

    def loss(w: Any) -> Any:
        return np.sum(f(w, X) ** 3)

    v = RNG.standard_normal(4)
    H = fd_jacobian(ad.grad(loss), W)
    close(ad.hessian_vector_product(loss)(W, v), H @ v, rtol=1e-6, atol=1e-8)
    close(ad.make_hvp(loss)(W)[0](v), H @ v, rtol=1e-6, atol=1e-8)
    Jf = J
    Hg = np.eye(3)  # the default loss: 0.5 * sum(y**2)
    close(ad.make_ggnvp(lambda w: f(w, X))(W)(v), Jf.T @ Hg @ Jf @ v, rtol=1e-6, atol=1e-8)
    z = np.complex128(Z[1])
    d = fd_jvp(lambda t: np.exp(t) * t**2, z, 1.0)
    close(ad.holomorphic_grad(lambda t: np.exp(t) * t**2)(z), d, rtol=1e-7)


def test_chunked_tangents_push_several_products() -> None:
    loss = lambda w: np.sum(np.sin(w) ** 3)
    V = RNG.standard_normal((3, 4))
    H = ad.hessian(loss)(W)
    close(ad.hessian_vector_product(loss)(W, V), V @ H.T)
    _, t = ad.make_jvp(np.sin)(W)(V)
    close(t, V * np.cos(W))


def test_keywords_pass_through_and_argnums_select() -> None:
    def f(w: Any, x: Any, *, scale: float = 1.0) -> Any:
        return scale * np.sum(np.sin(w * x))

    vjp, y = ad.make_vjp(f, 1)(W, X, scale=2.0)
    close(y, 2.0 * np.sum(np.sin(W * X)))
    close(vjp(1.0), 2.0 * W * np.cos(W * X))
    gw, gx = ad.elementwise_grad(f, (0, 1))(W, X, scale=2.0)
    close(gw, 2.0 * X * np.cos(W * X))
    close(gx, 2.0 * W * np.cos(W * X))
    close(ad.deriv(f, 1)(W, X, scale=2.0), 2.0 * np.sum(W * np.cos(W * X)))


def test_errors_name_the_function_and_what_was_expected() -> None:
    def cplx(x: Any) -> Any:
        return x * (1.0 + 0.2j)

    with pytest.raises(TypeError, match="elementwise_grad: cplx returned a complex output"):
        ad.elementwise_grad(cplx)(X)
    with pytest.raises(
        TypeError, match="grad: cplx returned a complex scalar; grad needs a real loss"
    ):
        ad.grad(cplx)(1.0)
    with pytest.raises(TypeError, match=r"holomorphic_grad: cplx must return a scalar.*\(4,\)"):
        ad.holomorphic_grad(cplx)(X.astype(complex))
    with pytest.warns(UserWarning, match="holomorphic_grad: the input of cplx is real"):
        close(ad.holomorphic_grad(cplx)(1.0), 1.0)
    with pytest.raises(TypeError, match=r"grad_and_aux: sin must return a pair \(loss, aux\)"):
        ad.grad_and_aux(np.sin)(X)
    with pytest.raises(TypeError, match="vector_jacobian_product: call it with sin's arguments"):
        ad.vector_jacobian_product(np.sin)()
    with pytest.raises(ValueError, match="argnums=3 does not fit a call with 1 positional"):
        ad.make_vjp(np.sin, 3)(X)


def test_operators_run_on_the_device_array() -> None:
    """No element is read on the host: the guarded array refuses any such access."""
    x = device_array(X)
    loss = lambda w: np.sum(np.sin(w) ** 3)
    close(ad.elementwise_grad(np.sin)(x), np.cos(X))
    vjp, _ = ad.make_vjp(np.sin)(x)
    close(vjp(device_array(W)), W * np.cos(X))
    close(ad.make_jvp(np.sin)(x)(device_array(W))[1], W * np.cos(X))
    close(ad.deriv(np.sin)(x), np.cos(X))
    H = ad.hessian(loss)(X)
    close(ad.hessian_vector_product(loss)(x, device_array(W)), H @ W)
    close(ad.make_hvp(loss)(x)[0](device_array(W)), H @ W)
    close(ad.vector_jacobian_product(np.sin)(x, device_array(W)), W * np.cos(X))
    close(ad.grad_and_aux(lambda w: (loss(w), w))(x)[0], ad.grad(loss)(X))


# --- checkpoint --------------------------------------------------------------------------------
def block(a: Any) -> Any:
    for _ in range(10):
        a = np.sin(a**2 + 1)
    return a


def chain(f: Any, x: Any) -> Any:
    for _ in range(5):
        x = f(x)
    return np.sum(x)


def test_checkpoint_gives_the_same_derivatives() -> None:
    calls = []

    def counted(a: Any) -> Any:
        calls.append(1)
        return np.sin(a**2 + 1) * a

    cp = ad.checkpoint(counted)
    assert cp.__name__ == "counted"
    loss = lambda x: np.sum(cp(cp(x)))
    plain = lambda x: np.sum(counted(counted(x)))
    close(cp(X), counted(X))
    want = ad.grad(plain)(X)
    calls.clear()
    close(ad.grad(loss)(X), want)
    assert len(calls) == 4  # two forward calls, each run again in the backward pass
    close(ad.grad(loss)(X), [fd_jvp(loss, X, e) for e in np.eye(4)], rtol=1e-7)
    close(
        ad.jacobian(lambda x: cp(cp(x)), mode="rev")(X), fd_jacobian(lambda x: cp(cp(x)), X), 1e-7
    )
    close(
        ad.jacobian(lambda x: cp(cp(x)), mode="fwd")(X), fd_jacobian(lambda x: cp(cp(x)), X), 1e-7
    )
    close(ad.hessian(loss)(X), ad.hessian(plain)(X))
    close(ad.make_hvp(loss)(X)[0](W), ad.hessian(plain)(X) @ W)


def test_checkpoint_of_pytrees_and_constants() -> None:
    def layer(params: Any, x: Any, n: int) -> Any:
        for _ in range(n):
            x = np.tanh(params["w"] * x + params["b"])
        return x, np.sum(x)

    cp = ad.checkpoint(layer)
    params = {"w": W, "b": X}

    def loss(p: Any, x: Any) -> Any:
        y, s = cp(p, x, 3)
        return np.sum(y**2) + s

    def plain(p: Any, x: Any) -> Any:
        y, s = layer(p, x, 3)
        return np.sum(y**2) + s

    got = ad.grad(loss, (0, 1))(params, X)
    want = ad.grad(plain, (0, 1))(params, X)
    close(got[0]["w"], want[0]["w"])
    close(got[0]["b"], want[0]["b"])
    close(got[1], want[1])


def test_checkpoint_runs_on_the_device_array() -> None:
    cp = ad.checkpoint(block)
    close(ad.grad(chain, 1)(cp, device_array(X)), ad.grad(chain, 1)(block, X))


def test_checkpoint_keeps_less_memory_between_the_passes() -> None:
    """autograd's own criterion (its ``checkpoint_memory``): the peak of a gradient through
    checkpointed blocks is under half the plain one's (measured here: about a quarter)."""
    cp = ad.checkpoint(block)
    x = np.random.default_rng(0).standard_normal(100_000)
    peaks = {}
    for name, f in (("plain", block), ("checkpointed", cp)):
        tracemalloc.start()
        try:
            ad.grad(chain, 1)(f, x)
            peaks[name] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peaks["checkpointed"] < peaks["plain"] / 2, peaks


# --- ravel_pytree ------------------------------------------------------------------------------
def test_ravel_pytree_round_trip_and_dtypes() -> None:
    tree = (1.0, RNG.standard_normal((2, 3)), [np.ones(2, np.float32), {"x": 2.0, "y": Z}])
    v, unravel = ad.ravel_pytree(tree)
    assert v.shape == (1 + 6 + 2 + 1 + 3,) and v.dtype == np.complex128
    back = unravel(v)
    assert back[2][0].dtype == np.float32 and back[2][1]["y"].dtype == np.complex128
    close(back[1], tree[1])
    close(back[2][1]["y"], Z)
    close(ad.ravel_pytree(back)[0], v)
    empty, unravel_empty = ad.ravel_pytree(((), {}))
    assert empty.shape == (0,) and unravel_empty(empty) == ((), {})


def test_gradient_through_ravel_pytree() -> None:
    params = {"w": W, "b": 0.5}
    v, unravel = ad.ravel_pytree(params)

    def loss_flat(v: Any) -> Any:
        p = unravel(v)
        return np.sum(np.sin(p["w"]) * p["b"])

    g = ad.grad(loss_flat)(v)
    close(g, np.concatenate([0.5 * np.cos(W), [np.sum(np.sin(W))]]))
    # and raveling traced leaves
    close(ad.grad(lambda w: np.sum(ad.ravel_pytree([w, 2 * w])[0] ** 2))(W), 10 * W)
    dv, _ = ad.ravel_pytree({"w": device_array(W), "b": device_array(X)})
    close(dv, np.concatenate([W, X]))


# --- chainrules.ad.extend ----------------------------------------------------------------------
def test_primitive_is_not_traced_through(clean_registry) -> None:  # type: ignore[no-untyped-def]
    @primitive
    def host_sum(x: Any) -> Any:
        return np.asarray(float(np.sum(x)))  # a host read: tracing it would fail

    defvjp(host_sum, lambda ans, x: lambda g: g * np.ones_like(x))
    defjvp(host_sum, lambda g, ans, x: np.sum(g))
    close(ad.grad(lambda x: host_sum(x**2))(X), 2 * X)
    close(ad.deriv(lambda x: host_sum(x**2))(X), np.sum(2 * X))
    close(ad.jacobian(lambda x: host_sum(x**2), mode="fwd")(X), 2 * X)
    assert host_sum.__name__ == "host_sum"


def test_missing_derivatives_raise_autograds_error(clean_registry) -> None:  # type: ignore[no-untyped-def]
    fun = primitive(lambda x, y: 2.0 * x * y)
    with pytest.raises(NotImplementedError, match="VJP of <lambda> wrt argnum 0 not defined"):
        ad.grad(fun)(1.0, 2.0)
    with pytest.raises(NotImplementedError, match=r"JVP of <lambda> wrt argnums \(0,\) not"):
        ad.deriv(fun)(1.0, 2.0)
    defvjp(fun, lambda ans, x, y: lambda g: 2.0 * g * y)
    close(ad.grad(fun)(1.0, np.array(2.0)), 4.0)  # y constant: its missing VJP is never asked
    with pytest.raises(NotImplementedError, match="VJP of <lambda> wrt argnum 1 not defined"):
        ad.grad(fun, 1)(1.0, 2.0)
    defvjp(fun, None, lambda ans, x, y: lambda g: 2.0 * g * x)  # None: a zero derivative
    close(ad.grad(fun, (0, 1))(1.0, 2.0), (0.0, 2.0))
    defvjp(fun, lambda ans, x, y: lambda g: g, argnums=[1])
    close(ad.grad(fun, 1)(1.0, 2.0), 1.0)
    with pytest.raises(TypeError, match="defvjp: the VJP maker for argument 0 of <lambda>"):
        defvjp(fun, 3)


def test_extend_matches_autograd_on_the_same_primitive(ag, clean_registry) -> None:  # type: ignore[no-untyped-def]
    """The same definitions, given to autograd's extend and to ours, differentiate alike --
    also a holomorphic primitive, whose autograd-convention VJP defvjp converts."""

    def make(extend: Any, np_: Any) -> tuple[Any, Any]:
        @extend.primitive
        def logsumexp(x: Any) -> Any:
            m = np.max(x)
            return m + np.log(np.sum(np.exp(x - m)))

        extend.defvjp(logsumexp, lambda ans, x: lambda g: g * np_.exp(x - ans))
        extend.defjvp(logsumexp, lambda g, ans, x: np_.sum(g * np_.exp(x - ans)))

        @extend.primitive
        def cube(z: Any) -> Any:
            return z**3

        extend.defvjp(cube, lambda ans, z: lambda g: g * 3 * z**2)  # autograd's convention
        extend.defjvp(cube, lambda g, ans, z: g * 3 * z**2)
        return logsumexp, cube

    import autograd.extend

    lse, cube = make(__import__("chainrules.ad.extend", fromlist=["x"]), np)
    alse, acube = make(autograd.extend, ag.np)
    close(ad.grad(lambda x: lse(np.sin(x)))(X), ag.grad(lambda x: alse(ag.np.sin(x)))(X))
    close(ad.hessian(lambda x: lse(np.sin(x)))(X), ag.hessian(lambda x: alse(ag.np.sin(x)))(X))

    def power(np_: Any, c: Any) -> Any:
        return lambda z: np_.sum(np_.abs(c(z)) ** 2)

    close(ad.grad(power(np, cube))(Z), np.conj(ag.grad(power(ag.np, acube))(Z)))
    close(ad.grad(power(np, cube))(Z), ad.grad(lambda z: np.sum(np.abs(z**3) ** 2))(Z))
    close(ad.holomorphic_grad(cube)(np.complex128(Z[0])), 3 * Z[0] ** 2)


def test_extend_second_order_and_chunks(clean_registry) -> None:  # type: ignore[no-untyped-def]
    @primitive
    def matvec(M: Any, x: Any) -> Any:
        return np.dot(M, x)

    defvjp(matvec, lambda ans, M, x: lambda g: np.outer(g, x), lambda ans, M, x: lambda g: g @ M)
    defjvp(matvec, "same", "same")  # linear in each argument
    f = lambda x: np.sum(np.sin(matvec(A, x)) ** 2)
    plain = lambda x: np.sum(np.sin(A @ x) ** 2)
    close(ad.grad(f)(X), ad.grad(plain)(X))
    close(ad.hessian(f)(X), ad.hessian(plain)(X))  # chunks of 4 tangents through "same"
    close(ad.jacobian(lambda x: matvec(A, x), mode="fwd", chunk_size=3)(X), A)
    close(ad.jacobian(lambda M: matvec(M, X), mode="rev")(A), ad.jacobian(lambda M: M @ X)(A))

    @primitive
    def scale(x: Any, c: Any) -> Any:
        return c * x

    def_linear(scale)
    defvjp_argnum(scale, lambda i, ans, args, kw: lambda g: g * args[1 - i])  # c: no sum
    close(ad.deriv(lambda x: scale(x, 3.0))(X), 3.0 * np.ones(4))
    close(ad.jacobian(lambda x: scale(x, 3.0))(X), 3.0 * np.eye(4))
    close(ad.grad(lambda x: np.sum(scale(x, 2.0)))(X), 2.0 * np.ones(4))
    with pytest.raises(ValueError, match=r"VJP of scale returned a cotangent of shape \(4,\) for"):
        ad.grad(lambda c: np.sum(scale(X, c)))(2.0)
    defvjp_argnum(
        scale, lambda i, ans, args, kw: lambda g: np.sum(g * args[0]) if i else g * args[1]
    )
    close(ad.grad(lambda c: np.sum(scale(X, c)))(2.0), np.sum(X))


def test_extend_tuple_outputs_and_list_arguments(clean_registry) -> None:  # type: ignore[no-untyped-def]
    @primitive
    def split_sum(xs: Any) -> Any:
        return xs[0] + xs[1], xs[0] * xs[1]

    defvjp(split_sum, lambda ans, xs: lambda g: [g[0] + g[1] * xs[1], g[0] + g[1] * xs[0]])
    defjvp_argnum(
        split_sum,
        lambda i, g, ans, args, kw: (g[0] + g[1], g[0] * args[0][1] + g[1] * args[0][0]),
    )

    def loss(x: Any, w: Any) -> Any:
        s, p = split_sum([x, w])
        return np.sum(s**2 + p)

    want = ad.grad(lambda x, w: np.sum((x + w) ** 2 + x * w), (0, 1))(X, W)
    got = ad.grad(loss, (0, 1))(X, W)
    close(got[0], want[0])
    close(got[1], want[1])
    close(ad.grad(lambda x: np.sum(split_sum([x, W])[1]))(X), W)  # one entry only reached
    close(ad.make_jvp(lambda x: split_sum([x, W])[0])(X)(W)[1], W)


def test_notrace_primitive_gives_a_constant() -> None:
    seen = []

    def shape_of(x: Any) -> Any:
        seen.append(type(x))
        return np.shape(x)

    op = notrace_primitive(shape_of)
    close(ad.grad(lambda x: np.sum(x) * op(x)[0])(X), 4.0 * np.ones(4))
    assert seen == [np.ndarray]  # it ran on the value, not on a tracer


# --- chainrules.ad.builtins --------------------------------------------------------------------
def test_builtins_look_through_tracers() -> None:
    assert cb.list is list and cb.tuple is tuple and cb.dict is dict

    def checker(x: Any) -> Any:
        assert cb.isinstance(x, np.ndarray) and cb.type(x) is np.ndarray
        assert not isinstance(x, np.ndarray)  # Python's own sees the tracer
        return np.sum(x**3)

    close(ad.grad(checker)(X), 3 * X**2)
    close(ad.hessian(checker)(X), np.diag(6 * X))  # two levels of tracing
    assert cb.isinstance([X], list) and cb.type(2.0) is float

    def in_list(xs: Any) -> Any:
        assert cb.isinstance(xs, list) and cb.isinstance(xs[0], np.ndarray)
        return np.sum(xs[0] * xs[1])

    close(ad.grad(in_list)([X, W])[0], W)


def test_operators_have_rules_of_their_own_nowhere() -> None:
    """The operators add no rule to the registry: they are built from the engine's passes."""
    before = len(list(cr.registrations()))
    ad.make_vjp(np.sin)(X)[0](W)
    ad.hessian_vector_product(lambda x: np.sum(x**3))(X, W)
    assert len(list(cr.registrations())) == before


def test_no_warning_from_real_holomorphic_use() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ad.holomorphic_grad(lambda z: z**2)(np.complex128(1 + 1j))


def _namespace_lse() -> Any:
    from array_api_compat import array_namespace

    @primitive
    def lse(x: Any) -> Any:
        xp = array_namespace(x)
        m = xp.max(x)
        return m + xp.log(xp.sum(xp.exp(x - m)))

    defvjp(lse, lambda ans, x: lambda g: g * array_namespace(x).exp(x - ans))
    defjvp(lse, lambda g, ans, x: array_namespace(x).sum(g * array_namespace(x).exp(x - ans)))
    return lse


SOFT = np.exp(X) / np.sum(np.exp(X))


def test_extend_rules_run_on_the_device_array(clean_registry) -> None:  # type: ignore[no-untyped-def]
    """Makers written against the array namespace differentiate guarded device arrays."""
    lse = _namespace_lse()
    close(ad.grad(lse)(device_array(X)), SOFT)
    close(ad.hessian(lse)(device_array(X)), np.diag(SOFT) - np.outer(SOFT, SOFT))


def test_extend_rules_serve_the_jax_bridge_under_jit(clean_registry, jax_numpy) -> None:  # type: ignore[no-untyped-def]
    """defvjp / defjvp register rules in the registry, so the JAX bridge uses them too, under
    ``jax.jit``, first and second order."""
    import jax

    from chainrules.interop import jax as cj

    f = cj.wrap(_namespace_lse())
    jx = jax_numpy.asarray(X)
    close(jax.jit(jax.grad(f))(jx), SOFT)
    close(jax.jit(jax.hessian(f))(jx), np.diag(SOFT) - np.outer(SOFT, SOFT))


# --- docs/porting-from-autograd.md: the ported example -----------------------------------------
PORTED_IMPORTS = {  # the page's import: autograd's (the page keeps autograd's in a comment)
    "import numpy as np": "import autograd.numpy as np",
    "from chainrules.ad import grad": "from autograd import grad",
    "from chainrules.testing import check_grads": "from autograd.test_util import check_grads",
}


def _printed(code: str) -> list[float]:
    """Run ``code`` as a program; the numbers it prints, line by line."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<example>", "exec"), {"__name__": "__main__"})
    return [float(line.rsplit(":", 1)[1]) for line in out.getvalue().splitlines()]


def test_ported_example_prints_what_autograds_original_prints(ag) -> None:  # type: ignore[no-untyped-def]
    """The page's port of autograd's examples/logistic_regression.py, run as it is and with
    autograd's imports put back (autograd's own program), prints the same losses."""
    import importlib.util
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("docs_runner", root / "tests" / "docs_runner.py")
    assert spec is not None and spec.loader is not None
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    text = (root / "docs" / "porting-from-autograd.md").read_text()
    (ported,) = [c for _, c in runner.python_blocks(text) if "def logistic_predictions" in c]
    original = ported
    for ours, theirs in PORTED_IMPORTS.items():
        assert ported.count(ours) == 1, ours
        original = original.replace(ours, theirs)
    assert all("chainrules" not in line.split("#")[0] for line in original.splitlines())
    got, want = _printed(ported), _printed(original)
    assert len(got) == len(want) == 2
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
    assert abs(want[1] - 0.38900754315581143) < 1e-12  # what the page shows
