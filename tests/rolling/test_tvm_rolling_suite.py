"""TVM's rolling-buffer tests (tests/python/unittest/test_tir_transform_inject_rolling_buffer.py),
rewritten for tepad: the same topi pooling chains, tiles and rolling stages, checked against
numpy instead of against a second TVM build, plus the IR fact that each rolling stage's buffer
is indexed modulo its window."""
import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import tepad
from tepad import te, tir, topi

RNG = np.random.default_rng(11)


def maxpool(x, kh, kw):
    return sliding_window_view(x, (kh, kw), axis=(1, 2)).max(axis=(-2, -1))


def pool(t, kh, kw):
    return topi.nn.pool2d(t, (kh, kw), (1, 1), (1, 1), (0, 0, 0, 0), "max", layout="NHWC")


def tile_nd(s, t, tile):
    outer, inner = [], []
    for k, size in enumerate(tile):
        o, i = s[t].split(t.op.axis[k], size)
        outer.append(o)
        inner.append(i)
    s[t].reorder(*outer, *inner)
    return outer, inner


def circular_buffers(f):
    """Buffers stored to with a floormod index: the rolling buffers."""
    out = set()

    def visit(n):
        if isinstance(n, tir.BufferStore) and any(isinstance(i, tir.FloorMod)
                                                   for i in n.indices):
            out.add(n.buffer)
    tir.post_order_visit(f.body, visit)
    return out


def check(s, inputs, output, arrays, want, rolling=()):
    assert len(circular_buffers(tepad.lower(s, inputs + [output], flatten=False)["main"])) == len(rolling)
    out = np.zeros([int(d) for d in output.shape], "int8")
    tepad.build(s, inputs + [output])(*arrays, out)
    np.testing.assert_array_equal(out, want)


def rand(shape):
    return RNG.integers(-100, 100, shape).astype("int8")


@pytest.mark.parametrize("tile", [(1, 4, 8, 16), (1, 8, 7, 11), (1, 8, 3, 8), (1, 7, 5, 3)])
def test_tile_shapes(tile):
    A = te.placeholder((1, 12, 14, 16), name="A", dtype="int8")
    pa = pool(A, 3, 3)
    pb = pool(pa, 3, 5)
    s = te.create_schedule(pb.op)
    oi, _ = tile_nd(s, pb, tile)
    s[pa].compute_at(s[pb], oi[-1])
    s[pa].rolling_buffer()
    a = rand((1, 12, 14, 16))
    check(s, [A], pb, [a], maxpool(maxpool(a, 3, 3), 3, 5), rolling=[pa])


def test_implied_split():
    A = te.placeholder((1, 12, 12, 16), name="A", dtype="int8")
    pa = pool(A, 3, 3)
    pb = pool(pa, 3, 3)
    s = te.create_schedule(pb.op)
    n, h, w, c = pb.op.axis
    oi, _ = s[pb].split(w, 4)
    s[pa].compute_at(s[pb], oi)
    s[pa].rolling_buffer()
    a = rand((1, 12, 12, 16))
    check(s, [A], pb, [a], maxpool(maxpool(a, 3, 3), 3, 3), rolling=[pa])


def upscale_chain(kh, kw, tile, rolling):
    in_shape = (1, 12 + 2 * (kh - 1), 12 + 2 * (kw - 1), 16)
    A = te.placeholder(in_shape, name="A", dtype="int8")
    pa = pool(A, kh, kw)
    pb = pool(pa, kh, kw)
    up = te.compute((1, 24, 24, 16), lambda n, h, w, c: pb[n, h // 2, w // 2, c], name="up")
    s = te.create_schedule(up.op)
    oi, _ = tile_nd(s, up, tile)
    s[pb].compute_at(s[up], oi[-1])
    s[pa].compute_at(s[up], oi[-1])
    for t in rolling:
        s[{"pa": pa, "pb": pb}[t]].rolling_buffer()
    a = rand(in_shape)
    small = maxpool(maxpool(a, kh, kw), kh, kw)
    return s, A, up, a, small.repeat(2, axis=1).repeat(2, axis=2)


@pytest.mark.parametrize("rolling", [["pb"], ["pa", "pb"]])
@pytest.mark.parametrize("kernel", [(1, 1), (3, 3)])
def test_upscale_odd_tiles_roll_with_varying_overlap(kernel, rolling):
    """TVM's test_upscale tiles the 2x upscale by 5: the producers' regions then move by 2
    and 3 rows in turn (min floordiv(5*v, 2)), so consecutive tiles overlap by 1 row, then by
    none. The buffer still rolls; the skip guard uses the exact overlap of each pair."""
    s, A, up, a, want = upscale_chain(*kernel, (1, 5, 5, 16), rolling)
    check(s, [A], up, [a], want, rolling=rolling)


def test_upscale_even_tiles_roll_the_overlapping_producer():
    """Tiles of 4 outputs read 2 rows of pb (no overlap) and 4 rows of pa (overlap 2)."""
    s, A, up, a, want = upscale_chain(3, 3, (1, 4, 4, 16), ["pa"])
    check(s, [A], up, [a], want, rolling=["pa"])


@pytest.mark.parametrize("tile", [(1, 4, 8, 16), (1, 8, 7, 11), (1, 8, 3, 8), (1, 7, 5, 3)])
def test_three_tiled_poolings(tile):
    A = te.placeholder((1, 14, 14, 16), name="A", dtype="int8")
    pa = pool(A, 3, 3)
    pb = pool(pa, 3, 3)
    pc = pool(pb, 3, 3)
    s = te.create_schedule(pc.op)
    oi, _ = tile_nd(s, pc, tile)
    s[pb].compute_at(s[pc], oi[-1])
    s[pb].rolling_buffer()
    s[pa].compute_at(s[pc], oi[-1])
    s[pa].rolling_buffer()
    a = rand((1, 14, 14, 16))
    check(s, [A], pc, [a], maxpool(maxpool(maxpool(a, 3, 3), 3, 3), 3, 3), rolling=[pa, pb])


@pytest.mark.parametrize("tile", [(1, 4, 8, 16), (1, 8, 7, 11), (1, 8, 3, 8), (1, 7, 5, 3)])
def test_tiled_added_poolings(tile):
    A = te.placeholder((1, 12, 12, 16), name="A", dtype="int8")
    B = te.placeholder((1, 14, 14, 16), name="B", dtype="int8")
    pa = pool(A, 3, 3)
    pb = pool(B, 5, 5)
    add = topi.add(pa, pb)
    pc = pool(add, 3, 3)
    s = te.create_schedule(pc.op)
    oi, _ = tile_nd(s, pc, tile)
    for t in (add, pb, pa):
        s[t].compute_at(s[pc], oi[-1])
        s[t].rolling_buffer()
    a, b = rand((1, 12, 12, 16)), rand((1, 14, 14, 16))
    summed = (maxpool(a, 3, 3).astype("int32") + maxpool(b, 5, 5)).astype("int8")
    check(s, [A, B], pc, [a, b], maxpool(summed, 3, 3), rolling=[add, pb, pa])


@pytest.mark.parametrize("make_rolling", [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_mixed_buffers(make_rolling):
    A = te.placeholder((1, 14, 14, 16), name="A", dtype="int8")
    pa = pool(A, 3, 3)
    pb = pool(pa, 3, 3)
    pc = pool(pb, 3, 3)
    s = te.create_schedule(pc.op)
    oi, _ = tile_nd(s, pc, (1, 4, 8, 16))
    s[pb].compute_at(s[pc], oi[-1])
    if make_rolling[0]:
        s[pb].rolling_buffer()
    s[pa].compute_at(s[pc], oi[-1])
    if make_rolling[1]:
        s[pa].rolling_buffer()
    a = rand((1, 14, 14, 16))
    rolling = [t for t, on in zip((pb, pa), make_rolling) if on]
    check(s, [A], pc, [a], maxpool(maxpool(maxpool(a, 3, 3), 3, 3), 3, 3), rolling=rolling)


@tir.transform.prim_func_pass(opt_level=0)
def remove_rolling_buffer_attr(func, mod, ctx):
    def unwrap(node):
        if isinstance(node, tir.AttrStmt) and node.attr_key == "rolling_buffer_scope":
            return node.body
        return node
    return func.with_body(tir.stmt_functor.ir_transform(func.body, None, postorder=unwrap,
                                                        only_enable=["tir.AttrStmt"]))


@tir.transform.prim_func_pass(opt_level=0)
def verify_no_rolling_buffer_attr(func, mod, ctx):
    def verify(node):
        if isinstance(node, tir.AttrStmt):
            assert node.attr_key != "rolling_buffer_scope", "Failed to lower rolling buffers"
    tir.stmt_functor.post_order_visit(func.body, verify)
    return func


def test_user_lower_passes_as_tvm_writes_them():
    """TVM's _verify_schedule: one build with the rolling attribute removed by a user pass at
    phase 0, one with InjectRollingBuffer run at phase 0; both give the same numbers, and only
    the second has a circular buffer."""
    A = te.placeholder((1, 12, 14, 16), name="A", dtype="int8")
    pa = pool(A, 3, 3)
    pb = pool(pa, 3, 5)
    s = te.create_schedule(pb.op)
    oi, _ = tile_nd(s, pb, (1, 4, 8, 16))
    s[pa].compute_at(s[pb], oi[-1])
    s[pa].rolling_buffer()
    lists = [[(0, remove_rolling_buffer_attr), (0, verify_no_rolling_buffer_attr)],
             [(0, tir.transform.InjectRollingBuffer()), (0, verify_no_rolling_buffer_attr)]]
    a = rand((1, 12, 14, 16))
    outs, circular = [], []
    for user_passes in lists:
        with tepad.transform.PassContext(config={"tir.add_lower_pass": user_passes}):
            mod = tepad.build(s, [A, pb])
            circular.append(len(circular_buffers(tepad.lower(s, [A, pb], flatten=False)["main"])))
        out = np.zeros((1, 8, 8, 16), "int8")
        mod(a, out)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[0], maxpool(maxpool(a, 3, 3), 3, 5))
    assert circular == [0, 1]
