"""autograd.misc.flatten is chainrules.ad.ravel_pytree."""

from chainrules.ad import ravel_pytree as flatten

__all__ = ["flatten"]
