"""``FreeVars``: the variables a statement uses without defining them."""
from __future__ import annotations

from .functor import Visitor


class FreeVars(Visitor):
    """Vars used but not defined inside a statement, in first-use order (``order``); buffer
    data vars included. Vars added to ``defined`` before visiting count as bound. Subclasses
    see each buffer access through ``_use_buffer`` (default: its data var is a use)."""

    def __init__(self):
        self.defined, self.order, self.seen = set(), [], set()

    def _use(self, v):
        if v not in self.defined and v not in self.seen:
            self.seen.add(v)
            self.order.append(v)

    def visit_Var(self, v):
        self._use(v)

    def visit_SizeVar(self, v):
        self._use(v)

    def _use_buffer(self, buf):
        self._use(buf.data)

    def visit_BufferLoad(self, e):
        self._use_buffer(e.buffer)
        self.visit(e.indices)

    def visit_BufferStore(self, s):
        self._use_buffer(s.buffer)
        self.visit(s.value)
        self.visit(s.indices)

    def visit_For(self, s):
        self.visit(s.min)
        self.visit(s.extent)
        self.defined.add(s.loop_var)
        self.visit(s.body)

    def visit_LetStmt(self, s):
        self.visit(s.value)
        self.defined.add(s.var)
        self.visit(s.body)

    def visit_Let(self, e):
        self.visit(e.value)
        self.defined.add(e.var)
        self.visit(e.body)

    def visit_Allocate(self, s):
        self.visit(s.extents)
        self.defined.add(s.buffer_var)
        self.visit(s.body)

    def visit_AttrStmt(self, s):
        self.visit(s.body)


__all__ = ["FreeVars"]
