"""Engine bridges: the registered rules as the derivatives inside JAX, PyTorch and HIPS autograd.

``chainrules.interop.jax.wrap(f)``, ``chainrules.interop.torch.wrap(f)`` and
``chainrules.interop.autograd.wrap(f)`` turn a function with registered rules into a function of
that engine's arrays whose derivatives come from the rules; ``chainrules.interop.keras.wrap(f)``
does the same for Keras 3 (on its JAX and torch backends). Each submodule imports its engine;
importing this package imports none of them.
"""

__all__ = ["autograd", "jax", "torch"]
