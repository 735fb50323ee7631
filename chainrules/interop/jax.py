"""JAX bridge: ``wrap(f)`` is a function of JAX arrays whose derivatives come from ``f``'s rules.

Two modes:

* ``mode="jvp"`` (the default): a ``jax.custom_jvp`` whose JVP is the registered **frule**. JAX
  gets forward mode directly and reverse mode by transposing the frule's pushforward (linear in
  the tangents and built from ``jax.numpy`` operations), so ``jvp``, ``grad``, ``jacfwd``,
  ``jacrev``, ``hessian`` and higher orders all work, under ``jit`` and ``vmap``.
* ``mode="vjp"``: a ``jax.custom_vjp`` whose backward pass is the registered **rrule**'s pullback.
  A pullback is a Python closure, which JAX does not accept as a residual; the bridge saves the
  *inputs* as residuals and **recomputes** the rrule in the backward pass. Under ``jit`` XLA
  merges the recomputed forward with the original (common-subexpression elimination), so
  ``jit(grad)`` pays nothing for it (see ``benchmarks/interop.py``). Reverse mode of any order
  (the backward pass runs ``jax.numpy`` code, which JAX differentiates itself); forward mode
  (``jvp``, ``jacfwd``, ``hessian``) is refused by JAX for a ``custom_vjp``, by design.

Arguments: JAX arrays, NumPy arrays and NumPy scalars anywhere in the (nested tuple / list / dict)
arguments are traced (NumPy values are converted with ``jnp.asarray`` at the boundary); every
other leaf -- Python numbers, strings, ``None``, slices, axes, orders -- is static. Integer and
boolean arrays are traced (so they may be batched by ``vmap`` or be ``jit`` arguments) and get a
zero (``float0``) cotangent. Keyword arguments are never differentiated.

Complex numbers: JAX's cotangent of a complex input is the conjugate of chainrules' (see
``DESIGN.md``); the ``vjp`` mode conjugates on the way in and out. Tangents (forward mode) need no
conversion.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..core.tangents import NoTangent
from ._common import (
    Rules,
    check_leaf,
    find_rules,
    output_leaves,
    split,
    tangent_output_leaves,
)

__all__ = ["wrap"]

_float0 = jax.dtypes.float0


def _is_dynamic(x: Any) -> bool:
    return isinstance(x, (jax.Array, np.ndarray, np.generic))


def _inexact(x: Any) -> bool:
    return bool(jnp.issubdtype(x.dtype, jnp.inexact))


def _is_complex(x: Any) -> bool:
    return bool(jnp.issubdtype(x.dtype, jnp.complexfloating))


def _zeros_like_ct(x: Any) -> Any:
    """The zero cotangent JAX expects for primal ``x`` (``float0`` for integers and booleans)."""
    if _inexact(x):
        return jnp.zeros_like(x)
    return np.zeros(x.shape, dtype=_float0)


def wrap(f: Any, *, mode: str = "jvp") -> Any:
    """A function of JAX arrays computing ``f`` whose derivatives come from ``f``'s rules.

    ``mode="jvp"`` builds a ``jax.custom_jvp`` from the registered frule (every transformation,
    any order); ``mode="vjp"`` a ``jax.custom_vjp`` from the registered rrule (reverse mode only).
    Raises ``chainrules.NoRuleError`` naming ``f`` when the needed rule is not registered.

    >>> import jax, jax.numpy as jnp, numpy as np
    >>> from chainrules.interop import jax as crjax
    >>> norm = crjax.wrap(np.linalg.norm)
    >>> np.asarray(jax.grad(norm)(jnp.array([3.0, 4.0])), dtype=float).round(6).tolist()
    [0.6, 0.8]
    """
    if mode not in ("jvp", "vjp"):
        raise ValueError(f"chainrules.interop.jax.wrap: mode must be 'jvp' or 'vjp', got {mode!r}")
    rules = find_rules(f, "jax", need="frule" if mode == "jvp" else "rrule")
    build = _build_jvp if mode == "jvp" else _build_vjp

    @functools.wraps(f)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        sp = split(args, kwargs, _is_dynamic)
        dyn = [jnp.asarray(sp.leaves[i]) for i in sp.dynamic]
        return build(rules, sp)(*dyn)

    wrapped.__chainrules_rules__ = rules  # type: ignore[attr-defined]
    return wrapped


def _primal(rules: Rules, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if rules.rrule is not None:
        return rules.rrule(*args, **kwargs)[0]
    tangents = (NoTangent(),) + (NoTangent(),) * len(args)
    return rules.frule(tangents, *args, **kwargs)[0]  # type: ignore[misc]


def _build_jvp(rules: Rules, sp: Any) -> Any:
    @jax.custom_jvp
    def call(*dyn: Any) -> Any:
        args, kwargs = sp.rebuild(dyn)
        return _primal(rules, args, kwargs)

    @call.defjvp
    def call_jvp(primals: Any, tangents: Any) -> Any:
        args, kwargs = sp.rebuild(primals)
        # tangent of each leaf: JAX's for traced inexact positional leaves, NoTangent otherwise
        leaf_t = {
            pos: t
            for pos, p, t in zip(sp.dynamic, primals, tangents, strict=True)
            if sp.arg_of[pos] >= 0 and _inexact(p)
        }
        targs = sp.tangents(leaf_t, NoTangent())
        y, y_dot = rules.frule((NoTangent(), *targs), *args, **kwargs)  # type: ignore[misc]
        ys, _ = output_leaves(y)
        dots = tangent_output_leaves(y_dot, len(ys))
        out = []
        for yi, di in zip(ys, dots, strict=True):
            if di is None:
                out.append(jnp.zeros_like(yi))
                continue
            di = jnp.asarray(di)
            check_leaf(rules.name, "frule", -1, di, yi, di.dtype == jnp.asarray(yi).dtype)
            out.append(di)
        _, rebuild = output_leaves(y)
        return y, rebuild(out)

    return call


def _build_vjp(rules: Rules, sp: Any) -> Any:
    assert rules.rrule is not None
    rrule = rules.rrule

    @jax.custom_vjp
    def call(*dyn: Any) -> Any:
        args, kwargs = sp.rebuild(dyn)
        return rrule(*args, **kwargs)[0]

    def call_fwd(*dyn: Any) -> Any:
        args, kwargs = sp.rebuild(dyn)
        # the pullback (a closure) cannot be a residual: keep the inputs, recompute in call_bwd
        return rrule(*args, **kwargs)[0], dyn

    def call_bwd(dyn: Any, y_bar: Any) -> Any:
        args, kwargs = sp.rebuild(dyn)
        y, pullback = rrule(*args, **kwargs)
        _, rebuild = output_leaves(y)
        bars, _ = output_leaves(y_bar)
        bars = [jnp.conj(b) if _is_complex(b) else b for b in bars]  # JAX's -> ours
        cts = pullback(rebuild(bars))
        per_leaf = sp.cotangents(cts, args)
        out = []
        for pos, p in zip(sp.dynamic, dyn, strict=True):
            c = per_leaf[pos]
            if c is None or not _inexact(p):
                out.append(_zeros_like_ct(p))
                continue
            c = jnp.asarray(c)
            check_leaf(rules.name, "rrule", sp.arg_of[pos], c, p, c.dtype == p.dtype)
            out.append(jnp.conj(c) if _is_complex(c) else c)  # ours -> JAX's
        return tuple(out)

    call.defvjp(call_fwd, call_bwd)
    return call
