"""GPU schedules for the fuzzer (``Config(gpu=True)``, ``python -m tepad.fuzz --gpu``).

The case's definitions are drawn as usual (``definitions.py``); the schedule is a GPU one,
built with ``target="cuda"`` through the emulator (``build(..., emulate=True)``) with the race
check on (``race_check=True``) and checked against ``tepad.testing.reference``:

* the output (one, the last tensor) is split and bound: 1-D (data axes fused, blocks x
  threads, sometimes a ``vthread`` between them and a serial loop inside each thread) or 2-D
  (``blockIdx.y/x``, ``threadIdx.y/x``, sometimes ``vthread`` on either axis); factors that do
  not divide the extents are welcome;
* a reduction output often (55 %) reduces across threads: a reduce axis (or the inner part of a
  split of it) bound to ``threadIdx.x`` directly, or ``rfactor`` of the inner part with the
  reduce axis of the result bound and the rfactor stage computed at it (TVM's tutorial);
* the output is sometimes ``cache_write(..., "local")`` (the cache computed at a thread loop,
  its reduce axis sometimes split) and its inputs ``cache_read`` into ``"shared"`` (computed
  at the block loop, or at a loop of the local cache inside the threads, and fetched
  cooperatively: fused, split by the kernel's thread extents and bound to the same thread
  axes) or ``"local"`` (at a thread loop), sometimes a shared copy read through a local one;
* other producers are inlined, computed at the block loop of a consumer (shared, fetched
  cooperatively or, sometimes, redundantly by every thread), at a thread loop (local), or at
  the root in a kernel of their own;
* with ``illegal_rate``, one illegal GPU step (``GPU_ILLEGAL``): a thread extent over the
  device limit, a shared tile over the shared-memory limit (``storage_align``), one thread
  tag launched with two extents, a root stage left unbound. The build must refuse it with a
  ``TepadError``.

Every line is run through ``Case.run`` like the CPU drawer's, so the reproducer is a program.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..bound import infer_bound
from ..tir.expr import IntImm
from .attach_points import can_inline, is_compute, legal_attach_points
from .loops import NESTED_FACTORS, nested
from .schedules import ScheduleDrawer

THREADS = [1, 2, 3, 4, 5, 8, 16, 32, 64]
BLOCK_TAGS = ("blockIdx.x", "blockIdx.y")
GPU_ILLEGAL = ("thread_extent_over_limit", "shared_too_much", "tag_two_extents",
               "unbound_root")


@dataclass
class Kernel:
    """The thread axes of a kernel: ``threads`` is ``[(name, tag, extent)]``, x first."""

    threads: list = field(default_factory=list)
    tiles: bool = True      # may keep shared tiles (not when its blocks cover fused rows)


@dataclass
class Place:
    """Where producers of a stage may go: ``block`` (the innermost block-bound leaf: shared
    scope, fetched cooperatively) and ``inner`` (leaves inside every thread loop: local)."""

    kernel: Kernel
    block: object = None
    inner: list = field(default_factory=list)


class GpuScheduleDrawer(ScheduleDrawer):
    """Draws a GPU schedule for the last tensor of a ``DefinitionDrawer``'s case."""

    def draw(self):
        case, src = self.case, self.src
        last = [t for t in case.tensors if not t.placeholder][-1]
        case.outputs = [last]
        case.gpu = True
        case.sched_start = len(case.lines)
        case.run(f"s = te.create_schedule({last.name}.op)")
        s = self.ns["s"]
        case.placeholders = [t for t in case.placeholders if self.ns[t.name].op in s.stage_map]
        for t in case.tensors:
            self.tnames[id(self.ns[t.name].op)] = t.name
        self.places: dict = {}      # id(Stage) -> Place
        self.done: set = set()      # id(Stage) already placed
        self.shared: list = []      # stages kept in shared memory (at a block loop)
        self.inlined: list = []
        self.n_axis = 0
        self.illegal = src.pick(GPU_ILLEGAL) if src.flag(self.cfg.illegal_rate) else None
        out = self.ns[last.name]
        # symbolic sizes: shared and local tiles would be sized at run time (refused), so
        # such cases get kernels of their own per stage, and constant thread counts only
        self.symbolic = any(isinstance(b, str) for b in case.bases.values())
        if not self.symbolic:
            self.caches(s, out)
        order = [st for st in reversed(s.stages) if is_compute(st)]
        for st in order:
            if id(st) in self.done:
                continue
            if st.is_output:
                self.bind_root(s, st)
            else:
                self.place(s, st)
        if self.illegal not in (None, "drawn"):
            # the drawn kind, or (when the schedule offers no such step) a late one that it
            # offers: an illegal case stays illegal
            late = {"shared_too_much": self.inflate_shared, "unbound_root": self.unbind}
            for kind in (self.illegal, "unbound_root", "shared_too_much"):
                if kind in late and late[kind](s):
                    break

    # -- names ----------------------------------------------------------------------------------
    def axis(self, tag):
        """A new ``te.thread_axis(tag)`` under a fresh name."""
        nm = f"{tag.replace('.', '_')}_{self.n_axis}"
        self.n_axis += 1
        self.case.run(f"{nm} = te.thread_axis({tag!r})")
        return nm

    def split(self, st, ivname, how, n):
        o, i = self.new_ivs(st, ("o", "i"))
        self.case.run(f"{o}, {i} = {self.stage_expr(st)}.split({ivname}, {how}={n})")
        self.bind_names(o, i)
        return o, i

    def fuse(self, st, names):
        if len(names) == 1:
            return names[0]
        (f,) = self.new_ivs(st, ("f",))
        self.case.run(f"{f} = {self.stage_expr(st)}.fuse({', '.join(names)})")
        self.bind_names(f)
        return f

    def bind(self, st, ivname, axis, illegal=None):
        self.case.run(f"{self.stage_expr(st)}.bind({ivname}, {axis})", illegal=illegal)

    def thread_extent(self):
        """A thread count (2048 once, when that is the drawn illegal step)."""
        if self.illegal == "thread_extent_over_limit":
            self.illegal = "drawn"
            return 2048, "thread_extent_over_limit"
        return self.src.pick(THREADS), None

    # -- dataflow -------------------------------------------------------------------------------
    def caches(self, s, out):
        """Sometimes cache_write the output into "local" and cache_read its inputs into
        "shared" or "local" for the output (or its local cache), sometimes a shared copy
        read through a local one."""
        src, case = self.src, self.case
        reader = self.tnames[id(out.op)]
        if src.flag(30):
            nm = f"{reader}_l"
            case.run(f"{nm} = s.cache_write({reader}, 'local')")
            self.tnames[id(self.ns[nm].op)] = nm
            reader = nm
        for inp in list(self.ns[reader].op.input_tensors):
            if inp.op not in s.stage_map or not src.flag(35):
                continue
            scope = "shared" if src.flag(70) else "local"
            tname = self.tnames[id(inp.op)]
            nm = f"{tname}_{scope[0]}{len(case.lines)}"
            case.run(f"{nm} = s.cache_read({tname}, {scope!r}, [{reader}])")
            self.tnames[id(self.ns[nm].op)] = nm
            if scope == "shared" and src.flag(30):     # and from there into registers
                case.run(f"{nm}_l = s.cache_read({nm}, 'local', [{reader}])")
                self.tnames[id(self.ns[nm + '_l'].op)] = nm + "_l"

    # -- a kernel's own loops ---------------------------------------------------------------------
    def bind_root(self, s, st):
        """Bind a root stage's loops (blocks and threads); record where producers may go."""
        if st.op.reduce_axis and self.src.flag(55):
            self.cross_thread(s, st)
        elif len(st.op.axis) >= 2 and self.src.flag(50):
            self.bind_2d(s, st)
        else:
            self.bind_1d(s, st)
        self.done.add(id(st))

    def bind_1d(self, s, st):
        src = self.src
        data = [self.iv(st, iv) for iv in st.op.axis]
        fused = self.fuse(st, data if src.flag(70) else data[:1])
        # a block of a fused loop covers rows that depend on blockIdx: no tile of constant
        # size to keep in shared memory there (refused by the build, as in TVM)
        whole = len(data) == 1 or fused == data[0]
        t, bad = self.thread_extent()
        v = src.pick([2, 3]) if src.flag(20) else 0
        inner = src.pick([2, 3]) if src.flag(20) else 0
        b, ti = self.split(st, fused, "factor", t * max(v, 1) * max(inner, 1))
        if not (v or inner or bad) and nested(self):
            # the thread loop split again: a serial loop per thread, then as many threads as
            # the nested factor (which need not divide the first, or may exceed it)
            t = self.src.pick(NESTED_FACTORS)
            _, ti = self.split(st, ti, "factor", t)
        if v:
            vt, ti = self.split(st, ti, "nparts", v)
        if inner:
            ti, _ = self.split(st, ti, "nparts", t)
        tx = self.axis("threadIdx.x")
        self.bind(st, b, self.axis("blockIdx.x"))
        if v:
            self.bind(st, vt, self.axis("vthread"))
        self.bind(st, ti, tx, illegal=bad)
        self.record(st, Kernel([(tx, "threadIdx.x", t)], whole), b if whole else None, ti)

    def bind_2d(self, s, st):
        src = self.src
        a0, a1 = (self.iv(st, iv) for iv in st.op.axis[:2])
        tx_n, bad = self.thread_extent()
        ty_n = src.pick(THREADS[:7])
        by, ty = self.split(st, a0, "factor", ty_n)
        bx, tx = self.split(st, a1, "factor", tx_n)
        vloops = []
        if src.flag(20):
            by, vy = self.split(st, by, "factor", src.pick([2, 3]))
            vloops.append(vy)
        if src.flag(20):
            bx, vx = self.split(st, bx, "factor", src.pick([2, 3]))
            vloops.append(vx)
        self.case.run(f"{self.stage_expr(st)}.reorder({', '.join([by, bx, *vloops, ty, tx])})")
        TX, TY = self.axis("threadIdx.x"), self.axis("threadIdx.y")
        self.bind(st, by, self.axis("blockIdx.y"))
        self.bind(st, bx, self.axis("blockIdx.x"))
        for v in vloops:
            self.bind(st, v, self.axis("vthread"))
        self.bind(st, ty, TY)
        self.bind(st, tx, TX, illegal=bad)
        self.record(st, Kernel([(TX, "threadIdx.x", tx_n), (TY, "threadIdx.y", ty_n)]),
                    bx, tx)

    def cross_thread(self, s, st):
        """A reduction across threadIdx.x: a reduce axis bound directly, or rfactor."""
        src, run = self.src, self.case.run
        se = self.stage_expr(st)
        red = src.pick(list(st.op.reduce_axis))
        k = self.iv(st, red)
        t, bad = self.thread_extent()
        TX = self.axis("threadIdx.x")
        rf = None
        if src.flag(50):        # rfactor the inner part, reduce its result across threads
            _, ki = self.split(st, k, "factor", t)
            if not bad and nested(self):    # ... or the inner part of its inner part
                t = src.pick(NESTED_FACTORS)
                _, ki = self.split(st, ki, "factor", t)
            tname = self.tnames[id(st.origin_op)]
            rf = f"{tname}_rf"
            run(f"{rf} = s.rfactor({tname}, {ki})")
            self.tnames[id(self.ns[rf].op)] = rf
            k = self.any_iv(st, st.op.reduce_axis[0])
        elif src.flag(50) or self.symbolic or bad:  # symbolic: a constant part is bound
            if src.flag(30) and not self.symbolic and not bad:
                _, k = self.split(st, k, "nparts", t)
                t = -(-int(red.dom.extent.value) // t)      # the inner part's extent
            else:
                _, k = self.split(st, k, "factor", t)
                if not (bad or self.symbolic) and nested(self):
                    t = src.pick(NESTED_FACTORS)
                    _, k = self.split(st, k, "factor", t)
        else:                   # the whole reduce axis bound: as many threads as it has
            t = int(red.dom.extent.value)
        data = [self.iv(st, iv) for iv in st.op.axis]
        fused = self.fuse(st, data)
        threads = [(TX, "threadIdx.x", t)]
        if src.flag(50):
            ty_n = src.pick(THREADS[:6])
            b, ty = self.split(st, fused, "factor", ty_n)
            TY = self.axis("threadIdx.y")
            self.bind(st, ty, TY)
            threads.append((TY, "threadIdx.y", ty_n))
        else:   # (a root axis bound directly may start below 0: see test_fuzz_gpu.py)
            b, _ = self.split(st, fused, "factor", 1)
        self.bind(st, b, self.axis("blockIdx.x"))
        self.bind(st, k, TX, illegal=bad)
        if rf is not None:
            rst = s[self.ns[rf]]
            run(f"{self.stage_expr(rst)}.compute_at({se}, {k})")
            self.done.add(id(rst))
            self.places[id(rst)] = Place(Kernel(threads, len(data) == 1), None,
                                         list(rst.leaf_iter_vars))
        if src.flag(40):
            run(f"{se}.set_store_predicate({TX}.var.equal(0))")
        tiles = len(data) == 1      # (fused rows: no constant tile per block)
        self.places[id(st)] = Place(Kernel(threads, tiles), self.ns[b] if tiles else None, [])

    def record(self, st, kernel, block, thread):
        leaves = list(st.leaf_iter_vars)
        tpos = next(k for k, iv in enumerate(leaves) if iv is self.ns[thread])
        self.places[id(st)] = Place(kernel, block and self.ns[block], leaves[tpos:])

    # -- producers ----------------------------------------------------------------------------
    def place(self, s, st):
        """Inline, attach at a block loop (cooperative fetch) or thread loop, or a kernel of
        its own, by the stage's scope (cache stages) and where its consumers allow."""
        src, run = self.src, self.case.run
        se = self.stage_expr(st)
        self.done.add(id(st))
        scope = getattr(st, "scope", "") or ""
        if scope not in ("shared", "local") and can_inline(st) and src.flag(35):
            run(f"{se}.compute_inline()")
            self.inlined.append(st)
            return
        block, inner = [], []
        for p, iv in ([] if self.symbolic else legal_attach_points(s, st)):
            pl = self.places.get(id(p))
            if pl is None:
                continue
            if iv is pl.block:
                block.append((p, iv, pl))
            elif any(iv is x for x in pl.inner):
                inner.append((p, iv, pl))
        if scope == "local":
            block = []
        if scope == "shared":
            inner = [x for x in inner if x[2].kernel.tiles]
        # a tile whose size depends on the block or thread index cannot be allocated on the
        # GPU (a per-thread region of a transposed read, say): refused, as in TVM
        block = [x for x in block if _constant_tile(s, st, x[0], x[1])]
        inner = [x for x in inner if _constant_tile(s, st, x[0], x[1])]
        options = (["block"] if block else []) + (["inner"] if inner else [])
        if scope != "shared" or not options:
            options.append("root")
        how = src.pick(options)
        if how == "root":
            if scope:
                run(f"{se}.set_scope('global')")
            run(f"{se}.compute_root()")
            self.bind_root(s, st)
        elif how == "block" or (scope == "shared"):
            p, iv, pl = src.pick(block if how == "block" else inner)
            run(f"{se}.compute_at({self.stage_expr(p)}, {self.iv(p, iv)})")
            self.shared.append(st)
            self.fetch(st, pl.kernel)
            self.maybe_double_buffer(st)
        else:
            p, iv, pl = src.pick(inner)
            run(f"{se}.compute_at({self.stage_expr(p)}, {self.iv(p, iv)})")
            if scope:
                self.maybe_double_buffer(st)
            if st.op.reduce_axis and src.flag(40):
                self.split(st, self.iv(st, st.op.reduce_axis[0]), "factor", src.pick([2, 3, 4]))
            self.places[id(st)] = Place(pl.kernel, None, list(st.leaf_iter_vars))

    def maybe_double_buffer(self, st):
        """Sometimes double_buffer on a cache stage computed at a loop (``Config.
        gpu_double_buffer_percent``; 0 draws nothing). inject_double_buffer doubles it when
        a serial loop of the kernel encloses it and keeps it single-buffered otherwise."""
        pct = self.cfg.gpu_double_buffer_percent
        if pct and not st.is_double_buffered and self.src.flag(pct):
            self.case.run(f"{self.stage_expr(st)}.double_buffer()")

    def fetch(self, st, kernel):
        """Cooperative fetch: fuse the data loops, split by the kernel's thread extents and
        bind to its thread axes (sometimes left unbound: every thread fetches the tile)."""
        src = self.src
        data = [self.iv(st, iv) for iv in st.op.axis]
        if not data or not src.flag(85):
            self.places[id(st)] = Place(kernel, None, [])
            return
        rest = self.fuse(st, data)
        bound = []
        for k, (ax, tag, n) in enumerate(kernel.threads):
            illegal = None
            if k == 0 and self.illegal == "tag_two_extents":
                self.illegal = "drawn"
                ax, n, illegal = self.axis(tag), n + 1, "tag_two_extents"
            rest, ti = self.split(st, rest, "factor", n)
            self.bind(st, ti, ax, illegal=illegal)
            bound.append(ti)
        leaves = list(st.leaf_iter_vars)
        tpos = next(k for k, iv in enumerate(leaves) if iv is self.ns[bound[0]])
        self.places[id(st)] = Place(kernel, None, leaves[tpos:])

    # -- illegal --------------------------------------------------------------------------------
    def unbind(self, s):
        """compute_root of an inlined stage: a root stage with no loop bound to a thread."""
        if not self.inlined:
            return False
        st = self.src.pick(self.inlined)
        self.case.run(f"{self.stage_expr(st)}.compute_root()", illegal="unbound_root")
        return True

    def inflate_shared(self, s):
        """storage_align with a huge factor on a stage kept in shared memory."""
        cands = [st for st in self.shared if len(st.op.axis) >= 2 and _rows(s, st) >= 2]
        if cands:   # rows padded to 65536 elements: over 48 KiB from the second row on
            st = self.src.pick(cands)
            self.case.run(f"{self.stage_expr(st)}.storage_align({self.any_iv(st, st.op.axis[0])},"
                          f" 65536, 0)", illegal="shared_too_much")
        return bool(cands)


def _constant_tile(s, st, p, iv):
    """Does ``st`` computed at ``iv`` of ``p`` get a region of constant extents (interval
    bounds)?"""
    s2 = s.copy()
    s2.stage_map[st.op].compute_at(s2.stage_map[p.op], iv)
    rmap = infer_bound(s2.normalize())
    return all(isinstance(getattr(rmap.get(ax), "extent", None), IntImm) for ax in st.op.axis)


def _rows(s, st):
    """The constant extent of the first axis of ``st``'s tile (interval bounds), or 0."""
    s2 = s.copy().normalize()
    st2 = s2.stage_map.get(st.op)
    r = infer_bound(s2).get(st2.op.axis[0]) if st2 is not None else None
    if r is None or not isinstance(r.extent, IntImm):
        return 0
    return r.extent.value


__all__ = ["GpuScheduleDrawer", "GPU_ILLEGAL"]
