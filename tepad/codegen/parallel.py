"""Parallel loops: outlined into functions and run in chunks on tepad's thread pool
(``pool.py``), the calling thread taking every chunk no worker has started.

``for i in [lo, lo + ext) parallel: body`` becomes

* ``<name>_par<k>_body(free..., begin, end) -> i32``: the serial loop over ``[begin, end)``,
  the body's free variables passed as (``noalias``) parameters;
* ``<name>_par<k>(closure, chunk) -> i32``: chunk ``c`` of ``n``, the iterations
  ``[lo + ext * c / n, lo + ext * (c + 1) / n)``;
* in the caller: the closure filled on the stack, then ``tepad_pool_run(chunk_fn, closure, n,
  threads - 1)`` through the module's ``tepad_parallel_hook`` global, and the status checked.
  When the work is known per iteration, a run-time test sends small loops straight to the
  body function on the calling thread; so does a null hook (a kernel no Module attached).

The loop is cut into ``n = min(ext, threads * CHUNKS_PER_THREAD)`` chunks that the caller and
the awake workers claim from one atomic counter. The caller waits only for chunks a worker
actually claimed: on a machine whose other cores are busy, a worker that is not running claims
nothing and the caller runs the whole loop itself, at single-thread speed, instead of waiting a
scheduler time slice for the worker (what a fork-join team barrier, such as libgomp's, does).
"""
from __future__ import annotations

import llvmlite.ir as ir

from ..errors import InternalError
from ..tir.free_vars import FreeVars
from .analysis import static_work
from .symbols import POOL_HOOK_SYMBOL
from .lltypes import I1, I32, I64, PTR, ident, is_unsigned, ll_type

# A parallel loop is cut into this many chunks per thread: the unit the caller and the workers
# claim. More chunks balance better when a worker runs slowly (a busy core: the caller waits at
# most for the chunk that worker is in), fewer cost fewer claims (an atomic add each).
CHUNKS_PER_THREAD = 8

# A parallel loop whose whole work (``extent`` x static per-iteration estimate: element loads
# plus stores, inner loop extents multiplied in; see ``static_work``) is below this runs
# serially on the calling thread: handing a loop to other threads costs about 1 us with
# spinning workers, which only pays off from about 2 us of work (row sums of (R, 14) fp32,
# ~43 units a row: serial and threaded broke even at R = 1024; at R = 16384 two threads took
# 21 us against 34 us serially; measured with the libgomp team the pool replaced). Loops whose
# per-iteration work is not a compile-time constant always use the pool. The test is emitted
# in the IR (``work < PARALLEL_MIN_WORK``) and folds away when the extent is constant.
# Read at emission time, so tests may patch it on this module.
PARALLEL_MIN_WORK = 1 << 15


class _Closure:
    """Layout of the struct a parallel region's caller fills for the chunks: the free values,
    then ``lo``, ``extent`` and the chunk count."""

    def __init__(self, free_types: list, idx_t: ir.IntType):
        self.n_free = len(free_types)
        self.lo = self.n_free
        self.ext = self.n_free + 1
        self.n = self.n_free + 2
        self.type = ir.LiteralStructType(list(free_types) + [idx_t, idx_t, I64])

    def field(self, b: ir.IRBuilder, ptr, j: int):
        """Address of field ``j`` of the closure at ``ptr``."""
        return b.gep(ptr, [I32(0), I32(j)], inbounds=True, source_etype=self.type)


class ParallelEmitter:
    """``emit_parallel_for``: a ``For`` of kind PARALLEL run on the pool (see the module doc)."""

    def emit_parallel_for(self, s):
        """Outline ``s`` and run its chunks on the thread pool (``_emit_chunk_fn``,
        ``_emit_pool_call``).

        When the loop's work is known per iteration, a runtime test ``extent * work <
        PARALLEL_MIN_WORK`` (or a single-thread build) calls the outlined body on this thread
        for the whole range instead."""
        k = self.n_parallel
        self.n_parallel += 1
        fv = FreeVars()
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
        closure = _Closure([v.type for v in vals], idx_t)
        body_fn = self._outline_body(s, k, free, vals, idx_t)
        chunk_fn = self._emit_chunk_fn(k, body_fn, vals, closure, idx_t)
        self.ctx = parent
        self._emit_pool_call(s, k, body_fn, chunk_fn, vals, lo, ext, closure)

    def _outline_body(self, s, k, free, vals, idx_t) -> ir.Function:
        """``i32 <name>_par<k>_body(free..., begin, end)``: the loop over ``[begin, end)``.
        Leaves ``self.ctx`` on the new function."""
        n_free = len(vals)
        body_fn = ir.Function(self.module, ir.FunctionType(I32, [v.type for v in vals] +
                                                           [idx_t, idx_t]),
                              name=f"{self.name}_par{k}_body")
        body_fn.linkage = "internal"
        body_fn.attributes.add("nounwind")
        ctx = self.new_ctx(body_fn, in_parallel=True)
        for v, a in zip(free, body_fn.args):
            a.name = ident(v.name)
            if isinstance(a.type, ir.PointerType):
                a.add_attribute("noalias")
            ctx.vars[v] = a
        self.ctx = ctx
        self.emit_loop(s.loop_var, body_fn.args[n_free], body_fn.args[n_free + 1], s.body)
        if not self.b.block.is_terminated:
            self.b.ret(I32(0))
        return body_fn

    def _emit_chunk_fn(self, k, body_fn, vals, closure, idx_t) -> ir.Function:
        """``i32 <name>_par<k>(ptr closure, i64 c)``: chunk ``c`` of the closure's ``n``, the
        iterations ``[lo + ext*c/n, lo + ext*(c+1)/n)``. Leaves ``self.ctx`` on it."""
        fn = ir.Function(self.module, ir.FunctionType(I32, [PTR, I64]),
                         name=f"{self.name}_par{k}")
        fn.linkage = "internal"
        fn.attributes.add("nounwind")
        self.ctx = self.new_ctx(fn, in_parallel=True)
        b = self.b
        cl, c = fn.args
        loaded = [b.load(closure.field(b, cl, j), typ=v.type) for j, v in enumerate(vals)]
        lo = b.load(closure.field(b, cl, closure.lo), typ=idx_t)
        ext = b.load(closure.field(b, cl, closure.ext), typ=idx_t)
        n = b.load(closure.field(b, cl, closure.n), typ=I64)
        begin = self.chunk_bound(b, ext, c, n)
        end = self.chunk_bound(b, ext, b.add(c, I64(1)), n)
        st = b.call(body_fn, loaded + [b.add(lo, begin, flags=("nsw",)),
                                       b.add(lo, end, flags=("nsw",))])
        b.ret(st)
        return fn

    def _emit_pool_call(self, s, k, body_fn, chunk_fn, vals, lo, ext, closure):
        """In the calling function: the serial shortcut (when the work is known, or no pool
        is attached), else the closure and ``tepad_pool_run``, and a return of the failure
        status if any."""
        parent = self.ctx
        idx_t = ext.type
        clos = self.entry_alloca(closure.type, name=f"par{k}.closure")
        b = self.b
        hook = self.pool_hook()
        fty = ir.FunctionType(I32, [PTR, PTR, I64, I32])
        run = b.load(hook, typ=fty.as_pointer())   # (a typed pointer: calls read its pointee)
        no_pool = b.icmp_unsigned("==", run, ir.Constant(fty.as_pointer(), None))
        per_iter = static_work(s.body)
        if self.num_threads <= 1:
            small = ir.Constant(I1, 1)
        elif per_iter is not None:
            ext64 = self.to_i64(b, ext, s.loop_var.dtype)
            work = b.mul(ext64, I64(max(1, per_iter)))
            small = b.or_(b.icmp_signed("<", work, I64(PARALLEL_MIN_WORK)), no_pool)
        else:
            small = no_pool
        ser_bb = parent.fn.append_basic_block(f"par{k}.serial")
        pool_bb = parent.fn.append_basic_block(f"par{k}.pool")
        join_bb = parent.fn.append_basic_block(f"par{k}.join")
        b.cbranch(small, ser_bb, pool_bb)
        b.position_at_end(ser_bb)
        st = b.call(body_fn, vals + [lo, b.add(lo, ext, flags=("nsw",))])
        sfail_bb = parent.fn.append_basic_block(f"par{k}.serial.fail")
        b.cbranch(b.icmp_signed("!=", st, I32(0)), sfail_bb, join_bb)
        b.position_at_end(sfail_bb)
        self.emit_return_status(st)

        b.position_at_end(pool_bb)
        for j, v in enumerate(vals):
            b.store(v, closure.field(b, clos, j))
        b.store(lo, closure.field(b, clos, closure.lo))
        b.store(ext, closure.field(b, clos, closure.ext))
        ext64 = self.to_i64(b, ext, s.loop_var.dtype)
        ext64 = b.select(b.icmp_signed("<", ext64, I64(0)), I64(0), ext64)
        most = I64(max(1, self.num_threads) * CHUNKS_PER_THREAD)
        n = b.select(b.icmp_signed("<", ext64, most), ext64, most)
        b.store(n, closure.field(b, clos, closure.n))
        st = b.call(run, [chunk_fn, clos, n, I32(max(0, self.num_threads - 1))])
        self.emit_status_check(st, f"par{k}")
        b.branch(join_bb)
        b.position_at_end(join_bb)

    def pool_hook(self) -> ir.GlobalVariable:
        """The module's ``tepad_parallel_hook``: the pool's run function, or null until a
        Module attaches the kernel to the pool (``pool.attach``)."""
        g = self.module.globals.get(POOL_HOOK_SYMBOL)
        if g is None:
            g = ir.GlobalVariable(self.module, PTR, POOL_HOOK_SYMBOL)
            g.initializer = ir.Constant(PTR, None)
            g.align = 8
        return g

    @staticmethod
    def to_i64(b, v, dtype):
        if v.type.width == 64:
            return v
        return b.zext(v, I64) if is_unsigned(dtype) else b.sext(v, I64)

    @staticmethod
    def chunk_bound(b, ext, c, n):
        """``ext * c // n`` in the type of ``ext`` (``c``, ``n``: i64), computed in 64 bits so
        a 32-bit extent cannot overflow."""
        t = ext.type
        e64 = ext if t.width == 64 else b.sext(ext, I64)
        v = b.sdiv(b.mul(e64, c), n)
        return v if t.width == 64 else b.trunc(v, t)
