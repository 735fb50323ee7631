"""Issue 26: a ``@chainrules.traceable`` function whose traced arrays sit in a pytree (a dict, a
nested tuple or list, a named tuple) or in keyword arguments only is differentiated by its
registered rules in every transformation of ``chainrules.ad`` -- it ran its body silently.

Every call kind computes ``y = sin(a) * b + cos(c)`` from three arrays ``a, b, c`` placed in a
different structure. Its rules give ``scale`` times the true derivative: with ``scale=1`` the
engine's result must equal finite differences of the body (the rule is exact, and the engine
assembles the leaves' cotangents and tangents right); with ``scale=3`` it must be 3x them, which
only the rule gives (the body's derivative is 1x). Both are also compared with the rule's own
value, its pullback and pushforward called directly with ``chainrules.rrule`` / ``frule``.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.testing.finite_differences import central_difference

_NO = cr.NoTangent()
_ZERO = cr.ZeroTangent()
P = namedtuple("P", ["a", "bc"])
N = 2  # the length of each of a, b, c
_V = np.array([0.3, -0.7, 1.1, 0.4, -0.2, 0.9])  # (a, b, c) flattened
_W = np.array([0.6, -1.3])  # the weights of the scalar program L = sum(W * y)
_T = np.array([0.5, -0.4, 0.8, 0.3, -0.6, 0.2])  # a direction for jvp


def _math(a: Any, b: Any, c: Any) -> Any:
    xp = cr.namespace_of(a, b, c)
    return xp.sin(a) * b + xp.cos(c)


def _at(t: Any, key: Any) -> Any:
    """Element ``key`` of an argument or of its (structural) tangent; a zero stays a zero."""
    t = cr.unthunk(t)
    return t if isinstance(t, cr.AbstractZero) else t[key]


def _attr(t: Any, name: str) -> Any:
    """Field ``name`` of a named tuple or of its tangent (by field or by position)."""
    t = cr.unthunk(t)
    return t if isinstance(t, cr.AbstractZero) else getattr(t, name)


def _dot(t: Any) -> Any:
    t = cr.unthunk(t)
    return None if isinstance(t, cr.AbstractZero) else t


@dataclass(frozen=True)
class Kind:
    """Where a call puts ``a, b, c``: ``call(f, a, b, c)`` is the user's call; ``positional``
    the same arguments as a rule receives them; ``unpack`` reads ``(a, b, c)`` back out of them
    (or out of their tangents); ``pack`` builds the structural cotangents of the arguments."""

    call: Callable[..., Any]
    positional: Callable[..., tuple[Any, ...]]
    unpack: Callable[[tuple[Any, ...]], tuple[Any, Any, Any]]
    pack: Callable[[Any, Any, Any], tuple[Any, ...]]
    nargs: int


KINDS = {
    "dict": Kind(
        call=lambda f, a, b, c: f({"a": a, "t": (b, c)}),
        positional=lambda a, b, c: ({"a": a, "t": (b, c)},),
        unpack=lambda s: (
            _at(s[0], "a"),
            _at(_at(s[0], "t"), 0),
            _at(_at(s[0], "t"), 1),
        ),
        pack=lambda da, db, dc: (cr.Tangent(a=da, t=cr.Tangent(db, dc)),),
        nargs=1,
    ),
    "nested tuple": Kind(
        call=lambda f, a, b, c: f(((a, b), [c])),
        positional=lambda a, b, c: (((a, b), [c]),),
        unpack=lambda s: (
            _at(_at(s[0], 0), 0),
            _at(_at(s[0], 0), 1),
            _at(_at(s[0], 1), 0),
        ),
        pack=lambda da, db, dc: (cr.Tangent(cr.Tangent(da, db), cr.Tangent(dc)),),
        nargs=1,
    ),
    "named tuple": Kind(
        call=lambda f, a, b, c: f(P(a, (b, c))),
        positional=lambda a, b, c: (P(a, (b, c)),),
        unpack=lambda s: (
            _attr(s[0], "a"),
            _at(_attr(s[0], "bc"), 0),
            _at(_attr(s[0], "bc"), 1),
        ),
        pack=lambda da, db, dc: (cr.Tangent(a=da, bc=cr.Tangent(db, dc), primal_type=P),),
        nargs=1,
    ),
    "keywords-only": Kind(
        call=lambda f, a, b, c: f(a=a, b=b, c=c),
        positional=lambda a, b, c: (a, b, c),
        unpack=lambda s: (s[0], s[1], s[2]),
        pack=lambda da, db, dc: (da, db, dc),
        nargs=3,
    ),
    "mixed": Kind(  # a positional array, a dict, and an array by keyword
        call=lambda f, a, b, c: f(a, {"b": b}, c=c),
        positional=lambda a, b, c: (a, {"b": b}, c),
        unpack=lambda s: (s[0], _at(s[1], "b"), s[2]),
        pack=lambda da, db, dc: (da, cr.Tangent(b=db), dc),
        nargs=3,
    ),
}
SCALES = (1, 3)


def _traceable(kind: Kind) -> Any:
    """A new traceable function of ``kind``'s signature computing ``_math``."""
    if kind.nargs == 1:

        def body1(p: Any) -> Any:
            return _math(*kind.unpack((p,)))

        return cr.traceable(body1)
    if kind is KINDS["mixed"]:

        def body_mixed(a: Any, p: Any, c: Any) -> Any:
            return _math(*kind.unpack((a, p, c)))

        return cr.traceable(body_mixed)

    def body3(a: Any, b: Any, c: Any) -> Any:
        return _math(*kind.unpack((a, b, c)))

    return cr.traceable(body3)


def _with_rules(kind: Kind, scale: int) -> Any:
    """A traceable function of ``kind`` whose rrule and frule give ``scale`` x the derivative,
    written with the namespace's functions (so a Hessian is ``scale`` x the true one)."""
    f = _traceable(kind)

    @cr.register_rrule(f)
    def _rrule(*args: Any) -> Any:
        a, b, c = kind.unpack(args)
        xp = cr.namespace_of(a, b, c)

        def pytree_pullback(g: Any) -> Any:
            g = _dot(g)
            if g is None:
                return (_NO,) + (_ZERO,) * len(args)
            da = scale * (g * xp.cos(a) * b)
            db = scale * (g * xp.sin(a))
            dc = scale * (-g * xp.sin(c))
            return (_NO, *kind.pack(da, db, dc))

        return _math(a, b, c), pytree_pullback

    @cr.register_frule(f)
    def _frule(tangents: Any, *args: Any) -> Any:
        a, b, c = kind.unpack(args)
        xp = cr.namespace_of(a, b, c)
        ta, tb, tc = (_dot(t) for t in kind.unpack(tuple(tangents[1:])))
        terms = [
            None if ta is None else xp.cos(a) * b * ta,
            None if tb is None else xp.sin(a) * tb,
            None if tc is None else -xp.sin(c) * tc,
        ]
        present = [t for t in terms if t is not None]
        if not present:
            return _math(a, b, c), _ZERO
        out = present[0]
        for t in present[1:]:
            out = out + t
        return _math(a, b, c), scale * out

    return f


FUNCTIONS = {(k, s): _with_rules(kind, s) for k, kind in KINDS.items() for s in SCALES}


def _abc(v: Any) -> tuple[Any, Any, Any]:
    return v[0:N], v[N : 2 * N], v[2 * N : 3 * N]


def _programs(kind: str, scale: int) -> tuple[Any, Any]:
    f, k = FUNCTIONS[kind, scale], KINDS[kind]

    def F(v: Any) -> Any:
        return k.call(f, *_abc(v))

    def L(v: Any) -> Any:
        return np.sum(_W * F(v))

    return F, L


def _body_programs(kind: str) -> tuple[Any, Any]:
    def F(v: Any) -> Any:
        return _math(*_abc(v))

    return F, lambda v: np.sum(_W * F(v))


# --- references: finite differences of the body, and the rule called directly ----------------


def _fd_grad(L: Any, v: Any) -> Any:
    return np.array([central_difference(lambda s, e=e: L(v + s * e), 1e-3).real for e in np.eye(6)])


def _fd_jac(F: Any, v: Any) -> Any:
    cols = [central_difference(lambda s, e=e: F(v + s * e), 1e-3).real for e in np.eye(6)]
    return np.stack(cols, axis=-1)


def _rule_pullback(kind: str, scale: int, v: Any, w: Any) -> Any:
    """The rule's own cotangent of ``v`` for the output cotangent ``w`` (``chainrules.rrule``)."""
    k = KINDS[kind]
    args = k.positional(*_abc(v))
    _, pb = cr.rrule(FUNCTIONS[kind, scale], *args)
    cts = pb(w)
    assert isinstance(cts[0], cr.NoTangent)
    return np.concatenate([np.asarray(_dot(t)) for t in k.unpack(tuple(cts[1:]))])


def _rule_pushforward(kind: str, scale: int, v: Any, t: Any) -> Any:
    k = KINDS[kind]
    args = k.positional(*_abc(v))
    tans = k.pack(*_abc(t))
    _, y_dot = cr.frule((_NO, *tans), FUNCTIONS[kind, scale], *args)
    return np.asarray(y_dot)


def _rule_jac(kind: str, scale: int, v: Any) -> Any:
    return np.stack([_rule_pullback(kind, scale, v, e) for e in np.eye(N)])


def _rule_hess(kind: str, scale: int, v: Any) -> Any:
    """Finite differences of the rule's own gradient (its pullback of the weights)."""
    return np.stack(
        [
            central_difference(lambda s, e=e: _rule_pullback(kind, scale, v + s * e, _W), 1e-3).real
            for e in np.eye(6)
        ],
        axis=-1,
    )


# --- the transformations: (engine's value, FD of the body, the rule's own value) ---------------


def _grad(kind: str, scale: int) -> tuple[Any, Any, Any]:
    _, L = _programs(kind, scale)
    return (
        ad.grad(L)(_V),
        _fd_grad(_body_programs(kind)[1], _V),
        _rule_pullback(kind, scale, _V, _W),
    )


def _vjp(kind: str, scale: int) -> tuple[Any, Any, Any]:
    F, _ = _programs(kind, scale)
    _, pb = ad.vjp(F, _V)
    (g,) = pb(_W)
    return g, _fd_grad(_body_programs(kind)[1], _V), _rule_pullback(kind, scale, _V, _W)


def _jvp(kind: str, scale: int) -> tuple[Any, Any, Any]:
    F, _ = _programs(kind, scale)
    _, t = ad.jvp(F, (_V,), (_T,))
    fd = central_difference(lambda s: _body_programs(kind)[0](_V + s * _T), 1e-3).real
    return t, fd, _rule_pushforward(kind, scale, _V, _T)


def _jacobian(mode: str) -> Callable[[str, int], tuple[Any, Any, Any]]:
    def run(kind: str, scale: int) -> tuple[Any, Any, Any]:
        F, _ = _programs(kind, scale)
        J = ad.jacobian(F, mode=mode)(_V)
        return J, _fd_jac(_body_programs(kind)[0], _V), _rule_jac(kind, scale, _V)

    return run


def _hessian(kind: str, scale: int) -> tuple[Any, Any, Any]:
    _, L = _programs(kind, scale)
    fd = _fd_jac(lambda v: _fd_grad(_body_programs(kind)[1], v), _V)
    return ad.hessian(L)(_V), fd, _rule_hess(kind, scale, _V)


def _jacobian_of_grad(mode: str) -> Callable[[str, int], tuple[Any, Any, Any]]:
    def run(kind: str, scale: int) -> tuple[Any, Any, Any]:
        _, L = _programs(kind, scale)
        fd = _fd_jac(lambda v: _fd_grad(_body_programs(kind)[1], v), _V)
        return ad.jacobian(ad.grad(L), mode=mode)(_V), fd, _rule_hess(kind, scale, _V)

    return run


TRANSFORMS = {
    "grad": _grad,
    "vjp": _vjp,
    "jvp": _jvp,
    "jacobian(rev)": _jacobian("rev"),
    "jacobian(fwd)": _jacobian("fwd"),
    "hessian": _hessian,
    "jacobian(grad, fwd)": _jacobian_of_grad("fwd"),
    "jacobian(grad, rev)": _jacobian_of_grad("rev"),
}
SECOND_ORDER = {"hessian", "jacobian(grad, fwd)", "jacobian(grad, rev)"}


@pytest.mark.parametrize("transform", list(TRANSFORMS))
@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("kind", list(KINDS))
def test_traceable_pytree_and_keyword_calls_ran_the_body_silently(
    kind: str, scale: int, transform: str
) -> None:
    """The regression of the defect, over every call kind and transformation: the engine's
    derivative is the rule's (``scale`` x the body's), never the body's."""
    got, fd_body, rule = TRANSFORMS[transform](kind, scale)
    got = np.asarray(got)
    # finite differences of a zero entry leave rounding noise (1e-14): an absolute tolerance
    tol = (
        {"rtol": 1e-6, "atol": 1e-7} if transform in SECOND_ORDER else {"rtol": 1e-9, "atol": 1e-12}
    )
    np.testing.assert_allclose(got, scale * fd_body, **tol)
    np.testing.assert_allclose(got, rule, **tol)
    if scale != 1:  # the body's derivative is a different number: the check can tell them apart
        assert not np.allclose(got, fd_body, rtol=1e-3)


def test_issue_26_dict_argument_reproducer() -> None:
    """The issue's reproducer: ``f({'w': x})`` gave the body's derivative cos(x), not 3 cos(x)."""

    @cr.traceable
    def f(p: Any) -> Any:
        return np.sin(p["w"])

    @cr.register_rrule(f)
    def _f_rrule(p: Any) -> Any:
        y = np.sin(p["w"])
        return y, lambda g: (cr.NoTangent(), cr.Tangent(w=3 * g * np.cos(p["w"])))

    x = np.array([0.5, 1.0])
    got = ad.grad(lambda x: np.sum(f({"w": x})))(x)
    _, pb = cr.rrule(f, {"w": x})
    np.testing.assert_allclose(got, pb(np.ones(2))[1]["w"], rtol=1e-12)
    fd = _fd_grad_n(lambda x: np.sum(np.sin(x)), x)
    np.testing.assert_allclose(got, 3 * fd, rtol=1e-9)


def _fd_grad_n(L: Any, v: Any) -> Any:
    eye = np.eye(v.size)
    return np.array([central_difference(lambda s, e=e: L(v + s * e), 1e-3).real for e in eye])


# --- keyword-only parameters: the rule is used when the keyword is not differentiated; a clear
# error (naming the function and the argument) when it is ----------------------------------------


@cr.traceable
def scaled_sin(a: Any, *, c: Any) -> Any:
    return np.sin(a) * c


@cr.register_rrule(scaled_sin)
def _scaled_sin_rrule(a: Any, *, c: Any) -> Any:
    def scaled_sin_pullback(g: Any) -> Any:
        return _NO, 3 * g * np.cos(a) * c

    return np.sin(a) * c, scaled_sin_pullback


@cr.register_frule(scaled_sin)
def _scaled_sin_frule(tangents: Any, a: Any, *, c: Any) -> Any:
    ta = _dot(tangents[1])
    return np.sin(a) * c, _ZERO if ta is None else 3 * np.cos(a) * c * ta


KEYWORD_TRANSFORMS: dict[str, Callable[[Any], Any]] = {
    "grad": lambda L: ad.grad(L)(_V[:N]),
    "jvp": lambda L: ad.jvp(L, (_V[:N],), (_T[:N],))[1],
    "jacobian(fwd)": lambda L: ad.jacobian(L, mode="fwd")(_V[:N]),
    "jacobian(rev)": lambda L: ad.jacobian(L, mode="rev")(_V[:N]),
    "hessian": lambda L: ad.hessian(L)(_V[:N]),
}


@pytest.mark.parametrize("transform", list(KEYWORD_TRANSFORMS))
def test_a_differentiated_keyword_only_argument_is_a_clear_error(transform: str) -> None:
    def L(a: Any) -> Any:
        return np.sum(scaled_sin(a, c={"k": a}["k"] * 2))

    with pytest.raises(TypeError, match=r"scaled_sin.*keyword argument 'c'.*positionally"):
        KEYWORD_TRANSFORMS[transform](L)


@pytest.mark.parametrize("transform", ["grad", "jvp", "jacobian(fwd)", "jacobian(rev)"])
def test_a_constant_keyword_only_argument_keeps_the_rule(transform: str) -> None:
    c = np.array([1.5, -0.5])

    def L(a: Any) -> Any:
        return np.sum(scaled_sin(a, c=c))

    got = np.asarray(KEYWORD_TRANSFORMS[transform](L))
    rule = 3 * np.cos(_V[:N]) * c  # the rule's derivative (3x the body's)
    want = {"grad": rule, "jvp": rule @ _T[:N]}.get(transform, rule)
    np.testing.assert_allclose(got, want, rtol=1e-12)


# --- data in the pytree beside the traced leaves, and a constant-kind function ----------------


@pytest.mark.parametrize("transform", ["grad", "jacobian(fwd)", "hessian"])
def test_data_leaves_beside_traced_leaves_are_constants(transform: str) -> None:
    """Only ``a`` is differentiated; ``b`` and ``c`` are raw arrays in the same dict: the rule's
    derivative with respect to ``a`` (3x the body's), as when they are closed over."""
    f = FUNCTIONS["dict", 3]
    b, c = _V[N : 2 * N], _V[2 * N :]

    def L(a: Any) -> Any:
        return np.sum(_W * f({"a": a, "t": (b, c)}))

    a = _V[:N]
    got = {
        "grad": lambda: ad.grad(L)(a),
        "jacobian(fwd)": lambda: ad.jacobian(L, mode="fwd")(a),
        "hessian": lambda: ad.hessian(L)(a),
    }[transform]()
    fd_grad = _fd_grad_n(lambda a: np.sum(_W * _math(a, b, c)), a)
    if transform == "hessian":
        fd = np.stack(
            [
                central_difference(
                    lambda s, e=e: _fd_grad_n(lambda a: np.sum(_W * _math(a, b, c)), a + s * e),
                    1e-3,
                ).real
                for e in np.eye(N)
            ],
            axis=-1,
        )
        np.testing.assert_allclose(got, 3 * fd, rtol=1e-6, atol=1e-7)
    else:
        np.testing.assert_allclose(got, 3 * fd_grad, rtol=1e-9)


@cr.traceable
def n_positive(p: Any) -> Any:
    return np.sum(p["w"] > 0) * np.ones_like(p["w"])


cr.register_kind(n_positive, kind="constant")


@pytest.mark.parametrize("transform", ["grad", "jacobian(fwd)", "jacobian(rev)", "hessian"])
def test_a_constant_function_called_with_a_pytree_carries_no_derivative(transform: str) -> None:
    a = np.array([0.5, -1.0, 2.0])

    def L(x: Any) -> Any:
        return np.sum(x * n_positive({"w": x}))  # n_positive is 2 here: L = 2 sum(x)

    got = {
        "grad": lambda: ad.grad(L)(a),
        "jacobian(fwd)": lambda: ad.jacobian(L, mode="fwd")(a),
        "jacobian(rev)": lambda: ad.jacobian(L, mode="rev")(a),
        "hessian": lambda: ad.hessian(L)(a),
    }[transform]()
    want = np.zeros((3, 3)) if transform == "hessian" else _fd_grad_n(lambda x: 2 * np.sum(x), a)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_a_pytree_call_of_a_function_without_rules_names_it() -> None:
    @cr.traceable
    def ruleless(p: Any) -> Any:
        return np.sin(p["w"])

    with pytest.raises(cr.NoRuleError, match="ruleless"):
        ad.grad(lambda x: np.sum(ruleless({"w": x})))(_V[:N])


def test_tracers_of_two_levels_in_one_dict() -> None:
    """``a`` traced by the outer ``grad`` only, ``b`` and ``c`` by the inner one, in one dict:
    the inner flat call lifts ``a`` (a tracer of the outer trace) beside its own leaves, and the
    outer level differentiates the rule's pullback (3x the body's mixed derivative)."""
    f = FUNCTIONS["dict", 3]
    a0, bc0 = _V[:N], _V[N:]

    def inner(a: Any) -> Any:
        def L(bc: Any) -> Any:
            return np.sum(_W * f({"a": a, "t": (bc[:N], bc[N:])}))

        return np.sum(ad.grad(L)(bc0))

    def body_inner(a: Any) -> Any:
        return np.sum(_fd_grad_n(lambda bc: np.sum(_W * _math(a, bc[:N], bc[N:])), bc0))

    np.testing.assert_allclose(ad.grad(inner)(a0), 3 * _fd_grad_n(body_inner, a0), rtol=1e-6)


@cr.traceable
def chunked(p: Any) -> Any:
    return np.sin(p["w"]) * p["v"]


CHUNKS: list[int] = []


@cr.register_rrule(chunked, chunked_pullback=True)
def _chunked_rrule(p: Any) -> Any:
    w, v = p["w"], p["v"]

    def chunked_pullback(g: Any, chunk: int = 0) -> Any:
        CHUNKS.append(chunk)
        return _NO, cr.Tangent(w=3 * g * np.cos(w) * v, v=3 * g * np.sin(w))

    return np.sin(w) * v, chunked_pullback


def test_a_chunked_pullback_takes_the_chunk_through_a_pytree_call() -> None:
    """A rule registered with ``chunked_pullback=True`` gets the whole chunk of cotangents of
    ``jacobian(mode="rev")`` through the flat call (one call, leading axis kept)."""
    w, v = _V[:3], _V[3:]
    CHUNKS.clear()
    J = ad.jacobian(lambda w: chunked({"w": w, "v": v}), mode="rev")(w)
    assert CHUNKS == [1]
    fd = np.stack(
        [central_difference(lambda s, e=e: np.sin(w + s * e) * v, 1e-3).real for e in np.eye(3)],
        axis=-1,
    )
    np.testing.assert_allclose(J, 3 * fd, rtol=1e-9, atol=1e-12)
