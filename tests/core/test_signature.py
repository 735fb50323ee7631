"""Binding a rule's arguments (``chainrules/core/signature.py``): ``Signature`` / ``signature``."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr


def test_signature_binds_defaults_and_names_the_function() -> None:
    sig = cr.signature("reshape", lambda x, /, shape, *, copy=None: None)
    assert sig.bind((1, (2, 3)), {}) == {"x": 1, "shape": (2, 3), "copy": None}
    assert sig.bind((1,), {"shape": (6,), "copy": True})["copy"] is True
    with pytest.raises(TypeError, match=r"^reshape: .*shape"):
        sig.bind((1,), {})
    with pytest.raises(TypeError, match=r"^reshape: .*order"):
        sig.bind((1, (2,)), {"order": "F"})
    with pytest.raises(TypeError, match=r"^reshape: .*multiple values"):
        sig.bind((1, (2,)), {"shape": (2,)})
    with pytest.raises(TypeError, match=r"^reshape: "):
        sig.bind((), {"x": 1, "shape": (1,)})  # x is positional-only


def test_signature_fast_path_agrees_with_inspect() -> None:
    import inspect

    def template(a, /, b, c=3, *, d=None, e=True):  # type: ignore[no-untyped-def]
        return None

    sig = cr.signature("f", template)
    calls = [((1, 2), {}), ((1,), {"b": 2}), ((1, 2, 5), {"e": False}), ((1,), {"b": 2, "d": 4})]
    for args, kwargs in calls:
        bound = inspect.signature(template).bind(*args, **kwargs)
        bound.apply_defaults()
        assert sig.bind(args, kwargs) == dict(bound.arguments)
    for args, kwargs in [((), {"a": 1, "b": 2}), ((1, 2), {"b": 2}), ((1, 2, 3, 4), {})]:
        with pytest.raises(TypeError, match=r"^f: "):
            sig.bind(args, kwargs)

    def open_template(a, b=2, **kw):  # type: ignore[no-untyped-def]
        return None

    sig = cr.signature("g", open_template)
    for args, kwargs in [((1,), {}), ((1,), {"like": 3, "b": 4}), ((1, 5), {"device": "cpu"})]:
        bound = inspect.signature(open_template).bind(*args, **kwargs)
        bound.apply_defaults()
        assert sig.bind(args, kwargs) == dict(bound.arguments)


def test_signature_unsupported_keywords() -> None:
    sig = cr.signature("sum", lambda a, axis=None, *, out=None, where=True: None, ("where",))
    assert sig.bind((1,), {"where": True})["where"] is True
    with pytest.raises(TypeError, match=r"^sum: out= is not supported by rules"):
        sig.bind((1,), {"out": np.zeros(1)})
    with pytest.raises(TypeError, match=r"^sum: the rule does not support where="):
        sig.bind((1,), {"where": np.ones(1, bool)})
