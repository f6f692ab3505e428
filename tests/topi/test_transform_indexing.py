"""topi's index-driven and run-time-bounded transforms (gather_nd, adv_index, one_hot,
unravel_index, sparse_to_dense, matrix_set_diag, trilu, invert_permutation, meshgrid,
expand_like, strided slices and sets, reverse_sequence, sequence_mask, sliding_window,
layout_transform, tensordot, shape, ndarray_size, collapse_sum) against numpy, built with
the plain, x86 and (emulated) cuda injective schedules."""
import numpy as np
import pytest

from tepad import te, topi
from tepad.errors import TepadError

from topi_helpers import RNG, placeholder, rand, run

TARGETS = [(None, "llvm"), ("x86", "llvm"), ("cuda", "cuda")]


def _inj(kind):
    return None if kind is None else getattr(topi, kind).schedule_injective


@pytest.mark.parametrize("kind, target", TARGETS)
def test_gather_nd_adv_index_one_hot(kind, target):
    a = rand((3, 4, 5))
    idx = np.array([[2, 0, 1], [3, 1, 0]], "int32")          # (M=2, 3) -> a[i0, i1, :]
    i0 = np.array([[0], [2]], "int64")                         # broadcasts with i1 to (2, 3)
    i1 = np.array([1, 3, 0], "uint8")
    hot = np.array([[1, 0], [3, 2]], "int32")
    A, I, I0, I1, H = (placeholder(x, n) for x, n in
                       ((a, "A"), (idx, "I"), (i0, "I0"), (i1, "I1"), (hot, "H")))
    outs = [topi.gather_nd(A, I), topi.adv_index(A, [I0, I1]),
            topi.one_hot(H, 1.5, -1.0, 4, 1, "float32"),
            topi.transform.one_hot(H, 7, 0, 4, -1, "int32")]
    got = run(outs, [A, I, I0, I1, H], [a, idx, i0, i1, hot], _inj(kind), target)
    np.testing.assert_array_equal(got[0], a[idx[0], idx[1]])
    np.testing.assert_array_equal(got[1], a[i0, i1])
    eye = np.eye(4, dtype=bool)[hot]                           # (2, 2, 4), new axis last
    np.testing.assert_array_equal(got[2], np.where(np.moveaxis(eye, -1, 1), 1.5, -1.0))
    np.testing.assert_array_equal(got[3], np.where(eye, 7, 0))


@pytest.mark.parametrize("kind, target", TARGETS)
def test_unravel_sparse_to_dense_and_permutation(kind, target):
    flat = np.array([0, 7, 23, 59], "int64")
    dims = np.array([3, 4, 5], "int32")
    sp_idx = np.array([[0, 1], [2, 3], [0, 1]], "int32")       # repeated: the last one wins
    sp_val = np.array([5.0, 6.0, 7.0], "float32")
    perm = np.array([3, 0, 4, 1, 2], "int32")
    F, D, SI, SV, P = (placeholder(x, n) for x, n in
                       ((flat, "F"), (dims, "D"), (sp_idx, "SI"), (sp_val, "SV"), (perm, "P")))
    outs = [topi.unravel_index(F, D), topi.sparse_to_dense(SI, [3, 4], SV, -1.0),
            topi.invert_permutation(P)]
    got = run(outs, [F, D, SI, SV, P], [flat, dims, sp_idx, sp_val, perm],
              _inj(kind), target)
    np.testing.assert_array_equal(got[0], np.stack(np.unravel_index(flat, (3, 4, 5))))
    dense = np.full((3, 4), -1.0, "float32")
    dense[0, 1], dense[2, 3] = 7.0, 6.0
    np.testing.assert_array_equal(got[1], dense)
    np.testing.assert_array_equal(got[2], np.argsort(perm))


@pytest.mark.parametrize("kind, target", TARGETS)
def test_matrix_set_diag_trilu_meshgrid_expand_like(kind, target):
    a = rand((2, 3, 4))
    d1 = rand((2, 3))
    band = rand((2, 3, 3))                                     # diagonals 1, 0, -1
    x, y = rand((3,)), rand((2,))
    A, D1, B, X, Y = (placeholder(v, n) for v, n in
                      ((a, "A"), (d1, "D1"), (band, "B"), (x, "X"), (y, "Y")))
    like = te.placeholder((2, 3, 5), name="L")
    mx, my = topi.meshgrid([X, Y], "xy")
    outs = [topi.matrix_set_diag(A, D1, 1), topi.matrix_set_diag(A, B, (-1, 1), "LEFT_RIGHT"),
            topi.trilu(A, 1, True), topi.trilu(A, -1, False), mx, my,
            topi.expand_like(te.placeholder((2, 3), name="E"), like, [2])]
    e = rand((2, 3))
    E = outs[-1].op.input_tensors[0]
    got = run(outs, [A, D1, B, X, Y, E, like], [a, d1, band, x, y, e, np.zeros((2, 3, 5),
                                                                              "float32")],
              _inj(kind), target)
    ref = a.copy()
    for t in range(3):
        ref[:, t, t + 1] = d1[:, t]
    np.testing.assert_array_equal(got[0], ref)
    ref = a.copy()
    for k in (1, 0, -1):                 # LEFT_RIGHT: superdiagonals left-, subdiagonals
        n = min(3 + min(k, 0), 4 - max(k, 0))     # right-aligned in their rows of width 3
        off = 0 if k >= 0 else 3 - n
        for t in range(n):
            r, c = (t, t + k) if k >= 0 else (t - k, t)
            ref[:, r, c] = band[:, 1 - k, off + t]
    np.testing.assert_array_equal(got[1], ref)
    np.testing.assert_array_equal(got[2], np.triu(a, 1))
    np.testing.assert_array_equal(got[3], np.tril(a, -1))
    rx, ry = np.meshgrid(x, y, indexing="xy")
    np.testing.assert_array_equal(got[4], rx)
    np.testing.assert_array_equal(got[5], ry)
    np.testing.assert_array_equal(got[6], np.repeat(e[:, :, None], 5, axis=2))


@pytest.mark.parametrize("kind, target", TARGETS)
def test_run_time_slices_and_strided_set(kind, target):
    a = rand((5, 6))
    v = rand((2, 3))
    begin = np.array([-1, 1], "int64")
    stride = np.array([-2, 2], "int64")
    A, V, Bg, St = (placeholder(x, n) for x, n in ((a, "A"), (v, "V"), (begin, "Bg"),
                                                     (stride, "St")))
    b32, e32, s32 = (te.placeholder((2,), "int32", name=n) for n in ("b32", "e32", "s32"))
    sl = topi.strided_slice(A, Bg, [0, 6], St)                 # a[-1:0:-2, 1:6:2]
    dyn = topi.dynamic_strided_slice(A, Bg, [0, 6], St, [2, 3])
    st = topi.strided_set(A, V, b32, e32, s32)                 # a[3:0:-2, 0:6:2] = v
    got = run([sl, dyn, st], [A, Bg, St, V, b32, e32, s32],
              [a, begin, stride, v, np.array([3, 0], "int32"), np.array([0, 6], "int32"),
               np.array([-2, 2], "int32")], _inj(kind), target,
              out_shapes=[(2, 3), (2, 3), (5, 6)])
    np.testing.assert_array_equal(got[0], a[-1:0:-2, 1:6:2])
    np.testing.assert_array_equal(got[1], a[-1:0:-2, 1:6:2])
    ref = a.copy()
    ref[3:0:-2, 0:6:2] = v
    np.testing.assert_array_equal(got[2], ref)


@pytest.mark.parametrize("kind, target", TARGETS)
def test_sequences_windows_layout_and_static_slices(kind, target):
    a = rand((4, 5, 3))
    lens = np.array([2, 5, 0, 9], "int32")                   # clamped to [1, 5]
    x = rand((2, 8, 3, 3))
    A, L, X = placeholder(a, "A"), placeholder(lens, "L"), placeholder(x, "X")
    outs = [topi.reverse_sequence(A, L, seq_axis=1, batch_axis=0),
            topi.sequence_mask(A, L, mask_value=-5.0, axis=1),
            topi.sliding_window(A, 1, [3, 2], [2, 1]),
            topi.layout_transform(X, "NCHW", "NCHW4c"),
            topi.strided_slice(A, [3, None], [None, 1], [-1, -2]),
            topi.tile(A, (2, 1, 1)), topi.reshape(te.placeholder((4, 0), name="Z"), (2, 0, 2))]
    Z = outs[-1].op.input_tensors[0]
    got = run(outs, [A, L, X, Z], [a, lens, x, np.zeros((4, 0), "float32")], _inj(kind),
              target)
    ref = a.copy()
    for b, n in enumerate(np.clip(lens, 1, 5)):
        ref[b, :n] = a[b, :n][::-1]
    np.testing.assert_array_equal(got[0], ref)
    keep = np.arange(5)[None, :] < lens[:, None]
    np.testing.assert_array_equal(got[1], np.where(keep[:, :, None], a, -5.0))
    win = np.lib.stride_tricks.sliding_window_view(a, (3, 2), axis=(1, 2))[:, ::2, ::1]
    np.testing.assert_array_equal(got[2], win)
    np.testing.assert_array_equal(got[3], x.reshape(2, 2, 4, 3, 3).transpose(0, 1, 3, 4, 2))
    np.testing.assert_array_equal(got[4], a[3::-1, :1:-2])
    np.testing.assert_array_equal(got[5], np.tile(a, (2, 1, 1)))
    assert got[6].shape == (2, 0, 2)


def test_tensordot_matmul_shape_and_size():
    a, b = rand((3, 4, 5)), rand((4, 3, 2))
    m, n = rand((5, 3)), rand((2, 5))
    A, B, M, N = (placeholder(v, k) for v, k in ((a, "A"), (b, "B"), (m, "M"), (n, "N")))
    outs = [topi.tensordot(A, B, ((0, 1), (1, 0))), topi.tensordot(A, B, 0),
            topi.matmul(M, N, True, True), topi.shape(A, "int64"), topi.ndarray_size(A)]
    got = run(outs, [A, B, M, N], [a, b, m, n], topi.generic.schedule_injective)
    np.testing.assert_allclose(got[0], np.tensordot(a, b, ((0, 1), (1, 0))), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(got[1], np.tensordot(a, b, 0), rtol=1e-6)
    np.testing.assert_allclose(got[2], m.T @ n.T, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got[3], [3, 4, 5])
    assert got[4] == 60 and got[4].dtype == np.int32


@pytest.mark.parametrize("kind, target", [(None, "llvm"), ("x86", "llvm"), ("cuda", "cuda")])
def test_collapse_sum_and_bool_sum(kind, target):
    a = rand((2, 3, 4))
    flags = RNG.random((3, 6)) > 0.7
    A, F = placeholder(a, "A"), placeholder(flags, "F")
    outs = [topi.collapse_sum(A, (3, 1)), topi.sum(F, axis=1)]
    sched = None if kind is None else getattr(topi, kind).schedule_reduce
    got = run(outs, [A, F], [a, flags], sched, target)
    np.testing.assert_allclose(got[0], a.sum(axis=(0, 2)).reshape(3, 1), rtol=1e-5)
    np.testing.assert_array_equal(got[1], flags.sum(axis=1, dtype=bool))
    assert "comm_reduce" in outs[0].op.tag


def test_mistakes_name_the_operator_and_argument():
    A = te.placeholder((3, 4), name="A")
    I = te.placeholder((2, 2), "int32", name="I")
    cases = [
        (lambda: topi.gather_nd(A, te.placeholder((3, 2), "int32")), "gather_nd"),
        (lambda: topi.one_hot(I, 1, 0, 3, 5, "int32"), "axis 5"),
        (lambda: topi.matrix_set_diag(A, te.placeholder((3,)), 0, "UP"), "align"),
        (lambda: topi.reverse_sequence(A, te.placeholder((5,), "int32"), 1, 0),
         "batch_axis = 3, and seq_length size = 5"),
        (lambda: topi.sequence_mask(A, I, axis=2), "axis must be 0 or 1"),
        (lambda: topi.sliding_window(A, 0, [4, 1], [1, 1]), "larger"),
        (lambda: topi.tensordot(A, A, ((0,), (1,))), "equal extents"),
        (lambda: topi.layout_transform(A, "NC", "NC4x"), "malformed"),
        (lambda: topi.layout_transform(A, "NC", "NH"), "primal axes"),
        (lambda: topi.strided_set(A, A, te.placeholder((2,), "int64"), I), "int32"),
        (lambda: topi.collapse_sum(A, (1, 3, 4)), "more axes"),
        (lambda: topi.utils.get_shape((1, 2), "NC", "NH"), "get_shape"),
        (lambda: topi.utils.get_shape((1, 2), "NC", "N4c"), "malformed"),
    ]
    for make, words in cases:
        with pytest.raises(TepadError, match=words):
            make()
