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

from .tolerances import close

__all__ = ["KNOWN", "Known", "excuse"]


@dataclass(frozen=True)
class Known:
    name: str
    reason: str
    # (program, engine, relation, got, want): got is the other engine's value, want ours
    applies: Callable[[Any, str, str, Any, Any], bool]


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


# jax.numpy's arange reads its bounds with core.concrete_or_error as well: eager jax.grad of
# jnp.arange(s, s + 3) is 0.0 (the derivative is 1 per element), under jit an error
_JAX_ARANGE = frozenset(("arange", "numpy:arange"))


def _jax_unique(s: Any) -> bool:
    """Step ``s`` is JAX's unique (or a set operation on it) without ``size=``."""
    return s.reg.name in _JAX_UNIQUE and "size" not in s.example.kwargs


def _jax_drops(s: Any, p: Any) -> bool:
    """JAX's counterpart of step ``s`` has a zero derivative where ours has none: unique and
    the set operations without ``size=``, ``arange``, and ``sign`` of a complex input."""
    if s.reg.name in _JAX_UNIQUE:
        return _jax_unique(s)
    if s.reg.name in _JAX_ARANGE:
        return True
    return s.reg.name == "sign" and p.dtype in ("complex64", "complex128")


def _parts(p: Any, v: Any) -> tuple[np.ndarray, np.ndarray]:
    """A compared gradient split into its ``x`` part and its ``d`` part (maybe empty)."""
    v = np.asarray(v).ravel()
    return v[: p.x.size], v[p.x.size :]


def _jax_drops_the_tangent(p: Any, engine: str, relation: str, got: Any, want: Any) -> bool:
    # JAX's own grad: the tangent of x, which enters at the first step and flows through every
    # step, is dropped at the first dropping step; d's too where a dropping step comes at or
    # after the step it enters. The parts a drop reaches must be exactly zero, and d's part
    # must otherwise agree with ours (within the campaign's tolerance for the precision)
    if engine != "jax" or relation != "grad" or got is None or want is None:
        return False
    k = next((k for k, s in enumerate(p.steps) if _jax_drops(s, p)), None)
    if k is None:
        return False
    gx, gd = _parts(p, got)
    _, wd = _parts(p, want)
    if np.any(gx):
        return False
    d_at = next((j for j, s in enumerate(p.steps) if s.data is not None), None)
    if d_at is not None and any(_jax_drops(s, p) for s in p.steps[d_at:]):
        return not np.any(gd)  # d's tangent meets a dropping step too (at or after it enters)
    return close(gd, wd, _kind(p))


# solve's structure keywords under which it reads one triangle of its matrix (SciPy's names)
_SOLVE_HERMITIAN = frozenset(("pos", "sym", "her", "positive definite", "symmetric", "hermitian"))


def _kind(p: Any) -> str:
    """The campaign's tolerance for another engine's derivative of program ``p``."""
    return "single" if p.dtype in ("float32", "complex64") else "oracle"


def _herm(m: np.ndarray) -> np.ndarray:
    return (m + np.conj(np.swapaxes(m, -1, -2))) / 2


def _hermitian_solve(step: Any, where: str) -> bool:
    """``step`` is solve(assume_a="pos" | "sym" | "her") taking its matrix from the program's
    input (``where="slot"``: x, the first step's; ``"data"``: d)."""
    return (
        step.reg.name == "scipy:linalg.solve"
        and getattr(step, where) == (0,)
        and step.example.kwargs.get("assume_a") in _SOLVE_HERMITIAN
    )


def _hermitian_representative(p: Any, engine: str, relation: str, got: Any, want: Any) -> bool:
    # an input read as a Hermitian matrix -- x by the first step (cholesky, cho_factor, eigh),
    # or d as the matrix of solve(assume_a="pos" | "sym" | "her") -- has a gradient determined
    # only up to its anti-Hermitian part, and each engine picks its representative
    if engine not in ("jax", "torch") or relation != "grad" or got is None or want is None:
        return False
    x_herm = p.x.ndim >= 2 and (p.steps[0].hermitian or _hermitian_solve(p.steps[0], "slot"))
    d_herm = p.d is not None and p.d.ndim >= 2 and any(_hermitian_solve(s, "data") for s in p.steps)
    if not (x_herm or d_herm):
        return False
    (gx, gd), (wx, wd) = _parts(p, got), _parts(p, want)
    if x_herm:
        gx, wx = _herm(gx.reshape(p.x.shape)), _herm(wx.reshape(p.x.shape))
    if d_herm:
        gd, wd = _herm(gd.reshape(p.d.shape)), _herm(wd.reshape(p.d.shape))
    return close(gx, wx, _kind(p)) and close(gd, wd, _kind(p))


def _jax_solve_of_a_non_hermitian_matrix(
    p: Any, engine: str, relation: str, got: Any, want: Any
) -> bool:
    # a later step is solve(assume_a="pos" | "sym" | "her") of a matrix the program computed,
    # and that matrix is not Hermitian: SciPy's function reads one triangle of it (ours is that
    # function's derivative, which the native engine checks against finite differences), JAX's
    # derivative takes the matrix's perturbation as Hermitian
    if engine != "jax" or relation != "grad" or got is None or want is None:
        return False
    steps = [k for k, s in enumerate(p.steps) if k and _hermitian_solve(s, "slot")]
    if not steps:
        return False
    from .oracles import step_arguments  # oracles imports this module

    args = step_arguments(p)
    return any(not close(_herm(np.asarray(args[k][0])), args[k][0], _kind(p)) for k in steps)


def _jax_spence_nan(p: Any, engine: str, relation: str, got: Any, want: Any) -> bool:
    # JAX's own grad through jax.scipy.special.spence: NaN where ours is finite, and agreement
    # everywhere JAX's gradient is a number
    if engine != "jax" or relation != "grad" or got is None or want is None:
        return False
    if not any(s.reg.name == "scipy:special.spence" for s in p.steps):
        return False
    g, w = np.asarray(got).ravel(), np.asarray(want).ravel()
    nan = np.isnan(g)
    if not nan.any() or g.shape != w.shape or np.isnan(w[nan]).any():
        return False
    return close(g[~nan], w[~nan], _kind(p))


def _oracle_step_differs(p: Any, engine: str, relation: str, got: Any, want: Any) -> bool:
    # the gradients differ and so does a value on the way (the final one agreed): the other
    # engine differentiated another function
    if engine not in ("jax", "torch") or relation != "grad":
        return False
    from .oracles import step_differs  # oracles imports this module

    return step_differs(p, engine, _kind(p)) is not None


def _scipy_sylvester_mixed(p: Any, engine: str, relation: str, got: Any, want: Any) -> bool:
    if p.dtype not in ("complex64", "complex128") or not any(
        s.reg.name == "scipy:linalg.solve_sylvester" for s in p.steps
    ):
        return False
    if engine == "native" and relation == "fd":
        return True
    # autograd's primitive computes its value with the wrapped function, SciPy's own: the later
    # steps are differentiated at SciPy's value. Only where that value is not the rules' (the
    # mixed case happened: the program's plain value differs from the engine's)
    return engine == "autograd-bridge" and relation == "grad" and _rules_value_differs(p)


def _rules_value_differs(p: Any) -> bool:
    """The program's value computed by the rules (``chainrules.ad``'s forward pass) differs from
    its value computed by the plain functions."""
    from ... import ad
    from .cells import _native_fns, _quiet

    _, L = _native_fns(p)
    with _quiet():
        plain = L(p.x, p.d)
        ruled = ad.value_and_grad(lambda x: L(x, p.d))(p.x)[0]
    return not close(np.asarray(ruled), np.asarray(plain), "same")


def _real_if_close_branch(p: Any, engine: str, relation: str, got: Any, want: Any) -> bool:
    if engine != "native" or relation != "fd" or p.dtype not in ("complex64", "complex128"):
        return False
    if not any(s.reg.name == "numpy:real_if_close" for s in p.steps):
        return False
    from ... import ad
    from .. import finite_differences as fdiff
    from .cells import _ident, _inner, _native_fns, _ns, _quiet, native_function

    pd = p if p.dtype == "complex128" else p.in_double()
    dropped: list[bool] = []

    def fn_of(reg: Any) -> Any:
        f = native_function(reg)
        if reg.name != "numpy:real_if_close":
            return f

        def watched(a: Any, *args: Any, **kwargs: Any) -> Any:
            y = f(a, *args, **kwargs)
            dropped.append(np.iscomplexobj(a) and not np.iscomplexobj(y))
            return y

        return watched

    with _quiet():
        pd.run(pd.x, pd.d, fn_of, _ident, _ns)
    if not any(dropped):
        return False
    # the disagreement is in the imaginary directions only: along real directions of x (and d)
    # the gradient agrees with finite differences
    _, L = _native_fns(pd)
    rng = np.random.default_rng(0)
    vx = rng.standard_normal(pd.x.shape)
    vd = None if pd.d is None else rng.standard_normal(np.shape(pd.d))
    with _quiet():
        gx = ad.grad(lambda x: L(x, pd.d))(pd.x)
        slope = _inner(gx, vx)
        if vd is not None:
            slope += _inner(ad.grad(lambda d: L(pd.x, d))(pd.d), vd)
        fd = fdiff.central_difference(
            lambda t: L(pd.x + t * vx, None if vd is None else pd.d + t * vd),
            fdiff.STEP[np.dtype(np.float64)],
        )
    return close(slope, np.real(fd), "fd")


KNOWN: tuple[Known, ...] = (
    Known(
        "own-program-fails-too",
        "the same transformation of the program built from the engine's own functions (torch's, "
        "JAX's) raises too, so no bridge could do it in that engine: torch.compile(fullgraph) or "
        "jax.jit of a shape that depends on values (repeat by a tensor of counts, arange to a "
        "traced bound, trim_zeros), torch.func's jacfwd/hessian of an empty input, forward AD "
        "that torch lacks (zeta, igamma), vmap of unique's dynamic shape. Judged by running the "
        "engine's own program, only where the bridge's cell raised; programs calling "
        "chainrules' own functions are never excused; never excuses a value",
        lambda p, engine, relation, got, want: relation == "own-program-fails-too",
    ),
    Known(
        "oracle-primal-differs",
        "the other engine's function computes another value on these inputs (its definition, "
        "a default argument or a branch cut differs), so its derivative is of another "
        "function: the gradient comparison is skipped and counted as such, never as agreement",
        lambda p, engine, relation, got, want: relation == "primal",
    ),
    Known(
        "jax-drops-the-tangent",
        "JAX's counterpart has a zero derivative where the function has none: jax.numpy's "
        "unique functions (and the set operations built on them) without size= call "
        "core.concrete_or_error on their input (jax/_src/numpy/setops.py), which drops the "
        "tangent (seed 23: ours 1.63821e-5, finite differences 1.6382e-5, JAX 0; seeds 351, "
        "365); so does jnp.arange with a traced bound (eager grad of sum(arange(s, s + 3) * "
        "arange(3)) is 0.0, not 3; seeds 505, 796, 874); and lax.sign's derivative is defined "
        "as zero, also for a complex input, where sign(z) = z/|z| varies (seed 88). Excused "
        "only where JAX's gradient is exactly zero in every part the dropped tangent reaches "
        "(x, which flows through every step; d where it enters at or before that step) and "
        "agrees with ours elsewhere",
        _jax_drops_the_tangent,
    ),
    Known(
        "hermitian-gradient-representative",
        "the program's input is a Hermitian matrix (its first step reads one: cholesky, "
        "cho_factor, eigh), so the gradient is determined only up to an anti-Hermitian part. "
        "chainrules returns the Hermitian one (docs/conventions.md); JAX's cho_factor puts the "
        "off-diagonal cotangent in the triangle it reads (seed 346). The same for the data "
        "matrix of solve(assume_a='pos'|'sym'|'her'), which SciPy reads by one triangle (seed "
        "2181), and for x as that matrix (seed 21290). Excused only where the Hermitian parts "
        "agree, and the other input's gradient agrees",
        _hermitian_representative,
    ),
    Known(
        "jax-solve-of-a-non-hermitian-matrix",
        "a later step is SciPy's solve(assume_a='pos'|'sym'|'her') of a matrix the program "
        "computed, and that matrix is not Hermitian (the glue adds a row-broadcast vector): "
        "SciPy's solve reads one triangle of it, and JAX's gives the same solution, but JAX's "
        "derivative takes the matrix's perturbation as Hermitian, where ours is the derivative "
        "of SciPy's function (the native engine checks it against finite differences). Seed "
        "50902 (cross -> solve). Excused only where that matrix is not Hermitian",
        _jax_solve_of_a_non_hermitian_matrix,
    ),
    Known(
        "jax-spence-nan-derivative",
        "JAX 0.10.2 differentiates its own implementation of spence (jax/_src/scipy/special.py, "
        "_spence_calc), whose jnp.where selects between branches that each evaluate "
        "log(1 - x) and log(x) everywhere: for x > 1 the unselected branch's log(1 - x) is NaN "
        "and its zero weight times NaN makes JAX's derivative NaN (jax.grad(spence)(2.0) is "
        "nan; spence'(x) = -log(x) / (1 - x) = -0.693); jnp.piecewise's constants make it 0 at "
        "x = 1 (true -1) and at x = 0 (true +inf). Seeds 1105, 1410, 1830, 1939. Excused only "
        "where JAX's gradient is NaN and ours is a number, and the two agree everywhere else",
        _jax_spence_nan,
    ),
    Known(
        "scipy-solve-sylvester-mixed-dtypes",
        "SciPy 1.17.1's own solve_sylvester is wrong when real and complex arguments are mixed "
        "(it hands a real argument's real Schur form, with 2x2 blocks, to the complex ?trsyl, "
        "which drops the blocks: its X misses AX + XB = Q by up to 0.2). The rule solves in the "
        "common dtype (docs/conventions.md), so finite differences of SciPy's function, the "
        "native fd oracle, are of another function in a complex program that calls it "
        "(seeds 413, 5366, 7809); the rule is judged against a correct reference by its own "
        "test (tests/rules/scipy/test_linalg.py::test_solve_sylvester_mixed_real_complex). The "
        "autograd bridge computes values with the wrapped function, SciPy's, so it "
        "differentiates the later steps at SciPy's value (seed 23792: 2.4% off the native "
        "gradient, which equals finite differences of a correct solver); excused there only "
        "where the program's value by the rules differs from its value by SciPy's function",
        _scipy_sylvester_mixed,
    ),
    Known(
        "real-if-close-branch",
        "real_if_close drops imaginary parts within its tolerance (tol machine epsilons) and "
        "keeps them beyond: at an input it made real, its derivative in the imaginary "
        "directions is zero (the branch taken: Re(a)), while finite differences, whose step is "
        "far larger than the tolerance, evaluate the other branch there (seed 23646). Excused "
        "only for the native fd relation of a complex program in which a real_if_close step "
        "did drop imaginary parts, and only where the gradient agrees with finite differences "
        "along real directions",
        _real_if_close_branch,
    ),
    Known(
        "oracle-step-differs",
        "the other engine's functions compute another value at some step of the program while "
        "the final values agree within tolerance: SciPy's cho_factor leaves the unused triangle "
        "as the input had it, JAX's zeroes it, and a later step reads it (seed 5392); the "
        "derivatives are then of another function. Consulted last, only on a disagreement, so "
        "a named difference above takes precedence (oracles.step_differs names the step)",
        _oracle_step_differs,
    ),
)


def excuse(
    program: Any, engine: str, relation: str, got: Any = None, want: Any = None
) -> str | None:
    """The name of the known difference that covers this disagreement (``got``: the other
    engine's value, ``want``: ours), or None."""
    for k in KNOWN:
        if k.applies(program, engine, relation, got, want):
            return k.name
    return None
