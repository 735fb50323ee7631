"""torch's functions that array-api-extra and SciPy delegate to on torch tensors (issue 10):
``torch.sinc``, ``torch.kron``, ``torch.nan_to_num``, ``torch.nanmean`` (NumPy's rules, through
``chainrules/rules/torch_numpy.py``), and ``torch.cov``, ``torch.diag_embed``,
``torch.special.psi``, the comparisons ``torch.eq``/``ne``/``lt``/``le``/``gt``/``ge``,
``torch.nn.functional.pad`` and ``torch.einsum`` (rules of torch's own signature there)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing import device_array, test_frule, test_rrule, to_numpy
from chainrules.testing.checks import check_scalar_free

torch = pytest.importorskip("torch")


def _t(a: object) -> object:
    return torch.asarray(np.asarray(a, dtype=np.float64))


@pytest.mark.parametrize("name", ["sinc", "nan_to_num", "nanmean"])
def test_unary_torch_functions(name: str) -> None:
    f = getattr(torch, name)
    x = _t([0.3, -0.7, 1.2, 2.5])
    test_rrule(f, x)
    test_frule(f, x)


def test_torch_kron() -> None:
    a, b = _t([[0.3, -0.7], [1.2, 0.4]]), _t([1.5, -2.0, 0.1])
    test_rrule(torch.kron, a, b)
    test_frule(torch.kron, a, b)


def test_torch_sinc_at_zero_is_zero() -> None:
    # finite differences cannot judge the removable singularity: d sinc / dx = 0 at 0
    _, pb = cr.rrule(torch.sinc, _t([0.0, 0.5]))
    g = pb(_t([1.0, 1.0]))[1]
    assert float(g[0]) == 0.0


def test_torch_nan_entries_get_no_cotangent() -> None:
    x = _t([0.3, np.nan, 1.2])
    _, pb = cr.rrule(torch.nanmean, x, axis=0)
    np.testing.assert_allclose(pb(_t(1.0))[1].numpy(), [0.5, 0.0, 0.5])
    # torch's positional fill value (NumPy's second parameter is copy): x's cotangent is the same
    y, pb = cr.rrule(torch.nan_to_num, x, 7.0)
    np.testing.assert_allclose(y.numpy(), [0.3, 7.0, 1.2])
    np.testing.assert_allclose(pb(_t([1.0, 1.0, 1.0]))[1].numpy(), [1.0, 0.0, 1.0])


def test_torch_nanmean_dim_spelling_is_refused_clearly() -> None:
    with pytest.raises(TypeError, match=r"nanmean.*'dim'"):
        cr.rrule(torch.nanmean, _t([[0.3, 1.0]]), dim=1)


_RNG = np.random.default_rng(7)
_M = _RNG.standard_normal((3, 6))


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"correction": 0},
        {"correction": 2},
        {"aweights": "aw"},
        {"fweights": "fw", "aweights": "aw", "correction": 0},
    ],
)
def test_torch_cov(kw: dict[str, Any]) -> None:
    # weights are keywords of torch.cov: never differentiated (test_rrule perturbs positionals)
    w = {"aw": _t(_RNG.uniform(0.5, 1.5, 6)), "fw": torch.tensor([1, 2, 1, 3, 1, 2])}
    kw = {k: w[v] if isinstance(v, str) else v for k, v in kw.items()}
    test_rrule(torch.cov, _t(_M), fkwargs=kw)
    test_frule(torch.cov, _t(_M), fkwargs=kw)


def test_torch_cov_of_one_variable() -> None:
    test_rrule(torch.cov, _t(_M[0]))  # a 0-d result
    test_frule(torch.cov, _t(_M[:1]))


def test_torch_cov_refuses_numpys_keywords() -> None:
    with pytest.raises(TypeError, match=r"torch.cov.*'ddof'"):
        cr.rrule(torch.cov, _t(_M), ddof=1)


@pytest.mark.parametrize(
    ("shape", "args", "kw"),
    [
        ((3,), (), {}),
        ((3,), (1,), {}),
        ((3,), (), {"offset": -2}),
        ((2, 3), (), {"dim1": 0, "dim2": 2}),
        ((2, 3), (), {"offset": 1, "dim1": -1, "dim2": 0}),
        ((2, 3), (-1, 2, 0), {}),
    ],
)
def test_torch_diag_embed(
    shape: tuple[int, ...], args: tuple[int, ...], kw: dict[str, Any]
) -> None:
    x = _t(_RNG.standard_normal(shape))
    test_rrule(torch.diag_embed, x, *args, fkwargs=kw)
    test_frule(torch.diag_embed, x, *args, fkwargs=kw)


def test_torch_special_psi_is_digamma() -> None:
    x = _t([0.4, 1.3, 2.2])
    # scalar_free=False: the guarded device check calls torch's own function on device arrays;
    # the same rule's device run is checked through SciPy's psi below
    test_rrule(torch.special.psi, x, scalar_free=False)
    test_frule(torch.special.psi, x, scalar_free=False)
    _, pb = cr.rrule(torch.special.psi, x)
    np.testing.assert_allclose(
        pb(_t([1.0, 1.0, 1.0]))[1].numpy(), torch.special.polygamma(1, x).numpy(), rtol=1e-12
    )
    sps = pytest.importorskip("scipy.special")
    check_scalar_free(sps.psi, np.array([0.4, 1.3, 2.2]))


def test_torch_special_psi_second_derivative() -> None:
    from array_api_compat import array_namespace

    from chainrules import ad

    x = np.array([0.5, 1.5, 3.0])
    h = ad.hessian(lambda v: array_namespace(v).sum(array_namespace(v).special.psi(v)))(_t(x))
    want = torch.special.polygamma(2, _t(x)).numpy()
    np.testing.assert_allclose(np.diag(to_numpy(h)), want, rtol=1e-9)


_CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal}
_CMP.update({"gt": np.greater, "ge": np.greater_equal})


@pytest.mark.parametrize("name", sorted(_CMP))
def test_torch_comparisons_are_non_differentiable(name: str) -> None:
    f = getattr(torch, name)
    a, b = np.array([0.3, 1.2, -0.5, 0.7]), np.array([0.3, 1.0, 0.2, 0.7])
    y, pb = cr.rrule(f, _t(a), _t(b))
    np.testing.assert_array_equal(y.numpy(), _CMP[name](a, b))
    assert all(isinstance(g, cr.NoTangent) for g in pb(cr.ZeroTangent()))
    _, dy = cr.frule((cr.NoTangent(), _t(a), _t(b)), f, _t(a), _t(b))
    assert isinstance(dy, cr.NoTangent)


def test_hessian_through_a_torch_comparison() -> None:
    """SciPy's logsumexp finds its maximum with ``a == max_`` (torch.eq on the inner level of a
    Hessian); H of log sum exp is diag(s) - s s^T, s = softmax."""
    from array_api_compat import array_namespace

    from chainrules import ad

    def f(v: Any) -> Any:
        xp = array_namespace(v)
        m = xp.max(v)
        mask = torch.eq(v, m)  # chainrules.ad: torch.eq had no rule
        return xp.log(xp.sum(xp.exp(v - m))) + m + xp.sum(xp.where(mask, 0.0, 0.0 * v))

    x = np.array([0.3, 1.2, -0.5])
    s = np.exp(x) / np.exp(x).sum()
    h = to_numpy(ad.hessian(f)(_t(x)))
    np.testing.assert_allclose(h, np.diag(s) - np.outer(s, s), rtol=1e-12, atol=1e-14)


_F = torch.nn.functional


@pytest.mark.parametrize(
    ("shape", "pad", "kw"),
    [
        ((3,), (1, 2), {}),
        ((2, 3), (1, 1, 2, 0), {"value": 0.5}),
        ((3, 4), (-1, 2), {}),
        ((2, 3, 2), (0, 1, -1, 1, 1, 0), {"mode": "constant"}),
    ],
)
def test_torch_pad(shape: tuple[int, ...], pad: tuple[int, ...], kw: dict[str, Any]) -> None:
    x = _t(_RNG.standard_normal(shape))
    test_rrule(_F.pad, x, pad, fkwargs=kw)
    test_frule(_F.pad, x, pad, fkwargs=kw)


def test_torch_pad_refuses_other_modes_clearly() -> None:
    with pytest.raises(NotImplementedError, match=r"torch.nn.functional.pad.*'reflect'"):
        cr.rrule(_F.pad, _t([[0.3, 1.0, 2.0]]), (1, 1), mode="reflect")
    with pytest.raises(ValueError, match=r"torch.nn.functional.pad: pad must be .* got \(1,\)"):
        cr.rrule(_F.pad, _t([0.3, 1.0]), (1,))


def test_second_derivatives_through_torch_pad_and_einsum() -> None:
    """array-api-extra's pad and kron on torch (torch.nn.functional.pad, torch.einsum)."""
    xpx = pytest.importorskip("array_api_extra")
    from array_api_compat import array_namespace

    from chainrules import ad

    x = np.array([0.3, 1.2, -0.5])

    def padded(v: Any) -> Any:
        return array_namespace(v).sum(xpx.pad(v, 1, constant_values=2.0) ** 3)

    np.testing.assert_allclose(to_numpy(ad.grad(padded)(_t(x))), 3 * x**2, rtol=1e-12)
    np.testing.assert_allclose(to_numpy(ad.hessian(padded)(_t(x))), np.diag(6 * x), rtol=1e-12)

    def kron(v: Any) -> Any:  # (sum v^2)^2
        return array_namespace(v).sum(xpx.kron(v, v) ** 2)

    want = 4 * np.sum(x * x) * np.eye(3) + 8 * np.outer(x, x)
    np.testing.assert_allclose(to_numpy(ad.hessian(kron)(_t(x))), want, rtol=1e-12)


@pytest.mark.parametrize(
    ("subs", "shapes"),
    [("ij,jk->ik", ((2, 3), (3, 2))), ("i,i", ((3,), (3,))), ("ii->i", ((3, 3),))],
)
def test_torch_einsum(subs: str, shapes: tuple[tuple[int, ...], ...]) -> None:
    ops = [_t(_RNG.standard_normal(s)) for s in shapes]
    test_rrule(torch.einsum, subs, *ops)
    test_frule(torch.einsum, subs, *ops)


@pytest.mark.parametrize(
    ("f", "args", "kw"),
    [
        (_F.pad, (_M[0],), {"pad": (1, 2)}),
        (_F.pad, (_M[:2],), {"pad": (-1, 2, 1, 0), "value": 0.5}),
        (torch.cov, (_M,), {}),
        (torch.cov, (_M,), {"correction": 0}),
        (torch.diag_embed, (_M[0],), {"offset": 1}),
        (torch.diag_embed, (_M[:2],), {"offset": -1, "dim1": 0, "dim2": 2}),
    ],
)
def test_torch_rules_on_guarded_device_arrays(
    f: Any, args: tuple[Any, ...], kw: dict[str, Any]
) -> None:
    """The rules run on the guarded device array (no single element read), with the values and
    derivatives of torch's own function."""
    y_t, pb_t = cr.rrule(f, *map(_t, args), **kw)
    _, fwd_t = cr.frule((cr.NoTangent(), _t(np.ones_like(args[0]))), f, *map(_t, args), **kw)
    y_bar = _RNG.standard_normal(tuple(y_t.shape))
    with cr.allowscalar(False):
        y, pb = cr.rrule(f, *map(device_array, args), **kw)
        x_bar = pb(device_array(y_bar))[1]
        _, fwd = cr.frule(
            (cr.NoTangent(), device_array(np.ones_like(args[0]))),
            f,
            *map(device_array, args),
            **kw,
        )
    np.testing.assert_allclose(to_numpy(y), y_t.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(to_numpy(x_bar), pb_t(_t(y_bar))[1].numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(to_numpy(fwd), fwd_t.numpy(), rtol=1e-12, atol=1e-14)


# --- signature adapters: torch's spellings of the standard's and SciPy's functions ------------
# away from 0, where the 1-norm has its kink (finite differences judge the contract)
_A = _RNG.uniform(0.5, 1.5, (3, 6)) * np.where(_RNG.uniform(size=(3, 6)) < 0.5, -1.0, 1.0)
ADAPTED = [
    (torch.linalg.vector_norm, (), {}),
    (torch.linalg.vector_norm, (1,), {"dim": 0}),
    (torch.linalg.vector_norm, (float("inf"),), {"dim": (0, 1), "keepdim": True}),
    (torch.linalg.vector_norm, (3, -1), {}),
    (torch.logsumexp, (1,), {}),
    (torch.logsumexp, (0, True), {}),
    (torch.logsumexp, (), {"dim": (0, 1)}),
]


@pytest.mark.parametrize(("f", "args", "kw"), ADAPTED)
def test_torch_adapters_agree_with_torch_itself(f: Any, args: tuple, kw: dict) -> None:
    """``torch.linalg.vector_norm`` and ``torch.logsumexp`` reach the standard's and SciPy's
    rules through declared adapters (``dim`` -> ``axis``, ``keepdim`` -> ``keepdims``): value,
    pullback and pushforward equal torch's own autograd of the function itself, and the rules
    pass the contract (finite differences, the guarded device array)."""
    x = _t(_A).requires_grad_(True)
    y_ref = f(x, *args, **kw)
    y, pb = cr.rrule(f, x.detach(), *args, **kw)
    torch.testing.assert_close(y, y_ref.detach())
    y_bar = torch.linspace(0.5, 1.5, y_ref.numel(), dtype=torch.float64).reshape(y_ref.shape)
    (g_ref,) = torch.autograd.grad(y_ref, x, y_bar)
    torch.testing.assert_close(pb(y_bar)[1], g_ref)
    assert all(isinstance(b, cr.NoTangent) for b in pb(y_bar)[2:])
    t = torch.linspace(-1.0, 1.0, x.numel(), dtype=torch.float64).reshape(x.shape)
    _, y_dot_ref = torch.func.jvp(lambda z: f(z, *args, **kw), (x.detach(),), (t,))
    _, y_dot = cr.frule(
        (cr.NoTangent(), t, *[cr.NoTangent()] * len(args)), f, x.detach(), *args, **kw
    )
    torch.testing.assert_close(y_dot, y_dot_ref)
    # the contract, with every parameter by keyword (the tester perturbs positional floats)
    kwargs = dict(
        zip(
            ("ord", "dim", "keepdim") if f is torch.linalg.vector_norm else ("dim", "keepdim"), args
        ),
        **kw,
    )
    test_rrule(f, _t(_A), fkwargs=kwargs)
    test_frule(f, _t(_A), fkwargs=kwargs)


def test_torch_adapter_refuses_what_the_counterpart_lacks() -> None:
    with pytest.raises(TypeError, match=r"torch.linalg.vector_norm: dtype=.*no counterpart"):
        cr.rrule(torch.linalg.vector_norm, _t(_M), dtype=torch.float32)


def test_a_function_without_rules_names_its_counterpart() -> None:
    """``wrap`` of a torch function with no rule and no adapter names the standard's function
    whose rules it could use."""
    import array_api_compat.torch.linalg  # noqa: F401  (its functions resolved: still none)

    from chainrules.interop import torch as crt

    assert cr.find_rrule(torch.linalg.norm) is None
    with pytest.raises(cr.NoRuleError, match=r"counterpart linalg\.norm has rules: wrap numpy"):
        crt.wrap(torch.linalg.norm)
