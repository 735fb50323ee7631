"""One source file, loaded once per engine with NumPy resolved to that engine's module.

The programs are plain NumPy code: each file says ``import numpy as np`` (or ``from numpy import
sum, cos``, ``from scipy.special import logsumexp``) as its authors wrote it. :func:`load` runs a
file's source in a fresh module whose ``__builtins__`` carry an ``__import__`` that resolves
those imports to the engine's module: for ``"autograd"``, ``numpy`` is ``autograd.numpy`` and
``scipy.special`` is ``autograd.scipy.special`` (names the engine's module lacks fall back to
the original, as they do for a user who swaps the import line); for ``"torch"``, ``numpy`` is
``array_api_compat.torch``. For ``"numpy"`` (``chainrules.ad`` traces NumPy's own functions)
the file is the ordinary imported module. Nothing outside the loaded module changes: the hook
is that module's own ``__builtins__``, and relative imports (``from .go_benchmark import
Benchmark``) reach the ordinary modules.
"""

from __future__ import annotations

import builtins
import importlib
import importlib.util
import types
from typing import Any

# engine -> {module prefix: the engine's module}
IMPORTS: dict[str, dict[str, str]] = {
    "numpy": {},
    "autograd": {
        "numpy": "autograd.numpy",
        "scipy.special": "autograd.scipy.special",
        "scipy.stats": "autograd.scipy.stats",
        "scipy.linalg": "autograd.scipy.linalg",
        "scipy.signal": "autograd.scipy.signal",
    },
    "torch": {"numpy": "array_api_compat.torch"},
}

_CACHE: dict[tuple[str, str], types.ModuleType] = {}


def _merged(original: types.ModuleType, target: types.ModuleType) -> types.ModuleType:
    """A module with ``target``'s names over ``original``'s (a name ``target`` lacks is the
    original's, as a user who swaps the import line gets)."""
    m = types.ModuleType(target.__name__, target.__doc__)
    m.__dict__.update({k: v for k, v in vars(original).items() if not k.startswith("__")})
    m.__dict__.update({k: v for k, v in vars(target).items() if not k.startswith("__")})
    return m


def _resolver(engine: str) -> Any:
    table = IMPORTS[engine]
    done: dict[str, types.ModuleType] = {}

    def mapped(name: str) -> types.ModuleType | None:
        for prefix, target in table.items():
            if name == prefix or name.startswith(prefix + "."):
                if name not in done:
                    original = importlib.import_module(name)
                    try:
                        t = importlib.import_module(target + name[len(prefix) :])
                    except ImportError:
                        done[name] = original
                    else:
                        done[name] = _merged(original, t)
                return done[name]
        return None

    def __import__(
        name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
    ) -> Any:
        if level == 0:
            if fromlist:
                m = mapped(name)
                if m is not None:
                    return m
            else:
                top = name.split(".")[0]
                m = mapped(top)
                if m is not None:
                    # ``import numpy.linalg as la`` takes .linalg of what this returns
                    for part in name.split(".")[1:]:
                        setattr(m, part, mapped(f"{top}.{part}") or getattr(m, part))
                    return m
        return builtins.__import__(name, globals, locals, fromlist, level)

    return __import__


def load(module: str, engine: str) -> types.ModuleType:
    """The module ``module`` (dotted name) with its imports resolved for ``engine``."""
    key = (module, engine)
    if key in _CACHE:
        return _CACHE[key]
    if not IMPORTS[engine]:
        mod = importlib.import_module(module)
    else:
        spec = importlib.util.find_spec(module)
        if spec is None or spec.loader is None or spec.origin is None:
            raise ImportError(f"load: no source for module {module!r}")
        source = spec.loader.get_source(module)  # type: ignore[attr-defined]
        mod = types.ModuleType(f"{module}[{engine}]")
        own = dict(vars(builtins))
        own["__import__"] = _resolver(engine)
        mod.__dict__.update(
            __builtins__=own,
            __file__=spec.origin,
            __package__=module.rpartition(".")[0],
        )
        exec(compile(source, spec.origin, "exec"), mod.__dict__)
    _CACHE[key] = mod
    return mod
