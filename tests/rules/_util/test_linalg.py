"""The linear-algebra rules' shared helpers (``rules/_util/linalg.py``): ``named_singular`` knows
a backend's ``LinAlgError`` by its type, not by its class's name."""

from __future__ import annotations

from typing import Any

import pytest

from chainrules.rules._util.linalg import named_singular

_WHY = "the pullback needs A^-1"


def test_an_error_named_like_linalgerror_is_not_one() -> None:
    class NotALinAlgError(ValueError):  # its name holds "LinAlgError"; it is none
        pass

    def call() -> Any:
        raise NotALinAlgError("as raised")

    with pytest.raises(NotALinAlgError, match=r"^as raised$"):
        named_singular("inv", _WHY, call)


@pytest.mark.parametrize("library", ["numpy", "torch"])
def test_a_backends_linalgerror_is_named(library: str) -> None:
    lib = pytest.importorskip(library)
    with pytest.raises(lib.linalg.LinAlgError, match=r"^inv: .*, and the matrix is singular"):
        named_singular("inv", _WHY, lambda: lib.linalg.inv(lib.zeros((2, 2))))
