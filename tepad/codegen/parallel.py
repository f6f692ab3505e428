"""Parallel loops: outlined into functions and run by libgomp's team, with per-thread static
blocks whose grains idle threads steal (the default thread count: ``threads``).

``for i in [lo, lo + ext) parallel: body`` becomes

* ``<name>_par<k>_body(free..., begin, end) -> i32``: the serial loop over ``[begin, end)``,
  the body's free variables passed as (``noalias``) parameters;
* ``<name>_par<k>(closure)``: the trampoline each team thread runs (``emit_block_claims``);
* in the caller: the closure filled on the stack, ``GOMP_parallel``, and the status read
  back. When the work is known per iteration, a run-time test sends small loops straight to
  the body function on the calling thread.

The iteration range is cut statically into one contiguous block per thread; thread ``t``
works through block ``t`` in ``CHUNKS_PER_THREAD`` grains claimed from that block's atomic
counter, then steals grains from the other blocks' counters. On a quiet machine every thread
runs its own block (the same rows land in the same core's cache on every call, as with TVM's
static split); a thread that starts late or runs slowly leaves the rest of its block to the
others instead of holding them up at the end of the region.
"""
from __future__ import annotations

import llvmlite.ir as ir

from ..errors import InternalError
from ..tir.free_vars import FreeVars
from .analysis import static_work
from .lltypes import I1, I32, I64, PTR, VOID, ident, is_unsigned, ll_type

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
# Read at emission time, so tests may patch it on this module.
PARALLEL_MIN_WORK = 1 << 15


class _Closure:
    """Layout of the struct a parallel region's caller fills for the team: the free values,
    a status word, ``lo``, ``extent``, then one claim counter per block (each on its own
    cache line)."""

    def __init__(self, free_types: list, idx_t: ir.IntType, n_blocks: int):
        self.n_free = len(free_types)
        self.status = self.n_free
        self.lo = self.n_free + 1
        self.ext = self.n_free + 2
        self.counters = self.n_free + 3
        self.stride = max(1, _COUNTER_STRIDE_BYTES // (idx_t.width // 8))
        self.type = ir.LiteralStructType(list(free_types) + [
            I32, idx_t, idx_t, ir.ArrayType(idx_t, n_blocks * self.stride)])

    def field(self, b: ir.IRBuilder, ptr, j: int):
        """Address of field ``j`` of the closure at ``ptr``."""
        return b.gep(ptr, [I32(0), I32(j)], inbounds=True, source_etype=self.type)

    def counter(self, b: ir.IRBuilder, ptr, blk):
        """Address of block ``blk``'s claim counter in the closure at ``ptr``."""
        counters = self.field(b, ptr, self.counters)
        return b.gep(counters, [I32(0), b.mul(blk, I32(self.stride))], inbounds=True,
                     source_etype=self.type.elements[self.counters])


class ParallelEmitter:
    """``emit_parallel_for``: a ``For`` of kind PARALLEL run by libgomp (see the module doc)."""

    def emit_parallel_for(self, s):
        """Outline ``s`` and run it with GOMP_parallel: a static block per thread, grains of
        unfinished blocks stolen by idle threads (``emit_block_claims``).

        When the loop's work is known per iteration, a runtime test ``extent * work <
        PARALLEL_MIN_WORK`` (or a single-thread build) calls the outlined body on this thread
        for the whole range instead of starting the team."""
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
        n_blocks = max(1, self.num_threads)
        closure = _Closure([v.type for v in vals], idx_t, n_blocks)
        body_fn = self._outline_body(s, k, free, vals, idx_t)
        tramp = self._emit_trampoline(k, body_fn, vals, closure, idx_t, n_blocks)
        self.ctx = parent
        self._emit_team_call(s, k, body_fn, tramp, vals, lo, ext, closure, n_blocks)

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

    def _emit_trampoline(self, k, body_fn, vals, closure, idx_t, n_blocks) -> ir.Function:
        """``void <name>_par<k>(ptr closure)``, run by every team thread: unpack the closure,
        then claim and run grains. Leaves ``self.ctx`` on the new function."""
        tramp = ir.Function(self.module, ir.FunctionType(VOID, [PTR]),
                            name=f"{self.name}_par{k}")
        tramp.linkage = "internal"
        tramp.attributes.add("nounwind")
        self.ctx = self.new_ctx(tramp, in_parallel=True)
        b = self.b
        cl = tramp.args[0]
        loaded = [b.load(closure.field(b, cl, j), typ=v.type) for j, v in enumerate(vals)]
        t_lo = b.load(closure.field(b, cl, closure.lo), typ=idx_t)
        t_ext = b.load(closure.field(b, cl, closure.ext), typ=idx_t)
        self.emit_block_claims(b, tramp, t_ext, n_blocks,
                               status=closure.field(b, cl, closure.status),
                               counter=lambda blk: closure.counter(b, cl, blk),
                               run=lambda s0, s1: b.call(body_fn, loaded + [
                                   b.add(t_lo, s0, flags=("nsw",)),
                                   b.add(t_lo, s1, flags=("nsw",))]))
        return tramp

    def _emit_team_call(self, s, k, body_fn, tramp, vals, lo, ext, closure, n_blocks):
        """In the calling function: the serial shortcut (when the work is known), then the
        closure, ``GOMP_parallel``, and a return of the team's failure status if any."""
        parent = self.ctx
        idx_t = ext.type
        clos = self.entry_alloca(closure.type, name=f"par{k}.closure")
        b = self.b
        per_iter = static_work(s.body)
        join_bb = None
        if per_iter is not None or self.num_threads <= 1:
            if self.num_threads <= 1:
                small = ir.Constant(I1, 1)
            else:
                ext64 = ext if idx_t.width == 64 else (
                    b.zext(ext, I64) if is_unsigned(s.loop_var.dtype) else b.sext(ext, I64))
                work = b.mul(ext64, I64(max(1, per_iter)))
                small = b.icmp_signed("<", work, I64(PARALLEL_MIN_WORK))
            ser_bb = parent.fn.append_basic_block(f"par{k}.serial")
            team_bb = parent.fn.append_basic_block(f"par{k}.team")
            join_bb = parent.fn.append_basic_block(f"par{k}.join")
            b.cbranch(small, ser_bb, team_bb)
            b.position_at_end(ser_bb)
            st = b.call(body_fn, vals + [lo, b.add(lo, ext, flags=("nsw",))])
            sfail_bb = parent.fn.append_basic_block(f"par{k}.serial.fail")
            b.cbranch(b.icmp_signed("!=", st, I32(0)), sfail_bb, join_bb)
            b.position_at_end(sfail_bb)
            self.emit_return_status(st)
            b.position_at_end(team_bb)

        for j, v in enumerate(vals):
            b.store(v, closure.field(b, clos, j))
        b.store(I32(0), closure.field(b, clos, closure.status))
        b.store(lo, closure.field(b, clos, closure.lo))
        b.store(ext, closure.field(b, clos, closure.ext))
        for blk in range(n_blocks):     # block blk starts at ext * blk / n_blocks
            begin = self.block_bound(b, ext, blk, n_blocks)
            b.store(begin, closure.counter(b, clos, I32(blk)))
        gomp = self.declare("GOMP_parallel", VOID, [PTR, PTR, I32, I32])
        b.call(gomp, [tramp, clos, I32(self.num_threads), I32(0)])
        st = b.load(closure.field(b, clos, closure.status), typ=I32)
        self.emit_status_check(st, f"par{k}")
        if join_bb is not None:
            b.branch(join_bb)
            b.position_at_end(join_bb)

    @staticmethod
    def block_bound(b, ext, blk, n_blocks):
        """``ext * blk // n_blocks``: where static block ``blk`` starts (``blk == n_blocks``
        gives ``ext``). Computed in 64 bits, so a 32-bit extent cannot overflow."""
        t = ext.type
        e64 = ext if t.width == 64 else b.sext(ext, I64)
        k64 = I64(blk) if isinstance(blk, int) else b.zext(blk, I64)
        v = b.sdiv(b.mul(e64, k64), I64(n_blocks))
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
        tid = b.call(self.declare("omp_get_thread_num", I32, []), [])
        tid = b.urem(tid, I32(n_blocks))
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
        r = b.phi(I32, name="visited")
        r.add_incoming(I32(0), entry)
        blk = b.urem(b.add(tid, r), I32(n_blocks))
        end = self.block_bound(b, ext, b.add(blk, I32(1)), n_blocks)
        cptr = counter(blk)
        b.branch(peek_bb)

        # a plain look before the atomic add: an exhausted block costs no contended write
        b.position_at_end(peek_bb)
        failed = b.load_atomic(status, "monotonic", 4, typ=I32)
        seen = b.load_atomic(cptr, "monotonic", idx_t.width // 8, typ=idx_t)
        go = b.and_(b.icmp_signed("==", failed, I32(0)), b.icmp_signed("<", seen, end))
        b.cbranch(go, claim_bb, next_bb)

        b.position_at_end(claim_bb)
        start = b.atomic_rmw("add", cptr, grain, "monotonic")
        b.cbranch(b.icmp_signed("<", start, end), run_bb, next_bb)

        b.position_at_end(run_bb)
        stop = b.add(start, grain)
        stop = b.select(b.icmp_signed("<", stop, end), stop, end)
        st = run(start, stop)
        b.cbranch(b.icmp_signed("!=", st, I32(0)), fail_bb, peek_bb)

        b.position_at_end(next_bb)
        r_next = b.add(r, I32(1))
        r.add_incoming(r_next, next_bb)
        b.cbranch(b.icmp_unsigned("<", r_next, I32(n_blocks)), head_bb, done_bb)

        b.position_at_end(fail_bb)
        # (IRBuilder.store_atomic insists on typed pointers; build the instruction directly)
        b._insert(ir.instructions.StoreAtomicInstr(b.block, st, status, "monotonic", 4))
        b.branch(done_bb)

        b.position_at_end(done_bb)
        b.ret_void()
