"""StorageRewrite: intermediate allocations whose live ranges do not overlap share memory
(TVM's ``tir.transform.StorageRewrite``, its memory-reuse part).

    B = T.allocate([64]); B[i] = A[i] + 1          S = T.allocate([64])
    C = T.allocate([64]); C[i] = B[i] * 2    ==>   C = T.allocate([64])
    D = T.allocate([64]); D[i] = C[i] - 1          S[i] = A[i] + 1;  C[i] = S[i] * 2
    E[i] = D[i] * D[63 - i]                         S[i] = C[i] - 1;  E[i] = S[i] * S[63 - i]

Scopes: the function body, the body of each parallel loop and of each thread launch
(``thread_extent`` / ``virtual_thread``): an allocation inside such a region is private to a
thread and never leaves it. In each scope, the allocations of one flat extent that is a
constant, with no condition, and not inside a nested scope are candidates.

Live ranges: the scope's statements are numbered in execution order; a candidate is live
from its first to its last use (any occurrence of its data variable: loads, stores, pointers
passed to calls). A use inside a loop (or a thread launch: its threads run side by side)
that sits inside the candidate's allocation counts for the whole loop (values may flow
between iterations, threads may be anywhere in the region); loops around the allocation
itself do not (each iteration allocated afresh, so nothing flows between them).

Reuse: candidates are taken in order of their first use; each takes the memory of an
earlier candidate of the same dtype and storage scope whose live range ended before it
starts (the smallest one big enough, else the biggest, which then grows). Each piece of
memory becomes one allocation at the top of the scope, under the name of its first user;
the buffers of the others are rebuilt over it (same shape, the shared data variable).
Allocations of different dtypes are not merged (TVM reinterprets bytes; tepad keeps one
element type per allocation). Functions with nothing to share come back unchanged (the
same object).
"""
from __future__ import annotations

from dataclasses import dataclass

from ...tir.buffer import Buffer
from ...tir.expr import IntImm, Var
from ...tir.function import PrimFunc
from ...tir.functor import Mutator, Visitor
from ...tir.stmt import Allocate, AttrStmt, For, ForKind, Stmt, seq
from ...tir.transform import register_pass

_SCOPE_ATTRS = ("thread_extent", "virtual_thread")
# statement classes besides For whose body may run more than once
_REPEATING = ("While", "WhileLoop", "DoWhile")


def _is_scope(s) -> bool:
    return (isinstance(s, For) and s.kind in (ForKind.PARALLEL, ForKind.THREAD_BINDING)) or \
        (isinstance(s, AttrStmt) and s.attr_key in _SCOPE_ATTRS)


def _candidate(a: Allocate) -> bool:
    cond = a.condition
    return len(a.extents) == 1 and isinstance(a.extents[0], IntImm) and \
        a.extents[0].value > 0 and (cond is None or (isinstance(cond, IntImm) and cond.value))


@dataclass(eq=False)
class _Info:
    alloc: Allocate
    start: int = -1
    end: int = -1


class _Liveness(Visitor):
    """Numbers the statements of one scope and records each candidate's live range."""

    def __init__(self, infos):
        self.infos = infos              # data Var -> _Info
        self.pos = 0
        self.open_allocs: list = []     # candidates whose Allocate encloses the walk
        self.loops: list = []           # [start, allocations open at entry, infos used]

    def _use(self, var):
        info = self.infos.get(var)
        if info is None:
            return
        depth = next((k + 1 for k, i in enumerate(self.open_allocs) if i is info), 0)
        # the outermost loop entered inside the allocation: the use lasts its whole span
        loop = next((lp for lp in self.loops if lp[1] >= depth), None)
        lo = loop[0] if loop is not None else self.pos
        info.start = lo if info.start < 0 else min(info.start, lo)
        info.end = max(info.end, self.pos)
        if loop is not None:
            loop[2].append(info)

    def visit_Var(self, v):
        self._use(v)

    def visit_BufferLoad(self, e):
        self._use(e.buffer.data)
        self.visit(e.indices)

    def visit_BufferStore(self, s):
        self.pos += 1
        self._use(s.buffer.data)
        self.visit(s.value)
        self.visit(s.indices)

    def visit_Allocate(self, a):
        self.pos += 1
        for e in a.extents:
            self.visit(e)
        info = self.infos.get(a.buffer_var)
        own = info is not None and info.alloc is a
        if own:
            self.open_allocs.append(info)
        self.visit(a.body)
        if own:
            self.open_allocs.pop()

    def visit_For(self, f):
        self.pos += 1
        self.visit(f.min)
        self.visit(f.extent)
        self._repeated(f.body)

    def visit_AttrStmt(self, a):
        self.pos += 1
        self.visit(a.value)
        if a.attr_key in _SCOPE_ATTRS:
            # threads run the launch region side by side: a use anywhere in it lasts all of it
            self._repeated(a.body)
        else:
            self.visit(a.body)

    def _repeated(self, body):
        """Walk ``body`` of a loop or thread launch: the uses inside it of allocations made
        outside it last from its start to its end."""
        entry = [self.pos, len(self.open_allocs), []]
        self.loops.append(entry)
        self.visit(body)
        self.loops.pop()
        self.pos += 1
        for info in entry[2]:
            info.end = max(info.end, self.pos)

    def generic_visit(self, node):
        if type(node).__name__ in _REPEATING:
            # a statement that may run its body again (a while loop): like a For
            self.pos += 1
            entry = [self.pos, len(self.open_allocs), []]
            self.loops.append(entry)
            super().generic_visit(node)
            self.loops.pop()
            self.pos += 1
            for info in entry[2]:
                info.end = max(info.end, self.pos)
            return
        self.pos += 1
        super().generic_visit(node)


def _collect(body) -> dict:
    """Candidate allocations of the scope whose body is ``body`` (not in nested scopes)."""
    infos = {}
    stack = [body]
    while stack:
        n = stack.pop()
        if _is_scope(n):
            continue
        if isinstance(n, Allocate) and _candidate(n):
            infos[n.buffer_var] = _Info(n)
        for v in n.field_values():
            if isinstance(v, Stmt):
                stack.append(v)
            elif isinstance(v, tuple):
                stack.extend(x for x in v if isinstance(x, Stmt))
    return infos


def _plan(infos) -> dict:
    """``{data Var: (slot Var, slot size)}`` for every candidate that shares memory, and the
    slots: ``[(Var, dtype, scope, size, annotations)]``."""
    slots = []                  # [var, dtype, scope, size, end, annotations]
    assign = {}
    used = [i for i in infos.values() if i.start >= 0]
    for info in sorted(used, key=lambda i: (i.start, i.end)):
        a = info.alloc
        size = a.extents[0].value
        scope = a.annotations.get("scope", "global")
        free = [s for s in slots if s[1] == a.dtype and s[2] == scope and s[4] < info.start]
        fit = [s for s in free if s[3] >= size]
        slot = min(fit, key=lambda s: s[3]) if fit else \
            (max(free, key=lambda s: s[3]) if free else None)
        if slot is None:
            slot = [a.buffer_var, a.dtype, scope, size, info.end, a.annotations]
            slots.append(slot)
        slot[3] = max(slot[3], size)
        slot[4] = info.end
        assign[a.buffer_var] = slot
    return assign, slots


class _Rewrite(Mutator):
    """Drops the candidates' Allocates and points their buffers at the shared memory."""

    def __init__(self, infos, assign):
        self.infos, self.assign = infos, assign
        self.buffers: dict = {}

    def visit_Allocate(self, a):
        info = self.infos.get(a.buffer_var)
        if info is not None and info.alloc is a and a.buffer_var in self.assign:
            return self.visit(a.body)
        return self.generic_visit(a)

    def visit_Var(self, v):
        slot = self.assign.get(v)
        return slot[0] if slot is not None else v

    def _buffer(self, b: Buffer) -> Buffer:
        slot = self.assign.get(b.data)
        if slot is None or slot[0] is b.data:
            return b
        out = self.buffers.get(b)
        if out is None:
            out = Buffer(b.shape, b.dtype, b.name, slot[0], b.strides, b.elem_offset,
                         b.axis_separators, b.scope, b.data_alignment, b.offset_factor,
                         b.buffer_type)
            self.buffers[b] = out
        return out

    def visit_BufferLoad(self, e):
        e2 = self.generic_visit(e)
        b = self._buffer(e2.buffer)
        return e2 if b is e2.buffer else type(e2)(b, e2.indices)

    def visit_BufferStore(self, s):
        s2 = self.generic_visit(s)
        b = self._buffer(s2.buffer)
        return s2 if b is s2.buffer else s2.replace(buffer=b)


class _Scopes(Mutator):
    """Rewrites each scope, innermost first."""

    def visit_For(self, f):
        f2 = self.generic_visit(f)
        if _is_scope(f2):
            body = _rewrite_scope(f2.body)
            return f2.replace(body=body)
        return f2

    def visit_AttrStmt(self, s):
        s2 = self.generic_visit(s)
        if _is_scope(s2):
            return s2.replace(body=_rewrite_scope(s2.body))
        return s2


def _rewrite_scope(body):
    infos = _collect(body)
    if len(infos) < 2:
        return body
    _Liveness(infos).visit(body)
    assign, slots = _plan(infos)
    if len(slots) == len([i for i in infos.values() if i.start >= 0]):
        return body                         # nothing shares: leave the allocations be
    out = _Rewrite(infos, assign).visit(body)
    for var, dtype, scope, size, _, annotations in reversed(slots):
        out = Allocate(var, dtype, [IntImm(size, "int32")], True, seq(out), annotations)
    return out


@register_pass("StorageRewrite")
def storage_rewrite(func: PrimFunc) -> PrimFunc:
    """``func`` with intermediate allocations sharing memory where their live ranges allow
    (see the module docstring)."""
    body = _Scopes().visit(func.body)
    body = _rewrite_scope(body)
    return func if body is func.body else func.with_body(body)


__all__ = ["storage_rewrite"]
