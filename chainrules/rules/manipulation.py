"""manipulation (to be written)."""
