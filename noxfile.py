"""Sessions: ``nox -s tests`` (the test suite), ``tests-thorough``, ``lint``, ``docs``, ``bench``,
``check``.

Each session installs what it needs into its own virtual environment, so a fresh machine needs
only Python and ``pip install nox``.
"""

from __future__ import annotations

import nox

nox.options.sessions = ["tests", "lint", "docs"]
nox.options.error_on_missing_interpreters = True

# The CPU wheel of torch 2.13.0 lies on these machines' disk; installed first, it satisfies the
# `torch` extra's range, so pip never reaches for a multi-GB CUDA build.
TORCH = "torch==2.13.0"


def _install(session: nox.Session, extras: str, torch: bool = False) -> None:
    if torch:
        session.install(TORCH)
    session.install("-e", f".[{extras}]")


@nox.session
def tests(session: nox.Session) -> None:
    """The test suite on NumPy, array-api-strict, JAX and PyTorch (CPU), on every core, with the
    fast Hypothesis profile ("ci": 25 derandomized examples per property)."""
    _install(session, "test,jax,torch,autograd", torch=True)
    session.run("pytest", "-n", "auto", *session.posargs, env={"HYPOTHESIS_PROFILE": "ci"})


@nox.session(name="tests-thorough")
def tests_thorough(session: nox.Session) -> None:
    """The test suite with the thorough Hypothesis profile (500 random examples per property)."""
    _install(session, "test,jax,torch,autograd", torch=True)
    session.run("pytest", "-n", "auto", *session.posargs, env={"HYPOTHESIS_PROFILE": "thorough"})


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
    """Build the documentation with warnings as errors."""
    _install(session, "docs")
    session.run("mkdocs", "build", "--strict", "-d", "site")


@nox.session
def bench(session: nox.Session) -> None:
    """Benchmarks: medians and same-process ratios (pass --markdown docs/benchmarks.md)."""
    _install(session, "bench")
    session.run("python", "benchmarks/run.py", *session.posargs)


@nox.session
def check(session: nox.Session) -> None:
    """The main job: python -m chainrules check on every installed backend."""
    _install(session, "strict,jax,torch,scipy", torch=True)
    session.run("python", "-m", "chainrules", "check", *session.posargs)
