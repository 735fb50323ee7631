"""Rules for NumPy's ``einsum`` and ``kron``.

Maths notes
-----------
* ``einsum`` (any subscripts: implicit or explicit output, ``...``, repeated indices within an
  operand, any number of operands, 0-d operands; NumPy's interleaved form ``einsum(a, [0, 1], b,
  [1, 2], [0, 2])`` is turned into the subscripts string by the binder): the cotangent of
  operand ``k`` is the einsum of ``y_bar`` with the other (conjugated) operands onto ``k``'s
  distinct indices; an index of ``k`` found nowhere else is broadcast back, and an index repeated
  within ``k`` (``'ii->i'``) is put back on the diagonal by contracting with identity matrices
  (``xp.eye``). An axis an operand was broadcast along (length 1 against a longer one) gets an
  index of its own, so it is summed away.
* ``kron``: ``y`` reshaped to interleaved axes ``(a0, b0, a1, b1, ...)`` is ``a * b`` there, so
  ``a_bar = einsum(y_bar, conj(b))`` over the ``b`` axes, and likewise for ``b``.

The family's conventions (complex adjoints, second derivatives, degenerate cases, layout) are
in the package docstring, :mod:`chainrules.rules.linear_algebra`.
"""

from __future__ import annotations

import functools
import math
import string
from collections.abc import Sequence
from typing import Any, NamedTuple

import array_api_compat
import numpy as np

from ...core.prelude import *
from .._util import conj, forced_like, lazy
from .._util.products import *

# --- einsum ---------------------------------------------------------------------------------------
_LETTERS = string.ascii_letters


_OPTIMIZE_FROM = 4096  # operand elements from which NumPy's contraction path pays


def einsum_optimize(xp: Any, elements: int | None = None) -> dict[str, Any]:
    """Keywords for ``xp.einsum`` in a pullback: NumPy and CuPy contract pairwise through BLAS
    only when asked (``optimize``) -- from about 4096 operand elements on (``elements``: their
    number, ``None`` for many), where the path's own cost (about 10 us of Python per call) is
    repaid (a 64 x 64 matrix product: 78 -> 21 us; at n = 10 the plain loop takes 2 us, the
    path 12); JAX and PyTorch optimise by default."""
    if array_api_compat.is_numpy_namespace(xp) or array_api_compat.is_cupy_namespace(xp):
        if elements is not None and elements < _OPTIMIZE_FROM:
            return {}
        return {"optimize": "greedy"}
    return {}


class _Letters:
    """A pool of einsum letters not used by the caller's subscripts."""

    def __init__(self, used: str) -> None:
        self.free = [c for c in _LETTERS if c not in used]

    def copy(self) -> _Letters:
        new = _Letters("")
        new.free = list(self.free)
        return new

    def take(self, what: str) -> str:
        if not self.free:
            raise ValueError(f"einsum: too many axes to name with letters ({what})")
        return self.free.pop(0)


def _einsum_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [
        (("ij,jk->ik", r((2, 3)), r((3, 4))), {}),
        (("ij,jk", r((2, 3)), r((3, 4))), {}),  # implicit output
        (("ij,jk,kl->il", r((2, 3)), r((3, 2)), r((2, 2))), {}),
        (("ii->i", r((3, 3))), {}),
        (("ii->", r((3, 3))), {}),
        (("ii", r((3, 3))), {}),
        (("iij->ji", r((2, 2, 3))), {}),
        (("ij->i", r((2, 3))), {}),  # an index of one operand only, summed
        (("i,i->", r(4), r(4)), {}),
        (("i,j->ij", r(2), r(3)), {}),
        (("...ij,...jk->...ik", r((2, 2, 3)), r((3, 2))), {}),
        (("b...i,...i->b...", r((2, 3, 4)), r((1, 4))), {}),  # a broadcast length-1 axis
        (("...", r((2, 3))), {}),
        ((",i->i", r(()), r(3)), {}),  # 0-d operands
        (("->", r(())), {}),
        (("ij,ij->", r((0, 3)), r((0, 3))), {}),  # zero-size
        (
            ("ij,jk->ik", r((2, 3)) + 1j * r((2, 3)), r((3, 2)) + 1j * r((3, 2))),
            {},
        ),
        (("ij,j->i", r((2, 3)), r(3) + 1j * r(3)), {}),
        # NumPy's interleaved form: operand, sublist, ..., output sublist
        ((r((2, 3)), [0, 1], r((3, 4)), [1, 2], [0, 2]), {}),
        ((r((2, 3)), [Ellipsis, 1], r(3), [1]), {}),  # implicit output
    ]


def _sublist_letter(i: Any) -> str:
    if i is Ellipsis:
        return "..."
    if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < 52:
        raise ValueError(
            f"einsum: a sublist holds ints in [0, 52) or Ellipsis, got {i!r} (the interleaved form)"
        )
    return chr(ord("A") + i) if i < 26 else chr(ord("a") + i - 26)  # NumPy's labels


def _sublist_subscripts(args: Sequence[Any]) -> str:
    """The subscripts string of NumPy's interleaved call ``einsum(op0, sublist0, op1,
    sublist1, ..., [sublist_out])``."""
    pairs = len(args) // 2
    subs = []
    for k in range(pairs):
        sub = args[2 * k + 1]
        if isinstance(sub, str) or not isinstance(sub, (list, tuple)):
            raise TypeError(
                f"einsum: in the interleaved form, argument {2 * k + 1} must be a sublist "
                f"(a list of ints), got {type(sub).__name__}"
            )
        subs.append("".join(map(_sublist_letter, sub)))
    out = ""
    if len(args) % 2:
        tail = args[-1]
        if not isinstance(tail, (list, tuple)):
            raise TypeError(
                f"einsum: the output sublist must be a list of ints, got {type(tail).__name__}"
            )
        out = "->" + "".join(map(_sublist_letter, tail))
    return ",".join(subs) + out


def _einsum_slots(args: Sequence[Any], n: int) -> list[int]:
    """The positions of the operands in the call: after the subscripts, or every other
    argument in the interleaved form."""
    if args and isinstance(args[0], str):
        return list(range(1, n + 1))
    return list(range(0, 2 * n, 2))


_UNSET: Any = object()  # optimize= not given: einsum is called without it


_EINSUM = signature("einsum", lambda subscripts, /, *operands, out=None, optimize=_UNSET: None)


def _einsum_call(args: Any, kwargs: Any) -> tuple[Any, ...]:
    """NumPy's ``einsum(subscripts, *operands)``, bound and normalised: every operand's axes
    named by one letter each (``...`` expanded, broadcast length-1 axes given letters of their
    own), the output's letters, every letter's length, and the pool of letters still free."""
    if not args:
        raise TypeError("einsum: expected the subscripts string and operands")
    if not isinstance(args[0], str):  # the interleaved form: op, sublist, op, sublist, [out]
        args = (_sublist_subscripts(args), *args[0::2][: len(args) // 2])
    if kwargs:
        p = _EINSUM.bind(args, kwargs)
        subscripts, originals = p["subscripts"], p["operands"]
        kw = {} if p["optimize"] is _UNSET else {"optimize": p["optimize"]}
    else:  # the common call: nothing to bind
        subscripts, originals, kw = args[0], args[1:], {}
    xp = namespace_of(*originals, fname="einsum")
    ops = arrays(xp, originals)
    shapes = tuple(tuple(op.shape) for op in ops)
    try:
        spec = _einsum_spec(subscripts, shapes)
    except TypeError:  # a shape that cannot be a key (torch.compile's symbolic sizes)
        spec = _einsum_spec.__wrapped__(subscripts, shapes)
    y = xp.einsum(subscripts, *ops, **kw)
    return xp, originals, ops, spec, y


@functools.lru_cache(maxsize=256)
def _einsum_spec(subscripts: str, shapes: tuple[tuple[int, ...], ...]) -> tuple[Any, ...]:
    """``(letters of each operand, the output's letters, {letter: length}, the free letters)``
    for ``subscripts`` over operands of ``shapes`` (see :func:`_einsum_call`); a function of its
    arguments only, kept per call structure (its users copy the pool before taking letters)."""
    subs = subscripts.replace(" ", "")
    ins, arrow, out = subs.partition("->")
    terms = ins.split(",")
    if len(terms) != len(shapes):
        raise ValueError(
            f"einsum: subscripts {subscripts!r} name {len(terms)} operand(s), got {len(shapes)}"
        )
    pool = _Letters(subs)
    ell: list[str] = []  # the broadcast ellipsis axes, right-aligned
    letters: list[list[str]] = []
    for term, shape in zip(terms, shapes):
        named = term.replace("...", "")
        if not all(c in _LETTERS for c in named):
            raise ValueError(f"einsum: invalid subscripts {subscripts!r}")
        n_ell = len(shape) - len(named)
        if n_ell < 0 or (n_ell and "..." not in term):
            raise ValueError(f"einsum: subscripts {term!r} do not fit an operand of shape {shape}")
        while len(ell) < n_ell:
            ell.insert(0, pool.take("ellipsis"))
        head, _, tail = term.partition("...")
        letters.append([*head, *ell[len(ell) - n_ell :], *tail] if "..." in term else [*term])
    if arrow:
        oh, dots, ot = out.partition("...")
        out_letters = [*oh, *ell, *ot] if dots else [*out]
    else:  # implicit output: the broadcast axes, then the letters seen once, sorted
        counts: dict[str, int] = {}
        for term in terms:
            for c in term.replace("...", ""):
                counts[c] = counts.get(c, 0) + 1
        out_letters = ell + sorted(c for c, m in counts.items() if m == 1)
    # the length of every letter (broadcast); a length-1 axis against a longer one gets a
    # letter of its own, so the contractions below sum it away
    size: dict[str, int] = {}
    for ls, shape in zip(letters, shapes):
        for c, d in zip(ls, shape):
            if c not in size or size[c] == 1:
                size[c] = d
            elif d not in (1, size[c]):
                raise ValueError(f"einsum: index {c!r} has lengths {size[c]} and {d}")
    for ls, shape in zip(letters, shapes):
        for i, (c, d) in enumerate(zip(ls, shape)):
            if d == 1 and size[c] != 1:
                ls[i] = pool.take("broadcast axes")
                size[ls[i]] = 1
    # the last: each operand's pullback contraction, filled in by _back_plan
    return (tuple("".join(ls) for ls in letters), "".join(out_letters), size, pool, {})


def _einsum(xp: Any, terms: Sequence[str], out: str, operands: Sequence[Any]) -> Any:
    elements = sum(math.prod(tuple(o.shape)) for o in operands)
    return xp.einsum(",".join(terms) + "->" + out, *operands, **einsum_optimize(xp, elements))


class _Back(NamedTuple):
    """How operand ``k``'s cotangent is contracted (:func:`_back_plan`)."""

    subscripts: str  # y_bar and the other operands onto k's distinct letters that they have
    others: tuple[int, ...]  # the other operands' positions
    elements: int  # the contraction's operand elements (einsum_optimize's measure)
    reshaped: tuple[int, ...] | None  # k's letters alone, broadcast back: this shape, then
    full: tuple[int, ...]  # this one (k's distinct letters' lengths)
    diagonal: tuple[str, tuple[int, ...], int] | None  # a repeated letter: subscripts, eyes


def _back_plan(spec: Any, k: int) -> _Back:
    """Operand ``k``'s contraction, worked out once per call structure (kept in ``spec``)."""
    plan = spec[4].get(k)
    if plan is not None:
        return plan
    letters, out, size, pool, plans = spec
    mine = letters[k]
    others = tuple(j for j in range(len(letters)) if j != k)
    terms = [out, *(letters[j] for j in others)]
    present = set("".join(terms))
    distinct = "".join(dict.fromkeys(mine))
    kept = "".join(c for c in distinct if c in present)
    elements = sum(math.prod(size[c] for c in t) for t in terms)
    full = tuple(size[c] for c in distinct)
    reshaped = None
    if len(kept) < len(distinct):  # letters of operand k alone: broadcast back
        reshaped = tuple(size[c] if c in kept else 1 for c in distinct)
    diagonal = None
    if len(distinct) < len(mine):
        # a letter repeated in operand k: its later occurrences get new letters, tied to the
        # first by an identity matrix, which puts the cotangent on the diagonal
        pool = pool.copy()
        seen: set[str] = set()
        target, eye_terms, eyes = [], [], []
        for c in mine:
            if c in seen:
                new = pool.take("repeated indices")
                target.append(new)
                eye_terms.append(c + new)
                eyes.append(size[c])
            else:
                seen.add(c)
                target.append(c)
        subs = ",".join([distinct, *eye_terms]) + "->" + "".join(target)
        diagonal = (subs, tuple(eyes), math.prod(full) + sum(n * n for n in eyes))
    plan = _Back(",".join(terms) + "->" + kept, others, elements, reshaped, full, diagonal)
    plans[k] = plan
    return plan


def _einsum_back(
    xp: Any, spec: Any, ops: Sequence[Any], k: int, y_bar: Any, real: bool = False
) -> Any:
    """The cotangent of operand ``k`` (before projection): ``y_bar`` contracted with the other,
    conjugated, operands onto ``k``'s distinct letters, broadcast back along letters of ``k``
    alone, and put back on the diagonal for a letter repeated in ``k``. ``real``: every operand
    is real (no conjugate to take)."""
    p = _back_plan(spec, k)
    others = [ops[j] if real else conj(xp, ops[j]) for j in p.others]
    g = xp.einsum(p.subscripts, y_bar, *others, **einsum_optimize(xp, p.elements))
    if p.reshaped is not None:
        g = xp.broadcast_to(xp.reshape(g, p.reshaped), p.full)
    if p.diagonal is None:
        return g
    subs, sizes, elements = p.diagonal
    dev = array_api_compat.device(g)
    eyes = [xp.eye(n, n, dtype=g.dtype, device=dev) for n in sizes]
    return xp.einsum(subs, g, *eyes, **einsum_optimize(xp, elements))


@register_rrule("numpy:einsum", examples=_einsum_ex, kind="sequence")
def einsum_rrule(*args: Any, **kwargs: Any) -> Any:
    # a library's way is found from the first operand (the subscripts string comes first)
    return _einsum_rrule(args[1] if len(args) > 1 else None, args, kwargs)


@specialise
def _einsum_rrule(first: Any, args: Any, kwargs: Any) -> Any:
    xp, originals, ops, spec, y = _einsum_call(args, kwargs)
    return y, _einsum_pullback(xp, args, originals, ops, spec, y)


@_einsum_rrule.method("numpy")
def _einsum_rrule_numpy(first: Any, args: Any, kwargs: Any) -> Any:
    """``einsum(subscripts, *operands)`` of non-empty real NumPy arrays of one dtype: the
    product, and for a NumPy cotangent of the output's shape and dtype each operand's cotangent
    as a ``Thunk`` of :func:`_einsum_back` (an engine forces only a traced operand's); any
    other cotangent goes to the generic pullback, built then. At n = 10 the generic binding,
    projections and cotangent checks cost about 7 us around a 2 us ``np.einsum``: the
    population's einsum spellings took 1.6-1.8x the gradient time of their ``@`` twins.
    Population (``benchmarks.population.methods``, all 339 programs, b20bb44): 0.82, median of 7
    cells (0.74 at best)."""
    if kwargs or type(args[0]) is not str:
        return NotImplemented
    ops = args[1:]
    dtype = first.dtype
    if dtype.kind != "f":
        return NotImplemented
    for o in ops:
        if type(o) is not np.ndarray or o.dtype != dtype or not o.size:
            return NotImplemented
    spec = _einsum_spec(args[0], tuple(o.shape for o in ops))
    y = np.einsum(args[0], *ops)

    def einsum_pullback(y_bar: Any) -> tuple[Any, ...]:
        forced = forced_like(y_bar, np.ndarray, y.shape, dtype, np.generic)
        if forced is None:  # the generic rule's namespace: array-api-compat's
            return _einsum_pullback(namespace_of(*ops), args, ops, ops, spec, y)(y_bar)
        bar = functools.partial(_einsum_back, np, spec, ops)
        # the function and the subscripts have no tangent, then one per operand
        return (NO, NO, *(Thunk(functools.partial(bar, k, forced, True)) for k in range(len(ops))))

    return y, einsum_pullback


def _einsum_pullback(
    xp: Any, args: Any, originals: Sequence[Any], ops: Sequence[Any], spec: Any, y: Any
) -> Any:
    """The pullback of ``y = einsum(*args)`` in namespace ``xp``, for every library."""
    projects = [ProjectTo(o, xp) for o in originals]

    @pullback(y, args, name="einsum")
    def einsum_pullback(y_bar: Any) -> Any:
        def bar(k: int) -> Any:
            return projects[k](_einsum_back(xp, spec, ops, k, y_bar))

        bars = [lazy(p, functools.partial(bar, k)) for k, p in enumerate(projects)]
        if not isinstance(args[0], str):  # the interleaved form: sublists have no tangent
            out: list[Any] = [NO] * len(args)
            for k, i in enumerate(_einsum_slots(args, len(bars))):
                out[i] = bars[k]
            return tuple(out)
        return (NO, *bars)  # the subscripts, then the operands

    return einsum_pullback


@register_frule("numpy:einsum", examples=_einsum_ex, kind="sequence")
def einsum_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, originals, ops, spec, y = _einsum_call(args, kwargs)
    letters, out, _, pool, _ = spec
    n = len(ops)
    slots = _einsum_slots(args, n)
    dots = tangents_in("einsum", (tangents[0], *(tangents[1 + i] for i in slots)), originals)
    if dots is None:
        return y, ZERO
    pool = pool.copy()
    chunk = "".join(pool.take("chunk axes") for _ in range(dots.extra))
    terms = []
    for k, o in enumerate(ops):
        t = tangent(xp, dots[k], o)
        if t is not None:
            subs = [chunk + s if j == k else s for j, s in enumerate(letters)]
            operands = [t if j == k else v for j, v in enumerate(ops)]
            terms.append(_einsum(xp, subs, chunk + out, operands))
    return y, total(xp, y, terms)


# --- kron -----------------------------------------------------------------------------------------
def _kron_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [
        ((r((2, 3)), r((2, 2))), {}),
        ((r(3), r(2)), {}),
        ((r(2), r((2, 3))), {}),
        ((r(()), r((2, 2))), {}),
        ((r((2, 0)), r((2, 2))), {}),
        ((r((2, 2)) + 1j * r((2, 2)), r((2, 1)) + 1j * r((2, 1))), {}),
    ]


_KRON = signature("kron", lambda x1, x2, /, *, out=None: None)


def _kron_call(args: Any, kwargs: Any) -> tuple[Any, ...]:
    x1, x2 = bind_pair(_KRON, args, kwargs)
    xp = namespace_of(x1, x2, fname="kron")
    a, b = arrays(xp, (x1, x2))
    return xp, x1, x2, a, b, xp.kron(a, b)


@register_rrule("numpy:kron", examples=_kron_ex)
def kron_rrule(*args: Any, **kwargs: Any) -> Any:
    """With both operands padded to one rank ``n``, ``y`` reshaped to the interleaved axes
    ``(a0, b0, a1, b1, ...)`` is ``a[:, None, :, None, ...] * b[None, :, ...]``."""
    xp, x1, x2, a, b, y = _kron_call(args, kwargs)
    n = max(a.ndim, b.ndim)
    ashape = (1,) * (n - a.ndim) + tuple(a.shape)
    bshape = (1,) * (n - b.ndim) + tuple(b.shape)
    la, lb = _LETTERS[:n], _LETTERS[n : 2 * n]
    li = "".join(c for pair in zip(la, lb) for c in pair)
    inter = tuple(d for pair in zip(ashape, bshape) for d in pair)
    project_a, project_b = ProjectTo(x1, xp), ProjectTo(x2, xp)
    opt = einsum_optimize(xp)

    @pullback(y, args)
    def kron_pullback(y_bar: Any) -> Any:
        g = xp.reshape(y_bar, inter)

        def a_bar() -> Any:
            r = xp.einsum(f"{li},{lb}->{la}", g, conj(xp, xp.reshape(b, bshape)), **opt)
            return project_a(reshape_to(xp, r, a.shape))

        def b_bar() -> Any:
            r = xp.einsum(f"{li},{la}->{lb}", g, conj(xp, xp.reshape(a, ashape)), **opt)
            return project_b(reshape_to(xp, r, b.shape))

        return lazy(project_a, a_bar), lazy(project_b, b_bar)

    return y, kron_pullback


@register_frule("numpy:kron", examples=_kron_ex)
def kron_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, x1, x2, a, b, y = _kron_call(args, kwargs)
    n = max(a.ndim, b.ndim)
    dots = tangents_in("kron", tangents[:3], (x1, x2))
    if dots is None:
        return y, ZERO
    da, db = tangent(xp, dots[0], a), tangent(xp, dots[1], b)
    ta = None if da is None else xp.kron(pad_chunk(xp, da, dots.extra, n), b)
    tb = None if db is None else xp.kron(a, pad_chunk(xp, db, dots.extra, n))
    return y, total(xp, y, [ta, tb])
