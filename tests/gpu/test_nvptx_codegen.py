"""PTX from the NVPTX back end: what the kernels contain, and that ptxas accepts them."""
import re

import pytest

import tepad
from tepad import te, tir
from tepad.backend.cuda import device_kernels, ptx_of
from tepad.codegen.nvptx import compile_ptx, emit_kernel_ir, known_multiple
from tepad.codegen.nvptx_target import parse_arch, ptx_features
from tepad.errors import TepadError
from tepad.lower.pipeline import Options, lower_for_codegen

from .nvptx_helpers import needs_ptxas, ptxas_ok, vadd_schedule

CUDA = Options(target="cuda")


def storage_sync():
    return tir.Evaluate(tir.Call("int32", "tir.tvm_storage_sync", [tir.StringImm("shared")]))


def lowered(s, args, name="main"):
    return lower_for_codegen(s, args, name, CUDA)


@needs_ptxas
def test_elementwise_kernel_reads_thread_and_block_ids(tmp_path):
    s, args = vadd_schedule()
    ptx = ptx_of(lowered(s, args, "vadd"), "cuda -arch=sm_90")
    assert ".entry vadd_kernel(" in ptx
    assert "%ctaid.x" in ptx and "%tid.x" in ptx
    assert ".maxntid 64, 1, 1" in ptx
    assert ".target sm_90" in ptx and ".version 8.0" in ptx
    assert re.search(r"ld\.global(\.nc)?\.(b|f)32", ptx) and re.search(r"st\.global\.(b|f)32", ptx)
    ptxas_ok(ptx, tmp_path)


@needs_ptxas
def test_two_stages_give_two_entries(tmp_path):
    A = te.placeholder((1024,), name="A")
    B = te.compute((1024,), lambda i: A[i] * 2, name="B")
    C = te.compute((1024,), lambda i: B[i] + 1, name="C")
    s = te.create_schedule(C.op)
    for T in (B, C):
        bx, tx = s[T].split(T.op.axis[0], factor=128)
        s[T].bind(bx, te.thread_axis("blockIdx.x"))
        s[T].bind(tx, te.thread_axis("threadIdx.x"))
    ptx = ptx_of(lowered(s, [A, C], "two"))
    assert ptx.count(".entry ") == 2
    assert ".entry two_kernel(" in ptx and ".entry two_kernel_1(" in ptx
    ptxas_ok(ptx, tmp_path)


def _shared_reverse_kernel(n=128, sync=True):
    """B[b*n + t] = A[b*n + n-1-t], staged through a shared buffer (hand-built device IR)."""
    A = tir.decl_buffer((1024,), "float32", "A")
    B = tir.decl_buffer((1024,), "float32", "B")
    sh_var = tir.Var("sh", "handle")
    sh = tir.decl_buffer((n,), "float32", "sh", data=sh_var)
    bx = te.thread_axis("blockIdx.x")
    tx = te.thread_axis("threadIdx.x")
    b, t = bx.var, tx.var
    load = tir.BufferStore(sh, tir.BufferLoad(A, [b * n + t]), [t])
    use = tir.BufferStore(B, tir.BufferLoad(sh, [n - 1 - t]), [b * n + t])
    body = [load]
    if sync:
        body.append(storage_sync())
    body.append(use)
    inner = tir.AttrStmt(tx, "thread_extent", n, tir.SeqStmt(body))
    alloc = tir.Allocate(sh_var, "float32", [n], True, inner, {"scope": "shared"})
    kernel = tir.AttrStmt(bx, "thread_extent", 1024 // n, alloc)
    return tir.PrimFunc([A, B], kernel, attrs={"global_symbol": "rev"})


@needs_ptxas
def test_shared_memory_and_barrier(tmp_path):
    ptx = ptx_of(_shared_reverse_kernel(), "cuda -arch=sm_90")
    assert re.search(r"\.shared \.align \d+ \.b8 \w+\[512\]", ptx)
    assert re.search(r"bar\.sync\s+0;", ptx)
    assert re.search(r"st\.shared\.(b|f)32", ptx) and re.search(r"ld\.shared\.(b|f)32", ptx)
    # the barrier sits between the shared store and the shared load
    body = ptx[ptx.index("{"):]
    assert body.index("st.shared") < body.index("bar.sync") < body.index("ld.shared")
    ptxas_ok(ptx, tmp_path)


@needs_ptxas
def test_unscoped_allocation_under_threads_is_local(tmp_path):
    A = tir.decl_buffer((256,), "float32", "A")
    tmp_var = tir.Var("acc", "handle")
    acc = tir.decl_buffer((4,), "float32", "acc", data=tmp_var)
    tx = te.thread_axis("threadIdx.x")
    t = tx.var
    k = tir.Var("k", "int32")
    fill = tir.For(k, 0, 4, body=tir.BufferStore(acc, tir.BufferLoad(A, [t * 4 + k]) * 2.0, [k]))
    k2 = tir.Var("k2", "int32")
    back = tir.For(k2, 0, 4, body=tir.BufferStore(
        A, tir.BufferLoad(acc, [3 - k2]), [t * 4 + k2]))
    alloc = tir.Allocate(tmp_var, "float32", [4], True, tir.SeqStmt([fill, back]))
    f = tir.PrimFunc([A], tir.AttrStmt(tx, "thread_extent", 64, alloc),
                     attrs={"global_symbol": "loc"})
    ptx = ptx_of(f)
    assert ".shared" not in ptx       # per thread: registers or local memory, never shared
    ptxas_ok(ptx, tmp_path)


@needs_ptxas
def test_dynamic_shared_memory(tmp_path):
    n = te.var("n")
    A = tir.decl_buffer((n,), "float32", "A")
    sh_var = tir.Var("dyn", "handle")
    sh = tir.decl_buffer((n,), "float32", "dyn", data=sh_var)
    tx = te.thread_axis("threadIdx.x")
    t = tx.var
    body = tir.SeqStmt([
        tir.BufferStore(sh, tir.BufferLoad(A, [t]), [t]),
        storage_sync(),
        tir.BufferStore(A, tir.BufferLoad(sh, [n - 1 - t]), [t])])
    alloc = tir.Allocate(sh_var, "float32", [n], True, body, {"scope": "shared"})
    f = tir.PrimFunc([A], tir.AttrStmt(tx, "thread_extent", n, alloc),
                     attrs={"global_symbol": "dyn"})
    ptx = ptx_of(f)
    assert re.search(r"\.extern \.shared \.align 16 \.b8 __tepad_dyn_shmem\[\]", ptx)
    assert ".maxntid" not in ptx       # the block size is not known when compiling
    ptxas_ok(ptx, tmp_path)


MATH = [("exp", te.exp), ("log", te.log), ("sqrt", te.sqrt), ("tanh", te.tanh),
        ("erf", te.erf), ("sin", te.sin), ("cos", te.cos), ("fabs", te.abs),
        ("floor", te.floor), ("ceil", te.ceil), ("sigmoid", te.sigmoid),
        ("log1p", te.log1p), ("pow", lambda x: te.power(x, x)), ("fmod", lambda x: te.fmod(x, 1.5))]


def _unary_kernel(fn, dtype="float32", n=1024):
    A = te.placeholder((n,), name="A", dtype=dtype)
    B = te.compute((n,), lambda i: fn(A[i]), name="B")
    s = te.create_schedule(B.op)
    bx, tx = s[B].split(B.op.axis[0], factor=128)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    return lowered(s, [A, B], "m")


@needs_ptxas
@pytest.mark.parametrize("name,fn", MATH, ids=[m[0] for m in MATH])
def test_math_functions_assemble_with_no_calls_left(name, fn, tmp_path):
    ptx = ptx_of(_unary_kernel(fn), "cuda -arch=sm_90")
    # libdevice is linked and inlined: no function call and no extern declaration remain
    assert "call" not in ptx.split(".entry")[1] and ".extern .func" not in ptx
    ptxas_ok(ptx, tmp_path)


@needs_ptxas
@pytest.mark.parametrize("dtype", ["float64", "float16"])
def test_math_in_other_float_types(dtype, tmp_path):
    ptx = ptx_of(_unary_kernel(te.exp, dtype), "cuda -arch=sm_90")
    ptxas_ok(ptx, tmp_path)


def test_intrinsics_stay_instructions():
    ptx = ptx_of(_unary_kernel(te.sqrt))
    assert "sqrt.rn.f32" in ptx
    ptx = ptx_of(_unary_kernel(te.floor))
    assert "cvt.rmi.f32.f32" in ptx


def test_libdevice_missing_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("TEPAD_LIBDEVICE", str(tmp_path / "nowhere.bc"))
    with pytest.raises(TepadError, match=r"__nv_expf.*libdevice.*nvidia-cuda-nvcc-cu12"):
        ptx_of(_unary_kernel(te.exp))
    ptx_of(_unary_kernel(te.sqrt))          # no libdevice needed: fine without it


@needs_ptxas
def test_vector_loads_and_stores(tmp_path):
    A = te.placeholder((1024,), name="A")
    C = te.compute((1024,), lambda i: A[i] * 2, name="C")
    s = te.create_schedule(C.op)
    bx, tx = s[C].split(C.op.axis[0], factor=512)
    tx, vi = s[C].split(tx, factor=4)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    s[C].vectorize(vi)
    ptx = ptx_of(lowered(s, [A, C], "vec"), "cuda -arch=sm_90")
    assert re.search(r"ld\.global(\.nc)?\.v4\.(b|f)32", ptx)
    assert re.search(r"st\.global\.v4\.(b|f)32", ptx)
    ptxas_ok(ptx, tmp_path)


def test_known_multiple_proves_vector_alignment():
    b, t = tir.Var("b", "int32"), tir.Var("t", "int32")
    assert known_multiple(b * 512 + t * 4) == 4
    assert known_multiple(b * 512 + t * 4 + 2) == 2
    assert known_multiple(b * 512 + t) == 1


@needs_ptxas
def test_unrolled_loop(tmp_path):
    A = te.placeholder((64, 8), name="A")
    B = te.compute((64,), lambda i: A[i, 0] + A[i, 1] + A[i, 7], name="B")
    k = te.reduce_axis((0, 8), name="k")
    C = te.compute((64,), lambda i: te.sum(A[i, k], axis=k), name="C")
    s = te.create_schedule([B.op, C.op])
    s[C].bind(C.op.axis[0], te.thread_axis("threadIdx.x"))
    s[C].unroll(C.op.reduce_axis[0])
    s[B].bind(B.op.axis[0], te.thread_axis("threadIdx.x"))
    ptx = ptx_of(lowered(s, [A, B, C], "unr"))
    entry = ptx.split(".entry unr_kernel_1")[1]
    assert "bra" not in entry            # the 8-step reduction is straight-line code
    ptxas_ok(ptx, tmp_path)


@needs_ptxas
@pytest.mark.parametrize("arch", ["sm_70", "sm_80", "sm_86", "sm_89", "sm_90"])
def test_architectures(arch, tmp_path):
    s, args = vadd_schedule()
    ptx = ptx_of(lowered(s, args), f"cuda -arch={arch}")
    assert f".target {arch}" in ptx
    ptxas_ok(ptx, tmp_path, arch)


def test_arch_names():
    assert ptx_features("sm_90") == "+ptx80" and ptx_features("sm_80") == "+ptx70"
    assert parse_arch("sm_90a") == (90, "a")
    with pytest.raises(TepadError, match="sm_XY"):
        parse_arch("hopper")
    with pytest.raises(TepadError, match="older than sm_50"):
        ptx_features("sm_35")


def test_compile_ptx_of_device_kernels_only():
    s, args = vadd_schedule()
    f = lowered(s, args, "vadd")
    with pytest.raises(TepadError, match="no GPU launch|no loop is bound to a GPU thread"):
        A = te.placeholder((8,), name="A")
        B = te.compute((8,), lambda i: A[i] + 1, name="B")
        ptx_of(lowered(te.create_schedule(B.op), [A, B]))
    ptx, ll = compile_ptx(tepad.lower.passes.split_host_device.split_host_device(f).kernels)
    assert "ptx_kernel" in ll and ".entry vadd_kernel(" in ptx


def test_virtual_thread_left_for_codegen_is_an_error():
    A = tir.decl_buffer((8,), "float32", "A")
    vt = te.thread_axis("vthread")
    f = tir.PrimFunc([A], tir.AttrStmt(
        vt, "virtual_thread", 2, tir.BufferStore(A, tir.FloatImm(0.0, "float32"), [vt.var])),
        attrs={"global_symbol": "vt", "tepad.device_kernel": True})
    with pytest.raises(TepadError, match="inject_virtual_thread"):
        ptx_of(f)


@needs_ptxas
@pytest.mark.parametrize("fname", ["expf", "__nv_expf", "__expf", "erfcf"])
def test_call_extern_resolves_to_libdevice(fname, tmp_path):
    ptx = ptx_of(_unary_kernel(lambda x: tir.call_pure_extern("float32", fname, x)))
    assert "call" not in ptx.split(".entry")[1]
    ptxas_ok(ptx, tmp_path)


def test_call_extern_of_an_unknown_function_is_refused():
    with pytest.raises(TepadError, match="C function 'my_helper'.*cannot call"):
        ptx_of(_unary_kernel(lambda x: tir.call_pure_extern("float32", "my_helper", x)))


@needs_ptxas
def test_warp_sync(tmp_path):
    A = tir.decl_buffer((32,), "float32", "A")
    tx = te.thread_axis("threadIdx.x")
    body = tir.SeqStmt([
        tir.BufferStore(A, tir.FloatImm(1.0, "float32"), [tx.var]),
        tir.Evaluate(tir.Call("int32", "tir.tvm_storage_sync", [tir.StringImm("warp")]))])
    ptx = ptx_of(tir.PrimFunc([A], tir.AttrStmt(tx, "thread_extent", 32, body)))
    assert re.search(r"bar\.warp\.sync\s+-1;", ptx)
    ptxas_ok(ptx, tmp_path)


@needs_ptxas
def test_vector_if_then_else_masks_global_loads(tmp_path):
    A = te.placeholder((1024,), name="A")
    B = te.placeholder((1024,), name="B")
    C = te.compute((1024,), lambda i: te.if_then_else(A[i] > 0, B[i], 0.0), name="C")
    s = te.create_schedule(C.op)
    bx, tx = s[C].split(C.op.axis[0], factor=512)
    tx, vi = s[C].split(tx, factor=4)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    s[C].vectorize(vi)
    f = lowered(s, [A, B, C], "mask")
    ll, _ = emit_kernel_ir(device_kernels(f)[0])
    assert re.search(r"@\"llvm.masked.load.v4f32.p1\"\(ptr addrspace\(1\)", ll)
    ptx = ptx_of(f)
    # B is read only where A > 0: one guarded scalar load per lane
    assert re.search(r"ld\.global(\.nc)?\.v4\.b32", ptx)           # A, whole
    assert len(re.findall(r"ld\.global(\.nc)?\.b32", ptx)) == 4     # B, lane by lane
    ptxas_ok(ptx, tmp_path)


def _warp_sum_kernel(dtype):
    """A[t] = sum over the warp of A (a butterfly with shuffle-down), hand-built."""
    A = tir.decl_buffer((32,), dtype, "A")
    tx = te.thread_axis("threadIdx.x")
    t = tx.var
    acc_var = tir.Var("acc", "handle")
    acc = tir.decl_buffer((1,), dtype, "acc", data=acc_var)
    zero = tir.IntImm(0, "int32")
    mask = tir.Call("uint32", "tir.tvm_warp_activemask", [])
    steps = [tir.BufferStore(acc, tir.BufferLoad(A, [t]), [zero])]
    for delta in (16, 8, 4, 2, 1):
        shuffled = tir.Call(dtype, "tir.tvm_warp_shuffle_down",
                            [mask, tir.BufferLoad(acc, [zero]), delta, 32, 32])
        steps.append(tir.BufferStore(acc, tir.BufferLoad(acc, [zero]) + shuffled, [zero]))
    lane0 = tir.Call(dtype, "tir.tvm_warp_shuffle", [mask, tir.BufferLoad(acc, [zero]), 0, 32, 32])
    steps.append(tir.BufferStore(A, lane0, [t]))
    body = tir.Allocate(acc_var, dtype, [1], True, tir.SeqStmt(steps), {"scope": "local"})
    return tir.PrimFunc([A], tir.AttrStmt(tx, "thread_extent", 32, body),
                        attrs={"global_symbol": "warp_sum"})


@needs_ptxas
@pytest.mark.parametrize("dtype", ["float32", "int32", "float64", "int64", "float16"])
def test_warp_shuffles(dtype, tmp_path):
    ptx = ptx_of(_warp_sum_kernel(dtype))
    assert re.search(r"shfl\.sync\.down\.b32", ptx) and re.search(r"shfl\.sync\.idx\.b32", ptx)
    assert "activemask.b32" in ptx
    ptxas_ok(ptx, tmp_path)


def test_unlowered_allreduce_is_an_error():
    A = tir.decl_buffer((32,), "float32", "A")
    tx = te.thread_axis("threadIdx.x")
    call = tir.Call("handle", "tir.tvm_thread_allreduce", [tir.IntImm(1, "uint32")])
    f = tir.PrimFunc([A], tir.AttrStmt(tx, "thread_extent", 32, tir.Evaluate(call)))
    with pytest.raises(TepadError, match="lower_thread_allreduce"):
        ptx_of(f)


def test_packed_call_in_a_kernel_is_refused():
    A = tir.decl_buffer((32,), "float32", "A")
    tx = te.thread_axis("threadIdx.x")
    call = tir.Call("int32", "tir.tvm_call_packed", [tir.StringImm("my_func")])
    f = tir.PrimFunc([A], tir.AttrStmt(tx, "thread_extent", 32, tir.Evaluate(call)))
    with pytest.raises(TepadError, match=r"packed function [\"']my_func[\"'].*device code cannot"):
        ptx_of(f)
