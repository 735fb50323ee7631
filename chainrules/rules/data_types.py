"""data_types (to be written)."""
