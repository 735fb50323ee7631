"""SciPy's global-optimisation benchmark functions (see each file's header)."""
