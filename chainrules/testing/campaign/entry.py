"""An entry of the campaign's corpus (:class:`Entry`: a function at one point), the list of the
user-code entries (``USER``, filled by ``user_in_place`` and ``user_numerics`` at their import, in
that order) with the decorator that adds one (``_user``), and the points they share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


# --- entries ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Entry:
    """One function of the corpus at one point: ``fn(x, d)`` (``fn(x)`` where ``d`` is None),
    called the way ``signature`` says (see :attr:`.programs.Program.as_user_function`)."""

    name: str
    fn: Callable[..., Any]
    x: np.ndarray
    d: np.ndarray | None = None
    signature: str = "args"  # args / kwarg / tuple / dict
    tags: frozenset[str] = frozenset()  # what the code does, for the report's coverage
    # d is read as a Hermitian matrix (one triangle: multivariate_normal's cov), so its
    # derivative is defined along Hermitian directions only, and each engine picks its
    # representative (chainrules' is the Hermitian one, DESIGN): compared along such directions
    hermitian_d: bool = False

    def call(self, x: Any, d: Any) -> Any:
        return self.fn(x) if self.d is None else self.fn(x, d)


_R = np.random.default_rng(26)


_X43 = _R.standard_normal((4, 3))  # a design matrix


_W3 = np.array([0.4, -0.7, 1.1])


_V5 = np.array([0.3, -1.2, 0.7, 2.0, 0.1])


_P5 = np.array([0.4, 1.3, 0.8, 2.1, 0.6])


_SERIES = np.array([0.2, 0.5, 0.1, -0.3, 0.4, 0.9, 0.6])


_XQ = np.random.default_rng(0).normal(size=(4, 3))


_XT = np.random.default_rng(0).normal(size=(16, 3))[4:]  # issue 26's training data


USER: list[Entry] = []


def _user(
    x: np.ndarray,
    d: np.ndarray | None = None,
    signature: str = "args",
    tags: str = "",
    hermitian_d: bool = False,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        t = set(tags.split(",")) - {""}
        if d is not None:
            t.add("several arguments")
        tags_ = frozenset(t | {"user"})
        USER.append(Entry(fn.__name__, fn, x, d, signature, tags_, hermitian_d))
        return fn

    return deco
