"""Testing utilities for rule authors: ``test_rrule``, ``test_frule`` and their helpers.

>>> import numpy as np, chainrules as cr
>>> from chainrules.testing import test_rrule, test_frule
>>> test_rrule(np.sin, np.array([0.1, 0.2, 0.3]))
>>> test_frule(np.multiply, np.ones((2, 3)), np.arange(3.0))

Hypothesis strategies live in ``chainrules.testing.strategies`` (it imports hypothesis).
"""

from .arrays import like, to_numpy
from .backends import BACKENDS, Backend, available_backends, get_backend
from .checks import check_jit, check_scalar_free
from .device import DEVICE, DeviceMismatchError, device_array, is_device_array
from .examples import Example, examples_for
from .finite_differences import central_difference, directional_derivative, gradient
from .grad_checks import check_grads
from .jax_reference import check_agrees_with_jax
from .tester import test_frule, test_rrule

__all__ = [
    "BACKENDS",
    "DEVICE",
    "Backend",
    "DeviceMismatchError",
    "Example",
    "available_backends",
    "central_difference",
    "check_agrees_with_jax",
    "check_grads",
    "check_jit",
    "check_scalar_free",
    "device_array",
    "directional_derivative",
    "examples_for",
    "get_backend",
    "gradient",
    "is_device_array",
    "like",
    "test_frule",
    "test_rrule",
    "to_numpy",
]
