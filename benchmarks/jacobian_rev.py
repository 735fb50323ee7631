"""Kept for old links: the Hessian and Jacobian rows now live in ``benchmarks/peers.py
--hessian`` (every eager engine side by side). Run: ``python benchmarks/jacobian_rev.py``, the
same as ``python benchmarks/peers.py --hessian --programs``."""

from __future__ import annotations

import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [_here, os.path.dirname(_here)]

from peers import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(["--hessian", "--programs", *sys.argv[1:]]))
