"""One LLVM value per TIR expression *object* while one expression tree is emitted.

TE programs share subexpressions: an inlined stage's body appears once per use, as the same
Python object (``grid_sample``'s source coordinate is read by every corner of the bilinear or
bicubic stencil, each through its reflection and clipping). Emitting the tree as a tree
repeats such a subtree once per path to it, which multiplies the LLVM instructions (and the
time to build, print and optimize them) by the number of paths. ``ExprMemo`` keeps the value
emitted for each node of the expression being emitted, so a node reached again reuses it.

Soundness rests on three rules, kept by the emitters:

* the memo lives for one top-level ``expr`` call (one statement's value, index or condition):
  no store happens inside it, so a memoized load is still the memory's value;
* a value is reused only where it dominates: entries made inside a branch (``if_then_else``,
  a guarded load), under a narrower lane mask, or in a ``Let`` body (whose variable another
  ``Let`` of the same tree may bind differently) are dropped when that region is left
  (``scope()``); entries made before it stay valid in and after it;
* a call with side effects (``call_extern``, ``atomic_add``, packed calls, ...) is never
  memoized and forgets every entry (``forget()``): later loads re-read memory.
"""
from __future__ import annotations

from contextlib import contextmanager


class ExprMemo:
    """``{id(node): (node, value)}`` with an undo log for ``scope()``."""

    __slots__ = ("values", "log")

    def __init__(self):
        self.values: dict = {}
        self.log: list = []

    def get(self, node):
        hit = self.values.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        return None

    def put(self, node, value):
        self.values[id(node)] = (node, value)   # the node is held: its id stays unique
        self.log.append(id(node))

    @contextmanager
    def scope(self):
        """Entries made inside the ``with`` block are dropped when it ends."""
        mark = len(self.log)
        try:
            yield
        finally:
            for key in self.log[mark:]:
                self.values.pop(key, None)
            del self.log[mark:]

    def forget(self):
        """Drop every entry (after a side effect)."""
        self.values.clear()
        self.log.clear()


__all__ = ["ExprMemo"]
