"""The vendored autograd suite and its stand-in package are run by run_autograd_suite.py in a
subprocess (the stand-in shadows the real autograd there), never collected here."""

collect_ignore = ["autograd_suite", "autograd_standin", "run_autograd_suite.py"]
