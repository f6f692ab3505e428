"""lower_warp_memory: buffers of storage scope ``warp`` (TVM's LowerWarpMemory).

A ``warp`` allocation inside a kernel is one buffer per warp, distributed over the lanes of
``threadIdx.x``: with ``w`` the (constant) extent of ``threadIdx.x`` (at most the warp size,
dividing it) and ``m`` the coefficient of ``threadIdx.x`` in the stores' indices (the same
constant, at least 1, in every store), element ``i`` lives in lane ``(i // m) % w`` at local
position ``(i // (m * w)) * m + i % m``. So each lane holds ``ceil(size / (m * w)) * m``
elements in registers (the size rounded up to a multiple of ``m * w``, as TVM does):

* a store ``buf[m * threadIdx.x + rest]`` must write the storing lane's own element:
  ``rest`` does not read ``threadIdx.x`` and ``rest % (m * w) < m`` is provable; it becomes a
  store into the lane's ``local`` array;
* a load ``buf[i]`` reads local position ``p(i)``, which must not depend on ``threadIdx.x``
  (every lane reads the same register, then one lane's copy is taken); when the lane
  ``(i // m) % w`` is provably ``threadIdx.x`` it is a plain local load, otherwise
  ``tir.tvm_warp_shuffle(tvm_warp_activemask(), local[p], lane, w, warp_size)`` (CUDA's
  ``__shfl_sync``, ``shfl.sync.idx`` in PTX).

Anything else (a warp buffer allocated inside the ``threadIdx.x`` launch or with no
``threadIdx.x`` launch in it, a non-constant size or extent, vector or multi-index accesses,
the buffer's address taken, an index breaking the rules above) is a TepadError naming the
buffer. ``lower_warp_memory(func)`` is what the NVPTX code generator runs on each kernel.

``warp_memory_for_emulator(func)`` checks the same rules and rewrites a warp buffer into
what the shuffles compute for the CPU emulator: a ``shared`` buffer with one copy of the
whole buffer per warp row (per ``(threadIdx.z, threadIdx.y)``), indexed by the original index
plus that row's offset; barriers (``thread_sync``) then order every lane's stores before
the reads, which is the store-then-shuffle order of the real lowering.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...arith.analyzer import Analyzer
from ...errors import TepadError
from ...tir import dtype as dt
from ...tir.buffer import Buffer
from ...tir.expr import (BufferLoad, Call, IntImm, Range, Var, add, floordiv, floormod, mul,
                         sub)
from ...tir.function import PrimFunc
from ...tir.functor import Mutator, Visitor, collect_vars, substitute, uses_var
from ...tir.stmt import Allocate, AttrStmt, BufferStore
from ...tir.storage_scope import storage_rank
from ..gpu_kernel import kernel_launches
from ...tir.launch import is_launch, launch_tag, launch_var
from ...tir.transform import register_pass

WARP_SIZE = 32


@dataclass(frozen=True)
class WarpPlan:
    """How warp buffer ``name`` is spread: ``width`` lanes (``threadIdx.x`` extent), ``coeff``
    consecutive elements per lane and group, ``size`` elements in all (rounded up to a multiple
    of ``coeff * width``), ``local_size`` of them per lane."""
    name: str
    width: int
    coeff: int
    size: int
    local_size: int


def _int(e):
    return int(e.value) if isinstance(e, IntImm) else None


def _err(name, what):
    return TepadError(f"warp memory {name}: {what}")


class _Stores(Visitor):
    """``[(index, threadIdx.x var or None)]`` of the stores to ``data``; the extents of the
    ``threadIdx.x`` launches met."""

    def __init__(self, data, name):
        self.data, self.name = data, name
        self.tx = None
        self.stores, self.widths = [], []

    def visit_AttrStmt(self, s):
        if is_launch(s) and launch_tag(s) == "threadIdx.x":
            self.widths.append(s.value)
            old, self.tx = self.tx, launch_var(s)
            self.generic_visit(s)
            self.tx = old
            return
        self.generic_visit(s)

    def visit_BufferStore(self, s):
        if s.buffer.data is self.data:
            if len(s.indices) != 1 or dt.lanes(s.indices[0].dtype) != 1 \
                    or dt.lanes(s.value.dtype) != 1:
                raise _err(self.name, f"store {s.buffer.name}{list(s.indices)} is not a scalar "
                           "store at one flat index; warp memory is accessed one element at a "
                           "time (do not vectorize the stage)")
            self.stores.append((s.indices[0], self.tx))
        self.generic_visit(s)


def plan_warp_allocation(alloc: Allocate, warp_size: int = WARP_SIZE) -> WarpPlan:
    """The WarpPlan of the ``warp`` Allocate ``alloc`` (its body holding the ``threadIdx.x``
    launches), or a TepadError naming the buffer and the rule broken (see the module doc)."""
    name = alloc.buffer_var.name
    size = 1
    for e in alloc.extents:
        if _int(e) is None:
            raise _err(name, f"size {list(alloc.extents)} is not constant; a warp buffer lives "
                       "in registers, whose number is fixed when compiling")
        size *= _int(e)
    size *= dt.lanes(alloc.dtype)
    v = _Stores(alloc.buffer_var, name)
    v.visit(alloc.body)
    if not v.widths:
        raise _err(name, "no threadIdx.x launch inside its allocation; a warp buffer is "
                   "spread over the lanes threadIdx.x, so compute_at it above the loop bound "
                   "to threadIdx.x (as s[AA].compute_at(s[B], xo))")
    ws = {_int(w) for w in v.widths}
    if len(ws) != 1 or None in ws:
        raise _err(name, f"threadIdx.x extents {[str(w) for w in v.widths]}; one constant "
                   "extent is needed")
    width = ws.pop()
    if not (0 < width <= warp_size and warp_size % width == 0):
        raise _err(name, f"threadIdx.x extent {width} must divide the warp size {warp_size}")
    if not v.stores:
        raise _err(name, "is never stored; nothing to distribute over the lanes")
    coeffs = set()
    for idx, tx in v.stores:
        if tx is None or not uses_var(idx, {tx}):
            raise _err(name, f"store at index {idx} does not depend on threadIdx.x; each lane "
                       "stores its own elements (bind the stage's inner axis to threadIdx.x)")
        c = Analyzer().simplify(sub(substitute(idx, {tx: 1}), substitute(idx, {tx: 0})))
        if _int(c) is None or _int(c) < 1:
            raise _err(name, f"store index {idx} is not threadIdx.x times a positive constant "
                       "plus an offset; only such stores can be spread over the lanes")
        coeffs.add(_int(c))
    if len(coeffs) != 1:
        raise _err(name, f"stores use different multiples of threadIdx.x {sorted(coeffs)}; "
                   "all must use one")
    coeff = coeffs.pop()
    group = coeff * width
    size = -(-size // group) * group
    return WarpPlan(name, width, coeff, size, size // width)


class _Accesses(Mutator):
    """Rewrites the accesses of one warp allocation (``emulate``: the shared form)."""

    def __init__(self, alloc, plan, new_buf_of, emulate, rows, row_vars):
        self.data = alloc.buffer_var
        self.plan = plan
        self.new_buf_of = new_buf_of
        self.emulate = emulate
        self.rows = rows            # ((tag, extent), ...) of threadIdx.z / y, outer first
        self.ana = Analyzer()
        self.tx = None
        self.row_vars = dict(row_vars)      # tag -> var of the enclosing threadIdx.y / z

    def visit(self, node):
        if isinstance(node, Var) and node is self.data:
            raise _err(self.plan.name, "its address is used (a call or pointer argument); "
                       "a warp buffer is registers and has no address")
        return super().visit(node)

    def visit_For(self, s):
        with self.ana.bind_scope(s.loop_var, Range(s.min, add(s.min, s.extent))):
            return self.generic_visit(s)

    def visit_AttrStmt(self, s):
        if not is_launch(s):
            return self.generic_visit(s)
        tag, var = launch_tag(s), launch_var(s)
        old_tx, old_rows = self.tx, dict(self.row_vars)
        if tag == "threadIdx.x":
            self.tx = var
        elif tag.startswith("threadIdx"):
            self.row_vars[tag] = var
        try:
            with self.ana.bind_scope(var, Range(0, s.value)):
                return self.generic_visit(s)
        finally:
            self.tx, self.row_vars = old_tx, old_rows

    # --------------------------------------------------------------- index arithmetic
    def _split(self, idx):
        """``(lane, local position)`` of flat index ``idx``, simplified."""
        p, s = self.plan, self.ana.simplify
        lane = s(floormod(floordiv(idx, p.coeff), p.width))
        local = s(add(mul(floordiv(idx, p.coeff * p.width), p.coeff), floormod(idx, p.coeff)))
        return lane, local

    def _row_offset(self, what):
        off = None
        for tag, ext in self.rows:
            var = self.row_vars.get(tag)
            if var is None:
                raise _err(self.plan.name, f"{what} is outside the {tag} launch; the emulator "
                           "keeps one copy per warp row and needs the row of every access")
            off = var if off is None else add(mul(off, ext), var)
        return IntImm("int32", 0) if off is None else mul(off, self.plan.size)

    def visit_BufferStore(self, s):
        if s.buffer.data is not self.data:
            return self.generic_visit(s)
        value = self.visit(s.value)
        idx = self.visit(s.indices[0])
        p, tx = self.plan, self.tx
        rest = self.ana.simplify(sub(idx, mul(tx, p.coeff)))
        group = p.coeff * p.width
        if uses_var(rest, {tx}) or not self.ana.can_prove(floormod(rest, group) < p.coeff):
            raise _err(p.name, f"store at index {idx} may write another lane's element "
                       f"(lane (index // {p.coeff}) % {p.width} must be threadIdx.x); a lane "
                       "can only write its own registers")
        buf = self.new_buf_of(s.buffer)
        if self.emulate:
            return BufferStore(buf, value, [add(idx, self._row_offset(f"store at {idx}"))])
        local = self.ana.simplify(add(mul(floordiv(rest, group), p.coeff),
                                      floormod(rest, p.coeff)))
        return BufferStore(buf, value, [local])

    def visit_BufferLoad(self, e):
        if e.buffer.data is not self.data:
            return self.generic_visit(e)
        p = self.plan
        if len(e.indices) != 1 or dt.lanes(e.indices[0].dtype) != 1:
            raise _err(p.name, f"load {e.buffer.name}{list(e.indices)} is not a scalar load at "
                       "one flat index; warp memory is read one element at a time")
        idx = self.visit(e.indices[0])
        lane, local = self._split(idx)
        if self.tx is not None and uses_var(local, {self.tx}):
            raise _err(p.name, f"load at index {idx} reads register {local} of its lane, which "
                       "differs between the lanes; a shuffle reads one register of every lane "
                       f"(the index's position within its group of {p.coeff * p.width} "
                       "may vary with threadIdx.x, its group may not)")
        buf = self.new_buf_of(e.buffer)
        if self.emulate:
            return BufferLoad(buf, [add(idx, self._row_offset(f"load at {idx}"))])
        own = BufferLoad(buf, [local])
        if self.tx is not None and self.ana.can_prove_equal(lane, self.tx):
            return own
        mask = Call("uint32", "tir.tvm_warp_activemask", [])
        return Call(e.dtype, "tir.tvm_warp_shuffle",
                    [mask, own, lane, IntImm("int32", p.width), IntImm("int32", WARP_SIZE)])


class _Kernels(Mutator):
    def __init__(self, emulate, warp_size):
        self.emulate = emulate
        self.warp_size = warp_size
        self.kernel = None
        self.launched = {}

    def visit_AttrStmt(self, s):
        if not is_launch(s):
            return self.generic_visit(s)
        tag = launch_tag(s)
        outer = self.kernel is None
        if outer:
            self.kernel = s
        old = dict(self.launched)
        self.launched[tag] = launch_var(s)
        try:
            return self.generic_visit(s)
        finally:
            self.launched = old
            if outer:
                self.kernel = None

    def visit_Allocate(self, s):
        if storage_rank(s.annotations.get("scope", "")) != "warp":
            return self.generic_visit(s)
        name = s.buffer_var.name
        if self.kernel is None:
            raise _err(name, "is allocated outside every kernel; a warp buffer belongs to the "
                       "threads of a warp, inside a launch")
        if "threadIdx.x" in self.launched:
            raise _err(name, "is allocated inside the threadIdx.x launch, so each lane would "
                       "have its own; attach the stage above the loop bound to threadIdx.x")
        plan = plan_warp_allocation(s, self.warp_size)
        rows = []
        if self.emulate:
            exts = {}
            for a in kernel_launches(self.kernel):
                if launch_tag(a) in ("threadIdx.y", "threadIdx.z"):
                    exts[launch_tag(a)] = a.value
            rows = [(t, exts[t]) for t in ("threadIdx.z", "threadIdx.y") if t in exts]
            copies = 1
            for _, e in rows:
                if _int(e) is None:
                    raise _err(name, f"the kernel's thread extent {e} is not constant")
                copies *= _int(e)
            scope, extent = "shared", plan.size * copies
        else:
            scope, extent = "local", plan.local_size
        memo = {}

        def new_buf_of(buf: Buffer) -> Buffer:
            nb = memo.get(buf)
            if nb is None:
                nb = memo[buf] = Buffer((extent,), buf.dtype, buf.name, data=buf.data,
                                        scope=scope)
            return nb
        body = _Accesses(s, plan, new_buf_of, self.emulate, rows,
                         self.launched).visit(s.body)
        body = self.visit(body)
        ann = dict(s.annotations)
        ann["scope"] = scope
        return Allocate(s.buffer_var, s.dtype, [extent], s.condition, body, ann)


def _run(func: PrimFunc, emulate: bool, warp_size: int) -> PrimFunc:
    has_warp = []

    class _Find(Visitor):
        def visit_Allocate(self, s):
            if storage_rank(s.annotations.get("scope", "")) == "warp":
                has_warp.append(s)
            self.generic_visit(s)
    _Find().visit(func.body)
    if not has_warp:
        return func
    return func.with_body(_Kernels(emulate, warp_size).visit(func.body))


@register_pass("LowerWarpMemory")
def lower_warp_memory(func: PrimFunc, warp_size: int = WARP_SIZE) -> PrimFunc:
    """``func`` with every ``warp`` allocation in per-lane ``local`` registers and reads of
    other lanes' elements as ``tir.tvm_warp_shuffle`` (module doc); ``func`` itself when it
    has none. A pattern the lowering cannot handle is a TepadError naming the buffer."""
    return _run(func, False, warp_size)


def warp_memory_for_emulator(func: PrimFunc, warp_size: int = WARP_SIZE) -> PrimFunc:
    """``func`` with every ``warp`` allocation checked as ``lower_warp_memory`` checks it and
    made a ``shared`` buffer with one copy per warp row (module doc); barriers are the
    caller's (``thread_sync``)."""
    return _run(func, True, warp_size)


__all__ = ["lower_warp_memory", "warp_memory_for_emulator", "plan_warp_allocation",
           "WarpPlan", "WARP_SIZE"]
