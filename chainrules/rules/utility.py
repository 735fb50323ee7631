"""utility (to be written)."""
