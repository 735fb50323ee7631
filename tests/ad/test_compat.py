"""The scoped ``array_namespace`` wrappers of ``chainrules.ad._compat`` (issue 27, item 3: no
process-wide patch is left in place). Each condition the issue names has its test: a pullback
called after the transformation has exited, the scope entered again from inside itself (nested
transformations, a pullback that runs traced code), an exception passing through, and other
threads running at the same time. After every transformation each patched attribute ``is`` the
original object again."""

from __future__ import annotations

import importlib
import threading
from typing import Any

import array_api_compat
import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.ad import _compat


def _copies() -> list[Any]:
    """array-api-compat and the copies SciPy and scikit-learn vendor (those installed)."""
    out = [array_api_compat]
    for name in ("scipy._lib.array_api_compat", "sklearn.externals.array_api_compat"):
        try:
            out.append(importlib.import_module(name))
        except ImportError:
            continue
    return out


COPIES = _copies()
X = np.array([0.3, 1.2, 0.7])


def _sites() -> list[tuple[Any, str, Any]]:
    sites = _compat.patched_sites()
    assert {id(c) for c in COPIES} <= {id(m) for m, _, _ in sites}  # each copy is one of them
    return sites


def assert_originals() -> None:
    """Every attribute the scope replaces holds the original function object."""
    for mod, attr, orig in _sites():
        assert getattr(mod, attr) is orig, f"{mod.__name__}.{attr} is still replaced"


def assert_wrapped() -> None:
    """Every such attribute holds the wrapper of its original (inside a transformation)."""
    for mod, attr, orig in _sites():
        got = getattr(mod, attr)
        assert got is not orig and got.__wrapped__ is orig, f"{mod.__name__}.{attr}"


def mixed(v: Any) -> Any:
    """Traced code that needs the wrappers: each copy's ``array_namespace`` of a NumPy scalar
    and the tracer is the traced namespace (the copy's own refuses or answers its NumPy)."""
    if isinstance(v, ad.Tracer):
        for mod in COPIES:
            xp = mod.array_namespace(np.float64(2.0), v)
            assert xp is v.__array_namespace__(), mod.__name__
    xp = array_api_compat.array_namespace(np.float64(2.0), v)
    return xp.sum(xp.sin(v) * v)


def mixed_grad(x: np.ndarray) -> np.ndarray:
    return np.cos(x) * x + np.sin(x)


@pytest.fixture(autouse=True)
def _originals_around() -> Any:
    assert_originals()
    yield
    assert_originals()


def test_every_patched_attribute_is_the_original_after_a_transformation() -> None:
    seen = []

    def f(v: Any) -> Any:
        assert_wrapped()
        seen.append(True)
        return mixed(v)

    np.testing.assert_allclose(ad.grad(f)(X), mixed_grad(X), rtol=1e-12)
    assert seen == [True]
    assert_originals()
    for transform in (ad.jacobian, ad.hessian):
        transform(f)(X)
        assert_originals()


def test_wrapper_without_a_tracer_is_the_original() -> None:
    """Inside a transformation, a call with no tracer gives what the original gives: the same
    namespace, or the same exception."""
    import torch

    plain = [(np.ones(2),), (np.float64(1.0), np.ones(2)), (np.ones(2), torch.ones(2))]
    want = {}
    for mod in COPIES:
        for i, args in enumerate(plain):
            want[mod, i] = _outcome(mod.array_namespace, args)

    def f(v: Any) -> Any:
        assert_wrapped()
        for mod in COPIES:
            for i, args in enumerate(plain):
                assert _outcome(mod.array_namespace, args) == want[mod, i], (mod.__name__, i)
        return mixed(v)

    ad.grad(f)(X)


def _outcome(fn: Any, args: tuple[Any, ...]) -> Any:
    try:
        return ("value", fn(*args))
    except Exception as e:  # noqa: BLE001  (the exception is the outcome compared)
        return ("raises", type(e), str(e))


# --- (1) a pullback called after the context has exited -----------------------------------------
def test_pullback_called_after_the_transformation_exited() -> None:
    _, pb = ad.vjp(mixed, X)
    assert_originals()  # vjp has returned: nothing is replaced while the pullback waits
    (g,) = pb(np.float64(1.0))
    np.testing.assert_allclose(g, mixed_grad(X), rtol=1e-12)
    assert_originals()


def test_pullback_that_runs_traced_code_after_the_transformation_exited(
    clean_registry: Any,
) -> None:
    """Higher order: a rule whose pullback differentiates traced code (``rrule_via_ad``) when it
    is called, after ``ad.vjp`` returned: that traced code enters the scope again."""
    inside = []

    def g(v: Any) -> Any:
        if isinstance(v, ad.Tracer):  # (the rrule computes the value on plain arrays)
            assert_wrapped()
            inside.append(True)
        return mixed(v)

    @cr.traceable
    def h(x: Any) -> Any:
        return g(x)

    @cr.register_rrule(h)
    def _h_rrule(x: Any) -> Any:
        config = cr.rule_config()  # the engine's: its rrule_via_ad is chainrules.ad.vjp

        def h_pullback(y_bar: Any) -> Any:
            _, pb = config.rrule_via_ad(g, x)  # traced code, run by the pullback
            return pb(y_bar)

        return g(x), h_pullback

    _, pb = ad.vjp(lambda v: h(v) * 2.0, X)
    assert_originals()
    n = len(inside)
    (grad,) = pb(np.float64(1.0))
    assert len(inside) > n  # the pullback ran traced code, with the wrappers in place
    np.testing.assert_allclose(grad, 2 * mixed_grad(X), rtol=1e-12)
    assert_originals()


# --- (2) the context entered again from inside itself -------------------------------------------
def test_nested_transformations_keep_the_wrappers_until_the_outermost_exits() -> None:
    after_inner = []

    def outer(v: Any) -> Any:
        gi = ad.grad(mixed)(v)  # a transformation inside a transformation (grad inside grad)
        assert_wrapped()  # the inner one exited; the outer one still runs
        after_inner.append(True)
        return mixed(v) + (gi * gi).sum()

    def want(x: np.ndarray) -> np.ndarray:
        d = mixed_grad(x)
        dd = 2 * np.cos(x) - np.sin(x) * x  # d/dx of mixed_grad
        return d + 2 * d * dd

    np.testing.assert_allclose(ad.grad(outer)(X), want(X), rtol=1e-12)
    assert after_inner == [True]


def test_hessian_is_jacfwd_of_grad_with_the_wrappers() -> None:
    h = ad.hessian(mixed)(X)
    dd = 2 * np.cos(X) - np.sin(X) * X
    np.testing.assert_allclose(h, np.diag(dd), rtol=1e-12, atol=1e-15)
    jf = ad.jacobian(ad.grad(mixed), mode="fwd")(X)
    jr = ad.jacobian(ad.grad(mixed), mode="rev")(X)
    np.testing.assert_allclose(jf, h, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(jr, h, rtol=1e-12, atol=1e-15)


# --- (3) an exception passes through ----------------------------------------------------------
@pytest.mark.parametrize("depth", [1, 2])
def test_exception_restores_the_originals(depth: int) -> None:
    def bad(v: Any) -> Any:
        mixed(v)
        raise ValueError("boom")

    f = bad if depth == 1 else (lambda v: ad.grad(bad)(v).sum())
    with pytest.raises(ValueError, match="boom"):
        ad.grad(f)(X)
    assert_originals()
    np.testing.assert_allclose(ad.grad(mixed)(X), mixed_grad(X), rtol=1e-12)  # count intact
    assert_originals()


# --- (4) other threads run at the same time ---------------------------------------------------
def test_a_thread_outside_transformations_sees_the_original_behaviour() -> None:
    """While thread A is inside a transformation (the wrappers installed), thread B, in none,
    gets the original's answer from every copy -- with plain values and with A's tracer."""
    inside, release = threading.Event(), threading.Event()
    leaked: list[Any] = []
    errors: list[BaseException] = []

    def f(v: Any) -> Any:
        leaked.append(v)
        inside.set()
        assert release.wait(30)
        return mixed(v)

    def run_a() -> None:
        try:
            np.testing.assert_allclose(ad.grad(f)(X), mixed_grad(X), rtol=1e-12)
        except BaseException as e:  # noqa: BLE001  (reported by the main thread)
            errors.append(e)

    a = threading.Thread(target=run_a)
    a.start()
    try:
        assert inside.wait(30)
        assert_wrapped()  # installed, while A runs
        (v,) = leaked
        for mod, attr, orig in _sites():
            wrapper = getattr(mod, attr)
            for args in [(np.ones(2),), (np.float64(2.0), np.ones(2)), (np.float64(2.0), v)]:
                assert _outcome(wrapper, args) == _outcome(orig, args), (mod.__name__, attr)
    finally:
        release.set()
        a.join(30)
    assert not errors, errors
    assert_originals()  # the last transformation out restored them


def test_two_threads_in_transformations_share_one_installation() -> None:
    """B enters and exits while A is inside: A keeps the wrappers until it exits itself."""
    a_inside, b_done = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def fa(v: Any) -> Any:
        a_inside.set()
        assert b_done.wait(30)
        assert_wrapped()  # B's exit did not remove them
        return mixed(v)

    def run(fn: Any, done: threading.Event | None) -> None:
        try:
            np.testing.assert_allclose(ad.grad(fn)(X), mixed_grad(X), rtol=1e-12)
        except BaseException as e:  # noqa: BLE001  (reported by the main thread)
            errors.append(e)
        finally:
            if done is not None:
                done.set()

    a = threading.Thread(target=run, args=(fa, None))
    a.start()
    assert a_inside.wait(30)
    b = threading.Thread(target=run, args=(mixed, b_done))
    b.start()
    b.join(30)
    a.join(30)
    assert not errors, errors
    assert_originals()


def test_a_module_imported_during_a_transformation_gets_the_original_back() -> None:
    """A module that copies ``array_namespace`` by name while the wrapper is in place holds the
    wrapper; the last exit finds it and puts the original back."""
    import sys
    import types

    name = "array_api_compat._chainrules_test_late_import"
    made: list[Any] = []

    def f(v: Any) -> Any:
        mod = types.ModuleType(name)
        mod.array_namespace = array_api_compat.array_namespace  # a copy by name, now
        sys.modules[name] = mod
        made.append(mod)
        return mixed(v)

    try:
        ad.grad(f)(X)
        (mod,) = made
        assert mod.array_namespace is array_api_compat.array_namespace
        assert not hasattr(mod.array_namespace, "__wrapped__")
    finally:
        sys.modules.pop(name, None)


def test_someone_elses_replacement_is_left_alone() -> None:
    """An attribute that other code replaced (``mock.patch``) before the transformation, or
    while it runs, keeps that replacement: the scope swaps only what holds the original (or its
    wrapper) and restores only what still holds its wrapper."""
    from unittest import mock

    def theirs(*xs: Any, **kw: Any) -> Any:
        return "theirs"

    def f(v: Any) -> Any:
        assert array_api_compat.get_namespace is theirs
        assert array_api_compat.array_namespace.__wrapped__ is not None  # ours, where original
        return mixed(v)

    with mock.patch.object(array_api_compat, "get_namespace", theirs):
        ad.grad(f)(X)
        assert array_api_compat.get_namespace is theirs

    late: dict[str, Any] = {}

    def g(v: Any) -> Any:
        late["before"] = array_api_compat.get_namespace
        array_api_compat.get_namespace = theirs  # replaced inside, not put back by them
        return mixed(v)

    try:
        ad.grad(g)(X)
        assert array_api_compat.get_namespace is theirs
    finally:
        array_api_compat.get_namespace = late["before"].__wrapped__
