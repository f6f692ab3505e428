"""TensorComputeOp: te.compute whose body calls a tensor intrinsic on tensor regions (TVM's
test_tensor_compute1/2, test_schedule_tensor_compute1/2/3, test_bound_tensor_compute_op)."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.lower import pipeline
from tepad.tensor import TensorComputeOp


def _rand(*shape):
    return np.random.default_rng(1).random(shape, dtype=np.float32)


def test_op_axes_regions_and_outputs(vadd_extern):
    vadd = vadd_extern(16)
    A = te.placeholder((64, 16), name="A")
    B = te.placeholder((64, 16), name="B")
    C = te.compute((64, 16), lambda i: vadd(A[i, 0:16], B[i, 0:16]), name="C")
    op = C.op
    assert isinstance(op, TensorComputeOp) and op.schedulable_ndim == 1
    assert [iv.name for iv in op.axis] == ["i", "ax0"]
    assert op.axis[1].iter_type == te.schedule.IterVar.Opaque
    assert op.input_tensors == [A, B] and C.shape[1].value == 16 and C.dtype == "float32"
    assert str(op.input_regions[0][0].min) == "i" and op.input_regions[0][1].extent.value == 16
    # the opaque axis is not a loop of the stage
    s = te.create_schedule(C.op)
    assert [iv.name for iv in s[C].leaf_iter_vars] == ["i"]


def test_vadd_call_per_row(vadd_extern):
    vadd = vadd_extern(16)
    A = te.placeholder((64, 16), name="A")
    B = te.placeholder((64, 16), name="B")
    C = te.compute((64, 16), lambda i: vadd(A[i, 0:16], B[i, 0:16]), name="C")
    s = te.create_schedule(C.op)
    func = pipeline.lower_primfunc(s, [A, B, C])
    assert isinstance(func.body, tir.For) and isinstance(func.body.body, tir.Evaluate)
    call = func.body.body.value
    assert [str(a.args[2]) for a in call.args[1:]] == ["i * 16"] * 3


def test_gemm_reduction_reset_then_update(gemv_extern):
    x = te.placeholder((32, 16), name="x")
    y = te.placeholder((32, 16), name="y")
    kk = te.reduce_axis((0, 16), name="kk")
    z = te.compute((32, 32), lambda i, j: te.sum(x[i, kk] * y[j, kk], axis=kk), name="z")
    gemm = te.decl_tensor_intrin(
        z.op, lambda ins, outs: (tir.call_packed("gemm", ins[0].access_ptr("r")),
                                 tir.call_packed("fill_zero", outs[0].access_ptr("w")),
                                 tir.call_packed("gemm_add", ins[0].access_ptr("r"))),
        default_buffer_params={"offset_factor": 1})
    A = te.placeholder((4, 8, 32, 16), name="A")
    B = te.placeholder((2, 8, 32, 16), name="B")
    k = te.reduce_axis((0, 8), name="k")
    C = te.compute((4, 2, 32, 32),
                   lambda i, j: gemm(A[i, k, 0:32, 0:16], B[j, k, 0:32, 0:16], reduce_axis=k),
                   name="C")
    func = pipeline.lower_primfunc(te.create_schedule(C.op), [A, B, C])
    inner = func.body.body.body
    assert isinstance(inner[0], tir.Evaluate) and inner[0].value.args[0].value == "fill_zero"
    assert isinstance(inner[1], tir.For) and inner[1].loop_var.name == "k"
    assert inner[1].body.value.args[0].value == "gemm_add"
    assert str(inner[1].body.value.args[1].args[2]) == "i * 4096 + k * 512"


def test_split_reorder_tile_then_schedule_ops(gemv_extern):
    gemv = gemv_extern(16, 16)
    A = te.placeholder((64, 32, 16, 16), name="A")
    B = te.placeholder((128, 32, 16), name="B")
    k = te.reduce_axis((0, 32), name="k")
    C = te.compute((1024, 8, 16),
                   lambda i, j: gemv(A[i, k, 0:16, 0:16], B[j, k, 0:16], reduce_axis=k),
                   name="C")
    s = te.create_schedule(C.op)
    ai, aj, ax = s[C].op.axis
    aio, aii = s[C].split(ai, 16)
    s[C].reorder(aio, aj, aii)
    s[C].tile(aio, aj, 16, 4)
    s = s.normalize()
    bounds = te.schedule.InferBound(s)
    stmt = te.schedule.ScheduleOps(s, bounds)
    binds = []
    tir.post_order_visit(stmt, lambda n: binds.append(n) if isinstance(n, tir.AttrStmt) and
                         n.attr_key == "buffer_bind_scope" else None)
    assert {b.node[1].name for b in binds} == {"A", "B", "C"}
    with pytest.raises(tepad.TepadError, match="tensor intrinsic gemv"):
        s[C].split(ax, 4)


def test_bound_follows_the_region(vadd_extern):
    m1, n1 = te.var("m1"), te.var("n1")
    a = te.placeholder((m1, n1), name="a")
    c = te.compute((1, n1), lambda i, j: a[0, j] + a[1, j] + a[2, j], name="c")
    intrin = te.decl_tensor_intrin(
        c.op, lambda ins, outs: tir.call_extern("int32", "test", outs[0].access_ptr("w"),
                                                ins[0].access_ptr("r")),
        binds={a: tir.decl_buffer(a.shape, name="Abuf", offset_factor=1),
               c: tir.decl_buffer(c.shape, name="Cbuf", offset_factor=1)})
    A = te.placeholder((20, 20), name="A")
    B = te.compute(A.shape, lambda i, j: A[i, j], name="B")
    C = te.compute((10, 20), lambda i: intrin(B[i:10, 0:20]), name="C")
    s = te.create_schedule(C.op)
    bounds = te.schedule.InferBound(s)
    # C's row i reads rows i..9 of B: B is needed for rows 0..9
    assert bounds[B.op.axis[0]].extent.value == 10 and bounds[B.op.axis[1]].extent.value == 20
    func = pipeline.lower_primfunc(s, [A, C])
    calls = []
    tir.post_order_visit(func.body, lambda n: calls.append(n) if isinstance(n, tir.expr.Call)
                         and n.op == "tir.call_extern" else None)
    (call,) = calls
    # Abuf's symbolic shape (m1, n1) took the region's extents; its offset the row
    assert str(call.args[2].args[2]) == "i * 20" and str(call.args[2].args[3]) == "200 - i * 20"


def test_compute_at_producer_builds(vadd_plain):
    vadd = vadd_plain(16)
    A = te.placeholder((4, 16), name="A")
    B = te.placeholder((4, 16), name="B")
    Bi = te.compute((4, 16), lambda i, j: B[i, j] + 5.0, name="Bi")
    C = te.compute((4, 16), lambda i: vadd(A[i, 0:16], Bi[i, 0:16]), name="C")
    s = te.create_schedule(C.op)
    s[Bi].compute_at(s[C], C.op.axis[0])
    func = pipeline.lower_primfunc(s, [A, B, C], flatten=False)
    realize = func.body.body
    assert isinstance(realize, tir.BufferRealize) and str(realize.bounds[0].extent) == "1"
    mod = tepad.build(s, [A, B, C])
    a, b = _rand(4, 16), _rand(4, 16)
    c = np.zeros_like(a)
    mod(a, b, c)
    np.testing.assert_allclose(c, a + b + 5, rtol=1e-6)


def test_cache_read_and_cache_write_build(vadd_plain):
    vadd = vadd_plain(16)
    A = te.placeholder((4, 16), name="A")
    B = te.placeholder((4, 16), name="B")
    C = te.compute((4, 16), lambda i: vadd(A[i, 0:16], B[i, 0:16]), name="C")
    s = te.create_schedule(C.op)
    AL = s.cache_read(A, "local", C)
    s.cache_read(B, "local", C)
    CL = s.cache_write(C, "local")
    assert isinstance(CL.op, TensorComputeOp) and CL.op.inputs[0] == AL
    assert not isinstance(s[C].op, TensorComputeOp)      # C copies the cache
    mod = tepad.build(s, [A, B, C])
    a, b = _rand(4, 16), _rand(4, 16)
    c = np.zeros_like(a)
    mod(a, b, c)
    np.testing.assert_allclose(c, a + b, rtol=1e-6)


def test_inline_into_tensor_compute_is_refused(vadd_plain):
    vadd = vadd_plain(16)
    A = te.placeholder((4, 16), name="A")
    Bi = te.compute((4, 16), lambda i, j: A[i, j] + 5.0, name="Bi")
    C = te.compute((4, 16), lambda i: vadd(A[i, 0:16], Bi[i, 0:16]), name="C")
    s = te.create_schedule(C.op)
    s[Bi].compute_inline()
    with pytest.raises(tepad.TepadError, match="Bi cannot be inlined into C"):
        tepad.lower(s, [A, C])
    with pytest.raises(tepad.TepadError, match="scalar body"):
        s[C].compute_inline()


def test_region_outside_the_tensor_is_refused(vadd_plain):
    vadd = vadd_plain(16)
    A = te.placeholder((4, 8), name="A")
    B = te.placeholder((4, 16), name="B")
    C = te.compute((4, 16), lambda i: vadd(A[i, 0:16], B[i, 0:16]), name="C")
    with pytest.raises(tepad.TepadError, match=r"C reads A\[i:i \+ 1, 0:16\] through the "
                       r"tensor intrinsic vadd, which may leave A's shape \(4, 8\) along "
                       r"dimension 1"):
        tepad.lower(te.create_schedule(C.op), [A, B, C])
    D = te.compute((4, 16), lambda i: vadd(B[i + 1, 0:16], B[i, 0:16]), name="D")
    with pytest.raises(tepad.TepadError, match="along dimension 0"):
        tepad.lower(te.create_schedule(D.op), [B, D])


@pytest.mark.parametrize("reset", [True, False])
def test_gemv_tensor_compute_builds(gemv_plain, reset):
    # C[i, j, :] = sum_k A[i, k, :, :] @ B[j, k, :]: 8x16 gemv calls accumulated over k
    gemv = gemv_plain(8, 16, reset=reset)
    A = te.placeholder((3, 4, 8, 16), name="A")
    B = te.placeholder((5, 4, 16), name="B")
    k = te.reduce_axis((0, 4), name="k")
    C = te.compute((3, 5, 8), lambda i, j: gemv(A[i, k, 0:8, 0:16], B[j, k, 0:16],
                                                reduce_axis=k), name="C")
    s = te.create_schedule(C.op)
    s[C].reorder(C.op.axis[1], C.op.axis[0], C.op.reduce_axis[0])
    mod = tepad.build(s, [A, B, C])
    a, b = _rand(3, 4, 8, 16), _rand(5, 4, 16)
    c = np.zeros((3, 5, 8), "float32")
    mod(a, b, c)
    np.testing.assert_allclose(c, np.einsum("ikxy,jky->ijx", a, b), rtol=1e-5)


def test_two_output_intrinsic():
    x = te.placeholder((8,), name="x")
    y = te.placeholder((8,), name="y")
    s_, d_ = te.compute((8,), lambda i: [x[i] + y[i], x[i] - y[i]], name="sd")

    def body(ins, outs):
        u = te.var("u")
        a, b = ins[0].vload([u]), ins[1].vload([u])
        return tir.For(u, 0, 8, tir.ForKind.SERIAL,
                       tir.seq(outs[0].vstore([u], a + b), outs[1].vstore([u], a - b)))
    sumdiff = te.decl_tensor_intrin(s_.op, body, default_buffer_params={"offset_factor": 1})
    A = te.placeholder((3, 8), name="A")
    B = te.placeholder((3, 8), name="B")
    S, D = te.compute((3, 8), lambda i: sumdiff(A[i, 0:8], B[i, 0:8]), name="C")
    assert S.op is D.op and S.op.num_outputs == 2
    mod = tepad.build(te.create_schedule(S.op), [A, B, S, D])
    a, b = _rand(3, 8), _rand(3, 8) * 2
    out = [np.zeros((3, 8), "float32") for _ in range(2)]
    mod(a, b, *out)
    np.testing.assert_allclose(out[0], a + b, rtol=1e-6)
    np.testing.assert_allclose(out[1], a - b, rtol=1e-6)
