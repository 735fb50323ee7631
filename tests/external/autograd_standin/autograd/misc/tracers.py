"""autograd.misc.const_graph (a function whose trace is recorded once and reused) is
chainrules.ad.jit of the partial application."""

import functools

from chainrules import ad


def const_graph(fun, *args, **kwargs):
    return ad.jit(functools.partial(fun, *args, **kwargs))
