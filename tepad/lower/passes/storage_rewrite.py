"""StorageRewrite: intermediate allocations whose live ranges do not overlap share memory
(TVM's ``tir.transform.StorageRewrite``, its memory-reuse part).

    B = T.allocate([64]); B[i] = A[i] + 1          S = T.allocate([64])
    C = T.allocate([64]); C[i] = B[i] * 2    ==>   C = T.allocate([64])
    D = T.allocate([64]); D[i] = C[i] - 1          S[i] = A[i] + 1;  C[i] = S[i] * 2
    E[i] = D[i] * D[63 - i]                         S[i] = C[i] - 1;  E[i] = S[i] * S[63 - i]

Scopes: the function body, the body of each parallel loop and of each thread launch
(``thread_extent`` / ``virtual_thread``): an allocation inside such a region is private to a
thread and never leaves it. In each scope, the allocations with no condition and not inside a
nested scope are candidates when their size (the product of their extents) is a positive
constant, or an expression over variables defined outside the scope (``m * l``).

Live ranges: the scope's statements are numbered in execution order; a candidate is live
from its first to its last use (any occurrence of its data variable: loads, stores, pointers
passed to calls). A use inside a loop (or a thread launch: its threads run side by side)
that sits inside the candidate's allocation counts for the whole loop (values may flow
between iterations, threads may be anywhere in the region); loops around the allocation
itself do not (each iteration allocated afresh, so nothing flows between them).

Reuse: candidates are taken in order of their first use; each takes the memory of an
earlier candidate of the same dtype and storage scope whose live range ended before it
starts (the smallest one big enough, else the biggest, which then grows; a symbolic size
shares only with the very same size). TVM's inplace rule also frees a candidate ``src`` for
``dst`` when ``src`` dies in the serial loop nest where ``dst`` is born and that nest's only
access to ``dst`` is one store ``dst[idx] = f(src[idx], ...)`` reading ``src`` at that index
alone, writing no ``src``, with ``idx`` different in every iteration (so each element is read
just before the same element is overwritten). Each piece of memory becomes one allocation at
the top of the scope, under the name of its first user (as TVM, candidates move to the top of
their scope even when they share nothing); the buffers of the others are rebuilt over it
(same shape, the shared data variable). Allocations of different dtypes are not merged (TVM
reinterprets bytes; tepad keeps one element type per allocation). A function already in
that form (no candidates, or the pass's own output) comes back unchanged (the same object).
"""
from __future__ import annotations

from dataclasses import dataclass

from ...arith import Analyzer
from ...arith.affine import linear_strides
from ...tir.buffer import Buffer
from ...tir.expr import IntImm, Range, Var
from ...tir.function import PrimFunc
from ...tir.functor import Mutator, Visitor, collect_vars
from ...tir.stmt import Allocate, AttrStmt, For, ForKind, LetStmt, Stmt, seq
from ...tir.structural import structural_equal
from ...tir.transform import register_pass

_SCOPE_ATTRS = ("thread_extent", "virtual_thread")
# statement classes besides For whose body may run more than once
_REPEATING = ("While", "WhileLoop", "DoWhile")


def _is_scope(s) -> bool:
    return (isinstance(s, For) and s.kind in (ForKind.PARALLEL, ForKind.THREAD_BINDING)) or \
        (isinstance(s, AttrStmt) and s.attr_key in _SCOPE_ATTRS)


def _size(a: Allocate):
    """The element count of ``a``: an int when constant, else an expression."""
    size = a.extents[0]
    for e in a.extents[1:]:
        size = size * e
    size = Analyzer().simplify(size) if len(a.extents) > 1 else size
    return int(size.value) if isinstance(size, IntImm) else size


def _candidate(a: Allocate, bound_inside) -> bool:
    """An allocation of the scope that may move to its top: no condition, a positive
    constant size or a symbolic one over variables defined outside the scope."""
    cond = a.condition
    if not a.extents or not (cond is None or (isinstance(cond, IntImm) and cond.value)):
        return False
    size = _size(a)
    if isinstance(size, int):
        return size > 0
    return not (collect_vars(size) & bound_inside)


@dataclass(eq=False)
class _Info:
    alloc: Allocate
    size: object = 0
    start: int = -1
    end: int = -1


class _Liveness(Visitor):
    """Numbers the statements of one scope and records each candidate's live range."""

    def __init__(self, infos):
        self.infos = infos              # data Var -> _Info
        self.pos = 0
        self.open_allocs: list = []     # candidates whose Allocate encloses the walk
        self.loops: list = []           # [start, allocations open at entry, infos used]
        self.top_loops: list = []       # (start, end, statement) of loops not inside another

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
        self._repeated(f.body, f)

    def visit_AttrStmt(self, a):
        self.pos += 1
        self.visit(a.value)
        if a.attr_key in _SCOPE_ATTRS:
            # threads run the launch region side by side: a use anywhere in it lasts all of it
            self._repeated(a.body, a)
        else:
            self.visit(a.body)

    def _repeated(self, body, stmt=None):
        """Walk ``body`` of a loop or thread launch: the uses inside it of allocations made
        outside it last from its start to its end."""
        entry = [self.pos, len(self.open_allocs), []]
        top = not self.loops
        self.loops.append(entry)
        self.visit(body)
        self.loops.pop()
        self.pos += 1
        for info in entry[2]:
            info.end = max(info.end, self.pos)
        if top and stmt is not None:
            self.top_loops.append((entry[0], self.pos, stmt))

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


def _bound_in(body) -> set:
    """Variables bound inside ``body`` (loops, lets, allocations, thread launches)."""
    out = set()
    stack = [body]
    while stack:
        n = stack.pop()
        if isinstance(n, For):
            out.add(n.loop_var)
        elif isinstance(n, LetStmt):
            out.add(n.var)
        elif isinstance(n, Allocate):
            out.add(n.buffer_var)
        elif isinstance(n, AttrStmt) and isinstance(getattr(n.node, "var", None), Var):
            out.add(n.node.var)
        for v in n.field_values():
            if isinstance(v, Stmt):
                stack.append(v)
            elif isinstance(v, tuple):
                stack.extend(x for x in v if isinstance(x, Stmt))
    return out


def _collect(body) -> dict:
    """Candidate allocations of the scope whose body is ``body`` (not in nested scopes)."""
    infos = {}
    bound = _bound_in(body)
    stack = [body]
    while stack:
        n = stack.pop()
        if _is_scope(n):
            continue
        if isinstance(n, Allocate) and _candidate(n, bound):
            infos[n.buffer_var] = _Info(n, _size(n))
        for v in n.field_values():
            if isinstance(v, Stmt):
                stack.append(v)
            elif isinstance(v, tuple):
                stack.extend(x for x in v if isinstance(x, Stmt))
    return infos


class _InplaceCheck(Visitor):
    """The accesses of ``src`` and ``dst`` inside one loop nest."""

    def __init__(self, src, dst):
        self.src, self.dst = src, dst
        self.stores = []            # (store, enclosing loops)
        self.src_loads = []         # (index, the store whose value reads it or None)
        self.bad = False
        self.loops = []
        self.store = None

    def visit_For(self, f):
        self.visit(f.min)
        self.visit(f.extent)
        self.loops.append(f)
        self.visit(f.body)
        self.loops.pop()

    def visit_Var(self, v):
        if v is self.src or v is self.dst:
            self.bad = True         # a pointer use: no telling what it touches

    def visit_AttrStmt(self, a):
        if a.attr_key in _SCOPE_ATTRS:
            self.bad = True         # threads side by side: the index is not per iteration
        self.generic_visit(a)

    def visit_BufferLoad(self, e):
        if e.buffer.data is self.dst:
            self.bad = True
        elif e.buffer.data is self.src:
            self.src_loads.append((e.indices, self.store))
        self.visit(e.indices)

    def visit_BufferStore(self, s):
        if s.buffer.data is self.src:
            self.bad = True
        if s.buffer.data is self.dst:
            self.stores.append((s, list(self.loops)))
        saved, self.store = self.store, s
        self.visit(s.value)
        self.store = saved
        self.visit(s.indices)


def _injective(index, loops) -> bool:
    """Whether ``index`` takes a different value in every iteration of ``loops``: affine in
    their variables, each stride larger than what the loops inside it can add."""
    ana = Analyzer()
    for f in loops:
        ana.bind(f.loop_var, Range.from_min_extent(f.min, f.extent))
    got = linear_strides(index, [f.loop_var for f in loops], ana)
    if got is None:
        return False
    strides, _ = got
    span = IntImm(0, index.dtype)           # the most the loops inside can add
    for f, st in reversed(list(zip(loops, strides))):
        if isinstance(f.extent, IntImm) and f.extent.value == 1:
            continue
        if not ana.can_prove(st > span):
            return False
        span = ana.simplify(span + st * (f.extent - 1))
    return True


def _inplace_ok(loop, src, dst) -> bool:
    """TVM's inplace rule: inside ``loop`` the only access to ``dst`` is one store
    ``dst[idx] = f(src[idx], ...)`` reading ``src`` at that same index only, ``src`` is not
    written, and ``idx`` differs in every iteration; then ``dst`` may take ``src``'s memory
    (each element of ``src`` is read just before the same element of ``dst`` is written)."""
    if not isinstance(loop, For):
        return False
    chk = _InplaceCheck(src, dst)
    chk.visit(loop)
    if chk.bad or len(chk.stores) != 1:
        return False
    store, loops = chk.stores[0]
    if len(store.indices) != 1:
        return False
    for idx, at in chk.src_loads:
        if at is not store or len(idx) != 1 or not structural_equal(idx[0], store.indices[0]):
            return False
    return _injective(store.indices[0], loops)


def _same_size(a, b) -> bool:
    if isinstance(a, int) or isinstance(b, int):
        return False
    return structural_equal(a, b)


def _plan(infos, top_loops=()) -> dict:
    """``{data Var: slot}`` for every used candidate, and the slots: ``[var, dtype, scope,
    size, end, annotations, last user]`` (a size is an int, or an expression for symbolic
    allocations, which share only with one of the very same size)."""
    slots = []
    assign = {}
    used = [i for i in infos.values() if i.start >= 0]
    loops_at = {(lo, hi): stmt for lo, hi, stmt in top_loops}

    def free(s, info):
        if s[4] < info.start:
            return True
        # inplace: the last user dies in the loop nest where this one is born
        loop = loops_at.get((info.start, s[4]))
        last = s[6]
        return loop is not None and last.start < info.start and \
            _inplace_ok(loop, last.alloc.buffer_var, info.alloc.buffer_var)

    for info in sorted(used, key=lambda i: (i.start, i.end)):
        a = info.alloc
        size = info.size
        scope = a.annotations.get("scope", "global")
        cands = [s for s in slots if s[1] == a.dtype and s[2] == scope and free(s, info)]
        if isinstance(size, int):
            cands = [s for s in cands if isinstance(s[3], int)]
            fit = [s for s in cands if s[3] >= size]
            slot = min(fit, key=lambda s: s[3]) if fit else \
                (max(cands, key=lambda s: s[3]) if cands else None)
        else:
            slot = next((s for s in cands if _same_size(s[3], size)), None)
        if slot is None:
            slot = [a.buffer_var, a.dtype, scope, size, info.end, a.annotations, info]
            slots.append(slot)
        if isinstance(size, int):
            slot[3] = max(slot[3], size)
        slot[4] = info.end
        slot[6] = info
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
    if not infos:
        return body
    live = _Liveness(infos)
    live.visit(body)
    assign, slots = _plan(infos, live.top_loops)
    if not slots:
        return body
    out = _Rewrite(infos, assign).visit(body)
    for var, dtype, scope, size, _, annotations, _ in reversed(slots):
        extent = IntImm(size, "int32") if isinstance(size, int) else size
        out = Allocate(var, dtype, [extent], True, seq(out), annotations)
    # already in this form (the pass run a second time): the same object
    return body if structural_equal(out, body) else out


@register_pass("StorageRewrite")
def storage_rewrite(func: PrimFunc) -> PrimFunc:
    """``func`` with intermediate allocations sharing memory where their live ranges allow
    (see the module docstring)."""
    body = _Scopes().visit(func.body)
    body = _rewrite_scope(body)
    return func if body is func.body else func.with_body(body)


__all__ = ["storage_rewrite"]
