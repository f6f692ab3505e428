"""Cross-thread reductions: ScheduleOps emits TVM's tvm_thread_allreduce form; the build's
lower_thread_allreduce turns it into a shared-memory tree with barriers."""
import pytest

import tepad
from tepad import te
from tepad.errors import TepadError
from tepad.lower.passes.lower_thread_allreduce import THREAD_ALLREDUCE
from tepad.tir import stmt as S

from gpu_helpers import allocs, calls, gpu_lower, nodes, rfactor_rows, syncs


def split_rows(n=16, m=96, threads=32):
    """No rfactor: the reduce axis split, its inner part bound to threadIdx.x."""
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), "k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(B.op.reduce_axis[0], factor=threads)
    s[B].bind(B.op.axis[0], te.thread_axis("blockIdx.x"))
    s[B].bind(ki, te.thread_axis("threadIdx.x"))
    return s, [A, B]


def test_lower_emits_the_allreduce_call_under_reduce_scope():
    f = tepad.lower(*rfactor_rows())["main"]
    (call,) = calls(f, THREAD_ALLREDUCE)
    assert int(call.args[0].value) == 1                     # one value
    assert call.args[-1].name.startswith("threadIdx")        # the reducing thread
    scopes = [a for a in nodes(f, S.AttrStmt) if a.attr_key == "reduce_scope"]
    assert len(scopes) == 1 and scopes[0].body.value is call
    assert allocs(f)["reduce_temp0"] == "local"
    # the store: one thread (the store predicate), from the local result
    (store,) = [st for st in nodes(f, S.BufferStore) if st.buffer.name == "B"]
    assert "reduce_temp0" in str(store.value)
    guard = next(i for i in nodes(f, S.IfThenElse) if store in nodes(i, S.BufferStore))
    assert "threadIdx" in str(guard.condition)


def test_build_lowers_the_allreduce_to_a_shared_tree():
    f = gpu_lower(*rfactor_rows())
    assert calls(f, THREAD_ALLREDUCE) == []
    assert not [a for a in nodes(f, S.AttrStmt) if a.attr_key == "reduce_scope"]
    red = [a for a in nodes(f, S.Allocate) if a.buffer_var.name.startswith("red_buf")]
    assert len(red) == 1 and red[0].annotations["scope"] == "shared"
    assert [int(e) for e in red[0].extents] == [32 * 16]     # one row of 16 per threadIdx.y
    # 16 threads: the store, then steps 8, 4, 2, 1, each followed by a barrier
    branches = [i for i in nodes(f, S.IfThenElse) if "red_buf0" in str(i.then_case)]
    assert sorted(int(i.condition.b.value) for i in branches) == [1, 2, 4, 8]
    assert len(syncs(f)) == 5
    assert all(syncs(i) == [] for i in nodes(f, S.IfThenElse))
    assert allocs(f)["B.rf"] == "local"


def test_non_power_of_two_thread_count_folds_the_top_first():
    f = gpu_lower(*split_rows(m=96, threads=24))
    branches = [i for i in nodes(f, S.IfThenElse) if "red_buf0" in str(i.then_case)]
    # 24 threads: fold [16, 24) onto [0, 8), then 8, 4, 2, 1
    bounds = [int(i.condition.b.value) for i in branches]
    assert bounds == [8, 8, 4, 2, 1]
    offsets = [str(i.then_case.value) for i in branches]
    assert "+ 16]" in offsets[0] and "+ 8]" in offsets[1]


def test_split_reduce_without_rfactor_folds_the_loop_first():
    f = tepad.lower(*split_rows())["main"]
    (call,) = calls(f, THREAD_ALLREDUCE)
    assert "normal_reduce_temp0" in str(call.args[1])
    assert allocs(f)["normal_reduce_temp0"] == "local"
    g = gpu_lower(*split_rows())
    (store,) = [st for st in nodes(g, S.BufferStore) if st.buffer.name == "B"]
    guard = next(i for i in nodes(g, S.IfThenElse) if store in nodes(i, S.BufferStore))
    assert "threadIdx_x == 0" in str(guard.condition).replace(".", "_")


def test_two_value_reducer_is_lowered_with_one_buffer_per_value():
    n, m = 8, 32
    A = te.placeholder((n, m), name="A", dtype="float32")
    argmax = te.comm_reducer(
        lambda x, y: (tepad.tir.Select(x[1] >= y[1], x[0], y[0]),
                      tepad.tir.Select(x[1] >= y[1], x[1], y[1])),
        lambda t0, t1: (tepad.tir.const(-1, t0), tepad.te.min_value(t1)), name="argmax")
    k = te.reduce_axis((0, m), "k")
    I, V = te.compute((n,), lambda i: argmax((k, A[i, k]), axis=k), name="T")
    s = te.create_schedule(I.op)
    s[I].bind(I.op.axis[0], te.thread_axis("blockIdx.x"))
    s[I].bind(I.op.reduce_axis[0], te.thread_axis("threadIdx.x"))
    f = gpu_lower(s, [A, I, V])
    red = sorted(a.buffer_var.name for a in nodes(f, S.Allocate)
                 if a.buffer_var.name.startswith("red_buf"))
    assert red == ["red_buf0", "red_buf1"]
    assert calls(f, THREAD_ALLREDUCE) == []


def test_reduce_axis_bound_to_a_block_index_is_refused():
    A = te.placeholder((8, 64), name="A")
    k = te.reduce_axis((0, 64), "k")
    B = te.compute((8,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(B.op.reduce_axis[0], factor=16)
    s[B].bind(ko, te.thread_axis("blockIdx.x"))
    s[B].bind(ki, te.thread_axis("threadIdx.x"))
    # lowered as TVM lowers it (tepad.lower shows the allreduce); the build phase refuses it
    with pytest.raises(TepadError, match=r"reduction across blockIdx.x \(blockIdx.x\): blocks "
                                         "cannot combine values"):
        gpu_lower(s, [A, B])


def test_a_symbolic_number_of_reducing_threads_is_refused():
    n = te.var("n")
    A = te.placeholder((8, n), name="A")
    k = te.reduce_axis((0, n), "k")
    B = te.compute((8,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    s[B].bind(B.op.axis[0], te.thread_axis("blockIdx.x"))
    s[B].bind(k, te.thread_axis("threadIdx.x"))
    with pytest.raises(TepadError, match="stage B: reduce axis k is bound to threadIdx.x with "
                                         "extent n; a reduction across threads needs a "
                                         "constant number of threads"):
        gpu_lower(s, [A, B])
    # the usual fix: a constant number of threads, each folding a strided share
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(k, factor=32)
    s[B].bind(B.op.axis[0], te.thread_axis("blockIdx.x"))
    s[B].bind(ki, te.thread_axis("threadIdx.x"))
    assert calls(gpu_lower(s, [A, B]), THREAD_ALLREDUCE) == []


def test_a_reduction_under_a_thread_dependent_branch_is_refused():
    from tepad import tir
    from tepad.lower.passes.lower_thread_allreduce import lower_thread_allreduce
    f = tepad.lower(*rfactor_rows())["main"]
    (call,) = calls(f, THREAD_ALLREDUCE)
    tx = call.args[-1]

    def guard(n):
        if isinstance(n, S.AttrStmt) and n.attr_key == "reduce_scope":
            return S.IfThenElse(tx < 8, n)
        return None
    bad = f.with_body(tir.ir_transform(f.body, postorder=guard))
    with pytest.raises(TepadError, match="cross-thread reduction sits under a condition on "
                                         "the thread index"):
        lower_thread_allreduce(bad)
    assert calls(lower_thread_allreduce(f), THREAD_ALLREDUCE) == []


def block_reduction_then_threads(m=32):
    """B (one value per block, reduced over threadIdx.x) feeds C on threadIdx.y: every
    (x, y) thread of the block runs B's reduction."""
    A = te.placeholder((4, m), name="A")
    k = te.reduce_axis((0, m), "k")
    B = te.compute((4,), lambda i: te.sum(A[i, k], axis=k), name="B")
    C = te.compute((4, 8), lambda i, j: B[i] * (j + 1).astype("float32"), name="C")
    s = te.create_schedule(C.op)
    s[C].bind(C.op.axis[0], te.thread_axis("blockIdx.x"))
    s[C].bind(C.op.axis[1], te.thread_axis("threadIdx.y"))
    s[B].compute_at(s[C], C.op.axis[0])
    s[B].set_scope("shared")
    s[B].bind(s[B].op.reduce_axis[0], te.thread_axis("threadIdx.x"))
    return s, [A, C]


def test_thread_indices_launched_elsewhere_in_the_kernel_separate_the_groups():
    f = gpu_lower(*block_reduction_then_threads())
    red = next(a for a in nodes(f, S.Allocate) if a.buffer_var.name == "red_buf0")
    assert [int(e) for e in red.extents] == [8 * 32]        # one row per threadIdx.y
    around = [a for a in nodes(f, S.AttrStmt) if a.attr_key == "thread_extent"
              and red in nodes(a, S.Allocate)]
    assert sorted(a.node.thread_tag for a in around) == ["blockIdx.x", "threadIdx.x",
                                                         "threadIdx.y"]


def vthread_rows(n=16, m=24):
    """Rows split over blockIdx, a vthread and threadIdx.y; the reduce axis on threadIdx.x."""
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), "k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    bo, bi = s[B].split(B.op.axis[0], factor=8)
    vt, ty = s[B].split(bi, nparts=2)
    s[B].bind(bo, te.thread_axis("blockIdx.x"))
    s[B].bind(vt, te.thread_axis("vthread"))
    s[B].bind(ty, te.thread_axis("threadIdx.y"))
    s[B].bind(B.op.reduce_axis[0], te.thread_axis("threadIdx.x"))
    return s, [A, B]


def test_a_reduction_under_a_vthread_gets_a_tree_per_vthread():
    f = gpu_lower(*vthread_rows())
    assert calls(f, THREAD_ALLREDUCE) == []
    red = next(a for a in nodes(f, S.Allocate) if a.buffer_var.name == "red_buf0")
    assert [int(e) for e in red.extents] == [2 * 4 * 24]     # vthreads x rows x threads
    assert len(syncs(f)) == 6                                 # store + 5 steps, once each
