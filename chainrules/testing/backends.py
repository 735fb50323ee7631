"""The array libraries rules are checked on, imported only when asked for.

Each ``Backend`` knows how to import its library, turn NumPy example values into its arrays in
a given dtype, and find the function a registration covers in it (``numpy.sin``,
``jax.numpy.sin``, ``torch.sin`` ...).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.registry import ARRAY_API, NUMPY, SCIPY, TORCH_NAMES, Registration, resolve_name

__all__ = [
    "BACKENDS",
    "EXTRA_BACKENDS",
    "Backend",
    "available_backends",
    "get_backend",
    "use_jax_compilation_cache",
    "use_quick_xla_compiles",
]


@dataclass
class Backend:
    """One array library as seen by the testers."""

    name: str
    module: str  # the namespace holding its functions
    families: tuple[str, ...]  # which registrations it covers
    setup: Callable[[Any], Any] | None = None  # called once after import, returns the namespace
    needs_gpu: bool = False
    # applied to every array the backend makes from an example value (dask: split into chunks)
    convert: Callable[[Any], Any] | None = None

    def available(self) -> bool:
        try:
            self.namespace()
        except Exception:  # noqa: BLE001  (not installed, or no device)
            return False
        return True

    def namespace(self) -> Any:
        ns = _NS_CACHE.get(self.name)
        if ns is None:
            mod = importlib.import_module(self.module)
            ns = self.setup(mod) if self.setup is not None else mod
            _NS_CACHE[self.name] = ns
        return ns

    def function(self, reg: Registration) -> Any:
        """The function object ``reg`` covers in this library, or ``None``."""
        if reg.family == "callable":
            # a callable that works on every library's arrays (operator.getitem, scatter_add)
            return reg.target if reg.generic else None
        if reg.family not in self.families:
            return None
        ns = self.namespace()
        name = str(reg.target)
        if self.name == "torch" and reg.family == ARRAY_API and name not in TORCH_NAMES:
            import array_api_compat.torch as ns  # the standard's signatures for the rest

        return resolve_name(reg.family, name, ns)

    def asarray(self, value: Any, dtype: str) -> Any:
        """A NumPy example value as this library's array in ``dtype`` (a name: ``"float32"``).
        Integer and boolean arrays keep their kind; a NumPy dtype becomes this library's dtype of
        that name; anything else that is not a NumPy array or scalar (Python scalars, strings,
        ``None``, tuples) is passed through unchanged."""
        if isinstance(value, (tuple, list)):  # index keys, sequences of arrays
            return type(value)(self.asarray(v, dtype) for v in value)
        if isinstance(value, np.dtype):  # a dtype argument (astype's): this library's own
            return getattr(self.array_namespace(), value.name)
        if not isinstance(value, (np.ndarray, np.generic)):
            return value  # Python scalars, strings, None, slices: passed as they are
        value = np.asarray(value)
        xp = self.array_namespace()
        if value.dtype.kind in "biu":
            dt = xp.bool if value.dtype.kind == "b" else xp.int64
        else:
            dt = getattr(xp, dtype)
        out = xp.asarray(value, dtype=dt)
        return self.convert(out) if self.convert is not None else out

    @contextlib.contextmanager
    def precision(self, dtype: str) -> Iterator[None]:
        """Run a check in ``dtype``'s precision. PyTorch makes its *default* floating dtype
        (float32) wherever a function creates a floating array from no floating array --
        ``linspace``, ``arange`` and ``full`` from 0-d float64 tensors -- so a float64 check sets
        torch's default dtype to float64 for its duration, as JAX runs with x64 enabled; the
        float32 checks keep torch's own default."""
        if self.name != "torch":
            yield
            return
        import torch

        old = torch.get_default_dtype()
        torch.set_default_dtype(torch.float64 if dtype in ("float64", "complex128") else old)
        try:
            yield
        finally:
            torch.set_default_dtype(old)

    def array_namespace(self) -> Any:
        ns = self.namespace()
        if self.name == "torch":
            import array_api_compat.torch as compat_torch

            return compat_torch
        return ns


_NS_CACHE: dict[str, Any] = {}


def _jax_setup(jnp: Any) -> Any:
    import jax

    # the testers compute references in float64; chainrules itself never changes this flag
    jax.config.update("jax_enable_x64", True)
    return jnp


def _cupy_setup(cupy: Any) -> Any:
    if not cupy.cuda.is_available():
        raise RuntimeError("CuPy is installed but no CUDA device is available")
    return cupy


def _two_chunks(x: Any) -> Any:
    """A dask array split into two chunks along each axis of size >= 2 (one chunk otherwise),
    so that every rule meets arrays of more than one block, as users' arrays are."""
    return x.rechunk(tuple(max(1, -(-n // 2)) for n in x.shape)) if x.ndim else x


BACKENDS: dict[str, Backend] = {
    b.name: b
    for b in (
        Backend("numpy", "numpy", (ARRAY_API, NUMPY, SCIPY)),
        Backend("array_api_strict", "array_api_strict", (ARRAY_API,)),
        Backend("jax", "jax.numpy", (ARRAY_API, NUMPY, SCIPY), setup=_jax_setup),
        Backend("torch", "torch", (ARRAY_API, SCIPY)),
        Backend("cupy", "cupy", (ARRAY_API, NUMPY, SCIPY), setup=_cupy_setup, needs_gpu=True),
    )
}

# Backends that are not (yet) columns of the check command and the rule suites, which run every
# entry of BACKENDS: they are reached by name (get_backend) and have test modules of their own.
# dask goes through array-api-compat's wrapper (the standard's signatures on dask.array); its
# rules are judged for laziness and against NumPy in tests/dask (see docs/beyond-one-machine.md).
EXTRA_BACKENDS: dict[str, Backend] = {
    "dask": Backend("dask", "array_api_compat.dask.array", (ARRAY_API,), convert=_two_chunks),
}


def get_backend(name: str) -> Backend:
    """The ``Backend`` called ``name`` (``numpy``, ``array_api_strict``, ``jax``, ...)."""
    try:
        return BACKENDS[name] if name in BACKENDS else EXTRA_BACKENDS[name]
    except KeyError:
        names = ", ".join([*BACKENDS, *EXTRA_BACKENDS])
        raise ValueError(f"unknown backend {name!r}; choose from {names}") from None


def available_backends() -> list[Backend]:
    """The backends importable here (CuPy only with a CUDA device)."""
    return [b for b in BACKENDS.values() if b.available()]


_JAX_CACHE_SETTINGS = {
    # jax's own configuration names (also read from the environment, upper-cased, at import)
    "jax_persistent_cache_min_compile_time_secs": 0,
    "jax_persistent_cache_min_entry_size_bytes": 0,
}


def use_jax_compilation_cache(path: str | None = None) -> str | None:
    """Keep the programs JAX compiles on disk, so that a compile is paid once per machine rather
    than once per process -- and once per ``jax.jit`` of a new closure with the same program.

    The checkers compile many small programs: in eager mode every ``jax.numpy`` function
    compiles once per shape and dtype, and the jit column traces each rule anew per example. On
    this project's 2-core machines the JAX and jit columns of the check command spend most of
    their time in XLA's compiler, and a second run of the same cells with the cache is 5-10x
    faster. The test suite (``tests/conftest.py``) and ``python -m chainrules check`` call this
    for their own processes; ``chainrules`` never changes JAX's configuration otherwise.

    ``path`` defaults to ``$CHAINRULES_JAX_CACHE``, else a folder in the temporary directory;
    ``CHAINRULES_JAX_CACHE=0`` (or empty) turns it off. A cache the process configured already
    (``JAX_COMPILATION_CACHE_DIR``) is kept. Returns the folder used, or ``None`` when off.
    JAX keys each entry by the program, its compile options, the flags and JAX's version, so a
    stale entry is never used.
    """
    if path is None:
        path = os.environ.get("CHAINRULES_JAX_CACHE")
        if path is None:
            user = os.environ.get("USER") or str(os.getuid())
            path = os.path.join(tempfile.gettempdir(), f"chainrules-jax-cache-{user}")
    if path in ("", "0"):
        return None
    path = os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", path)
    for key, value in _JAX_CACHE_SETTINGS.items():
        os.environ.setdefault(key.upper(), str(value))
    jax = sys.modules.get("jax")
    if jax is not None:  # imported already: the environment is read at import only
        if jax.config.jax_compilation_cache_dir is None:
            jax.config.update("jax_compilation_cache_dir", path)
            for key, value in _JAX_CACHE_SETTINGS.items():
                jax.config.update(key, value)
        path = jax.config.jax_compilation_cache_dir
    return path


_XLA_QUICK = "--xla_backend_optimization_level=0"


def use_quick_xla_compiles() -> bool:
    """Compile JAX programs with XLA's CPU backend optimisation level 0 in this process and the
    processes it starts: the checkers' programs are small and run once, and compiling is most of
    the JAX and jit columns' time (level 0 takes about 20% less CPU over the scipy.special
    rules' JAX cells here). Arithmetic stays IEEE at every level (XLA's CPU backend does not use
    fast-math), and the results are compared with the same tolerances.

    Sets ``XLA_FLAGS`` before JAX creates its CPU client; a level the user chose in
    ``XLA_FLAGS`` is kept, and ``CHAINRULES_XLA_QUICK=0`` turns this off. Returns whether the
    flag is in effect for clients created from now on.
    """
    if os.environ.get("CHAINRULES_XLA_QUICK", "1") in ("", "0"):
        return False
    flags = os.environ.get("XLA_FLAGS", "")
    if "--xla_backend_optimization_level" in flags:
        return _XLA_QUICK in flags.split()
    os.environ["XLA_FLAGS"] = f"{flags} {_XLA_QUICK}".strip()
    return True
