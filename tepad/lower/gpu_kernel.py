"""Facts about the GPU kernels of a lowered function, shared by the GPU passes.

A *launch* is ``AttrStmt(thread IterVar, "thread_extent", extent)``; a *kernel* is the
subtree under an outermost launch (the launches directly nested in it, and the ones deeper
that re-bind the same tags for attached stages, belong to it). Thread variables are compared
by tag: two launches of ``threadIdx.x`` in one kernel name the same hardware index, so
``canonical_thread_vars`` maps every thread var of a kernel to one Var per tag.
"""
from __future__ import annotations

from ..tir.buffer import Buffer
from ..tir.functor import Mutator, Visitor, post_order_visit
from ..tir.stmt import Allocate
from ..tir.launch import (BLOCK_TAGS, THREAD_TAGS, is_launch, launch_tag,
                          launch_var)

def kernels(body) -> list:
    """The outermost launches of ``body``, in program order."""
    out = []

    class _V(Visitor):
        def visit_AttrStmt(self, n):
            if is_launch(n):
                out.append(n)
                return
            self.generic_visit(n)

    _V().visit(body)
    return out


def kernel_launches(kernel) -> list:
    """Every launch attribute of ``kernel`` (itself included), outer first."""
    out = []

    def f(n):
        if is_launch(n):
            out.append(n)
    post_order_visit(kernel, f)
    return out[::-1]


def thread_vars_by_tag(kernel) -> dict:
    """``{tag: [thread vars]}`` of every launch in ``kernel``."""
    out = {}
    for a in kernel_launches(kernel):
        out.setdefault(launch_tag(a), []).append(launch_var(a))
    return out


def canonical_thread_vars(kernel) -> dict:
    """``{thread var: the first var of its tag}`` for every launch of ``kernel``."""
    out = {}
    for tag, vs in thread_vars_by_tag(kernel).items():
        for v in vs:
            out[v] = vs[0]
    return out


def allocation_scopes(body) -> dict:
    """``{allocation data var: annotations["scope"]}`` for every Allocate in ``body``."""
    out = {}

    def f(n):
        if isinstance(n, Allocate):
            out[n.buffer_var] = n.annotations.get("scope", "global")
    post_order_visit(body, f)
    return out


def buffer_with_scope(buf: Buffer, scope: str) -> Buffer:
    """A copy of ``buf`` (same data var) whose ``scope`` is ``scope``."""
    return Buffer(buf.shape, buf.dtype, buf.name, data=buf.data, strides=buf.strides,
                  elem_offset=buf.elem_offset, axis_separators=buf.axis_separators,
                  scope=scope, data_alignment=buf.data_alignment,
                  offset_factor=buf.offset_factor, buffer_type=buf.buffer_type)


class RescopeBuffers(Mutator):
    """Loads and stores of the allocations in ``scopes`` (``{data var: scope}``) use buffers
    whose ``scope`` says so; the Allocates carry it in ``annotations["scope"]``."""

    def __init__(self, scopes: dict):
        self.scopes = scopes
        self.memo = {}

    def _buf(self, buf):
        scope = self.scopes.get(buf.data)
        if scope is None or buf.scope == scope:
            return buf
        new = self.memo.get(buf)
        if new is None:
            new = self.memo[buf] = buffer_with_scope(buf, scope)
        return new

    def visit_BufferLoad(self, x):
        y = self.generic_visit(x)
        b = self._buf(y.buffer)
        return y if b is y.buffer else type(y)(b, y.indices)

    def visit_BufferStore(self, s):
        t = self.generic_visit(s)
        b = self._buf(t.buffer)
        return t if b is t.buffer else type(t)(b, t.value, t.indices)

    def visit_Allocate(self, s):
        t = self.generic_visit(s)
        scope = self.scopes.get(s.buffer_var)
        if scope is None or t.annotations.get("scope") == scope:
            return t
        return Allocate(t.buffer_var, t.dtype, t.extents, t.condition, t.body,
                        {**t.annotations, "scope": scope})


__all__ = ["THREAD_TAGS", "BLOCK_TAGS", "is_launch", "launch_tag", "launch_var", "kernels",
           "kernel_launches", "thread_vars_by_tag", "canonical_thread_vars",
           "allocation_scopes", "buffer_with_scope", "RescopeBuffers"]
