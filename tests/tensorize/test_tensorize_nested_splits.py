"""tensorize under nested splits that do not divide (or whose factor exceeds the piece they
split), outside the tile: the loops kept around the intrinsic carry a guard for every such
split on the path to the root (the lowering's one rule, relation_bound_checks), so a piece
that runs past its parent never computes (or accumulates) a tile twice. A guard that would
fall inside the tile is refused. Numerics against numpy in both bound modes."""
import numpy as np
import pytest

import tepad
from tepad import TepadError, te

RNG = np.random.default_rng(7)


def _build(s, args, exact):
    return tepad.build(tepad.lower(s, args, exact_bounds=exact), bounds_check=True)


@pytest.mark.parametrize("exact", [False, True])
def test_elementwise_tile_inside_nested_row_splits(exact, vadd_plain):
    A = te.placeholder((7, 8), name="A")
    B = te.placeholder((7, 8), name="B")
    C = te.compute((7, 8), lambda i, j: A[i, j] + B[i, j], name="C")
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=3)     # 3 x 3 = 9 > 7
    iio, iii = s[C].split(ii, factor=2)             # 2 x 2 = 4 > 3
    jo, ji = s[C].split(C.op.axis[1], factor=4)
    s[C].tensorize(ji, vadd_plain(4))
    a, b = RNG.random((7, 8), dtype=np.float32), RNG.random((7, 8), dtype=np.float32)
    c = np.zeros((7, 8), "float32")
    _build(s, [A, B, C], exact)(a, b, c)
    np.testing.assert_allclose(c, a + b)


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("reset", [True, False])
def test_reduction_tile_under_nested_splits_of_a_batch_axis(exact, reset, gemv_plain):
    w = te.placeholder((5, 2, 4), name="w")
    x = te.placeholder((5, 4), name="x")
    k = te.reduce_axis((0, 4), name="k")
    z = te.compute((5, 2), lambda b, i: te.sum(w[b, i, k] * x[b, k], axis=k), name="z")
    s = te.create_schedule(z.op)
    bo, bi = s[z].split(z.op.axis[0], factor=2)      # bo: 3
    boo, boi = s[z].split(bo, factor=2)              # 2 x 2 = 4 > 3
    bio, bii = s[z].split(bi, factor=3)              # 3 > the extent 2 of bi
    s[z].tensorize(z.op.axis[1], gemv_plain(2, 4, reset=reset))
    wv, xv = RNG.random((5, 2, 4), dtype=np.float32), RNG.random((5, 4), dtype=np.float32)
    zv = np.zeros((5, 2), "float32")
    _build(s, [w, x, z], exact)(wv, xv, zv)
    np.testing.assert_allclose(zv, np.einsum("bik,bk->bi", wv, xv), rtol=1e-5)


def test_a_nested_split_of_a_tiled_axis_is_refused(gemv_plain):
    """The reduce axis split outside the tile, its outer piece split again by a factor that
    does not divide it: the guard of the reduce axis reads the tile's loop (as TVM's
    MakeTensorize refuses it), so the tile would be accumulated past the axis."""
    w = te.placeholder((2, 12), name="w")
    x = te.placeholder((12,), name="x")
    k = te.reduce_axis((0, 12), name="k")
    z = te.compute((2,), lambda i: te.sum(w[i, k] * x[k], axis=k), name="z")
    s = te.create_schedule(z.op)
    ko, ki = s[z].split(k, factor=4)                 # ko: 3
    koo, koi = s[z].split(ko, factor=2)              # 2 x 2 = 4 > 3
    s[z].reorder(koo, koi, z.op.axis[0], ki)
    s[z].tensorize(z.op.axis[0], gemv_plain(2, 4))
    with pytest.raises(TepadError, match="stage z: the tile tensorized at i is not whole"):
        tepad.lower(s, [w, x, z])


def test_a_guard_inside_the_tile_is_refused(vadd_plain):
    A = te.placeholder((3, 20), name="A")
    B = te.placeholder((3, 20), name="B")
    C = te.compute((3, 20), lambda i, j: A[i, j] + B[i, j], name="C")
    s = te.create_schedule(C.op)
    jo, ji = s[C].split(C.op.axis[1], factor=8)      # the last tile of 8 runs past 20
    jio, jii = s[C].split(ji, factor=4)
    s[C].tensorize(jii, vadd_plain(4))
    with pytest.raises(TepadError, match="stage C: the tile tensorized at j.inner.inner"):
        tepad.lower(s, [A, B, C])
