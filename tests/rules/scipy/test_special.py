"""scipy.special's rules: the tester on every backend that has each function, JAX's own
derivatives as a reference, the derivatives with no closed form, edge values."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing.suite import rule_tests

test_rule = rule_tests("chainrules.rules.scipy.special")

sps = pytest.importorskip("scipy.special")


def test_import_chainrules_imports_no_scipy_jax_or_torch() -> None:
    import subprocess
    import sys

    code = (
        "import sys, chainrules; print([m for m in ('scipy', 'jax', 'torch') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_every_jax_scipy_special_name_but_bessel_jn_is_registered() -> None:
    jsp = pytest.importorskip("jax.scipy.special")
    names = {n for n in dir(jsp) if not n.startswith("_")}
    regs = {r.name for r in cr.registrations()}
    missing = {n for n in names if f"scipy:special.{n}" not in regs}
    assert missing <= {"bessel_jn"}, missing


def test_derivative_from_the_same_library() -> None:
    x = np.array([0.5, 1.5, 4.0])
    _, pb = cr.rrule(sps.gammaln, x)
    np.testing.assert_allclose(pb(np.ones(3))[1], sps.digamma(x))
    torch = pytest.importorskip("torch")
    t = torch.tensor(x)
    _, pb = cr.rrule(torch.special.gammaln, t)
    g = pb(torch.ones(3))[1]
    assert isinstance(g, torch.Tensor)
    np.testing.assert_allclose(g.numpy(), sps.digamma(x))


@pytest.mark.parametrize(
    ("name", "args", "argnums"),
    [
        ("gammaln", (np.array([0.7, 2.5]),), (0,)),
        ("erfinv", (np.array([-0.6, 0.3]),), (0,)),
        ("betaln", (np.array([0.7, 2.5]), np.array([1.3, 0.4])), (0, 1)),
        ("xlogy", (np.array([0.0, 2.0]), np.array([0.5, 3.0])), (0, 1)),
        ("i1e", (np.array([-1.5, 0.0, 2.0]),), (0,)),
        ("log_ndtr", (np.array([-8.0, 0.5]),), (0,)),
        ("gammainc", (np.array([1.5, 3.0]), np.array([0.5, 2.0])), (1,)),
        ("betainc", (np.array([1.5, 3.0]), np.array([2.0, 0.7]), np.array([0.3, 0.6])), (2,)),
        ("zeta", (np.array([2.0, 3.0]), np.array([0.5, 2.0])), (1,)),
        ("owens_t", (np.array([-1.0, 0.5]), np.array([0.3, 2.0])), (0, 1)),
        # JAX's own spence derivative is 0 at z = 1 and NaN above; ours is log(z)/(1-z), -1 at 1
        ("spence", (np.array([0.3, 0.5]),), (0,)),
        # JAX's boxcox derivative in lmbda is 0 at lmbda = 0; ours is the limit (log x)**2 / 2
        ("boxcox", (np.array([0.5, 2.0]), np.array([-0.4, 0.7])), (0, 1)),
    ],
)
def test_pullback_agrees_with_jax_grad(name: str, args: tuple, argnums: tuple) -> None:
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    f = getattr(jax.scipy.special, name)
    jargs = tuple(jnp.asarray(a) for a in args)
    _, pb = cr.rrule(f, *jargs)
    ours = pb(jnp.ones(jnp.broadcast_shapes(*(a.shape for a in jargs))))
    for i in argnums:
        want = jax.grad(lambda *a: jnp.sum(f(*a)), argnums=i)(*jargs)
        np.testing.assert_allclose(np.asarray(cr.unthunk(ours[i + 1])), want, rtol=1e-10)


@pytest.mark.parametrize(
    ("name", "args", "arg"),
    [
        ("gammainc", (np.array([1.5]), np.array([0.5])), "a"),
        ("betainc", (np.array([1.5]), np.array([2.0]), np.array([0.3])), "a"),
        ("zeta", (np.array([2.5]), np.array([0.5])), "x"),
        ("hyp1f1", (np.array([1.5]), np.array([2.0]), np.array([0.3])), "a"),
    ],
)
def test_no_closed_form_raises_only_when_forced(name: str, args: tuple, arg: str) -> None:
    f = getattr(sps, name)
    _, pb = cr.rrule(f, *args)
    res = pb(np.ones(1))
    assert isinstance(res[1], cr.Thunk)  # nothing raised yet: the other cotangents are usable
    assert isinstance(res[-1], np.ndarray)
    with pytest.raises(NotImplementedError, match=rf"{name}.*'{arg}'"):
        cr.unthunk(res[1])
    tangents = (cr.NoTangent(), np.ones(1), *[cr.ZeroTangent()] * (len(args) - 1))
    with pytest.raises(NotImplementedError, match=name):
        cr.frule(tangents, f, *args)
    # an integer order has no tangent space: nothing to force
    _, pb = cr.rrule(f, np.array([2]), *args[1:])
    assert isinstance(pb(np.ones(1))[1], cr.NoTangent)


def test_edge_values_follow_the_limits() -> None:
    x = np.array([0.0])
    assert cr.rrule(sps.i1, x)[1](np.ones(1))[1][0] == 0.5
    assert cr.rrule(sps.i1e, x)[1](np.ones(1))[1][0] == 0.5
    with np.errstate(divide="ignore"):  # d/dx xlogy(0, 0) = log 0
        _, dx, dy = cr.rrule(sps.xlogy, x, np.array([0.0]))[1](np.ones(1))
    assert dy[0] == 0.0 and dx[0] == -np.inf
    assert cr.rrule(sps.spence, np.array([1.0]))[1](np.ones(1))[1][0] == -1.0
    _, _, dl = cr.rrule(sps.boxcox, np.array([2.0]), np.array([0.0]))[1](np.ones(1))
    np.testing.assert_allclose(dl, np.log(2.0) ** 2 / 2)
    with np.errstate(divide="ignore"):  # the value is log(0) = -inf
        g = cr.rrule(sps.logsumexp, np.array([-np.inf, -np.inf]))[1](np.ones(()))[1]
    np.testing.assert_array_equal(g, [0.0, 0.0])
    np.testing.assert_array_equal(cr.rrule(sps.comb, np.array([2.0]), np.array([3.0]))[0], [0.0])


def test_logsumexp_matches_scipy_with_b_and_return_sign() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    (y, s), pb = cr.rrule(sps.logsumexp, a, 1, b, False, True)
    want_y, want_s = sps.logsumexp(a, 1, b, return_sign=True)
    np.testing.assert_allclose(y, want_y)
    np.testing.assert_array_equal(s, want_s)
    _, ga, _, gb, _, _ = pb(cr.Tangent(np.ones(2), cr.NoTangent()))
    w = np.exp(a - want_y[:, None]) * want_s[:, None]
    np.testing.assert_allclose(ga, b * w)
    np.testing.assert_allclose(gb, w)


def test_torch_special_names_follow_scipy() -> None:
    torch = pytest.importorskip("torch")
    from chainrules.rules.scipy.special import TORCH_NAMES

    for n in ("softmax", "log_softmax", "logsumexp", "multigammaln"):
        assert n not in TORCH_NAMES
        assert cr.find_rrule(getattr(torch.special, n)) is None
    for n in TORCH_NAMES:
        assert cr.find_rrule(getattr(torch.special, n)) is not None, n


def test_sph_harm_y_refuses_diff_n() -> None:
    if not hasattr(sps, "sph_harm_y"):
        pytest.skip("SciPy < 1.15")
    with pytest.raises(TypeError, match="diff_n"):
        cr.rrule(sps.sph_harm_y, 1, 0, np.array([0.5]), np.array([0.2]), diff_n=1)
