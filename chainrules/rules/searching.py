"""searching (to be written)."""
