"""``flatten(value)``: every leaf of a tuple/list/dict tree raveled into one vector (traced
values included), with the function that rebuilds the tree."""

import numpy as np


def _leaves(x, out):
    if type(x) in (tuple, list):
        for e in x:
            _leaves(e, out)
    elif type(x) is dict:
        for k in sorted(x):
            _leaves(x[k], out)
    else:
        out.append(x)
    return out


def _rebuild(x, it):
    if type(x) in (tuple, list):
        return type(x)(_rebuild(e, it) for e in x)
    if type(x) is dict:
        rebuilt = {k: _rebuild(x[k], it) for k in sorted(x)}
        return {k: rebuilt[k] for k in x}
    return next(it)


def flatten(value):
    leaves = _leaves(value, [])
    shapes = [np.shape(e) for e in leaves]
    sizes = [int(np.prod(s)) for s in shapes]
    flat = np.concatenate([np.ravel(e) for e in leaves]) if leaves else np.zeros((0,))

    def unflatten(vector):
        parts, start = [], 0
        for shape, size in zip(shapes, sizes):
            part = np.reshape(vector[start : start + size], shape)
            parts.append(part)
            start += size
        return _rebuild(value, iter(parts))

    return flat, unflatten
