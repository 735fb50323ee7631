"""Sessions: ``nox -s tests`` (the test suite), ``tests-thorough``, ``lint``, ``docs``, ``bench``,
``population`` (the population benchmark), ``check``, ``fuzz`` (the differential campaign),
``install-check`` (README's install line without CUDA brings no CUDA package; needs the network)
and ``torch`` (the interop tests on the lowest and the highest torch that pyproject.toml allows).

``tests``, ``tests-thorough``, ``check``, ``bench`` and ``population`` run in one shared
environment, ``.nox/all``, with ``pip install -e ".[all]"`` (JAX and PyTorch are installed once,
not once per session); ``lint`` and ``docs`` have small environments of their own. A fresh
machine needs only Python and nox.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import tomllib
from pathlib import Path

import nox

nox.options.sessions = ["tests", "lint", "docs"]
nox.options.error_on_missing_interpreters = True

# The CPU wheel of torch 2.13.0 lies on these machines' disk (PyTorch's CPU index is out of their
# reach); installed first, it satisfies the `torch` extra's range, so pip never reaches for the
# multi-GB CUDA build. Elsewhere README's install line without CUDA takes the CPU index instead.
TORCH = "torch==2.13.0"
SHARED = "all"  # the shared environment's folder under nox's envdir (.nox/all)


def _install(session: nox.Session, extras: str, torch: bool = False) -> None:
    if torch:
        session.install(TORCH)
    session.install("-e", f".[{extras}]")


def _shared(session: nox.Session) -> dict[str, str]:
    """Create (once) and update the shared environment ``.nox/all`` with ``.[all]``; return the
    environment variables that run a command in it. pip runs again only when pyproject.toml
    changed (the package itself is installed editable); delete ``.nox/all`` to rebuild it."""
    # beside this session's own (unused) folder under nox's envdir (Session.env_dir: nox 2024.10)
    own = getattr(session, "env_dir", None) or Path(".nox") / session.name
    env_dir = Path(own).parent / SHARED
    bindir = env_dir / ("Scripts" if sys.platform == "win32" else "bin")
    python = str(bindir / "python")
    stamp = env_dir / ".chainrules-pyproject-sha256"
    want = hashlib.sha256(Path("pyproject.toml").read_bytes()).hexdigest()
    fresh = not bindir.exists()
    if fresh:
        session.run(sys.executable, "-m", "venv", str(env_dir), external=True)
    if fresh or not stamp.exists() or stamp.read_text() != want:
        pip = (python, "-m", "pip", "install", "--disable-pip-version-check")
        session.run(*pip, TORCH, external=True)
        session.run(*pip, "-e", ".[all]", external=True)
        stamp.write_text(want)
    else:
        session.log(f"reusing {env_dir} (pyproject.toml unchanged)")
    path = str(bindir) + os.pathsep + os.environ.get("PATH", "")
    return {"VIRTUAL_ENV": str(env_dir), "PATH": path, "PYTHON": python}


def _run_shared(session: nox.Session, *args: str, env: dict[str, str] | None = None) -> None:
    shared = _shared(session)
    python = shared.pop("PYTHON")
    session.run(python, *args, env={**shared, **(env or {})}, external=True)


@nox.session(venv_backend="none")
def tests(session: nox.Session) -> None:
    """The test suite on NumPy, array-api-strict, JAX and PyTorch (CPU), on every core, with the
    fast Hypothesis profile ("ci": 25 derandomized examples per property)."""
    args = ("-m", "pytest", "-n", "auto", *session.posargs)
    _run_shared(session, *args, env={"HYPOTHESIS_PROFILE": "ci"})


@nox.session(name="tests-thorough", venv_backend="none")
def tests_thorough(session: nox.Session) -> None:
    """The test suite with the thorough Hypothesis profile (500 random examples per property)."""
    args = ("-m", "pytest", "-n", "auto", *session.posargs)
    _run_shared(session, *args, env={"HYPOTHESIS_PROFILE": "thorough"})


@nox.session
def lint(session: nox.Session) -> None:
    """ruff (lint and format) and mypy."""
    session.install("ruff>=0.6", "mypy>=1.11")
    _install(session, "test")
    session.run("ruff", "check", "chainrules", "tests", "benchmarks", "noxfile.py")
    session.run("ruff", "format", "--check", "chainrules", "tests", "benchmarks", "noxfile.py")
    session.run("mypy")


@nox.session
def docs(session: nox.Session) -> None:
    """Build the documentation with warnings as errors, then render home, getting started, the
    API reference and the benchmarks in headless Chromium (tests/test_docs_render.py: raw roles,
    broken images, text cut off; it fails, not skips, without a Chromium on PATH)."""
    _install(session, "docs")
    session.install("pytest>=8")
    session.run("mkdocs", "build", "--strict", "-d", "site")
    render = ("tests/test_docs_render.py", "--noconftest", "-p", "no:cacheprovider", "-q")
    session.run("python", "-m", "pytest", *render, env={"CHAINRULES_DOCS_SITE": "site"})


@nox.session(venv_backend="none")
def bench(session: nox.Session) -> None:
    """Benchmarks: medians and same-process ratios, each row printed as it is measured (pass
    --quick, --json PATH, --plots, --markdown docs/benchmarks-method.md, or suite names)."""
    _run_shared(session, "benchmarks/run.py", *session.posargs)


@nox.session(venv_backend="none")
def population(session: nox.Session) -> None:
    """The population benchmark (issue 27): 300-odd programs that people write, chainrules.ad's
    grad, hessian and jacobian over autograd's in one process, per category (pass --quick,
    --half dev|held-out|all, --engines chainrules,autograd,torch, --repeats N, --json OUT)."""
    _run_shared(session, "-m", "benchmarks.population", *session.posargs)


@nox.session(venv_backend="none")
def fuzz(session: nox.Session) -> None:
    """The differential campaign (issue 26): programs generated from the registry, checked
    against each other, finite differences, JAX, torch and the bridges, then the corpus of user
    code. Default: seeds 0-9999 on the native engine and the device array, and every corpus
    entry; pass e.g. ``--seeds 0:500 --engines device,jax,torch,jax-bridge,autograd-bridge``
    (``--source generated`` or ``corpus`` for one source)."""
    args = session.posargs or ["--seeds", "0:10000", "--engines", "native,device"]
    if "--source" not in args:
        args = [*args, "--source", "all"]
    _run_shared(session, "-m", "chainrules.testing.campaign", *args)


@nox.session(venv_backend="none")
def check(session: nox.Session) -> None:
    """The main job: python -m chainrules check on every installed backend."""
    _run_shared(session, "-m", "chainrules", "check", *session.posargs)


@nox.session(name="install-check")
def install_check(session: nox.Session) -> None:
    """README's install line without CUDA, resolved by ``pip install --dry-run --report``: fails
    on any nvidia-*, cuda-* or triton package and prints the download size (needs PyPI and
    PyTorch's CPU index; ``-- --cuda`` prints the CUDA line's sizes)."""
    session.run("python", ".ci/install_check.py", *session.posargs)


def torch_bounds(pyproject: str) -> tuple[str, str]:
    """The ``torch`` extra's range in pyproject.toml's text: ``(lowest, spec)``, the version of
    its ``>=`` bound and the whole requirement (pip's newest match is the highest allowed)."""
    extras = tomllib.loads(pyproject)["project"]["optional-dependencies"]
    (req,) = extras["torch"]
    m = re.fullmatch(r"torch\s*>=\s*([\w.]+)\s*,\s*(<=?)\s*([\w.]+)", req)
    if m is None:
        raise ValueError(f"the torch extra {req!r} is not 'torch>=LOW,<HIGH' (or <=HIGH)")
    return m.group(1), req


# what the torch session runs: the bridges and every test that builds torch tensors
TORCH_TESTS = ("tests/interop", "tests/ad", "-k", "torch or Torch or interop")


CPU_INDEX = "https://download.pytorch.org/whl/cpu"  # README's line without CUDA adds it


def _reachable(url: str) -> bool:
    import urllib.request

    try:
        with urllib.request.urlopen(url.rstrip("/") + "/torch/", timeout=10):
            return True
    except OSError:
        return False


@nox.session
@nox.parametrize("which", ["lowest", "highest"])
def torch(session: nox.Session, which: str) -> None:
    """The torch interop and AD tests on the lowest (``torch==LOW``) or the highest torch that
    pyproject.toml's ``torch`` extra allows, each in its own environment, from PyTorch's CPU
    index where it is reachable (else pip's other sources: PyPI's CUDA build, local wheels)."""
    low, spec = torch_bounds(Path("pyproject.toml").read_text())
    want = f"torch=={low}" if which == "lowest" else spec
    index = ["--extra-index-url", CPU_INDEX] if _reachable(CPU_INDEX) else []
    session.install(want, *index, *session.posargs)
    session.install("-e", ".[all]")
    session.run("python", "-c", "import torch; print('torch', torch.__version__)")
    args = ("-m", "pytest", "-n", "auto", *TORCH_TESTS)
    session.run("python", *args, env={"HYPOTHESIS_PROFILE": "ci"})
