"""Flattened TIR -> LLVM IR (``llvmlite.ir``, opaque pointers).

Input: a ``PrimFunc`` after storage flattening (see ``emit_llvm_module``). Output: the text of
an LLVM module whose kernel is ``i32 @<global_symbol>(ptr A, ptr B, ..., <shape vars>)``:

* one ``ptr noalias nocapture`` per argument buffer, in ``func.params`` order (also
  ``nonnull dereferenceable(bytes)`` when its shape is constant: Module checks the shapes);
* then one integer per symbolic shape variable, in order of first appearance when scanning the
  argument buffers' physical shapes (argument order, then axis order);
* the return value is a status: 0 on success, ``k > 0`` for ``messages[k - 1]``
  (failed ``AssertStmt`` or out-of-memory), returned after freeing every live heap buffer.

Parallel loops are outlined into ``<name>_par<k>_body`` (the loop over one thread's chunk, with
the free variables as ``noalias`` parameters) and run through libgomp's ``GOMP_parallel`` by a
trampoline ``<name>_par<k>``. The iteration range is cut statically into one contiguous block
per thread; thread ``t`` works through block ``t`` in ``CHUNKS_PER_THREAD`` grains claimed
from that block's atomic counter, then steals grains from the other blocks' counters. On a
quiet machine every thread runs its own block (the same rows land in the same core's cache on
every call, as with TVM's static split); a thread that starts late or runs slowly leaves the
rest of its block to the others instead of holding them up at the end of the region.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import llvmlite.ir as ir

from ..errors import InternalError, TepadError
from .. import tir
from ..tir import dtype as dt
from ..tir.stmt import ForKind

# Constant-size allocations up to this many bytes live on the stack (entry-block alloca).
STACK_ALLOC_LIMIT = 64 * 1024
ALLOC_ALIGN = 64
# Each thread's static block of a parallel loop is claimed in this many grains (the unit a
# thread that finished its own block can steal).
CHUNKS_PER_THREAD = 4
# Bytes between two blocks' counters in the closure, so the threads' claims never share a
# cache line.
_COUNTER_STRIDE_BYTES = 64
# A parallel loop whose whole work (``extent`` x static per-iteration estimate: element loads
# plus stores, inner loop extents multiplied in; see ``static_work``) is below this runs
# serially on the calling thread: starting the team and its end barrier cost about 1 us with
# spinning workers (see codegen/jit.py), which only pays off from about 2 us of work (row sums
# of (R, 14) fp32, ~43 units a row: serial and team break even at R = 1024; at R = 16384 the
# team takes 21 us against 34 us serially). Loops whose per-iteration work is not a
# compile-time constant always use the team. The test is emitted in the IR
# (``work < PARALLEL_MIN_WORK``) and folds away when the extent is constant.
PARALLEL_MIN_WORK = 1 << 15
# Fast-math flags. Every float add/sub/mul may be contracted into an FMA (`contract`: one
# rounding instead of two, never less accurate). Only the combining add/mul of a reduction
# update (``X[i] = X[i] + v``: the stored value reads the same buffer at the same index) also
# gets `reassoc nsz`, which LLVM needs to vectorize / interleave a float reduction loop; plain
# elementwise arithmetic keeps numpy's evaluation order.
FLOAT_FLAGS = ("contract",)
REDUCTION_FLAGS = ("reassoc", "contract", "nsz")

_I1, _I8, _I32, _I64 = ir.IntType(1), ir.IntType(8), ir.IntType(32), ir.IntType(64)
_PTR = ir.PointerType()
_VOID = ir.VoidType()

_SCALAR_TYPES = {
    "bool": _I1, "int8": _I8, "uint8": _I8, "int16": ir.IntType(16), "uint16": ir.IntType(16),
    "int32": _I32, "uint32": _I32, "int64": _I64, "uint64": _I64,
    "float16": ir.HalfType(), "float32": ir.FloatType(), "float64": ir.DoubleType(),
    "handle": _PTR,
}

# tir math call -> LLVM intrinsic base name (".f32"/".v8f32" suffix added per type).
_MATH_INTRINSICS = {
    "tir.exp": "llvm.exp", "tir.log": "llvm.log", "tir.sqrt": "llvm.sqrt",
    "tir.fabs": "llvm.fabs", "tir.floor": "llvm.floor", "tir.ceil": "llvm.ceil",
    "tir.pow": "llvm.pow", "tir.round": "llvm.nearbyint", "tir.sin": "llvm.sin",
    "tir.cos": "llvm.cos", "tir.exp2": "llvm.exp2", "tir.log2": "llvm.log2",
    "tir.trunc": "llvm.trunc", "tir.tanh": "llvm.tanh",
}


def ll_type(dtype: str, memory: bool = False) -> ir.Type:
    """LLVM type of a TIR dtype. ``memory=True`` gives the in-memory type (bool is a byte)."""
    d = dt.parse(dtype)
    t = _SCALAR_TYPES[d.scalar]
    if memory and d.is_bool:
        t = _I8
    return t if d.lanes == 1 else ir.VectorType(t, d.lanes)


def _type_suffix(t: ir.Type) -> str:
    if isinstance(t, ir.VectorType):
        return f"v{t.count}{_type_suffix(t.element)}"
    if isinstance(t, ir.HalfType):
        return "f16"
    if isinstance(t, ir.FloatType):
        return "f32"
    if isinstance(t, ir.DoubleType):
        return "f64"
    if isinstance(t, ir.IntType):
        return f"i{t.width}"
    if isinstance(t, ir.PointerType):
        return "p0"
    raise InternalError(f"no intrinsic suffix for {t}")


def _is_unsigned(dtype: str) -> bool:
    d = dt.parse(dtype)
    return d.is_uint or d.is_bool


def shape_vars(func: tir.PrimFunc) -> list:
    """Symbolic shape variables of the argument buffers, in the kernel's argument order."""
    out, seen = [], set()
    for p in func.params:
        buf = func.buffer_map.get(p)
        if buf is None:
            continue
        for s in buf.shape:
            for v in _vars_in_order(s):
                if v not in seen:
                    seen.add(v)
                    out.append(v)
    return out


def _vars_in_order(e) -> list:
    out = []

    def f(n):
        if isinstance(n, tir.Var) and n not in out:
            out.append(n)
    tir.post_order_visit(e, f)
    return out


class _FreeVars(tir.Visitor):
    """Vars used but not defined inside a statement, in first-use order; buffer data included."""

    def __init__(self):
        self.defined, self.order, self.seen = set(), [], set()

    def _use(self, v):
        if v not in self.defined and v not in self.seen:
            self.seen.add(v)
            self.order.append(v)

    def visit_Var(self, v):
        self._use(v)

    def visit_SizeVar(self, v):
        self._use(v)

    def visit_BufferLoad(self, e):
        self._use(e.buffer.data)
        self.visit(e.indices)

    def visit_BufferStore(self, s):
        self._use(s.buffer.data)
        self.visit(s.value)
        self.visit(s.indices)

    def visit_For(self, s):
        self.visit(s.min)
        self.visit(s.extent)
        self.defined.add(s.loop_var)
        self.visit(s.body)

    def visit_LetStmt(self, s):
        self.visit(s.value)
        self.defined.add(s.var)
        self.visit(s.body)

    def visit_Let(self, e):
        self.visit(e.value)
        self.defined.add(e.var)
        self.visit(e.body)

    def visit_Allocate(self, s):
        self.visit(s.extents)
        self.defined.add(s.buffer_var)
        self.visit(s.body)

    def visit_AttrStmt(self, s):
        self.visit(s.body)


@dataclass
class _FnCtx:
    """Per-LLVM-function emission state (swapped when outlining a parallel loop body)."""
    fn: ir.Function
    builder: ir.IRBuilder
    entry: ir.Block
    vars: dict = field(default_factory=dict)
    cleanups: list = field(default_factory=list)  # heap pointers live at this point
    in_parallel: bool = False
    mask: object = None  # vector i1 mask while emitting a lane-guarded if_then_else branch


class _CodeGen:
    def __init__(self, func: tir.PrimFunc, name: str, num_threads: int, use_gomp: bool):
        self.func = func
        self.name = name
        self.num_threads = num_threads
        self.use_gomp = use_gomp
        self.module = ir.Module(name=name)
        self.messages: list[str] = []
        self.n_parallel = 0
        self.ctx: _FnCtx | None = None
        self.reduction_update = None  # the Add/Mul node combining a reduction (see FLOAT_FLAGS)

    # ------------------------------------------------------------------ helpers
    @property
    def b(self) -> ir.IRBuilder:
        return self.ctx.builder

    def declare(self, name, ret, args, var_arg=False) -> ir.Function:
        g = self.module.globals.get(name)
        if g is None:
            g = ir.Function(self.module, ir.FunctionType(ret, args, var_arg=var_arg), name=name)
        return g

    def intrinsic(self, base: str, ret: ir.Type, args: list, overload: list) -> ir.Function:
        name = base + "".join("." + _type_suffix(t) for t in overload)
        return self.declare(name, ret, args)

    def status_code(self, message: str) -> int:
        self.messages.append(message)
        return len(self.messages)

    def new_ctx(self, fn: ir.Function, in_parallel: bool) -> _FnCtx:
        # `entry` holds only allocas and a branch to `start`, where the code goes
        entry = fn.append_basic_block("entry")
        start = fn.append_basic_block("start")
        ir.IRBuilder(entry).branch(start)
        return _FnCtx(fn, ir.IRBuilder(start), entry, in_parallel=in_parallel)

    def entry_alloca(self, typ, name="") -> ir.Instruction:
        """Alloca at the top of the current function's entry block (so LLVM can promote it)."""
        eb = ir.IRBuilder(self.ctx.entry)
        eb.position_before(self.ctx.entry.terminator)
        a = eb.alloca(typ, name=name)
        a.type = _PTR  # llvmlite would print a typed pointer; we use opaque pointers throughout
        return a

    def emit_return_status(self, code: ir.Value):
        """Free every live heap buffer, then ``ret code`` (the block ends here)."""
        free = self.declare("free", _VOID, [_PTR])
        for p in reversed(self.ctx.cleanups):
            self.b.call(free, [p])
        self.b.ret(code)

    def const_vec(self, t: ir.VectorType, values) -> ir.Constant:
        return ir.Constant(t, [ir.Constant(t.element, v) for v in values])

    def broadcast(self, v: ir.Value, lanes: int) -> ir.Value:
        if isinstance(v, ir.Constant) and not isinstance(v.type, ir.VectorType):
            return ir.Constant(ir.VectorType(v.type, lanes), [v] * lanes)
        vt = ir.VectorType(v.type, lanes)
        x = self.b.insert_element(ir.Constant(vt, ir.Undefined), v, _I32(0))
        return self.b.shuffle_vector(x, ir.Constant(vt, ir.Undefined),
                                     ir.Constant(ir.VectorType(_I32, lanes), [_I32(0)] * lanes))

    # ------------------------------------------------------------------ kernel
    def run(self) -> str:
        func = self.func
        arg_types, arg_names = [], []
        for p in func.params:
            if p not in func.buffer_map:
                raise TepadError(
                    f"kernel {self.name}: parameter {p.name!r} is not bound to a buffer; only "
                    "buffer arguments are supported")
            arg_types.append(_PTR)
            arg_names.append(func.buffer_map[p].name)
        svars = shape_vars(func)
        for v in svars:
            arg_types.append(ll_type(v.dtype))
            arg_names.append(v.name)
        fn = ir.Function(self.module, ir.FunctionType(_I32, arg_types), name=self.name)
        fn.attributes.add("nounwind")
        self.ctx = self.new_ctx(fn, in_parallel=False)
        seen_data = set()
        for k, p in enumerate(func.params):
            a = fn.args[k]
            a.name = _ident(arg_names[k])
            buf = func.buffer_map[p]
            if buf.data not in seen_data:  # the same buffer twice must not claim noalias
                a.add_attribute("noalias")
            seen_data.add(buf.data)
            a.add_attribute("captures(none)")
            nbytes = _static_bytes(buf)
            if nbytes:   # Module checks every array's shape: the whole buffer is there
                a.add_attribute("nonnull")
                a.attributes.dereferenceable = nbytes
            self.ctx.vars[buf.data] = a
            self.ctx.vars[p] = a
        for k, v in enumerate(svars):
            a = fn.args[len(func.params) + k]
            a.name = _ident(v.name)
            self.ctx.vars[v] = a
        self._check_free_vars(svars)
        self.stmt(func.body)
        if not self.b.block.is_terminated:
            self.b.ret(_I32(0))
        return str(self.module)

    def _check_free_vars(self, svars):
        fv = _FreeVars()
        fv.visit(self.func.body)
        known = set(self.ctx.vars)
        missing = [v for v in fv.order if v not in known]
        if missing:
            names = ", ".join(v.name for v in missing)
            raise TepadError(
                f"kernel {self.name}: variables {names} are used in the body but bound by no "
                "argument buffer's shape (symbolic sizes must appear in some argument shape)")

    # ------------------------------------------------------------------ statements
    def stmt(self, s):
        meth = getattr(self, "stmt_" + type(s).__name__, None)
        if meth is None:
            raise InternalError(f"codegen: unsupported statement {type(s).__name__}:\n{s}")
        if self.b.block.is_terminated:  # code after an unconditional return is dead
            return
        meth(s)

    def stmt_SeqStmt(self, s):
        for x in s.seq:
            self.stmt(x)

    def stmt_AttrStmt(self, s):
        self.stmt(s.body)

    def stmt_LetStmt(self, s):
        self.ctx.vars[s.var] = self.expr(s.value)
        self.stmt(s.body)

    def stmt_Evaluate(self, s):
        v = s.value
        if isinstance(v, (tir.ConstExpr, tir.StringImm)) or tir.is_call(v, "tir.assume"):
            return
        self.expr(v)

    def stmt_AssertStmt(self, s):
        msg = s.message.value if isinstance(s.message, tir.StringImm) else str(s.message)
        code = self.status_code(msg)
        cond = self.expr(s.condition)
        ok = self.ctx.fn.append_basic_block("assert.ok")
        fail = self.ctx.fn.append_basic_block("assert.fail")
        self.b.cbranch(cond, ok, fail)
        self.b.position_at_end(fail)
        self.emit_return_status(_I32(code))
        self.b.position_at_end(ok)
        self.stmt(s.body)

    def stmt_IfThenElse(self, s):
        cond = self.expr(s.condition)
        if isinstance(cond.type, ir.VectorType):
            raise InternalError(f"codegen: vector condition in IfThenElse:\n{s}")
        fn = self.ctx.fn
        then_bb = fn.append_basic_block("if.then")
        end_bb = fn.append_basic_block("if.end")
        else_bb = fn.append_basic_block("if.else") if s.else_case is not None else end_bb
        self.b.cbranch(cond, then_bb, else_bb)
        self.b.position_at_end(then_bb)
        self.stmt(s.then_case)
        if not self.b.block.is_terminated:
            self.b.branch(end_bb)
        if s.else_case is not None:
            self.b.position_at_end(else_bb)
            self.stmt(s.else_case)
            if not self.b.block.is_terminated:
                self.b.branch(end_bb)
        self.b.position_at_end(end_bb)

    def stmt_BufferStore(self, s):
        if len(s.indices) != 1:
            raise InternalError(f"codegen: BufferStore to {s.buffer.name} is not flattened")
        self.reduction_update = _reduction_update(s)
        value = self.expr(s.value)
        self.reduction_update = None
        index = tir.convert(s.indices[0])
        lanes = dt.lanes(index.dtype)
        if lanes > 1 and not isinstance(value.type, ir.VectorType):
            value = self.broadcast(value, lanes)
        base = self.buffer_ptr(s.buffer)
        elem_t = ll_type(s.buffer.dtype, memory=True)
        align = dt.parse(s.buffer.dtype).bytes
        is_bool = dt.is_bool(s.buffer.dtype)
        if lanes == 1:
            ptr = self.b.gep(base, [self.expr(index)], inbounds=True, source_etype=elem_t)
            if is_bool:
                value = self.b.zext(value, _I8)
            self.b.store(value, ptr, align=align)
            return
        if is_bool:
            value = self.b.zext(value, ir.VectorType(_I8, lanes))
        if _is_contiguous(index):
            ptr = self.b.gep(base, [self.expr(index.base)], inbounds=True, source_etype=elem_t)
            self.b.store(value, ptr, align=align)
            return
        idx = self.expr(index)  # scatter, lane by lane
        for k in range(lanes):
            ptr = self.b.gep(base, [self.b.extract_element(idx, _I32(k))], inbounds=True,
                             source_etype=elem_t)
            self.b.store(self.b.extract_element(value, _I32(k)), ptr, align=align)

    def buffer_ptr(self, buf) -> ir.Value:
        p = self.ctx.vars.get(buf.data)
        if p is None:
            raise InternalError(
                f"codegen: buffer {buf.name} is neither an argument nor allocated in scope")
        return p

    def stmt_Allocate(self, s):
        elem_t = ll_type(s.dtype, memory=True)
        nbytes_each = dt.parse(s.dtype).bytes * dt.lanes(s.dtype)
        consts = [int(e.value) for e in s.extents if isinstance(e, tir.IntImm)]
        if len(consts) == len(s.extents):
            count = 1
            for c in consts:
                count *= c
            if count * nbytes_each <= STACK_ALLOC_LIMIT:
                a = self.entry_alloca(ir.ArrayType(elem_t, max(count, 1)), name=_ident(s.buffer_var.name))
                a.align = ALLOC_ALIGN
                self.ctx.vars[s.buffer_var] = a
                self.stmt(s.body)
                return
        size = _I64(nbytes_each)
        for e in s.extents:
            v = self.expr(e)
            v = self.b.sext(v, _I64) if v.type.width < 64 else v
            size = self.b.mul(size, v, flags=("nsw",))
        # aligned_alloc wants a multiple of the alignment; never ask for 0 bytes
        size = self.b.add(size, _I64(ALLOC_ALIGN), flags=("nsw",))
        size = self.b.and_(size, _I64(-ALLOC_ALIGN))
        alloc = self.declare("aligned_alloc", _PTR, [_I64, _I64])
        p = self.b.call(alloc, [_I64(ALLOC_ALIGN), size], name=_ident(s.buffer_var.name))
        code = self.status_code(f"out of memory allocating buffer {s.buffer_var.name}")
        fail = self.ctx.fn.append_basic_block("alloc.fail")
        ok = self.ctx.fn.append_basic_block("alloc.ok")
        self.b.cbranch(self.b.icmp_unsigned("==", p, ir.Constant(_PTR, None)), fail, ok)
        self.b.position_at_end(fail)
        self.emit_return_status(_I32(code))
        self.b.position_at_end(ok)
        self.ctx.vars[s.buffer_var] = p
        self.ctx.cleanups.append(p)
        self.stmt(s.body)
        self.ctx.cleanups.pop()
        if not self.b.block.is_terminated:
            self.b.call(self.declare("free", _VOID, [_PTR]), [p])

    def stmt_For(self, s):
        if s.kind == ForKind.PARALLEL and not self.ctx.in_parallel and self.use_gomp:
            self.emit_parallel_for(s)
            return
        lo = self.cast_to(self.expr(s.min), s.min.dtype, s.loop_var.dtype)
        ext = self.cast_to(self.expr(s.extent), s.extent.dtype, s.loop_var.dtype)
        hi = self.b.add(lo, ext, flags=("nsw",))
        self.emit_loop(s.loop_var, lo, hi, s.body)

    def emit_loop(self, var, lo, hi, body):
        """``for var in [lo, hi): body`` as a guarded loop LLVM can rotate and vectorize."""
        fn = self.ctx.fn
        pre = self.b.block
        header = fn.append_basic_block(f"for.{_ident(var.name)}")
        body_bb = fn.append_basic_block(f"for.{_ident(var.name)}.body")
        exit_bb = fn.append_basic_block(f"for.{_ident(var.name)}.end")
        self.b.branch(header)
        self.b.position_at_end(header)
        i = self.b.phi(lo.type, name=_ident(var.name))
        i.add_incoming(lo, pre)
        cond = (self.b.icmp_unsigned if _is_unsigned(var.dtype) else self.b.icmp_signed)("<", i, hi)
        self.b.cbranch(cond, body_bb, exit_bb)
        self.b.position_at_end(body_bb)
        self.ctx.vars[var] = i
        self.stmt(body)
        if not self.b.block.is_terminated:
            nxt = self.b.add(i, ir.Constant(lo.type, 1), flags=("nsw",))
            i.add_incoming(nxt, self.b.block)
            self.b.branch(header)
        self.b.position_at_end(exit_bb)

    def emit_parallel_for(self, s):
        """Outline ``s`` and run it with GOMP_parallel: a static block per thread, grains of
        unfinished blocks stolen by idle threads (``emit_block_claims``).

        When the loop's work is known per iteration, a runtime test ``extent * work <
        PARALLEL_MIN_WORK`` (or a single-thread build) calls the outlined body on this thread
        for the whole range instead of starting the team."""
        k = self.n_parallel
        self.n_parallel += 1
        fv = _FreeVars()
        fv.defined.add(s.loop_var)
        fv.visit(s.body)
        free = fv.order
        parent = self.ctx
        vals = []
        for v in free:
            if v not in parent.vars:
                raise InternalError(f"codegen: variable {v.name} used before definition")
            vals.append(parent.vars[v])
        idx_t = ll_type(s.loop_var.dtype)
        lo = self.cast_to(self.expr(s.min), s.min.dtype, s.loop_var.dtype)
        ext = self.cast_to(self.expr(s.extent), s.extent.dtype, s.loop_var.dtype)
        n_free = len(vals)
        n_blocks = max(1, self.num_threads)
        cstride = max(1, _COUNTER_STRIDE_BYTES // (idx_t.width // 8))
        # closure: free values, status, lo, extent, then one padded claim counter per block
        closure_t = ir.LiteralStructType([v.type for v in vals] + [
            _I32, idx_t, idx_t, ir.ArrayType(idx_t, n_blocks * cstride)])

        # body: i32 body(free..., begin, end)
        body_fn = ir.Function(self.module, ir.FunctionType(_I32, [v.type for v in vals] +
                                                           [idx_t, idx_t]),
                              name=f"{self.name}_par{k}_body")
        body_fn.linkage = "internal"
        body_fn.attributes.add("nounwind")
        ctx = self.new_ctx(body_fn, in_parallel=True)
        for v, a in zip(free, body_fn.args):
            a.name = _ident(v.name)
            if isinstance(a.type, ir.PointerType):
                a.add_attribute("noalias")
            ctx.vars[v] = a
        self.ctx = ctx
        self.emit_loop(s.loop_var, body_fn.args[n_free], body_fn.args[n_free + 1], s.body)
        if not self.b.block.is_terminated:
            self.b.ret(_I32(0))

        # trampoline: void par(ptr closure)
        tramp = ir.Function(self.module, ir.FunctionType(_VOID, [_PTR]),
                            name=f"{self.name}_par{k}")
        tramp.linkage = "internal"
        tramp.attributes.add("nounwind")
        self.ctx = self.new_ctx(tramp, in_parallel=True)
        b = self.b
        cl = tramp.args[0]

        def field_ptr(j):
            return b.gep(cl, [_I32(0), _I32(j)], inbounds=True, source_etype=closure_t)
        loaded = [b.load(field_ptr(j), typ=v.type) for j, v in enumerate(vals)]
        t_lo = b.load(field_ptr(n_free + 1), typ=idx_t)
        t_ext = b.load(field_ptr(n_free + 2), typ=idx_t)
        counters_t = closure_t.elements[n_free + 3]

        def counter(builder, counters, blk):
            """Address of block ``blk``'s claim counter (one per cache line)."""
            return builder.gep(counters, [_I32(0), builder.mul(blk, _I32(cstride))],
                               inbounds=True, source_etype=counters_t)
        self.emit_block_claims(b, tramp, t_ext, n_blocks,
                               status=field_ptr(n_free),
                               counter=lambda blk: counter(b, field_ptr(n_free + 3), blk),
                               run=lambda s0, s1: b.call(body_fn, loaded + [
                                   b.add(t_lo, s0, flags=("nsw",)),
                                   b.add(t_lo, s1, flags=("nsw",))]))

        # caller: fill the closure, run the team, propagate a failure status
        self.ctx = parent
        clos = self.entry_alloca(closure_t, name=f"par{k}.closure")
        b = self.b
        per_iter = static_work(s.body)
        join_bb = None
        if per_iter is not None or self.num_threads <= 1:
            if self.num_threads <= 1:
                small = ir.Constant(_I1, 1)
            else:
                ext64 = ext if idx_t.width == 64 else (
                    b.zext(ext, _I64) if _is_unsigned(s.loop_var.dtype) else b.sext(ext, _I64))
                work = b.mul(ext64, _I64(max(1, per_iter)))
                small = b.icmp_signed("<", work, _I64(PARALLEL_MIN_WORK))
            ser_bb = parent.fn.append_basic_block(f"par{k}.serial")
            team_bb = parent.fn.append_basic_block(f"par{k}.team")
            join_bb = parent.fn.append_basic_block(f"par{k}.join")
            b.cbranch(small, ser_bb, team_bb)
            b.position_at_end(ser_bb)
            st = b.call(body_fn, vals + [lo, b.add(lo, ext, flags=("nsw",))])
            sfail_bb = parent.fn.append_basic_block(f"par{k}.serial.fail")
            b.cbranch(b.icmp_signed("!=", st, _I32(0)), sfail_bb, join_bb)
            b.position_at_end(sfail_bb)
            self.emit_return_status(st)
            b.position_at_end(team_bb)

        def pfield(j):
            return b.gep(clos, [_I32(0), _I32(j)], inbounds=True, source_etype=closure_t)
        for j, v in enumerate(vals):
            b.store(v, pfield(j))
        b.store(_I32(0), pfield(n_free))
        b.store(lo, pfield(n_free + 1))
        b.store(ext, pfield(n_free + 2))
        for blk in range(n_blocks):     # block blk starts at ext * blk / n_blocks
            begin = self.block_bound(b, ext, blk, n_blocks)
            b.store(begin, counter(b, pfield(n_free + 3), _I32(blk)))
        gomp = self.declare("GOMP_parallel", _VOID, [_PTR, _PTR, _I32, _I32])
        b.call(gomp, [tramp, clos, _I32(self.num_threads), _I32(0)])
        st = b.load(pfield(n_free), typ=_I32)
        fail_bb = parent.fn.append_basic_block(f"par{k}.fail")
        ok_bb = parent.fn.append_basic_block(f"par{k}.ok")
        b.cbranch(b.icmp_signed("!=", st, _I32(0)), fail_bb, ok_bb)
        b.position_at_end(fail_bb)
        self.emit_return_status(st)
        b.position_at_end(ok_bb)
        if join_bb is not None:
            b.branch(join_bb)
            b.position_at_end(join_bb)

    @staticmethod
    def block_bound(b, ext, blk, n_blocks):
        """``ext * blk // n_blocks``: where static block ``blk`` starts (``blk == n_blocks``
        gives ``ext``). Computed in 64 bits, so a 32-bit extent cannot overflow."""
        t = ext.type
        e64 = ext if t.width == 64 else b.sext(ext, _I64)
        k64 = _I64(blk) if isinstance(blk, int) else b.zext(blk, _I64)
        v = b.sdiv(b.mul(e64, k64), _I64(n_blocks))
        return v if t.width == 64 else b.trunc(v, t)

    def emit_block_claims(self, b, fn, ext, n_blocks, status, counter, run):
        """The per-thread side of a parallel loop (emitted into the trampoline ``fn``).

        Visits the ``n_blocks`` static blocks of ``[0, ext)`` starting with this thread's own
        (``omp_get_thread_num() % n_blocks``); from each it claims ``grain`` iterations at a
        time by an atomic add on ``counter(block)`` until the claims pass the block's end, and
        runs them as ``run(begin, end)`` (which returns an i32 status). A non-zero status is
        stored in ``status`` and stops the claiming of every thread. Every iteration runs
        exactly once whatever the team size, since each thread visits every block."""
        idx_t = ext.type
        tid = b.call(self.declare("omp_get_thread_num", _I32, []), [])
        tid = b.urem(tid, _I32(n_blocks))
        one = ir.Constant(idx_t, 1)
        n_grains = ir.Constant(idx_t, n_blocks * CHUNKS_PER_THREAD)
        grain = b.sdiv(b.sub(b.add(ext, n_grains), one), n_grains)
        grain = b.select(b.icmp_signed("<", grain, one), one, grain)
        entry = b.block
        head_bb = fn.append_basic_block("block")
        peek_bb = fn.append_basic_block("peek")
        claim_bb = fn.append_basic_block("claim")
        run_bb = fn.append_basic_block("run")
        next_bb = fn.append_basic_block("next_block")
        fail_bb = fn.append_basic_block("fail")
        done_bb = fn.append_basic_block("done")
        b.branch(head_bb)

        b.position_at_end(head_bb)
        r = b.phi(_I32, name="visited")
        r.add_incoming(_I32(0), entry)
        blk = b.urem(b.add(tid, r), _I32(n_blocks))
        end = self.block_bound(b, ext, b.add(blk, _I32(1)), n_blocks)
        cptr = counter(blk)
        b.branch(peek_bb)

        # a plain look before the atomic add: an exhausted block costs no contended write
        b.position_at_end(peek_bb)
        failed = b.load_atomic(status, "monotonic", 4, typ=_I32)
        seen = b.load_atomic(cptr, "monotonic", idx_t.width // 8, typ=idx_t)
        go = b.and_(b.icmp_signed("==", failed, _I32(0)), b.icmp_signed("<", seen, end))
        b.cbranch(go, claim_bb, next_bb)

        b.position_at_end(claim_bb)
        start = b.atomic_rmw("add", cptr, grain, "monotonic")
        b.cbranch(b.icmp_signed("<", start, end), run_bb, next_bb)

        b.position_at_end(run_bb)
        stop = b.add(start, grain)
        stop = b.select(b.icmp_signed("<", stop, end), stop, end)
        st = run(start, stop)
        b.cbranch(b.icmp_signed("!=", st, _I32(0)), fail_bb, peek_bb)

        b.position_at_end(next_bb)
        r_next = b.add(r, _I32(1))
        r.add_incoming(r_next, next_bb)
        b.cbranch(b.icmp_unsigned("<", r_next, _I32(n_blocks)), head_bb, done_bb)

        b.position_at_end(fail_bb)
        # (IRBuilder.store_atomic insists on typed pointers; build the instruction directly)
        b._insert(ir.instructions.StoreAtomicInstr(b.block, st, status, "monotonic", 4))
        b.branch(done_bb)

        b.position_at_end(done_bb)
        b.ret_void()

    # ------------------------------------------------------------------ expressions
    def expr(self, e) -> ir.Value:
        meth = getattr(self, "expr_" + type(e).__name__, None)
        if meth is None:
            if isinstance(e, tir.CmpOp):
                return self.expr_cmp(e)
            raise InternalError(f"codegen: unsupported expression {type(e).__name__}: {e!r}")
        return meth(e)

    def expr_IntImm(self, e):
        return ir.Constant(ll_type(e.dtype), int(e.value))

    def expr_FloatImm(self, e):
        return ir.Constant(ll_type(e.dtype), float(e.value))

    def expr_Var(self, e):
        v = self.ctx.vars.get(e)
        if v is None:
            raise InternalError(f"codegen: variable {e.name} used before definition")
        return v

    expr_SizeVar = expr_Var

    def expr_Let(self, e):
        self.ctx.vars[e.var] = self.expr(e.value)
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
        return getattr(self.b, uint_op if _is_unsigned(e.dtype) else int_op)(a, b)

    def expr_Add(self, e): return self._arith(e, "add", "add", "fadd")
    def expr_Sub(self, e): return self._arith(e, "sub", "sub", "fsub")
    def expr_Mul(self, e): return self._arith(e, "mul", "mul", "fmul")
    def expr_Div(self, e): return self._arith(e, "sdiv", "udiv", "fdiv")
    def expr_Mod(self, e): return self._arith(e, "srem", "urem", "frem")

    def _floor_divmod(self, e, want_div: bool):
        a, b = self.expr(e.a), self.expr(e.b)
        d = dt.parse(e.dtype)
        if d.is_float:
            q = self.call_intrinsic("llvm.floor", [self.b.fdiv(a, b)])
            return q if want_div else self.b.fsub(a, self.b.fmul(q, b))
        if _is_unsigned(e.dtype):
            return self.b.udiv(a, b) if want_div else self.b.urem(a, b)
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
        elif _is_unsigned(e.dtype):
            c = self.b.icmp_unsigned(op, a, b)
        else:
            c = self.b.icmp_signed(op, a, b)
        return self.b.select(c, a, b)

    def expr_Min(self, e): return self._minmax(e, "<")
    def expr_Max(self, e): return self._minmax(e, ">")

    def expr_cmp(self, e):
        op = e.symbol
        a, b = self.expr(e.a), self.expr(e.b)
        if dt.is_float(e.a.dtype):
            if op == "!=":
                return self.b.fcmp_unordered(op, a, b)
            return self.b.fcmp_ordered(op, a, b)
        if _is_unsigned(e.a.dtype):
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
        s, d = dt.parse(src), dt.parse(dst)
        if s.scalar == d.scalar:
            return v
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
            return b.uitofp(v, t) if _is_unsigned(src) else b.sitofp(v, t)
        if d.bits == s.bits:
            return v
        if d.bits < s.bits:
            return b.trunc(v, t)
        return b.zext(v, t) if _is_unsigned(src) else b.sext(v, t)

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

    def expr_BufferLoad(self, e):
        if len(e.indices) != 1:
            raise InternalError(f"codegen: BufferLoad of {e.buffer.name} is not flattened")
        index = tir.convert(e.indices[0])
        lanes = dt.lanes(index.dtype)
        base = self.buffer_ptr(e.buffer)
        elem_t = ll_type(e.buffer.dtype, memory=True)
        align = dt.parse(e.buffer.dtype).bytes
        is_bool = dt.is_bool(e.buffer.dtype)
        mask = self.ctx.mask
        if lanes == 1:
            if mask is not None:
                v = self.guarded(self.any_lane(mask), lambda: self._scalar_load(base, index, elem_t, align),
                                 elem_t)
            else:
                v = self._scalar_load(base, index, elem_t, align)
            return self.b.trunc(v, _I1) if is_bool else v
        vt = ir.VectorType(elem_t, lanes)
        if _is_contiguous(index):
            ptr = self.b.gep(base, [self.expr(index.base)], inbounds=True, source_etype=elem_t)
            if mask is None:
                v = self.b.load(ptr, typ=vt, align=align)
            else:
                fn = self.intrinsic("llvm.masked.load", vt, [_PTR, _I32, mask.type, vt], [vt, _PTR])
                v = self.b.call(fn, [ptr, _I32(align), mask, ir.Constant(vt, None)])
        else:
            idx = self.expr(index)
            v = ir.Constant(vt, ir.Undefined)
            for k in range(lanes):
                def load_lane(k=k):
                    p = self.b.gep(base, [self.b.extract_element(idx, _I32(k))], inbounds=True,
                                   source_etype=elem_t)
                    return self.b.load(p, typ=elem_t, align=align)
                x = load_lane() if mask is None else \
                    self.guarded(self.b.extract_element(mask, _I32(k)), load_lane, elem_t)
                v = self.b.insert_element(v, x, _I32(k))
        if is_bool:
            return self.b.icmp_unsigned("!=", v, ir.Constant(vt, None))
        return v

    def _scalar_load(self, base, index, elem_t, align):
        p = self.b.gep(base, [self.expr(index)], inbounds=True, source_etype=elem_t)
        return self.b.load(p, typ=elem_t, align=align)

    def any_lane(self, mask):
        fn = self.intrinsic("llvm.vector.reduce.or", _I1, [mask.type], [mask.type])
        return self.b.call(fn, [mask])

    def guarded(self, cond, emit, typ):
        """``cond ? emit() : zero`` evaluating ``emit`` only when ``cond`` holds."""
        fn = self.ctx.fn
        pre = self.b.block
        then_bb = fn.append_basic_block("guard.then")
        end_bb = fn.append_basic_block("guard.end")
        self.b.cbranch(cond, then_bb, end_bb)
        self.b.position_at_end(then_bb)
        v = emit()
        then_end = self.b.block
        self.b.branch(end_bb)
        self.b.position_at_end(end_bb)
        phi = self.b.phi(typ)
        phi.add_incoming(ir.Constant(typ, None), pre)
        phi.add_incoming(v, then_end)
        return phi

    def expr_Call(self, e):
        op = e.op if e.op.startswith("tir.") else "tir." + e.op
        if op == "tir.if_then_else":
            return self.if_then_else(e)
        if op == "tir.likely":
            return self.expr(e.args[0])
        if op == "tir.undef":
            return ir.Constant(ll_type(e.dtype), None)
        if op == "tir.assume":
            return ir.Constant(_I1, 1)
        if op == "tir.sigmoid":
            x = self.expr(e.args[0])
            one = self._fconst(x.type, 1.0)
            ex = self.call_intrinsic("llvm.exp", [self.b.fneg(x)])
            return self.b.fdiv(one, self.b.fadd(one, ex))
        base = _MATH_INTRINSICS.get(op)
        if base is None:
            raise InternalError(f"codegen: unknown call {e.op!r} in {e!r}")
        return self.call_intrinsic(base, [self.expr(a) for a in e.args])

    def _fconst(self, t, value):
        if isinstance(t, ir.VectorType):
            return ir.Constant(t, [ir.Constant(t.element, value)] * t.count)
        return ir.Constant(t, value)

    def call_intrinsic(self, base, args):
        t = args[0].type
        return self.b.call(self.intrinsic(base, t, [a.type for a in args], [t]), args)

    def if_then_else(self, e):
        cond_e, t_e, f_e = e.args
        cond = self.expr(cond_e)
        if isinstance(cond.type, ir.VectorType):
            # lane-wise: evaluate each side under its mask (guarded loads), then select
            outer = self.ctx.mask
            m_t = cond if outer is None else self.b.and_(cond, outer)
            m_f = self.b.not_(cond) if outer is None else self.b.and_(self.b.not_(cond), outer)
            self.ctx.mask = m_t
            t = self.expr(t_e)
            self.ctx.mask = m_f
            f = self.expr(f_e)
            self.ctx.mask = outer
            if not isinstance(t.type, ir.VectorType):
                t = self.broadcast(t, cond.type.count)
            if not isinstance(f.type, ir.VectorType):
                f = self.broadcast(f, cond.type.count)
            return self.b.select(cond, t, f)
        fn = self.ctx.fn
        then_bb = fn.append_basic_block("ite.then")
        else_bb = fn.append_basic_block("ite.else")
        end_bb = fn.append_basic_block("ite.end")
        self.b.cbranch(cond, then_bb, else_bb)
        self.b.position_at_end(then_bb)
        t = self.expr(t_e)
        t_end = self.b.block
        self.b.branch(end_bb)
        self.b.position_at_end(else_bb)
        f = self.expr(f_e)
        f_end = self.b.block
        self.b.branch(end_bb)
        self.b.position_at_end(end_bb)
        phi = self.b.phi(t.type)
        phi.add_incoming(t, t_end)
        phi.add_incoming(f, f_end)
        return phi


def _count_loads(e) -> int:
    n = []

    def f(x):
        if isinstance(x, tir.BufferLoad):
            n.append(dt.lanes(tir.convert(x.indices[0]).dtype) if len(x.indices) == 1 else 1)
    tir.post_order_visit(e, f)
    return sum(n)


def static_work(s) -> int | None:
    """Compile-time estimate of a statement's work: element loads and stores, multiplied by
    the extents of the loops around them; None when some loop extent is not a constant."""
    if isinstance(s, tir.For):
        if not isinstance(s.extent, tir.IntImm):
            return None
        w = static_work(s.body)
        return None if w is None else int(s.extent.value) * w
    if isinstance(s, tir.SeqStmt):
        total = 0
        for x in s.seq:
            w = static_work(x)
            if w is None:
                return None
            total += w
        return total
    if isinstance(s, tir.BufferStore):
        lanes = dt.lanes(tir.convert(s.indices[0]).dtype) if len(s.indices) == 1 else 1
        return lanes + _count_loads(s.value)
    if isinstance(s, tir.IfThenElse):
        a = static_work(s.then_case)
        b = static_work(s.else_case) if s.else_case is not None else 0
        return None if a is None or b is None else 1 + _count_loads(s.condition) + a + b
    if isinstance(s, (tir.LetStmt, tir.AttrStmt, tir.Allocate, tir.AssertStmt)):
        w = static_work(s.body)
        return None if w is None else w + 1
    if isinstance(s, tir.Evaluate):
        return 1 + _count_loads(s.value)
    return None


def _static_bytes(buf) -> int | None:
    """Bytes of a buffer whose physical shape is constant (None if symbolic or empty)."""
    n = dt.parse(buf.dtype).bytes * dt.lanes(buf.dtype)
    for d in buf.shape:
        if not isinstance(d, (int, tir.IntImm)):
            return None
        n *= int(d)
    return n or None


def _reduction_update(store):
    """The ``Add``/``Mul`` node of ``X[i] = X[i] op v`` (or ``v op X[i]``), else None."""
    v = store.value
    if not isinstance(v, (tir.Add, tir.Mul)) or not dt.is_float(v.dtype):
        return None
    for side in (v.a, v.b):
        if isinstance(side, tir.BufferLoad) and side.buffer.data is store.buffer.data and \
                len(side.indices) == len(store.indices) and \
                all(tir.structural_equal(x, y) for x, y in zip(side.indices, store.indices)):
            return v
    return None


def _is_contiguous(index) -> bool:
    return isinstance(index, tir.Ramp) and isinstance(index.stride, tir.IntImm) and \
        int(index.stride.value) == 1


def _ident(name: str) -> str:
    return "".join(c if c.isalnum() or c in "_." else "_" for c in str(name)) or "v"


def default_num_threads() -> int:
    env = os.environ.get("TEPAD_NUM_THREADS")
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            raise TepadError(f"TEPAD_NUM_THREADS must be a positive integer, got {env!r}")
    return os.cpu_count() or 1


def emit_llvm_module(func: tir.PrimFunc, name: str | None = None, num_threads: int | None = None,
                     use_gomp: bool = True) -> tuple[str, list[str], list]:
    """Emit ``func`` as LLVM IR text.

    Returns ``(ir_text, messages, shape_vars)``: ``messages[k-1]`` explains status ``k``;
    ``shape_vars`` are the trailing scalar arguments of the kernel, in order.
    """
    name = name or func.attrs.get("global_symbol", "main")
    cg = _CodeGen(func, name, num_threads or default_num_threads(), use_gomp)
    text = cg.run()
    return text, cg.messages, shape_vars(func)
