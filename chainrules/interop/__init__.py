"""Engine bridges: the registered rules as the derivatives inside JAX, PyTorch, HIPS autograd and
PyTensor (PyMC).

``chainrules.interop.jax.wrap(f)``, ``chainrules.interop.torch.wrap(f)``,
``chainrules.interop.autograd.wrap(f)`` and ``chainrules.interop.pytensor.wrap(f)`` turn a
function with registered rules into a function of that engine's arrays (or graph variables) whose
derivatives come from the rules; ``chainrules.interop.keras.wrap(f)`` does the same for Keras 3
(on its JAX and torch backends). Each submodule imports its engine; importing this package
imports none of them.
"""

__all__ = ["autograd", "jax", "keras", "pytensor", "torch"]
