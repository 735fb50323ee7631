"""The population benchmark (issue 27, item 1): chainrules.ad against autograd on programs that
people write, per category, in one process. See README.md beside this file for how to run it
and the baseline.

Layout:

* ``sources/``: the programs, plain NumPy code, one file per source. Each file's docstring
  names where its code comes from;
* ``programs.py``: the :class:`~.programs.Program` record (name, category, source, licence,
  spelling group, family, the fixed point), the category minimums and the fixed split
  (sha256 of the name);
* ``registry.py``: programs generated from the registry by the differential campaign's
  generator (``chainrules.testing.campaign.programs.generate``) for fixed seeds;
* ``_load.py``: how one source file serves every engine. The file is the ordinary module for
  chainrules.ad (which traces NumPy's own functions); for autograd it is executed again in a
  fresh module whose own ``__import__`` resolves ``numpy`` to ``autograd.numpy`` and
  ``scipy.special``/``scipy.stats``/``scipy.linalg`` to autograd's; for torch.func, ``numpy``
  to ``array_api_compat.torch``. Nothing process-wide is changed; the program text is the same
  for every engine;
* ``engines.py``: grad, hessian and jacobian per engine; ``bench.py``: the correctness check,
  the timing and the report.

Sources and licences:

* scipy/scipy ``benchmarks/benchmarks/go_benchmark_functions/go_funcs_*.py`` (commit
  3dbf660a919b): BSD-3-Clause, Copyright (c) 2001-2002 Enthought, Inc. 2003, SciPy Developers.
  Copied unchanged but for the docstrings, into ``sources/scipy_go/``;
* HIPS/autograd ``examples/`` (commit bff107b8d71a): MIT, Copyright (c) 2025 by the President
  and Fellows of Harvard University. Function bodies copied unchanged, imports written for
  plain NumPy/SciPy, ``sources/autograd_examples.py``;
* facebookresearch/nevergrad ``nevergrad/functions/corefuncs.py`` (commit 617a3b0bcd9b): MIT,
  Copyright (c) Meta Platforms, Inc. and affiliates. ``sources/nevergrad_functions.py``;
* written here (``sources/written_here.py``) and generated from the registry: this project's
  licence.
"""
