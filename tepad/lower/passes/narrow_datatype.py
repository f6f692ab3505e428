"""narrow_datatype: loop and thread variables get the narrowest integer type their uses allow
(TVM's ``tir.transform.NarrowDataType(target_bits)``).

``narrow_datatype(func, target_bits=32)``. Which variables: those of ``For`` loops and of
``thread_extent`` / ``virtual_thread`` launches. Rule (TVM's): every integer expression the
variable occurs in (its own occurrence included) is bounded with the enclosing loop ranges
(``Analyzer.const_int_bound``); an expression of at most ``target_bits`` bits, or whose bound
fits in a signed ``target_bits`` integer, allows ``target_bits``, any other one keeps the
variable's own width. The variable takes the widest width any of its occurrences needs, and
never more bits than its loop extent has (as TVM, the extent's type is the variable's
"own" type: a thread variable launched over an int64 extent that needs 64 bits becomes int64). So ``for i in range(2**16): B[i*65536 + j]``
keeps an int64 ``i`` (the index passes 2**31), while ``for i in range(int64(4))`` over indices
below 2**31 gets an int32 ``i``.

A narrowed variable is a new Var of the narrow type; its loop bounds are cast to that type
and its uses become ``Cast(old type, var)``, so every expression keeps its type and value.
The pass is opt-in (tepad's pipeline keeps index types as written); a function with nothing
to narrow comes back as the same object.
"""
from __future__ import annotations

from ...arith import Analyzer
from ...arith.const_bound import NEG_INF, POS_INF
from ...errors import TepadError
from ...tir import dtype as dt
from ...tir import expr as E
from ...tir import stmt as S
from ...tir.function import PrimFunc
from ...tir.functor import Mutator
from ...tir.itervar import IterVar
from ...tir.transform import register_pass

_LAUNCH_ATTRS = ("thread_extent", "virtual_thread")


def _launch_var(s):
    if isinstance(s, S.AttrStmt) and s.attr_key in _LAUNCH_ATTRS and isinstance(s.node, IterVar):
        return s.node.var
    return None


class _Widths:
    """For each loop / thread variable, the bits its occurrences need (TVM's
    DataTypeVisitor)."""

    def __init__(self, target_bits):
        self.target = target_bits
        self.hi = (1 << (target_bits - 1)) - 1
        self.lo = -(1 << (target_bits - 1))
        self.ana = Analyzer()
        self.own = {}           # var -> its bits (only loop / thread variables)
        self.need = {}          # var -> widest bits seen
        self.bits = 0           # widest bits of the enclosing integer expressions

    def stmt(self, s):
        if isinstance(s, S.For):
            self.expr(s.min)
            self.expr(s.extent)
            self.own[s.loop_var] = dt.parse(s.extent.dtype).bits
            with self.ana.bind_scope(s.loop_var, E.Range.from_min_extent(s.min, s.extent)):
                self.stmt(s.body)
            return
        var = _launch_var(s)
        if var is not None:
            self.expr(s.value)
            self.own[var] = dt.parse(s.value.dtype).bits
            with self.ana.bind_scope(var, E.Range.from_min_extent(
                    E.const(0, var.dtype), s.value)):
                self.stmt(s.body)
            return
        for v in s.field_values():
            self._any(v)

    def _any(self, v):
        if isinstance(v, S.Stmt):
            self.stmt(v)
        elif isinstance(v, E.PrimExpr):
            self.expr(v)
        elif isinstance(v, (tuple, list)):
            for x in v:
                self._any(x)

    def expr(self, e):
        if not isinstance(e, E.PrimExpr):
            return
        saved = self.bits
        if dt.is_int(e.dtype) and dt.lanes(e.dtype) == 1:
            own = dt.parse(e.dtype).bits
            bits = 64
            if own <= self.target:
                bits = self.target
            else:
                b = self.ana.const_int_bound(e)
                if b.min_value is not NEG_INF and b.max_value is not POS_INF and \
                        b.max_value <= self.hi and b.min_value >= self.lo:
                    bits = self.target
            self.bits = max(self.bits, bits)
        if isinstance(e, E.Var):
            if e in self.own:
                want = min(self.own[e], self.bits)
                self.need[e] = max(self.need.get(e, 0), want)
        else:
            for v in e.field_values():
                if isinstance(v, E.PrimExpr):
                    self.expr(v)
                elif isinstance(v, (tuple, list)):
                    for x in v:
                        if isinstance(x, E.PrimExpr):
                            self.expr(x)
        self.bits = saved


def _cast_to(e, dtype):
    if e.dtype == dtype:
        return e
    if isinstance(e, E.IntImm):
        return E.IntImm(int(e.value), dtype)
    return E.Cast(dtype, e)


class _Rewrite(Mutator):
    def __init__(self, new_vars):
        self.new = new_vars         # old Var -> narrow Var

    def visit_Var(self, v):
        n = self.new.get(v)
        return v if n is None else E.Cast(v.dtype, n)

    def visit_For(self, s):
        n = self.new.get(s.loop_var)
        if n is None:
            return self.generic_visit(s)
        return S.For(n, _cast_to(self.visit(s.min), n.dtype),
                     _cast_to(self.visit(s.extent), n.dtype), s.kind, self.visit(s.body),
                     s.thread_binding, s.annotations)

    def visit_AttrStmt(self, s):
        var = _launch_var(s)
        n = self.new.get(var) if var is not None else None
        if n is None:
            return self.generic_visit(s)
        iv = s.node
        dom = None if iv.dom is None else E.Range.from_min_extent(
            _cast_to(iv.dom.min, n.dtype), _cast_to(iv.dom.extent, n.dtype))
        node = IterVar(dom, n, iv.iter_type, iv.thread_tag)
        return S.AttrStmt(node, s.attr_key, _cast_to(self.visit(s.value), n.dtype),
                          self.visit(s.body))


@register_pass("NarrowDataType")
def narrow_datatype(func, target_bits: int = 32):
    """``func`` with loop and thread variables narrowed to ``target_bits`` where every use
    allows it (see the module docstring)."""
    if not isinstance(func, PrimFunc):
        raise TepadError(f"narrow_datatype runs on a PrimFunc, got {type(func).__name__}")
    if isinstance(target_bits, bool) or not isinstance(target_bits, int) or \
            target_bits not in (8, 16, 32, 64):
        raise TepadError(f"NarrowDataType: target_bits must be 8, 16, 32 or 64, got "
                         f"{target_bits!r}")
    widths = _Widths(target_bits)
    widths.stmt(func.body)
    new = {}
    for var, bits in widths.need.items():
        if bits != dt.parse(var.dtype).bits:
            new[var] = type(var)(var.name, f"{dt.parse(var.dtype).code}{bits}")
    if not new:
        return func
    return func.with_body(_Rewrite(new).visit(func.body))


__all__ = ["narrow_datatype"]
