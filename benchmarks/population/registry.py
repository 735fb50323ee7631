"""Programs generated from the registry: ``chainrules.testing.campaign.programs.generate(seed)``
for seeds 0, 1, 2, ..., keeping the real float64 ones whose every function autograd also has
(its wrapped function is the very NumPy or SciPy function object the step calls) and whose
gradient autograd computes (the baseline exists), the first :data:`COUNT` of them. Which
programs chainrules.ad gets right plays no part in the choice. The program's loss
(``sum(y * w)``) is the scalar differentiated; ``x`` is the first step's argument and ``d``
(the data) a constant. Under autograd each step calls
autograd's wrapper of the same function and the glue runs on ``autograd.numpy``."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from .programs import GENERATED, Program

COUNT = 40
MAX_SEED = 2000


@functools.cache
def autograd_counterparts() -> dict[int, Any]:
    """id(NumPy/SciPy function) -> autograd's wrapper of it."""
    import importlib

    table: dict[int, Any] = {}
    for name in (
        "autograd.numpy",
        "autograd.numpy.linalg",
        "autograd.numpy.fft",
        "autograd.scipy.special",
        "autograd.scipy.linalg",
        "autograd.scipy.signal",
        "autograd.scipy.stats.norm",
    ):
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        for v in vars(mod).values():
            raw = getattr(v, "fun", None)
            if callable(v) and raw is not None:
                table.setdefault(id(raw), v)
    return table


class _AutogradNS:
    """The Array API names the campaign's glue and loss use, on autograd.numpy."""

    def __getattr__(self, name: str) -> Any:
        import autograd.numpy as anp

        if name == "isdtype":
            return lambda dt, kind: np.dtype(dt).kind == "c"
        if name == "matrix_transpose":
            return lambda a: anp.swapaxes(a, -1, -2)
        return getattr(anp, name)


def _ident(v: Any) -> Any:
    return v


def _numpy_ns(a: Any) -> Any:
    import array_api_compat

    return array_api_compat.array_namespace(a)


def _builder(p: Any) -> Callable[[str], Callable[..., Any]]:
    from chainrules.testing.backends import BACKENDS
    from chainrules.testing.campaign.oracles import native_function

    numpy = BACKENDS["numpy"]

    def build(engine: str) -> Callable[..., Any]:
        if engine == "numpy":
            fn_of, ns = native_function, _numpy_ns
        elif engine == "autograd":
            table = autograd_counterparts()
            fn_of = lambda r: table[id(numpy.function(r))]
            agns = _AutogradNS()
            ns = lambda a: agns
        else:
            raise NotImplementedError(f"registry programs: no {engine} build")

        def f(x: Any, d: Any = None) -> Any:
            return p.loss_of(p.run(x, d, fn_of, _ident, ns), _ident, ns)

        return f

    return build


def _autograd_differentiates(build: Callable[[str], Callable[..., Any]], args: tuple) -> bool:
    """autograd's gradient of the program runs (the baseline exists; it is not compared here)."""
    import warnings

    import autograd

    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            autograd.grad(build("autograd"))(*args)
    except Exception:  # noqa: BLE001  (a function autograd has no derivative for)
        return False
    return True


def programs() -> list[Program]:
    from chainrules.testing.backends import BACKENDS
    from chainrules.testing.campaign.programs import generate

    numpy = BACKENDS["numpy"]
    table = autograd_counterparts()
    out = []
    for seed in range(MAX_SEED):
        if len(out) == COUNT:
            break
        try:
            p = generate(seed)
        except RuntimeError:
            continue
        if p.dtype != "float64" or p.y_complex or p.signature not in ("args", "kwarg"):
            continue
        if p.x.size == 0 or any(id(numpy.function(s.reg)) not in table for s in p.steps):
            continue
        args = (p.x,) if p.d is None else (p.x, p.d)
        build = _builder(p)
        if not _autograd_differentiates(build, args):
            continue
        out.append(
            Program(
                name=f"registry.seed{seed}",
                category="registry",
                source=GENERATED,
                licence="this project's",
                args=args,
                build=build,
                spelling="registry",
                note=" -> ".join(p.names) + f" x{p.x.shape}",
            )
        )
    return out
