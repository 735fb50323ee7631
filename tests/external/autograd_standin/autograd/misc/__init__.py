from .flatten import flatten
from .tracers import const_graph

__all__ = ["const_graph", "flatten"]
