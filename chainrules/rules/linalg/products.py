"""products (to be written)."""
