"""Rule sets, one module per family of functions in the Array API standard.

Importing this package registers every rule; ``import chainrules`` does it.
"""

from . import elementwise, indexing, linalg, statistical  # noqa: F401
