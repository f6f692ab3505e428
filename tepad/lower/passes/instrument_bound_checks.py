"""InstrumentBoundChecks: guard every buffer access of a flattened PrimFunc.

Used by ``tepad.build(..., bounds_check=True)`` right before code generation (the function is
already flattened, vectorized and unrolled). Guarantees on the result:

* every ``BufferLoad`` and ``BufferStore`` whose buffer is an argument (size from its
  ``buffer_map`` shape, symbolic sizes included) or an ``Allocate`` (size from its extents) is
  preceded, in the statement that performs it, by an ``AssertStmt`` checking that each index lies
  in ``[0, size)``; a failure makes the kernel return an error status, which the runtime turns
  into a ``TepadError`` whose message names the buffer, the access (load/store), the index
  expression and the valid range. Nothing out of range is read or written: the assertion runs
  before the statement.
* vector accesses (``Ramp``/``Broadcast`` or any lane-wise index) are checked lane by lane.
* a load in a branch of ``tir.if_then_else`` is only checked when that branch is taken (the
  check itself is ``if_then_else(cond, in_range, True)``, evaluated lazily by codegen); for a
  lane-wise (vector) condition each lane is checked under its own lane of the condition. Both
  arms of ``Select`` are always evaluated, so both are always checked. Accesses inside an
  ``if`` whose condition is a lane mask (a vectorized loop's guard, run as masked loads and
  stores) are checked lane by lane, each under its lane of the mask. Loads inside
  ``tir.assume``/``tir.undef`` emit no code and are not checked.
* ``Let`` bindings inside expressions are reproduced around the checks that use them.
* checks that are constant and true are dropped; nothing else is simplified away, so the
  instrumentation does not depend on the simplifier being right.

Only the message is static (the codegen's error statuses carry no runtime values), so the
error names the index *expression*, not its value.

``instrument_index_checks`` (run by default by ``tepad.build``; ``index_check=False`` turns it
off) is the same instrumentation restricted to *data-dependent* accesses: those whose index
reads memory (a ``BufferLoad``, an extern call, or a variable bound to such a value: gathers,
scatters, indices a ``te.extern`` produced). Affine accesses, whose ranges InferBound and the
read check proved, get no check, so a kernel without data-dependent indices is returned
unchanged. Its messages also carry the offending value: the ``AssertStmt`` message is a
``Call(ERROR_VALUE_OP, [text, value])`` whose text holds ``VALUE_MARK``; on failure the
kernel stores the value (as int64) in its ``tepad_error_value`` global and the runtime puts
it in the message.
"""
from __future__ import annotations

from ...errors import ERROR_VALUE_OP, VALUE_MARK, InternalError
from ...tir import dtype as dt
from ...tir.expr import (And, Broadcast, BufferLoad, Call, Cast, ConstExpr, GE, IntImm, LT, Let, Not,
                         PrimExpr, Ramp, Select, StringImm, BinaryOp, convert)
from ...tir.expr import add, cast, mul
from ...tir.function import PrimFunc
from ...tir.functor import Mutator, Visitor, substitute
from ...tir.stmt import AssertStmt, SeqStmt
from ...tir.transform import register_pass

_UNEVALUATED_CALLS = ("tir.assume", "tir.undef", "assume", "undef")


def _true():
    return IntImm(1, "bool")


def _is_true(e) -> bool:
    return isinstance(e, IntImm) and dt.is_bool(e.dtype) and bool(e.value)


def _and(a, b):
    if _is_true(a):
        return b
    if _is_true(b):
        return a
    return And(a, b)


def _guarded(cond, check):
    """``cond ? check : true`` with the check evaluated only when ``cond`` holds."""
    if _is_true(check):
        return check
    if _is_true(cond):
        return check
    return Call("bool", "tir.if_then_else", [cond, check, _true()])


class _Lane(Mutator):
    """The scalar expression computing lane ``k`` of a vector expression."""

    def __init__(self, k: int, vector_lets: dict):
        self.k = k
        self.vector_lets = vector_lets

    def visit(self, node):
        if isinstance(node, PrimExpr) and dt.lanes(node.dtype) == 1:
            return node
        return super().visit(node)

    def visit_Ramp(self, e):
        base = self.visit(e.base)
        stride = self.visit(e.stride)
        return add(base, mul(stride, IntImm(self.k, stride.dtype)))

    def visit_Broadcast(self, e):
        return self.visit(e.value)

    def visit_Var(self, v):
        value = self.vector_lets.get(v)
        if value is None:
            raise InternalError(f"instrument_bound_checks: vector variable {v.name} has no "
                                "visible LetStmt binding")
        return self.visit(value)

    visit_SizeVar = visit_Var

    def visit_Cast(self, e):
        return Cast(dt.element_of(e.dtype), self.visit(e.value))

    def visit_Call(self, e):
        return Call(dt.element_of(e.dtype), e.op, [self.visit(a) for a in e.args])

    def visit_Let(self, e):
        if dt.lanes(e.var.dtype) > 1:
            return self.visit(substitute(e.body, {e.var: e.value}))
        return Let(e.var, self.visit(e.value), self.visit(e.body))

    def visit_BufferLoad(self, e):
        return BufferLoad(e.buffer, [self.visit(i) for i in e.indices])

    def visit_Select(self, e):
        return Select(self.visit(e.condition), self.visit(e.true_value),
                      self.visit(e.false_value))

    def visit_Not(self, e):
        return Not(self.visit(e.a))

    def generic_visit(self, node):
        if isinstance(node, BinaryOp):
            return type(node)(self.visit(node.a), self.visit(node.b))
        raise InternalError(f"instrument_bound_checks: cannot split {type(node).__name__} "
                            f"into lanes: {node!r}")


# calls whose result is not a function of their arguments' values alone
_OPAQUE_CALLS = ("tir.call_extern", "tir.call_packed", "tir.call_pure_extern",
                 "call_extern", "call_packed", "call_pure_extern", "tir.call_llvm_intrin")


class _ReadsMemory(Visitor):
    """Whether an expression's value depends on memory: it loads from a buffer, calls an
    extern function, or uses a variable in ``tainted`` (bound to such a value)."""

    class Found(Exception):
        pass

    def __init__(self, tainted):
        self.tainted = tainted

    def visit_BufferLoad(self, e):
        raise self.Found

    def visit_Call(self, e):
        if e.op in _OPAQUE_CALLS:
            raise self.Found
        self.visit(e.args)

    def visit_Var(self, v):
        if v in self.tainted:
            raise self.Found

    visit_SizeVar = visit_Var

    def check(self, e) -> bool:
        try:
            self.visit(e)
        except self.Found:
            return True
        return False


class _Collect(Visitor):
    """The checks one statement's expressions need, innermost accesses first.

    ``context`` is a stack of ("guard", cond) / ("let", var, value) entries: the lazily taken
    branches and expression-level Lets enclosing the current sub-expression.
    """

    def __init__(self, owner: "_Instrument"):
        self.owner = owner
        self.context: list = list(owner.lane_context)
        self.checks: list = []  # (condition, message, value or None)

    def wrap(self, cond):
        for entry in reversed(self.context):
            if entry[0] == "guard":
                cond = _guarded(entry[1], cond)
            else:
                cond = Let(entry[1], entry[2], cond) if not _is_true(cond) else cond
        return cond

    def visit_BufferLoad(self, e):
        self.visit(e.indices)  # indirect indices first: they are evaluated before the load
        self.owner.access_checks(self, e.buffer, e.indices, "load")

    def visit_Call(self, e):
        if e.op in _UNEVALUATED_CALLS:
            return
        if e.op in ("tir.if_then_else", "if_then_else"):
            cond, t, f = e.args
            self.visit(cond)
            if dt.lanes(cond.dtype) > 1:
                self.context.append(("lanes", cond, True))
                self.visit(t)
                self.context[-1] = ("lanes", cond, False)
                self.visit(f)
                self.context.pop()
                return
            self.context.append(("guard", cond))
            self.visit(t)
            self.context[-1] = ("guard", Not(cond))
            self.visit(f)
            self.context.pop()
            return
        self.visit(e.args)

    def visit_Let(self, e):
        self.visit(e.value)
        self.context.append(("let", e.var, e.value))
        self.visit(e.body)
        self.context.pop()


class _Instrument(Mutator):
    """``data_dependent_only``: check only accesses whose index reads memory, with the
    offending value in the message (``instrument_index_checks``)."""

    def __init__(self, func: PrimFunc, data_dependent_only: bool = False):
        self.func = func
        self.data_dependent_only = data_dependent_only
        self.tainted: set = set()      # LetStmt variables bound to memory-dependent values
        self.sizes: dict = {}  # data Var -> list of per-physical-axis sizes
        for p in func.params:
            buf = func.buffer_map.get(p)
            if buf is not None:
                self.sizes[buf.data] = list(buf.flattened_shape())
        self.vector_lets: dict = {}
        self.lane_context: list = []   # ("lanes", mask, taken) of enclosing lane-mask ifs
        self.n_checks = 0

    # -- building checks --------------------------------------------------------------------
    def _sizes_for(self, buf, n_indices):
        sizes = self.sizes.get(buf.data)
        if sizes is None:
            raise InternalError(
                f"instrument_bound_checks: buffer {buf.name} is neither an argument nor "
                "allocated in scope")
        if len(sizes) == n_indices:
            return sizes
        if n_indices == 1:
            total = sizes[0]
            for s in sizes[1:]:
                total = mul(total, s)
            return [total]
        raise InternalError(f"instrument_bound_checks: {buf.name} accessed with {n_indices} "
                            f"indices but has {len(sizes)} physical axes")

    def _reads_memory(self, e, ctx) -> bool:
        tainted = set(self.tainted)
        for entry in ctx:                   # expression Lets, outermost first
            if entry[0] == "let" and _ReadsMemory(tainted).check(entry[2]):
                tainted.add(entry[1])
        return _ReadsMemory(tainted).check(e)

    def access_checks(self, col: _Collect, buf, indices, kind: str):
        ctx = col.context
        checked_axes = None
        if self.data_dependent_only:
            checked_axes = [self._reads_memory(convert(i), ctx) for i in indices]
            if not any(checked_axes):
                return
        sizes = self._sizes_for(buf, len(indices))
        vmap = dict(self.vector_lets)
        vmap.update({e[1]: e[2] for e in ctx if e[0] == "let" and dt.lanes(e[1].dtype) > 1})
        lane_ctx = [e for e in ctx if e[0] == "lanes"]
        for axis, (idx, size) in enumerate(zip(indices, sizes)):
            if checked_axes is not None and not checked_axes[axis]:
                continue
            idx = convert(idx)
            size = cast(dt.element_of(idx.dtype), size)
            lanes = max([dt.lanes(idx.dtype)] + [dt.lanes(e[1].dtype) for e in lane_ctx])
            where = "" if len(sizes) == 1 else f" (physical axis {axis})"
            if self.data_dependent_only:
                self._value_checks(col, ctx, vmap, lane_ctx, buf, kind, where, idx, size, lanes)
                continue
            if lanes == 1:
                cond = self._wrap(ctx, _in_range(idx, size), None, vmap)
            elif isinstance(idx, Ramp) and not lane_ctx:
                # affine in the lane: the first and the last lane bound all the others
                first = _Lane(0, vmap).visit(idx)
                last = _Lane(lanes - 1, vmap).visit(idx)
                cond = self._wrap(ctx, _and(_in_range(first, size), _in_range(last, size)),
                                  None, vmap)
            else:
                cond = _true()
                for k in range(lanes):
                    li = _Lane(k, vmap).visit(idx) if dt.lanes(idx.dtype) > 1 else idx
                    cond = _and(cond, self._wrap(ctx, _in_range(li, size), k, vmap))
            if _is_true(cond):
                continue
            msg = (f"bounds check failed: {kind} of buffer {buf.name}{where} at index "
                   f"{_text(idx)} outside [0, {_text(size)})")
            col.checks.append((cond, msg, None))
            self.n_checks += 1

    def _value_checks(self, col, ctx, vmap, lane_ctx, buf, kind, where, idx, size, lanes):
        """Checks of a data-dependent index that report its value: one check for all lanes of a
        vector index, reporting the first lane outside (a ``Ramp`` over a data-dependent base:
        its first and last lane)."""
        def msg(shown):
            return (f"index check failed: {kind} of tensor {buf.name}{where} at index "
                    f"{_text(shown)} = {VALUE_MARK}, outside the valid range "
                    f"[0, {_text(size)}) (the index is read from memory: check the index "
                    "values passed in; build(..., index_check=False) removes this check)")
        if lanes == 1:
            pairs = [(self._wrap(ctx, _in_range(idx, size), None, vmap), idx, idx)]
        elif isinstance(idx, Ramp) and not lane_ctx:
            first = _Lane(0, vmap).visit(idx)
            last = _Lane(lanes - 1, vmap).visit(idx)
            first_ok = _in_range(first, size)
            cond = self._wrap(ctx, _and(first_ok, _in_range(last, size)), None, vmap)
            pairs = [(cond, Select(first_ok, last, first), idx)]
        elif all(e[0] == "let" and dt.lanes(e[1].dtype) == 1 for e in ctx):
            # a gather: one vector condition (codegen: all lanes in range), the value
            # vector whose first lane outside the message shows
            lo = Broadcast(IntImm(0, dt.element_of(idx.dtype)), lanes)
            cond = self._wrap(ctx, And(GE(idx, lo), LT(idx, Broadcast(size, lanes))),
                              None, vmap)
            pairs = [(cond, idx, idx)]
        elif all(dt.lanes(e[1].dtype) in (1, lanes) for e in lane_ctx):
            # under lane masks: one vector check, lane k in range wherever lane k of every
            # enclosing mask (and scalar guard) holds; the masks and the index are the
            # statement's own nodes, evaluated as vectors under the same masks, instead of
            # one scalar copy of the index and of every mask per lane
            elem = dt.element_of(idx.dtype)
            vidx = idx if dt.lanes(idx.dtype) == lanes else Broadcast(idx, lanes)
            ok = And(GE(vidx, Broadcast(IntImm(0, elem), lanes)), LT(vidx, Broadcast(size, lanes)))
            cond = self._wrap_lanes(ctx, ok, Broadcast(_true(), lanes))
            value = self._wrap_lanes(ctx, vidx, Broadcast(IntImm(0, elem), lanes))
            pairs = [(cond, value, idx)]
        else:
            # one check for all lanes (one branch); the value is the first bad lane's
            conds, values = [], []
            for k in range(lanes):
                li = _Lane(k, vmap).visit(idx) if dt.lanes(idx.dtype) > 1 else idx
                conds.append(self._wrap(ctx, _in_range(li, size), k, vmap))
                values.append(li)
            cond, value = _true(), None
            for c, v in reversed(list(zip(conds, values))):
                if _is_true(c):
                    continue
                cond = _and(c, cond)
                value = v if value is None else Select(c, value, v)
            pairs = [(cond, value, idx)] if value is not None else []
        for cond, value, shown in pairs:
            if _is_true(cond):
                continue
            for entry in reversed(ctx):
                if entry[0] == "let" and dt.lanes(entry[1].dtype) == 1 and \
                        not _binds(value, entry[1]):
                    value = Let(entry[1], entry[2], value)
            col.checks.append((cond, msg(shown), cast(dt.with_lanes("int64", dt.lanes(value.dtype))
                                                      if dt.lanes(value.dtype) > 1 else "int64",
                                                      value)))
            self.n_checks += 1

    @staticmethod
    def _wrap_lanes(ctx, e, otherwise):
        """The vector ``e`` where the context's branches are taken, ``otherwise`` elsewhere:
        ``if_then_else`` over each lane mask (its lanes, or their negation for an else
        branch) and scalar guard, innermost first, with the context's Lets around them. Codegen
        evaluates a vector ``if_then_else`` arm under its lane mask, so nothing masked off
        is read."""
        for entry in reversed(ctx):
            if entry[0] == "guard":
                e = Call(e.dtype, "tir.if_then_else", [entry[1], e, otherwise])
            elif entry[0] == "lanes":
                m = entry[1] if entry[2] else Not(entry[1])
                if dt.lanes(m.dtype) == 1:
                    m = Broadcast(m, dt.lanes(e.dtype))
                e = Call(e.dtype, "tir.if_then_else", [m, e, otherwise])
            elif entry[0] == "let":
                e = Let(entry[1], entry[2], e)
        return e

    @staticmethod
    def _wrap(ctx, cond, lane, vmap):
        """Put ``cond`` under the context's lazy branches and Lets, innermost first."""
        for entry in reversed(ctx):
            if _is_true(cond):
                return cond
            if entry[0] == "guard":
                cond = _guarded(entry[1], cond)
            elif entry[0] == "lanes":
                c = entry[1]
                if dt.lanes(c.dtype) > 1:
                    c = _Lane(lane, vmap).visit(c)
                cond = _guarded(c if entry[2] else Not(c), cond)
            elif entry[0] == "let" and dt.lanes(entry[1].dtype) == 1:
                cond = Let(entry[1], entry[2], cond)
        return cond

    def collect(self, *exprs):
        col = _Collect(self)
        for e in exprs:
            col.visit(e)
        return col.checks

    @staticmethod
    def guard(checks, stmt):
        for cond, msg, value in reversed(checks):
            message = StringImm(msg) if value is None else \
                Call("int64", ERROR_VALUE_OP, [StringImm(msg), value])
            stmt = AssertStmt(cond, message, stmt)
        return stmt

    # -- statements -------------------------------------------------------------------------
    def visit_BufferStore(self, s):
        col = _Collect(self)
        col.visit(s.value)
        col.visit(s.indices)
        self.access_checks(col, s.buffer, s.indices, "store")
        return self.guard(col.checks, s)

    def visit_Evaluate(self, s):
        return self.guard(self.collect(s.value), s)

    def visit_IfThenElse(self, s):
        checks = self.collect(s.condition)
        if dt.lanes(s.condition.dtype) > 1:    # a lane mask: each lane checked under its own
            self.lane_context.append(("lanes", s.condition, True))
            then_case = self.visit(s.then_case)
            self.lane_context[-1] = ("lanes", s.condition, False)
            else_case = self.visit(s.else_case) if s.else_case is not None else None
            self.lane_context.pop()
            return self.guard(checks, s.replace(then_case=then_case, else_case=else_case))
        then_case = self.visit(s.then_case)
        else_case = self.visit(s.else_case) if s.else_case is not None else None
        return self.guard(checks, s.replace(then_case=then_case, else_case=else_case))

    def visit_LetStmt(self, s):
        checks = self.collect(s.value)
        vector = dt.lanes(s.var.dtype) > 1
        if vector:
            self.vector_lets[s.var] = s.value
        tainted = self.data_dependent_only and _ReadsMemory(self.tainted).check(s.value)
        if tainted:
            self.tainted.add(s.var)
        body = self.visit(s.body)
        if vector:
            del self.vector_lets[s.var]
        if tainted:
            self.tainted.discard(s.var)
        return self.guard(checks, s.replace(body=body))

    def visit_For(self, s):
        checks = self.collect(s.min, s.extent)
        body = self.visit(s.body)
        return self.guard(checks, s.replace(body=body))

    def visit_Allocate(self, s):
        checks = self.collect(*s.extents)
        self.sizes[s.buffer_var] = list(s.extents)
        try:
            body = self.visit(s.body)
        finally:
            del self.sizes[s.buffer_var]
        return self.guard(checks, s.replace(body=body))

    def visit_AssertStmt(self, s):
        checks = self.collect(s.condition)
        body = self.visit(s.body)
        return self.guard(checks, s.replace(body=body))

    def visit_BufferRealize(self, s):
        raise InternalError("instrument_bound_checks runs on flattened functions (after "
                            f"storage_flatten), but found a BufferRealize of {s.buffer.name}")

    def visit_AttrStmt(self, s):
        body = self.visit(s.body)
        return s.replace(body=body)

    def visit_SeqStmt(self, s):
        seq = [self.visit(x) for x in s.seq]
        return s if all(a is b for a, b in zip(seq, s.seq)) else SeqStmt(seq)


def _binds(e, var) -> bool:
    """Whether ``e`` is already wrapped in a Let of ``var`` (as ``_wrap_lanes`` makes it)."""
    while isinstance(e, (Let, Call)):
        if isinstance(e, Let):
            if e.var is var:
                return True
            e = e.body
        elif e.op == "tir.if_then_else":
            e = e.args[1]
        else:
            return False
    return False


def _in_range(idx, size):
    if isinstance(idx, ConstExpr) and isinstance(size, ConstExpr):
        return IntImm(int(0 <= idx.value < size.value), "bool")
    lo = GE(idx, IntImm(0, idx.dtype))
    if isinstance(idx, ConstExpr) and idx.value >= 0:
        return LT(idx, size)
    return And(lo, LT(idx, size))


def _text(e) -> str:
    try:
        return str(e)
    except Exception:  # pragma: no cover - printing never fails in practice
        return repr(e)


@register_pass("InstrumentBoundCheckers")
def instrument_bound_checks(func: PrimFunc) -> PrimFunc:
    """``func`` with an ``AssertStmt`` before every buffer access checking its index range."""
    if not isinstance(func, PrimFunc):
        raise TypeError(f"instrument_bound_checks expects a PrimFunc, got {type(func).__name__}")
    body = _Instrument(func).visit(func.body)
    return func if body is func.body else func.with_body(body)


@register_pass()
def instrument_index_checks(func: PrimFunc) -> PrimFunc:
    """``func`` with an ``AssertStmt`` before every access whose index reads memory
    (gathers, scatters, extern-produced indices), checking it lies in its buffer and
    reporting the offending value; ``func`` itself when it has no such access."""
    if not isinstance(func, PrimFunc):
        raise TypeError(f"instrument_index_checks expects a PrimFunc, got {type(func).__name__}")
    body = _Instrument(func, data_dependent_only=True).visit(func.body)
    return func if body is func.body else func.with_body(body)


__all__ = ["instrument_bound_checks", "instrument_index_checks"]
