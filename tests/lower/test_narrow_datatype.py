"""narrow_datatype (TVM's NarrowDataType(target_bits)): loop and thread variables take the
narrowest integer type all their index expressions fit in; results are unchanged."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.lower.passes import narrow_datatype

from lower_helpers import fors


def copy_plus_one(rows, cols, index_dtype="int64"):
    """for i in rows: for j in cols: B[i*cols + j] = A[i*cols + j] + 1 (int64 bounds)."""
    r, c = tir.const(rows, index_dtype), tir.const(cols, index_dtype)
    ib = tir.ir_builder.create()
    Ab = tir.decl_buffer([r * c], name="A")
    Bb = tir.decl_buffer([r * c], name="B")
    A, B = ib.buffer_ptr(Ab), ib.buffer_ptr(Bb)
    with ib.for_range(0, r, name="i") as i:
        with ib.for_range(0, c, name="j") as j:
            B[i * c + j] = A[i * c + j] + 1.0
    return tir.PrimFunc([Ab, Bb], ib.get())


def test_int64_loops_over_small_indices_become_int32_and_compute_the_same():
    f = copy_plus_one(6, 5)
    assert [x.loop_var.dtype for x in fors(f)] == ["int64", "int64"]
    g = narrow_datatype(f, 32)
    assert [x.loop_var.dtype for x in fors(g)] == ["int32", "int32"]
    a = np.random.default_rng(0).random(30).astype("float32")
    b = np.zeros(30, "float32")
    tepad.build(g)(a, b)
    np.testing.assert_allclose(b, a + 1.0)


def test_an_index_past_the_target_range_keeps_the_wide_type():
    # i * 65536 + j reaches 2**32 - 1: int32 would overflow
    g = narrow_datatype(copy_plus_one(2 ** 16, 2 ** 16), 32)
    assert [x.loop_var.dtype for x in fors(g)] == ["int64", "int64"]
    # with 16-bit targets, small int32 loops narrow further
    h = narrow_datatype(copy_plus_one(4, 4, "int32"), 16)
    assert [x.loop_var.dtype for x in fors(h)] == ["int16", "int16"]


def test_thread_variables_follow_their_launch_extent():
    ib = tir.ir_builder.create()
    Ab = tir.decl_buffer([64], name="A")
    A = ib.buffer_ptr(Ab)
    bx, tx = te.thread_axis("blockIdx.x"), te.thread_axis("threadIdx.x")
    ib.scope_attr(bx, "thread_extent", tir.const(2 ** 30, "int64"))
    ib.scope_attr(tx, "thread_extent", tir.const(32, "int64"))
    A[bx * tir.const(32, "int64") + tx] = 1.0
    g = narrow_datatype(tir.PrimFunc([Ab], ib.get()), 32)
    # bx * 32 + tx passes 2**31: both take the launch extents' int64
    assert g.body.node.var.dtype == "int64" and g.body.body.node.var.dtype == "int64"


def test_pass_object_takes_target_bits_and_checks_it():
    mod = tepad.IRModule.from_expr(copy_plus_one(3, 3))
    out = tir.transform.NarrowDataType(32)(mod)["main"]
    assert fors(out)[0].loop_var.dtype == "int32"
    with pytest.raises(tepad.TepadError, match="target_bits"):
        narrow_datatype(copy_plus_one(3, 3), 12)
