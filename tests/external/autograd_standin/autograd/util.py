from .wrap_util import get_name, subvals, unary_to_nary

__all__ = ["get_name", "subvals", "unary_to_nary"]
