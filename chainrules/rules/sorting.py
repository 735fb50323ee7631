"""sorting (to be written)."""
