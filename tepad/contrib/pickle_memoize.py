"""TVM's ``tvm.contrib.pickle_memoize.memoize(key)``: a decorator caching a function's result
by its arguments (TVM's tests use it for reference outputs). tepad keeps the cache in
memory for the process (TVM also pickles it to a file between runs)."""
from __future__ import annotations

import functools

from ..errors import TepadError

_CACHES: dict = {}


def memoize(key: str, save_at_exit: bool = False):
    """Cache the decorated function's results under ``key`` by its (hashable) arguments."""
    if not isinstance(key, str) or not key:
        raise TepadError(f"memoize: the key must be a non-empty string, got {key!r}")

    def decorate(fn):
        cache = _CACHES.setdefault(key, {})

        @functools.wraps(fn)
        def wrapper(*args):
            try:
                hash(args)
            except TypeError:
                raise TepadError(f"memoize({key!r}): arguments must be hashable, got "
                                 f"{args!r}") from None
            if args not in cache:
                cache[args] = fn(*args)
            return cache[args]
        return wrapper
    return decorate


__all__ = ["memoize"]
