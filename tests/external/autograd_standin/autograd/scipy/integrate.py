from scipy.integrate import *  # noqa: F403
