"""split_host_device: which code becomes kernels, their parameters, and the launch records."""
import pytest

from tepad import te, tir
from tepad.errors import TepadError
from tepad.lower.passes.split_host_device import LAUNCH_OP, split_host_device
from tepad.lower.pipeline import Options, lower_for_codegen

from .nvptx_helpers import vadd_schedule

CUDA = Options(target="cuda")


def _launch_calls(stmt):
    out = []
    tir.post_order_visit(stmt, lambda n: out.append(n.args[0].value)
                         if isinstance(n, tir.Call) and n.op == LAUNCH_OP else None)
    return out


def test_elementwise_one_kernel_with_host_launch_dims():
    s, (A, B, C) = vadd_schedule()
    f = lower_for_codegen(s, [A, B, C], "vadd", CUDA)
    sp = split_host_device(f)
    (k,) = sp.kernels
    assert k.name == "vadd_kernel" and k.attrs["tepad.device_kernel"]
    assert [p.name for p in k.params] == ["A", "B", "C", "n"]
    assert [k.buffer_map[p].name for p in k.params[:3]] == ["A", "B", "C"]
    rec = sp.launches["vadd_kernel"]
    n = f.buffer_map[f.params[0]].shape[0]
    assert [str(d) for d in rec.block] == ["64", "1", "1"]
    assert tir.structural_equal(rec.grid[0], (n + 63) // 64) or str(rec.grid[0]) == \
        str((n + 63) // 64)
    assert [str(d) for d in rec.grid[1:]] == ["1", "1"]
    assert int(rec.dyn_shared.value) == 0
    assert _launch_calls(sp.host.body) == ["vadd_kernel"]
    # nothing of the kernel is left on the host
    host_tags = []
    tir.post_order_visit(sp.host.body, lambda x: host_tags.append(x)
                         if isinstance(x, tir.AttrStmt) else None)
    assert not host_tags


def test_two_dimensional_launch():
    A = te.placeholder((64, 96), name="A")
    B = te.compute((64, 96), lambda i, j: A[i, j] * 3, name="B")
    s = te.create_schedule(B.op)
    io, ii = s[B].split(B.op.axis[0], factor=8)
    jo, ji = s[B].split(B.op.axis[1], factor=32)
    s[B].reorder(io, jo, ii, ji)
    s[B].bind(io, te.thread_axis("blockIdx.y"))
    s[B].bind(jo, te.thread_axis("blockIdx.x"))
    s[B].bind(ii, te.thread_axis("threadIdx.y"))
    s[B].bind(ji, te.thread_axis("threadIdx.x"))
    sp = split_host_device(lower_for_codegen(s, [A, B], "m", CUDA))
    rec = sp.launches["m_kernel"]
    assert [int(d.value) for d in rec.grid] == [3, 8, 1]
    assert [int(d.value) for d in rec.block] == [32, 8, 1]


def test_two_stages_two_kernels_sharing_a_global_scratch_buffer():
    A = te.placeholder((1024,), name="A")
    B = te.compute((1024,), lambda i: A[i] * 2, name="B")
    C = te.compute((1024,), lambda i: B[i] + 1, name="C")
    s = te.create_schedule(C.op)
    for T in (B, C):
        bx, tx = s[T].split(T.op.axis[0], factor=128)
        s[T].bind(bx, te.thread_axis("blockIdx.x"))
        s[T].bind(tx, te.thread_axis("threadIdx.x"))
    sp = split_host_device(lower_for_codegen(s, [A, C], "two", CUDA))
    assert [k.name for k in sp.kernels] == ["two_kernel", "two_kernel_1"]
    assert [p.name for p in sp.kernels[0].params] == ["A", "B"]
    assert [p.name for p in sp.kernels[1].params] == ["C", "B"]
    assert _launch_calls(sp.host.body) == ["two_kernel", "two_kernel_1"]
    # B lives on the host side: allocated around both launches
    allocs = []
    tir.post_order_visit(sp.host.body, lambda x: allocs.append(x)
                         if isinstance(x, tir.Allocate) else None)
    (alloc,) = allocs
    assert alloc.buffer_var is sp.kernels[0].params[1]
    assert _launch_calls(alloc.body) == ["two_kernel", "two_kernel_1"]


def test_launch_extent_computed_in_the_kernel_is_refused():
    bx = te.thread_axis("blockIdx.x")
    tx = te.thread_axis("threadIdx.x")
    A = tir.decl_buffer((64,), "float32", "A")
    inner = tir.AttrStmt(tx, "thread_extent", bx.var + 1,
                         tir.BufferStore(A, tir.FloatImm(0.0, "float32"), [tx.var]))
    f = tir.PrimFunc([A], tir.AttrStmt(bx, "thread_extent", 4, inner))
    with pytest.raises(TepadError, match="threadIdx.x depends on blockIdx.x"):
        split_host_device(f)


def test_no_bound_loop_is_refused():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1, name="B")
    with pytest.raises(TepadError, match="no GPU launch|no loop is bound to a GPU thread"):
        split_host_device(lower_for_codegen(te.create_schedule(B.op), [A, B], "cpu_only", CUDA))


def test_dynamic_shared_memory_size_is_a_host_expression():
    n = te.var("n")
    A = tir.decl_buffer((n,), "float32", "A")
    sh_var = tir.Var("dyn", "handle")
    sh = tir.decl_buffer((n,), "float32", "dyn", data=sh_var)
    tx = te.thread_axis("threadIdx.x")
    body = tir.BufferStore(sh, tir.BufferLoad(A, [tx.var]), [tx.var])
    alloc = tir.Allocate(sh_var, "float32", [n], True, body, {"scope": "shared"})
    sp = split_host_device(tir.PrimFunc([A], tir.AttrStmt(tx, "thread_extent", n, alloc)))
    rec = sp.launches["main_kernel"]
    assert "n" in str(rec.dyn_shared) and "4" in str(rec.dyn_shared)
    assert [p.name for p in sp.kernels[0].params] == ["A", "n"]


def test_scalar_parameter_reaches_the_kernel():
    n = te.var("n")
    alpha = te.var("alpha", dtype="float32")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * alpha, name="B")
    s = te.create_schedule(B.op)
    bx, tx = s[B].split(B.op.axis[0], factor=32)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    sp = split_host_device(lower_for_codegen(s, [A, B, alpha], "scale", CUDA))
    names = [p.name for p in sp.kernels[0].params]
    assert names[:2] == ["A", "B"] and set(names[2:]) == {"n", "alpha"}
