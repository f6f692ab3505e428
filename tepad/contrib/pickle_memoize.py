"""TVM's ``tvm.contrib.pickle_memoize.memoize(key)``: a decorator caching a function's result
by its arguments (TVM's tests use it for reference outputs). tepad keeps the cache in
memory for the process (TVM also pickles it to a file between runs)."""
from __future__ import annotations

import functools

from ..errors import TepadError

_CACHES: dict = {}


def _hashable_or_id(value):
    try:
        hash(value)
        return value
    except TypeError:
        return ("captured object", id(value))


def memoize(key: str, save_at_exit: bool = False):
    """Cache the decorated function's results under ``key`` by its (hashable) arguments and
    the values it captures from enclosing functions (as TVM does: a reference-data helper
    defined inside ``verify(n, dtype)`` gets one entry per ``n`` and ``dtype``; a captured
    object that cannot be hashed counts by identity)."""
    if not isinstance(key, str) or not key:
        raise TepadError(f"memoize: the key must be a non-empty string, got {key!r}")

    def decorate(fn):
        cache = _CACHES.setdefault(key + "." + fn.__name__, {})
        # a captured object that cannot be hashed (a list the helper appends to) is the
        # same object on every call: it counts by identity
        captured = tuple(_hashable_or_id(c.cell_contents) for c in fn.__closure__ or ())

        @functools.wraps(fn)
        def wrapper(*args):
            full = (len(captured),) + captured + args
            try:
                hash(args)
            except TypeError:
                raise TepadError(f"memoize({key!r}): arguments must be hashable, got "
                                 f"{args!r}") from None
            if full not in cache:
                cache[full] = fn(*args)
            return cache[full]
        return wrapper
    return decorate


__all__ = ["memoize"]
