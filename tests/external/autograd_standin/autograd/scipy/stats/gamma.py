from scipy.stats import gamma as _dist

_names = ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf", "pmf", "logpmf", "entropy", "rvs")
globals().update({n: getattr(_dist, n) for n in _names if hasattr(_dist, n)})
