"""The population's programs, one file per source (each file's docstring names its origin)."""
