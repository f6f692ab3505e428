"""TVM's tensor-core intrinsics on 16 x 16 fragments, checked, and as plain loops for the emulator.

The intrinsics (as TVM's tensorize declarations emit them, ``frag`` the data var of an
allocation in a ``wmma.*`` scope, ``index`` which 256-element fragment of it):

* ``tvm_fill_fragment(frag, 16, 16, 16, index, value)``: every element ``value``;
* ``tvm_load_matrix_sync(frag, 16, 16, 16, index, ptr, stride, layout)``: element
  ``(r, c)`` of the fragment is ``ptr[r * stride + c]`` (``"row_major"``) or
  ``ptr[c * stride + r]`` (``"col_major"``), ``ptr`` a ``tvm_access_ptr``;
* ``tvm_mma_sync(d, di, a, ai, b, bi, c, ci)``: ``D = A @ B + C`` (A 16 x 16 of
  ``wmma.matrix_a``, B of ``wmma.matrix_b``, C and D of ``wmma.accumulator``);
* ``tvm_store_matrix_sync(frag, 16, 16, 16, index, ptr, stride, layout)``: the reverse
  of the load.

A fragment's elements are kept row by row (``index * 256 + r * 16 + c``). On the GPU the 32
lanes of a warp hold one fragment together; ``wmma_for_emulator`` has one thread compute the
whole fragment in its own (``local``) copy, which gives what the warp computes. Which thread:
when the fragments are touched only by the intrinsics and no intrinsic call of the function
depends on ``threadIdx.x`` (so all lanes of a warp make the same calls), each loop nest is marked
``AttrStmt(WARP_COLLECTIVE)`` and ``emulate_gpu_threads`` runs it on the first lane of each
warp only (where ``threadIdx.x``'s extent is a multiple of 32, so a warp is 32 values of
``threadIdx.x``); otherwise every thread computes it and every lane stores the same values.
``mma_sync`` runs ``i, k, j`` with ``j`` innermost (each element still sums over ``k`` in
order), so the emulator's vector code takes whole fragment rows. Shapes other than
16 x 16 x 16 and unknown layouts are TepadErrors naming the kernel function.
"""
from __future__ import annotations

from ...errors import TepadError
from ...tir.buffer import Buffer
from ...tir.expr import BufferLoad, IntImm, Var, add, cast, mul
from ...tir.function import PrimFunc
from ...tir.functor import Mutator, Visitor, post_order_visit, uses_var
from ...tir.stmt import Allocate, AttrStmt, BufferStore, For, ForKind, seq
from ...tir.wmma import (FRAGMENT, FRAGMENT_SIZE, WMMA_CALLS, check_wmma_call,
                         is_wmma_call, wmma_op)

def fragment_dtypes(body) -> dict:
    """``{data var: (dtype, scope)}`` of the ``wmma.*`` allocations in ``body``."""
    out = {}

    def f(n):
        if isinstance(n, Allocate):
            scope = n.annotations.get("scope", "")
            if isinstance(scope, str) and scope.startswith("wmma."):
                out[n.buffer_var] = (n.dtype, scope)
    post_order_visit(body, f)
    return out


#: attribute key around a fragment's loop nest that one lane of each warp may run for the warp
WARP_COLLECTIVE = "tepad.emulator_warp_collective"


class _FragmentsElsewhere(Visitor):
    """Whether a fragment's data var is used other than as a wmma call's fragment argument."""

    def __init__(self, frags):
        self.frags = frags
        self.found = False

    def visit_Call(self, e):
        if not is_wmma_call(e):
            self.generic_visit(e)

    def visit_Var(self, v):
        if v in self.frags:
            self.found = True

    def visit_Allocate(self, s):
        self.visit(s.extents)
        self.visit(s.condition)
        self.visit(s.body)

    def visit_BufferLoad(self, e):
        self.found = self.found or e.buffer.data in self.frags
        self.visit(e.indices)

    def visit_BufferStore(self, s):
        self.found = self.found or s.buffer.data in self.frags
        self.visit(s.value)
        self.visit(s.indices)


def _thread_x_vars(body) -> set:
    out = set()

    def f(n):
        if isinstance(n, AttrStmt) and n.attr_key == "thread_extent" and \
                getattr(n.node, "thread_tag", "") == "threadIdx.x":
            out.add(n.node.var)
    post_order_visit(body, f)
    return out


class _Loops(Mutator):
    def __init__(self, name, frags, lane_vars=None):
        self.name = name
        self.frags = frags
        self.bufs = {}
        self.count = 0
        # threadIdx.x vars when one lane per warp may run the intrinsics, else None
        self.lane_vars = lane_vars

    def _frag_buf(self, var):
        if var not in self.frags:
            raise TepadError(f"function {self.name}: {var.name} is used as a tensor-core "
                             "fragment but is not allocated in a wmma.* scope")
        return self._buf(var, self.frags[var][0])

    def _buf(self, var, dtype):
        key = (var, dtype)
        if key not in self.bufs:
            self.bufs[key] = Buffer((1,), dtype, var.name, data=var)
        return self.bufs[key]

    def _vars(self, *names):
        self.count += 1
        return [Var(f"{n}_{self.count}", "int32") for n in names]

    @staticmethod
    def _loop(v, body):
        return For(v, IntImm("int32", 0), IntImm("int32", FRAGMENT), ForKind.SERIAL, body)

    @staticmethod
    def _at(index, r, c):
        return add(mul(index, FRAGMENT_SIZE), add(mul(r, FRAGMENT), c))

    def visit_Evaluate(self, s):
        e = s.value
        if not is_wmma_call(e):
            return self.generic_visit(s)
        check_wmma_call(e, f"function {self.name}")
        nest = self._nest(e)
        if self.lane_vars is not None:
            return AttrStmt(IntImm("int32", 0), WARP_COLLECTIVE, IntImm("int32", 1), nest)
        return nest

    def _nest(self, e):
        op, a = wmma_op(e), e.args
        if op == "tir.tvm_fill_fragment":
            frag = self._frag_buf(a[0])
            r, c = self._vars("r", "c")
            value = a[5] if a[5].dtype == frag.dtype else cast(frag.dtype, a[5])
            return self._loop(r, self._loop(c, BufferStore(frag, value,
                                                           [self._at(a[4], r, c)])))
        if op == "tir.tvm_mma_sync":
            d, a_, b, c_ = (self._frag_buf(a[k]) for k in (0, 2, 4, 6))
            di, ai, bi, ci = a[1], a[3], a[5], a[7]
            i, j, k, i2, j2 = self._vars("i", "j", "k", "i", "j")
            init = BufferStore(d, BufferLoad(c_, [self._at(ci, i2, j2)]), [self._at(di, i2, j2)])
            dij = [self._at(di, i, j)]
            prod = mul(cast(d.dtype, BufferLoad(a_, [self._at(ai, i, k)])),
                       cast(d.dtype, BufferLoad(b, [self._at(bi, k, j)])))
            acc = BufferStore(d, add(BufferLoad(d, dij), prod), dij)
            return seq(self._loop(i2, self._loop(j2, init)),
                       self._loop(i, self._loop(k, self._loop(j, acc))))
        frag = self._frag_buf(a[0])
        ptr = a[5]
        mem = self._buf(ptr.args[1], ptr.args[0].dtype)
        r, c = self._vars("r", "c")
        stride = a[6]
        row_major = a[7].value == "row_major"
        off = add(ptr.args[2], add(mul(r, stride), c) if row_major else add(mul(c, stride), r))
        at = [self._at(a[4], r, c)]
        if op == "tir.tvm_load_matrix_sync":
            st = BufferStore(frag, BufferLoad(mem, [off]), at)
        else:
            st = BufferStore(mem, BufferLoad(frag, at), [off])
        return self._loop(r, self._loop(c, st))


def wmma_for_emulator(func: PrimFunc) -> PrimFunc:
    """``func`` with every tensor-core intrinsic call a loop nest over its 16 x 16 fragment(s)
    (module doc); ``func`` itself when it makes none."""
    found = []
    post_order_visit(func.body, lambda n: found.append(n) if is_wmma_call(n) else None)
    if not found:
        return func
    frags = fragment_dtypes(func.body)
    elsewhere = _FragmentsElsewhere(frags)
    elsewhere.visit(func.body)
    lanes = None if elsewhere.found else _thread_x_vars(func.body)
    if lanes and any(uses_var(e, lanes) for e in found):
        lanes = None        # the lanes' calls differ: each lane computes its own
    body = _Loops(func.name, frags, lanes).visit(func.body)
    return func.with_body(body)


__all__ = ["wmma_for_emulator", "WARP_COLLECTIVE", "check_wmma_call", "fragment_dtypes", "is_wmma_call",
           "WMMA_CALLS", "FRAGMENT", "FRAGMENT_SIZE"]
