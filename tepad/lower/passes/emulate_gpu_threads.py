"""emulate_gpu_threads: a lowered GPU function as a CPU function that computes the same result.

The input is the lowered GPU function of docs/gpu.md: kernels are ``thread_extent``
attributes (``blockIdx.*`` enclosing ``threadIdx.*``), allocations carry a storage scope,
and barriers are ``Evaluate(tir.tvm_storage_sync("shared"))``. Code outside every launch
attribute is host code and stays as it is. Each kernel becomes:

* one loop over its blocks (``blockIdx.z, y, x`` fused into one index, outermost; a
  ``parallel`` loop unless the kernel sits in or holds a parallel loop: blocks share no
  state, since shared memory is allocated once per block iteration);
* inside it, the block's ``shared`` allocations (once per block), then the kernel body with
  every thread running it: serial loops over ``(threadIdx.z, y, x)`` around each *phase*,
  the code between two barriers. A barrier inside a serial loop (the k loop of a tiled
  matmul) or a thread-uniform ``if`` splits the phases inside that loop / branch: the loop
  or branch moves above the thread loops, which is legal because every thread reaches the
  barrier the same number of times;
* values that live across a barrier in one thread get one copy per thread: a ``local``
  allocation whose scope holds a barrier is widened by the thread count and indexed by the
  linear thread id ``(tz * Ty + ty) * Tx + tx``; a ``LetStmt`` whose value depends on the
  thread and whose body holds a barrier becomes such a per-thread array;
* a tensor-core fragment operation that every lane of a warp makes alike (marked
  ``WARP_COLLECTIVE`` by ``wmma_for_emulator``) runs on the warp's first lane only
  (``threadIdx.x % 32 == 0``) when ``threadIdx.x``'s extent is a multiple of 32, in place of
  all 32 lanes computing the same fragment;
* a statement of a phase that depends on no thread index (a tile copied by every thread,
  as TVM emits for an unbound cooperative fetch) runs once per block: every thread would
  store the same values. Not so a statement with a call that has effects (an atomic add,
  an extern or packed call): every thread makes it.

Guarantees: the result has no ``thread_extent`` / ``virtual_thread`` attribute and no barrier;
for a kernel without data races (GPU semantics) it stores what the GPU would. A barrier that
not all threads reach (under a branch on the thread index, in a loop whose bounds depend on
it, in a vectorized or parallel loop), a grid-wide barrier, and warp-level intrinsics are a
TepadError naming the kernel.
"""
from __future__ import annotations

from ...errors import TepadError
from ...tir import stmt as S
from ...tir.buffer import Buffer
from ...tir import dtype as dt
from ...tir.expr import (EQ, Broadcast, BufferLoad, Call, FloorMod, IntImm, PrimExpr, StringImm,
                         Var, cast)
from ...tir.function import PrimFunc
from ...tir.functor import (Mutator, Visitor, collect_vars, post_order_visit, substitute,
                             uses_var)
from ...tir.structural import structural_equal
from .wmma_fragments import WARP_COLLECTIVE

THREAD_EXTENT = "thread_extent"
VIRTUAL_THREAD = "virtual_thread"
SYNC = "tir.tvm_storage_sync"
BLOCK_TAGS = ("blockIdx.z", "blockIdx.y", "blockIdx.x")     # outer to inner
THREAD_TAGS = ("threadIdx.z", "threadIdx.y", "threadIdx.x")
# storage scopes allocated once per block (the others: once per thread)
BLOCK_SCOPES = ("shared", "shared.dyn")
WARP_SIZE = 32
# intrinsics whose meaning needs threads running in lockstep (warps): not emulated
WARP_CALLS = ("tir.tvm_warp_shuffle", "tir.tvm_warp_shuffle_up", "tir.tvm_warp_shuffle_down",
              "tir.tvm_warp_activemask", "tir.tvm_thread_allreduce", "tir.ptx_mma",
              "tir.tvm_mma_sync", "tir.tvm_load_matrix_sync", "tir.tvm_store_matrix_sync")


def is_barrier(s) -> bool:
    """Whether ``s`` is ``Evaluate(tir.tvm_storage_sync(...))``."""
    return isinstance(s, S.Evaluate) and isinstance(s.value, Call) and s.value.op == SYNC


class _HasBarrier(Visitor):
    def __init__(self):
        self.found = False

    def visit(self, node):
        # barriers are statements: expressions hold none
        if not self.found and not isinstance(node, PrimExpr):
            super().visit(node)

    def visit_Evaluate(self, s):
        if is_barrier(s):
            self.found = True


def has_barrier(s) -> bool:
    v = _HasBarrier()
    v.visit(s)
    return v.found


def emulate_gpu_threads(func: PrimFunc, parallel_blocks: bool = True,
                        reverse: bool = False) -> PrimFunc:
    """``func`` with every kernel (outermost launch attribute) replaced by CPU loops, as the
    module docstring says; ``func`` itself when it launches nothing. ``parallel_blocks``:
    the block loop may be a parallel loop. ``reverse``: threads (and blocks, then run
    serially) go from the last to the first; a kernel without data races stores the same
    bits either way (the race check of ``tepad.backend.emulated`` compares them)."""
    body = _Host(func.name, parallel_blocks and not reverse, reverse).visit(func.body)
    return func if body is func.body else func.with_body(body)


class _Host(Mutator):
    """Host code: finds the kernels, tracking whether a parallel loop encloses them."""

    def __init__(self, name, parallel, reverse=False):
        self.name = name
        self.parallel = parallel
        self.reverse = reverse

    def visit_For(self, s):
        if s.kind == S.ForKind.PARALLEL and self.parallel:
            self.parallel = False
            try:
                return self.generic_visit(s)
            finally:
                self.parallel = True
        return self.generic_visit(s)

    def visit(self, node):
        return node if isinstance(node, PrimExpr) else super().visit(node)

    def visit_AttrStmt(self, s):
        if s.attr_key in (THREAD_EXTENT, VIRTUAL_THREAD):
            return _Kernel(self.name, s, self.reverse).emulate(self.parallel)
        if s.attr_key == WARP_COLLECTIVE:       # outside a kernel: nothing to share
            return self.visit(s.body)
        return self.generic_visit(s)


class _WarpLeaders(Mutator):
    """A ``WARP_COLLECTIVE`` loop nest (a tensor-core fragment operation that all lanes of a
    warp make alike, see ``wmma_fragments``) under ``if lane == 0`` (``guard``), or as it is
    when ``guard`` is None (every thread computes the whole fragment)."""

    def __init__(self, guard):
        self.guard = guard

    def visit(self, node):
        return node if isinstance(node, PrimExpr) else super().visit(node)

    def visit_AttrStmt(self, s):
        if s.attr_key != WARP_COLLECTIVE:
            return self.generic_visit(s)
        return s.body if self.guard is None else S.IfThenElse(self.guard, s.body)


def _tag(iv) -> str:
    return getattr(iv, "thread_tag", "") or getattr(getattr(iv, "var", iv), "name", "")


def _same(a, b) -> bool:
    if isinstance(a, IntImm) and isinstance(b, IntImm):
        return a.value == b.value
    return structural_equal(a, b)


class _Strip(Mutator):
    """Removes the launch attributes of one kernel (their vars become one Var per tag), turns
    virtual threads into serial loops, gives allocations their scope (TVM's default: local
    under ``threadIdx``, shared under ``blockIdx`` only) and takes the per-block allocations
    out (they are placed around the block body)."""

    def __init__(self, kernel):
        self.k = kernel
        self.under_thread = 0
        self.shared = []         # Allocate nodes (bodies dropped) to place per block
        self.local_vars = set()  # vars bound inside the kernel (loops, lets)

    def visit_AttrStmt(self, s):
        if s.attr_key == THREAD_EXTENT:
            self.k.launch(s.node, s.value)
            is_thread = _tag(s.node).startswith("threadIdx")
            self.under_thread += is_thread
            try:
                return self.visit(s.body)
            finally:
                self.under_thread -= is_thread
        if s.attr_key == VIRTUAL_THREAD:
            if has_barrier(s.body):
                raise TepadError(f"kernel {self.k.name}: a barrier inside a virtual thread "
                                 f"({_tag(s.node)}); the emulator expects virtual threads "
                                 "injected (inject_virtual_thread) before it")
            var = s.node.var if hasattr(s.node, "var") else s.node
            self.local_vars.add(var)
            return S.For(var, IntImm(0, var.dtype), s.value, S.ForKind.SERIAL,
                         self.visit(s.body))
        return self.generic_visit(s)

    def visit_For(self, s):
        self.local_vars.add(s.loop_var)
        return self.generic_visit(s)

    def visit_LetStmt(self, s):
        self.local_vars.add(s.var)
        return self.generic_visit(s)

    def visit_Allocate(self, s):
        scope = s.annotations.get("scope") or self.k.buffer_scopes.get(s.buffer_var) or ""
        if scope in ("", "global"):
            scope = "local" if self.under_thread else "shared"
        if scope.startswith("warp"):
            # run thread after thread, a warp buffer would be read before the other lanes
            # stored into it: lower_warp_memory's emulator form orders that with barriers
            raise TepadError(f"kernel {self.k.name}: warp buffer {s.buffer_var.name} reached "
                             "emulate_gpu_threads; warp_memory_for_emulator must make it a "
                             "shared buffer with barriers first (tepad.build does)")
        body = self.visit(s.body)
        if scope in BLOCK_SCOPES:
            self.shared.append(S.Allocate(s.buffer_var, s.dtype, s.extents, s.condition,
                                          S.Evaluate(0), dict(s.annotations, scope="shared")))
            return body
        return S.Allocate(s.buffer_var, s.dtype, s.extents, s.condition, body,
                          dict(s.annotations, scope="local"))

    def visit_Evaluate(self, s):
        if is_barrier(s):
            args = s.value.args
            scope = args[0].value if args and isinstance(args[0], StringImm) else "shared"
            if scope == "global":
                raise TepadError(f"kernel {self.k.name}: a grid-wide barrier "
                                 "(tvm_storage_sync('global')) cannot be emulated block by "
                                 "block")
            return s
        return self.generic_visit(s)

    def visit_Call(self, e):
        if e.op in WARP_CALLS:
            raise TepadError(f"kernel {self.k.name}: {e.op} is a warp-level intrinsic; the "
                             "GPU emulator runs threads one after another and does not "
                             "emulate warps (lower cross-thread reductions through shared "
                             "memory)")
        e = self.generic_visit(e)
        if isinstance(e, Call) and e.op in EXTERN_CALLS and e.args and \
                isinstance(e.args[0], StringImm):
            host = host_math_name(e.args[0].value)
            if host != e.args[0].value:
                return Call(e.dtype, e.op, [StringImm(host), *e.args[1:]])
        return e


EXTERN_CALLS = ("tir.call_extern", "tir.call_pure_extern")
# CUDA's fast-math device intrinsics whose C library function (the name without "__")
# computes the same within their documented error
CUDA_FAST_MATH = frozenset({"__expf", "__exp10f", "__logf", "__log2f", "__log10f", "__sinf",
                            "__cosf", "__tanf", "__powf"})


def host_math_name(name: str) -> str:
    """The C library function the CPU runs for device math function ``name`` called by a
    kernel: libdevice's ``__nv_fast_expf`` / ``__nv_expf`` and CUDA's ``__expf`` are
    ``expf``; any other name is itself."""
    for prefix in ("__nv_fast_", "__nv_"):
        if name.startswith(prefix) and len(name) > len(prefix):
            return name[len(prefix):]
    return name[2:] if name in CUDA_FAST_MATH else name


class _BufferScopes(Visitor):
    """``{data var: scope}`` from the Buffers that access each allocation (hand-built IR
    names the scope on the Buffer rather than on the Allocate)."""

    def __init__(self):
        self.scopes = {}

    def _note(self, buf):
        if buf.scope and buf.scope != "global":
            self.scopes.setdefault(buf.data, buf.scope)

    def visit_BufferLoad(self, e):
        self._note(e.buffer)
        self.generic_visit(e)

    def visit_BufferStore(self, s):
        self._note(s.buffer)
        self.generic_visit(s)


class _Kernel:
    """One kernel: its launch extents per tag and the rewrite to CPU loops."""

    def __init__(self, func_name, attr, reverse=False):
        self.name = func_name
        self.attr = attr
        self.reverse = reverse
        self.extents = {}       # tag -> extent
        self.vars = {}          # tag -> the one Var standing for it
        self.vmap = {}          # launch attribute var -> the tag's Var
        scopes = _BufferScopes()
        scopes.visit(attr)
        self.buffer_scopes = scopes.scopes

    def launch(self, iv, extent):
        tag = _tag(iv)
        if tag not in BLOCK_TAGS + THREAD_TAGS:
            raise TepadError(f"kernel {self.name}: launch attribute with thread tag {tag!r}; "
                             f"the emulator knows {', '.join(BLOCK_TAGS + THREAD_TAGS)}")
        var = iv.var if hasattr(iv, "var") else iv
        if tag in self.extents:
            if not _same(self.extents[tag], extent):
                raise TepadError(f"kernel {self.name}: {tag} is launched with extent "
                                 f"{self.extents[tag]} and {extent}; all launches of a tag in "
                                 "one kernel must have the same extent")
        else:
            self.extents[tag] = extent
            self.vars[tag] = Var(tag.replace(".", "_"), var.dtype)
        self.vmap[var] = self.vars[tag]

    # --- the rewrite -------------------------------------------------------------------------
    def emulate(self, parallel: bool) -> S.Stmt:
        strip = _Strip(self)
        body = substitute(strip.visit(self.attr), self.vmap)
        shared = [substitute(a, self.vmap) for a in strip.shared]
        self.threads = [t for t in THREAD_TAGS if t in self.extents]
        self.thread_vars = {self.vars[t] for t in self.threads}
        self.tid = self._linear_tid()
        body = _WarpLeaders(self._lane_zero()).visit(body)
        for a in shared:
            bad = collect_vars(a.extents) & (strip.local_vars | self.thread_vars)
            if bad:
                raise TepadError(f"kernel {self.name}: shared allocation "
                                 f"{a.buffer_var.name} has a size that depends on "
                                 f"{', '.join(sorted(v.name for v in bad))}; a block's shared "
                                 "memory is sized once per block")
        out = self.emit(body)
        for a in reversed(shared):
            out = S.Allocate(a.buffer_var, a.dtype, a.extents, a.condition, out, a.annotations)
        return self._block_loops(out, parallel and not _has_parallel(out))

    def _lane_zero(self):
        """``threadIdx.x % 32 == 0`` when ``threadIdx.x``'s extent is a constant multiple of
        the warp size (a warp: 32 values of threadIdx.x), else None."""
        ext = self.extents.get("threadIdx.x")
        if not (isinstance(ext, IntImm) and ext.value % WARP_SIZE == 0):
            return None
        tx = self.vars["threadIdx.x"]
        lane = FloorMod(tx, IntImm(WARP_SIZE, tx.dtype)) if ext.value > WARP_SIZE else tx
        return EQ(lane, IntImm(0, tx.dtype))

    def _linear_tid(self):
        tid = None
        for t in self.threads:
            v = self.vars[t]
            tid = v if tid is None else tid * cast(v.dtype, self.extents[t]) + v
        return tid if tid is not None else IntImm(0, "int32")

    def _thread_count(self):
        n = 1
        for t in self.threads:
            e = self.extents[t]
            if not isinstance(e, IntImm):
                raise TepadError(f"kernel {self.name}: {t} has extent {e}, not a constant; "
                                 "values that live across a barrier need one copy per thread")
            n *= e.value
        return n

    def _block_loops(self, body, parallel):
        tags = [t for t in BLOCK_TAGS if t in self.extents]
        if not tags:
            return body
        kind = S.ForKind.PARALLEL if parallel else S.ForKind.SERIAL
        if len(tags) == 1:
            v = self.vars[tags[0]]
            ext = cast(v.dtype, self.extents[tags[0]])
            if isinstance(ext, IntImm) and ext.value <= 1:
                kind = S.ForKind.SERIAL
            return self._loop(v, ext, kind, body)
        # one fused loop over all blocks (more parallel work than the outer tag alone)
        inner = list(reversed(tags))            # x first
        dtype = self.vars[tags[0]].dtype
        b = Var("block", dtype)
        total, stride = None, None
        lets = []
        for t in inner:
            ext = cast(dtype, self.extents[t])
            val = b if stride is None else b // stride
            if t != inner[-1]:
                val = val % ext
            lets.append((self.vars[t], cast(self.vars[t].dtype, val)))
            stride = ext if stride is None else stride * ext
            total = stride
        for v, val in reversed(lets):
            body = S.LetStmt(v, val, body)
        if isinstance(total, IntImm) and total.value <= 1:
            kind = S.ForKind.SERIAL
        return self._loop(b, total, kind, body)

    def _loop(self, v, extent, kind, body):
        """``for v in range(extent)``, or from ``extent - 1`` down when reversed."""
        if self.reverse:
            w = Var(v.name, v.dtype)
            body = S.LetStmt(v, extent - 1 - w, body)
            v = w
        return S.For(v, IntImm(0, v.dtype), extent, kind, body)

    def _uniform(self, e) -> bool:
        return not uses_var(e, self.thread_vars)

    def _deadlock(self, what):
        raise TepadError(
            f"kernel {self.name}: a barrier (tvm_storage_sync) {what}; on a GPU the threads "
            "that do not reach it would wait forever. Barriers must be reached by every "
            "thread of the block the same number of times (move the barrier out of the "
            "branch / loop)")

    def emit(self, s) -> S.Stmt:
        """Block-level code running ``s`` on every thread of the block."""
        if not has_barrier(s):
            return self.phase(s)
        if is_barrier(s):
            return S.Evaluate(0)
        if isinstance(s, S.SeqStmt):
            out, pending = [], []
            # nested sequences (an allocation taken out leaves its body's) as one: a phase
            # ends at a barrier only
            for c in _flat(s):
                if is_barrier(c):
                    out.append(self.phase(S.seq(pending)))
                    pending = []
                elif has_barrier(c):
                    out.append(self.phase(S.seq(pending)))
                    pending = []
                    out.append(self.emit(c))
                else:
                    pending.append(c)
            out.append(self.phase(S.seq(pending)))
            return S.seq(out)
        if isinstance(s, S.For):
            if s.kind in (S.ForKind.PARALLEL, S.ForKind.VECTORIZED):
                self._deadlock(f"is inside the {s.kind.value} loop over {s.loop_var.name}")
            if not (self._uniform(s.min) and self._uniform(s.extent)):
                self._deadlock(f"is inside the loop over {s.loop_var.name}, whose bounds "
                               f"depend on the thread index ({s.min}, {s.extent})")
            return S.For(s.loop_var, s.min, s.extent, S.ForKind.SERIAL, self.emit(s.body),
                         annotations=s.annotations)
        if isinstance(s, S.IfThenElse):
            if not self._uniform(s.condition):
                self._deadlock(f"is inside a branch on the thread index (if {s.condition})")
            return S.IfThenElse(s.condition, self.emit(s.then_case),
                                None if s.else_case is None else self.emit(s.else_case))
        if isinstance(s, S.While):
            if not self._uniform(s.condition):
                self._deadlock(f"is inside a while loop on the thread index ({s.condition})")
            return S.While(s.condition, self.emit(s.body))
        if isinstance(s, S.LetStmt):
            if self._uniform(s.value):
                return S.LetStmt(s.var, s.value, self.emit(s.body))
            return self._expand_let(s)
        if isinstance(s, S.Allocate):
            return self._expand_alloc(s)
        if isinstance(s, S.AttrStmt):
            return S.AttrStmt(s.node, s.attr_key, s.value, self.emit(s.body))
        if isinstance(s, S.AssertStmt):
            if not self._uniform(s.condition):
                self._deadlock(f"follows an assert on the thread index ({s.condition})")
            return S.AssertStmt(s.condition, s.message, self.emit(s.body))
        raise TepadError(f"kernel {self.name}: a barrier inside a {type(s).__name__}, which "
                         "the GPU emulator cannot split into phases")

    def phase(self, s) -> S.Stmt:
        """Every thread runs ``s`` (no barrier in it): thread loops around the statements
        that read a thread index; the others once."""
        stmts = _flat(s) if isinstance(s, S.SeqStmt) else [s]
        out, run = [], []
        for c in stmts:
            if S.is_no_op(c):
                continue
            if self.thread_vars and (uses_var(c, self.thread_vars) or _has_effects(c)):
                run.append(c)
            else:
                out.append(self._thread_loops(S.seq(run)))
                run = []
                out.append(c)
        out.append(self._thread_loops(S.seq(run)))
        return S.seq(out)

    def _thread_loops(self, s):
        if S.is_no_op(s):
            return s
        fresh = {self.vars[t]: Var(self.vars[t].name, self.vars[t].dtype) for t in self.threads}
        if self.reverse:
            loop_vars = {t: Var(self.vars[t].name, self.vars[t].dtype) for t in self.threads}
            body = substitute(s, {self.vars[t]: cast(loop_vars[t].dtype, self.extents[t]) - 1 -
                                  loop_vars[t] for t in self.threads})
        else:
            loop_vars = {t: fresh[self.vars[t]] for t in self.threads}
            body = substitute(s, fresh)
        for t in reversed(self.threads):
            v = loop_vars[t]
            body = S.For(v, IntImm(0, v.dtype), cast(v.dtype, self.extents[t]),
                         S.ForKind.SERIAL, body)
        return body

    def _expand_alloc(self, a: S.Allocate) -> S.Stmt:
        n = self._thread_count()
        size = None
        for e in a.extents:
            size = e if size is None else size * e
        size = size if size is not None else IntImm(1, "int32")
        if not self._uniform(size):
            raise TepadError(f"kernel {self.name}: local allocation {a.buffer_var.name} "
                             "whose size depends on the thread index lives across a barrier")
        data = Var(a.buffer_var.name, "handle")
        tid = self.tid
        offset = tid * cast(tid.dtype, size) if n > 1 else None
        body = _Widen(a.buffer_var, data, size * n, offset, self.name).visit(a.body)
        return S.Allocate(data, a.dtype, [size * n], a.condition, self.emit(body),
                          dict(a.annotations, scope="local"))

    def _expand_let(self, s: S.LetStmt) -> S.Stmt:
        n = self._thread_count()
        if s.var.dtype == "handle":
            raise TepadError(f"kernel {self.name}: the pointer {s.var.name} depends on the "
                             "thread index and lives across a barrier; not emulated")
        data = Var(s.var.name + "_per_thread", "handle")
        buf = Buffer([n], s.var.dtype, data.name, data=data, scope="local")
        index = [self.tid]
        body = substitute(s.body, {s.var: BufferLoad(buf, index)})
        first = self.phase(S.BufferStore(buf, s.value, index))
        return S.Allocate(data, s.var.dtype, [n], IntImm(1, "bool"),
                          S.seq(first, self.emit(body)), {"scope": "local"})


class _Widen(Mutator):
    """Accesses to the allocation ``old`` go to ``new``, ``offset`` further (one slice per
    thread)."""

    def __init__(self, old, new, size, offset, kernel):
        self.old, self.new, self.size, self.offset = old, new, size, offset
        self.kernel = kernel
        self.buffers = {}

    def _buffer(self, buf):
        nb = self.buffers.get(buf)
        if nb is None:
            nb = Buffer([self.size], buf.dtype, buf.name, data=self.new, scope="local")
            self.buffers[buf] = nb
        return nb

    def _indices(self, buf, idx):
        if len(idx) != 1:
            raise TepadError(f"kernel {self.kernel}: local buffer {buf.name} is accessed with "
                             f"{len(idx)} indices; the emulator expects flattened buffers")
        if self.offset is None:
            return idx
        i = idx[0]
        lanes = dt.lanes(i.dtype)
        off = cast(dt.element_of(i.dtype), self.offset)
        return [i + (Broadcast(off, lanes) if lanes > 1 else off)]

    def visit_BufferLoad(self, e):
        e2 = self.generic_visit(e)
        if e2.buffer.data is not self.old:
            return e2
        return BufferLoad(self._buffer(e2.buffer), self._indices(e2.buffer, e2.indices))

    def visit_BufferStore(self, s):
        s2 = self.generic_visit(s)
        if s2.buffer.data is not self.old:
            return s2
        return S.BufferStore(self._buffer(s2.buffer), s2.value,
                             self._indices(s2.buffer, s2.indices))

    def visit_Var(self, v):
        if v is self.old:
            raise TepadError(f"kernel {self.kernel}: the local buffer {v.name} is passed as a "
                             "pointer and lives across a barrier; not emulated")
        return v


# calls that are not pure: every thread must make them (an atomic add counts the threads)
_PURE_CALL_PREFIXES = ("tir.call_pure_extern", "tir.call_llvm_pure_intrin")
_EFFECT_CALL_PREFIXES = ("tir.atomic", "tir.call_", "tir.tvm_call")


def _has_effects(s) -> bool:
    """Whether ``s`` makes a call with side effects (atomics, extern and packed calls)."""
    found = []

    def f(n):
        if isinstance(n, Call) and n.op.startswith(_EFFECT_CALL_PREFIXES) and \
                not n.op.startswith(_PURE_CALL_PREFIXES):
            found.append(n)
    post_order_visit(s, f)
    return bool(found)


def _flat(s) -> list:
    out = []
    for c in s.seq:
        if isinstance(c, S.SeqStmt):
            out.extend(_flat(c))
        else:
            out.append(c)
    return out


def _has_parallel(s) -> bool:
    found = []

    class _V(Visitor):
        def visit(self, node):
            if not isinstance(node, PrimExpr):
                super().visit(node)

        def visit_For(self, f):
            if f.kind == S.ForKind.PARALLEL:
                found.append(f)
            self.generic_visit(f)
    _V().visit(s)
    return bool(found)


__all__ = ["emulate_gpu_threads", "has_barrier", "is_barrier", "SYNC"]
