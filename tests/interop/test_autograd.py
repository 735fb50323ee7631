"""The HIPS autograd bridge, judged by autograd's own checker (first order, both modes)."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr

autograd = pytest.importorskip("autograd")
import autograd.numpy as anp  # noqa: E402
from autograd.test_util import check_grads  # noqa: E402

from chainrules.interop import autograd as crag  # noqa: E402


def _fn(case):  # type: ignore[no-untyped-def]
    leaves, rebuild = case.split()
    wrapped = crag.wrap(case.f)

    def fn(*vals):  # type: ignore[no-untyped-def]
        args, kwargs = rebuild(*vals)
        return wrapped(*args, **kwargs)

    return fn, leaves


def _real_cases(case):  # type: ignore[no-untyped-def]
    if case.complex:
        pytest.skip("autograd's complex convention is not converted by the bridge")
    if any(isinstance(a, (tuple, list)) and a and isinstance(a[0], np.ndarray) for a in case.args):
        pytest.skip("autograd boxes top-level arguments only (a tuple of arrays is not boxed)")


def test_check_grads_first_order(gpu_safe_case):  # type: ignore[no-untyped-def]
    _real_cases(gpu_safe_case)
    fn, xs = _fn(gpu_safe_case)
    check_grads(fn, modes=["fwd", "rev"], order=1)(*xs)


@pytest.mark.xfail(
    strict=True,
    raises=NotImplementedError,
    reason="autograd's ArrayBox has no array namespace: the rules cannot run on boxes, so the "
    "bridge refuses second derivatives instead of returning wrong ones",
)
def test_check_grads_second_order():  # type: ignore[no-untyped-def]
    norm = crag.wrap(np.linalg.norm)
    check_grads(norm, modes=["fwd", "rev"], order=2)(np.array([3.0, 4.0, 1.0]))


def test_agrees_with_autograd_native():  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4))
    for ours, native, kw in [
        (crag.wrap(np.sum), anp.sum, {"axis": 1}),
        (crag.wrap(np.linalg.norm), anp.linalg.norm, {}),
        (crag.wrap(np.cumsum), anp.cumsum, {"axis": 0}),
        (crag.wrap(np.max), anp.max, {"axis": 0}),
    ]:
        w = np.cos(np.arange(np.size(native(x, **kw)))).reshape(np.shape(native(x, **kw)))
        g1 = autograd.grad(lambda x: anp.sum(ours(x, **kw) * w))(x)  # noqa: B023
        g2 = autograd.grad(lambda x: anp.sum(native(x, **kw) * w))(x)  # noqa: B023
        np.testing.assert_allclose(g1, g2, rtol=1e-12)


def no_rule_function(x):  # type: ignore[no-untyped-def]
    return x


def test_wrap_without_rule_raises():  # type: ignore[no-untyped-def]
    with pytest.raises(cr.NoRuleError, match="no_rule_function"):
        crag.wrap(no_rule_function)


def bad_function(x, y):  # type: ignore[no-untyped-def]
    return x * y


def test_wrong_shape_cotangent_names_function_and_argument(clean_registry):  # type: ignore[no-untyped-def]
    @cr.register_rrule(bad_function)
    def _rrule(x, y):  # type: ignore[no-untyped-def]
        return x * y, lambda g: (cr.NoTangent(), g * y, (g * x)[:1])

    @cr.register_frule(bad_function)
    def _frule(tangents, x, y):  # type: ignore[no-untyped-def]
        return x * y, tangents[1] * y

    f = crag.wrap(bad_function)
    with pytest.raises(ValueError, match=r"rrule of .*bad_function.*\(1,\) for argument 1"):
        autograd.grad(lambda y: anp.sum(f(np.ones(3), y)))(np.ones(3))
