"""The table's providers tell a rule where its function was found (issue 26 item 4, issue 27 item
3): a binder registered with ``bind_in=`` gets a ``Source`` -- the namespace object the registry
found the function in and the library that namespace's registration declares -- so no rule
decides whose function it has (SciPy's or JAX's) from a ``__module__`` or a module's
``__name__``.

The regression: a function whose every name says the other library -- its ``__module__`` and its
namespace's ``__name__`` -- sits in a library's namespace, the registry binds it, and its rules
give exactly what the true function's give (the same maths, the same library's arrays, and for
JAX's under ``jax.jit``). Before, the SciPy-family rules read those names and bound SciPy's maths
to JAX's function (or JAX's to SciPy's)."""

from __future__ import annotations

import contextlib
import functools
import importlib
import sys
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.core import registry
from chainrules.core.table import Source
from chainrules.testing import to_numpy


@dataclass(frozen=True)
class _Case:
    """A function of ``module`` (a provider's namespace; ``holder`` is the module whose attribute
    ``attr`` it is), the module names of the other library that the lie gives it, example
    arguments and a cotangent of its output."""

    module: str
    holder: str
    attr: str
    lie_module: str  # what the function's __module__ claims
    lie_name: str  # what its namespace's __name__ claims
    args: Callable[[Any], tuple[Any, ...]]  # of a NumPy random generator (NumPy arrays)
    y_bar: Callable[[Any], Any] = lambda y: cr.namespace_of(y).ones_like(y)  # of the output
    guarded: bool = False  # SciPy's: run on cr.testing.device_array (no host copy allowed)

    @property
    def jax(self) -> bool:
        return self.module.startswith("jax.")


def _spd(rng: Any) -> tuple[Any, ...]:
    a = rng.standard_normal((3, 3))
    return (a @ a.T + 3 * np.eye(3),)


def _first(y: Any) -> Any:  # a cotangent of (factor, lower): the factor's, both triangles
    xp = cr.namespace_of(y[0])
    return cr.Tangent(xp.reshape(xp.arange(1.0, 10.0, dtype=y[0].dtype), (3, 3)), cr.NoTangent())


def _tri(rng: Any) -> tuple[Any, ...]:
    return np.triu(rng.standard_normal((3, 3))) + 3 * np.eye(3), rng.standard_normal((3, 2))


def _conv(rng: Any) -> tuple[Any, ...]:
    return rng.standard_normal(5), rng.standard_normal(3)


def _dirichlet(rng: Any) -> tuple[Any, ...]:
    x = rng.uniform(0.2, 1.0, 3)
    return x / x.sum(), rng.uniform(0.5, 2.0, 3)


# each rule family that decided by names: scipy.linalg (_module_of, _is_jax), scipy.signal
# (_module_of), scipy.stats (special_of), scipy.special's elementwise rules (the SciPy module's
# __name__) and logsumexp (_scipy_primal), in both directions where a lie can mislead it
CASES = {
    "linalg-jax-cho_factor": _Case(
        "jax.scipy.linalg", "jax.scipy.linalg", "cho_factor", "scipy.linalg._decomp_cholesky",
        "scipy.linalg", _spd, _first,
    ),
    "linalg-jax-solve_triangular": _Case(
        "jax.scipy.linalg", "jax.scipy.linalg", "solve_triangular", "scipy.linalg._basic",
        "scipy.linalg", _tri,
    ),
    "linalg-scipy-cho_factor": _Case(
        "scipy.linalg", "scipy.linalg", "cho_factor", "jax._src.scipy.linalg",
        "jax.scipy.linalg", _spd, _first,
    ),
    "signal-jax-convolve": _Case(
        "jax.scipy.signal", "jax.scipy.signal", "convolve", "scipy.signal._signaltools",
        "scipy.signal", _conv,
    ),
    "signal-scipy-convolve": _Case(
        "scipy.signal", "scipy.signal", "convolve", "jax._src.scipy.signal",
        "jax.scipy.signal", _conv,
    ),
    "stats-jax-gamma.logpdf": _Case(
        "jax.scipy.stats", "jax.scipy.stats.gamma", "logpdf", "scipy.stats._continuous_distns",
        "scipy.stats", lambda rng: (rng.uniform(0.5, 3.0, 4), rng.uniform(0.5, 3.0, 4)),
    ),
    "stats-jax-dirichlet.logpdf": _Case(
        "jax.scipy.stats", "jax.scipy.stats.dirichlet", "logpdf", "scipy.stats._multivariate",
        "scipy.stats", _dirichlet,
    ),
    "special-jax-factorial": _Case(
        "jax.scipy.special", "jax.scipy.special", "factorial", "scipy.special._basic",
        "scipy.special", lambda rng: (rng.uniform(0.5, 3.0, 4),),
    ),
    "special-scipy-polygamma": _Case(
        "scipy.special", "scipy.special", "polygamma", "jax._src.scipy.special",
        "jax.scipy.special", lambda rng: (1, rng.uniform(0.5, 3.0, 4)), guarded=True,
    ),
    "special-scipy-logsumexp": _Case(
        "scipy.special", "scipy.special", "logsumexp", "jax._src.ops.special",
        "jax.scipy.special", lambda rng: (rng.standard_normal((20, 5)), 1),
    ),
}  # fmt: skip


@contextlib.contextmanager
def _lying(case: _Case) -> Iterator[Any]:
    """``case``'s function replaced, in its namespace, by one that calls it and whose every name
    says the other library (its ``__module__``; its namespace's ``__name__``), with the
    registry's rules bound again for every namespace (as at the first lookup after an import);
    yields the liar. Everything is put back, and bound again, on the way out."""
    holder = importlib.import_module(case.holder)
    real = getattr(holder, case.attr)

    @functools.wraps(real)  # its signature is the function's (__wrapped__)
    def liar(*args: Any, **kwargs: Any) -> Any:
        return real(*args, **kwargs)

    liar.__module__ = case.lie_module
    state = registry.snapshot()
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(holder, case.attr, liar)
            mp.setattr(importlib.import_module(case.module), "__name__", case.lie_name)
            registry.restore(state)  # every named rule bound again: the liar's too
            yield liar
    finally:
        registry.restore(state)


def _leaves(v: Any) -> list[Any]:
    """The arrays of a result: inside tuples, lists and ``Tangent``s, in order."""
    v = cr.unthunk(v)
    if isinstance(v, (tuple, list, cr.Tangent)):
        return [leaf for e in v for leaf in _leaves(e)]
    return [] if isinstance(v, (bool, cr.NoTangent, cr.ZeroTangent)) else [v]


def _derivatives(f: Any, case: _Case, args: tuple[Any, ...]) -> list[Any]:
    """The rrule's primal and cotangents and the frule's tangent of ``f`` at ``args``."""
    y, pb = cr.rrule(f, *args)
    bars = pb(case.y_bar(y))
    dots = tuple(
        a * 0.5 + 1 if getattr(a, "dtype", None) is not None else cr.NoTangent() for a in args
    )
    y2, y_dot = cr.frule((cr.NoTangent(), *dots), f, *args)
    return _leaves((y, bars, y2, y_dot))


def _run(f: Any, case: _Case, args: tuple[Any, ...]) -> list[Any]:
    if case.jax:  # JAX's function: its rules run inside a jax.jit trace, as on a device
        import jax

        arrays = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]

        def traced(*xs: Any) -> list[Any]:
            full = list(args)
            for i, x in zip(arrays, xs):
                full[i] = x
            return _derivatives(f, case, tuple(full))

        return list(jax.jit(traced)(*(args[i] for i in arrays)))
    if case.guarded:  # a device array refuses the host copy SciPy's Python functions make
        from chainrules.testing import device_array

        args = tuple(device_array(a) if isinstance(a, np.ndarray) else a for a in args)
    return _derivatives(f, case, args)


@pytest.mark.parametrize("name", CASES)
def test_rules_are_bound_by_the_namespace_found_in_not_by_names(
    name: str, request: pytest.FixtureRequest
) -> None:
    case = CASES[name]
    if case.jax:
        request.getfixturevalue("jax_numpy")  # JAX with float64, or a skip
    pytest.importorskip(case.module)
    args = case.args(np.random.default_rng(0))
    real = getattr(importlib.import_module(case.holder), case.attr)
    want = _run(real, case, args)
    with _lying(case) as liar:
        assert cr.find_rrule(liar) is not None and cr.find_frule(liar) is not None
        got = _run(liar, case, args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert type(g) is type(w), (type(g), type(w))  # the same library's arrays
        np.testing.assert_array_equal(to_numpy(g), to_numpy(w))


def test_the_logsumexp_case_can_fail() -> None:
    """SciPy's logsumexp differs in its last bits from the namespace formula at the case's input:
    a rule that took SciPy's function for another library's would give the formula's value."""
    sps = pytest.importorskip("scipy.special")
    args = CASES["special-scipy-logsumexp"].args(np.random.default_rng(0))
    formula = registry.registration_of(sps.logsumexp).rrule  # the registration's own: no SciPy
    assert formula is not None
    assert np.any(formula(*args)[0] != sps.logsumexp(*args))


# --- bind_in= and library= ------------------------------------------------------------------------
def _fake(name: str) -> types.ModuleType:
    mod = types.ModuleType(name)
    mod.softsign = lambda x: x / (1 + np.abs(x))  # type: ignore[attr-defined]
    return mod


@pytest.fixture
def fake(clean_registry: object) -> Iterator[types.ModuleType]:
    name = "chainrules_test_table_namespace"
    mod = _fake(name)
    sys.modules[name] = mod
    try:
        yield mod
    finally:
        del sys.modules[name]


def _softsign_rules(fn: Any, seen: list[Any], src: Any) -> Callable[..., Any]:
    seen.append((fn, src))

    def softsign_rrule(x: Any) -> Any:
        y = fn(x)
        return y, lambda y_bar: (cr.NoTangent(), y_bar / (1 + np.abs(x)) ** 2)

    return softsign_rrule


def test_bind_in_is_told_the_namespace_and_its_declared_library(fake: types.ModuleType) -> None:
    seen: list[Any] = []
    cr.register_rrule(
        "numpy:softsign", bind_in=lambda fn, kind, src: _softsign_rules(fn, seen, src)
    )(lambda x: None)
    cr.register_namespace(fake.__name__, "numpy", frozenset({"softsign"}), library="mylib")
    _, pb = cr.rrule(fake.softsign, np.array([1.0, -2.0]))
    np.testing.assert_allclose(pb(np.ones(2))[1], [1 / 4, 1 / 9])
    assert seen == [(fake.softsign, Source(fake, "mylib"))]


def test_a_namespace_without_library_declares_its_module(fake: types.ModuleType) -> None:
    seen: list[Any] = []
    cr.register_rrule(
        "numpy:softsign", bind_in=lambda fn, kind, src: _softsign_rules(fn, seen, src)
    )(lambda x: None)
    cr.register_namespace(fake.__name__, "numpy", frozenset({"softsign"}))
    cr.rrule(fake.softsign, np.array([1.0]))
    assert seen == [(fake.softsign, Source(fake, fake.__name__))]


def test_bind_keeps_its_two_arguments(fake: types.ModuleType) -> None:
    """A user's ``bind=`` binder is called as before, ``(function_object, kind)``."""
    seen: list[Any] = []
    cr.register_rrule("numpy:softsign", bind=lambda fn, kind: _softsign_rules(fn, seen, kind))(
        lambda x: None
    )
    cr.register_namespace(fake.__name__, "numpy", frozenset({"softsign"}))
    _, pb = cr.rrule(fake.softsign, np.array([1.0]))
    np.testing.assert_allclose(pb(np.ones(1))[1], [1 / 4])
    assert seen == [(fake.softsign, "r")]


def test_a_plain_callable_target_needs_no_namespace(clean_registry: object) -> None:
    """A callable registered directly is found through no namespace: its rule as registered."""

    def softsign(x: Any) -> Any:
        return x / (1 + np.abs(x))

    seen: list[Any] = []
    rule = _softsign_rules(softsign, seen, None)
    cr.register_rrule(softsign, bind_in=lambda fn, kind, src: pytest.fail("bound"))(rule)
    assert cr.find_rrule(softsign) is rule
    np.testing.assert_allclose(cr.rrule(softsign, np.array([1.0]))[1](np.ones(1))[1], [1 / 4])


def test_one_binder_at_a_time(clean_registry: object) -> None:
    with pytest.raises(TypeError, match="one binder"):
        cr.register_rrule("numpy:softsign", bind=lambda f, k: None, bind_in=lambda f, k, s: None)(
            lambda x: None
        )


# --- an array namespace's SciPy -------------------------------------------------------------------
def test_an_array_namespace_s_scipy_is_found_by_identity_not_by_its_name() -> None:
    """A module whose ``__name__`` says NumPy's is not NumPy: no SciPy goes with it."""
    sps = pytest.importorskip("scipy.special")
    impostor = types.ModuleType("numpy")
    assert registry.scipy_namespace(impostor, "special") is None
    assert registry.resolve_name("scipy", "special.erf", impostor) is None
    assert registry.counterpart(sps.erf, impostor) is None
    # NumPy itself, and array-api-compat's NumPy for scipy_namespace, keep SciPy
    compat_numpy = importlib.import_module("array_api_compat.numpy")
    assert registry.scipy_namespace(np, "special") is sps
    assert registry.scipy_namespace(compat_numpy, "special") is sps
    assert registry.resolve_name("scipy", "special.erf", np) is sps.erf


def test_a_miss_with_no_import_since_neither_waits_nor_scans() -> None:
    """A lookup of a function with no entry (a ``traceable`` wrapper, a user's function: once a
    call in every gradient through one) resolves only what was imported since the last
    resolution: with no import since it returns at once, without the registry's lock, which
    another thread holds here; after an import it resolves again (the namespace registered
    before its import: tests/core/test_register_namespace.py)."""
    import threading

    from chainrules.core import table

    def user_function(x: object) -> object:
        return x

    for _ in range(2):  # resolves what was imported so far (which may import: twice)
        assert table.entry_of(user_function) is None
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with table._LOCK:
            held.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert held.wait(30)
        answers: list[object] = []
        looker = threading.Thread(target=lambda: answers.append(table.entry_of(user_function)))
        looker.start()
        looker.join(5)
        assert answers == [None], "the miss waited for the lock"
    finally:
        release.set()
        holder.join()
