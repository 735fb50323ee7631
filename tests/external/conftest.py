"""The vendored autograd suite and its stand-in package are run by run_autograd_suite.py in a
subprocess (the stand-in shadows the real autograd there), never collected here; so are the
user-code suite's cases and runner."""

collect_ignore = [
    "autograd_suite",
    "autograd_standin",
    "run_autograd_suite.py",
    # the user-code suite's cases import scikit-learn with array-API dispatch, which needs
    # SCIPY_ARRAY_API=1 before SciPy is imported: its test runs them in a subprocess
    "user_code/cases.py",
    "user_code/run.py",
]
