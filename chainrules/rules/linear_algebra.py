"""linear_algebra (to be written)."""
