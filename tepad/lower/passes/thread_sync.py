"""thread_sync: barriers for shared memory (TVM's ``ThreadSync("shared")``).

Guarantees, inside every GPU kernel (the subtree of an outermost launch attribute):

* before a statement that reads a ``shared`` allocation written since the last barrier by
  other threads (RAW), and before one that writes a ``shared`` allocation read since the last
  barrier by other threads (WAR), there is a barrier:
  ``Evaluate(tir.tvm_storage_sync("shared"))``;
* a loop's body is planned with what the end of its previous iteration left pending, so a
  store at the top of a loop that overwrites what the last iteration read gets its barrier;
* barriers are placed only where every thread of the block arrives: never inside a branch or
  a loop whose condition or bounds depend on a thread index (or on memory); such a statement
  is treated as one step and its barrier goes before it (hoisted out of the branch).

Two accesses do not conflict (TVM's rule) when they touch the same index and that index
uses the innermost thread index: the thread reads its own element. Thread variables of
different launches of one tag count as the same index. Barriers already present (the
allreduce lowering's) count. Functions without shared allocations are returned unchanged.

Double buffering (inject_double_buffer, TVM's rule): a write inside a
``double_buffer_write`` attr fills the half the next iteration reads, so a read after it in
the same iteration of its loop does not conflict with it; once the loop's iteration ends
(into the next one, or out of the loop) it is an ordinary write again. One barrier per
iteration then remains: before the next half's writes (the previous iteration read it).
"""
from __future__ import annotations

from ...errors import TepadError
from ...tir.expr import Call, IntImm
from ...tir.function import PrimFunc
from ...tir.functor import Mutator, Visitor, collect_vars, substitute
from ...tir.storage_scope import storage_rank
from ...tir.op import call_intrin
from ...tir.stmt import Allocate, AttrStmt, Evaluate, For, IfThenElse, LetStmt, SeqStmt, seq
from ...tir.structural import structural_equal
from ...tir.launch import is_launch, launch_tag, launch_var
from ..gpu_kernel import allocation_scopes, canonical_thread_vars
from ...tir.transform import register_pass

SYNC_OP = "tir.tvm_storage_sync"


def make_sync(scope: str = "shared"):
    """The barrier statement ``tvm_storage_sync(scope)``."""
    return Evaluate(call_intrin("int32", SYNC_OP, scope))


def is_sync(s) -> bool:
    return isinstance(s, Evaluate) and isinstance(s.value, Call) and s.value.op == SYNC_OP


DOUBLE_BUFFER_WRITE = "double_buffer_write"


class _Access:
    __slots__ = ("write", "var", "index", "thread", "db")

    def __init__(self, write, var, index, thread, db=False):
        self.write, self.var, self.index, self.thread = write, var, index, thread
        # a write inside inject_double_buffer's double_buffer_write: it fills the half the
        # next iteration reads, so reads later in the same iteration (the other half) do
        # not conflict with it
        self.db = db


def _plain(accesses, keep=()):
    """``accesses`` with double-buffer writes made ordinary (they cross a loop boundary:
    the next iteration, or what follows the loop, reads the half they wrote), except those
    of buffers in ``keep`` (a loop inside their double_buffer_write attr: the producer's)."""
    return [_Access(a.write, a.var, a.index, a.thread) if a.db and a.var not in keep else a
            for a in accesses]


def _conflict(a: _Access, b: _Access) -> bool:
    if a.var is not b.var:
        return False
    if a.index is None or b.index is None:
        return True
    if len(a.index) != len(b.index):
        return True
    t = b.thread
    for x, y in zip(a.index, b.index):
        if not structural_equal(x, y):
            return True
        if t is None or t not in collect_vars(x):
            return True
    return False


class _Collect(Visitor):
    """Shared-memory accesses of one statement, thread vars canonical."""

    def __init__(self, planner):
        self.p = planner
        self.out = []

    def _index(self, indices):
        return tuple(substitute(i, self.p.canon) for i in indices)

    def visit_BufferLoad(self, x):
        self.generic_visit(x)
        if x.buffer.data in self.p.shared:
            self.out.append(_Access(False, x.buffer.data, self._index(x.indices),
                                    self.p.thread))

    def visit_BufferStore(self, s):
        self.generic_visit(s)
        if s.buffer.data in self.p.shared:
            self.out.append(_Access(True, s.buffer.data, self._index(s.indices),
                                    self.p.thread, s.buffer.data in self.p.db_write))

    def visit_AttrStmt(self, s):
        if s.attr_key != DOUBLE_BUFFER_WRITE:
            return self.generic_visit(s)
        self.p.db_write.add(s.node)
        self.visit(s.value)
        self.visit(s.body)
        self.p.db_write.discard(s.node)

    def visit_Var(self, v):
        # the pointer itself handed to a call: any element may be read or written
        if v in self.p.shared:
            self.out.append(_Access(False, v, None, None))
            self.out.append(_Access(True, v, None, None))


class _Planner:
    def __init__(self, shared, kernel):
        self.shared = shared
        self.canon = canonical_thread_vars(kernel)
        self.varying = set()              # thread indices and what is computed from them
        self.thread = None                # innermost thread index (canonical) where we are
        self.db_write = set()             # buffers inside their double_buffer_write attr

    # -- uniformity: every thread of a block takes the same path
    def uniform(self, *exprs) -> bool:
        for e in exprs:
            found = []

            class _V(Visitor):
                def visit_BufferLoad(self, x):
                    found.append(x)

            _V().visit(e)
            if found or collect_vars(e) & self.varying:
                return False
        return True

    def accesses(self, s):
        c = _Collect(self)
        c.visit(s)
        return c.out

    # -- planning: (statement with barriers, accesses pending after it)
    def plan(self, s, pending):
        if is_sync(s):
            return s, []
        if isinstance(s, SeqStmt):
            out = []
            for x in s.seq:
                y, pending = self.plan(x, pending)
                out.append(y)
            if all(a is b for a, b in zip(out, s.seq)):
                return s, pending
            return seq(*out), pending
        if isinstance(s, AttrStmt):
            if is_launch(s):
                saved = self.thread
                if launch_tag(s).startswith("threadIdx"):
                    v = launch_var(s)
                    self.varying.add(v)
                    self.thread = self.canon.get(v, v)
                body, pending = self.plan(s.body, pending)
                self.thread = saved
            elif s.attr_key == DOUBLE_BUFFER_WRITE:
                self.db_write.add(s.node)
                body, pending = self.plan(s.body, pending)
                self.db_write.discard(s.node)
            else:
                body, pending = self.plan(s.body, pending)
            return _rebuild(s, body), pending
        if isinstance(s, Allocate):
            body, pending = self.plan(s.body, pending)
            return _rebuild(s, body), pending
        if isinstance(s, LetStmt):
            if not self.uniform(s.value):
                self.varying.add(s.var)
            # the value is read before the body runs: its accesses are a step of their own
            acc = self.accesses(s.value)
            synced = self._conflicts(pending, acc)
            pending = _union([] if synced else pending, acc)
            body, pending = self.plan(s.body, pending)
            out = _rebuild(s, body)
            return (seq(make_sync(), out) if synced else out), pending
        if isinstance(s, For) and self.uniform(s.min, s.extent):
            return self.plan_loop(s, pending)
        if isinstance(s, IfThenElse) and self.uniform(s.condition):
            then, p1 = self.plan(s.then_case, pending)
            if s.else_case is None:
                return _rebuild_if(s, then, None), _union(pending, p1)
            other, p2 = self.plan(s.else_case, pending)
            return _rebuild_if(s, then, other), _union(p1, p2)
        return self.step(s, pending)

    def step(self, s, pending):
        """``s`` as one step: a barrier before it when it conflicts with ``pending``."""
        acc = self.accesses(s)
        if not acc:
            return s, pending
        if self._conflicts(pending, acc):
            return seq(make_sync(), s), acc
        return s, _union(pending, acc)

    def plan_loop(self, s, pending):
        # the body is planned with what its previous iteration leaves pending (planned once
        # to learn that, then again with it: more pending only adds barriers, so the second
        # plan's leftovers are covered); a conflict with what came before the loop is checked
        # against the accesses before the body's first barrier, and fixed by one barrier
        # before the loop, not one in every iteration
        _, carried = self.plan(s.body, [])
        body, end = self.plan(s.body, _plain(carried, self.db_write))
        end = _plain(end, self.db_write)
        head, stopped = self.head(body)
        runs = isinstance(s.extent, IntImm) and s.extent.value > 0
        loop = _rebuild(s, body)
        if self._conflicts(pending, head):
            return seq(make_sync(), loop), end
        return loop, end if runs and stopped else _union(pending, end)

    def head(self, s):
        """``(accesses before the first barrier every thread reaches in s, whether s always
        reaches one)``."""
        if is_sync(s):
            return [], True
        if isinstance(s, SeqStmt):
            out = []
            for x in s.seq:
                acc, stopped = self.head(x)
                out += acc
                if stopped:
                    return out, True
            return out, False
        if isinstance(s, (AttrStmt, Allocate)):
            return self.head(s.body)
        if isinstance(s, LetStmt):
            acc, stopped = self.head(s.body)
            return self.accesses(s.value) + acc, stopped
        if isinstance(s, For) and self.uniform(s.min, s.extent):
            acc, stopped = self.head(s.body)
            return acc, stopped and isinstance(s.extent, IntImm) and s.extent.value > 0
        if isinstance(s, IfThenElse) and self.uniform(s.condition):
            a1, s1 = self.head(s.then_case)
            a2, s2 = self.head(s.else_case) if s.else_case is not None else ([], False)
            return a1 + a2, s1 and s2
        return self.accesses(s), False

    @staticmethod
    def _conflicts(pending, acc) -> bool:
        return any(_conflict(p, a) for a in acc for p in pending
                   if p.write != a.write and not (p.db and not a.write))


def _union(a, b):
    out = list(a)
    ids = {id(x) for x in a}
    out.extend(x for x in b if id(x) not in ids)
    return out


def _rebuild_if(s, then, other):
    if then is s.then_case and other is s.else_case:
        return s
    return IfThenElse(s.condition, then, other)


def _rebuild(s, body):
    if body is s.body:
        return s
    vals = list(s.field_values())
    vals[s._fields.index("body")] = body
    return type(s)._make(*vals)


class _Kernels(Mutator):
    def __init__(self, shared):
        self.shared = shared

    def visit_AttrStmt(self, n):
        if is_launch(n):
            planner = _Planner(self.shared, n)
            out, _ = planner.plan(n, [])
            return out
        return self.generic_visit(n)


@register_pass("ThreadSync")
def thread_sync(func: PrimFunc, storage_scope: str = "shared") -> PrimFunc:
    """``func`` with the shared-memory barriers the module describes. ``storage_scope``
    (TVM's argument): ``"shared"``; ``"warp"`` gives ``func`` unchanged (warp buffers become
    registers read through shuffles, which order the lanes themselves: lower_warp_memory);
    anything else is a TepadError."""
    if storage_scope == "warp":
        return func
    if storage_scope != "shared":
        raise TepadError(f"ThreadSync({storage_scope!r}): tepad synchronizes 'shared' memory "
                         "(barriers within a block); 'global' needs a grid-wide barrier, "
                         "which it does not emit")
    shared = {v for v, scope in allocation_scopes(func.body).items()
              if storage_rank(scope) == "shared"}
    if not shared:
        return func
    body = _Kernels(shared).visit(func.body)
    return func if body is func.body else func.with_body(body)


__all__ = ["thread_sync", "make_sync", "is_sync", "SYNC_OP"]
