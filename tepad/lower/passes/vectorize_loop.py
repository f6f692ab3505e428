"""vectorize_loop: turn ``ForKind.VECTORIZED`` loops into vector statements (TVM's VectorizeLoop).

For a VECTORIZED loop with a constant extent whose body is straight-line code (stores, loads,
arithmetic, compares, select, casts, math calls, ``if_then_else`` calls, lets, and ``if``
statements whose condition does not depend on the loop var), the loop var is replaced by
``Ramp(min, 1, lanes)`` and every expression is widened (a loop-invariant scalar becomes a
``Broadcast`` where it meets a vector). Index arithmetic keeps Ramps as Ramps
(``Ramp + x``, ``Ramp * c``) so stride-1 accesses stay contiguous for codegen.
A loop over the elements of a vector-typed buffer (each access already a ``Ramp(b, 1, L)``)
vectorizes when its Ramps lie end to end (``b`` steps by ``L`` per iteration): they become one
Ramp of ``extent * L`` lanes, and loop-invariant Broadcasts widen to match.

Extents above ``max_lanes`` are split into a serial loop over vector bodies of the largest
power-of-two width <= ``max_lanes`` dividing the extent, or vector bodies plus a scalar tail.

A guard ``if i < n`` (any convex condition on the loop var, as a split that does not divide
leaves) splits each vector body in two: the plain vector body when the guard holds at its
first and last lane, else the partial vector as ``TAILS`` says: a guarded scalar loop
(default), the body under a lane mask (an ``IfThenElse`` whose condition is a vector
``bool``; codegen emits masked loads and stores, so masked-off lanes touch no memory), or
plain vectors of half, a quarter ... of the width and at most 3 scalar lanes.

Guarantee: no VECTORIZED ``For`` remains. A loop that cannot be vectorized (symbolic extent,
inner loops, allocations, a store whose index does not depend on the loop var while its value
does, ...) becomes a SERIAL loop with ``annotations["llvm.vectorize"] = True`` so LLVM's loop
vectorizer may still vectorize it.
"""
from __future__ import annotations

from ...tir import (Add, And, Broadcast, BufferLoad, BufferStore, Call, Cast, FloorDiv, For,
                    ForKind, IfThenElse, IntImm, Let, LetStmt, Max, Min, Mul, Mutator, Not,
                    PrimFunc, Ramp, Select, Sub, Var, post_order_visit, seq, substitute)
from ...arith import Analyzer
from ...tir import dtype as dt
from ...tir.expr import BinaryOp, ConstExpr, add, const, convert, mul, sub
from ...tir.transform import register_pass


class _NotVectorizable(Exception):
    pass


_ELEMENTWISE_CALLS = {"tir.exp", "tir.log", "tir.sqrt", "tir.tanh", "tir.fabs", "tir.floor",
                      "tir.ceil", "tir.pow", "tir.sigmoid", "tir.round", "tir.sin", "tir.cos",
                      "tir.exp2", "tir.log2", "tir.trunc", "tir.if_then_else", "tir.likely"}


def _lanes(e) -> int:
    return dt.lanes(e.dtype)


def _bcast(e, lanes):
    if _lanes(e) == lanes:
        return e
    if isinstance(e, Broadcast) and lanes % _lanes(e) == 0:
        return Broadcast(e.value, lanes)
    if _lanes(e) != 1:
        raise _NotVectorizable(f"lane mismatch {e.dtype} vs {lanes}")
    return Broadcast(e, lanes)


class _Widen(Mutator):
    """Widen expressions/statements of a loop body, with ``var`` -> ``Ramp(min, 1, lanes)``."""

    def __init__(self, var, base, lanes):
        self.var, self.lanes = var, lanes
        self.ramp = Ramp(base, const(1, var.dtype), lanes)
        self.let_map: dict = {}

    # -- expressions
    def visit_Var(self, v):
        if v is self.var:
            return self.ramp
        return self.let_map.get(v, v)

    visit_SizeVar = visit_Var

    def visit_Ramp(self, e):
        """A Ramp over a vector element (a vector-typed buffer): when its base becomes
        ``Ramp(b, stride * lanes, L)`` the lanes are consecutive, and it is one Ramp of
        ``lanes * L`` lanes (lane k of the loop major)."""
        b0, s0 = convert(e.base), convert(e.stride)
        base, stride = self.visit(b0), self.visit(s0)
        if base is b0 and stride is s0:
            return e
        if _lanes(stride) == 1 and isinstance(base, Ramp) and _lanes(base.base) == 1:
            gap = Analyzer().simplify(sub(base.stride, mul(stride, const(e.lanes, stride.dtype))))
            if isinstance(gap, IntImm) and gap.value == 0:
                return Ramp(base.base, stride, e.lanes * base.lanes)
        raise _NotVectorizable("nested Ramp")

    def visit_Broadcast(self, e):
        if self.visit(e.value) is e.value:
            return e                  # loop-invariant: widened by _bcast where it is used
        raise _NotVectorizable("nested Broadcast")

    def _binary(self, e):
        a, b = self.visit(e.a), self.visit(e.b)
        if a is e.a and b is e.b:
            return e
        la, lb = _lanes(a), _lanes(b)
        if la == 1 and lb == 1:
            return type(e)(a, b)
        # keep index arithmetic on Ramps as Ramps
        if dt.is_int(e.a.dtype) and type(e) in (Add, Sub, Mul):
            r = self._ramp_arith(type(e), a, b)
            if r is not None:
                return r
        n = max(la, lb, self.lanes)      # wider than the loop over vector elements
        return type(e)(_bcast(a, n), _bcast(b, n))

    def _ramp_arith(self, op, a, b):
        def scalar(x):
            return x.value if isinstance(x, Broadcast) else (x if _lanes(x) == 1 else None)
        if op in (Add, Sub):
            if isinstance(a, Ramp) and isinstance(b, Ramp):
                f = add if op is Add else sub
                return Ramp(f(a.base, b.base), f(a.stride, b.stride), a.lanes)
            if isinstance(a, Ramp) and scalar(b) is not None:
                f = add if op is Add else sub
                return Ramp(f(a.base, scalar(b)), a.stride, a.lanes)
            if op is Add and isinstance(b, Ramp) and scalar(a) is not None:
                return Ramp(add(scalar(a), b.base), b.stride, b.lanes)
        if op is Mul:
            if isinstance(a, Ramp) and scalar(b) is not None:
                return Ramp(mul(a.base, scalar(b)), mul(a.stride, scalar(b)), a.lanes)
            if isinstance(b, Ramp) and scalar(a) is not None:
                return Ramp(mul(scalar(a), b.base), mul(scalar(a), b.stride), b.lanes)
        return None

    def generic_visit(self, node):
        if isinstance(node, BinaryOp):
            return self._binary(node)
        return super().generic_visit(node)

    def visit_Not(self, e):
        a = self.visit(e.a)
        return e if a is e.a else Not(a)

    def visit_Select(self, e):
        c, t, f = self.visit(e.condition), self.visit(e.true_value), self.visit(e.false_value)
        if c is e.condition and t is e.true_value and f is e.false_value:
            return e
        if max(_lanes(c), _lanes(t), _lanes(f)) == 1:
            return Select(c, t, f)
        return Select(_bcast(c, self.lanes) if _lanes(c) > 1 else c, _bcast(t, self.lanes),
                      _bcast(f, self.lanes))

    def visit_Cast(self, e):
        v = self.visit(e.value)
        if v is e.value:
            return e
        return Cast(dt.with_lanes(e.dtype, _lanes(v)), v)

    def visit_Call(self, e):
        args = [self.visit(a) for a in e.args]
        if all(a is b for a, b in zip(args, e.args)):
            return e
        if e.op not in _ELEMENTWISE_CALLS:
            raise _NotVectorizable(f"call {e.op}")
        if e.op == "tir.likely":
            return Call(args[0].dtype, e.op, args)
        if e.op == "tir.if_then_else":
            c, t, f = args
            if _lanes(c) == 1:
                lanes = max(_lanes(t), _lanes(f))
                if lanes > 1:
                    t, f = _bcast(t, lanes), _bcast(f, lanes)
                return Call(t.dtype, e.op, [c, t, f])
            t, f = _bcast(t, self.lanes), _bcast(f, self.lanes)
            return Call(t.dtype, e.op, [c, t, f])
        lanes = max(_lanes(a) for a in args)
        args = [_bcast(a, lanes) for a in args]
        return Call(dt.with_lanes(e.dtype, lanes), e.op, args)

    def visit_BufferLoad(self, e):
        idx = tuple(self.visit(convert(i)) for i in e.indices)
        if all(a is b for a, b in zip(idx, e.indices)):
            return e
        if len(idx) != 1:
            raise _NotVectorizable("multi-dimensional load")
        return BufferLoad(e.buffer, idx)

    def visit_Let(self, e):
        value = self.visit(e.value)
        if _lanes(value) == 1:
            body = self.visit(e.body)
            if value is e.value and body is e.body:
                return e
            return Let(e.var, value, body)
        v = Var(e.var.name, value.dtype)
        self.let_map[e.var] = v
        return Let(v, value, self.visit(e.body))

    # -- statements
    def visit_BufferStore(self, s):
        idx = tuple(self.visit(convert(i)) for i in s.indices)
        value = self.visit(s.value)
        if len(idx) != 1:
            raise _NotVectorizable("multi-dimensional store")
        if _lanes(idx[0]) == 1:
            if _lanes(value) > 1:
                raise _NotVectorizable("store index does not depend on the loop var")
            return s if idx[0] is s.indices[0] and value is s.value else \
                BufferStore(s.buffer, value, idx)
        return BufferStore(s.buffer, _bcast(value, _lanes(idx[0])), idx)

    def visit_LetStmt(self, s):
        value = self.visit(s.value)
        if _lanes(value) == 1:
            body = self.visit(s.body)
            return LetStmt(s.var, value, body)
        v = Var(s.var.name, value.dtype)
        self.let_map[s.var] = v
        return LetStmt(v, value, self.visit(s.body))

    def visit_IfThenElse(self, s):
        c = self.visit(s.condition)
        if _lanes(c) != 1:
            raise _NotVectorizable("if statement whose condition depends on the loop var")
        then = self.visit(s.then_case)
        other = self.visit(s.else_case) if s.else_case is not None else None
        return IfThenElse(c, then, other)

    def visit_For(self, s):
        raise _NotVectorizable("inner loop")

    def visit_Allocate(self, s):
        raise _NotVectorizable("allocation inside a vectorized loop")

    def visit_AssertStmt(self, s):
        raise _NotVectorizable("assert inside a vectorized loop")

    def visit_Evaluate(self, s):
        if isinstance(s.value, ConstExpr):
            return s
        raise _NotVectorizable("evaluate inside a vectorized loop")


def _serial(s, body):
    ann = dict(s.annotations)
    ann["llvm.vectorize"] = True
    return s.replace(kind=ForKind.SERIAL, body=body, annotations=ann)


def _widen(body, var, base, lanes):
    return _Widen(var, base, lanes).visit(body)


def _pow2_floor(n: int) -> int:
    return 1 << (n.bit_length() - 1)


_MONOTONE_CMP = ("LT", "LE", "GT", "GE")

# How the partial vector of a guarded vectorized loop runs (see _vector_piece): "scalar",
# "masked" or "halves". Measured on the AVX-512 host (benchmarks/bench_tails.py, RESULTS.md)
# none is faster everywhere: masked and halves gain up to 4 % on the blur and a split
# elementwise kernel and lose 2-14 % on a one-stage stencil, so the default stays scalar.
TAILS = "scalar"
MASK_LANES = 16     # lanes per mask: a 64-lane mask costs compares and mask shuffles


def _uses(e, var) -> bool:
    found = []
    post_order_visit(e, lambda n: found.append(1) if n is var else None)
    return bool(found)


def _affine_in(e, var) -> bool:
    """``e`` is an affine function of ``var`` (other vars are loop invariant)."""
    if not _uses(e, var):
        return True
    if e is var:
        return True
    if isinstance(e, Cast):
        return _affine_in(e.value, var)
    if isinstance(e, (Add, Sub)):
        return _affine_in(e.a, var) and _affine_in(e.b, var)
    if isinstance(e, Mul):
        return (not _uses(e.a, var) and _affine_in(e.b, var)) or \
            (not _uses(e.b, var) and _affine_in(e.a, var))
    return False


def _direction(e, var) -> int | None:
    """+1 / -1 when integer ``e`` never decreases / never increases as ``var`` grows (0 when it
    does not use ``var``), None when that is not evident from its form. Covers affine forms
    with constant coefficients and ``floordiv`` / ``min`` / ``max`` of them (the indices that
    ``fuse`` + ``split`` leave, e.g. ``xo * 4 + xi // 16``)."""
    if not _uses(e, var):
        return 0
    if e is var:
        return 1
    if isinstance(e, Cast) and dt.is_int(e.dtype) and dt.is_int(e.value.dtype) and \
            dt.parse(e.dtype).bits >= dt.parse(e.value.dtype).bits:     # value preserved
        return _direction(e.value, var)
    if isinstance(e, (Add, Sub, Min, Max)):
        da, db = _direction(e.a, var), _direction(e.b, var)
        if da is None or db is None:
            return None
        if isinstance(e, Sub):
            db = -db
        if da * db < 0:
            return None
        return da or db
    if isinstance(e, Mul):
        for x, k in ((e.a, e.b), (e.b, e.a)):
            if isinstance(k, IntImm):
                d = _direction(x, var)
                if d is None or k.value == 0:
                    return None if d is None else 0
                return d if k.value > 0 else -d
        return None
    if isinstance(e, FloorDiv) and isinstance(e.b, IntImm) and e.b.value > 0:
        return _direction(e.a, var)
    return None


def _convex_guard(c, var) -> bool:
    """True when the set of ``var`` values satisfying ``c`` is an interval: a conjunction of
    ``affine < / <= / > / >= affine``, or of a comparison between a loop-invariant value and
    an expression monotone in ``var`` (``_direction``); ``likely`` wrappers allowed. Such a
    guard holds on a whole vector of consecutive ``var`` values iff it holds at the first and
    the last lane."""
    if isinstance(c, Call) and c.op in ("tir.likely", "likely"):
        return _convex_guard(c.args[0], var)
    if isinstance(c, And):
        return _convex_guard(c.a, var) and _convex_guard(c.b, var)
    if type(c).__name__ in _MONOTONE_CMP:
        if _affine_in(c.a, var) and _affine_in(c.b, var):
            return True
        da, db = _direction(c.a, var), _direction(c.b, var)
        return da is not None and db is not None and (da == 0 or db == 0)
    return not _uses(c, var)


def _conjuncts(c):
    if isinstance(c, Call) and c.op in ("tir.likely", "likely"):
        return _conjuncts(c.args[0])
    if isinstance(c, And):
        return _conjuncts(c.a) + _conjuncts(c.b)
    return [c]


class _GuardedWiden(_Widen):
    """Like ``_Widen``, but an ``if`` whose condition varies with the loop var and is convex
    (see ``_convex_guard``) is widened as if true; its condition is collected in ``guards``
    so the caller can run the vector body only when the guard holds at both end lanes."""

    def __init__(self, var, base, lanes):
        super().__init__(var, base, lanes)
        self.guards = []
        self.bound_inside = set()

    def visit_LetStmt(self, s):
        self.bound_inside.add(s.var)
        return super().visit_LetStmt(s)

    def visit_Let(self, e):
        self.bound_inside.add(e.var)
        return super().visit_Let(e)

    def visit_IfThenElse(self, s):
        c = s.condition
        if not _uses(c, self.var):
            return super().visit_IfThenElse(s)
        free = []
        post_order_visit(c, lambda n: free.append(n) if isinstance(n, Var) else None)
        if not _convex_guard(c, self.var) or any(v in self.bound_inside for v in free):
            raise _NotVectorizable("if statement whose condition depends on the loop var")
        self.guards.append(c)
        return self.visit(s.then_case)


class _MaskedWiden(_Widen):
    """Like ``_Widen``, but an ``if`` whose condition varies with the loop var keeps its place
    with the condition widened to a lane mask (a vector ``bool``): codegen runs its body as
    masked vector loads and stores (``llvm.masked.load`` / ``llvm.masked.store``) that touch
    only the lanes whose condition holds, so the lanes past a guard read and write nothing."""

    def visit_IfThenElse(self, s):
        c = self.visit(s.condition)
        if _lanes(c) == 1:
            return super().visit_IfThenElse(s)
        then = self.visit(s.then_case)
        other = self.visit(s.else_case) if s.else_case is not None else None
        return IfThenElse(c, then, other)


def _all_lanes(guards, var, base, lanes):
    """The condition that every guard in ``guards`` (convex in ``var``) holds on all of
    ``var = base + [0, lanes)``: each conjunct that varies with ``var`` at the first and the
    last lane."""
    conds = []
    last = add(base, const(lanes - 1, var.dtype))
    for g in guards:
        for c in _conjuncts(g):
            if _uses(c, var):   # varies with the lane: test the first and the last lane
                conds.append(substitute(c, {var: base}))
                conds.append(substitute(c, {var: last}))
            else:
                conds.append(c)
    cond = conds[0]
    for c in conds[1:]:
        cond = And(cond, c)
    return cond


def _halving(body, var, base, lanes):
    """The partial vector ``var = base + [0, lanes)`` as plain vector pieces of lanes/2,
    lanes/4, ... 4 lanes, each run when its guard holds on all its lanes and then advancing
    the start, and a guarded scalar loop over what is left (at most 3 active lanes for a guard
    such as ``i < n``)."""
    dtype = var.dtype

    def build(off, w):
        if w < 4:
            t = Var(var.name + ".s", dtype)
            start = add(base, off)
            return For(t, start, sub(const(lanes, dtype), off), ForKind.SERIAL,
                       substitute(body, {var: t}))
        b = add(base, off)
        g = _GuardedWiden(var, b, w)
        vec = g.visit(body)
        cond = _all_lanes(g.guards, var, b, w)
        o = Var(f"{var.name}.o{w}", dtype)
        step = Select(cond, const(w, dtype), const(0, dtype))
        return seq(IfThenElse(cond, vec), LetStmt(o, add(off, step), build(o, w // 2)))

    return build(const(0, dtype), lanes // 2)


def _vector_piece(body, var, base, lanes):
    """The body widened to ``lanes`` lanes at ``var = base + [0, lanes)``; a convex guard
    that varies with ``var`` becomes ``if guard(first) and guard(last): vector else: tail``,
    so a loop whose extent the split factor does not divide keeps vector code in its last,
    partial tile instead of running it scalar. ``tail`` is chosen by ``TAILS``: ``"masked"``,
    the same vector body with the guard as a lane mask (see ``_MaskedWiden``); ``"halves"``,
    plain vectors of half, a quarter ... of the width (``_halving``); ``"scalar"``, a guarded
    scalar loop (what tepad did before)."""
    if lanes == 1:
        return substitute(body, {var: base})
    w = _GuardedWiden(var, base, lanes)
    vec = w.visit(body)
    if not w.guards:
        return vec
    cond = _all_lanes(w.guards, var, base, lanes)
    if TAILS == "masked":
        sub = min(lanes, MASK_LANES)
        fallback = seq(*[_MaskedWiden(var, add(base, const(k, var.dtype)), sub).visit(body)
                         for k in range(0, lanes, sub)])
    elif TAILS == "halves" and lanes >= 8:
        fallback = _halving(body, var, base, lanes)
    else:
        t = Var(var.name + ".s", var.dtype)
        fallback = For(t, base, const(lanes, var.dtype), ForKind.SERIAL,
                       substitute(body, {var: t}))
    return IfThenElse(cond, vec, fallback)


class _Vectorizer(Mutator):
    """Vector widths are powers of two (LLVM legalizes other widths poorly: a <56 x float>
    accumulator ends up scalarized on the stack). An extent that is not a power of two becomes
    a loop over ``lanes``-wide bodies plus power-of-two remainder pieces (56 -> 32 + 16 + 8)."""

    def __init__(self, max_lanes: int):
        self.max_lanes = max_lanes

    def visit_For(self, s):
        body = self.visit(s.body)
        if s.kind != ForKind.VECTORIZED:
            return s.replace(body=body)
        if not isinstance(s.extent, IntImm) or s.extent.value < 1:
            return _serial(s, body)
        extent = int(s.extent.value)
        if extent == 1:
            return substitute(body, {s.loop_var: s.min})
        try:
            lanes = min(_pow2_floor(extent), _pow2_floor(self.max_lanes))
            n_vec, tail = divmod(extent, lanes)
            parts = []
            if n_vec == 1:
                parts.append(_vector_piece(body, s.loop_var, s.min, lanes))
            else:
                outer = Var(s.loop_var.name + ".vo", s.loop_var.dtype)
                base = add(s.min, mul(outer, const(lanes, outer.dtype)))
                parts.append(For(outer, const(0, outer.dtype), const(n_vec, outer.dtype),
                                 ForKind.SERIAL, _vector_piece(body, s.loop_var, base, lanes)))
            done = n_vec * lanes
            while tail:
                piece = _pow2_floor(tail)
                if piece < 4 and tail > 1:   # 3 or fewer leftovers: a short scalar loop
                    t = Var(s.loop_var.name + ".tail", s.loop_var.dtype)
                    parts.append(For(t, add(s.min, const(done, t.dtype)), const(tail, t.dtype),
                                     ForKind.SERIAL, substitute(body, {s.loop_var: t})))
                    break
                parts.append(_vector_piece(body, s.loop_var,
                                           add(s.min, const(done, s.loop_var.dtype)), piece))
                done += piece
                tail -= piece
            return seq(*parts)
        except _NotVectorizable:
            return _serial(s, body)


class _Serial(Mutator):
    def visit_For(self, f):
        f2 = self.generic_visit(f)
        return f2.replace(kind=ForKind.SERIAL) if f2.kind == ForKind.VECTORIZED else f2


def _vectorize_factory(enable_vectorize=True):
    """TVM's VectorizeLoop(enable_vectorize): False runs vectorized loops as serial loops."""
    if enable_vectorize:
        return vectorize_loop

    def serial(func):
        body = _Serial().visit(func.body)
        return func if body is func.body else func.with_body(body)
    return serial


@register_pass("VectorizeLoop", factories={"VectorizeLoop": _vectorize_factory})
def vectorize_loop(func: PrimFunc, max_lanes: int = 64) -> PrimFunc:
    """Vectorize every VECTORIZED loop (see the module docstring for the guarantee)."""
    body = _Vectorizer(max_lanes).visit(func.body)
    return func if body is func.body else func.with_body(body)


def vectorize_stmt(stmt, max_lanes: int = 64):
    """The same rewrite on a bare statement."""
    return _Vectorizer(max_lanes).visit(stmt)
