"""InjectCopyIntrin (tir.transform.InjectCopyIntrin(pragma_key, fintrin)): a pragma-marked
copy nest is replaced by the callback's statement, given the regions as strided buffers."""
import numpy as np
import pytest

import tepad
from tepad import te, tir

from lower_helpers import nodes

RNG = np.random.default_rng(2)


def _copy_sched(rows=16, cols=32, sub=None):
    A = te.placeholder((rows, cols), name="A")
    r, c = sub or (rows, cols)
    B = te.compute((r, c), lambda i, j: A[i, j + (cols - c)], name="B")
    C = te.compute((r, c), lambda i, j: B[i, j] * 2.0, name="C")
    s = te.create_schedule(C.op)
    s[B].pragma(B.op.axis[0], "memcpy")
    return s, A, C


def _loop_copy(src, dst, pad_before, pad_after, pad_value):
    """The copy written back as loops over flat views of the two buffers' memory."""
    flat_src = tir.decl_buffer((1 << 20,), src.dtype, "src_flat", data=src.data)
    flat_dst = tir.decl_buffer((1 << 20,), dst.dtype, "dst_flat", data=dst.data)
    i, j = tir.Var("ci", "int32"), tir.Var("cj", "int32")
    load = tir.BufferLoad(flat_src, [src.elem_offset + i * src.strides[0] + j * src.strides[1]])
    store = tir.BufferStore(flat_dst, load, [dst.elem_offset + i * dst.strides[0] +
                                             j * dst.strides[1]])
    return tir.For(i, 0, src.shape[0], "serial", tir.For(j, 0, src.shape[1], "serial", store))


def test_callback_sees_regions_and_replaces_the_nest():
    s, A, C = _copy_sched(16, 32, sub=(16, 24))
    mod = tepad.lower(s, [A, C])
    seen = []

    def fintrin(src, dst, pad_before, pad_after, pad_value):
        seen.append((src, dst, pad_before, pad_after, pad_value))
        return _loop_copy(src, dst, pad_before, pad_after, pad_value)
    out = tir.transform.InjectCopyIntrin("memcpy", fintrin)(mod)
    (src, dst, pb, pa, pv) = seen[0]
    assert [int(x) for x in src.shape] == [16, 24] and src.data is A_data(mod)
    assert [int(x) for x in src.strides] == [32, 1] and int(src.elem_offset) == 8
    assert [int(x) for x in dst.strides] == [24, 1] and int(dst.elem_offset) == 0
    assert [int(x) for x in pb] == [0, 0] and pv is None
    assert not [a for a in nodes(out["main"], tir.AttrStmt) if a.attr_key == "pragma_memcpy"]
    a = RNG.random((16, 32)).astype("float32")
    c = np.zeros((16, 24), "float32")
    tepad.build(out)(a, c)
    np.testing.assert_allclose(c, a[:, 8:] * 2.0)


def A_data(mod):
    return mod["main"].params[0] if mod["main"].params[0] not in mod["main"].buffer_map \
        else mod["main"].buffer_map[mod["main"].params[0]].data


def test_not_a_copy_is_refused():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((8,), lambda i: B[i], name="C")
    s = te.create_schedule(C.op)
    s[B].pragma(B.op.axis[0], "memcpy")
    mod = tepad.lower(s, [A, C])
    with pytest.raises(tepad.TepadError, match="memcpy.*not a load"):
        tir.transform.InjectCopyIntrin("memcpy", lambda *a: tir.Evaluate(0))(mod)
    s2, A2, C2 = _copy_sched()
    with pytest.raises(tepad.TepadError, match="must return a tir Stmt"):
        tir.transform.InjectCopyIntrin("memcpy", lambda *a: None)(tepad.lower(s2, [A2, C2]))


def test_padded_copy_gives_pad_before_after_and_value():
    A = te.placeholder((6, 5), name="A")
    B = te.compute((10, 9), lambda i, j: te.if_then_else(
        te.all(i >= 2, i < 8, j >= 1, j < 6), A[i - 2, j - 1], -1.0), name="B")
    C = te.compute((10, 9), lambda i, j: B[i, j] + 0.5, name="C")
    s = te.create_schedule(C.op)
    s[B].pragma(B.op.axis[0], "memcpy")
    mod = tepad.lower(s, [A, C])
    seen = {}

    def fintrin(src, dst, pad_before, pad_after, pad_value):
        seen.update(src=src, dst=dst, pb=pad_before, pa=pad_after, pv=pad_value)
        # dst[i, j] = pad_value outside, src[i - pb0, j - pb1] inside, as loops
        flat_src = tir.decl_buffer((1 << 20,), src.dtype, "s", data=src.data)
        flat_dst = tir.decl_buffer((1 << 20,), dst.dtype, "d", data=dst.data)
        i, j = tir.Var("ci", "int32"), tir.Var("cj", "int32")
        inside = tir.all(i >= pad_before[0], i < pad_before[0] + src.shape[0],
                         j >= pad_before[1], j < pad_before[1] + src.shape[1])
        load = tir.BufferLoad(flat_src, [src.elem_offset + (i - pad_before[0]) * src.strides[0]
                                         + (j - pad_before[1]) * src.strides[1]])
        val = tir.if_then_else(inside, load, pad_value)
        store = tir.BufferStore(flat_dst, val, [dst.elem_offset + i * dst.strides[0] +
                                                j * dst.strides[1]])
        return tir.For(i, 0, dst.shape[0], "serial",
                       tir.For(j, 0, dst.shape[1], "serial", store))
    out = tir.transform.InjectCopyIntrin("memcpy", fintrin)(mod)
    assert [int(x) for x in seen["pb"]] == [2, 1] and [int(x) for x in seen["pa"]] == [2, 3]
    assert [int(x) for x in seen["src"].shape] == [6, 5]
    assert [int(x) for x in seen["src"].strides] == [5, 1] and int(seen["src"].elem_offset) == 0
    assert float(seen["pv"].value) == -1.0
    a = RNG.random((6, 5)).astype("float32")
    c = np.zeros((10, 9), "float32")
    tepad.build(out)(a, c)
    want = np.full((10, 9), -1.0, "float32")
    want[2:8, 1:6] = a
    np.testing.assert_allclose(c, want + 0.5)


def test_symbolic_row_length_gives_a_symbolic_stride():
    rows, cols = te.var("rows"), te.var("cols")
    A = te.placeholder((rows, cols), name="A")
    B = te.compute((rows, cols), lambda i, j: A[i, j], name="B")
    C = te.compute((rows, cols), lambda i, j: B[i, j] + 1.0, name="C")
    s = te.create_schedule(C.op)
    s[B].pragma(B.op.axis[0], "memcpy")
    mod = tepad.lower(s, [A, C])
    seen = []

    def fintrin(src, dst, pad_before, pad_after, pad_value):
        seen.append(src)
        return _loop_copy(src, dst, pad_before, pad_after, pad_value)
    out = tir.transform.InjectCopyIntrin("memcpy", fintrin)(mod)
    (src,) = seen
    assert not isinstance(src.strides[0], tir.IntImm)      # the row length, a variable
    assert int(src.strides[1]) == 1
    a = RNG.random((5, 7)).astype("float32")
    c = np.zeros((5, 7), "float32")
    tepad.build(out)(a, c)
    np.testing.assert_allclose(c, a + 1.0)


def test_index_not_linear_in_the_loops_is_refused():
    A = te.placeholder((64,), name="A")
    B = te.compute((8, 8), lambda i, j: A[i * j], name="B")
    C = te.compute((8, 8), lambda i, j: B[i, j] * 2.0, name="C")
    s = te.create_schedule(C.op)
    s[B].pragma(B.op.axis[0], "memcpy")
    mod = tepad.lower(s, [A, C])
    with pytest.raises(tepad.TepadError, match="not affine"):
        tir.transform.InjectCopyIntrin("memcpy", _loop_copy)(mod)
