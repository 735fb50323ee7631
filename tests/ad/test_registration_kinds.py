"""What a function is -- a constant, a creation function, one that takes a sequence, a view -- is
its registration's ``kind``, never its name (issue 26 item 4, defect 2; issue 27).

The engine once decided by ``__name__`` (lists of names in ``chainrules/ad/_core.py``) and by a
``__module__`` prefix, so a user's function named ``equal`` with a registered rule got a zero
gradient. Now the registry records each registration's kind (``registry.KINDS``) and the engine
reads it with one dict access (``registry.entry_of``).
"""

from __future__ import annotations

import ast
import pathlib
import types
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.ad._core import CREATED, TracedNamespace, Tracer
from chainrules.core import registry

# Every name of the lists the engine used to decide by (CONSTANT_NAMES, NONDIFF_NAMES,
# SEQUENCE_NAMES, _META_NAMES, LIKE_NAMES, CREATION_NAMES, _VIEW_METHODS, the NumPy view
# functions) and the traced namespace's own name test (asarray).
CONSTANT = (
    "all allclose any argmax argmin argsort argwhere array_equal array_equiv can_cast "
    "count_nonzero empty_like equal finfo flatnonzero full_like greater greater_equal iinfo "
    "isdtype isfinite isclose isinf isnan iscomplexobj isrealobj less less_equal ndim nonzero "
    "not_equal ones_like result_type searchsorted shape signbit size unique_all unique_counts "
    "unique_inverse unique_values zeros_like"
).split()
SEQUENCE = (
    "block broadcast_arrays choose column_stack concat concatenate dstack einsum hstack ix_ "
    "lexsort meshgrid multi_dot odeint piecewise row_stack select stack unstack vstack"
).split()
META = "isdtype result_type can_cast finfo iinfo".split()
LIKE = "empty_like full_like ones_like zeros_like".split()
CREATION = "arange empty eye from_dlpack full linspace ones zeros tri".split()
VIEW = (
    "reshape transpose ravel squeeze swapaxes diagonal moveaxis expand_dims real imag "
    "atleast_1d atleast_2d atleast_3d matrix_transpose"
).split()
OLD_NAMES = sorted({*CONSTANT, *SEQUENCE, *META, *LIKE, *CREATION, *VIEW, "asarray"})
# the identifiers of the old lists and of the module-prefix test
OLD_LISTS = (
    "CONSTANT_NAMES",
    "NONDIFF_NAMES",
    "SEQUENCE_NAMES",
    "LIKE_NAMES",
    "CREATION_NAMES",
    "_META_NAMES",
    "_VIEW_METHODS",
    "_NUMPY_VIEW_FUNCTIONS",
    "_numpy_view_functions",
    "_numpy_like",
)


@pytest.fixture(autouse=True)
def _registry() -> Any:
    state = registry.snapshot()
    yield
    registry.restore(state)


def _user_function(name: str, module: str = "numpy", traceable: bool = True) -> Any:
    """A user's ``f(x) = x * x`` named ``name`` (and claiming ``module``; ``traceable`` or a
    plain function), with an rrule and an frule that record their calls in ``f.calls``."""

    def body(x: Any) -> Any:
        return x * x

    body.__name__ = body.__qualname__ = name
    body.__module__ = module
    f = cr.traceable(body) if traceable else body
    calls: list[str] = []

    @cr.register_rrule(f)
    def f_rrule(x: Any) -> Any:
        calls.append("rrule")

        def f_pullback(y_bar: Any) -> Any:
            calls.append("pullback")
            return cr.NoTangent(), 2 * x * y_bar

        return x * x, f_pullback

    @cr.register_frule(f)
    def f_frule(tangents: Any, x: Any) -> Any:
        calls.append("frule")
        return x * x, 2 * x * tangents[1]

    f.calls = calls
    return f


@pytest.mark.parametrize("name", OLD_NAMES)
def test_defect2_user_function_named_like_a_builtin(name: str) -> None:
    """A user's function with a library function's name (and module) gets its own rule: called
    directly (a traceable function), and as the function of that name in a traced namespace (a
    plain one: the namespace records the call)."""
    x = np.array([1.5, 2.0])
    f = _user_function(name)
    g = ad.grad(lambda x: f(x).sum())(x)
    np.testing.assert_allclose(g, 2 * x)
    assert f.calls == ["rrule", "pullback"]

    f.calls.clear()
    _, y_dot = ad.jvp(f, (x,), (np.ones(2),))
    np.testing.assert_allclose(y_dot, 2 * x)
    assert f.calls == ["frule"]

    # a namespace whose attribute of that name is the user's function: the traced namespace
    # does what the function's registration says (an ordinary function: recorded by its rule)
    h = _user_function(name, traceable=False)
    ns = TracedNamespace(types.SimpleNamespace(**{name: h, "__name__": "user_namespace"}))
    g = ad.grad(lambda x: getattr(ns, name)(x).sum())(x)
    np.testing.assert_allclose(g, 2 * x)
    assert h.calls == ["rrule", "pullback"]


# --- a user's function declared with each kind ---------------------------------------------------
def test_declared_constant_is_evaluated_not_differentiated() -> None:
    x = np.array([1.5, 2.0])
    f = _user_function("my_score")
    calls = f.calls
    cr.register_kind(f, kind="constant")
    assert registry.registration_of(f).kind == "constant"  # type: ignore[union-attr]
    g = ad.grad(lambda x: (f(x) * x).sum())(x)
    np.testing.assert_allclose(g, x * x)  # f(x) is a constant factor: d/dx (c * x) = c
    _, y_dot = ad.jvp(lambda x: f(x) + x, (x,), (np.ones(2),))
    np.testing.assert_allclose(y_dot, np.ones(2))
    assert calls == []  # its rules are never called


def test_non_differentiable_declares_a_constant() -> None:
    """``cr.non_differentiable(f)`` keeps working: its kind is ``"constant"``."""

    def step(x: Any) -> Any:
        return (x > 1.6) * 1.0

    f = cr.traceable(step)
    cr.non_differentiable(f)
    reg = registry.registration_of(f)
    assert reg is not None and reg.non_differentiable and reg.kind == "constant" and reg.constant
    x = np.array([1.5, 2.0])
    g = ad.grad(lambda x: (f(x) * x).sum())(x)
    np.testing.assert_allclose(g, [0.0, 1.0])


def test_declared_sequence_reaches_the_rule_as_a_list() -> None:
    seen: list[Any] = []

    def total(xs: Any) -> Any:
        return sum(xs)

    f = cr.traceable(total)

    @cr.register_rrule(f, kind="sequence")
    def total_rrule(xs: Any) -> Any:
        seen.append(xs)

        def total_pullback(y_bar: Any) -> Any:
            return cr.NoTangent(), cr.Tangent(*(y_bar for _ in xs), primal_type=type(xs))

        return sum(xs), total_pullback

    assert registry.entry_of(f).kind == "sequence"  # type: ignore[union-attr]
    assert not registry.entry_of(f).stacks  # type: ignore[union-attr]
    x, y = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    g = ad.grad(lambda x, y: f([x, 2 * y]).sum(), argnums=(0, 1))(x, y)
    np.testing.assert_allclose(g[0], np.ones(2))
    np.testing.assert_allclose(g[1], 2 * np.ones(2))
    assert type(seen[0]) is list and len(seen[0]) == 2  # a list of the two values, not stacked


def test_named_registrations_stack_lists_unless_sequence() -> None:
    """The library's functions registered by name read a list of traced arrays as NumPy does
    (``np.append([x, y], z)``: stacked), except those of kind ``"sequence"`` (``np.stack``)."""
    assert registry.entry_of(np.append).stacks  # type: ignore[union-attr]
    assert not registry.entry_of(np.stack).stacks  # type: ignore[union-attr]
    x = np.array([1.0, 2.0])
    g = ad.grad(lambda x: np.sum(np.append([x, 3 * x], x)))(x)
    np.testing.assert_allclose(g, 5 * np.ones(2))
    g = ad.grad(lambda x: np.sum(np.stack([x, 3 * x])))(x)
    np.testing.assert_allclose(g, 4 * np.ones(2))


def _namespace(**functions: Any) -> Any:
    return TracedNamespace(types.SimpleNamespace(__name__="user_namespace", **functions))


def test_declared_metadata_sees_the_arrays_under_the_tracers() -> None:
    seen: list[Any] = []

    def n_elements(a: Any) -> Any:
        seen.append(type(a))
        return a.size

    cr.register_kind(n_elements, kind="metadata")
    ns = _namespace(n_elements=n_elements)
    g = ad.grad(lambda x: (x * ns.n_elements(x)).sum())(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(g, 3 * np.ones(3))
    assert seen == [np.ndarray]


def test_declared_creation_makes_created_arrays() -> None:
    """A created array takes writes of traced values (the engine records them)."""

    def my_zeros(n: int) -> Any:
        return np.zeros(n)

    cr.register_kind(my_zeros, kind="creation")
    ns = _namespace(my_zeros=my_zeros)

    def f(x: Any) -> Any:
        buf = ns.my_zeros(3)
        assert isinstance(buf, Tracer) and buf._trace is CREATED
        buf[1] = 2 * x[0]
        return buf.sum()

    np.testing.assert_allclose(ad.grad(f)(np.array([1.0, 5.0])), [2.0, 0.0])


def test_declared_like_is_created_or_constant() -> None:
    calls: list[str] = []

    def my_ones_like(a: Any) -> Any:
        calls.append("call")
        return np.ones(np.shape(a))

    f = cr.traceable(my_ones_like)

    @cr.register_rrule(f, kind="like")
    def my_ones_like_rrule(a: Any) -> Any:  # never called: a "like" result is a constant
        calls.append("rrule")
        raise AssertionError("the rule of a 'like' function is called")

    ns = _namespace(my_ones_like=f)

    def g(x: Any) -> Any:
        c = ns.my_ones_like(np.zeros(2))  # from a plain array: created
        assert isinstance(c, Tracer) and c._trace is CREATED
        return (ns.my_ones_like(x) * x + c * x).sum()

    np.testing.assert_allclose(ad.grad(g)(np.array([1.0, 5.0])), [2.0, 2.0])
    assert "rrule" not in calls


def test_declared_conversion_returns_a_traced_argument() -> None:
    def to_array(obj: Any, dtype: Any = None) -> Any:
        return np.asarray(obj, dtype=dtype)

    cr.register_kind(to_array, kind="conversion")
    ns = _namespace(to_array=to_array, stack=np.stack)

    def f(x: Any) -> Any:
        assert ns.to_array(x) is x
        c = ns.to_array([1.0, 2.0])  # no traced value: created
        assert isinstance(c, Tracer) and c._trace is CREATED
        return (ns.to_array(x) * c).sum()

    np.testing.assert_allclose(ad.grad(f)(np.array([1.0, 5.0])), [1.0, 2.0])


def test_view_kind_marks_numpy_views() -> None:
    """A write into the result of a function of kind ``"view"`` (``np.reshape``, ``x.ravel()``)
    is refused; ``x.flatten()`` copies, so writing into it is recorded."""
    for fn in (np.reshape, np.ravel, np.transpose, np.moveaxis, np.real):
        assert registry.entry_of(fn).kind == "view", fn  # type: ignore[union-attr]

    def write_into_view(x: Any) -> Any:
        v = x.ravel()
        v[0] = 0.0
        return v.sum()

    with pytest.raises(TypeError, match="view"):
        ad.grad(write_into_view)(np.array([1.0, 2.0]))

    def write_into_copy(x: Any) -> Any:
        v = x.flatten()
        v[0] = 0.0
        return (v * x).sum()

    np.testing.assert_allclose(ad.grad(write_into_copy)(np.array([1.0, 2.0])), [0.0, 4.0])


def test_write_kind_is_refused_naming_the_call_and_the_line() -> None:
    """Campaign seeds 4027, 4149, 4189, 4811 (about 60 cells over seeds 4000-7999): NumPy's
    full_like dispatches on its first argument only, so with a traced fill_value it runs its own
    body and calls np.copyto(plain, traced), which the engine reported as "no rrule is registered
    for numpy.copyto ... Register one". copyto and putmask only write in place: they are of kind
    "write", refused with an error that names the call, the user's line and what to write
    instead. A user's function declared so is refused the same way."""
    for fn in (np.copyto, np.putmask):
        assert registry.entry_of(fn).kind == "write", fn  # type: ignore[union-attr]
    a = np.zeros(3)

    def filled(f: Any) -> Any:
        return np.sum(np.full_like(a, f))  # the line the error names

    with pytest.raises(
        TypeError,
        match=(
            r"numpy\.copyto, called at .*test_registration_kinds\.py:\d+ "
            r"\(return np\.sum\(np\.full_like\(a, f\)\)"
        ),
    ) as info:
        ad.grad(filled)(1.0)
    assert "fill_value * np.ones_like(a)" in str(info.value)
    np.testing.assert_allclose(ad.grad(lambda f: np.sum(f * np.ones_like(a)))(1.0), 3.0)

    def masked(x: Any) -> Any:
        out = np.zeros(3)
        np.putmask(out, np.array([True, False, True]), x)
        return np.sum(out)

    with pytest.raises(TypeError, match=r"numpy\.putmask, called at"):
        ad.grad(masked)(np.ones(3))

    @cr.traceable
    def fill_in(dst: Any, src: Any) -> None:
        dst[...] = src

    cr.register_kind(fill_in, kind="write")
    try:
        with pytest.raises(TypeError, match=r"fill_in, called at .* writes a traced array"):
            ad.grad(lambda x: (fill_in(np.zeros(2), x), x.sum())[1])(np.ones(2))
    finally:
        registry.unregister(fill_in)


def test_kind_is_checked_at_registration() -> None:
    def f(x: Any) -> Any:
        return x

    with pytest.raises(TypeError, match=r"kind='constnat' is not a kind of function"):
        cr.register_kind(f, kind="constnat")
    with pytest.raises(TypeError, match="kind="):
        cr.register_rrule(f, kind="views")(lambda x: (x, None))


def test_kind_follows_the_registration_of_highest_precedence() -> None:
    """A user's rule registered for the function object itself overrides the library's named
    registration, kind included: ``np.equal`` with a user's rule is differentiated by it."""
    assert registry.entry_of(np.equal).constant  # type: ignore[union-attr]
    calls: list[str] = []

    @cr.register_rrule(np.equal)
    def equal_rrule(a: Any, b: Any) -> Any:
        calls.append("rrule")
        return a - b, lambda y_bar: (cr.NoTangent(), y_bar, -y_bar)

    assert not registry.entry_of(np.equal).constant  # type: ignore[union-attr]
    g = ad.grad(lambda x: np.equal(x, 1.0).sum())(np.array([1.0, 5.0]))
    np.testing.assert_allclose(g, [1.0, 1.0])
    assert calls == ["rrule"]


def test_kind_only_declarations_are_not_listed_as_rules() -> None:
    def f(x: Any) -> Any:
        return x

    cr.register_kind(f, kind="constant")
    assert registry.registration_of(f) is not None
    assert all(r.target is not f for r in cr.registrations())


# --- the library's registrations declare the kinds the lists used to give ------------------------
_EXPECTED = {
    **dict.fromkeys(CONSTANT, "constant"),
    **dict.fromkeys("can_cast finfo iinfo isdtype result_type".split(), "metadata"),
    **dict.fromkeys("iscomplexobj isrealobj ndim shape size".split(), "metadata"),
    **dict.fromkeys(LIKE, "like"),
    **dict.fromkeys(CREATION, "creation"),
    **dict.fromkeys(SEQUENCE, "sequence"),
    **dict.fromkeys("ix_ lexsort".split(), "constant"),  # non-differentiable: their lists too
    **dict.fromkeys("unique_all unique_counts unique_inverse unique_values".split(), None),
    "asarray": "conversion",
    # not "like" (a constant, as the old NONDIFF_NAMES never made it): its fill_value carries a
    # derivative, which the differential campaign found lost (seeds 718, 789, 928)
    "full_like": "creation",
}


def _modules() -> list[tuple[str, Any]]:
    import array_api_compat.numpy as compat_numpy
    import array_api_strict

    return [("numpy", np), ("array_api_compat.numpy", compat_numpy), ("strict", array_api_strict)]


@pytest.mark.parametrize("name", sorted(_EXPECTED))
def test_library_functions_declare_their_kind(name: str) -> None:
    """Each library's function of an old list's name has its kind from its registration (torch's
    and the others' are resolved the same way, by name, when the rules are registered)."""
    found = 0
    for label, mod in _modules():
        fn = getattr(mod, name, None)
        if fn is None:
            continue
        e = registry.entry_of(fn)
        assert e is not None, f"{label}.{name} has no registration"
        assert e.kind == _EXPECTED[name], f"{label}.{name}: kind {e.kind!r}"
        found += 1
    if name in ("multi_dot", "odeint"):
        import scipy.integrate

        fn = np.linalg.multi_dot if name == "multi_dot" else scipy.integrate.odeint
        assert registry.entry_of(fn).kind == "sequence"  # type: ignore[union-attr]
        found += 1
    assert found


@pytest.mark.parametrize("name", VIEW)
def test_numpy_view_functions_declare_view(name: str) -> None:
    assert registry.entry_of(getattr(np, name)).kind == "view"  # type: ignore[union-attr]


# --- no decision keyed by a name, in the engine's source -----------------------------------------
_AD = pathlib.Path(ad.__file__).parent
_NAME_ATTRS = ("__name__", "__qualname__", "__module__")


def _reads_name(node: ast.AST, tainted: set[str], types_: set[str]) -> bool:
    """``node`` reads a function's ``__name__``/``__qualname__``/``__module__`` (directly, by
    ``getattr``, or through a variable assigned one), or a type's name; the module of a type
    (``type(x).__module__``: which library's array ``x`` is) is not a function's name."""
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and n.attr in _NAME_ATTRS:
            v = n.value
            of_type = (isinstance(v, ast.Call) and getattr(v.func, "id", None) == "type") or (
                isinstance(v, ast.Name) and v.id in types_
            )
            if of_type and n.attr == "__module__":
                continue  # type(x).__module__: which library's array x is
            return True
        if (
            isinstance(n, ast.Call)
            and getattr(n.func, "id", None) == "getattr"
            and len(n.args) >= 2
            and isinstance(n.args[1], ast.Constant)
            and n.args[1].value in _NAME_ATTRS
        ):
            return True
        if isinstance(n, ast.Name) and n.id in tainted:
            return True
    return False


def _scope(node: ast.AST) -> list[ast.AST]:
    """The nodes of one scope (a module's or a function's), nested functions left out."""
    out: list[ast.AST] = []
    todo = list(ast.iter_child_nodes(node))
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        out.append(n)
        todo.extend(ast.iter_child_nodes(n))
    return out


def _name_decisions(tree: ast.AST) -> list[int]:
    """Lines where a comparison, a membership test or a prefix test reads a name."""
    bad = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.Module, ast.FunctionDef, ast.Lambda)):
            continue
        tainted: set[str] = set()
        types_: set[str] = set()
        nodes = _scope(fn)
        for n in sorted((n for n in nodes if isinstance(n, ast.Assign)), key=lambda n: n.lineno):
            if len(n.targets) == 1:
                t = n.targets[0]
                if isinstance(t, ast.Name):
                    v = n.value
                    if isinstance(v, ast.Call) and getattr(v.func, "id", None) == "type":
                        types_.add(t.id)
                    elif _reads_name(v, tainted, types_):
                        tainted.add(t.id)
        for n in nodes:
            if (
                isinstance(n, ast.Compare)
                and any(_reads_name(e, tainted, types_) for e in (n.left, *n.comparators))
            ) or (
                isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and n.func.attr in ("startswith", "endswith")
                and _reads_name(n.func.value, tainted, types_)
            ):
                bad.append(n.lineno)
    return sorted(set(bad))


@pytest.mark.parametrize("path", sorted(_AD.glob("*.py")), ids=lambda p: p.name)
def test_engine_source_has_no_name_lists_or_name_decisions(path: pathlib.Path) -> None:
    src = path.read_text()
    tree = ast.parse(src)
    idents = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    idents |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    idents |= {
        t.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name)
    }
    idents |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert not idents & set(OLD_LISTS), sorted(idents & set(OLD_LISTS))
    assert '"ufunc"' not in src and "'ufunc'" not in src
    lines = _name_decisions(tree)
    assert not lines, [f"{path.name}:{i}: {src.splitlines()[i - 1].strip()}" for i in lines]


def test_static_check_finds_the_old_decisions() -> None:
    """The check above flags what the engine used to do (so it would catch it again)."""
    old = """
def lookup_rule(fn):
    name = getattr(fn, "__name__", "")
    if name in NONDIFF:
        return None

def _numpy_like(fn):
    mod = getattr(fn, "__module__", None) or ""
    if type(fn).__name__ == "ufunc":
        return True
    return mod.split(".")[0] in ("numpy", "scipy")

def tracer_class(x):
    t = type(x)
    mod = t.__module__
    return mod == "numpy"
"""
    lines = _name_decisions(ast.parse(old))
    assert lines == [4, 9, 11]


def test_full_like_fill_value_is_differentiated() -> None:
    """Regression (differential campaign, seed 789: full_like with a traced fill_value gave a zero
    gradient once full_like was declared a constant "like" function)."""
    import array_api_compat

    for spell in ("numpy", "namespace"):

        def f(c: np.ndarray, spell: str = spell) -> object:
            like = c * np.ones(3)
            if spell == "numpy":
                return np.sum(np.full_like(like, c) ** 2)
            return np.sum(array_api_compat.array_namespace(c).full_like(like, c) ** 2)

        np.testing.assert_allclose(ad.grad(f)(np.array(2.0)), 12.0)


def test_cast_kind_returns_the_argument_itself() -> None:
    """``astype(x, x.dtype, copy=False)`` returns ``x`` itself: declared on the registration
    (kind ``"cast"``), read for NumPy's function, the standard's and the method alike, so a
    write into the result is a write into ``x`` (no name decides it)."""
    import array_api_compat.numpy as cnp

    for fn in (np.astype, cnp.astype):
        assert registry.entry_of(fn).kind == "cast", fn  # type: ignore[union-attr]

    def write_through(x: Any) -> Any:
        y = x * 1.0
        for alias in (np.astype(y, y.dtype, copy=False), y.astype(y.dtype, copy=False)):
            alias[0] = 0.0  # a write into y
        return (y * x).sum()

    np.testing.assert_allclose(ad.grad(write_through)(np.array([1.0, 2.0])), [0.0, 4.0])


def test_rule_of_a_function_given_to_a_transformation_does_not_depend_on_its_module(
    clean_registry: object,
) -> None:
    """Regression (issue 26, item 4): whether a plain function's registered rule was noticed
    depended on its ``__module__`` (functions whose module began with a library's name, numpy,
    scipy, ..., were skipped). Now nothing is keyed by a name: the function given to a
    transformation uses its own rule (a marked 3x) whatever ``__module__`` it reports."""
    x = np.array([0.5, 1.0])

    for module in ("scipy.special._user_like", "numpy.linalg", __name__):

        def body(x: Any) -> Any:
            return np.sum(np.sin(x))

        body.__module__ = module

        def _rrule(x: Any) -> Any:
            return body(x), lambda g: (cr.NoTangent(), 3 * g * np.cos(x))

        cr.register_rrule(body)(_rrule)
        np.testing.assert_allclose(ad.grad(body)(x), 3 * np.cos(x), rtol=1e-12)


def _creation_cases() -> list[Any]:
    from chainrules.testing import examples_for

    out = []
    for reg in registry.registrations():
        if reg.meta.get("kind") != "creation" or reg.family != "array_api":
            continue
        for k, e in enumerate(examples_for(reg)):
            floats = [
                i
                for i, a in enumerate(e.args)
                if isinstance(a, np.ndarray) and a.dtype.kind == "f" and a.ndim == 0
            ]
            if floats and not e.kwargs:
                out.append(pytest.param(reg.name, e.args, floats, id=f"{reg.name}-{k}"))
    return out


@pytest.mark.parametrize(("name", "args", "floats"), _creation_cases())
def test_creation_with_a_traced_argument_uses_its_rules(name: str, args: Any, floats: Any) -> None:
    """Regression (issue 26, found by the campaign's device cells): a function of kind
    ``"creation"`` reached through the traced namespace made a created array whatever its
    arguments, so ``xp.full(shape, traced_fill)`` handed the tracer to the library's own function
    (a host read on a device, ``copyto`` on NumPy). With a traced argument it goes to its rules;
    each 0-d floating argument's derivative agrees with finite differences."""
    import array_api_compat

    def f(v: Any, i: int) -> Any:
        xs = list(args)
        xs[i] = v
        xp = array_api_compat.array_namespace(v)
        y = getattr(xp, name)(*xs)
        n = int(np.prod(y.shape))
        w = xp.cos(xp.reshape(xp.astype(xp.arange(n), y.dtype), y.shape))  # a weight per entry
        return xp.sum(y * w)

    for i in floats:
        g = ad.grad(lambda v, i=i: f(v, i))(args[i])
        h = 1e-6
        fd = (f(np.asarray(args[i] + h), i) - f(np.asarray(args[i] - h), i)) / (2 * h)
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)


# --- zero derivative: a constant to the engine ----------------------------------------------------
_ZERO_CALLS: list[str] = []


def _staircase(x: Any) -> Any:
    return np.floor(2.0 * x) / 2.0


@cr.register_rrule(_staircase, zero_derivative=True)
def _staircase_rrule(x: Any) -> Any:
    _ZERO_CALLS.append("rrule")
    return _staircase(x), lambda g: (cr.NoTangent(), cr.ZeroTangent())


@cr.register_frule(_staircase, zero_derivative=True)
def _staircase_frule(tangents: Any, x: Any) -> Any:
    _ZERO_CALLS.append("frule")
    return _staircase(x), cr.ZeroTangent()


def test_zero_derivative_functions_are_constants_to_the_engine() -> None:
    # the registration's zero_derivative (zero_derivative(), scalar_rule with every partial 0,
    # or a user's register_rrule(..., zero_derivative=True)) makes the call a constant: its rules
    # are never called, and nothing depending on its result alone is taped
    from chainrules.core.registry import registration_of

    for f in (np.round, np.rint, np.fix, np.floor, np.ceil, np.trunc, np.spacing, _staircase):
        reg = registration_of(f)
        assert reg is not None and reg.zero_derivative, f
        assert registry.entry_of(f).constant, f
    for f in (np.sin, np.sign, np.abs, np.nextafter):  # sign: complex sign is differentiable
        assert not registry.entry_of(f).constant, f
    staircase = cr.traceable(_staircase)
    x = np.array([0.3, 0.8, 1.4])

    def loss(x: Any) -> Any:
        s = staircase(x) + np.round(x) + np.floor(x)
        return np.sum(s * x + s**2)  # d/dx = s: the rounded parts are constants

    s = _staircase(x) + np.round(x) + np.floor(x)
    del _ZERO_CALLS[:]
    np.testing.assert_allclose(ad.grad(loss)(x), s)
    np.testing.assert_allclose(ad.hessian(loss)(x), np.zeros((3, 3)))
    np.testing.assert_allclose(ad.jvp(loss, (x,), (np.ones(3),))[1], np.sum(s))
    np.testing.assert_allclose(ad.jacobian(lambda x: np.round(x) * x)(x), np.diag(np.round(x)))
    assert _ZERO_CALLS == []  # the rules were never called
    # a program whose output is the rounded value alone: zero derivatives, not an error
    np.testing.assert_array_equal(ad.grad(lambda x: np.sum(np.round(x)))(x), np.zeros(3))
    np.testing.assert_array_equal(ad.jacobian(np.floor)(x), np.zeros((3, 3)))
    _, pb = ad.vjp(np.ceil, x)
    np.testing.assert_array_equal(pb(np.ones(3))[0], np.zeros(3))
    # the rules themselves keep their convention (ZeroTangent, docs/conventions.md)
    assert isinstance(cr.rrule(np.round, x)[1](np.ones(3))[1], cr.ZeroTangent)


# --- linear functions: a Hessian pulls tangents back through the pullback built on the values ----
_LINEAR_SEEN: list[type] = []


def _mix(x: Any) -> Any:
    """A linear map of a vector: the differences of neighbours, and the first entry."""
    return np.concatenate([x[1:] - x[:-1], x[:1]])


def _mix_pullback_of(n: int) -> Any:
    def mix_pullback(g: Any, chunk: int = 0) -> Any:  # along the last axis: chunks too
        zero, d, last = 0.0 * g[..., :1], g[..., : n - 1], g[..., n - 1 :]
        out = np.concatenate([zero, d], axis=-1) - np.concatenate([d, zero], axis=-1)
        return cr.NoTangent(), out + np.concatenate([last, 0.0 * d], axis=-1)

    return mix_pullback


@cr.register_rrule(_mix, linear=True)
def _mix_rrule(x: Any) -> Any:
    _LINEAR_SEEN.append(type(x))
    return _mix(x), _mix_pullback_of(x.shape[-1])


@cr.register_frule(_mix, linear=True)
def _mix_frule(tangents: Any, x: Any) -> Any:
    t = tangents[1]
    return _mix(x), (t if isinstance(t, cr.AbstractZero) else _mix_along(t))


def _mix_along(t: Any) -> Any:  # the same map along the last axis (a chunk of tangents)
    return np.concatenate([t[..., 1:] - t[..., :-1], t[..., :1]], axis=-1)


@pytest.mark.parametrize("n", [3, 40])  # 40: a chunk longer than LINEAR_ROWS
@pytest.mark.parametrize("chunked", [False, True])
def test_a_hessian_pulls_tangents_through_a_linear_functions_pullback(
    clean_registry: Any, n: int, chunked: bool
) -> None:
    # a function registered linear=True: in a Hessian's reverse pass over forward tracers its
    # rrule is called on the values under the tracers (its pullback is the same along every
    # forward direction), and the Hessian is the one reverse-over-reverse gives
    from chainrules.ad._reverse import LINEAR_ROWS

    assert (n > LINEAR_ROWS) == (n == 40)
    if chunked:
        cr.register_rrule(_mix, linear=True, chunked_pullback=True)(_mix_rrule)
    mix = cr.traceable(_mix)
    x = np.linspace(-1.0, 1.3, n)

    def loss(x: Any) -> Any:
        y = mix(np.sin(x) * x)
        return np.sum(np.cos(y) * y) + y[0] * y[-1] + x[1] ** 3

    del _LINEAR_SEEN[:]
    h = ad.hessian(loss)(x)
    if chunked or n <= LINEAR_ROWS:  # never a tracer
        assert _LINEAR_SEEN and all(t is np.ndarray for t in _LINEAR_SEEN)
    else:  # on the values, and then, for a chunk of 40 tangents, traced on the forward tracers
        assert (
            _LINEAR_SEEN[0] is np.ndarray and _LINEAR_SEEN[1:] and _LINEAR_SEEN[1] is not np.ndarray
        )
    want = ad.jacobian(ad.grad(loss), mode="rev")(x)
    np.testing.assert_allclose(h, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(h, h.T, rtol=1e-12, atol=1e-12)
    # and the gradient, where no forward tracer is involved, is the plain one
    step = 1e-6 * np.eye(n)
    g = ad.grad(loss)
    fd = np.stack([(g(x + e) - g(x - e)) / 2e-6 for e in step])
    np.testing.assert_allclose(h, fd, rtol=1e-5, atol=1e-6)


def test_getitem_is_declared_linear_and_its_hessian_agrees() -> None:
    # operator.getitem's registration says linear=True: x[i] in a Hessian takes the lift
    import operator

    assert registry.entry_of(operator.getitem).linear
    x = np.array([0.3, -0.7, 1.1])

    def camel(x: Any) -> Any:
        return 2 * x[0] ** 2 - 1.05 * x[0] ** 4 + x[0] ** 6 / 6 + x[0] * x[1] + x[1:] @ x[1:]

    want = ad.jacobian(ad.grad(camel), mode="rev")(x)
    np.testing.assert_allclose(ad.hessian(camel)(x), want, rtol=1e-12, atol=1e-12)
