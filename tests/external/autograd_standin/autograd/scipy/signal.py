from scipy.signal import *  # noqa: F403
