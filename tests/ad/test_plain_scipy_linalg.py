"""``scipy.linalg``'s functions with rules reach them from plain code (issue 29, item 4):
``scipy.linalg.cho_solve(c, x)`` inside ``ad.grad`` is one operation differentiated by its rules.
Before, its body ran and converted the tracer with ``numpy.asarray`` (SciPy's linalg does so
even with ``SCIPY_ARRAY_API=1``).

The scope of a transformation (``chainrules.ad._compat``) gives ``scipy.linalg`` a class of its
own while a transformation runs, whose attribute lookup answers each function that the registry
has a rule for with ``chainrules.traceable`` of it, in a context inside a transformation only;
the last exit puts the class back. The set of functions is read from the registry
(``registry.entry_of``) and checked here against the registry's own ``scipy:linalg.*``
registrations. Each condition of a scoped patch has its test: restored after, exceptions,
nesting, other threads, a wrapper kept after the exit. A name bound by ``from scipy.linalg
import cho_solve`` before the transformation is SciPy's own function: the error says what to
call instead.

Also here: ``chainrules.traceable`` of a function that takes a tuple argument (``cho_solve``'s
``(c, lower)``, ``lu_solve``'s ``(lu, piv)``): a tuple whose elements cannot form one array is
passed to the rule as the tuple, never stacked.
"""

from __future__ import annotations

import types
import warnings
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.ad import _compat
from chainrules.ad._lift import stack_sequences
from chainrules.testing.examples import registered_scipy, traced_examples
from chainrules.testing.finite_differences import gradient

sl = pytest.importorskip("scipy.linalg")

A = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
B = np.array([1.0, -2.0, 0.5])


REGISTERED = registered_scipy("linalg")  # by SciPy's function object


@pytest.fixture(autouse=True)
def _module_restored() -> Any:
    assert type(sl) is types.ModuleType
    yield
    assert type(sl) is types.ModuleType, "scipy.linalg's class was not put back"
    for _, attr, f in _compat.ruled_functions():
        assert getattr(sl, attr) is f


def test_the_functions_are_the_registrys() -> None:
    ruled = {f: attr for _, attr, f in _compat.ruled_functions()}
    assert set(ruled) == set(REGISTERED), set(ruled) ^ set(REGISTERED)
    named = ("cho_solve", "cho_factor", "solve_triangular", "cholesky", "lu_solve", "lu_factor")
    assert {getattr(sl, n) for n in (*named, "expm")} <= set(ruled)
    assert len(ruled) >= 30


def _fd(f: Any, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """Central differences of the scalar ``f`` at ``x`` (the project's ``gradient``)."""
    return gradient(lambda xs: f(xs[0]), [x], 0, h)


def _cho(a: Any, b: Any) -> Any:
    return np.sum(sl.cho_solve(sl.cho_factor(a), b) ** 2)


def _lu(a: Any, b: Any) -> Any:
    return np.sum(sl.lu_solve(sl.lu_factor(a), b) ** 2)


def _tri(a: Any, b: Any) -> Any:
    return np.sum(sl.solve_triangular(sl.cholesky(a, lower=True), b, lower=True) ** 3)


def _expm(a: Any, b: Any) -> Any:
    return np.sum(sl.expm(0.1 * a) @ b)


def _sym(a: Any) -> Any:
    """The symmetric part: the programs' factorisations read one triangle."""
    return (a + a.T) / 2


PROGRAMS = {
    "cho_factor+cho_solve": _cho,
    "lu_factor+lu_solve": _lu,
    "cholesky+solve_triangular": _tri,
    "expm": _expm,
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_plain_code_differentiates_through_the_rules(name: str) -> None:
    f = PROGRAMS[name]
    ga, gb = ad.grad(lambda a, b: f(_sym(a), b), argnums=(0, 1))(A, B)
    np.testing.assert_allclose(ga, _fd(lambda a: f(_sym(a), B), A), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gb, _fd(lambda b: f(A, b), B), rtol=1e-6, atol=1e-8)
    h = ad.hessian(lambda b: f(A, b))(B)
    grad_b = ad.grad(lambda v: f(A, v))
    fd = np.stack([(grad_b(B + 1e-6 * e) - grad_b(B - 1e-6 * e)) / 2e-6 for e in np.eye(3)], -1)
    np.testing.assert_allclose(h, fd, rtol=1e-5, atol=1e-7)
    _, t = ad.jvp(lambda b: f(A, b), (B,), (np.ones(3),))
    np.testing.assert_allclose(t, gb.sum(), rtol=1e-12)


def test_a_call_is_one_operation_through_its_rule(clean_registry: Any) -> None:
    """A marked rule (7x the true derivative) shows that the rule, not the body, was used."""
    calls = []
    real = cr.find_rrule(sl.expm)

    @cr.register_rrule(sl.expm)
    def marked(a: Any, *args: Any, **kwargs: Any) -> Any:
        y, pb = real(a, *args, **kwargs)
        calls.append(1)
        return y, lambda g: tuple(7 * t if i == 1 else t for i, t in enumerate(pb(g)))

    g = ad.grad(lambda a: np.sum(sl.expm(a)))(0.1 * A)
    want = cr.unthunk(real(0.1 * A)[1](np.ones((3, 3)))[1])
    np.testing.assert_allclose(g, 7 * want, rtol=1e-12)
    assert calls == [1]


def _examples() -> list[Any]:
    out = []
    for f, reg in REGISTERED.items():
        attr = next(a for _, a, g in _compat.ruled_functions() if g is f)
        out += [pytest.param(attr, ex, i, id=f"{attr}-{k}") for k, ex, i in traced_examples(reg)]
    return out


def _floating(a: Any) -> bool:
    return type(a) is np.ndarray and a.dtype.kind == "f"


@pytest.mark.parametrize(("attr", "ex", "i"), _examples())
def test_every_registered_function_called_as_scipy_linalg_name(attr: str, ex: Any, i: int) -> None:
    """At each real example, the first floating argument traced and the call written as plain
    code does (``scipy.linalg.NAME(...)`` looked up inside the function): the gradient is the
    rule's own cotangent, from ``cr.rrule`` on plain arrays."""
    args, kwargs = ex.args, ex.kwargs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        y = getattr(sl, attr)(*args, **kwargs)
    ys = y if isinstance(y, tuple | list) else (y,)
    rng = np.random.default_rng(3)
    ws = [rng.standard_normal(np.shape(e)) if _floating(np.asarray(e)) else None for e in ys]

    def loss(v: Any) -> Any:
        out = getattr(sl, attr)(*args[:i], v, *args[i + 1 :], **kwargs)
        outs = out if isinstance(out, tuple | list) else (out,)
        return sum(np.sum(o * w) for o, w in zip(outs, ws, strict=True) if w is not None)

    got = ad.grad(loss)(args[i])
    _, pullback = cr.rrule(getattr(sl, attr), *args, **kwargs)
    seeds = [cr.ZeroTangent() if w is None else w for w in ws]
    ct = seeds[0] if not isinstance(y, tuple | list) else cr.Tangent(*seeds, primal_type=type(y))
    want = cr.unthunk(pullback(ct)[1 + i])
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


# --- the scope -----------------------------------------------------------------------------------
def test_inside_the_wrapper_outside_the_function_and_the_module_class_restored() -> None:
    seen = []

    def f(b: Any) -> Any:
        seen.append((type(sl), sl.cho_solve))
        return np.sum(sl.cho_solve(sl.cho_factor(A), b))

    ad.grad(f)(B)
    cls, fn = seen[0]
    assert cls is not types.ModuleType and isinstance(sl, types.ModuleType)
    assert fn is not _original("cho_solve") and fn.__wrapped__ is _original("cho_solve")
    assert sl.cho_solve is _original("cho_solve")  # after: SciPy's own


def _original(attr: str) -> Any:
    return next(f for _, a, f in _compat.ruled_functions() if a == attr)


def test_restored_after_an_exception_and_in_nested_transformations() -> None:
    def fails(b: Any) -> Any:
        sl.cho_solve(sl.cho_factor(A), b)
        raise RuntimeError("the user's")

    with pytest.raises(RuntimeError, match="the user's"):
        ad.grad(fails)(B)
    assert type(sl) is types.ModuleType
    h = ad.hessian(lambda b: _cho(A, b))(B)  # nested: jacobian of grad
    assert type(sl) is types.ModuleType
    np.testing.assert_allclose(h, h.T, rtol=1e-12)
    inner = np.linalg.inv(A)
    np.testing.assert_allclose(h, 2 * inner.T @ inner, rtol=1e-10)


def test_another_thread_sees_scipys_own_functions_meanwhile(
    grad_while_another_thread: Any,
) -> None:
    """While one thread is inside a transformation, another thread's scipy.linalg calls are
    SciPy's own (the same object, the same result), and its own transformation works too."""

    def loss(b: Any) -> Any:
        return _cho(A, b)

    def work() -> tuple[Any, Any, Any]:
        return sl.cho_solve, sl.cho_solve(sl.cho_factor(A), B), ad.grad(loss)(B)

    g, (fn, value, other_grad) = grad_while_another_thread(loss, B, work)
    assert fn is _original("cho_solve")
    np.testing.assert_allclose(value, np.linalg.solve(A, B), rtol=1e-12)
    np.testing.assert_allclose(other_grad, g, rtol=1e-12)


def test_a_wrapper_kept_after_the_exit_is_scipys_function() -> None:
    kept = []

    def f(a: Any) -> Any:
        from scipy.linalg import cholesky  # bound inside: the wrapper

        kept.append(cholesky)
        return np.sum(cholesky(a))

    ad.grad(f)(A)
    assert kept[0] is not _original("cholesky")
    np.testing.assert_array_equal(kept[0](A), sl.cholesky(A))
    with pytest.raises(np.linalg.LinAlgError):
        kept[0](-A)  # SciPy's own error, outside a transformation


def test_a_name_imported_before_the_transformation_names_what_to_call() -> None:
    from scipy.linalg import cho_solve  # SciPy's own function: the scope does not see it

    with pytest.raises(TypeError) as info:
        ad.grad(lambda b: np.sum(cho_solve(sl.cho_factor(A), b)))(B)
    msg = str(info.value)
    assert "called as scipy.linalg.NAME" in msg
    assert "chainrules.ad.scipy.linalg" in msg and "chainrules.traceable" in msg
    # the ways it names work
    ad.grad(lambda b: np.sum(cr.traceable(cho_solve)(sl.cho_factor(A), b)))(B)


# --- chainrules.traceable of a function that takes a tuple argument -----------------------------
@pytest.mark.parametrize("which", ["cho", "lu"])
def test_traceable_takes_a_factor_pair(which: str) -> None:
    factor = cr.traceable(sl.cho_factor if which == "cho" else sl.lu_factor)
    solve = cr.traceable(sl.cho_solve if which == "cho" else sl.lu_solve)

    def f(a: Any, b: Any) -> Any:
        return np.sum(solve(factor(a), b) ** 2)

    ga, gb = ad.grad(f, argnums=(0, 1))(A, B)
    sym = (ga + ga.T) / 2 if which == "cho" else ga  # cho_factor reads one triangle
    fd = _fd(lambda a: f((a + a.T) / 2 if which == "cho" else a, B), A)
    np.testing.assert_allclose(sym if which == "cho" else ga, fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gb, _fd(lambda b: f(A, b), B), rtol=1e-6, atol=1e-8)
    c = sl.cho_factor(A) if which == "cho" else sl.lu_factor(A)
    gc = ad.grad(lambda b: np.sum(solve(c, b)))(B)  # the pair constant, b traced
    np.testing.assert_allclose(gc, np.linalg.solve(A.T, np.ones(3)), rtol=1e-12)


def test_a_tuple_whose_elements_are_not_one_array_is_not_stacked() -> None:
    """``stack_sequences`` makes the array NumPy would make of a list of traced values, and only
    that: a tuple of a matrix and a bool, or of arrays of different shapes, is a pytree passed
    as it is (NumPy would refuse to make an array of it)."""
    seen = []

    def f(x: Any) -> Any:
        pair = (x, True)
        ragged = (x, x[0])
        same = (x[0], x[1])
        seen.append(stack_sequences(np.sum, (pair,))[0] is pair)
        seen.append(stack_sequences(np.sum, (ragged,))[0] is ragged)
        stacked = stack_sequences(np.sum, (same,))[0]
        seen.append(isinstance(stacked, ad.Tracer) and tuple(stacked.shape) == (2, 3))
        return np.sum(stacked)

    g = ad.grad(f)(A)
    assert seen == [True, True, True]
    np.testing.assert_array_equal(g, np.r_[np.ones((2, 3)), np.zeros((1, 3))])


def test_an_import_inside_the_function_says_why_its_first_call_failed() -> None:
    """scipy.linalg imported inside the function, at the transformation's first call: the scope
    gave the modules imported then their ruled classes, so SciPy's own expm converts the tracer;
    the error says that the import came during the call, and the next call goes through the
    rules. In a fresh process, where scipy.linalg is not imported yet."""
    import os
    import subprocess
    import sys

    script = (
        "import numpy as np\n"
        "from chainrules import ad\n"
        "def f(s):\n"
        "    import scipy.linalg\n"
        "    return np.sum(scipy.linalg.expm(s))\n"
        "s = np.eye(2) * 0.1\n"
        "try:\n"
        "    ad.grad(f)(s)\n"
        "except TypeError as e:\n"
        "    print('first:', 'scipy.linalg was imported during this call' in str(e))\n"
        "print('second:', np.allclose(ad.grad(f)(s), np.exp(0.1) * np.ones((2, 2))))\n"
    )
    env = {**os.environ, "SCIPY_ARRAY_API": "1"}
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert out.stdout.split("\n")[:2] == ["first: True", "second: True"], out.stdout + out.stderr
