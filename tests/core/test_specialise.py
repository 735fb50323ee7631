"""Library methods declared beside the generic code (``chainrules.core.specialise``).

The mechanism: a call goes to the method of its first argument's library, falls back to the
generic function on ``NotImplemented`` or inside ``generic_only()``, and nothing else decides.

Generated from the registry: every declared method is checked against the generic path on the
examples of the registrations whose rule modules call it, on its library, eagerly and (JAX, where
the method declined eagerly) under ``jax.jit``: value, pullback and pushforward, with and without
the methods. A method that no example reaches fails the test, so none goes unchecked.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import itertools
import re
import sys
import threading
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.core import specialise as sp
from chainrules.core.registry import find_rrule, registrations
from chainrules.testing.arrays import LAYOUTS, relaid
from chainrules.testing.backends import BACKENDS
from chainrules.testing.examples import examples_for


# --- the mechanism --------------------------------------------------------------------------
def _toy() -> sp.Specialised:
    @sp.specialise
    def double(x: Any) -> Any:
        """x + x: the generic way."""
        return ("generic", x + x)

    @double.method("numpy")
    def _double_numpy(x: Any) -> Any:
        if x.dtype.kind != "f":
            return NotImplemented
        return ("numpy", x * 2)

    return double


def test_a_call_goes_to_its_librarys_method_and_back_to_the_generic_way() -> None:
    double = _toy()
    assert double(np.ones(2))[0] == "numpy"
    assert double(np.ones(2, int))[0] == "generic"  # NotImplemented: the generic way
    assert double(1.5)[0] == "generic"  # a Python scalar belongs to no library
    with sp.generic_only():
        assert double(np.ones(2))[0] == "generic"
    assert double(np.ones(2))[0] == "numpy"
    with sp.record_methods() as used:
        double(np.ones(2))
        double(np.ones(2, int))
    assert used == {double}
    assert double.__doc__ == "x + x: the generic way." and "numpy" in repr(double)


def test_tracers_and_other_libraries_take_the_generic_way() -> None:
    from chainrules import ad

    double = _toy()
    seen = []
    ad.grad(lambda x: seen.append(double(x)[0]) or np.sum(x))(np.ones(3))
    assert seen == ["generic"]
    xps = pytest.importorskip("array_api_strict")
    assert double(xps.ones(2))[0] == "generic"


def test_generic_only_is_per_thread() -> None:
    double = _toy()
    got = []
    with sp.generic_only():
        t = threading.Thread(target=lambda: got.append(double(np.ones(2))[0]))
        t.start()
        t.join()
        got.append(double(np.ones(2))[0])
    assert got == ["numpy", "generic"]


def test_generic_only_of_some_functions_leaves_the_others_their_methods() -> None:
    double, triple = _toy(), _toy()
    with sp.generic_only(double):
        assert double(np.ones(2))[0] == "generic"
        assert triple(np.ones(2))[0] == "numpy"
        with sp.generic_only():  # the inner scope's choice holds until it exits
            assert triple(np.ones(2))[0] == "generic"
        assert triple(np.ones(2))[0] == "numpy"
    assert double(np.ones(2))[0] == "numpy"
    with (
        pytest.raises(TypeError, match="generic_only: expected specialised functions"),
        sp.generic_only(len),  # type: ignore[arg-type]
    ):
        pass


def test_declaration_errors_name_the_function_and_the_library() -> None:
    double = _toy()
    with pytest.raises(ValueError, match=r"double\.method: library must be one of"):
        double.method("tensorflow")
    with pytest.raises(ValueError, match="double has a numpy method already"):
        double.method("numpy")


def test_library_of_reads_arrays_and_real_modules_only() -> None:
    import array_api_compat.numpy as anp

    from chainrules import ad

    assert sp.library_of(np.ones(2)) == sp.library_of(np.float64(1.0)) == "numpy"
    assert sp.library_of(anp) == sp.library_of(np) == "numpy"
    assert sp.library_of(1.0) is None and sp.library_of(None) is None
    seen = []
    ad.grad(lambda x: seen.append(sp.library_of(x.__array_namespace__())) or np.sum(x))(np.ones(2))
    assert seen == [None]  # a traced namespace (a module subclass named like its base) is not


# --- every method against the generic path, on the registry's examples ----------------------
_LIBS = {"numpy": "numpy", "torch": "torch", "jax": "jax"}  # method library -> testing backend


def _numpy_rrule(reg: cr.Registration) -> Any:
    """The rrule that NumPy's function of ``reg`` finds: for a registration that makes its rules
    for each library's function when first used (``bind_in=``: scipy.special's), the one made
    for NumPy's, made now."""
    f = BACKENDS["numpy"].function(reg)
    return None if f is None else find_rrule(f)


def _made_per_function() -> dict[int, tuple[str, list[str]]]:
    """``id(rule) -> (registration, its method libraries)`` of the rules with methods that a
    registration makes for NumPy's function (made here). They are made again whenever the
    registry changes (a test registering a rule), so their test finds them by registration."""
    import chainrules.rules  # noqa: F401  (every rule module, so every method, is declared)

    out = {}
    for reg in registrations():
        r = _numpy_rrule(reg)
        if isinstance(r, sp.Specialised) and r.library_methods and r is not reg.rrule:
            out[id(r)] = (reg.name, sorted(lib for lib in r.library_methods if lib in _LIBS))
    return out


def _declared(s: sp.Specialised) -> bool:
    """Whether ``s`` is a module's function or a registration's own rule: not one made for a
    library's function (those, and any left from before the registry last changed, are the
    next test's)."""
    if any(s is r for reg in registrations() for r in (reg.rrule, reg.frule)):
        return True
    return any(
        s is v
        for name, m in list(sys.modules.items())
        if name.startswith("chainrules.")
        for v in list(vars(m).values())
    )


def _pairs() -> list[tuple[sp.Specialised, str]]:
    _made_per_function()  # made now, so that the methods of every rule are declared
    return [
        (s, lib)
        for s in sp.methods()
        if _declared(s)
        for lib in sorted(s.library_methods)
        if lib in _LIBS
    ]


def _made_pairs() -> list[tuple[str, str]]:
    return [(name, lib) for name, libs in _made_per_function().values() for lib in libs]


def _calls(f: Any, s: Any) -> bool:
    """Whether the source of ``f`` (a function or a module) calls ``s`` by its name."""
    return re.search(rf"\b{re.escape(s.__name__)}\(", inspect.getsource(f)) is not None


def _calling(s: Any) -> set[str]:
    """The modules of the rules or of the core that hold ``s`` and call it."""
    return {
        name
        for name, m in list(sys.modules.items())
        if name.startswith(("chainrules.rules", "chainrules.core"))
        and s in vars(m).values()
        and _calls(m, s)
    }


def _users(s: sp.Specialised) -> list[cr.Registration]:
    """The registrations whose rule is ``s`` (their own, or the one made for NumPy's function),
    or whose rules live in a module (of the rules or of the core: ``scalar_rule``'s) that calls
    ``s``, or that a module calling ``s`` registered (``scalar_rule``'s rules of partials written
    in the rule's file)."""
    mods = _calling(s)
    # a helper of the shared maths (chainrules.rules._util) that calls s: the modules calling it
    for name in [n for n in mods if n.startswith("chainrules.rules._util")]:
        for f in list(vars(sys.modules[name]).values()):
            if inspect.isfunction(f) and f.__module__ == name and _calls(f, s):
                mods |= _calling(f)
    out = []
    for reg in registrations():
        rules = [r for r in (reg.rrule, reg.frule) if r is not None]
        if (
            reg.module in mods
            or any(r is s or getattr(r, "__module__", None) in mods for r in rules)
            or _numpy_rrule(reg) is s  # a rule made for NumPy's function (bind_in=)
        ):
            out.append(reg)
    return out


def _leaves(tree: Any) -> list[Any]:
    """The floating arrays of a result (tuples, lists, thunks; zeros and non-arrays dropped), as
    the library's arrays (JAX tracers inside ``jit``)."""
    tree = cr.unthunk(tree)
    if isinstance(tree, tuple | list):
        return [a for t in tree for a in _leaves(t)]
    return [tree] if _floating(tree) else []


def _floating(a: Any) -> bool:
    if not hasattr(a, "shape") or not hasattr(a, "dtype"):
        return False
    try:
        xp = cr.namespace_of(a)
    except TypeError:
        return False
    return bool(xp.isdtype(a.dtype, ("real floating", "complex floating")))


def _run(f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
    """Value, pullback of a fixed cotangent, and pushforward of fixed tangents."""
    rng = np.random.default_rng(7)

    def like(a: Any) -> Any:
        if not _floating(a):
            return cr.ZeroTangent()
        xp = cr.namespace_of(a)
        v = rng.standard_normal(tuple(a.shape))
        if xp.isdtype(a.dtype, "complex floating"):
            v = v + 1j * rng.standard_normal(tuple(a.shape))
        return xp.asarray(v, dtype=a.dtype)

    y, pb = cr.rrule(f, *args, **kwargs)
    out = _leaves(y)
    if isinstance(y, tuple | list):
        cts = [like(v) for v in y]
        ct = type(y)(*cts) if hasattr(y, "_fields") else type(y)(cts)
    else:
        ct = like(y)
    out += _leaves(pb(ct)[1:])
    dots = tuple(like(a) for a in args)
    with contextlib.suppress(cr.NoRuleError):  # an rrule-only registration has no pushforward
        out += _leaves(cr.frule((cr.NoTangent(), *dots), f, *args, **kwargs)[1])
    return out


def _numpy(leaves: list[Any]) -> list[np.ndarray]:
    return [np.asarray(a.cpu() if hasattr(a, "cpu") else a) for a in leaves]


@functools.cache
def _checked(s: sp.Specialised, lib: str) -> tuple[int, list[str]]:
    """(the number of examples that reached the method, the disagreements and failures): every
    example eagerly; under ``jax.jit`` only for a JAX method that no eager call reached (a branch
    on the device)."""
    backend = BACKENDS[_LIBS[lib]]
    if not backend.available():
        pytest.skip(f"{lib} is not installed")
    reached, bad = _sweep(s, backend, "eager")
    if not reached and lib == "jax":
        reached, bad = _sweep(s, backend, "jit")
    return reached, bad


# issue 27, item 3: a NumPy method is checked on memory layouts too (the examples hold the
# empty arrays)
_LAYOUTS = {"numpy": ("C", *LAYOUTS)}


def _sweep(s: sp.Specialised, backend: Any, how: str) -> tuple[int, list[str]]:
    reached, bad = 0, []
    layouts = _LAYOUTS.get(backend.name, ("C",)) if how == "eager" else ("C",)
    for reg in _users(s):
        f = backend.function(reg)
        if f is None:
            continue
        for (i, ex), layout in itertools.product(enumerate(examples_for(reg)), layouts):
            dtype = "complex128" if ex.complex else "float64"
            args = tuple(relaid(backend.asarray(a, dtype), layout) for a in ex.args)
            kwargs = {k: relaid(backend.asarray(v, dtype), layout) for k, v in ex.kwargs.items()}
            if how == "jit":
                call = _jitted(f, args, kwargs)
            else:
                call = functools.partial(_run, f, args, kwargs)
            with sp.generic_only(), backend.precision(dtype):
                try:
                    want = _numpy(call())
                except Exception:  # noqa: BLE001  (the example's own limit: not a method's)
                    continue
            where = f"{reg.name} #{i} {dtype} {how}" + ("" if layout == "C" else f" {layout}")
            with sp.record_methods() as used, backend.precision(dtype):
                try:
                    got = _numpy(call())
                except Exception as e:  # noqa: BLE001  (the generic way gave a value)
                    bad.append(f"{where}: {type(e).__name__}: {e}")
                    continue
            if s not in used:
                continue
            reached += 1
            same = len(got) == len(want) and all(
                g.shape == w.shape and np.allclose(g, w, rtol=1e-9, atol=1e-9, equal_nan=True)
                for g, w in zip(got, want, strict=True)
            )
            if not same:
                bad.append(where)
    return reached, bad


def _jitted(f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """A call of ``_run`` under ``jax.jit``, traced afresh each time (a new function: JAX caches
    traces per function, and the methods are chosen while tracing)."""
    import jax

    arrays = [k for k, a in enumerate(args) if hasattr(a, "shape")]

    def call() -> Any:
        def run(*arrs: Any) -> Any:
            full = list(args)
            for k, a in zip(arrays, arrs, strict=True):
                full[k] = a
            return _run(f, tuple(full), kwargs)

        return jax.jit(run)(*(args[k] for k in arrays))

    return call


@pytest.mark.parametrize(("s", "lib"), _pairs(), ids=lambda v: getattr(v, "__name__", v))
def test_every_library_method_agrees_with_the_generic_path(s: sp.Specialised, lib: str) -> None:
    reached, bad = _checked(s, lib)
    assert reached, f"no example of the rules that use {s!r} reaches its {lib} method"
    assert not bad, bad


@pytest.mark.parametrize(("name", "lib"), _made_pairs())
def test_every_method_of_a_rule_made_per_function_agrees_with_the_generic_path(
    name: str, lib: str
) -> None:
    """The same for the rules a registration makes for each library's function (``bind_in=``:
    scipy.special's), found through the registration as the registry holds it now."""
    (reg,) = [r for r in registrations() if r.name == name]
    s = _numpy_rrule(reg)
    reached, bad = _checked(s, lib)
    assert reached, f"no example of {name} reaches its {lib} method"
    assert not bad, bad


def test_the_check_finds_a_wrong_method(monkeypatch: pytest.MonkeyPatch) -> None:
    """A NumPy method that gives twice the value is caught (so the check above can fail)."""
    pytest.importorskip("scipy")
    from chainrules.rules._util.linalg import solve_lower

    right = solve_lower.library_methods["numpy"]
    monkeypatch.setitem(
        solve_lower.library_methods,
        "numpy",
        lambda low, b, adjoint=False: 2 * right(low, b, adjoint),
    )
    reached, bad = _sweep(solve_lower, BACKENDS["numpy"], "eager")
    assert reached and bad  # (a zero-size example is the same doubled)


def test_the_check_finds_a_method_wrong_on_one_memory_layout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A NumPy method right on C-ordered arrays and wrong on every other layout is caught, on
    those layouts only (``np.sum``'s rule takes the user's array as it is)."""
    s = find_rrule(np.sum)
    assert isinstance(s, sp.Specialised)
    right = s.library_methods["numpy"]

    def c_only(*args: Any, **kwargs: Any) -> Any:
        out = right(*args, **kwargs)
        if out is NotImplemented or args[0].flags.c_contiguous:
            return out
        return 2 * out[0], out[1]

    monkeypatch.setitem(s.library_methods, "numpy", c_only)
    reached, bad = _sweep(s, BACKENDS["numpy"], "eager")
    layouts = {w.split(" eager")[1].strip() for w in bad}
    assert reached and layouts == {"F", "strided", "reversed"}, layouts


def test_all_library_methods_together_stay_under_600_lines() -> None:
    """Issue 27: a faster way for one library is the exception -- every declared method, each
    counted once (a method shared by several rules, as ``sum``'s NumPy one, is one source)."""
    import chainrules.rules  # noqa: F401  (every rule module, so every method, is declared)

    sources = {inspect.getsource(m) for s in sp.methods() for m in s.library_methods.values()}
    lines = sum(len(src.splitlines()) for src in sources)
    assert 0 < lines <= 600, lines


def test_every_library_method_names_what_justifies_it() -> None:
    """Issue 27: a backend method is justified by a measured gain, in its docstring. A NumPy
    method states its population figure (``python -m benchmarks.population.methods``; the
    population is NumPy programs), or says that the population does not reach it and what it
    gains elsewhere; another library's method, or its generic function, names the benchmark or
    the test that measures it."""
    import chainrules.rules  # noqa: F401

    missing = []
    for s in sp.methods():
        for lib, m in s.library_methods.items():
            doc = " ".join((m.__doc__ or "").split())
            if lib == "numpy":
                ok = "Population" in doc
            else:
                doc += " " + " ".join((s.generic.__doc__ or "").split())
                ok = any(k in doc for k in ("benchmarks/", "tests/", "campaign seeds"))
            if not ok:
                missing.append(f"{lib}: {m.__module__}.{m.__qualname__}")
    assert not missing, missing
