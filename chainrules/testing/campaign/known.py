"""Known differences between the oracles: the only things that may excuse a disagreement.

Each is a named predicate ``(program, engine, relation) -> bool`` with the documented reason.
A disagreement that no predicate covers is a wrong value. There is no list of wrong values:
a predicate names a *difference in definition* between two oracles (what each one's function
or convention is), never a rule that is wrong.

Conventions are converted, not excused: JAX's cotangent of a complex input is the conjugate of
ours, and the campaign conjugates it before comparing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["KNOWN", "Known", "excuse"]


@dataclass(frozen=True)
class Known:
    name: str
    reason: str
    applies: Callable[[Any, str, str, Any], bool]  # (program, engine, relation, got)


# JAX's functions that drop the tangent when called without size= (unique, and the set
# operations built on it): a map from our registrations' names to JAX's behaviour, which test
# code may keep
_JAX_UNIQUE = frozenset(
    (
        "numpy:unique",
        "unique_values",
        "unique_all",
        "unique_counts",
        "unique_inverse",
        "numpy:union1d",
        "numpy:setxor1d",
        "numpy:intersect1d",
        "numpy:setdiff1d",
    )
)


def _jax_unique_zero(p: Any, engine: str, relation: str, got: Any) -> bool:
    # JAX's own grad (engine jax), or a bridged rule that runs jax.numpy's function inside a
    # transformation JAX differentiates again (the JAX bridge's hessian)
    return (
        (
            (engine == "jax" and relation == "grad")
            or (engine == "jax-bridge" and relation == "hessian")
        )
        and any(s.reg.name in _JAX_UNIQUE and "size" not in s.example.kwargs for s in p.steps)
        and got is not None
        and not np.any(np.asarray(got))
    )


def _scipy_sylvester_mixed(p: Any, engine: str, relation: str, got: Any) -> bool:
    return (
        engine == "native"
        and relation == "fd"
        and p.dtype in ("complex64", "complex128")
        and any(s.reg.name == "scipy:linalg.solve_sylvester" for s in p.steps)
    )


KNOWN: tuple[Known, ...] = (
    Known(
        "oracle-primal-differs",
        "the other engine's function computes another value on these inputs (its definition, "
        "a default argument or a branch cut differs), so its derivative is of another "
        "function: the gradient comparison is skipped and counted as such, never as agreement",
        lambda p, engine, relation, got: relation == "primal",
    ),
    Known(
        "jax-unique-drops-the-tangent",
        "jax.numpy's unique functions (and the set operations built on them) without size= "
        "call core.concrete_or_error on their input (jax/_src/numpy/setops.py), which drops the "
        "tangent: JAX's gradient of a program through them is exactly zero where ours agrees "
        "with finite differences (seed 23: 1.63821e-5 vs 1.6382e-5), and so is the JAX "
        "bridge's Hessian, whose second order runs the rule's jax.numpy calls under JAX's own "
        "differentiation (seeds 226, 351, 619). A silent zero JAX gives its users too; excused "
        "only where the whole result is zero",
        _jax_unique_zero,
    ),
    Known(
        "scipy-solve-sylvester-mixed-dtypes",
        "SciPy 1.17.1's own solve_sylvester is wrong when real and complex arguments are mixed "
        "(it hands a real argument's real Schur form, with 2x2 blocks, to the complex ?trsyl, "
        "which drops the blocks: its X misses AX + XB = Q by up to 0.2). The rule solves in the "
        "common dtype (docs/conventions.md), so finite differences of SciPy's function, the "
        "native fd oracle, are of another function in a complex program that calls it "
        "(seeds 413, 5366, 7809); the rule is judged against a correct reference by its own "
        "test (tests/rules/scipy/test_linalg.py::test_solve_sylvester_mixed_real_complex)",
        _scipy_sylvester_mixed,
    ),
)


def excuse(program: Any, engine: str, relation: str, got: Any = None) -> str | None:
    """The name of the known difference that covers this disagreement (``got``: the other
    engine's value), or None."""
    for k in KNOWN:
        if k.applies(program, engine, relation, got):
            return k.name
    return None
