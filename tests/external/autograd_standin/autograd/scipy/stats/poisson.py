from scipy.stats import poisson as _scipy

from ._dists import poisson as _dist

globals().update({n: getattr(_scipy, n) for n in dir(_scipy) if not n.startswith("_")})
globals().update({n: getattr(_dist, n) for n in vars(_dist) if not n.startswith("_")})
