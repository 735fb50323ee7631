"""operators (to be written)."""
