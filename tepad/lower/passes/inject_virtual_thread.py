"""inject_virtual_thread: ``vthread`` bindings become code (TVM's InjectVirtualThread).

A ``virtual_thread`` attribute with variable ``v`` and extent ``n`` says: run the body for
``v = 0 .. n-1``, in any order, each with its own copy of what it computes. Guarantees:

* no ``virtual_thread`` attribute remains;
* an allocation inside the attribute that ``v`` touches (a store whose index or value uses
  ``v``, or a touched buffer or let variable, transitively; a call writing through a
  ``tvm_access_ptr`` that reads any of those) is expanded to ``n`` copies, copy ``v`` at
  offset ``v * size`` (loads, stores and access pointers moved there); others stay shared
  by the virtual threads;
* the loop over ``v`` is pushed inward to the statements that ``v`` touches (a loop, branch,
  let or allocation that does not depend on ``v`` runs once, with the virtual threads inside
  it), and a touched statement without loops is unrolled ``n`` times (``v`` replaced by each
  constant), one with loops runs under a serial ``for`` over ``v``.

So a shared-memory tile loaded under a virtual thread without using it is loaded once, and
each virtual thread's accumulators become one register array per thread, as TVM lowers them.
"""
from __future__ import annotations

from ...tir.buffer import Buffer
from ...tir.expr import BufferLoad, Call, IntImm, Var, add, mul
from ...tir.function import PrimFunc
from ...tir.functor import Mutator, collect_vars, post_order_visit, substitute
from ...tir.stmt import (Allocate, AttrStmt, BufferStore, Evaluate, For, ForKind, IfThenElse,
                         LetStmt, SeqStmt, seq)
from ..thread_binding import VIRTUAL_THREAD
from ...tir.transform import register_pass


ACCESS_PTR = "tir.tvm_access_ptr"


def _access_ptrs(e) -> list:
    out = []
    post_order_visit(e, lambda x: out.append(x) if isinstance(x, Call) and
                     x.op == ACCESS_PTR else None)
    return out


def _touched(body, v) -> set:
    """Vars (``v``, let vars, allocation data vars) whose values depend on ``v``."""
    touched = {v}
    stores, lets, calls = [], [], []

    def f(n):
        if isinstance(n, BufferStore):
            stores.append(n)
        elif isinstance(n, LetStmt):
            lets.append(n)
        elif isinstance(n, Evaluate) and _access_ptrs(n.value):
            calls.append(n.value)
    post_order_visit(body, f)

    def reads(node):
        out = set(collect_vars(node))
        post_order_visit(node, lambda x: out.add(x.buffer.data)
                         if isinstance(x, BufferLoad) else None)
        return out

    store_reads = [(s.buffer.data, reads(s.value) | reads(list(s.indices))) for s in stores]
    let_reads = [(s.var, reads(s.value)) for s in lets]
    # a call handed a pointer it may write (tvm_access_ptr with the write bit) writes from
    # everything the call reads (an extern function, a tensor intrinsic)
    for c in calls:
        uses = reads(c)
        for ptr in _access_ptrs(c):
            if int(ptr.args[4].value) & 2:
                store_reads.append((ptr.args[1], uses))
    changed = True
    while changed:
        changed = False
        for target, uses in store_reads + let_reads:
            if target not in touched and uses & touched:
                touched.add(target)
                changed = True
    return touched


class _Expand(Mutator):
    """Allocations of ``vars`` get ``n`` copies; copy ``v`` at ``v * size``."""

    def __init__(self, v, n, allocs):
        self.v, self.n = v, n
        self.sizes = {}                      # data var -> elements per copy
        self.allocs = allocs
        self.memo = {}

    def visit_Allocate(self, s):
        if s.buffer_var not in self.allocs:
            return self.generic_visit(s)
        size = IntImm(1, "int32")
        for e in s.extents:
            size = mul(size, e) if not (isinstance(size, IntImm) and size.value == 1) else e
        self.sizes[s.buffer_var] = size
        body = self.visit(s.body)
        return Allocate(s.buffer_var, s.dtype, [mul(IntImm(self.n, size.dtype), size)],
                        s.condition, body, s.annotations)

    def _buf(self, buf):
        new = self.memo.get(buf)
        if new is None:
            size = self.sizes[buf.data]
            new = self.memo[buf] = Buffer([mul(IntImm(self.n, size.dtype), size)], buf.dtype,
                                          buf.name, data=buf.data, scope=buf.scope)
        return new

    def _index(self, buf, indices):
        size = self.sizes[buf.data]
        (i,) = indices
        off = mul(self.v if self.v.dtype == size.dtype else self.v.astype(size.dtype), size)
        return [add(off, i if i.dtype == size.dtype else i.astype(size.dtype))]

    def visit_Call(self, c):
        d = self.generic_visit(c)
        if d.op == ACCESS_PTR and d.args[1] in self.sizes:
            size = self.sizes[d.args[1]]
            off = d.args[2]
            v = self.v if self.v.dtype == off.dtype else self.v.astype(off.dtype)
            size = size if size.dtype == off.dtype else size.astype(off.dtype)
            args = list(d.args)
            args[2] = add(mul(v, size), off)
            return Call(d.dtype, d.op, args)
        return d

    def visit_BufferLoad(self, x):
        y = self.generic_visit(x)
        if y.buffer.data not in self.sizes:
            return y
        return BufferLoad(self._buf(y.buffer), self._index(y.buffer, y.indices))

    def visit_BufferStore(self, s):
        t = self.generic_visit(s)
        if t.buffer.data not in self.sizes:
            return t
        return BufferStore(self._buf(t.buffer), t.value, self._index(t.buffer, t.indices))


def _has_loop(s) -> bool:
    found = []
    post_order_visit(s, lambda n: found.append(n) if isinstance(n, For) else None)
    return bool(found)


class _Inject:
    def __init__(self, v, n, touched):
        self.v, self.n, self.touched = v, n, touched

    def uses(self, node) -> bool:
        if collect_vars(node) & self.touched:
            return True
        return False

    def run(self, s):
        if not self.uses(s):
            return s
        if isinstance(s, SeqStmt):
            return seq(*[self.run(x) for x in s.seq])
        if isinstance(s, For) and not self.uses([s.min, s.extent]):
            return For(s.loop_var, s.min, s.extent, s.kind, self.run(s.body), s.thread_binding,
                       s.annotations)
        if isinstance(s, Allocate) and not self.uses(list(s.extents)):
            return Allocate(s.buffer_var, s.dtype, s.extents, s.condition, self.run(s.body),
                            s.annotations)
        if isinstance(s, AttrStmt) and not self.uses(s.value) and s.attr_key != VIRTUAL_THREAD:
            return AttrStmt(s.node, s.attr_key, s.value, self.run(s.body))
        if isinstance(s, LetStmt) and not self.uses(s.value):
            return LetStmt(s.var, s.value, self.run(s.body))
        if isinstance(s, IfThenElse) and not self.uses(s.condition):
            return IfThenElse(s.condition, self.run(s.then_case),
                              None if s.else_case is None else self.run(s.else_case))
        return self.loop(s)

    def loop(self, s):
        """``s`` run for every virtual thread: unrolled, or under a serial loop."""
        if not _has_loop(s):
            return seq(*[substitute(s, {self.v: IntImm(k, self.v.dtype)})
                         for k in range(self.n)])
        w = Var(self.v.name + ".s", self.v.dtype)
        return For(w, IntImm(0, w.dtype), IntImm(self.n, w.dtype), ForKind.SERIAL,
                   substitute(s, {self.v: w}))


class _VThreads(Mutator):
    def visit_AttrStmt(self, s):
        body = self.visit(s.body)            # inner virtual threads first
        if s.attr_key != VIRTUAL_THREAD:
            return s if body is s.body else AttrStmt(s.node, s.attr_key, s.value, body)
        v = s.node.var if hasattr(s.node, "var") else s.node
        n = int(s.value.value)
        touched = _touched(body, v)
        allocs = set()
        post_order_visit(body, lambda x: allocs.add(x.buffer_var)
                         if isinstance(x, Allocate) and x.buffer_var in touched else None)
        body = _Expand(v, n, allocs).visit(body) if allocs else body
        touched = _touched(body, v) | allocs
        return _Inject(v, n, touched).run(body)


@register_pass("InjectVirtualThread")
def inject_virtual_thread(func: PrimFunc) -> PrimFunc:
    """``func`` with its virtual threads injected (see the module)."""
    found = []
    post_order_visit(func.body, lambda n: found.append(n) if isinstance(n, AttrStmt) and
                     n.attr_key == VIRTUAL_THREAD else None)
    if not found:
        return func
    return func.with_body(_VThreads().visit(func.body))


__all__ = ["inject_virtual_thread"]
