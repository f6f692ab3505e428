"""default_storage_scope and thread_sync (TVM's StorageFlatten scope rule and ThreadSync)."""
from tepad import te, tir
from tepad.lower.passes.default_storage_scope import default_storage_scope
from tepad.lower.passes.thread_sync import is_sync, thread_sync
from tepad.tir import stmt as S
from tepad.tir.buffer import Buffer
from tepad.tir.expr import BufferLoad, Var
from tepad.tir.ir_builder import create

from gpu_helpers import (allocs, elementwise, func, gpu_lower, gpu_lower_until, nodes,
                         syncs, tiled_matmul)


# --- default storage scope --------------------------------------------------------------------

def _attached(bind_thread):
    A = te.placeholder((256,), name="A")
    B = te.compute((256,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((256,), lambda i: B[i] * 2.0, name="C")
    s = te.create_schedule(C.op)
    bx, tx = s[C].split(C.op.axis[0], factor=32)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    if bind_thread:
        s[C].bind(tx, te.thread_axis("threadIdx.x"))
        s[B].compute_at(s[C], tx)
    else:
        s[B].compute_at(s[C], bx)
    return s, [A, C]


def test_a_stage_without_scope_under_threadidx_is_local():
    f = gpu_lower(*_attached(True))
    assert allocs(f) == {"B": "local"}
    assert {x.buffer.scope for x in nodes(f, BufferLoad) if x.buffer.name == "B"} == {"local"}


def test_a_stage_without_scope_under_blockidx_only_is_shared():
    f = gpu_lower(*_attached(False))
    assert allocs(f) == {"B": "shared"}


def test_scopes_the_schedule_gave_are_kept():
    s, args = _attached(False)
    s[args[1].op.input_tensors[0]].set_scope("local")
    assert allocs(gpu_lower(s, args)) == {"B": "local"}
    f = gpu_lower(*tiled_matmul())
    assert allocs(f) == {"A.shared": "shared", "B.shared": "shared", "C.local": "local"}


def test_lower_prints_the_default_scopes_as_tvm_lower_does():
    import tepad
    f = tepad.lower(*_attached(True))["main"]
    assert allocs(f) == {"B": "local"}
    f = tepad.lower(*_attached(True), flatten=False)["main"]
    assert allocs(f) == {}                       # realize form: scopes come with flattening


def test_an_allocation_outside_every_launch_stays_global():
    X = tir.decl_buffer((4,), "float32", "X")
    buf = Buffer([4], "float32", "T", data=Var("T", "handle"), scope="")
    tx = te.thread_axis("threadIdx.x")
    kernel = S.AttrStmt(tx, "thread_extent", 4, S.BufferStore(X, buf[tx.var], [tx.var]))
    body = S.Allocate(buf.data, "float32", [4], True,
                      S.SeqStmt([S.BufferStore(buf, 1.0, [0]), kernel]), {"scope": "global"})
    f = default_storage_scope(func([X], body))
    assert allocs(f) == {"T": "global"}
    assert {x.buffer.scope for x in nodes(f, BufferLoad) if x.buffer.name == "T"} == {"global"}
    cpu = tir.PrimFunc([], S.Allocate(buf.data, "float32", [4], True,
                                      S.BufferStore(buf, 1.0, [0]), {"scope": "global"}), {},
                       {"global_symbol": "main"})
    assert default_storage_scope(cpu) is cpu        # no launch: a CPU function, untouched


def test_cpu_builds_do_not_run_the_gpu_passes():
    from tepad.lower.pipeline import Options, select
    names = [p.name for _, p in select(("build",), opts=Options(target="llvm"))]
    assert "thread_sync" not in names and "default_storage_scope" not in names
    gpu = [p.name for _, p in select(("build",), opts=Options(target="cuda"))]
    assert gpu.index("default_storage_scope") < gpu.index("thread_sync") < \
        gpu.index("verify_gpu_code")


# --- thread_sync --------------------------------------------------------------------------------

def test_tiled_matmul_gets_tvms_two_barriers():
    f = gpu_lower(*tiled_matmul())
    assert len(syncs(f)) == 2
    ko = next(x for x in nodes(f, S.For) if x.loop_var.name.replace(".", "_") == "k_outer")
    seqs = nodes(ko, S.SeqStmt)
    flat = [st for sq in seqs for st in sq.seq]
    # WAR: before the first shared store of the iteration (the last one read the tiles)
    first_store = next(st for st in flat if isinstance(st, S.BufferStore))
    k = next(i for i, sq in enumerate(seqs) if first_store in sq.seq)
    pos = list(seqs[k].seq).index(first_store)
    assert pos > 0 and is_sync(seqs[k].seq[pos - 1])
    # RAW: before the k_inner loop, not inside it
    ki = next(x for x in nodes(f, S.For) if x.loop_var.name.replace(".", "_") == "k_inner")
    assert syncs(ki) == []
    outer = next(sq for sq in seqs if ki in sq.seq)
    assert is_sync(outer.seq[list(outer.seq).index(ki) - 1])


def test_no_barrier_without_shared_memory():
    assert syncs(gpu_lower(*elementwise())) == []


def test_tvm_thread_storage_sync_case_blocks_only():
    # TVM's test_thread_storage_sync: a shared stage at the block loop, no threadIdx: the
    # read loop of the consumer needs a barrier after the producer loop.
    m, l = te.size_var("m"), te.size_var("l")
    A = te.placeholder((m, l), name="A")
    A1 = te.compute((m, l), lambda i, j: A[i, j], name="A1")
    A2 = te.compute((m, l), lambda i, j: A1[i, j] + 3.0, name="A2")
    s = te.create_schedule(A2.op)
    xo, xi = s[A2].split(A2.op.axis[0], factor=8)
    s[A2].bind(xo, te.thread_axis("blockIdx.x"))
    s[A1].compute_at(s[A2], xo)
    s[A1].set_scope("shared")
    f = gpu_lower_until(s, [A, A2], "thread_sync")
    f2 = thread_sync(f)
    assert syncs(f) == [] and len(syncs(f2)) == 1
    seq = next(sq for sq in nodes(f2, S.SeqStmt) if any(is_sync(x) for x in sq.seq))
    kinds = [type(x).__name__ for x in seq.seq]
    assert kinds == ["For", "Evaluate", "For"]


def _kernel(stmts_of):
    """A 16-thread kernel over a shared buffer ``sh`` and global X, Y (f32[16])."""
    X = tir.decl_buffer((16,), "float32", "X")
    Y = tir.decl_buffer((16,), "float32", "Y")
    sh = Buffer([16], "float32", "sh", data=Var("sh", "handle"), scope="shared")
    tx = te.thread_axis("threadIdx.x")
    body = S.Allocate(sh.data, "float32", [16], True, S.SeqStmt(stmts_of(tx.var, X, Y, sh)),
                      {"scope": "shared"})
    return func([X, Y], S.AttrStmt(tx, "thread_extent", 16, body))


def test_reading_own_element_needs_no_barrier():
    f = _kernel(lambda tx, X, Y, sh: [S.BufferStore(sh, X[tx], [tx]),
                                      S.BufferStore(Y, sh[tx] * 2.0, [tx])])
    assert syncs(thread_sync(f)) == []


def test_reading_another_threads_element_needs_a_barrier():
    f = thread_sync(_kernel(lambda tx, X, Y, sh: [S.BufferStore(sh, X[tx], [tx]),
                                                  S.BufferStore(Y, sh[15 - tx], [tx])]))
    seq = nodes(f, S.SeqStmt)[0].seq
    assert [is_sync(x) for x in seq] == [False, True, False]


def test_barrier_is_hoisted_out_of_a_thread_dependent_branch():
    def stmts(tx, X, Y, sh):
        return [S.BufferStore(sh, X[tx], [tx]),
                S.IfThenElse(tx < 8, S.BufferStore(Y, sh[tx + 8], [tx]))]
    f = thread_sync(_kernel(stmts))
    assert len(syncs(f)) == 1
    assert all(syncs(i) == [] for i in nodes(f, S.IfThenElse))
    seq = nodes(f, S.SeqStmt)[0].seq
    assert is_sync(seq[1]) and isinstance(seq[2], S.IfThenElse)


def test_write_after_read_in_a_loop_gets_a_barrier_at_the_top():
    def stmts(tx, X, Y, sh):
        i = Var("i", "int32")
        body = S.SeqStmt([S.BufferStore(sh, X[tx] + i.astype("float32"), [tx]),
                          S.BufferStore(Y, Y[tx] + sh[15 - tx], [tx])])
        return [S.For(i, 0, 4, "serial", body)]
    f = thread_sync(_kernel(stmts))
    loop = nodes(f, S.For)[0]
    seq = loop.body.seq
    # RAW before the read, WAR before the next iteration's write
    assert [is_sync(x) for x in seq] == [True, False, True, False]


def test_a_barrier_in_a_uniform_branch_stays_inside():
    def stmts(tx, X, Y, sh):
        return [S.BufferStore(sh, X[tx], [tx]),
                S.IfThenElse(Y.shape[0] > 8, S.BufferStore(Y, sh[15 - tx], [tx]))]
    f = thread_sync(_kernel(stmts))
    (branch,) = nodes(f, S.IfThenElse)
    assert len(syncs(branch)) == 1


def test_tvm_named_passes_run_on_what_lower_returns():
    import tepad as tvm
    A = te.placeholder((64, 8), name="A")
    A1 = te.compute((64, 8), lambda i, j: A[i, j], name="A1")
    A2 = te.compute((64, 8), lambda i, j: A1[i, j] + 3.0, name="A2")
    s = te.create_schedule(A2.op)
    xo, xi = s[A2].split(A2.op.axis[0], factor=8)
    s[A2].bind(xo, te.thread_axis("blockIdx.x"))
    s[A1].compute_at(s[A2], xo)
    s[A1].set_scope("shared")
    mod = tvm.lower(s, [A, A2])
    synced = tvm.tir.transform.ThreadSync("shared")(mod)
    assert len(syncs(synced["main"])) == 1
    assert tvm.tir.transform.ThreadSync("warp")(mod)["main"] is mod["main"]
    import pytest
    from tepad.errors import TepadError
    with pytest.raises(TepadError, match="ThreadSync\\('global'\\)"):
        tvm.tir.transform.ThreadSync("global")(mod)
    assert tvm.tir.transform.InjectVirtualThread()(mod)["main"] is mod["main"]
    assert tvm.tir.transform.LowerThreadAllreduce()(mod)["main"] is mod["main"]


# --- TVM's test_tir_transform_thread_sync cases, as behaviour -----------------------------------

def test_tvm_sync_else_branch():
    # shared written in the else branch of a data-dependent if, read in another loop's else
    # branch: the barrier goes between the loops (never inside the branches)
    A = tir.decl_buffer((8,), "float32", "A")
    B = tir.decl_buffer((8,), "float32", "B")
    ib = create()
    a, b = ib.buffer_ptr(A), ib.buffer_ptr(B)
    tx = te.thread_axis("threadIdx.x")
    ib.scope_attr(tx, "thread_extent", 1)
    local = ib.allocate("float32", 8, name="buf_local", scope="local")
    shared = ib.allocate("float32", 8, name="buf_shared", scope="shared")
    with ib.for_range(0, 8, "i") as i:
        with ib.if_scope(a[i] < 0.0):
            local[i] = a[i]
        with ib.else_scope():
            shared[i] = a[i]
    with ib.for_range(0, 8, "j") as j:
        with ib.if_scope(a[j] < 0.0):
            b[j] = local[j]
        with ib.else_scope():
            b[j] = shared[j]
    f = thread_sync(func([A, B], ib.get()))
    assert len(syncs(f)) == 1
    assert all(syncs(i) == [] for i in nodes(f, S.IfThenElse))
    assert all(syncs(x) == [] for x in nodes(f, S.For))


def test_tvm_sync_read_thread_id_independent_location():
    # thread 0 writes temp[0], every thread reads it: same index, but not the thread's own
    P0 = tir.decl_buffer((2,), "float32", "p0")
    P1 = tir.decl_buffer((2,), "float32", "p1")
    ib = create()
    p0, p1 = ib.buffer_ptr(P0), ib.buffer_ptr(P1)
    bx = te.thread_axis("blockIdx.x")
    ib.scope_attr(bx, "thread_extent", 8)
    tx = te.thread_axis("threadIdx.x")
    ib.scope_attr(tx, "thread_extent", 4)
    res = ib.allocate("float32", 1, name="result_local", scope="local")
    temp = ib.allocate("float32", 1, name="temp_shared", scope="shared")
    res[0] = 0.0
    with ib.if_scope(tx.var < 1):
        temp[0] = p0[0]
    res[0] = res[0] + temp[0] * p1[0]
    with ib.if_scope(tx.var < 1):
        temp[0] = p0[1]
    res[0] = res[0] + temp[0] * p1[1]
    f = thread_sync(func([P0, P1], ib.get()))
    # RAW before each read, WAR before the second write
    assert len(syncs(f)) == 3
    assert all(syncs(i) == [] for i in nodes(f, S.IfThenElse))


def test_tvm_sync_let_stmt():
    # a let value reading shared memory another thread wrote gets its barrier before the let
    A = tir.decl_buffer((16 * 512,), "float32", "A")
    ib = create()
    a = ib.buffer_ptr(A)
    bx = te.thread_axis("blockIdx.x")
    ib.scope_attr(bx, "thread_extent", 16)
    sh = ib.allocate("float32", 512, name="A_shared", scope="shared")
    acc = ib.allocate("float32", 1, name="in_thread", scope="local")
    tx = te.thread_axis("threadIdx.x")
    ib.scope_attr(tx, "thread_extent", 128)
    with ib.for_range(0, 512, "ax0") as ax0:
        sh[ax0] = a[bx.var * 512 + ax0]
    acc[0] = 0.0
    for k in range(4):
        t = ib.let(f"A_temp{k}", acc[0] + sh[tx.var + 128 * k])
        acc[0] = t
    f = thread_sync(func([A], ib.get()))
    assert len(syncs(f)) == 1
    seq = next(sq for sq in nodes(f, S.SeqStmt) if any(is_sync(x) for x in sq.seq))
    k = next(i for i, x in enumerate(seq.seq) if is_sync(x))
    assert isinstance(seq.seq[k + 1], S.LetStmt)


def test_opt_conv_cuda_gets_two_barriers_per_step_as_in_tvm():
    from gpu_helpers import opt_conv_cuda
    f = gpu_lower(*opt_conv_cuda())
    assert len(syncs(f)) == 2
    rx = next(x for x in nodes(f, S.For) if x.loop_var.name == "rx")
    assert len(syncs(rx)) == 2                     # both inside the innermost step loop
    ri = next(x for x in nodes(f, S.For) if x.loop_var.name.replace(".", "_") == "rc_inner")
    assert syncs(ri) == []
    assert allocs(f)["Apad.shared"] == "shared" and allocs(f)["B.local"] == "local"
    bl = next(a for a in nodes(f, S.Allocate) if a.buffer_var.name == "B.local")
    assert [int(e) for e in bl.extents] == [64]    # 4 x 4 per vthread, 2 x 2 vthreads


def test_thread_sync_can_be_disabled_by_its_tvm_name():
    import tepad
    from tepad.lower.pipeline import Options
    s, args = tiled_matmul()
    with tepad.transform.PassContext(disabled_pass=["tir.ThreadSync"]):
        opts = Options.from_context(target="cuda")
    from tepad.lower.pipeline import lower_for_codegen
    assert syncs(lower_for_codegen(s, args, "main", opts)) == []
