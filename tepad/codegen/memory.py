"""Buffer access: loads (masked and gathered), stores (scattered), and ``Allocate`` on the
stack or the heap."""
from __future__ import annotations

import llvmlite.ir as ir

from ..errors import InternalError
from .. import tir
from ..tir import dtype as dt
from .analysis import is_contiguous, reduction_update
from .lltypes import I1, I8, I16, I32, I64, PTR, VOID, ident, is_bf16, ll_type, retype, splat

# Constant-size allocations up to this many bytes live on the stack (entry-block alloca).
STACK_ALLOC_LIMIT = 64 * 1024
ALLOC_ALIGN = 64


class MemoryEmitter:
    """``BufferLoad`` / ``BufferStore`` of flattened (1-index) buffers and ``Allocate``.

    Under a lane mask (``ctx.mask``, set by a vector ``if_then_else`` or an ``if`` whose
    condition is a lane mask) loads and stores touch only the active lanes' addresses
    (``llvm.masked.load`` / ``llvm.masked.store`` when contiguous); masked-off lanes read as
    zero and write nothing.
    """

    def buffer_ptr(self, buf) -> ir.Value:
        """The base pointer of ``buf`` (an argument or an allocation in scope)."""
        p = self.ctx.vars.get(buf.data)
        if p is None:
            raise InternalError(
                f"codegen: buffer {buf.name} is neither an argument nor allocated in scope")
        return p

    # ------------------------------------------------------------------ loads
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
            return self.b.trunc(v, I1) if is_bool else self._from_memory(v, e.buffer.dtype)
        vt = ir.VectorType(elem_t, lanes)
        if is_contiguous(index):
            ptr = self.b.gep(base, [self.expr(index.base)], inbounds=True, source_etype=elem_t)
            if mask is None:
                v = self.b.load(ptr, typ=vt, align=self.vector_align(index, align))
            else:
                fn = self.intrinsic("llvm.masked.load", vt, [ptr.type, I32, mask.type, vt],
                                    [vt, ptr.type])
                v = self.b.call(fn, [ptr, I32(align), mask, ir.Constant(vt, None)])
        else:
            lane_ptr = self._lane_pointers(base, index, elem_t)
            v = ir.Constant(vt, ir.Undefined)
            for k in range(lanes):
                def load_lane(k=k):
                    return self.b.load(lane_ptr(k), typ=elem_t, align=align)
                x = load_lane() if mask is None else \
                    self.guarded(self.b.extract_element(mask, I32(k)), load_lane, elem_t)
                v = self.b.insert_element(v, x, I32(k))
        if is_bool:
            return self.b.icmp_unsigned("!=", v, ir.Constant(vt, None))
        return self._from_memory(v, e.buffer.dtype)

    def _lane_pointers(self, base, index, elem_t):
        """``k -> pointer`` to lane ``k`` of a gathered / scattered vector ``index``. A Ramp
        with a constant stride gives its base address plus the constant ``k * stride`` (no
        vector of indices to take apart lane by lane: the lanes' addresses fold into the
        loads' and stores' displacements); any other index, its lane ``k`` extracted."""
        if isinstance(index, tir.Ramp) and isinstance(index.stride, tir.IntImm):
            # not ``inbounds`` under a mask: lane 0's address may be outside the buffer while
            # the lanes read from it are not (an inbounds GEP there would poison them all)
            inb = self.ctx.mask is None
            first = self.b.gep(base, [self.expr(index.base)], inbounds=inb,
                               source_etype=elem_t)
            step = int(index.stride.value)
            return lambda k: first if k == 0 else self.b.gep(
                first, [I64(k * step)], inbounds=inb, source_etype=elem_t)
        idx = self.expr(index)
        return lambda k: self.b.gep(base, [self.b.extract_element(idx, I32(k))],
                                    inbounds=True, source_etype=elem_t)

    def _from_memory(self, v, dtype):
        """A loaded value as computed: bfloat16 bits widened to the float32 they stand for."""
        if not is_bf16(dtype):
            return v
        i32 = retype(v.type, I32)
        bits = self.b.shl(self.b.zext(v, i32), splat(i32, 16))
        return self.b.bitcast(bits, retype(v.type, ir.FloatType()))

    def _to_memory(self, v, dtype):
        """A value as stored: bfloat16 as the top 16 bits of its (rounded) float32."""
        if not is_bf16(dtype):
            return v
        bits = self.b.bitcast(self.round_bf16(v), retype(v.type, I32))
        return self.b.trunc(self.b.lshr(bits, splat(bits.type, 16)), retype(v.type, I16))

    def round_bf16(self, v):
        """Float32 ``v`` rounded to the nearest bfloat16 (ties to even), still a float32."""
        i32 = retype(v.type, I32)
        bits = self.b.bitcast(v, i32)
        odd = self.b.and_(self.b.lshr(bits, splat(i32, 16)), splat(i32, 1))
        bits = self.b.add(bits, self.b.add(odd, splat(i32, 0x7FFF)))
        bits = self.b.and_(bits, splat(i32, -65536))
        return self.b.bitcast(bits, v.type)

    def _scalar_load(self, base, index, elem_t, align):
        p = self.b.gep(base, [self.expr(index)], inbounds=True, source_etype=elem_t)
        return self.b.load(p, typ=elem_t, align=align)

    def vector_align(self, ramp, elem_align: int) -> int:
        """The alignment claimed for a contiguous vector access at ``ramp`` (a stride-1
        Ramp) of elements aligned to ``elem_align`` bytes: the element's on the CPU (a
        device emitter claims more where the index proves it)."""
        return elem_align

    def any_lane(self, mask):
        """i1: whether some lane of the vector ``mask`` is set."""
        fn = self.intrinsic("llvm.vector.reduce.or", I1, [mask.type], [mask.type])
        return self.b.call(fn, [mask])

    def guarded(self, cond, emit, typ):
        """``cond ? emit() : zero`` evaluating ``emit`` only when ``cond`` holds."""
        fn = self.ctx.fn
        pre = self.b.block
        then_bb = fn.append_basic_block("guard.then")
        end_bb = fn.append_basic_block("guard.end")
        self.b.cbranch(cond, then_bb, end_bb)
        self.b.position_at_end(then_bb)
        with self.expr_scope():
            v = emit()
        then_end = self.b.block
        self.b.branch(end_bb)
        self.b.position_at_end(end_bb)
        phi = self.b.phi(typ)
        phi.add_incoming(ir.Constant(typ, None), pre)
        phi.add_incoming(v, then_end)
        return phi

    # ------------------------------------------------------------------ stores
    def stmt_BufferStore(self, s):
        if len(s.indices) != 1:
            raise InternalError(f"codegen: BufferStore to {s.buffer.name} is not flattened")
        self.reduction_update = reduction_update(s)
        value = self.expr(s.value)
        self.reduction_update = None
        index = tir.convert(s.indices[0])
        lanes = dt.lanes(index.dtype)
        if lanes > 1 and not isinstance(value.type, ir.VectorType):
            value = self.broadcast(value, lanes)
        value = self._to_memory(value, s.buffer.dtype)
        base = self.buffer_ptr(s.buffer)
        elem_t = ll_type(s.buffer.dtype, memory=True)
        align = dt.parse(s.buffer.dtype).bytes
        is_bool = dt.is_bool(s.buffer.dtype)
        mask = self.ctx.mask
        if lanes == 1:
            if is_bool:
                value = self.b.zext(value, I8)

            def store():
                ptr = self.b.gep(base, [self.expr(index)], inbounds=True, source_etype=elem_t)
                self.b.store(value, ptr, align=align)
            self._when(None if mask is None else self.any_lane(mask), store)
            return
        if is_bool:
            value = self.b.zext(value, ir.VectorType(I8, lanes))
        if mask is not None and mask.type.count != lanes:
            raise InternalError(f"codegen: a {lanes}-lane store to {s.buffer.name} under a "
                                f"{mask.type.count}-lane mask")
        if is_contiguous(index):
            ptr = self.b.gep(base, [self.expr(index.base)], inbounds=True, source_etype=elem_t)
            if mask is None:
                self.b.store(value, ptr, align=self.vector_align(index, align))
            else:
                vt = value.type
                fn = self.intrinsic("llvm.masked.store", VOID, [vt, ptr.type, I32, mask.type],
                                    [vt, ptr.type])
                self.b.call(fn, [value, ptr, I32(align), mask])
            return
        lane_ptr = self._lane_pointers(base, index, elem_t)  # scatter, lane by lane
        for k in range(lanes):
            def store_lane(k=k):
                self.b.store(self.b.extract_element(value, I32(k)), lane_ptr(k), align=align)
            self._when(None if mask is None else self.b.extract_element(mask, I32(k)),
                       store_lane)

    def _when(self, cond, emit):
        """``emit()`` (a statement), only when the i1 ``cond`` holds (always when None)."""
        if cond is None:
            emit()
            return
        fn = self.ctx.fn
        then_bb = fn.append_basic_block("store.then")
        end_bb = fn.append_basic_block("store.end")
        self.b.cbranch(cond, then_bb, end_bb)
        self.b.position_at_end(then_bb)
        emit()
        self.b.branch(end_bb)
        self.b.position_at_end(end_bb)

    # ------------------------------------------------------------------ allocation
    def stmt_Allocate(self, s):
        """Constant sizes up to ``STACK_ALLOC_LIMIT`` bytes: an entry-block alloca. Otherwise
        ``aligned_alloc`` (an out-of-memory status when it fails), freed when the body ends
        and on every early return inside it."""
        elem_t = ll_type(s.dtype, memory=True)
        nbytes_each = dt.parse(s.dtype).bytes * dt.lanes(s.dtype)
        consts = [int(e.value) for e in s.extents if isinstance(e, tir.IntImm)]
        if len(consts) == len(s.extents):
            count = 1
            for c in consts:
                count *= c
            if count * nbytes_each <= STACK_ALLOC_LIMIT:
                a = self.entry_alloca(ir.ArrayType(elem_t, max(count, 1)), name=ident(s.buffer_var.name))
                a.align = ALLOC_ALIGN
                self.ctx.vars[s.buffer_var] = a
                self.stmt(s.body)
                return
        size = I64(nbytes_each)
        for e in s.extents:
            v = self.expr(e)
            v = self.b.sext(v, I64) if v.type.width < 64 else v
            size = self.b.mul(size, v, flags=("nsw",))
        # aligned_alloc wants a multiple of the alignment; never ask for 0 bytes
        size = self.b.add(size, I64(ALLOC_ALIGN), flags=("nsw",))
        size = self.b.and_(size, I64(-ALLOC_ALIGN))
        alloc = self.declare("aligned_alloc", PTR, [I64, I64])
        p = self.b.call(alloc, [I64(ALLOC_ALIGN), size], name=ident(s.buffer_var.name))
        code = self.status_code(f"out of memory allocating buffer {s.buffer_var.name}")
        fail = self.ctx.fn.append_basic_block("alloc.fail")
        ok = self.ctx.fn.append_basic_block("alloc.ok")
        self.b.cbranch(self.b.icmp_unsigned("==", p, ir.Constant(PTR, None)), fail, ok)
        self.b.position_at_end(fail)
        self.emit_return_status(I32(code))
        self.b.position_at_end(ok)
        self.ctx.vars[s.buffer_var] = p
        self.ctx.cleanups.append(p)
        self.stmt(s.body)
        self.ctx.cleanups.pop()
        if not self.b.block.is_terminated:
            self.b.call(self.declare("free", VOID, [PTR]), [p])
