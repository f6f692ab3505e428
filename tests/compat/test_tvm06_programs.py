"""Whole programs in the style of TVM 0.6's tutorials (our own words, small sizes), run
after ``import tepad as tvm`` with no other change: the old top level, contexts,
``asnumpy``, ``tvm.contrib.util``, ``tvm.module.load``, ``tvm.build_config``."""
import warnings

import numpy as np
import pytest

import tepad as tvm


@pytest.fixture(autouse=True)
def _quiet_deprecations():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        yield


def test_get_started_of_tvm_06(tmp_path):
    from tepad.contrib import cc, util
    tgt, tgt_host = "llvm", "llvm"
    n = tvm.var("n")
    A = tvm.placeholder((n,), name="A")
    B = tvm.placeholder((n,), name="B")
    C = tvm.compute(A.shape, lambda i: A[i] + B[i], name="C")
    s = tvm.create_schedule(C.op)
    bx, tx = s[C].split(C.op.axis[0], factor=64)
    s[C].parallel(bx)
    s[C].vectorize(tx)
    fadd = tvm.build(s, [A, B, C], tgt, target_host=tgt_host, name="myadd")
    ctx = tvm.context(tgt, 0)
    size = 1030
    a = tvm.nd.array(np.random.uniform(size=size).astype(A.dtype), ctx)
    b = tvm.nd.array(np.random.uniform(size=size).astype(B.dtype), ctx)
    c = tvm.nd.array(np.zeros(size, dtype=C.dtype), ctx)
    fadd(a, b, c)
    tvm.testing.assert_allclose(c.asnumpy(), a.asnumpy() + b.asnumpy())
    evaluator = fadd.time_evaluator(fadd.entry_name, ctx, number=20)
    assert evaluator(a, b, c).mean > 0
    temp = util.tempdir()
    fadd.save(temp.relpath("myadd.o"))
    cc.create_shared(temp.relpath("myadd.so"), [temp.relpath("myadd.o")])
    fadd1 = tvm.module.load(temp.relpath("myadd.so"))
    c2 = tvm.nd.array(np.zeros(size, dtype=C.dtype), ctx)
    fadd1(a, b, c2)
    tvm.testing.assert_allclose(c2.asnumpy(), a.asnumpy() + b.asnumpy())


def test_blocked_gemm_of_tvm_06():
    M = K = N = 64
    bn = 16
    k = tvm.reduce_axis((0, K), "k")
    A = tvm.placeholder((M, K), name="A")
    B = tvm.placeholder((K, N), name="B")
    packedB = tvm.compute((N // bn, K, bn), lambda x, y, z: B[y, x * bn + z], name="packedB")
    C = tvm.compute((M, N), lambda x, y: tvm.sum(
        A[x, k] * packedB[tvm.indexdiv(y, bn), k, tvm.indexmod(y, bn)], axis=k), name="C")
    s = tvm.create_schedule(C.op)
    CC = s.cache_write(C, "global")
    xo, yo, xi, yi = s[C].tile(C.op.axis[0], C.op.axis[1], bn, bn)
    s[CC].compute_at(s[C], yo)
    xc, yc = s[CC].op.axis
    kaxis, = s[CC].op.reduce_axis
    ko, ki = s[CC].split(kaxis, factor=4)
    s[CC].reorder(ko, xc, ki, yc)
    s[CC].unroll(ki)
    s[CC].vectorize(yc)
    s[C].parallel(xo)
    x, y, z = s[packedB].op.axis
    s[packedB].vectorize(z)
    s[packedB].parallel(x)
    with tvm.build_config(auto_unroll_max_step=8, data_alignment=64):
        func = tvm.build(s, [A, B, C], target="llvm", name="mmult")
    ctx = tvm.context("llvm", 0)
    a_np = np.random.rand(M, K).astype("float32")
    b_np = np.random.rand(K, N).astype("float32")
    a = tvm.nd.array(a_np, ctx)
    b = tvm.nd.array(b_np, ctx)
    c = tvm.nd.array(np.zeros((M, N), dtype="float32"), ctx)
    func(a, b, c)
    ref = np.einsum("ik,kj->ij", a_np.astype("float64"), b_np.astype("float64"))
    tvm.testing.assert_allclose(c.asnumpy(), ref, rtol=1e-5)


def test_extern_and_ir_builder_of_tvm_06():
    n = 10
    A = tvm.placeholder((n,), name="A")

    def gen(ins, outs):
        ib = tvm.ir_builder.create()
        a = ib.buffer_ptr(ins[0])
        b = ib.buffer_ptr(outs[0])
        with ib.for_range(0, n, name="i") as i:
            b[i] = tvm.select(a[i] > tvm.const(0.5, "float32"), a[i], tvm.const(0.0, "float32"))
        return ib.get()

    B = tvm.extern(A.shape, [A], gen, name="B")
    s = tvm.create_schedule(B.op)
    f = tvm.build(s, [A, B], "llvm")
    a = np.random.rand(n).astype("float32")
    b = np.zeros(n, "float32")
    f(a, b)
    np.testing.assert_allclose(b, np.where(a > 0.5, a, 0.0))


def test_the_stmt_level_flatten_of_tvm_06():
    m, l = tvm.var("m"), tvm.var("l")
    A = tvm.placeholder((m, l), name="A")
    A1 = tvm.compute((m, l), lambda i, j: A[i, j] * 2, name="A1")
    A2 = tvm.compute((m, l), lambda i, j: A1[i, j] + 3, name="A2")
    s = tvm.create_schedule(A2.op)
    xo, _ = s[A2].split(A2.op.axis[0], 8)
    s[A1].compute_at(s[A2], xo)
    stmt = tvm.schedule.ScheduleOps(s, tvm.schedule.InferBound(s))
    Ab = tvm.decl_buffer(A.shape, A.dtype, name="A")
    A2b = tvm.decl_buffer(A2.shape, A2.dtype, name="A2")
    flat = tvm.ir_pass.Simplify(tvm.ir_pass.StorageFlatten(stmt, {A: Ab, A2: A2b}, 64))
    allocs, stores = [], []
    tvm.ir_pass.PostOrderVisit(flat, lambda n: allocs.append(n)
                               if isinstance(n, tvm.tir.Allocate) else
                               stores.append(n) if isinstance(n, tvm.tir.BufferStore) else None)
    assert len(allocs) == 1                       # A1's tile, at A2's outer loop
    assert {st.buffer.name for st in stores} == {"A1", "A2"}
    assert all(len(st.indices) == 1 for st in stores)      # flat
    with pytest.raises(tvm.TepadError, match="binds must be a dict"):
        tvm.ir_pass.StorageFlatten(stmt, [Ab], 64)


def test_lower_simple_mode_statement_and_block_fields_of_tvm_06():
    n = 16
    A = tvm.placeholder((n,), name="A")
    B = tvm.compute((n,), lambda i: A[i] + 1, name="B")
    C = tvm.compute((n,), lambda i: B[i] * 2, name="C")
    s = tvm.create_schedule(C.op)
    stmt = tvm.lower(s, [A, C], simple_mode=True).body
    seqs = []
    tvm.ir_pass.PostOrderVisit(stmt, lambda x: seqs.append(x)
                               if isinstance(x, tvm.tir.SeqStmt) else None)
    assert seqs
    seq = seqs[-1]
    assert seq.first is seq[0]
    assert seq.rest is seq[1] if len(seq) == 2 else list(seq.rest.seq) == list(seq.seq[1:])
