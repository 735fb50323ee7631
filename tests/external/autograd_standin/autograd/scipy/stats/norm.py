from scipy.stats import norm as _scipy

from ._dists import norm as _dist

globals().update({n: getattr(_scipy, n) for n in dir(_scipy) if not n.startswith("_")})
globals().update({n: getattr(_dist, n) for n in vars(_dist) if not n.startswith("_")})
