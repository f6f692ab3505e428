"""TVM's ``tvm._ffi`` as TE programs reach into it: ``base`` (``TVMError``),
``register_func`` / ``get_global_func`` (``tepad.runtime.registry``) and ``register_object``
(a decorator that leaves the class as it is: tepad's nodes are Python classes)."""
import sys

from . import base
from ..runtime.registry import register_func, get_global_func, list_global_func_names


def register_object(type_key=None):
    """TVM's ``@register_object("key")`` (or bare ``@register_object``): the class itself."""
    if isinstance(type_key, type):
        return type_key
    return lambda cls: cls


def register_extension(cls, fcreate=None):
    """TVM's ``register_extension(cls)`` (a class passed through the FFI by handle): tepad
    passes Python objects as they are, so the class is returned unchanged."""
    return cls


registry = sys.modules[__name__]   # tvm._ffi.registry.register_func, ...

__all__ = ["base", "register_extension",
           "register_func", "get_global_func", "list_global_func_names",
           "register_object", "registry"]
