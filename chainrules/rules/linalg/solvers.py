"""solvers (to be written)."""
