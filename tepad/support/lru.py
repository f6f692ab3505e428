"""A small thread-safe LRU cache (the compile, rebuild and simplify caches use it)."""
from __future__ import annotations

import threading
from collections import OrderedDict


class LRUCache:
    """At most ``size`` entries; a ``get`` hit or a ``put`` makes an entry the most recent,
    and the least recently used entries are dropped when there are more than ``size``.
    Every method takes the cache's lock, so builds on several threads may share one."""

    def __init__(self, size: int):
        self.size = size
        self._entries: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key, default=None):
        """The value stored under ``key`` (now the most recent), else ``default``."""
        with self._lock:
            hit = self._entries.get(key, _MISSING)
            if hit is _MISSING:
                return default
            self._entries.move_to_end(key)
            return hit

    def put(self, key, value) -> None:
        """Store ``value`` under ``key`` as the most recent entry, dropping the least recent
        ones beyond ``size``."""
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key) -> bool:
        return key in self._entries


_MISSING = object()

__all__ = ["LRUCache"]
