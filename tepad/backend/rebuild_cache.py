"""The rebuild caches of ``tepad.build``: building what was built before (the same schedule
state and argument tensors, or the same lowered PrimFunc, with the same options) returns the
module built then. ``TEPAD_COMPILE_CACHE=0`` turns them off."""
from __future__ import annotations

from ..codegen import compile_cache_enabled
from ..schedule import Schedule
from ..support.lru import LRUCache
from ..tir.function import PrimFunc


class RebuildCache:
    """At most ``size`` modules, least recently used dropped first; each entry keeps its
    schedule (or PrimFunc) and arguments alive, so the ids in its key stay theirs."""

    def __init__(self, size: int):
        self.size = size
        self._entries = LRUCache(size)

    @staticmethod
    def key(s_or_func, args, *common):
        """The key of a build of ``s_or_func`` with ``args`` and the options ``common``; None
        (not cached) when caching is off or the input is neither a PrimFunc nor a schedule
        with an argument list."""
        if not compile_cache_enabled():
            return None
        if isinstance(s_or_func, PrimFunc):
            return ("func", id(s_or_func)) + common
        if isinstance(s_or_func, Schedule) and isinstance(args, (list, tuple)):
            return ("sched", id(s_or_func), s_or_func.fingerprint(),
                    tuple(id(a) for a in args)) + common
        return None

    def get(self, key):
        if key is None:
            return None
        hit = self._entries.get(key)
        return None if hit is None else hit[0]

    def put(self, key, mod, keepalive):
        if key is None:
            return
        self._entries.put(key, (mod, keepalive))


__all__ = ["RebuildCache"]
