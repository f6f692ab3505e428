"""inject_virtual_thread (TVM's InjectVirtualThread): per-vthread copies, loops pushed in."""
from tepad import te, tir
from tepad.lower.passes.inject_virtual_thread import inject_virtual_thread
from tepad.tir import stmt as S
from tepad.tir.ir_builder import create

from gpu_helpers import allocs, gpu_lower, gpu_lower_until, nodes, syncs


def _vthread_kernel(nthread=2, m=4, n=100):
    """TVM's test_vthread: B is written through vthread tx only; ty never used."""
    ib = create()
    A = ib.pointer("float32", name="A")
    C = ib.pointer("float32", name="C")
    tx = te.thread_axis("vthread")
    ty = te.thread_axis("vthread")
    with ib.for_range(0, n, name="i") as i:
        ib.scope_attr(tx, "virtual_thread", nthread)
        ib.scope_attr(ty, "virtual_thread", nthread)
        B = ib.allocate("float32", m, name="B", scope="shared")
        B[i % m] = A[i * nthread + tx.var]
        C[i * nthread + tx.var] = B[i % m] + 1.0
    body = ib.get()
    return tir.PrimFunc([A.data, C.data], body, {}, {"global_symbol": "main"})


def test_touched_allocation_is_expanded_per_vthread_and_untouched_vthread_vanishes():
    f = inject_virtual_thread(_vthread_kernel())
    (alloc,) = nodes(f, S.Allocate)
    assert [int(e) for e in alloc.extents] == [8]            # 4 elements x 2 vthreads (tx)
    assert not [a for a in nodes(f, S.AttrStmt) if a.attr_key == "virtual_thread"]
    stores = nodes(f, S.BufferStore)
    # unrolled for tx = 0, 1 (no loop inside the touched statements); ty did nothing
    assert len(stores) == 4
    b_idx = sorted(str(s.indices[0]) for s in stores if s.buffer.name == "B")
    assert len(b_idx) == 2 and b_idx[0] != b_idx[1]


def test_untouched_vthread_leaves_allocations_alone():
    ib = create()
    A = ib.pointer("float32", name="A")
    tx = te.thread_axis("vthread")
    ib.scope_attr(tx, "virtual_thread", 4)
    B = ib.allocate("float32", 8, name="B", scope="local")
    B[0] = A[0]
    A[1] = B[0]
    f = inject_virtual_thread(tir.PrimFunc([A.data], ib.get(), {}, {"global_symbol": "m"}))
    (alloc,) = nodes(f, S.Allocate)
    assert [int(e) for e in alloc.extents] == [8]
    assert len(nodes(f, S.BufferStore)) == 2                   # run once


def _vthread_matmul():
    n = 64
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    AA = s.cache_read(A, "shared", [C])
    BB = s.cache_read(B, "shared", [C])
    CL = s.cache_write(C, "local")
    by, yi = s[C].split(C.op.axis[0], factor=16)
    bx, xi = s[C].split(C.op.axis[1], factor=16)
    tyz, yi = s[C].split(yi, nparts=2)
    ty, yi = s[C].split(yi, nparts=8)
    txz, xi = s[C].split(xi, nparts=2)
    tx, xi = s[C].split(xi, nparts=8)
    s[C].reorder(by, bx, tyz, txz, ty, tx, yi, xi)
    s[C].bind(by, te.thread_axis("blockIdx.y"))
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tyz, te.thread_axis("vthread"))
    s[C].bind(txz, te.thread_axis("vthread"))
    s[C].bind(ty, te.thread_axis("threadIdx.y"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    s[CL].compute_at(s[C], tx)
    ko, ki = s[CL].split(s[CL].op.reduce_axis[0], factor=8)
    s[AA].compute_at(s[CL], ko)
    s[BB].compute_at(s[CL], ko)
    for st in (AA, BB):
        fused = s[st].fuse(*s[st].op.axis)
        t1, rest = s[st].split(fused, nparts=8)
        t2, rest = s[st].split(rest, nparts=8)
        s[st].bind(t1, te.thread_axis("threadIdx.y"))
        s[st].bind(t2, te.thread_axis("threadIdx.x"))
    return s, [A, B, C]


def test_vthread_matmul_lowers_as_tvm_does():
    before = gpu_lower_until(*_vthread_matmul(), "inject_virtual_thread")
    assert len([a for a in nodes(before, S.AttrStmt) if a.attr_key == "virtual_thread"]) == 2
    f = gpu_lower(*_vthread_matmul())
    assert not [a for a in nodes(f, S.AttrStmt) if a.attr_key == "virtual_thread"]
    # the accumulator: one per vthread pair (2 x 2) in each thread
    assert allocs(f)["C.local"] == "local"
    cl = next(a for a in nodes(f, S.Allocate) if a.buffer_var.name == "C.local")
    assert [int(e) for e in cl.extents] == [4]
    # shared tiles are loaded once per k_outer step (not once per vthread) ...
    a_stores = [s for s in nodes(f, S.BufferStore) if s.buffer.name == "A.shared"]
    assert len(a_stores) == 1
    # ... and the four accumulations sit unrolled in the k_inner loop
    ki = next(x for x in nodes(f, S.For) if x.loop_var.name.replace(".", "_") == "k_inner")
    assert len([s for s in nodes(ki, S.BufferStore) if s.buffer.name == "C.local"]) == 4
    assert len(syncs(f)) == 2
    assert len([s for s in nodes(f, S.BufferStore) if s.buffer.name == "C"]) == 4


def test_a_call_writing_through_pointers_is_expanded_per_vthread_of_its_inputs():
    # TVM's test_vthread_extern: A touched by vx, B by vy; the call writes C from both
    m, nthread = 4, 2
    ib = create()
    vx = te.thread_axis("vthread")
    vy = te.thread_axis("vthread")
    with ib.for_range(0, 100, name="i"):
        ib.scope_attr(vx, "virtual_thread", nthread)
        ib.scope_attr(vy, "virtual_thread", nthread)
        A = ib.allocate("float32", m, name="A", scope="shared")
        B = ib.allocate("float32", m, name="B", scope="shared")
        C = ib.allocate("float32", m, name="C", scope="shared")
        A[vx.var] = vx.var.astype("float32") + 1.0
        B[vy.var] = vy.var.astype("float32") + 1.0
        ib.emit(tir.call_extern("int32", "Run", A.asobject().access_ptr("r"),
                                B.asobject().access_ptr("r"), C.asobject().access_ptr("rw")))
    f = inject_virtual_thread(tir.PrimFunc([], ib.get(), {}, {"global_symbol": "main"}))
    sizes = {a.buffer_var.name: int(a.extents[0]) for a in nodes(f, S.Allocate)}
    assert sizes == {"A": m * nthread, "B": m * nthread, "C": m * nthread * nthread}
    runs = [c for c in nodes(f, tir.Call) if c.op == "tir.call_extern"]
    assert len(runs) == 4                             # once per (vx, vy)
    offsets = {tuple(str(p.args[2]) for p in c.args[2:]) for c in runs}
    assert len(offsets) == 4                          # each call sees its own copies


def test_branches_not_depending_on_the_vthread_keep_their_shape():
    # TVM's test_vthread_if_then_else: the ifs on the loop var stay two ifs, one with an else
    ib = create()
    A = ib.pointer("float32", name="A")
    vt = te.thread_axis("vthread")
    with ib.for_range(0, 100, name="i") as i:
        ib.scope_attr(vt, "virtual_thread", 2)
        B = ib.allocate("float32", 128, name="B", scope="shared")
        with ib.if_scope(i == 0):
            B[i] = A[i * 2 + vt.var]
        with ib.else_scope():
            B[i] = A[i * 2 + vt.var] + 1.0
        with ib.if_scope(i == 0):
            B[i] = A[i * 2 + vt.var] + 2.0
    f = inject_virtual_thread(tir.PrimFunc([A.data], ib.get(), {}, {"global_symbol": "m"}))
    ifs = nodes(f, S.IfThenElse)
    assert len(ifs) == 2
    assert sorted(i.else_case is not None for i in ifs) == [False, True]
    (alloc,) = nodes(f, S.Allocate)
    assert [int(e) for e in alloc.extents] == [256]
