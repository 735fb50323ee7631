"""fft (to be written)."""
