"""sets (to be written)."""
