"""RFC 0039 / RFC 0077 worked examples, written with the TE stage API, end to end."""
import numpy as np
import pytest

import tepad
from tepad import TepadError, te, tir
from tepad.layout import from_physical, to_physical
from tepad.lower.passes.remove_branching_through_overcompute import \
    remove_branching_through_overcompute

rng = np.random.default_rng(3)


def nodes(f, cls):
    out = []
    tir.post_order_visit(f.body if isinstance(f, tir.PrimFunc) else f,
                         lambda n: out.append(n) if isinstance(n, cls) else None)
    return out


def innermost_loops(f):
    loops = nodes(f, tir.For)
    return [l for l in loops if not nodes(l.body, tir.For)]


def row_sum_schedule(rows=64, pad=0.0):
    A = te.placeholder((rows, 14), "float32", name="A")
    j = te.reduce_axis((0, 14), name="j")
    B = te.compute((rows,), lambda i: te.sum(A[i, j], axis=j), name="B")
    s = te.create_schedule(B.op)
    s[A].transform_layout(lambda i, j: [i, j // 4, j % 4], pad_value=pad)
    s[B].split(j, factor=4)
    return s, A, B


def test_row_summation_with_and_without_branch_removal():
    s, A, B = row_sum_schedule()
    f = tepad.lower(s, [A, B], flatten=False)["main"]
    assert [int(d) for d in f.buffer_map[f.params[0]].shape] == [64, 4, 4]
    # the consumer keeps the `j < 14` test; the assume states the padding holds zeros
    assert any(nodes(l, tir.IfThenElse) for l in innermost_loops(f))
    assert any(tir.is_call(c, "tir.assume") for c in nodes(f, tir.Call))
    g = remove_branching_through_overcompute(f)
    assert not any(nodes(l, tir.IfThenElse) for l in innermost_loops(g))
    a = rng.random((64, 14), dtype="float32")
    ap = to_physical(a, lambda i, j: [i, j // 4, j % 4], pad_value=0.0)
    for func in (f, g):
        b = np.zeros(64, "float32")
        tepad.build(func)(ap, b)
        np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-5)


def test_branch_removal_needs_the_promised_pad_value():
    s, A, B = row_sum_schedule(pad=None)
    g = remove_branching_through_overcompute(tepad.lower(s, [A, B], flatten=False)["main"])
    assert any(nodes(l, tir.IfThenElse) for l in innermost_loops(g))


def test_checked_build_rejects_wrong_padding():
    s, A, B = row_sum_schedule()
    mod = tepad.build(tepad.lower(s, [A, B], flatten=False), checked=True)
    a = rng.random((64, 14), dtype="float32")
    ap = to_physical(a, lambda i, j: [i, j // 4, j % 4], pad_value=0.0)
    b = np.zeros(64, "float32")
    mod(ap, b)
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-5)
    ap[5, 3, 3] = 7.0
    with pytest.raises(TepadError, match="argument A: the padding does not hold"):
        mod(ap, b)


def test_padded_conv1d_on_input_and_output():
    """RFC 0077: conv1d with padding 2; A and B both stored as [(i+2)//8, (i+2)%8]."""
    A = te.placeholder((16,), "float32", name="A")
    F = te.placeholder((3,), "float32", name="F")
    fi = te.reduce_axis((0, 3), name="fi")
    B = te.compute((18,), lambda bi: te.sum(
        te.if_then_else(tir.all(bi - fi + 2 >= 0, bi - fi + 2 < 16), A[bi - fi + 2] * F[fi],
                        te.const(0.0)), axis=fi), name="B")
    s = te.create_schedule(B.op)
    lay = lambda i: [(i + 2) // 8, (i + 2) % 8]   # noqa: E731
    s[A].transform_layout(lay, pad_value=0.0)
    ax = s[B].transform_layout(lay, pad_value=0.0)
    assert [int(iv.dom.extent) for iv in ax] == [3, 8]
    f = tepad.lower(s, [A, F, B], flatten=False)["main"]
    shapes = [[int(d) for d in f.buffer_map[p].shape] for p in f.params]
    assert shapes == [[3, 8], [3], [3, 8]]
    a = rng.random(16, dtype="float32")
    w = rng.random(3, dtype="float32")
    b = np.full((3, 8), np.nan, "float32")
    tepad.build(f)(to_physical(a, lay, 0.0), w, b)
    ref = np.array([sum(a[bi - k + 2] * w[k] for k in range(3) if 0 <= bi - k + 2 < 16)
                    for bi in range(18)], "float32")
    np.testing.assert_allclose(from_physical(b, lay, (18,)), ref, rtol=1e-5)
    # the padding of the output holds the pad value: (0, 0..1) and (2, 4..7)
    np.testing.assert_array_equal(b[0, :2], 0.0)
    np.testing.assert_array_equal(b[2, 4:], 0.0)


def test_elementwise_undef_padding_becomes_branch_free():
    """RFC 0077: B = 2*A with undef padding on both; overcompute into the padding is allowed."""
    A = te.placeholder((14,), "int32", name="A")
    B = te.compute((14,), lambda i: 2 * A[i], name="B")
    s = te.create_schedule(B.op)
    lay = lambda i: [i // 4, i % 4]   # noqa: E731
    s[A].transform_layout(lay, pad_value=lambda io, ii: tir.undef("int32"))
    s[B].transform_layout(lay, pad_value=lambda io, ii: tir.undef("int32"))
    f = tepad.lower(s, [A, B], flatten=False)["main"]
    assert any(tir.is_call(c, "tir.undef") for c in nodes(f, tir.Call))
    g = remove_branching_through_overcompute(f)
    compute_loops = [l for l in innermost_loops(g) if nodes(l, tir.BufferStore) and not
                     any(tir.is_call(c, "tir.undef") for c in nodes(l, tir.Call))]
    assert compute_loops and not any(nodes(l, tir.IfThenElse) for l in compute_loops)
    built = tepad.lower.lower_for_codegen(g)
    assert not any(tir.is_call(c, "tir.undef") for c in nodes(built, tir.Call))
    a = rng.integers(-9, 9, 14).astype("int32")
    b = np.zeros((4, 4), "int32")
    tepad.build(g)(to_physical(a, lay, 0), b)
    np.testing.assert_array_equal(from_physical(b, lay, (14,)), 2 * a)


def test_multiple_transformations_apply_in_order():
    A = te.placeholder((14, 60), "int32", name="A")
    j = te.reduce_axis((0, 60), name="j")
    B = te.compute((14,), lambda i: te.sum(A[i, j], axis=j), name="B")
    s = te.create_schedule(B.op)
    s[A].transform_layout(lambda i, j: [i // 4, i % 4, j])
    s[A].transform_layout(lambda io, ii, j: [io, ii, j // 8, j % 8], pad_value=0)
    f = tepad.lower(s, [A, B], flatten=False)["main"]
    assert [int(d) for d in f.buffer_map[f.params[0]].shape] == [4, 4, 8, 8]
    a = rng.integers(-9, 9, (14, 60)).astype("int32")
    ap = to_physical(a, [lambda i, j: [i // 4, i % 4, j],
                         lambda io, ii, j: [io, ii, j // 8, j % 8]], 0)
    b = np.zeros(14, "int32")
    tepad.build(f)(ap, b)
    np.testing.assert_array_equal(b, a.sum(axis=1))


def test_each_transform_owns_the_padding_it_introduced():
    """RFC 0077 multiple buffer semantics: the first map's padding is undef, the second's 0."""
    A = te.placeholder((14, 60), "int32", name="A")
    j = te.reduce_axis((0, 60), name="j")
    B = te.compute((14,), lambda i: te.sum(A[i, j], axis=j), name="B")
    s = te.create_schedule(B.op)
    s[A].transform_layout(lambda i, j: [i // 4, i % 4, j],
                          pad_value=lambda io, ii, j: tir.undef("int32"))
    s[A].transform_layout(lambda io, ii, j: [io, ii, j // 8, j % 8], pad_value=0)
    f = tepad.lower(s, [A, B], flatten=False)["main"]
    assumes = [c for c in nodes(f, tir.Call) if tir.is_call(c, "tir.assume")]
    assert len(assumes) == 1        # only the second map promises a value (0)
    maps = [lambda i, j: [i // 4, i % 4, j], lambda io, ii, j: [io, ii, j // 8, j % 8]]
    a = rng.integers(-9, 9, (14, 60)).astype("int32")
    ap = to_physical(a, maps, 0)
    ap[3, 2:, :7, :] = 77           # the first map's padding (j < 60): undefined, any value
    ap[3, 2:, 7, :4] = 77
    mod = tepad.build(f, checked=True)
    b = np.zeros(14, "int32")
    mod(ap, b)
    np.testing.assert_array_equal(b, a.sum(axis=1))
    ap[0, 0, 7, 5] = 1              # the second map's padding must hold 0
    with pytest.raises(TepadError, match="padding does not hold"):
        mod(ap, b)


def test_nhwc_to_nchwc_shapes_and_indices():
    """RFC 0039: [n, c//4, h, w, c%4] gives a 5-d layout, flattened row-major."""
    A = te.placeholder((16, 64, 64, 128), "float32", name="A")
    x = te.compute(A.shape, lambda n, h, w, c: A[n, h, w, c], name="x")
    y = te.compute((1,), lambda _: x[11, 37, 23, 101], name="y")
    s = te.create_schedule([x.op, y.op])
    ax = s[x].transform_layout(lambda n, h, w, c: [n, c // 4, h, w, c % 4])
    assert [int(iv.dom.extent) for iv in ax] == [16, 32, 64, 64, 4]
    f = tepad.lower(s, [A, x, y], flatten=False)["main"]
    assert [int(d) for d in f.buffer_map[f.params[1]].shape] == [16, 32, 64, 64, 4]
    loads = [l for l in nodes(f, tir.BufferLoad) if l.buffer.name == "x"]
    assert [int(i) for i in loads[0].indices] == [11, 101 // 4, 37, 23, 101 % 4]
    flat = tepad.lower.passes.storage_flatten(f)
    loads = [l for l in nodes(flat, tir.BufferLoad) if l.buffer.name == "x"]
    assert [int(i) for i in loads[0].indices] == [
        32 * 64 * 64 * 4 * 11 + 64 * 64 * 4 * (101 // 4) + 64 * 4 * 37 + 4 * 23 + 101 % 4]


def test_texture_layout_with_axis_separator_is_2d():
    """RFC 0039: [n, c//4, h, SEP, w, c%4] flattens to (n*C/4*h, w*4) with 2-d indices."""
    A = te.placeholder((16, 64, 64, 128), "float32", name="A")
    x = te.compute(A.shape, lambda n, h, w, c: A[n, h, w, c], name="x")
    y = te.compute((1,), lambda _: x[11, 37, 23, 101], name="y")
    s = te.create_schedule([x.op, y.op])
    s[x].transform_layout(lambda n, h, w, c: [n, c // 4, h, te.AXIS_SEPARATOR, w, c % 4])
    f = tepad.lower(s, [A, x, y], flatten=False)["main"]
    xb = f.buffer_map[f.params[1]]
    assert list(xb.axis_separators) == [3]
    flat = tepad.lower.passes.storage_flatten(f)
    loads = [l for l in nodes(flat, tir.BufferLoad) if l.buffer.name == "x"]
    assert [int(d) for d in loads[0].buffer.shape] == [16 * 32 * 64, 64 * 4]
    assert [int(i) for i in loads[0].indices] == [32 * 64 * 11 + 64 * (101 // 4) + 37,
                                                  4 * 23 + 101 % 4]


@pytest.mark.parametrize("sep", [False, True])
def test_nchwc_producer_consumer_pair_runs(sep):
    shape = (1, 5, 6, 8)
    A = te.placeholder(shape, "float32", name="A")
    B = te.compute(shape, lambda n, h, w, c: A[n, h, w, c] * 2.0, name="B")
    C = te.compute(shape, lambda n, h, w, c: B[n, h, w, c] + 1.0, name="C")
    s = te.create_schedule(C.op)
    if sep:
        lay = lambda n, h, w, c: [n, c // 4, h, te.AXIS_SEPARATOR, w, c % 4]  # noqa: E731
    else:
        lay = lambda n, h, w, c: [n, c // 4, h, w, c % 4]  # noqa: E731
    ax = s[B].transform_layout(lay)
    s[B].vectorize(ax[-1])
    s[C].transform_layout(lay)
    mod = tepad.build(s, [A, C])
    info = mod.arg_info[1]
    assert tuple(int(d) for d in info.physical_shape) == (1, 2, 5, 6, 4)
    assert tuple(int(d) for d in info.logical_shape) == shape
    a = rng.random(shape, dtype="float32")
    c = np.zeros((1, 2, 5, 6, 4), "float32")
    mod(a, c)
    nolay = lambda n, h, w, c: [n, c // 4, h, w, c % 4]  # noqa: E731
    np.testing.assert_allclose(from_physical(c, nolay, shape), a * 2 + 1, rtol=1e-6)


def test_transformed_compute_loops_follow_the_layout_and_skip_padding():
    A = te.placeholder((14,), "float32", name="A")
    B = te.compute((14,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    io, ii = s[B].transform_layout(lambda i: [i // 4, i % 4], pad_value=-1.0)
    assert (int(io.dom.extent), int(ii.dom.extent)) == (4, 4)
    s[B].vectorize(ii)
    a = rng.random(14, dtype="float32")
    b = np.zeros((4, 4), "float32")
    tepad.build(s, [A, B])(a, b)
    np.testing.assert_allclose(b.reshape(-1)[:14], a * 2, rtol=1e-6)
    np.testing.assert_array_equal(b.reshape(-1)[14:], -1.0)


def test_layout_errors():
    A = te.placeholder((8,), "float32", name="A")
    B = te.compute((8,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((8,), lambda i: B[i] * 2.0, name="C")
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match="not injective"):
        s[B].transform_layout(lambda i: [i % 2])
    with pytest.raises(TepadError, match="pad_value reads A"):
        s[B].transform_layout(lambda i: [i // 3, i % 3], pad_value=lambda io, ii: A[0])
    s2 = te.create_schedule(C.op)
    s2[B].transform_layout(lambda i: [i // 4, i % 4])
    s2[B].compute_at(s2[C], C.op.axis[0])
    # no longer an error: the layout applies to the one-element region B realizes
    # per iteration of C's loop (tests/layout/test_layout_at_attach.py)
    a = rng.random(8, dtype="float32")
    c = np.zeros(8, "float32")
    tepad.build(s2, [A, C])(a, c)
    np.testing.assert_allclose(c, (a + 1.0) * 2.0, rtol=1e-6)
