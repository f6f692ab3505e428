"""The per-thread stack of nested ``with`` blocks (``with Target(...)``,
``with PassContext(...)``): the innermost object entered is the current one."""
from __future__ import annotations

import threading

from .deep_stack import carry_thread_local


class ContextStack:
    """One stack per thread; ``push`` on ``__enter__``, ``pop`` on ``__exit__``, ``top()`` is
    the innermost. A ``deep_stack`` worker starts with a copy of its caller's stack."""

    def __init__(self):
        self._local = threading.local()
        carry_thread_local(self._local, "items")

    def push(self, item) -> None:
        items = getattr(self._local, "items", None)
        if items is None:
            items = self._local.items = []
        items.append(item)

    def pop(self):
        return self._local.items.pop()

    def top(self, default=None):
        """The innermost item of this thread's stack, else ``default``."""
        items = getattr(self._local, "items", None)
        return items[-1] if items else default

    def __contains__(self, item) -> bool:
        """Whether ``item`` is entered on this thread (at any depth)."""
        return any(x is item for x in getattr(self._local, "items", None) or ())

    def __len__(self) -> int:
        return len(getattr(self._local, "items", None) or ())


__all__ = ["ContextStack"]
