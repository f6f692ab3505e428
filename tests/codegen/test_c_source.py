"""The C-dialect printer of device kernels (tepad/codegen/c_source.py): CUDA C and OpenCL C
from the same kernels, as a GPU module's ``imported_modules[0].get_source()`` shows them.

The text is for reading (tepad runs PTX or the emulator), so the tests check that it says
what the IR says: the kernel head, thread indices, memories by scope, barriers, shuffles,
vector accesses, and the statements the device IR can hold. The kernels built with the
emulator are also run and compared with numpy, so the printed kernel is one that computes the
right thing."""
import re
import shutil

import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.backend.cuda import device_kernels
from tepad.backend.emulated import emulated_function
from tepad.codegen.c_source import kernel_source


@pytest.fixture(autouse=True)
def _emulate(monkeypatch):
    monkeypatch.setenv("TEPAD_CUDA", "emulate")


def _sources(s, args, name="k"):
    gpu, _ = emulated_function(s, args, name)
    kernels = device_kernels(gpu)
    return kernel_source(kernels, "cuda"), kernel_source(kernels, "opencl")


def _elementwise(n=1000, factor=64):
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: te.exp(A[i]) * 2.0, name="B")
    s = te.create_schedule(B.op)
    bx, tx = s[B].split(B.op.axis[0], factor=factor)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    return s, [A, B]


def test_bound_elementwise_kernel_in_both_dialects():
    s, args = _elementwise()
    mod = tepad.build(s, args, "cuda", name="myexp")
    cu = mod.imported_modules[0].get_source()
    assert 'extern "C" __global__ void __launch_bounds__(64) myexp_kernel(' in cu
    assert "float* __restrict__ A, float* __restrict__ B)" in cu
    assert "((int)blockIdx.x)" in cu and "((int)threadIdx.x)" in cu
    assert "__expf(A[" in cu                       # CUDA's fast exp for float32, as TVM's rule
    # the guard of the split's tail (1000 is not a multiple of 64)
    assert "if ((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) < 1000)) {" in cu
    a = np.random.default_rng(0).standard_normal(1000).astype("float32")
    b = np.empty_like(a)
    mod(a, b)
    np.testing.assert_allclose(b, np.exp(a) * 2, rtol=1e-5)

    cl = tepad.build(s, args, "opencl", name="myexp").imported_modules[0].get_source()
    assert "__kernel void myexp_kernel(__global float* restrict A, __global float* restrict B)" \
        in cl
    assert "((int)get_group_id(0))" in cl and "((int)get_local_id(0))" in cl
    assert "exp(A[" in cl and "__expf" not in cl and "threadIdx" not in cl


def test_shared_memory_reduction_with_barriers():
    """A cross-thread sum: the partial sums go through a shared buffer, with a barrier
    between the levels of the tree."""
    n, m = 64, 32
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), "k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    s[B].bind(B.op.axis[0], te.thread_axis("blockIdx.x"))
    s[B].bind(k, te.thread_axis("threadIdx.x"))
    mod = tepad.build(s, [A, B], "cuda", name="rowsum")
    cu = mod.imported_modules[0].get_source()
    shared = re.search(r"__shared__ float (\w+)\[32\];", cu)
    assert shared is not None
    assert cu.count("__syncthreads();") >= 5      # one per tree level (32 -> 1)
    assert f"{shared.group(1)}[((int)threadIdx.x)] = (" in cu
    a = np.random.default_rng(1).standard_normal((n, m)).astype("float32")
    b = np.empty(n, "float32")
    mod(a, b)
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-5, atol=1e-5)

    cl = tepad.build(s, [A, B], "opencl", name="rowsum").imported_modules[0].get_source()
    assert re.search(r"__local float \w+\[32\];", cl)
    assert cl.count("barrier(CLK_LOCAL_MEM_FENCE);") == cu.count("__syncthreads();")
    assert "__shared__" not in cl and "__syncthreads" not in cl


def _warp_shuffle_sum():
    """out[0] = sum(X[0:32]) by one warp: each lane's value added to the one 16, 8, 4, 2, 1
    lanes down (``tvm_warp_shuffle_down``), as a warp-level reduction is written in TIR."""
    X = tir.decl_buffer((32,), "float32", "X")
    out = tir.decl_buffer((1,), "float32", "out")
    ib = tir.ir_builder.create()
    tx = te.thread_axis("threadIdx.x")
    ib.scope_attr(tx, "thread_extent", 32)
    val = ib.allocate("float32", 1, "val", scope="local")
    x, o = ib.buffer_ptr(X), ib.buffer_ptr(out)
    val[0] = x[tx.var]
    mask = tir.call_intrin("uint32", "tir.tvm_warp_activemask")
    for offset in (16, 8, 4, 2, 1):
        down = tir.call_intrin("float32", "tir.tvm_warp_shuffle_down", mask, val[0], offset,
                               32, 32)
        val[0] = val[0] + down
    with ib.if_scope(tx.var == 0):
        o[0] = val[0]
    return tir.PrimFunc([X, out], ib.get()).with_attr("global_symbol", "warp_sum")


def test_warp_shuffle_reduction():
    kernels = device_kernels(_warp_shuffle_sum())
    cu = kernel_source(kernels, "cuda")
    assert "float val[1];" in cu
    for offset in (16, 8, 4, 2, 1):
        assert f"__shfl_down_sync(__activemask(), val[0], {offset}, 32)" in cu
    assert "if ((((int)threadIdx.x) == 0)) {" in cu and "out[0] = val[0];" in cu
    cl = kernel_source(kernels, "opencl")
    assert "sub_group_shuffle_down(val[0], 16)" in cl
    assert "#pragma OPENCL EXTENSION cl_khr_subgroups : enable" in cl


def test_warp_memory_reads_other_lanes_by_shuffles(monkeypatch):
    """TVM's warp-memory example: the cache in ``warp`` scope becomes one register per lane,
    read by the neighbour lane through ``__shfl_sync``."""
    monkeypatch.delenv("TEPAD_CUDA")
    m = 128
    A = te.placeholder((m,), name="A")
    B = te.compute((m,), lambda i: A[i // 32 * 32 + (i + 1) % 32] + 3, name="B")
    s = te.create_schedule(B.op)
    AA = s.cache_read(A, "warp", [B])
    xo, xi = s[B].split(B.op.axis[0], 64)
    xi0, xi1 = s[B].split(xi, factor=32)
    tx = te.thread_axis("threadIdx.x")
    s[B].bind(xi1, tx)
    s[B].bind(xi0, te.thread_axis("threadIdx.y"))
    s[B].bind(xo, te.thread_axis("blockIdx.x"))
    s[AA].compute_at(s[B], xo)
    _, xi = s[AA].split(s[AA].op.axis[0], 32)
    s[AA].bind(xi, tx)
    cu = tepad.build(s, [A, B], "cuda", emulate=False).imported_modules[0].get_source()
    assert "float A_warp[1];" in cu
    assert "__shfl_sync(__activemask(), A_warp[0], ((((int)threadIdx.x) + 1) % 32), 32)" in cu


def test_vectorized_float4_accesses():
    n = 1024
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    outer, lanes = s[B].split(B.op.axis[0], factor=4)
    bx, tx = s[B].split(outer, factor=32)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    s[B].vectorize(lanes)
    mod = tepad.build(s, [A, B], "cuda", name="scale4")
    cu = mod.imported_modules[0].get_source()
    base = "((((int)blockIdx.x) * 128) + (((int)threadIdx.x) * 4))"
    # CUDA has no float4 operators: the product is written lane by lane
    assert f"float4 vec = ((float4*)(A + {base}))[0];" in cu
    assert f"((float4*)(B + {base}))[0] = make_float4(((vec).x * 2.0f), ((vec).y * 2.0f), " \
           f"((vec).z * 2.0f), ((vec).w * 2.0f));" in cu
    a = np.arange(n, dtype="float32")
    b = np.empty_like(a)
    mod(a, b)
    np.testing.assert_array_equal(b, a * 2)
    cl = tepad.build(s, [A, B], "opencl", name="scale4").imported_modules[0].get_source()
    assert f"vstore4((vload4(0, A + {base.replace('blockIdx.x', 'get_group_id(0)').replace('threadIdx.x', 'get_local_id(0)')})" \
           " * ((float4)(2.0f))), 0, B + " in cl


def _vector_select(n=1024):
    A = te.placeholder((n,), name="A")
    I = te.placeholder((n,), "int32", name="I")
    B = te.compute((n,), lambda i: te.if_then_else(A[i] > 0, te.exp(A[i]),
                                                   I[i].astype("float32") // 3.0)
                   + te.max(A[i], 1.0), name="B")
    s = te.create_schedule(B.op)
    outer, lanes = s[B].split(B.op.axis[0], factor=4)
    bx, tx = s[B].split(outer, factor=32)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    s[B].vectorize(lanes)
    return s, [A, I, B]


def test_vector_selects_math_and_casts():
    """CUDA: lane by lane (no vector operators or vector math); OpenCL: vector expressions."""
    s, args = _vector_select()
    mod = tepad.build(s, args, "cuda", name="vsel")
    cu = mod.imported_modules[0].get_source()
    assert "int4 vec_2 = ((int4*)(I + " in cu
    assert "make_float4(((((vec).x > 0.0f) ? __expf((vec_1).x) : floorf((((float)(vec_2).x) " \
           "/ 3.0f))) + max((vec_3).x, 1.0f))" in cu
    cl = mod.imported_modules[0].get_source("opencl")
    assert "> ((float4)(0.0f))) ? exp(vload4(0, A + " in cl
    assert "floor((convert_float4(vload4(0, I + " in cl and "vstore4(" in cl
    rng = np.random.default_rng(4)
    a = rng.standard_normal(1024).astype("float32")
    i = rng.integers(-500, 500, 1024).astype("int32")
    b = np.empty_like(a)
    mod(a, i, b)
    want = np.where(a > 0, np.exp(a), np.floor(i.astype("float32") / 3)) + np.maximum(a, 1)
    np.testing.assert_allclose(b, want, rtol=1e-5, atol=1e-6)


def test_half_kernels_name_the_type_and_what_it_needs():
    A = te.placeholder((256,), "float16", name="A")
    B = te.compute((256,), lambda i: A[i] + tir.const(1, "float16"), name="B")
    s = te.create_schedule(B.op)
    bx, tx = s[B].split(B.op.axis[0], factor=64)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    cu, cl = _sources(s, [A, B])
    assert "#include <cuda_fp16.h>" in cu and "half* __restrict__ A" in cu
    assert "((half)1.0f)" in cu
    assert "#pragma OPENCL EXTENSION cl_khr_fp16 : enable" in cl
    assert "__global half* restrict B" in cl


def _statements():
    """A kernel with a let, an if / else, a loop, a cast, a select, an extern call by name and
    an atomic add."""
    X = tir.decl_buffer((128,), "float32", "X")
    H = tir.decl_buffer((4,), "int32", "H")
    out = tir.decl_buffer((128,), "float32", "out")
    ib = tir.ir_builder.create()
    tx = te.thread_axis("threadIdx.x")
    ib.scope_attr(tx, "thread_extent", 128)
    x, h, o = ib.buffer_ptr(X), ib.buffer_ptr(H), ib.buffer_ptr(out)
    t = tx.var
    v = ib.let("v", x[t] * tir.const(0.5, "float32"))
    acc = ib.allocate("float32", 1, "acc", scope="local")
    acc[0] = tir.const(0.0, "float32")
    with ib.for_range(0, 3, "j") as j:
        acc[0] = acc[0] + tir.Cast("float32", j)
    with ib.if_scope(v > tir.const(0.0, "float32")):
        o[t] = tir.call_pure_extern("float32", "my_device_fn", v) + acc[0]
    with ib.else_scope():
        o[t] = tir.Select(t % 2 == 0, v, -v)
    ib.emit(tir.call_intrin("int32", "tir.atomic_add", tir.address_of(h[t % 4]), 1))
    return tir.PrimFunc([X, H, out], ib.get()).with_attr("global_symbol", "stmts")


def test_statements_of_the_device_ir():
    kernels = device_kernels(_statements())
    cu = kernel_source(kernels, "cuda")
    assert "float v = (X[((int)threadIdx.x)] * 0.5f);" in cu
    assert "for (int j = 0; j < 3; ++j) {" in cu and "acc[0] = (acc[0] + ((float)j));" in cu
    assert "if ((v > 0.0f)) {" in cu and "} else {" in cu
    assert "my_device_fn(v)" in cu
    assert "? v : " in cu                          # the select
    assert "atomicAdd((&(H[(((int)threadIdx.x) % 4)])), 1);" in cu
    cl = kernel_source(kernels, "opencl")
    assert "atomic_add((&(H[(((int)get_local_id(0)) % 4)])), 1);" in cl
    assert "my_device_fn(v)" in cl and "float v = " in cl


def test_user_intrinsic_lowering_rules_reach_the_source_and_the_result():
    """A rule registered for cuda (TVM's intrin_math tutorial) changes the printed call and
    the emulated kernel; opencl builds keep their own."""
    def mylog(x):
        return tir.call_intrin(x.dtype, "tir.tepad_test_mylog", x)

    def rule(op):
        return tir.call_pure_extern("float32", "logf", op.args[0]) if op.dtype == "float32" \
            else op

    tepad.ir.register_op_attr("tir.tepad_test_mylog", "TCallEffectKind",
                              tir.CallEffectKind.Pure)
    tepad.ir.register_intrin_lowering("tir.tepad_test_mylog", target="cuda", f=rule,
                                      level=99)
    A = te.placeholder((100,), name="A")
    B = te.compute((100,), lambda i: mylog(A[i]), name="B")
    s = te.create_schedule(B.op)
    bx, tx = s[B].split(B.op.axis[0], factor=64)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    mod = tepad.build(s, [A, B], "cuda", name="mylog")
    assert "= logf(A[" in mod.imported_modules[0].get_source()
    a = np.random.default_rng(2).uniform(0.5, 4.0, 100).astype("float32")
    b = np.empty_like(a)
    mod(a, b)
    np.testing.assert_allclose(b, np.log(a), rtol=1e-6)
    opencl = tepad.build(s, [A, B], "opencl", emulate=False)
    assert "tepad_test_mylog(A[" in opencl.imported_modules[0].get_source()
    with pytest.raises(tepad.TepadError, match="'tir.tepad_test_mylog' .*no lowering rule"):
        tepad.build(s, [A, B], "opencl")          # the emulator cannot run it either
    assert tepad.ir.register_op_attr  # the attribute is recorded for the op
    from tepad.target.intrin import get_op_attr as op_attr
    assert op_attr("tir.tepad_test_mylog", "TCallEffectKind") == tir.CallEffectKind.Pure
    assert op_attr("tir.tepad_test_mylog", "cuda.FLowerIntrinsic") is rule


def test_a_kernel_with_no_opencl_form_is_an_error():
    from tepad.errors import TepadError
    X = tir.decl_buffer((256,), "float16", "X")
    ib = tir.ir_builder.create()
    tx = te.thread_axis("threadIdx.x")
    ib.scope_attr(tx, "thread_extent", 32)
    frag = ib.allocate("float32", 256, "frag", scope="wmma.accumulator")
    ib.emit(tir.call_intrin("handle", "tir.tvm_fill_fragment", frag.data, 16, 16, 16, 0,
                            tir.const(0.0, "float32")))
    func = tir.PrimFunc([X], ib.get()).with_attr("global_symbol", "frag")
    kernels = device_kernels(func)
    assert "nvcuda::wmma::fill_fragment(frag[0], 0.0f);" in kernel_source(kernels, "cuda")
    with pytest.raises(TepadError, match="kernel frag_kernel: tensor-core fragment frag "
                                         r"\(wmma.accumulator\) has no opencl C form"):
        kernel_source(kernels, "opencl")
    with pytest.raises(TepadError, match="dialect 'metal'"):
        kernel_source(kernels, "metal")


needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None,
                                reason="nvcc (the CUDA toolkit) is not installed")


@needs_nvcc
def test_the_printed_cuda_c_compiles_with_nvcc():
    """Where the CUDA toolkit is installed, nvcc accepts every kernel above (the extern
    function the statements kernel calls by name is defined first)."""
    from tepad.contrib.nvcc import compile_cuda

    sources = []
    s, args = _elementwise()
    sources.append(tepad.build(s, args, "cuda", name="ew").imported_modules[0].get_source())
    n, m = 64, 32
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), "k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    s[B].bind(B.op.axis[0], te.thread_axis("blockIdx.x"))
    s[B].bind(k, te.thread_axis("threadIdx.x"))
    sources.append(tepad.build(s, [A, B], "cuda", name="red").imported_modules[0].get_source())
    sources.append(kernel_source(device_kernels(_warp_shuffle_sum()), "cuda"))
    sources.append("__device__ float my_device_fn(float x) { return x; }\n" +
                   kernel_source(device_kernels(_statements()), "cuda"))
    A = te.placeholder((1024,), name="A")
    B = te.compute((1024,), lambda i: A[i] * 2.0 + A[i], name="B")
    s = te.create_schedule(B.op)
    outer, lanes = s[B].split(B.op.axis[0], factor=4)
    bx, tx = s[B].split(outer, factor=32)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    s[B].vectorize(lanes)
    sources.append(tepad.build(s, [A, B], "cuda", name="vec").imported_modules[0].get_source())
    H = te.placeholder((256,), "float16", name="H")
    G = te.compute((256,), lambda i: H[i] * H[i] + tir.const(1, "float16"), name="G")
    s = te.create_schedule(G.op)
    bx, tx = s[G].split(G.op.axis[0], factor=64)
    s[G].bind(bx, te.thread_axis("blockIdx.x"))
    s[G].bind(tx, te.thread_axis("threadIdx.x"))
    sources.append(tepad.build(s, [H, G], "cuda", name="hf").imported_modules[0].get_source())
    s, args = _vector_select()
    sources.append(tepad.build(s, args, "cuda", name="vsel").imported_modules[0].get_source())
    ptx = compile_cuda("\n".join(sources), "ptx", arch="sm_80").decode()
    entries = re.findall(r"\.entry (\w+)\(", ptx)
    assert sorted(entries) == sorted(["ew_kernel", "red_kernel", "warp_sum_kernel",
                                      "stmts_kernel", "vec_kernel", "hf_kernel",
                                      "vsel_kernel"])
