"""Stage.storage_align: the realized buffer's stride for the aligned dimension is padded to
``offset`` modulo ``factor`` (TVM's buffer_dim_align, honoured by StorageFlatten)."""
import numpy as np
import pytest

import tepad
from tepad import TepadError, te, tir
from tepad.lower.passes.storage_flatten import aligned_strides
from tepad.lower.pipeline import run_pipeline, schedule_to_primfunc


def chain(m=8, n=16):
    A = te.placeholder((m, n), name="A")
    A1 = te.compute((m, n), lambda i, j: A[i, j] * 2.0, name="A1")
    A2 = te.compute((m, n), lambda i, j: A1[i, j] + 3.0, name="A2")
    return A, A1, A2


def allocations(f):
    out = []
    tir.post_order_visit(f.body, lambda x: out.append(x) if isinstance(x, tir.Allocate) else None)
    return out


def store_indices(f, name):
    out = []
    tir.post_order_visit(f.body, lambda x: out.append(x.indices[0])
                         if isinstance(x, tir.BufferStore) and x.buffer.name == name else None)
    return out


def built(s, args):
    return run_pipeline(schedule_to_primfunc(s, args))      # every pass, as build runs them


def test_flatten_pads_the_row_stride():
    # TVM's test_flatten_storage_align: rows of 16 padded to 17 (17 % 2 == 1)
    A, A1, A2 = chain()
    s = te.create_schedule(A2.op)
    s[A1].storage_align(A1.op.axis[0], 2, 1)
    f = built(s, [A, A2])
    (alloc,) = allocations(f)
    assert [e.value for e in alloc.extents] == [17 * 8]
    assert not any(isinstance(x, tir.AttrStmt) and x.attr_key == "buffer_dim_align"
                   for x in _nodes(f.body))
    i = store_indices(f, "A1")[0]
    # the store index is row * 17 + column
    assert "17" in str(i)
    a = np.random.rand(8, 16).astype("float32")
    out = np.empty_like(a)
    tepad.build(s, [A, A2])(a, out)
    np.testing.assert_allclose(out, a * 2 + 3, rtol=1e-6)


def _nodes(stmt):
    out = []
    tir.post_order_visit(stmt, out.append)
    return out


def test_already_aligned_stride_is_kept():
    A, A1, A2 = chain(8, 16)
    s = te.create_schedule(A2.op)
    s[A1].storage_align(A1.op.axis[0], 8, 0)     # 16 % 8 == 0 already
    (alloc,) = allocations(built(s, [A, A2]))
    assert [e.value for e in alloc.extents] == [128]


@pytest.mark.parametrize("factor,offset", [(4, 1), (16, 3), (5, 0), (32, 31)])
def test_aligned_strides_formula(factor, offset):
    extents = [tir.IntImm(3, "int32"), tir.IntImm(10, "int32"), tir.IntImm(6, "int32")]
    strides, size = aligned_strides(extents, {1: (factor, offset)})
    st = [x.value for x in strides]
    assert st[2] == 1
    assert st[1] % factor == offset and 6 <= st[1] < 6 + factor
    assert st[0] == st[1] * 10 and size.value == st[0] * 3


def test_align_of_a_stage_computed_at_an_inner_loop_and_3d():
    A = te.placeholder((4, 6, 10), name="A")
    B = te.compute(A.shape, lambda i, j, k: A[i, j, k] + 1.0, name="B")
    C = te.compute(A.shape, lambda i, j, k: B[i, j, k] * B[i, j, k], name="C")
    s = te.create_schedule(C.op)
    s[B].compute_at(s[C], C.op.axis[0])
    s[B].storage_align(B.op.axis[1], 4, 2)
    s[B].storage_align(B.op.axis[0], 64, 0)
    f = built(s, [A, C])
    (alloc,) = allocations(f)
    # region 1 x 6 x 10: stride of j is 10 -> 10 (10 % 4 == 2); stride of i 60 -> 64
    assert [e.value for e in alloc.extents] == [64]
    a = np.random.rand(4, 6, 10).astype("float32")
    c = np.empty_like(a)
    tepad.build(s, [A, C])(a, c)
    np.testing.assert_allclose(c, (a + 1) ** 2, rtol=1e-6)


def test_align_with_symbolic_sizes():
    n = te.var("n")
    A = te.placeholder((n, 7), name="A")
    B = te.compute((n, 7), lambda i, j: A[i, j] - 1.0, name="B")
    C = te.compute((n, 7), lambda i, j: B[i, j] * 4.0, name="C")
    s = te.create_schedule(C.op)
    s[B].storage_align(B.op.axis[0], 8, 3)
    mod = tepad.build(s, [A, C])
    for rows in (1, 5):
        a = np.random.rand(rows, 7).astype("float32")
        c = np.empty_like(a)
        mod(a, c)
        np.testing.assert_allclose(c, (a - 1) * 4, rtol=1e-6)
    (alloc,) = allocations(built(s, [A, C]))
    assert "11" in str(alloc.extents[0])        # 7 rounded up to 11 (11 % 8 == 3)


def test_align_on_an_output_keeps_the_callers_layout():
    A, A1, A2 = chain()
    s = te.create_schedule(A2.op)
    s[A2].storage_align(A2.op.axis[0], 2, 1)
    a = np.random.rand(8, 16).astype("float32")
    out = np.empty_like(a)
    tepad.build(s, [A, A2])(a, out)
    np.testing.assert_allclose(out, a * 2 + 3, rtol=1e-6)


def test_storage_align_errors():
    A, A1, A2 = chain()
    s = te.create_schedule(A2.op)
    xo, xi = s[A1].split(A1.op.axis[0], factor=2)
    with pytest.raises(TepadError, match="stage A1.*root data axes"):
        s[A1].storage_align(xo, 2, 1)
    with pytest.raises(TepadError, match="stage A1.*factor > 0"):
        s[A1].storage_align(A1.op.axis[0], 0, 0)
    with pytest.raises(TepadError, match="stage A1.*integer constant"):
        s[A1].storage_align(A1.op.axis[0], 2.5, 0)
    s[A1].storage_align(A1.op.axis[1], 4, 0)
    with pytest.raises(TepadError, match="stage A1.*transform_layout after storage_align"):
        s[A1].transform_layout(lambda i, j: [j, i])
    s2 = te.create_schedule(A2.op)
    s2[A1].transform_layout(lambda i, j: [j, i])
    with pytest.raises(TepadError, match="stage A1.*storage_align after transform_layout"):
        s2[A1].storage_align(A1.op.axis[0], 2, 1)


@pytest.mark.parametrize("factor,offset,stride", [(15, 16, 16), (16, 17, 17), (4, -1, 19),
                                                   (5, 10, 20)])
def test_an_offset_outside_0_to_factor_counts_modulo_factor(factor, offset, stride):
    # TVM pads with floormod(factor + offset - stride % factor, factor): study scripts write
    # storage_align(ax, 16 - 1, 16) for CUDA shared tiles
    A, A1, A2 = chain(8, 16)
    s = te.create_schedule(A2.op)
    s[A1].storage_align(A1.op.axis[0], factor, offset)
    f = built(s, [A, A2])
    (alloc,) = allocations(f)
    assert int(alloc.extents[0]) == 8 * stride        # TVM allocates rows * row stride
    assert stride % factor == offset % factor
    a = np.random.rand(8, 16).astype("float32")
    out = np.empty_like(a)
    tepad.build(s, [A, A2])(a, out)
    np.testing.assert_allclose(out, a * 2 + 3, rtol=1e-6)
