from scipy.special import *  # noqa: F403
