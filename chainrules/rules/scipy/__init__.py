"""Rules for SciPy's functions, registered as ``"scipy:MODULE.NAME"`` targets: each covers
``scipy.MODULE.NAME``, ``jax.scipy.MODULE.NAME``, ``cupyx.scipy.MODULE.NAME`` and the namespaces
registered for the family (``torch.special`` for the functions whose signature is SciPy's).

Nothing here imports SciPy, JAX, PyTorch or CuPy: the rules are registered by name and resolved
when a library's function is first looked up.
"""

from . import special  # noqa: F401
