from __future__ import annotations

import numpy as np

from chainrules.testing import central_difference, directional_derivative, gradient


def test_five_point_stencil_is_accurate() -> None:
    d = central_difference(lambda t: np.exp(1.0 + t), 1e-3)
    assert abs(d - np.e) < 1e-10
    # a list of outputs gives a list of derivatives
    d2 = central_difference(lambda t: [np.sin(t), np.full(2, t * t)], 1e-3)
    assert np.allclose(d2[0], 1.0, atol=1e-12) and np.allclose(d2[1], 0.0, atol=1e-12)


def test_directional_derivative_holds_none_fixed() -> None:
    F = lambda xs: xs[0] * (2.0 if xs[1] is None else xs[1])
    d = directional_derivative(F, [np.ones(2), None], [np.array([1.0, 2.0]), None], 1e-3)
    assert np.allclose(d, [2.0, 4.0])


def test_gradient_of_complex_argument_uses_the_re_plus_i_im_convention() -> None:
    z = np.array([1.0 + 2.0j, -0.5 + 0.1j])
    g = gradient(lambda xs: float(np.sum(np.abs(xs[0]) ** 2)), [z], 0, 1e-3)
    # d|z|^2/dRe + i d|z|^2/dIm = 2 Re z + 2i Im z = 2z
    assert np.allclose(g, 2 * z, atol=1e-9)
    gr = gradient(lambda xs: float(np.sum(xs[0] ** 3)), [np.array([2.0])], 0, 1e-3)
    assert not np.iscomplexobj(gr) and np.allclose(gr, 12.0)
