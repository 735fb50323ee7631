from scipy.linalg import *  # noqa: F403
