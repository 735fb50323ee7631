"""autograd's extension API has no counterpart here: chainrules registers rules instead
(``chainrules.register_rrule`` / ``register_frule`` with ``@chainrules.traceable``). The names
exist so that modules importing them load; using them raises ``NotImplementedError``."""

from __future__ import annotations

from typing import Any


def _absent(name: str) -> Any:
    def absent(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f"autograd.{name} is autograd's extension API, which the chainrules.ad stand-in does "
            "not provide: register a rule with chainrules.register_rrule instead"
        )

    absent.__name__ = name
    return absent


primitive = _absent("primitive")
defvjp = _absent("defvjp")
defjvp = _absent("defjvp")
defvjp_argnum = _absent("defvjp_argnum")
defjvp_argnum = _absent("defjvp_argnum")
def_linear = _absent("def_linear")
vspace = _absent("vspace")
notrace_primitive = _absent("notrace_primitive")


class Box:
    """autograd's boxes do not exist here; nothing is an instance of this class."""


class VSpace:
    """autograd's vector spaces do not exist here."""
