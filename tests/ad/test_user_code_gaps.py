"""Engine refusals the user-code suite found (issue 10, ``ENGINE_GAPS.md`` beside the suite):
each test is the reproducer of one cause. SciPy reads ``SCIPY_ARRAY_API`` once, at its import, and
other tests import SciPy without it, so the SciPy cases run in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
import pytest

from chainrules import ad


def _run(code: str) -> None:
    env = {**os.environ, "SCIPY_ARRAY_API": "1"}
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-3000:]


def test_vendored_array_namespace_sees_the_tracer_with_numpy_scalars() -> None:
    """SciPy's and sklearn's vendored array_api_compat: a tracer with a NumPy scalar (``ddof ==
    n`` in ``stats.variation``) or a plain array of its library is the traced namespace."""
    pytest.importorskip("scipy")
    pytest.importorskip("sklearn")
    pytest.importorskip("array_api_strict")
    _run(
        """
        import numpy as np, array_api_strict as xps, scipy.stats
        import array_api_compat, scipy._lib.array_api_compat as s
        import sklearn.externals.array_api_compat as k
        from chainrules import ad
        x = np.array([0.3, 1.2, 0.7])
        g = ad.grad(scipy.stats.variation)(x)
        m, sd = x.mean(), x.std()
        want = ((x - m) / (len(x) * sd) / m) - sd / (len(x) * m**2)
        np.testing.assert_allclose(g, want, rtol=1e-12)
        for conv in (np.asarray, xps.asarray):
            def f(v):
                for mod in (array_api_compat, s, k):
                    for other in (np.float64(2.0), np.bool_(True), conv([1.0, 2.0])):
                        assert mod.array_namespace(other, v) is v.__array_namespace__(), mod
                return v.__array_namespace__().sum(v * v)
            ad.grad(f)(conv(x))
        """
    )


def test_vendored_array_namespace_still_refuses_two_libraries() -> None:
    pytest.importorskip("scipy")
    pytest.importorskip("array_api_strict")
    _run(
        """
        import numpy as np, array_api_strict as xps
        import scipy._lib.array_api_compat as s
        from chainrules import ad
        def f(v):
            try:
                s.array_namespace(np.ones(2), v)
            except TypeError as e:
                assert "Multiple namespaces" in str(e)
            else:
                raise AssertionError("a NumPy array and a strict tracer: one namespace")
            return v.__array_namespace__().sum(v)
        ad.grad(f)(xps.asarray([1.0, 2.0]))
        """
    )


def test_special_on_array_api_strict_tracers() -> None:
    """SciPy's special functions on strict tracers find ``xp.special`` (by the rules) instead of
    converting with numpy.asarray."""
    pytest.importorskip("scipy")
    pytest.importorskip("array_api_strict")
    _run(
        """
        import numpy as np, array_api_strict as xps, scipy.special
        from chainrules import ad
        x = np.array([0.5, 1.0, 2.0])
        S = lambda v: v.__array_namespace__().sum(v)
        g = ad.grad(lambda v: S(scipy.special.entr(v)))(xps.asarray(x))
        np.testing.assert_allclose(np.asarray(g), -np.log(x) - 1, rtol=1e-12)
        j = ad.jacobian(scipy.special.expit, mode="fwd")(xps.asarray(x))
        e = 1 / (1 + np.exp(-x))
        np.testing.assert_allclose(np.asarray(j), np.diag(e * (1 - e)), rtol=1e-12)
        def ns(v):
            sp = v.__array_namespace__().special
            assert hasattr(sp, "entr") and not hasattr(sp, "hyp0f1")  # hyp0f1 has no rule
            return S(v)
        ad.grad(ns)(xps.asarray(x))
        """
    )


def test_like_of_a_plain_array_is_created() -> None:
    """``xp.full_like(plain)`` inside traced code takes traced writes (SciPy's apply_where in
    ``stats.tmean``'s Hessian: the condition is a plain array)."""
    x = np.array([0.3, -1.2, 0.7])

    def f(v: Any) -> Any:
        xp = v.__array_namespace__()
        out = xp.full_like(np.zeros(3, dtype=bool), np.nan, dtype=v.dtype)
        out[np.array([True, False, True])] = v[::2] ** 2
        out[np.array([False, True, False])] = v[1:2]
        return xp.sum(out * out)

    np.testing.assert_allclose(ad.grad(f)(x), [4 * x[0] ** 3, 2 * x[1], 4 * x[2] ** 3])
    np.testing.assert_allclose(ad.hessian(f)(x), np.diag([12 * x[0] ** 2, 2, 12 * x[2] ** 2]))


def test_empty_traced_write_is_a_no_op() -> None:
    x = np.array([0.3, 1.2])

    def f(v: Any) -> Any:
        out = v * 1.0
        out[np.zeros(2, dtype=bool)] = v * 5.0
        return v.__array_namespace__().sum(out)

    np.testing.assert_allclose(ad.grad(f)(x), [1.0, 1.0])


def test_torch_tensor_allocated_by_torch_says_what_to_write() -> None:
    torch = pytest.importorskip("torch")

    def f(v: Any) -> Any:
        b = torch.zeros(2, dtype=torch.float64)
        b[0] = v[0]
        return v.__array_namespace__().sum(b)

    with pytest.raises(TypeError, match=r"allocated with torch itself.*xp\.zeros"):
        ad.grad(f)(torch.tensor([0.3, 1.2], dtype=torch.float64))


def test_torch_functions_on_tracers() -> None:
    """torch's own function with a rule is recorded; one without names itself."""
    torch = pytest.importorskip("torch")
    t = torch.tensor([0.3, 1.2], dtype=torch.float64)

    def f(v: Any) -> Any:
        return v.__array_namespace__().sum(torch.sin(v))

    np.testing.assert_allclose(ad.grad(f)(t).numpy(), np.cos(t.numpy()), rtol=1e-12)

    def g(v: Any) -> Any:
        return torch.nn.functional.softsign(v)  # torch's own, with no rule

    with pytest.raises(TypeError, match=r"softsign.*no rule"):
        ad.grad(lambda v: v.__array_namespace__().sum(g(v)))(t)


def test_host_conversion_inside_a_library_names_the_function_and_the_line() -> None:
    """Campaign seeds 8065, 8111, 8220, 8642, 8791 (the native engine, seeds 8000-8999): NumPy's
    select does not dispatch on its default, nor polyint on its k, so a traced array there is
    converted with numpy.asarray inside NumPy. The error named neither. It now names the library
    function and the user's line; a direct np.asarray(x) says nothing of a library."""
    from chainrules import ad

    cond = [np.array([True, False, True])]

    def chosen(d: Any) -> Any:
        return np.sum(np.select(cond, [np.ones(3)], default=d))

    with pytest.raises(TypeError, match=r"inside numpy's select, called at .*test_user_code_gaps"):
        ad.grad(chosen)(np.ones(3))

    def integrated(k: Any) -> Any:
        return np.sum(np.polyint(np.ones(3), k=k))

    with pytest.raises(TypeError, match=r"inside numpy's polyint, called at"):
        ad.grad(integrated)(np.ones(1))

    with pytest.raises(TypeError) as info:
        ad.grad(lambda x: np.sum(np.asarray(x)))(np.ones(2))
    assert "inside" not in str(info.value)
