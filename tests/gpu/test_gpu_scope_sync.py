"""default_storage_scope and thread_sync (TVM's StorageFlatten scope rule and ThreadSync)."""
from tepad import te, tir
from tepad.lower.passes.default_storage_scope import default_storage_scope
from tepad.lower.passes.thread_sync import is_sync, thread_sync
from tepad.tir import stmt as S
from tepad.tir.buffer import Buffer
from tepad.tir.expr import BufferLoad, Var

from gpu_helpers import (allocs, elementwise, func, gpu_lower, gpu_lower_until, launch, nodes,
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


def test_an_allocation_outside_every_launch_stays_global():
    x = Var("x", "int32")
    buf = Buffer([4], "float32", "T", data=Var("T", "handle"), scope="")
    body = S.Allocate(buf.data, "float32", [4], True,
                      S.BufferStore(buf, 1.0, [0]), {"scope": "global"})
    f = tir.PrimFunc([x], body, {}, {"global_symbol": "main"})
    assert allocs(default_storage_scope(f)) == {"T": "global"}


def test_cpu_builds_do_not_run_the_gpu_passes():
    from tepad.lower.pipeline import Options, select
    names = [p.name for _, p in select(opts=Options(target="llvm"))]
    assert "thread_sync" not in names and "default_storage_scope" not in names
    gpu = [p.name for _, p in select(opts=Options(target="cuda"))]
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
