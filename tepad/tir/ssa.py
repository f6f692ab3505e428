"""convert_ssa: give every binding its own variable.

Passes that copy a subtree (unrolling repeats a loop body; a rolling buffer splits a loop in
two) and hand-written functions that reuse ``i`` for two loops bind one Var more than once.
The IR verifier (``tepad.tir.verify``) requires every Var to be bound once, so those places
call ``convert_ssa``. Guarantees: the result computes the same thing; the first binding of a
Var keeps it, every later binding (by ``For``, ``LetStmt``, ``Let``, ``Allocate`` or a thread
``AttrStmt``) gets a fresh Var of the same name and dtype, and every use inside that binding's
scope is renamed with it (buffers over a renamed allocation get a renamed copy). A function
that already binds each Var once comes back as the same object.
"""
from __future__ import annotations

from .buffer import Buffer
from .expr import BufferLoad, Let, Var
from .function import PrimFunc
from .functor import Mutator
from .transform import register_pass

_BINDING_ATTRS = ("thread_extent", "virtual_thread")


def _pick(fresh, old):
    return old if fresh is None else fresh


class _ConvertSSA(Mutator):
    def __init__(self, defined):
        self.bound = set(defined)
        self.rename: dict = {}
        self.buffers: dict = {}      # (Buffer, new data Var) -> renamed Buffer

    def _enter(self, var):
        """The Var this binding should use, recording it as bound; None when unchanged."""
        if var not in self.bound:
            self.bound.add(var)
            return None
        fresh = type(var)(var.name, var.dtype)
        self.bound.add(fresh)
        return fresh

    def _scoped(self, var, fresh, visit_body):
        if fresh is None:
            saved = self.rename.pop(var, None)
            out = visit_body()
            if saved is not None:
                self.rename[var] = saved
            return out
        saved = self.rename.get(var)
        self.rename[var] = fresh
        try:
            return visit_body()
        finally:
            if saved is None:
                del self.rename[var]
            else:
                self.rename[var] = saved

    def visit_Var(self, v):
        return self.rename.get(v, v)

    def _buffer(self, buf):
        data = self.rename.get(buf.data)
        if data is None:
            return buf
        key = (buf, data)
        nb = self.buffers.get(key)
        if nb is None:
            nb = Buffer(buf.shape, buf.dtype, buf.name, data=data, strides=buf.strides,
                        elem_offset=buf.elem_offset, axis_separators=buf.axis_separators,
                        scope=buf.scope)
            self.buffers[key] = nb
        return nb

    def visit_BufferLoad(self, e):
        idx = self.visit(e.indices)
        buf = self._buffer(e.buffer)
        return e if idx is e.indices and buf is e.buffer else BufferLoad(buf, idx)

    def visit_BufferStore(self, s):
        val = self.visit(s.value)
        idx = self.visit(s.indices)
        buf = self._buffer(s.buffer)
        return s.replace(buffer=buf, value=val, indices=idx)

    def visit_For(self, s):
        mn, ext = self.visit(s.min), self.visit(s.extent)
        fresh = self._enter(s.loop_var)
        body = self._scoped(s.loop_var, fresh, lambda: self.visit(s.body))
        return s.replace(loop_var=_pick(fresh, s.loop_var), min=mn, extent=ext, body=body)

    def visit_LetStmt(self, s):
        val = self.visit(s.value)
        fresh = self._enter(s.var)
        body = self._scoped(s.var, fresh, lambda: self.visit(s.body))
        return s.replace(var=_pick(fresh, s.var), value=val, body=body)

    def visit_Let(self, e):
        val = self.visit(e.value)
        fresh = self._enter(e.var)
        body = self._scoped(e.var, fresh, lambda: self.visit(e.body))
        if fresh is None and val is e.value and body is e.body:
            return e
        return Let(_pick(fresh, e.var), val, body)

    def visit_Allocate(self, s):
        ext = self.visit(s.extents)
        cond = self.visit(s.condition) if s.condition is not None else None
        fresh = self._enter(s.buffer_var)
        body = self._scoped(s.buffer_var, fresh, lambda: self.visit(s.body))
        return s.replace(buffer_var=_pick(fresh, s.buffer_var), extents=ext, condition=cond,
                         body=body)

    def visit_AttrStmt(self, s):
        val = self.visit(s.value)
        if not (s.attr_key in _BINDING_ATTRS and isinstance(s.node, Var)):
            # a thread IterVar keeps its index: sibling launches of one thread share it
            return s.replace(value=val, body=self.visit(s.body))
        fresh = self._enter(s.node)
        body = self._scoped(s.node, fresh, lambda: self.visit(s.body))
        return s.replace(node=_pick(fresh, s.node), value=val, body=body)


@register_pass("ConvertSSA")
def convert_ssa(func: PrimFunc) -> PrimFunc:
    """``func`` with every Var bound once (see the module docstring)."""
    defined = set(func.params)
    body = _ConvertSSA(defined).visit(func.body)
    return func if body is func.body else func.with_body(body)


__all__ = ["convert_ssa"]
