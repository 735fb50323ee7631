"""autograd.extend: chainrules.ad.extend (``primitive``, ``defvjp``, ``defjvp``, ...); autograd's
box is ``chainrules.ad.Tracer``. ``vspace`` / ``VSpace`` (autograd's vector spaces) have no
counterpart: the tests that use them are in not_applicable.txt."""

from __future__ import annotations

from typing import Any

from chainrules.ad import Tracer as Box
from chainrules.ad.extend import (
    def_linear,
    defjvp,
    defjvp_argnum,
    defvjp,
    defvjp_argnum,
    notrace_primitive,
    primitive,
)


def vspace(value: Any) -> Any:
    raise NotImplementedError("autograd's vector spaces have no counterpart in chainrules.ad")


class VSpace:
    """autograd's vector spaces have no counterpart in chainrules.ad."""


__all__ = [
    "Box",
    "VSpace",
    "def_linear",
    "defjvp",
    "defjvp_argnum",
    "defvjp",
    "defvjp_argnum",
    "notrace_primitive",
    "primitive",
    "vspace",
]
