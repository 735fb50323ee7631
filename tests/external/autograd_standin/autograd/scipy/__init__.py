"""``autograd.scipy``: the public drop-in ``chainrules.ad.scipy``'s modules."""

from . import integrate, linalg, signal, special, stats

__all__ = ["integrate", "linalg", "signal", "special", "stats"]
