"""Scalar and vector arithmetic: constants, variables, arithmetic with TIR's division rules,
comparisons, logic, selects, casts, ramps and broadcasts."""
from __future__ import annotations

import llvmlite.ir as ir
import numpy as np

from ..errors import InternalError
from .. import tir
from ..tir import dtype as dt
from .expr_memo import ExprMemo
from .lltypes import is_bf16, is_unsigned, ll_type

# Fast-math flags. Every float add/sub/mul may be contracted into an FMA (`contract`: one
# rounding instead of two, never less accurate). Only the combining add/mul of a reduction
# update (``X[i] = X[i] + v``: the stored value reads the same buffer at the same index) also
# gets `reassoc nsz`, which LLVM needs to vectorize / interleave a float reduction loop; plain
# elementwise arithmetic keeps numpy's evaluation order.
FLOAT_FLAGS = ("contract",)
REDUCTION_FLAGS = ("reassoc", "contract", "nsz")


# expression nodes whose bfloat16 result is rounded to bfloat16 precision after computing it
_BF16_ROUNDED = frozenset({"Add", "Sub", "Mul", "Div", "Mod", "FloorDiv", "FloorMod", "Call"})

# leaves: as cheap to emit again as to look up
_NOT_MEMOIZED = (tir.IntImm, tir.FloatImm, tir.Var, tir.StringImm)


def bf16_round(x: float) -> float:
    """``x`` rounded to the nearest bfloat16 (ties to even), as a Python float."""
    bits = int(np.array(x, dtype=np.float32).view(np.uint32))
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return float(np.array(bits, dtype=np.uint32).view(np.float32))


def _splat(t, value) -> ir.Constant:
    """The constant ``value`` of type ``t`` (in every lane when ``t`` is a vector)."""
    if isinstance(t, ir.VectorType):
        return ir.Constant(t, [ir.Constant(t.element, value)] * t.count)
    return ir.Constant(t, value)


class ExprEmitter:
    """``expr(e)``: the LLVM value of a TIR expression, dispatched on ``expr_<NodeType>``.
    A node object reached twice within one top-level ``expr`` call is emitted once (see
    ``expr_memo``)."""

    expr_memo: ExprMemo | None = None

    def expr(self, e) -> ir.Value:
        memo = self.expr_memo
        if memo is None:
            self.expr_memo = ExprMemo()
            try:
                return self.expr(e)
            finally:
                self.expr_memo = None
        if isinstance(e, _NOT_MEMOIZED):
            return self._emit_expr(e)
        v = memo.get(e)
        if v is None:
            v = self._emit_expr(e)
            if not isinstance(e, tir.Call) or self.call_is_pure(e):
                memo.put(e, v)
        return v

    def expr_scope(self):
        """A region whose memoized values must not outlive it (a branch, a lane mask, a
        ``Let`` body); a no-op context outside an ``expr`` call."""
        if self.expr_memo is None:
            return ExprMemo().scope()
        return self.expr_memo.scope()

    def call_is_pure(self, e) -> bool:
        """Whether the Call ``e`` has no side effects (its value may be reused)."""
        return False

    def _emit_expr(self, e) -> ir.Value:
        meth = getattr(self, "expr_" + type(e).__name__, None)
        if meth is None:
            if isinstance(e, tir.CmpOp):
                return self.expr_cmp(e)
            raise InternalError(f"codegen: unsupported expression {type(e).__name__}: {e!r}")
        v = meth(e)
        if type(e).__name__ in _BF16_ROUNDED and is_bf16(e.dtype):
            v = self.round_bf16(v)     # bfloat16 arithmetic: float32, rounded after each op
        return v

    def expr_IntImm(self, e):
        return ir.Constant(ll_type(e.dtype), int(e.value))

    def expr_FloatImm(self, e):
        if is_bf16(e.dtype):
            return ir.Constant(ll_type(e.dtype), bf16_round(float(e.value)))
        return ir.Constant(ll_type(e.dtype), float(e.value))

    def expr_Var(self, e):
        v = self.ctx.vars.get(e)
        if v is None:
            raise InternalError(f"codegen: variable {e.name} used before definition")
        return v

    expr_SizeVar = expr_Var

    def expr_Let(self, e):
        value = self.expr(e.value)
        with self.expr_scope():
            self.ctx.vars[e.var] = value
            return self.expr(e.body)

    def _arith(self, e, int_op, uint_op, float_op):
        a, b = self.expr(e.a), self.expr(e.b)
        d = dt.parse(e.dtype)
        if d.is_float:
            if float_op not in ("fadd", "fsub", "fmul"):
                return getattr(self.b, float_op)(a, b)
            flags = REDUCTION_FLAGS if e is self.reduction_update else FLOAT_FLAGS
            return getattr(self.b, float_op)(a, b, flags=flags)
        if d.is_int and d.bits >= 32 and int_op in ("add", "sub", "mul"):
            return getattr(self.b, int_op)(a, b, flags=("nsw",))
        return getattr(self.b, uint_op if is_unsigned(e.dtype) else int_op)(a, b)

    def expr_Add(self, e): return self._arith(e, "add", "add", "fadd")
    def expr_Sub(self, e): return self._arith(e, "sub", "sub", "fsub")
    def expr_Mul(self, e): return self._arith(e, "mul", "mul", "fmul")

    def expr_Div(self, e):
        if dt.is_float(e.dtype):
            return self._arith(e, "sdiv", "udiv", "fdiv")
        return self._int_divmod(e, lambda a, b: (self.b.udiv if is_unsigned(e.dtype)
                                                 else self.b.sdiv)(a, b), True)

    def expr_Mod(self, e):
        if dt.is_float(e.dtype):
            return self._arith(e, "srem", "urem", "frem")
        return self._int_divmod(e, lambda a, b: (self.b.urem if is_unsigned(e.dtype)
                                                 else self.b.srem)(a, b), False)

    def _int_divmod(self, e, op, want_div: bool):
        """Integer ``op(a, b)`` that cannot trap: a divisor that may be 0 (or -1 with a
        signed dividend that may be the minimum) is replaced by 1 before the division, and
        the result fixed after it: ``x / 0`` is 0, ``x % 0`` is ``x``, ``x / -1`` is ``-x``
        (wrapping), ``x % -1`` is 0. A constant divisor other than 0 and -1 costs nothing."""
        a, b = self.expr(e.a), self.expr(e.b)
        signed = not is_unsigned(e.dtype)
        if isinstance(b, ir.Constant) and isinstance(b.constant, int) and b.constant != 0 \
                and not (signed and b.constant == -1):
            return op(a, b)
        if isinstance(a.type, ir.VectorType) and not isinstance(b.type, ir.VectorType):
            b = self.broadcast(b, a.type.count)
        zero, one = _splat(b.type, 0), _splat(b.type, 1)
        is_zero = self.b.icmp_unsigned("==", b, zero)
        safe = self.b.select(is_zero, one, b)
        is_m1 = None
        if signed:
            is_m1 = self.b.icmp_signed("==", safe, _splat(b.type, -1))
            safe = self.b.select(is_m1, one, safe)
        r = op(a, safe)
        if want_div:
            if is_m1 is not None:
                r = self.b.select(is_m1, self.b.sub(zero, a), r)
            return self.b.select(is_zero, zero, r)
        return self.b.select(is_zero, a, r)

    def _floor_divmod(self, e, want_div: bool):
        d = dt.parse(e.dtype)
        if d.is_float:
            a, b = self.expr(e.a), self.expr(e.b)
            q = self.call_intrinsic("llvm.floor", [self.b.fdiv(a, b)])
            return q if want_div else self.b.fsub(a, self.b.fmul(q, b))
        if is_unsigned(e.dtype):
            return self._int_divmod(e, self.b.udiv if want_div else self.b.urem, want_div)
        return self._int_divmod(e, lambda a, b: self._signed_floor(a, b, want_div), want_div)

    def _signed_floor(self, a, b, want_div: bool):
        """Floor division / modulo of signed ``a`` by ``b`` (never 0 or -1 here)."""
        zero = ir.Constant(a.type, 0) if not isinstance(a.type, ir.VectorType) else \
            ir.Constant(a.type, [ir.Constant(a.type.element, 0)] * a.type.count)
        r = self.b.srem(a, b)
        # adjust when the remainder is nonzero and its sign differs from the divisor's
        adj = self.b.and_(self.b.icmp_signed("!=", r, zero),
                          self.b.xor(self.b.icmp_signed("<", r, zero),
                                     self.b.icmp_signed("<", b, zero)))
        if want_div:
            q = self.b.sdiv(a, b)
            return self.b.sub(q, self.b.zext(adj, a.type))
        return self.b.select(adj, self.b.add(r, b), r)

    def expr_FloorDiv(self, e): return self._floor_divmod(e, True)
    def expr_FloorMod(self, e): return self._floor_divmod(e, False)

    def _minmax(self, e, op):
        a, b = self.expr(e.a), self.expr(e.b)
        if dt.is_float(e.dtype):
            c = self.b.fcmp_ordered(op, a, b)
        elif is_unsigned(e.dtype):
            c = self.b.icmp_unsigned(op, a, b)
        else:
            c = self.b.icmp_signed(op, a, b)
        return self.b.select(c, a, b)

    def expr_Min(self, e): return self._minmax(e, "<")
    def expr_Max(self, e): return self._minmax(e, ">")

    def expr_cmp(self, e):
        """Any ``CmpOp``: ordered float compares except ``!=`` (true on NaN, as in numpy)."""
        op = e.symbol
        a, b = self.expr(e.a), self.expr(e.b)
        if dt.is_float(e.a.dtype):
            if op == "!=":
                return self.b.fcmp_unordered(op, a, b)
            return self.b.fcmp_ordered(op, a, b)
        if is_unsigned(e.a.dtype):
            return self.b.icmp_unsigned(op, a, b)
        return self.b.icmp_signed(op, a, b)

    def expr_And(self, e): return self.b.and_(self.expr(e.a), self.expr(e.b))
    def expr_Or(self, e): return self.b.or_(self.expr(e.a), self.expr(e.b))
    def expr_Not(self, e): return self.b.not_(self.expr(e.a))

    def expr_Select(self, e):
        c = self.expr(e.condition)
        t, f = self.expr(e.true_value), self.expr(e.false_value)
        if isinstance(t.type, ir.VectorType) and not isinstance(c.type, ir.VectorType):
            c = self.broadcast(c, t.type.count)
        return self.b.select(c, t, f)

    def expr_Cast(self, e):
        return self.cast_to(self.expr(e.value), e.value.dtype, e.dtype)

    def cast_to(self, v, src: str, dst: str) -> ir.Value:
        """``v`` (of dtype ``src``) converted to ``dst``; a scalar is broadcast first when
        ``dst`` has lanes."""
        s, d = dt.parse(src), dt.parse(dst)
        if s.scalar == d.scalar:
            return v
        if is_bf16(src):         # held as float32
            return self.cast_to(v, dt.with_lanes("float32", s.lanes), dst)
        if is_bf16(dst):
            return self.round_bf16(self.cast_to(v, src, dt.with_lanes("float32", d.lanes)))
        if s.lanes == 1 and d.lanes > 1:
            v = self.broadcast(v, d.lanes)
            src = dt.with_lanes(src, d.lanes)
        t = ll_type(dst)
        b = self.b
        if d.is_bool:
            zero = ir.Constant(v.type, None)
            if s.is_float:
                return b.fcmp_unordered("!=", v, zero)
            return b.icmp_unsigned("!=", v, zero)
        if s.is_float and d.is_float:
            return b.fpext(v, t) if d.bits > s.bits else b.fptrunc(v, t)
        if s.is_float:
            return b.fptoui(v, t) if d.is_uint else b.fptosi(v, t)
        if d.is_float:
            return b.uitofp(v, t) if is_unsigned(src) else b.sitofp(v, t)
        if d.bits == s.bits:
            return v
        if d.bits < s.bits:
            return b.trunc(v, t)
        return b.zext(v, t) if is_unsigned(src) else b.sext(v, t)

    def expr_Ramp(self, e):
        base = self.expr(e.base)
        vt = ir.VectorType(base.type, e.lanes)
        if isinstance(e.stride, tir.IntImm):
            offs = self.const_vec(vt, [k * int(e.stride.value) for k in range(e.lanes)])
        else:
            offs = self.b.mul(self.broadcast(self.expr(e.stride), e.lanes),
                              self.const_vec(vt, range(e.lanes)))
        return self.b.add(self.broadcast(base, e.lanes), offs, flags=("nsw",))

    def expr_Broadcast(self, e):
        return self.broadcast(self.expr(e.value), e.lanes)

    def expr_Shuffle(self, e):
        """The concatenation of the vectors (a scalar as one lane), then its lanes in the
        order of ``indices``."""
        parts = []
        for v in e.vectors:
            x = self.expr(v)
            if not isinstance(x.type, ir.VectorType):
                x = self.b.insert_element(ir.Constant(ir.VectorType(x.type, 1), ir.Undefined),
                                          x, ir.Constant(ir.IntType(32), 0))
            parts.append(x)
        while len(parts) > 1:           # shufflevector joins two vectors of one length
            a, b = parts[0], parts[1]
            na, nb = a.type.count, b.type.count
            n = max(na, nb)
            a, b = self._widen(a, n), self._widen(b, n)
            idx = list(range(na)) + [n + k for k in range(nb)]
            parts[:2] = [self.b.shuffle_vector(a, b, self._lane_mask(idx))]
        return self.b.shuffle_vector(parts[0], ir.Constant(parts[0].type, ir.Undefined),
                                     self._lane_mask([int(i.value) for i in e.indices]))

    def _widen(self, v, n):
        """Vector ``v`` padded with undefined lanes to ``n`` lanes."""
        k = v.type.count
        if k == n:
            return v
        return self.b.shuffle_vector(v, ir.Constant(v.type, ir.Undefined),
                                     self._lane_mask(list(range(k)) + [k] * (n - k),
                                                     undef_from=k))

    @staticmethod
    def _lane_mask(idx, undef_from=None):
        i32 = ir.IntType(32)
        vals = [ir.Constant(i32, ir.Undefined) if undef_from is not None and k >= undef_from
                else ir.Constant(i32, k) for k in idx]
        return ir.Constant(ir.VectorType(i32, len(idx)), vals)
