"""topi.dft / stft against numpy's FFT and a numpy framing, on the CPU and through the CUDA
emulator; hybrid_argwhere_Nd; sparse_reshape and sparse_fill_empty_rows against Python
walks of the COO entries."""
import numpy as np
import pytest

import tepad
from tepad import te, topi
from tepad.errors import TepadError
from tepad.target import Target

from topi_helpers import run

RNG = np.random.default_rng(57)


def _build_run(outs_fn, inputs, arrays, out_shapes, out_dtypes, target):
    with Target(target):
        outs = outs_fn()
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        sched = (topi.cuda if target == "cuda" else topi.generic).schedule_extern(list(outs))
    return run(list(outs), inputs, arrays, lambda o: sched, target, out_shapes)


@pytest.mark.parametrize("target", ["llvm", "cuda"])
@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("dtype, tol", [("float32", 2e-5), ("float64", 1e-12),
                                        ("float16", 2e-2)])
def test_dft(target, inverse, dtype, tol):
    shape = (3, 4, 7)
    re = RNG.normal(size=shape).astype(dtype)
    im = RNG.normal(size=shape).astype(dtype)
    R = te.placeholder(shape, dtype, name="Re")
    I = te.placeholder(shape, dtype, name="Im")
    fn = topi.cuda.dft if target == "cuda" else topi.dft
    got_re, got_im = _build_run(lambda: fn(R, I, inverse), [R, I], [re, im], None, None, target)
    z = re.astype("complex128") + 1j * im.astype("complex128")
    want = np.fft.ifft(z) if inverse else np.fft.fft(z)
    scale = np.abs(want).max()
    np.testing.assert_allclose(got_re, want.real, atol=tol * scale)
    np.testing.assert_allclose(got_im, want.imag, atol=tol * scale)
    assert got_re.dtype == dtype


def _stft_reference(x, n_fft, hop, win, window, normalized, rows, cols):
    out = np.zeros(x.shape[:-1] + (rows, cols, 2))
    k = np.arange(rows)[:, None] * np.arange(win)[None, :]
    basis = np.exp(-2j * np.pi * k / win)
    for c in range(cols):
        frame = x[..., c * hop:c * hop + win] * window
        spec = frame @ basis.T
        out[..., c, 0], out[..., c, 1] = spec.real, spec.imag
    return out / np.sqrt(n_fft) if normalized else out


@pytest.mark.parametrize("target", ["llvm", "cuda"])
@pytest.mark.parametrize("onesided, normalized", [(True, False), (False, True)])
def test_stft(target, onesided, normalized):
    x = RNG.normal(size=(2, 20)).astype("float32")
    window = np.hanning(6).astype("float32")
    X = te.placeholder(x.shape, "float32", name="X")
    W = te.placeholder(window.shape, "float32", name="W")
    n_fft, hop = 6, 3
    got = _build_run(lambda: topi.stft(X, n_fft, hop, 6, W, normalized, onesided), [X, W],
                     [x, window], None, None, target)[0]
    rows = n_fft // 2 + 1 if onesided else n_fft
    cols = 1 + (20 - n_fft) // hop
    assert got.shape == (2, rows, cols, 2)
    want = _stft_reference(x, n_fft, hop, 6, window, normalized, rows, cols)
    np.testing.assert_allclose(got, want, atol=3e-5)
    # a rectangular window with win_length == n_fft: numpy's rfft of each frame
    if onesided and not normalized:
        frames = np.stack([x[:, c * hop:c * hop + 6] * window for c in range(cols)], -1)
        spec = np.fft.rfft(frames, axis=1)
        np.testing.assert_allclose(got[..., 0], spec.real, atol=3e-5)


def test_stft_1d_and_errors():
    x = RNG.normal(size=(16,)).astype("float32")
    window = np.ones(4, "float32")
    X = te.placeholder(x.shape, "float32", name="X")
    W = te.placeholder(window.shape, "float32", name="W")
    out = topi.stft(X, 4, 4, 4, W, False, True)
    assert tuple(int(d) for d in out.shape) == (3, 4, 2)
    got = run(out, [X, W], [x, window], topi.generic.schedule_extern)
    np.testing.assert_allclose(got, _stft_reference(x, 4, 4, 4, window, False, 3, 4),
                               atol=2e-5)
    with pytest.raises(TepadError, match="window of shape"):
        topi.stft(X, 4, 4, 5, W, False, True)
    with pytest.raises(TepadError, match="must match"):
        topi.dft(X, te.placeholder((15,), "float32", name="Y"), False)


@pytest.mark.parametrize("ndim", [1, 2, 3, 4, 5])
def test_hybrid_argwhere(ndim):
    shape = (3, 2, 3, 2, 2)[:ndim]
    cond = (RNG.random(shape) > 0.5).astype("int32")
    rows = int(cond.sum())
    C = te.placeholder(shape, "int32", name="C")
    out = getattr(topi, f"hybrid_argwhere_{ndim}d")((rows, ndim), C)
    got = run(out, [C], [cond], topi.generic.schedule_extern)
    np.testing.assert_array_equal(got, np.argwhere(cond))
    with pytest.raises(TepadError, match=f"{ndim}-d"):
        getattr(topi, f"hybrid_argwhere_{ndim}d")((rows, ndim + 1),
                                                  te.placeholder(shape + (1,), name="D"))


def test_cuda_variants_bind_threads_without_a_target_scope():
    """topi.cuda.dft / scatter_elements / sparse_reshape build for CUDA (emulated) even when
    made outside ``with Target("cuda")``."""
    re = RNG.normal(size=(2, 5)).astype("float32")
    R, I = te.placeholder((2, 5), name="R"), te.placeholder((2, 5), name="I")
    got = run(list(topi.cuda.dft(R, I, False)), [R, I], [re, re * 0],
              topi.cuda.schedule_extern, "cuda")
    np.testing.assert_allclose(got[0], np.fft.fft(re).real, atol=1e-5)
    d = RNG.random((4, 3)).astype("float32")
    ix = np.array([[3, 0, 1], [3, 2, 1]], "int32")
    u = RNG.random((2, 3)).astype("float32")
    D, X, U = (te.placeholder(a.shape, str(a.dtype), name=n) for a, n in
               ((d, "D"), (ix, "X"), (u, "U")))
    got = run(topi.cuda.scatter_elements(D, X, U, 0, "max"), [D, X, U], [d, ix, u],
              topi.cuda.schedule_extern, "cuda")
    want = d.copy()
    for r in range(2):
        for c in range(3):
            want[ix[r, c], c] = max(want[ix[r, c], c], u[r, c])
    np.testing.assert_array_equal(got, want)
    idx = np.array([[0, 1], [1, 2]], "int64")
    Ix, P, N = (te.placeholder(s, "int64", name=n) for s, n in (((2, 2), "Ix"), ((2,), "P"),
                                                              ((1,), "N")))
    got_idx, got_shape = run(list(topi.cuda.sparse_reshape(Ix, P, N)), [Ix, P, N],
                             [idx, np.array([2, 3], "int64"), np.array([-1], "int64")],
                             topi.cuda.schedule_extern, "cuda")
    np.testing.assert_array_equal(got_idx[:, 0], [1, 5])
    np.testing.assert_array_equal(got_shape, [6])


def test_sparse_reshape():
    idx = np.array([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 2, 3]], "int64")
    prev = np.array([2, 3, 4], "int64")
    I, P = te.placeholder(idx.shape, "int64", name="I"), te.placeholder((3,), "int64", name="P")
    N = te.placeholder((2,), "int64", name="N")
    for new in ([4, -1], [-1, 12], [6, 4]):
        new = np.array(new, "int64")
        got_idx, got_shape = run(list(topi.sparse_reshape(I, P, N)), [I, P, N],
                                 [idx, prev, new], topi.generic.schedule_extern)
        want_shape = np.where(new == -1, 24 // np.prod(new[new != -1]), new)
        np.testing.assert_array_equal(got_shape, want_shape)
        flat = np.ravel_multi_index(idx.T, prev)
        np.testing.assert_array_equal(got_idx, np.stack(np.unravel_index(flat, want_shape), 1))


def _fill_reference(idx, vals, rows, default):
    out_idx, out_vals, empty = [], [], np.ones(rows, "int64")
    nxt = 0
    for (r, *rest), v in zip(idx.tolist(), vals.tolist()):
        for e in range(nxt, r):
            out_idx.append([e] + [0] * len(rest))
            out_vals.append(default)
        out_idx.append([r] + rest)
        out_vals.append(v)
        empty[r] = 0
        nxt = max(nxt, r + 1)
    for e in range(nxt, rows):
        out_idx.append([e] + [0] * (idx.shape[1] - 1))
        out_vals.append(default)
    return np.array(out_idx, "int64"), np.array(out_vals, vals.dtype), empty


@pytest.mark.parametrize("target", ["llvm", "cuda"])
def test_sparse_fill_empty_rows(target):
    idx = np.array([[1, 2], [1, 4], [4, 0], [5, 1]], "int64")   # rows 0, 2, 3, 6, 7 empty
    vals = np.array([1.5, -2.0, 3.0, 4.25], "float32")
    rows = 8
    want_idx, want_vals, want_empty = _fill_reference(idx, vals, rows, 9.0)
    m = len(want_vals)
    I = te.placeholder(idx.shape, "int64", name="I")
    V = te.placeholder(vals.shape, "float32", name="V")
    S = te.placeholder((2,), "int64", name="S")
    D = te.placeholder((1,), "float32", name="D")
    got = _build_run(lambda: topi.sparse_fill_empty_rows(I, V, S, D, (m, 2), (m,), (rows,)),
                     [I, V, S, D], [idx, vals, np.array([rows, 6], "int64"),
                                    np.array([9.0], "float32")], None, None, target)
    np.testing.assert_array_equal(got[0], want_idx)
    np.testing.assert_array_equal(got[1], want_vals)
    np.testing.assert_array_equal(got[2], want_empty)
    with pytest.raises(TepadError, match="output shapes"):
        topi.sparse_fill_empty_rows(I, V, S, D, (2, 2), (2,), (rows,))
