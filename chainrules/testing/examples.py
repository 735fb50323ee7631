"""Example inputs for registered rules, built from the metadata stored with each registration.

``python -m chainrules check`` and the test suite call every rule at these inputs. A registration
describes its inputs with

* ``domain``: one entry per positional argument -- a ``(low, high)`` interval of real values,
  ``"int"`` (small non-negative integers) or ``"bool"``; ``None`` for no real examples;
* ``complex``: ``True``, or a rectangle ``(re_low, re_high, im_low, im_high)``, when complex
  inputs are in the domain;
* ``examples``: a function ``rng -> list[(args, kwargs)]`` of NumPy float64/complex128 values, for
  rules whose inputs are not elementwise (it replaces the two above);
* ``hermitian``: the positional arguments the function reads as Hermitian matrices (one
  triangle: ``cholesky``, ``eigh``); the testers perturb them along Hermitian directions.

Shapes cover 0-d, vectors, matrices, broadcasting of binary functions, Python-scalar operands
and (for the dot-product path of the testers) a larger array.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.examples import Example
from ..core.registry import Registration

__all__ = ["Example", "examples_for", "registered_scipy", "traced_examples"]

_DEFAULT_RECT = (-1.2, 1.2, -1.2, 1.2)


# argument shapes for each arity; "s" marks a Python scalar
_SHAPES: dict[int, list[tuple[Any, ...]]] = {
    1: [((),), ((4,),), ((2, 3),), ((7, 7),)],
    2: [((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (3,)), ("s", (3,)), ((3,), "s")],
    3: [((2, 3), (2, 3), (2, 3)), ((3,), (), ()), ((2, 3), (3,), "s")],
}


def _draw(rng: np.random.Generator, spec: Any, shape: Any, rect: Any) -> Any:
    scalar = shape == "s"
    shp = () if scalar else shape
    v: Any
    if spec == "int":
        v = rng.integers(0, 8, size=shp)
        return int(v) if scalar else np.asarray(v)
    if spec == "bool":
        v = rng.random(shp) > 0.5
        return bool(v) if scalar else np.asarray(v)
    if rect is not None:
        lo_r, hi_r, lo_i, hi_i = rect
        v = rng.uniform(lo_r, hi_r, shp) + 1j * rng.uniform(lo_i, hi_i, shp)
        return complex(v) if scalar else np.asarray(v)
    lo, hi = spec
    v = rng.uniform(lo, hi, shp)
    return float(v) if scalar else np.asarray(v)


def examples_for(reg: Registration, seed: int = 0) -> list[Example]:
    """Example inputs for ``reg`` (empty when it has no example metadata)."""
    rng = np.random.default_rng(seed)
    make: Callable[[np.random.Generator], list[Any]] | None = reg.examples
    if make is not None:
        out = []
        for item in make(rng):
            if isinstance(item, Example):
                out.append(item)
            else:
                args, kwargs = item
                out.append(Example(tuple(args), dict(kwargs), complex=_has_complex(args)))
        return out
    domain = reg.domain
    cplx = reg.complex_domain
    arity = len(domain) if domain is not None else reg.arity
    out = []
    if domain is not None:
        for shapes in _SHAPES.get(arity, [])[:]:
            args = tuple(_draw(rng, s, shp, None) for s, shp in zip(domain, shapes))
            out.append(Example(args, note=_note(shapes)))
    if cplx:
        rect = _DEFAULT_RECT if cplx is True else cplx
        specs = domain if domain is not None else ((0.0, 1.0),) * arity
        for shapes in _SHAPES.get(arity, [])[:3]:
            args = tuple(
                _draw(rng, s, shp, rect if s not in ("int", "bool") else None)
                for s, shp in zip(specs, shapes)
            )
            out.append(Example(args, note="complex " + _note(shapes), complex=True))
    return out


def traced_examples(reg: Registration, seed: int = 0) -> list[tuple[int, Example, int]]:
    """``(k, example, i)`` for each real example ``k`` of ``reg`` with a floating NumPy array
    among its positional arguments, ``i`` the first one's position: the argument a test traces
    when it calls the function as plain code would."""
    out = []
    for k, ex in enumerate(examples_for(reg, seed)):
        first = next(
            (i for i, a in enumerate(ex.args) if type(a) is np.ndarray and a.dtype.kind == "f"),
            None,
        )
        if first is not None and not ex.complex:
            out.append((k, ex, first))
    return out


def _has_complex(values: Any) -> bool:
    """Whether a complex array or number is among ``values`` (looking inside tuples and lists)."""
    for v in values:
        if isinstance(v, (tuple, list)):
            if _has_complex(v):
                return True
        elif isinstance(v, (np.ndarray, np.generic, complex)) and np.iscomplexobj(v):
            return True
    return False


def _note(shapes: tuple[Any, ...]) -> str:
    return " x ".join("scalar" if s == "s" else str(s) for s in shapes)


def registered_scipy(sub: str) -> dict[Any, Registration]:
    """The registry's ``"scipy:SUB.*"`` registrations (``sub``: ``"linalg"``, ``"stats"``), by the
    object each names in SciPy (a function, or a distribution's bound method)."""
    from ..core.registry import registrations
    from ..core.table import resolve_name

    out = {}
    for reg in registrations():
        if reg.family == "scipy" and str(reg.target).startswith(f"{sub}."):
            f = resolve_name("scipy", str(reg.target), np)
            if f is not None:
                out[f] = reg
    return out
