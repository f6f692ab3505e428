"""InferBound with thread-bound loops, interval and exact mode.

A producer's region covers every value of the consumer loops it is relaxed over. For a loop
bound to a thread, TVM's NeedRelax decides by the producer's storage rank alone (global 0,
shared 1, warp 2, local 3) against the thread's rank (blockIdx 0; threadIdx, vthread 1):
relaxed when storage rank <= thread rank (warp: threadIdx.x only). So a ``shared`` stage
covers all threads of its block, a ``local`` one a single thread. Exact mode applies the same
rule with the thread variables as ISL parameters (kept or projected out).

Worked sizes are asserted in both modes; the TVM tests ported here are those of
test_te_schedule_bound_inference.py and test_te_schedule_ops.py that use thread axes.
"""
import importlib.util
import itertools
import warnings
from pathlib import Path

import islpy as isl
import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st
import pytest

import tepad
from tepad import TepadError, te, tir
from tepad.bound import infer_bound
from tepad.bound.interval import BoundContext
from tepad.tir.stmt_functor import post_order_visit

MODES = pytest.mark.parametrize("exact", [False, True], ids=["interval", "exact"])


def bounds(s, exact):
    s2 = s.normalize()
    return s2, infer_bound(s2, exact=exact)


def extents(bm, t):
    return [bm[iv].extent.value if isinstance(bm[iv].extent, tir.IntImm) else bm[iv].extent
            for iv in t.op.axis]


def realize(s, exact):
    """``{stage name: (realize extents, storage scope)}`` of ScheduleOps' output."""
    s2, bm = bounds(s, exact)
    stmt = te.schedule.ScheduleOps(s2, bm)
    out = {}

    def visit(n):
        if isinstance(n, tir.ProducerRealize):
            out[n.producer.op.name] = (tuple(int(r.extent) for r in n.bounds), n.storage_scope)
    post_order_visit(stmt, visit)
    return out


def nodes(func, cls):
    out = []
    post_order_visit(func.body, lambda n: out.append(n) if isinstance(n, cls) else None)
    return out


def free_names(e):
    out = set()
    post_order_visit(e, lambda n: out.add(n.name) if isinstance(n, tir.Var) else None)
    return out


# --- the rule -------------------------------------------------------------------------------

@pytest.mark.parametrize("scope,tag,relaxed", [
    ("global", "blockIdx.x", True), ("global", "threadIdx.x", True), ("global", "vthread", True),
    ("shared", "blockIdx.x", False), ("shared", "threadIdx.x", True),
    ("shared", "threadIdx.z", True), ("shared", "vthread", True),
    ("warp", "blockIdx.x", False), ("warp", "threadIdx.x", True),
    ("warp", "threadIdx.y", False), ("warp", "vthread", False),
    ("local", "blockIdx.y", False), ("local", "threadIdx.x", False), ("local", "vthread", False),
])
def test_need_relax_by_storage_and_thread_rank(scope, tag, relaxed):
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((8,), lambda i: B[i] * 2.0, name="C")
    s = te.create_schedule(C.op)
    s[B].set_scope(scope)
    s[C].bind(C.op.axis[0], te.thread_axis(tag))
    ctx = BoundContext(s)
    rank = ctx.storage_rank(s[B])
    # a thread loop is relaxed by its tag, wherever it sits relative to the attach point
    for found in (False, True):
        assert ctx.need_relax(C.op.axis[0], found, rank) is relaxed
    # a plain loop: relaxed exactly when it does not enclose the stage
    assert ctx.need_relax(B.op.axis[0], False, rank) and \
        not ctx.need_relax(B.op.axis[0], True, rank)


def test_default_scope_follows_the_attach_path():
    """No scope set: global at the root, shared under block loops only, local under a thread
    loop (TVM's InferStorageScope)."""
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((64,), lambda i: B[i] * 2.0, name="C")
    ranks = {}
    for at in ("root", "bx", "tx"):
        s = te.create_schedule(C.op)
        bx, tx = s[C].split(C.op.axis[0], factor=16)
        s[C].bind(bx, te.thread_axis("blockIdx.x"))
        s[C].bind(tx, te.thread_axis("threadIdx.x"))
        if at != "root":
            s[B].compute_at(s[C], bx if at == "bx" else tx)
        ranks[at] = BoundContext(s).storage_rank(s[B])
        # and the region that follows: all 64 at the root, the block's 16, one per thread
        assert realize(s, False)["B"][0] == {"root": (64,), "bx": (16,), "tx": (1,)}[at]
    assert ranks == {"root": 0, "bx": 1, "tx": 3}


# --- TVM's bound inference tests with threads -------------------------------------------------

def _bound3(scope):
    m, n = te.var("m"), te.var("n")
    A = te.placeholder((m, n), name="A")
    A1 = te.compute((m, n), lambda i, j: A[i, j], name="A1")
    A2 = te.compute((m, n), lambda i, j: A1[i, j] + 3, name="A2")
    s = te.create_schedule(A2.op)
    if scope is not None:
        s[A1].set_scope(scope)
    xo, xi = s[A2].split(A2.op.axis[0], 32)
    xi0, xi1 = s[A2].split(xi, nparts=16)
    s[A2].bind(xi0, te.thread_axis("threadIdx.x"))
    yo, yi = s[A2].split(A2.op.axis[1], 16)
    s[A2].reorder(xo, xi0, yo, xi1, yi)
    s[A1].compute_at(s[A2], yo)
    return s, A1


@MODES
@pytest.mark.parametrize("scope,rows", [("shared", 32), ("global", 32), ("warp", 32),
                                        ("local", 2), (None, 2)])
def test_stage_inside_a_thread_loop_covers_the_threads_its_storage_is_shared_by(
        exact, scope, rows):
    """TVM's test_bound3: A1 at A2's column tile, inside a threadIdx.x loop of 16 threads
    that each take 2 of 32 rows. Shared (and global, and warp: threadIdx.x) storage holds the
    rows of all 16 threads; local storage (also the default inside a thread loop) holds
    one thread's 2 rows, starting at 2 * threadIdx.x."""
    s, A1 = _bound3(scope)
    _, bm = bounds(s, exact)
    assert extents(bm, A1) == [rows, 16]
    assert ("threadIdx.x" in free_names(bm[A1.op.axis[0]].min)) is (rows == 2)


@MODES
@pytest.mark.parametrize("scope,rows", [("warp", 16), ("shared", 32)])
def test_warp_storage_relaxes_threadIdx_x_only(exact, scope, rows):
    """TVM's test_bound_warp: rows split 32 = threadIdx.y (2) x threadIdx.x (16). Warp memory
    is shared by the threads of a warp (threadIdx.x) only: 16 rows; shared memory by all: 32."""
    m, n = te.var("m"), te.var("n")
    A = te.placeholder((m, n), name="A")
    A1 = te.compute((m, n), lambda i, j: A[i, j], name="A1")
    A2 = te.compute((m, n), lambda i, j: A1[i, j] + 3, name="A2")
    s = te.create_schedule(A2.op)
    s[A1].set_scope(scope)
    xo, xi = s[A2].split(A2.op.axis[0], 32)
    xi0, xi1 = s[A2].split(xi, factor=16)
    tx = te.thread_axis("threadIdx.x")
    s[A2].bind(xi1, tx)
    s[A2].bind(xi0, te.thread_axis("threadIdx.y"))
    s[A1].compute_at(s[A2], A2.op.axis[1])
    _, xi = s[A1].split(s[A1].op.axis[0], factor=16)
    s[A1].bind(xi, tx)
    _, bm = bounds(s, exact)
    assert extents(bm, A1)[0] == rows


@MODES
def test_nested_thread_stages(exact):
    """TVM's test_bound_nest_thread: at A3's threadIdx.x loop, the local A1 holds the one
    element of its thread, the shared A2 the 32 of the block (its own loop bound to the same
    threadIdx.x)."""
    m = te.var("m")
    A = te.placeholder((m,), name="A")
    A1 = te.compute((m,), lambda i: A[i], name="A1")
    A2 = te.compute((m,), lambda i: A1[i] + 2, name="A2")
    A3 = te.compute((m,), lambda i: A2[i] + 3, name="A3")
    s = te.create_schedule(A3.op)
    s[A2].set_scope("shared")
    s[A1].set_scope("local")
    block_x, thread_x = te.thread_axis("blockIdx.x"), te.thread_axis("threadIdx.x")
    bx, tx = s[A3].split(A3.op.axis[0], factor=32)
    s[A3].bind(bx, block_x)
    s[A3].bind(tx, thread_x)
    s[A2].compute_at(s[A3], tx)
    _, xi = s[A2].split(A2.op.axis[0], nparts=1)
    s[A2].bind(xi, thread_x)
    s[A1].compute_at(s[A3], tx)
    _, bm = bounds(s, exact)
    assert extents(bm, A1) == [1]
    assert extents(bm, A2) == [32]
    assert tir.structural_equal(bm[A3.op.axis[0]].extent, m)


def _gemm(n=1024, scale=8, num_thread=8):
    """TVM's test_gemm_bound schedule (also test_gemm in its GPU tests)."""
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda ii, jj: te.sum(A[ii, k] * B[jj, k], axis=k), name="CC")
    s = te.create_schedule(C.op)
    block_factor = scale * num_thread
    block_x, thread_x = te.thread_axis("blockIdx.x"), te.thread_axis("threadIdx.x")
    block_y, thread_y = te.thread_axis("blockIdx.y"), te.thread_axis("threadIdx.y")
    CC = s.cache_write(C, "local")
    AA = s.cache_read(A, "shared", [CC])
    BB = s.cache_read(B, "shared", [CC])
    by, yi = s[C].split(C.op.axis[0], factor=block_factor)
    bx, xi = s[C].split(C.op.axis[1], factor=block_factor)
    s[C].reorder(by, bx, yi, xi)
    s[C].bind(by, block_y)
    s[C].bind(bx, block_x)
    ty, yi = s[C].split(yi, nparts=num_thread)
    tx, xi = s[C].split(xi, nparts=num_thread)
    s[C].reorder(ty, tx, yi, xi)
    s[C].bind(ty, thread_y)
    s[C].bind(tx, thread_x)
    yo, xo = CC.op.axis
    s[CC].reorder(k, yo, xo)
    s[CC].compute_at(s[C], tx)
    s[AA].compute_at(s[CC], k)
    s[BB].compute_at(s[CC], k)
    for T in (AA, BB):
        ty, xi = s[T].split(s[T].op.axis[0], nparts=num_thread)
        tx, xi = s[T].split(xi, nparts=num_thread)
        s[T].bind(ty, thread_y)
        s[T].bind(tx, thread_x)
    return s, (A, B, C), AA, BB, CC


@MODES
def test_gemm_shared_and_local_tiles(exact):
    """TVM's test_gemm_bound: the shared tiles at CC's k loop cover the block's 64 rows
    (8 threadIdx.y x 8 rows each) and one k; the local accumulator one thread's 8 x 8."""
    s, args, AA, BB, CC = _gemm()
    _, bm = bounds(s, exact)
    assert extents(bm, AA) == [64, 1]
    assert extents(bm, BB) == [64, 1]
    assert extents(bm, CC) == [8, 8]
    sizes = realize(s, exact)
    assert sizes["A.shared"] == ((64, 1), "shared")
    assert sizes["CC.local"] == ((8, 8), "local")
    assert exact is False or bm.exact_fallbacks == []


def _local_stage_predicate(thread_tag, scope):
    A = te.placeholder((1, 3, 2), name="A")
    B = te.compute((1, 3, 2), lambda i, j, k: A[i, j, k], name="B")
    C = te.compute((1, 3, 2), lambda i, j, k: B[i, j, k], name="C")
    s = te.create_schedule(C.op)
    s[B].compute_at(s[C], s[C].op.axis[0])
    s[B].set_scope(scope)
    _, bni = s[B].split(s[B].op.axis[1], 3)
    s[C].bind(s[C].op.axis[0], te.thread_axis("blockIdx.x"))
    s[C].bind(s[C].op.axis[1], thread_tag)
    s[B].bind(bni, thread_tag)
    return s, [A, C], B


@MODES
@pytest.mark.parametrize("tag,scope,rows", [("threadIdx.x", "local", 1), ("vthread", "local", 1),
                                            ("blockIdx.y", "shared", 1),
                                            ("threadIdx.x", "shared", 3)])
def test_stage_private_to_a_thread_needs_no_guard(exact, tag, scope, rows):
    """TVM's test_local_stage_predicate: B's loop and C's loop share one thread axis; a local
    B under threadIdx/vthread (or a shared B under blockIdx) is one row per thread and its
    loop takes the range's min, so nothing is guarded."""
    s, args, B = _local_stage_predicate(te.thread_axis(tag), scope)
    assert realize(s, exact)["B"][0] == (1, rows, 2)
    func = tepad.lower(s, args, exact_bounds=exact)["main"]
    assert not nodes(func, tir.IfThenElse)


@MODES
def test_local_cache_of_a_shared_stage_at_the_block_loop(exact):
    """TVM's test_local_stage_predicate2: the local AA at the block loop serves one thread's
    reads of B (B at C's second loop, B's inner loop on the same threadIdx.x): per thread the
    elements tx, tx+32, tx+64, tx+96 -- a 97-element box starting at threadIdx.x (interval
    and exact agree on the box; exact adds a predicate for the 4 points), no guard."""
    A = te.placeholder((128,), name="A")
    B = te.compute((128,), lambda bi: A[bi] + 1, name="B")
    C = te.compute((128,), lambda ci: B[ci] + 2, name="C")
    s = te.create_schedule(C.op)
    AA = s.cache_read(A, "local", [B])
    s[B].set_scope("shared")
    block_x = te.thread_axis("blockIdx.x")
    thread_x = te.thread_axis((0, 32), "threadIdx.x")
    oc, ic = s[C].split(s[C].op.axis[0], factor=64)
    ooc, ioc = s[C].split(oc, factor=2)
    oic, iic = s[C].split(ic, factor=32)
    s[C].bind(ooc, block_x)
    s[C].bind(iic, thread_x)
    s[B].compute_at(s[C], ioc)
    ob, ib = s[B].split(s[B].op.axis[0], factor=32)
    s[B].bind(ib, thread_x)
    s[AA].compute_at(s[C], ooc)
    _, iaa = s[AA].split(s[AA].op.axis[0], factor=32)
    s[AA].bind(iaa, thread_x)
    _, bm = bounds(s, exact)
    assert extents(bm, AA) == [97] and free_names(bm[AA.op.axis[0]].min) == {"threadIdx.x"}
    assert extents(bm, B) == [64]
    func = tepad.lower(s, [A, C], exact_bounds=exact)["main"]
    assert not nodes(func, tir.IfThenElse)
    assert [tuple(int(e) for e in a.extents) for a in nodes(func, tir.Allocate)
            if a.annotations.get("scope") == "local" or "local" in a.buffer_var.name] \
        == [(97,)]
    if exact:
        r = bm.exact_regions[AA.op]
        pts = _points(r, {"threadIdx.x": 5, "blockIdx.x": 0, "ci.outer.outer": 0})
        assert pts == [(5,), (37,), (69,), (101,)]


# --- worked examples (docs/inferbound.md, "Threads") ----------------------------------------

def _matmul_tile(scope, at, n=64):
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    AS = s.cache_read(A, scope, [C])
    bi, ti = s[C].split(C.op.axis[0], factor=16)
    bj, tj = s[C].split(C.op.axis[1], factor=16)
    s[C].reorder(bi, bj, ti, tj)
    s[C].bind(bi, te.thread_axis("blockIdx.y"))
    s[C].bind(bj, te.thread_axis("blockIdx.x"))
    s[C].bind(ti, te.thread_axis("threadIdx.y"))
    s[C].bind(tj, te.thread_axis("threadIdx.x"))
    s[AS].compute_at(s[C], {"block": bj, "thread": tj}[at])
    return s, (A, B, C), AS


@MODES
@pytest.mark.parametrize("scope,at,shape,mins", [
    ("shared", "block", (16, 64), {"blockIdx.y"}),
    ("shared", "thread", (16, 64), {"blockIdx.y"}),
    ("local", "block", (1, 64), {"blockIdx.y", "threadIdx.y"}),
    ("local", "thread", (1, 64), {"blockIdx.y", "threadIdx.y"}),
    ("global", "block", (64, 64), set()),
])
def test_matmul_row_tile_by_scope(exact, scope, at, shape, mins):
    """C = A x B in 16 x 16 blocks, one thread per element. A's cache at C's block loop or
    thread loop: shared holds the block's 16 rows (whatever its attach point), local the
    thread's row (at the block loop too: the copy is per thread, at row
    16 * blockIdx.y + threadIdx.y), global every row (it is shared by the blocks)."""
    s, _, AS = _matmul_tile(scope, at)
    assert realize(s, exact)[AS.op.name] == (shape, scope)
    _, bm = bounds(s, exact)
    assert free_names(bm[AS.op.axis[0]].min) == mins


def _vthread_gemm(n=256, scale=8, num_thread=8):
    """TVM's GPU gemm (topi/recipe/gemm): 64 x 64 blocks, 2 x 2 virtual threads of 8 x 8
    threads, each computing a 4 x 4 tile; A, B staged in shared memory per 8-wide k step and
    in registers per k."""
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[k, i] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    AA, BB = s.cache_read(A, "shared", [C]), s.cache_read(B, "shared", [C])
    AL, BL = s.cache_read(AA, "local", [C]), s.cache_read(BB, "local", [C])
    CC = s.cache_write(C, "local")
    bf = scale * num_thread
    thread_x, thread_y = te.thread_axis("threadIdx.x"), te.thread_axis("threadIdx.y")
    by, yi = s[C].split(C.op.axis[0], factor=bf)
    bx, xi = s[C].split(C.op.axis[1], factor=bf)
    s[C].bind(by, te.thread_axis("blockIdx.y"))
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].reorder(by, bx, yi, xi)
    tyz, yi = s[C].split(yi, nparts=2)
    ty, yi = s[C].split(yi, nparts=num_thread)
    txz, xi = s[C].split(xi, nparts=2)
    tx, xi = s[C].split(xi, nparts=num_thread)
    s[C].bind(tyz, te.thread_axis("vthread", name="vy"))
    s[C].bind(txz, te.thread_axis("vthread", name="vx"))
    s[C].bind(ty, thread_y)
    s[C].bind(tx, thread_x)
    s[C].reorder(by, bx, tyz, txz, ty, tx, yi, xi)
    s[CC].compute_at(s[C], tx)
    yo, xo = CC.op.axis
    ko, ki = s[CC].split(k, factor=8)
    kt, ki = s[CC].split(ki, factor=1)
    s[CC].reorder(ko, kt, ki, yo, xo)
    s[AA].compute_at(s[CC], ko)
    s[BB].compute_at(s[CC], ko)
    s[AL].compute_at(s[CC], kt)
    s[BL].compute_at(s[CC], kt)
    for T in (AA, BB):
        f = s[T].fuse(*s[T].op.axis)
        ty2, r = s[T].split(f, nparts=num_thread)
        tx2, _ = s[T].split(r, nparts=num_thread)
        s[T].bind(ty2, thread_y)
        s[T].bind(tx2, thread_x)
    return s, (A, B, C)


@MODES
def test_vthread_gemm_tiles(exact):
    """Shared tiles cover the virtual threads too (vthread has threadIdx's rank): 8 k x 64
    columns per block; the local accumulator and register tiles are per virtual thread:
    4 x 4, and 1 x 4."""
    s, _ = _vthread_gemm()
    sizes = realize(s, exact)
    assert sizes["A.shared"] == ((8, 64), "shared")
    assert sizes["B.shared"] == ((8, 64), "shared")
    assert sizes["A.shared.local"] == ((1, 4), "local")
    assert sizes["C.local"] == ((4, 4), "local")
    _, bm = bounds(s, exact)
    assert exact is False or bm.exact_fallbacks == []


@MODES
def test_local_cache_write_relayout_under_threads(exact):
    """A local cache_write in a relayout schedule (TVM's test_schedule_cache_relayout2: split
    rows by 4, columns outside the 4 rows) with the row blocks on blockIdx and the columns on
    threadIdx: at the thread loop the cache holds that thread's 4 rows of one column; at the
    block loop, still one thread's (local storage is private), and as shared the block's."""
    for scope, at, shape in (("local", "y", (4, 1)), ("local", "xo", (4, 1)),
                             ("shared", "xo", (4, 32))):
        A = te.placeholder((32, 32), name="A")
        C = te.compute(A.shape, lambda i, j: A[i, j] * 2.0, name="C")
        s = te.create_schedule(C.op)
        CC = s.cache_write(C, scope)
        x, y = s[C].op.axis
        xo, xi = s[C].split(x, factor=4)
        s[C].reorder(xo, y, xi)
        s[C].bind(xo, te.thread_axis("blockIdx.x"))
        s[C].bind(y, te.thread_axis("threadIdx.x"))
        s[CC].compute_at(s[C], {"y": y, "xo": xo}[at])
        assert realize(s, exact)[CC.op.name] == (shape, scope), (scope, at)


# --- exact mode ---------------------------------------------------------------------------------

def _points(region, values):
    """The points of an exact region with its parameters fixed: ``values`` maps a tir name
    (a thread tag's var such as ``blockIdx.x``, or a loop var) to its value; loop vars bound
    to a thread take the thread's value when not given."""
    r = region
    for k in range(r.dim(isl.dim_type.param)):
        name = r.get_dim_name(isl.dim_type.param, k)
        base = name.rsplit("_", 1)[0].replace("_", ".")
        hit = [v for key, v in values.items() if base == key]
        assert hit, f"no value for parameter {name}"
        r = r.fix_val(isl.dim_type.param, k, isl.Val.int_from_si(r.get_ctx(), hit[0]))
    r = r.project_out(isl.dim_type.param, 0, r.dim(isl.dim_type.param))
    pts = []
    r.foreach_point(lambda p: pts.append(tuple(
        p.get_coordinate_val(isl.dim_type.set, d).to_python() for d in range(r.dim(
            isl.dim_type.set)))))
    return sorted(pts)


def _fused_block(scope="shared"):
    """C (8 x 48) with its two axes fused and split into blocks of 64 threads; A's cache at
    the block loop. A block's 64 elements span two rows, but not whole rows."""
    A = te.placeholder((8, 48), name="A")
    C = te.compute((8, 48), lambda i, j: A[i, j] * 2.0, name="C")
    s = te.create_schedule(C.op)
    AS = s.cache_read(A, scope, [C])
    f = s[C].fuse(*C.op.axis)
    bx, tx = s[C].split(f, factor=64)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    s[AS].compute_at(s[C], bx)
    return s, (A, C), AS


def test_exact_shared_tile_is_the_union_over_the_threads_of_the_block():
    """Interval mode caches 2 whole rows (96 elements) per block; exact mode's region is the
    64 elements the block's threads read -- checked against the reads enumerated here, for
    every block -- and its box (also 2 x 48) gets a predicate, so 64 are computed."""
    s, _, AS = _fused_block()
    _, bi = bounds(s, False)
    _, be = bounds(s, True)
    assert extents(bi, AS) == [2, 48] and AS.op not in bi.predicates
    assert extents(be, AS) == [2, 48] and len(be.predicates[AS.op]) == 1
    assert be.exact_fallbacks == []
    for b in range(6):
        reads = sorted({(f // 48, f % 48) for f in range(64 * b, 64 * b + 64)})
        assert _points(be.exact_regions[AS.op], {"blockIdx.x": b, "i.j.fused.outer": b}) \
            == reads


def test_exact_local_tile_is_one_thread_at_the_block_loop():
    """A local cache at the block loop, one element per thread: exact mode keeps threadIdx.x
    as a parameter (not relaxed) and the region is the thread's single element."""
    s, _, AS = _fused_block("local")
    _, be = bounds(s, True)
    assert extents(be, AS) == [1, 1]
    for b, t in ((0, 0), (2, 37), (5, 63)):
        f = 64 * b + t
        assert _points(be.exact_regions[AS.op],
                       {"blockIdx.x": b, "i.j.fused.outer": b, "threadIdx.x": t}) \
            == [(f // 48, f % 48)]


@pytest.mark.parametrize("make", [
    lambda: _gemm(n=256)[0], lambda: _vthread_gemm()[0], lambda: _fused_block()[0],
    lambda: _fused_block("local")[0], lambda: _bound3("shared")[0], lambda: _bound3("local")[0],
    lambda: _matmul_tile("shared", "block")[0], lambda: _matmul_tile("local", "block")[0],
], ids=["gemm", "vthread_gemm", "fused_shared", "fused_local", "bound3_shared",
        "bound3_local", "tile_shared", "tile_local"])
def test_exact_is_never_looser_than_interval_with_threads(make):
    """Every stage's box in exact mode fits in interval mode's (constant extents compared),
    and exact mode needed no interval fallback."""
    s = make()
    s2, bi = bounds(s, False)
    be = infer_bound(s2, exact=True)
    assert be.exact_fallbacks == []
    for stage in s2.stages:
        if not hasattr(stage.op, "axis") or stage.is_output:
            continue
        for iv in stage.op.axis:
            ei, ee = bi[iv].extent, be[iv].extent
            if isinstance(ei, tir.IntImm) and isinstance(ee, tir.IntImm):
                assert ee.value <= ei.value, (stage.name, iv.name)


# --- bind mistakes ------------------------------------------------------------------------------

def _chain():
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] + 1.0, name="B")
    return A, B, te.create_schedule(B.op)


def test_split_or_fuse_of_a_bound_axis_is_refused():
    """TVM accepts the split and silently drops the binding (the bound axis is no longer a
    loop); tepad refuses it at the call."""
    A, B, s = _chain()
    s[B].bind(B.op.axis[0], te.thread_axis("threadIdx.x"))
    with pytest.raises(TepadError, match=r"stage B: split of i, which is bound to threadIdx.x"):
        s[B].split(B.op.axis[0], factor=4)
    A = te.placeholder((8, 8), name="A")
    C = te.compute((8, 8), lambda i, j: A[i, j], name="C")
    s = te.create_schedule(C.op)
    s[C].bind(C.op.axis[1], te.thread_axis("threadIdx.x"))
    with pytest.raises(TepadError, match=r"stage C: fuse of j, which is bound to threadIdx.x"):
        s[C].fuse(*C.op.axis)


def test_bind_of_a_split_axis_is_refused():
    A, B, s = _chain()
    xo, xi = s[B].split(B.op.axis[0], factor=4)
    with pytest.raises(TepadError, match=r"stage B: bind on i, which is no longer a leaf"):
        s[B].bind(B.op.axis[0], te.thread_axis("threadIdx.x"))
    s[B].bind(xi, te.thread_axis("threadIdx.x"))     # the pieces can be bound


def test_bind_to_an_unknown_thread_tag_is_refused():
    A, B, s = _chain()
    with pytest.raises(TepadError, match=r"stage B: bind\(i, ...\) to a thread axis tagged "
                                         r"'threadIdx.w'; valid tags are blockIdx"):
        s[B].bind(B.op.axis[0], te.thread_axis("threadIdx.w"))


def test_rebinding_warns_and_rebinds():
    """TVM warns and keeps the new binding."""
    A, B, s = _chain()
    s[B].bind(B.op.axis[0], te.thread_axis("threadIdx.x"))
    with pytest.warns(UserWarning, match=r"stage B: axis i was bound to threadIdx.x .* now "
                                         r"bound to blockIdx.x"):
        s[B].bind(B.op.axis[0], te.thread_axis("blockIdx.x"))
    assert s[B].iter_var_attrs[B.op.axis[0]].bind_thread.thread_tag == "blockIdx.x"
    t = te.thread_axis("threadIdx.y")
    with pytest.warns(UserWarning):
        s[B].bind(B.op.axis[0], t)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s[B].bind(B.op.axis[0], t)                   # the same thread axis again: silent


def test_bind_of_a_scan_time_axis_is_refused_but_a_reduce_axis_is_bound():
    m, n = 4, 8
    X = te.placeholder((m, n), name="X")
    state = te.placeholder((m, n), name="state")
    init = te.compute((1, n), lambda _, i: X[0, i], name="init")
    update = te.compute((m, n), lambda t, i: state[t - 1, i] + X[t, i], name="update")
    scan = te.scan(init, update, state, [X], name="scan")
    s = te.create_schedule(scan.op)
    time = s[scan].leaf_iter_vars[0] if s[scan].leaf_iter_vars else scan.op.scan_axis
    with pytest.raises(TepadError, match="stage scan"):
        s[scan].bind(time, te.thread_axis("threadIdx.x"))
    # a reduction axis may be bound (cross-thread reduction, TVM's test_lower_rfactor)
    A = te.placeholder((16, 32), name="A")
    k = te.reduce_axis((0, 32), name="k")
    R = te.compute((16,), lambda i: te.sum(A[i, k], axis=k), name="R")
    s = te.create_schedule(R.op)
    s[R].bind(k, te.thread_axis("threadIdx.x"))
    s[R].bind(R.op.axis[0], te.thread_axis("blockIdx.x"))
    tepad.lower(s, [A, R])


# --- TVM's GPU tutorials' schedules --------------------------------------------------------

@MODES
def test_rfactor_cross_thread_reduction_schedule(exact):
    """reduction.py: rows on blockIdx.x x threadIdx.y, the rfactor'ed reduction axis on
    threadIdx.x with BF computed at it. BF is local (the default under a thread loop): one
    partial sum per thread, i.e. one row and one of the 16 lanes."""
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), name="k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    _, ki = s[B].split(B.op.reduce_axis[0], factor=16)
    BF = s.rfactor(B, ki)
    xo, xi = s[B].split(s[B].op.axis[0], factor=32)
    s[B].bind(xo, te.thread_axis("blockIdx.x"))
    s[B].bind(xi, te.thread_axis("threadIdx.y"))
    tx = te.thread_axis("threadIdx.x")
    s[B].bind(s[B].op.reduce_axis[0], tx)
    s[BF].compute_at(s[B], s[B].op.reduce_axis[0])
    _, bm = bounds(s, exact)
    assert extents(bm, BF) == [1, 1]
    # as shared storage it covers the block: 32 rows (threadIdx.y) x 16 lanes (threadIdx.x)
    s[BF].set_scope("shared")
    _, bm = bounds(s, exact)
    assert sorted(extents(bm, BF)) == [16, 32]


def _conv_hwcn(batch=256, in_channel=256, out_channel=512, in_size=14):
    """opt_conv_cuda.py's schedule (HWCN conv, 3x3, pad 1) as examples/gpu/conv2d_hwcn.py
    writes it: 64 x 64 output tiles per block over (filters, batch), 2 x 2 virtual threads of
    8 x 8 threads, 4 x 4 per thread; the padded input and the weights staged in shared memory
    per 8 input channels and in registers per channel."""
    path = Path(__file__).resolve().parents[2] / "examples" / "gpu" / "conv2d_hwcn.py"
    spec = importlib.util.spec_from_file_location("gpu_example_conv2d_hwcn", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    s, _, st = example.schedule_with_stages(batch, in_channel, out_channel, in_size)
    return s, st["AA"], st["WW"], st["AL"], st["WL"], st["BL"]


@MODES
def test_opt_conv_cuda_tiles(exact):
    """Per block and (ry, rx, 8 input channels): 8 x 64 shared tiles of the input and the
    weights; per thread and channel 4 values of each in registers; a 4 x 4 accumulator per
    virtual thread."""
    s, AA, WW, AL, WL, BL = _conv_hwcn()
    _, bm = bounds(s, exact)
    assert extents(bm, AA) == [1, 1, 8, 64]
    assert extents(bm, WW) == [1, 1, 8, 64]
    assert extents(bm, AL) == [1, 1, 1, 4]
    assert extents(bm, WL) == [1, 1, 1, 4]
    assert extents(bm, BL) == [1, 1, 4, 4]
    assert exact is False or bm.exact_fallbacks == []


# --- random GPU schedules: regions against the reads enumerated here -----------------------

_SCOPE_RANK = {"global": 0, "shared": 1, "warp": 2, "local": 3}


def _relaxed(scope, tag):
    """The relax rule, restated here for the check (storage rank <= thread rank)."""
    if scope == "warp" and tag == "threadIdx.x":
        return True
    return _SCOPE_RANK[scope] <= (0 if tag.startswith("blockIdx") else 1)


def _gpu_case(data):
    """A random GPU schedule of ``C[i, j] = A[..] + A[..]`` (strided, offset reads): C tiled
    on blocks and threads, fused, or with serial loops around and inside a thread loop; A
    cached in a random scope at a random loop of C, and sometimes a local copy of that cache
    at a loop at or inside it (the shared tile + register tile pattern), the cache's own loop
    then sometimes bound to C's threadIdx.x (cooperative fetching). Returns the schedule,
    the tensors, the reads of one point of C, the bindings of C's leaves, and the caches as
    ``(tensor, scope, index of C's leaf it is attached at or -1, direct reader of C?)``."""
    h = data.draw(st.integers(2, 9), "h")
    w = data.draw(st.integers(4, 33), "w")
    sa, da = data.draw(st.sampled_from([1, 2])), data.draw(st.integers(0, 2))
    sb, db = data.draw(st.sampled_from([1, 2, 3])), data.draw(st.integers(0, 3))
    A = te.placeholder((h * sa + 2, w * sb + 3), name="A")
    C = te.compute((h, w), lambda i, j: A[i * sa + da, j * sb + db] + A[i * sa, j * sb],
                   name="C")

    def reads(i, j):
        return {(i * sa + da, j * sb + db), (i * sa, j * sb)}

    s = te.create_schedule(C.op)
    scope = data.draw(st.sampled_from(["shared", "local", "global", "warp"]), "scope")
    AS = s.cache_read(A, scope, [C])
    two = scope in ("shared", "global") and data.draw(st.booleans(), "local copy")
    AL = s.cache_read(AS, "local", [C]) if two else None
    kind = data.draw(st.sampled_from(["tile", "fused", "serial"]), "kind")
    i, j = C.op.axis
    if kind == "tile":
        bi, ti = s[C].split(i, factor=data.draw(st.integers(1, 4)))
        bj, tj = s[C].split(j, factor=data.draw(st.integers(2, 16)))
        s[C].reorder(bi, bj, ti, tj)
        binds = [(bi, "blockIdx.y"), (bj, "blockIdx.x"), (ti, "threadIdx.y"),
                 (tj, "threadIdx.x")]
    elif kind == "fused":
        bx, tx = s[C].split(s[C].fuse(i, j), factor=data.draw(st.integers(2, 40)))
        binds = [(bx, "blockIdx.x"), (tx, "threadIdx.x")]
    else:
        bj, tj = s[C].split(j, factor=data.draw(st.integers(2, 16)))
        tx, _ = s[C].split(tj, nparts=data.draw(st.integers(1, 4)))
        s[C].reorder(bj, i, tx)
        binds = [(bj, "blockIdx.x"), (tx, "threadIdx.x")]
    axes = {}
    for ax, tag in binds:
        axes[tag] = te.thread_axis(tag)
        s[C].bind(ax, axes[tag])
    leaves = list(s[C].leaf_iter_vars)
    at = data.draw(st.integers(-1 if not two else 0, len(leaves) - 1), "at")
    if at >= 0:
        s[AS].compute_at(s[C], leaves[at])
    caches = [(AS, scope, at, not two)]
    if two:
        at2 = data.draw(st.integers(at, len(leaves) - 1), "at2")
        s[AL].compute_at(s[C], leaves[at2])
        caches.append((AL, "local", at2, True))
        bound = dict(binds)
        tx_pos = [k for k, iv in enumerate(leaves) if bound.get(iv) == "threadIdx.x"]
        if all(at < k for k in tx_pos) and data.draw(st.booleans(), "cooperative"):
            s2, bm = bounds(s.copy(), False)
            ext = bm[s2[C].leaf_iter_vars[tx_pos[0]]].extent.value
            fo, _ = s[AS].split(s[AS].op.axis[-1], nparts=ext)
            s[AS].bind(fo, axes["threadIdx.x"])
    return s, (A, C), reads, dict(binds), caches


def _eval(e, env):
    ana = tepad.arith.Analyzer()
    v = ana.simplify(tir.stmt_functor.substitute(
        e, {var: tir.const(x, var.dtype) for var, x in env.items()}))
    assert isinstance(v, tir.IntImm), v
    return v.value


def _reads_by_key(s2, bi, C, binds_by_pos, reads, scope, at):
    """What C reads, enumerated by running C's loop nest: ``{key: set of A points}``, the key
    the values of the loops and threads a cache of ``scope`` at C's leaf ``at`` is not
    relaxed over (by the rule restated in ``_relaxed``)."""
    st_c = s2[C]
    leaves = list(st_c.leaf_iter_vars)
    fixed = []                                 # (leaf, the name its value goes by)
    for k, iv in enumerate(leaves):
        tag, on_path = binds_by_pos.get(k), 0 <= k <= at
        if tag is not None and not _relaxed(scope, tag):
            fixed.append((iv, tag))
        if on_path and (tag is None or not _relaxed(scope, tag)):
            fixed.append((iv, iv.var.name))
    groups = {}
    rng = [range(_eval(bi[iv].extent, {})) for iv in leaves]
    for vals in itertools.product(*rng):
        val = dict(zip(leaves, vals))
        for rel in reversed(st_c.relations):
            kind = type(rel).__name__
            if kind == "Split":
                val[rel.parent] = val[rel.outer] * _eval(bi[rel.inner].extent, {}) + val[rel.inner]
            elif kind == "Fuse":
                e = _eval(bi[rel.inner].extent, {})
                val[rel.outer], val[rel.inner] = val[rel.fused] // e, val[rel.fused] % e
            elif kind == "Rebase":
                val[rel.parent] = val[rel.rebased]
        # ScheduleOps guards every IterVar to its range (the parent of a split by nparts
        # that does not divide, the root past the shape)
        if any(not 0 <= val[iv] < _eval(bi[iv].extent, {}) for iv in val):
            continue
        i, j = (val[iv] for iv in C.op.axis)
        key = tuple(sorted({(name, val[iv]) for iv, name in fixed}))
        groups.setdefault(key, set()).update(reads(i, j))
    return groups


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_random_gpu_regions_are_exactly_the_reads(data):
    """Per value of the loops and threads a region is a function of (the attach path's loops
    not relaxed, the threads not relaxed), enumerate what C reads by running its loop nest
    here. The region of a cache C reads must be that set in exact mode; a cache read through
    a local copy must hold it (the copy may compute its box); interval boxes must hold it."""
    s, (A, C), reads, binds, caches = _gpu_case(data)
    s2, bi = bounds(s, False)
    be = infer_bound(s2, exact=True)
    assert be.exact_fallbacks == []
    st_c = s2[C]
    leaves = list(st_c.leaf_iter_vars)
    by_pos = {k: binds[iv] for k, iv in enumerate(s[C].leaf_iter_vars) if iv in binds}
    tvars = {a.bind_thread.var.name: a.bind_thread.var for a in st_c.iter_var_attrs.values()
             if a.bind_thread is not None}
    for T, scope, at, direct in caches:
        for key, pts in _reads_by_key(s2, bi, C, by_pos, reads, scope, at).items():
            values = dict(key)
            got = _points(be.exact_regions[T.op], values)
            if direct:
                assert got == sorted(pts), (T.op.name, key)
            else:
                assert set(got) >= pts, (T.op.name, key)
            env = {iv.var: values[iv.var.name] for iv in leaves if iv.var.name in values}
            env.update({tvars[n]: v for n, v in values.items() if n in tvars})
            for bm in (bi, be):
                box = [(_eval(bm[iv].min, env), _eval(bm[iv].extent, env))
                       for iv in T.op.axis]
                assert all(lo <= p[d] < lo + ext for p in pts for d, (lo, ext) in
                           enumerate(box)), (T.op.name, key)
    for exact in (False, True):                # and both lower (no undefined loop variable)
        tepad.lower(s, [A, C], exact_bounds=exact)


@pytest.mark.parametrize("scope,at,computed,nbytes", [
    ("shared", "block", 72, 72), ("local", "thread", 192, 12), ("local", "block", 192, 12),
    ("global", "block", 264, 264)])
def test_explain_counts_one_copy_per_private_thread(scope, at, computed, nbytes):
    """``explain``: a 3-point stencil over 64 points in 4 blocks of 16 threads. The shared tile
    is computed once per block (4 x 18); a local copy once per thread (64 x 3), also when it
    is computed at the block loop; a global one at the block loop is all 66 elements, in each
    of the 4 blocks."""
    A = te.placeholder((66,), "float32", name="A")
    B = te.compute((64,), lambda i: A[i] + A[i + 1] + A[i + 2], name="B")
    s = te.create_schedule(B.op)
    AS = s.cache_read(A, scope, [B])
    bx, tx = s[B].split(B.op.axis[0], factor=16)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    s[AS].compute_at(s[B], bx if at == "block" else tx)
    row = next(r for r in tepad.bound.explain(s).stages if r.name == AS.op.name)
    assert (row.computed_interval, row.computed_exact) == (computed, computed)
    assert (row.bytes_interval, row.bytes_exact, row.needed) == (nbytes, nbytes, 66)


# --- thread axes' own ranges (the end of TVM's PassDownDomain) -----------------------------

@MODES
def test_split_for_the_thread_count_keeps_its_extent(exact):
    """A local stage of one row per thread, split by the 3 threads of its consumer: the piece
    bound to threadIdx.x keeps extent 3 (TVM does not tighten a piece a thread binding derives
    from), so every launch of threadIdx.x in the kernel has extent 3."""
    s, args, B = _local_stage_predicate(te.thread_axis("threadIdx.x"), "local")
    s2, bm = bounds(s, exact)
    inner = s2[B].leaf_iter_vars[-2]
    assert bm[inner].extent.value == 3
    func = tepad.lower(s, args, exact_bounds=exact)["main"]
    ext = {int(a.value) for a in nodes(func, tir.AttrStmt)
           if a.attr_key == "thread_extent" and a.node.thread_tag == "threadIdx.x"}
    assert ext == {3}
    # an unbound split is still tightened to its parent
    A = te.placeholder((2,), name="A")
    C = te.compute((2,), lambda i: A[i] + 1.0, name="C")
    s = te.create_schedule(C.op)
    _, xi = s[C].split(C.op.axis[0], factor=8)
    _, bm = bounds(s, exact)
    assert bm[xi].extent.value == 2


@MODES
def test_one_thread_axis_bound_to_two_extents_is_refused(exact):
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((64,), lambda i: B[i] * 2.0, name="C")
    s = te.create_schedule(C.op)
    tx = te.thread_axis("threadIdx.x")
    bx, ci = s[C].split(C.op.axis[0], factor=16)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(ci, tx)
    _, bi = s[B].split(B.op.axis[0], factor=8)
    s[B].bind(bi, tx)
    with pytest.raises(TepadError, match=r"stage (B|C): axis \S+ is bound to threadIdx.x "
                                         r"\(threadIdx.x\) with extent (8|16), but another "
                                         r"loop bound to the same thread axis has extent"):
        tepad.lower(s, [A, C], exact_bounds=exact)


def test_exact_fused_region_with_floor_divisions_needs_no_fallback():
    """A 2 x 11 loop fused and split by 6, A's cache at the outer loop: the region's extent is
    a piecewise quasi-affine function (floor divisions) whose maximum isl_pw_aff_max_val
    refuses; exact mode takes it over the function's graph instead of falling back."""
    for bind in (False, True):
        A = te.placeholder((4, 14), name="A")
        C = te.compute((2, 11), lambda i, j: A[i, j] * 2.0, name="C")
        s = te.create_schedule(C.op)
        AS = s.cache_read(A, "shared", [C])
        bx, tx = s[C].split(s[C].fuse(*C.op.axis), factor=6)
        if bind:
            s[C].bind(bx, te.thread_axis("blockIdx.x"))
            s[C].bind(tx, te.thread_axis("threadIdx.x"))
        s[AS].compute_at(s[C], bx)
        _, be = bounds(s, True)
        assert be.exact_fallbacks == []
        assert extents(be, AS) == [2, 11]
        for b in range(4):
            vals = {"i.j.fused.outer": b, "blockIdx.x": b}
            reads = sorted({(f // 11, f % 11) for f in range(6 * b, min(6 * b + 6, 22))})
            assert _points(be.exact_regions[AS.op],
                           {k: v for k, v in vals.items() if bind or k != "blockIdx.x"}) == reads
        if not bind:                    # on the CPU: the values, in exact mode
            a = np.arange(56, dtype="float32").reshape(4, 14)
            out = np.zeros((2, 11), "float32")
            tepad.build(tepad.lower(s, [A, C], exact_bounds=True))(a, out)
            np.testing.assert_allclose(out, a[:2, :11] * 2.0)


@MODES
def test_shared_producer_of_a_per_thread_copy_covers_the_block(exact):
    """A local copy at the block loop is per thread (it starts at 16 * blockIdx.x +
    threadIdx.x, 3 elements). The shared cache it copies from, at the same loop, must hold
    the block's 18 elements for all 16 threads: the thread variable the copy's range passes
    on is relaxed (TVM leaves it free and gives the shared cache one thread's 3)."""
    A = te.placeholder((66,), "float32", name="A")
    B = te.compute((64,), lambda i: A[i] + A[i + 1] + A[i + 2], name="B")
    s = te.create_schedule(B.op)
    AS = s.cache_read(A, "shared", [B])
    AL = s.cache_read(AS, "local", [B])
    bx, tx = s[B].split(B.op.axis[0], factor=16)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    s[AS].compute_at(s[B], bx)
    s[AL].compute_at(s[B], bx)
    _, bm = bounds(s, exact)
    assert extents(bm, AL) == [3] and free_names(bm[AL.op.axis[0]].min) == {
        "blockIdx.x", "threadIdx.x"}
    assert extents(bm, AS) == [18] and free_names(bm[AS.op.axis[0]].min) == {"blockIdx.x"}
