"""creation (to be written)."""
