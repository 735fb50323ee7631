"""``check_agrees_with_jax``: a rule's pullback against JAX's own derivative of the same function.

Finite differences judge a rule to about 1e-7; JAX's hand-written derivatives judge it to
round-off, and they pin down conventions finite differences cannot see (the half-and-half split
at a tie, the triangle ``eigh`` reads). The comparison runs in float64: JAX's x64 mode is on for
the call only (``jax.enable_x64``, a thread-local context), not left on for the process.

Complex numbers: for a real loss ``L``, our cotangent is ``dL/dRe z + i dL/dIm z``; JAX's is its
conjugate, in both directions. So JAX is given the conjugate of our output cotangent and its
answer is conjugated back before comparing.

>>> import numpy as np
>>> from chainrules.testing import check_agrees_with_jax
>>> check_agrees_with_jax(np.multiply, np.array([1.0, 2.0]), np.array([3.0, -1.0 + 2.0j]))
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.registry import counterpart, function_name, rrule
from ..core.tangents import AbstractZero, NoTangent, Tangent
from .arrays import leaves, place, to_numpy
from .checks import _has_tangent_space

__all__ = ["check_agrees_with_jax"]


def _diff_array(v: Any) -> bool:
    return isinstance(v, np.ndarray) and v.dtype.kind in "fc"


def _in_x64(check: Callable[..., None]) -> Callable[..., None]:
    """``check`` run with JAX's x64 mode on, and JAX's configuration as it was afterwards."""

    @functools.wraps(check)
    def in_x64(*args: Any, **kwargs: Any) -> None:
        import jax

        with jax.enable_x64(True):
            check(*args, **kwargs)

    return in_x64


@_in_x64
def check_agrees_with_jax(
    f: Callable[..., Any],
    /,
    *args: Any,
    rtol: float = 1e-10,
    atol: float = 1e-12,
    seed: int = 3,
    f_jax: Callable[..., Any] | None = None,
    fkwargs: dict[str, Any] | None = None,
    **kwargs: Any,
) -> None:
    """Check that the pullback of ``f`` at ``args`` equals ``jax.vjp`` of its JAX counterpart.

    ``args`` are NumPy values. Every floating or complex NumPy array among the positional
    arguments -- also inside tuples and lists (``concat``'s) -- is differentiated; everything
    else (integer and boolean arrays, Python scalars, axes, keyword arguments) is held fixed.
    Every floating output (also inside tuple outputs: ``eigh``, ``svd``) gets a seeded random
    cotangent. ``f_jax`` defaults to ``f``'s counterpart in ``jax.numpy``.

    Raises ``AssertionError`` naming ``f``, the argument and the largest difference.
    """
    import jax
    import jax.numpy as jnp

    kw = dict(kwargs, **(fkwargs or {}))
    name = function_name(f)
    if f_jax is None:
        f_jax = counterpart(f, jnp)
        if f_jax is None:
            raise ValueError(f"check_agrees_with_jax({name}): no jax.numpy counterpart of {name}")

    # the differentiable leaves: (argument, position inside a sequence or None)
    where: list[tuple[int, int | None]] = []
    for i, a in enumerate(args):
        if isinstance(a, (tuple, list)):
            where += [(i, j) for j, e in enumerate(a) if _diff_array(e)]
        elif _diff_array(a):
            where.append((i, None))
    if not where:
        raise ValueError(f"check_agrees_with_jax({name}): no floating array among the arguments")

    def rebuild(values: list[Any], convert: Callable[[Any], Any]) -> list[Any]:
        def conv(a: Any) -> Any:
            if isinstance(a, (tuple, list)):
                return type(a)(conv(e) for e in a)
            return convert(a) if isinstance(a, np.ndarray) else a

        return place([conv(a) for a in args], where, values)

    # ours, on NumPy
    y, pullback = rrule(f, *args, **kw)
    ys = leaves(y)
    rng = np.random.default_rng(seed)
    ybar: list[Any] = []
    for v in ys:
        if not _has_tangent_space(v):
            ybar.append(None)
            continue
        shape = np.shape(to_numpy(v))
        r = rng.standard_normal(shape)
        if np.iscomplexobj(to_numpy(v)):
            r = r + 1j * rng.standard_normal(shape)
        ybar.append(r)
    if all(b is None for b in ybar):
        raise ValueError(f"check_agrees_with_jax({name}): the output has no tangent space")
    if isinstance(y, (tuple, list)):
        ct: Any = Tangent(*(NoTangent() if b is None else b for b in ybar), primal_type=type(y))
    else:
        ct = ybar[0]
    res = pullback(ct)
    ours = []
    for i, j in where:
        c = res[1 + i]
        if j is not None and not isinstance(c, AbstractZero):
            c = c[j]
        primal = args[i] if j is None else args[i][j]
        ours.append(np.zeros_like(primal) if isinstance(c, AbstractZero) else to_numpy(c))

    # theirs: jax.vjp with the floating outputs only (the others have no cotangent in JAX)
    keep = [k for k, b in enumerate(ybar) if b is not None]

    def g(*values: Any) -> tuple[Any, ...]:
        out = leaves(f_jax(*rebuild(list(values), jnp.asarray), **kw))
        return tuple(out[k] for k in keep)

    primals = [jnp.asarray(args[i] if j is None else args[i][j]) for i, j in where]
    _, vjp = jax.vjp(g, *primals)
    theirs = vjp(tuple(jnp.asarray(np.conj(ybar[k])) for k in keep))

    for (i, j), a, b in zip(where, ours, theirs):
        what = f"argument {i}" + (f"[{j}]" if j is not None else "")
        want = np.conj(np.asarray(b))
        if a.shape != want.shape:
            raise AssertionError(
                f"check_agrees_with_jax({name}): the cotangent of {what} has shape {a.shape}, "
                f"JAX's {want.shape}"
            )
        try:
            np.testing.assert_allclose(a, want, rtol=rtol, atol=atol)
        except AssertionError as e:
            raise AssertionError(
                f"check_agrees_with_jax({name}): the cotangent of {what} differs from JAX's "
                f"(conjugated) at args={_short(args)} kwargs={kw}\n{e}"
            ) from None


def _short(args: tuple[Any, ...]) -> str:
    return repr(
        tuple(f"array{np.shape(a)}:{a.dtype}" if isinstance(a, np.ndarray) else a for a in args)
    )
