"""vectorize_independent_loops: vector code for innermost loops whose iterations share no memory.

The GPU emulator runs each thread's code as CPU loops, and tepad compiles with LLVM's
auto-vectorizers off (see ``tepad.codegen.jit``), so a thread's inner tile loop (the 4 x 4
accumulation of a register-tiled kernel) or an innermost ``threadIdx.x`` loop over consecutive
elements stays scalar unless the schedule vectorized it. This pass finds the innermost serial
loops with a constant extent that can run as vectors without changing what they store, marks
them ``VECTORIZED`` and runs ``vectorize_loop`` on them.

A loop qualifies when its body is straight-line code (stores and ``if`` statements; no inner
loop, let (a vector body cut in pieces would bind it twice), allocation, ``Evaluate`` or call
other than elementwise math and ``if_then_else``) on
flat (one-index) buffers, every index scalar, and for every buffer the body stores into:

* all accesses to it have one element type (not two typed views of one allocation);
* every access to it (loads and stores) has an index ``c * v + base_k`` linear in the loop var
  ``v`` with one constant ``c != 0`` for all of them;
* for every pair of accesses of which one is a store, ``base_a - base_b`` is a constant ``d``
  that is not ``c * j`` for a ``j`` in ``[1, extent - 1]``: no memory location is touched by two
  different iterations where one of them writes it.

Then running the iterations as lanes (each statement for all lanes before the next) stores
the same values as the serial loop, bit for bit (each lane does the same operations in the
same order). A loop that does not qualify is left as it is; one that qualifies but that
``vectorize_loop`` cannot widen comes back serial.
"""
from __future__ import annotations

from ...arith import Analyzer
from ...arith.detect import detect_linear_equation
from ...tir import dtype as dt
from ...tir import stmt as S
from ...tir.expr import BufferLoad, Call, IntImm, Let, PrimExpr
from ...tir.function import PrimFunc
from ...tir.functor import Mutator, post_order_visit
from .vectorize_loop import _ELEMENTWISE_CALLS, vectorize_stmt

#: the widest vector a loop is cut into (vectorize_loop splits longer extents)
MAX_LANES = 16


class _Refuse(Exception):
    pass


def _accesses(body):
    """``[(data var, element dtype, index, is_store)]`` of the body's flat accesses (the index
    counted from the allocation's start); raises _Refuse for what the pass does not
    handle."""
    out = []

    def index_of(buf, idx):
        if len(idx) != 1 or dt.lanes(idx[0].dtype) != 1 or dt.lanes(buf.dtype) != 1:
            raise _Refuse
        off = buf.elem_offset
        return idx[0] if isinstance(off, IntImm) and off.value == 0 else idx[0] + off

    def expr(e):
        def f(n):
            if isinstance(n, BufferLoad):
                out.append((n.buffer.data, n.buffer.dtype, index_of(n.buffer, n.indices), False))
            elif isinstance(n, Call) and n.op not in _ELEMENTWISE_CALLS:
                raise _Refuse
            elif isinstance(n, Let):
                raise _Refuse
            elif isinstance(n, PrimExpr) and dt.lanes(n.dtype) != 1:
                raise _Refuse
        post_order_visit(e, f)

    def stmt(s):
        if isinstance(s, S.SeqStmt):
            for c in s.seq:
                stmt(c)
        elif isinstance(s, S.BufferStore):
            expr(s.value)
            for i in s.indices:
                expr(i)
            out.append((s.buffer.data, s.buffer.dtype, index_of(s.buffer, s.indices), True))
        elif isinstance(s, S.IfThenElse):
            expr(s.condition)
            stmt(s.then_case)
            if s.else_case is not None:
                stmt(s.else_case)
        else:
            raise _Refuse
    stmt(body)
    return out


def independent_iterations(loop: S.For) -> bool:
    """Whether the iterations of ``loop`` (constant extent) touch disjoint memory wherever one
    of them stores (the module docstring's conditions)."""
    if not isinstance(loop.extent, IntImm):
        return False
    extent = loop.extent.value
    var = loop.loop_var
    try:
        accesses = _accesses(loop.body)
    except _Refuse:
        return False
    written = {d for d, _, _, store in accesses if store}
    if not written:
        return False
    ana = Analyzer()
    for data in written:
        mine = []
        # one element type: indices of differently typed views are not comparable
        if len({t for d, t, _, _ in accesses if d is data}) != 1:
            return False
        for d, _, index, store in accesses:
            if d is not data:
                continue
            lin = detect_linear_equation(index, [var])
            if not lin or not isinstance(lin[0], IntImm) or lin[0].value == 0:
                return False
            mine.append((lin[0].value, lin[1], store))
        c = mine[0][0]
        if any(k != c for k, _, _ in mine):
            return False
        for i, (_, base_a, store_a) in enumerate(mine):
            for _, base_b, store_b in mine[i + 1:]:
                if not (store_a or store_b):
                    continue
                d = ana.simplify(base_a - base_b)
                if not isinstance(d, IntImm):
                    return False
                if d.value % c == 0 and 1 <= abs(d.value // c) <= extent - 1:
                    return False
    return True


class _Mark(Mutator):
    def visit(self, node):
        return node if isinstance(node, PrimExpr) else super().visit(node)

    def visit_For(self, s):
        body = self.visit(s.body)
        s = s if body is s.body else s.replace(body=body)
        if s.kind != S.ForKind.SERIAL or not isinstance(s.extent, IntImm) or \
                s.extent.value < 2 or _holds_loop(s.body) or not independent_iterations(s):
            return s
        out = vectorize_stmt(s.replace(kind=S.ForKind.VECTORIZED), MAX_LANES)
        # vectorize_loop gives a refused loop back serial, annotated for LLVM's vectorizer
        if isinstance(out, S.For) and out.kind == S.ForKind.SERIAL and \
                out.body is s.body:
            return s
        return out


def _holds_loop(s) -> bool:
    found = []
    post_order_visit(s, lambda n: found.append(1) if isinstance(n, (S.For, S.While)) else None)
    return bool(found)


def vectorize_independent_loops(func: PrimFunc) -> PrimFunc:
    """``func`` with every qualifying innermost loop (module docstring) as vector code; the
    function itself when none qualifies."""
    body = _Mark().visit(func.body)
    return func if body is func.body else func.with_body(body)


__all__ = ["vectorize_independent_loops", "independent_iterations", "MAX_LANES"]
