"""autograd's ``unary_to_nary``: an operator on ``f(x)`` made an operator on ``f(*args)``."""

from __future__ import annotations

import functools
from typing import Any


def get_name(f: Any) -> str:
    return getattr(f, "__name__", "[unknown name]")


def subvals(x: tuple[Any, ...], ivs: Any) -> tuple[Any, ...]:
    out = list(x)
    for i, v in ivs:
        out[i] = v
    return tuple(out)


def unary_to_nary(unary_operator: Any) -> Any:
    @functools.wraps(unary_operator)
    def nary_operator(fun: Any, argnum: Any = 0, *op_args: Any, **op_kwargs: Any) -> Any:
        assert type(argnum) in (int, tuple, list), argnum

        def nary_f(*args: Any, **kwargs: Any) -> Any:
            def unary_f(x: Any) -> Any:
                if isinstance(argnum, int):
                    subargs = subvals(args, [(argnum, x)])
                else:
                    subargs = subvals(args, zip(argnum, x))
                return fun(*subargs, **kwargs)

            unary_f.__name__ = get_name(fun)
            x = args[argnum] if isinstance(argnum, int) else tuple(args[i] for i in argnum)
            return unary_operator(unary_f, x, *op_args, **op_kwargs)

        op, name = get_name(unary_operator), get_name(fun)
        nary_f.__name__ = f"{op}_of_{name}_wrt_argnum_{argnum}"
        nary_f.__doc__ = (
            f"    {op} of function {name} with respect to argument number {argnum}. Takes the\n"
            f"    same arguments as {name} but returns the {op}.\n    "
        )
        return nary_f

    return nary_operator
