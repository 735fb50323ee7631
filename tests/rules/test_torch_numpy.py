"""torch's functions that array-api-extra and SciPy delegate to on torch tensors (issue 10):
``torch.sinc``, ``torch.kron``, ``torch.nan_to_num``, ``torch.nanmean`` (NumPy's rules, through
``chainrules/rules/torch_numpy.py``), and ``torch.cov``, ``torch.diag_embed``,
``torch.special.psi`` (rules of torch's own signature there)."""

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


@pytest.mark.parametrize(
    ("f", "args", "kw"),
    [
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
