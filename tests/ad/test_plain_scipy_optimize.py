"""``scipy.optimize``'s test functions, unchanged, under ``SCIPY_ARRAY_API=1`` (issue 29, item 2).

SciPy 1.17 has four: ``rosen``, ``rosen_der``, ``rosen_hess`` and ``rosen_hess_prod`` (the
test checks that no other public name of ``scipy.optimize`` starts with ``rosen``, so a new one
is noticed). Written for the array API, they take traced arrays when SciPy's array API mode is
on; SciPy reads ``SCIPY_ARRAY_API`` once, at its import, so each check runs in a process of its
own. Every function is checked against its exact derivative (the next function of the family:
``rosen_der`` is ``rosen``'s gradient, ``rosen_hess`` its Jacobian, ``rosen_hess_prod(x, p)``
is ``rosen_hess(x) @ p``) under ``grad``, ``jacobian``, ``hessian``, ``jvp``, ``ad.jit`` and on
the scalar-guarded device array. Without the flag the error says to set it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("scipy")


def _run(code: str, scipy_array_api: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "SCIPY_ARRAY_API"}
    root = str(Path(__file__).resolve().parents[2])  # this checkout's chainrules
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
    if scipy_array_api is not None:
        env["SCIPY_ARRAY_API"] = scipy_array_api
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        capture_output=True,
        text=True,
        cwd=root,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_the_test_functions_under_scipys_array_api_mode() -> None:
    out = _run(
        """
        import numpy as np
        import scipy.optimize as so
        from chainrules import ad
        from chainrules.testing import device_array, to_numpy

        assert {n for n in dir(so) if n.startswith("rosen")} == {
            "rosen", "rosen_der", "rosen_hess", "rosen_hess_prod"
        }
        x = np.array([0.5, 1.2, -0.3, 0.8, 1.1])
        p = np.array([1.0, -0.5, 2.0, 0.25, -1.0])
        close = lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)

        # rosen: its gradient is rosen_der, its Hessian rosen_hess
        close(ad.grad(so.rosen)(x), so.rosen_der(x))
        close(ad.hessian(so.rosen)(x), so.rosen_hess(x))
        close(ad.jvp(so.rosen, (x,), (p,))[1], so.rosen_der(x) @ p)
        # rosen_der: its Jacobian is rosen_hess
        close(ad.jacobian(so.rosen_der)(x), so.rosen_hess(x))
        close(ad.jacobian(so.rosen_der, mode="fwd")(x), so.rosen_hess(x))
        # rosen_hess and rosen_hess_prod: against finite differences of rosen_hess (exact in
        # x up to rounding: the Hessian is a polynomial of degree 2), and each other
        h = 1e-6
        fd = np.stack([(so.rosen_hess(x + h * e) - so.rosen_hess(x - h * e)) / (2 * h)
                       for e in np.eye(5)], axis=-1)
        np.testing.assert_allclose(ad.jacobian(so.rosen_hess)(x), fd, rtol=1e-7, atol=1e-6)
        np.testing.assert_allclose(
            ad.jacobian(lambda v: so.rosen_hess_prod(v, p))(x),
            np.einsum("ijk,j->ik", fd, p), rtol=1e-7, atol=1e-6,
        )
        close(ad.jacobian(lambda q: so.rosen_hess_prod(x, q))(p), so.rosen_hess(x))
        # ad.jit: recorded at the first call, replayed at the second
        g = ad.jit(ad.grad(so.rosen))
        for _ in range(2):
            close(g(x), so.rosen_der(x))
        # the scalar-guarded device array: no element read
        d = ad.grad(so.rosen)(device_array(x))
        close(to_numpy(d), so.rosen_der(x))
        close(to_numpy(ad.jacobian(so.rosen_der)(device_array(x))), so.rosen_hess(x))
        print("ok")
        """,
        "1",
    )
    assert out.strip().endswith("ok")


def test_without_the_flag_the_error_says_to_set_it() -> None:
    out = _run(
        """
        import numpy as np
        import scipy.optimize as so
        from chainrules import ad
        try:
            ad.grad(so.rosen)(np.array([0.5, 1.2, -0.3]))
        except TypeError as e:
            print(e)
        """,
        None,
    )
    assert "SciPy is imported without its array API mode: set SCIPY_ARRAY_API=1" in out
