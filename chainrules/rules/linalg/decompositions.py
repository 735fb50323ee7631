"""decompositions (to be written)."""
