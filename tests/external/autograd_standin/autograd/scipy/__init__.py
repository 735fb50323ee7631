"""``autograd.scipy``: SciPy's own modules (their functions are traced where chainrules has
rules for them)."""

from . import integrate, linalg, signal, special, stats

__all__ = ["integrate", "linalg", "signal", "special", "stats"]
