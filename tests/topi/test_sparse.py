"""Sparse operators: topi.nn.sparse_dense (CSR / BSR, either side sparse), sparse_transpose,
sparse_add, sparse_conv2d, topi.sparse (csrmv, csrmm, dense over contrib.sparse
placeholders), their x86 / CUDA (emulated) schedules, against scipy and numpy."""
import numpy as np
import pytest
import scipy.sparse as sp

import tepad
from tepad import te, topi
from tepad.contrib import sparse as tsp
from tepad.errors import TepadError
from tepad.topi.sparse.utils import random_bsr_matrix
from topi_helpers import placeholder, rand, run

SCHEDULES = [None, topi.x86.schedule_sparse_dense, topi.generic.schedule_sparse_dense]


def _arrays(mat):
    return mat.data, mat.indices.astype("int32"), mat.indptr.astype("int32")


def _sparse_placeholders(mat, prefix="w"):
    d, i, p = _arrays(mat)
    return [placeholder(d, prefix + "_data"), placeholder(i, prefix + "_indices"),
            placeholder(p, prefix + "_indptr")], [d, i, p]


def _csr(rows, cols, density, seed):
    return sp.random(rows, cols, density=density, format="csr", dtype="float32",
                     random_state=np.random.RandomState(seed))


@pytest.mark.parametrize("schedule", SCHEDULES)
@pytest.mark.parametrize("fmt", ["csr", "bsr"])
def test_sparse_dense_rhs_matches_scipy(schedule, fmt):
    x = rand((12, 20))
    np.random.seed(3)
    w = _csr(24, 20, 0.3, 1) if fmt == "csr" else random_bsr_matrix(24, 20, 4, 2, 0.3,
                                                                    "float32")
    X = placeholder(x, "X")
    ws, wa = _sparse_placeholders(w)
    Y = topi.nn.sparse_dense(X, *ws)
    assert Y.op.tag == ("sparse_dense_sp_rhs_csrmm" if fmt == "csr"
                        else "sparse_dense_sp_rhs_bsrmm")
    got = run(Y, [X, *ws], [x, *wa], schedule)
    np.testing.assert_allclose(got, x @ w.toarray().T, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("fmt", ["csr", "bsr"])
def test_sparse_dense_lhs_matches_scipy(fmt):
    wt = rand((10, 16))
    np.random.seed(4)
    a = _csr(12, 16, 0.4, 2) if fmt == "csr" else random_bsr_matrix(12, 16, 3, 4, 0.4,
                                                                   "float32")
    W = placeholder(wt, "W")
    As, aa = _sparse_placeholders(a, "a")
    Y = topi.nn.sparse_dense(W, *As, sparse_lhs=True)
    for schedule, target in ((None, "llvm"), (topi.x86.schedule_sparse_dense, "llvm"),
                             (topi.cuda.schedule_sparse_dense, "cuda")):
        got = run(Y, [W, *As], [wt, *aa], schedule, target=target)
        np.testing.assert_allclose(got, a.toarray() @ wt.T, rtol=1e-5, atol=1e-5)


def test_bsr_stages_carry_tvm_tags():
    np.random.seed(0)
    w = random_bsr_matrix(16, 8, 4, 1, 0.5, "float32")
    X = te.placeholder((5, 8), name="X")
    ws, _ = _sparse_placeholders(w)
    Y = topi.nn.sparse_dense(X, *ws)
    block = Y.op.input_tensors[0]
    assert block.op.tag == "sparse_dense_sp_rhs_bsrmm_block"
    assert [int(d) for d in block.shape] == [5, 4, 4]
    assert [iv.var.name for iv in block.op.reduce_axis] == ["elem_idx", "c"]


@pytest.mark.parametrize("target,schedule", [
    ("llvm", topi.x86.schedule_sparse_dense),
    ("cuda", topi.cuda.schedule_sparse_dense),
])
@pytest.mark.parametrize("fmt", ["csr", "bsr"])
def test_sparse_dense_relu_per_target(target, schedule, fmt):
    """The schedules host the BSR block in the relu consumer (reshape inlined)."""
    x = rand((8, 16))
    np.random.seed(5)
    w = _csr(32, 16, 0.5, 3) if fmt == "csr" else random_bsr_matrix(32, 16, 8, 2, 0.5,
                                                                    "float32")
    X = placeholder(x, "X")
    ws, wa = _sparse_placeholders(w)
    Y = topi.nn.relu(topi.nn.sparse_dense(X, *ws))
    got = run(Y, [X, *ws], [x, *wa], schedule, target=target)
    np.testing.assert_allclose(got, np.maximum(x @ w.toarray().T, 0), rtol=1e-5, atol=1e-5)


def test_cuda_sparse_dense_is_nn_sparse_dense():
    assert topi.cuda.sparse_dense is topi.nn.sparse_dense


def test_sparse_transpose_matches_scipy():
    a = _csr(9, 9, 0.35, 7)
    As, aa = _sparse_placeholders(a, "a")
    outs = topi.nn.sparse_transpose(*As)
    d, i, p = run(outs, As, aa)
    t = a.T.tocsr()
    t.sort_indices()
    np.testing.assert_array_equal(p, t.indptr)
    np.testing.assert_array_equal(i, t.indices)
    np.testing.assert_allclose(d, t.data)


def test_sparse_add_matches_numpy():
    x = rand((6, 7))
    a = _csr(6, 7, 0.4, 8)
    X = placeholder(x, "X")
    As, aa = _sparse_placeholders(a, "a")
    Z = topi.nn.sparse_add(X, *As)
    np.testing.assert_allclose(run(Z, [X, *As], [x, *aa]), x + a.toarray(), rtol=1e-6)


def test_sparse_add_rejects_mixed_dtypes():
    X = te.placeholder((4, 4), "float64")
    with pytest.raises(TepadError, match="same dtype"):
        topi.nn.sparse_add(X, te.placeholder((3,)), te.placeholder((3,), "int32"),
                           te.placeholder((5,), "int32"))


@pytest.mark.parametrize("bs_c", [3, 1])
@pytest.mark.parametrize("layout", ["NHWC", "NCHW"])
def test_sparse_conv2d_1x1_matches_numpy(layout, bs_c):
    np.random.seed(9)
    w = random_bsr_matrix(8, 6, 2, bs_c, 0.5, "float32")         # (out, in) channels
    x = rand((2, 3, 4, 6) if layout == "NHWC" else (2, 6, 3, 4))
    X = placeholder(x, "X")
    ws, wa = _sparse_placeholders(w)
    if bs_c == 1:                   # TVM's 2-d data for 1-wide blocks: no c reduction
        wa[0] = wa[0].reshape(wa[0].shape[:2])
        ws[0] = placeholder(wa[0], "w_data")
    Y = topi.nn.sparse_conv2d(X, *ws, layout)
    dense = w.toarray()
    expect = np.einsum("nhwc,oc->nhwo", x, dense) if layout == "NHWC" else \
        np.einsum("nchw,oc->nohw", x, dense)
    np.testing.assert_allclose(run(Y, [X, *ws], [x, *wa]), expect, rtol=1e-5, atol=1e-5)


def test_sparse_conv2d_rejects_other_kernels_and_layouts():
    X = te.placeholder((1, 2, 2, 4))
    ws = [te.placeholder((2, 2, 2)), te.placeholder((2,), "int32"),
          te.placeholder((3,), "int32")]
    with pytest.raises(TepadError, match="layout"):
        topi.nn.sparse_conv2d(X, *ws, "NCWH")
    with pytest.raises(TepadError, match="kernel_size"):
        topi.nn.sparse_conv2d(X, *ws, "NHWC", kernel_size=3)


def test_sparse_dense_rejects_wrong_ranks():
    with pytest.raises(TepadError, match="weight_data"):
        topi.nn.sparse_dense(te.placeholder((2, 2)), te.placeholder((2, 2)),
                             te.placeholder((2,), "int32"), te.placeholder((3,), "int32"))


def test_random_bsr_matrix_shape_and_density():
    np.random.seed(1)
    m = random_bsr_matrix(64, 32, 8, 4, 0.25, "float32")
    assert isinstance(m, sp.bsr_matrix) and m.shape == (64, 32)
    assert m.data.shape == (int(0.25 * 64 * 32 / 32) + 1, 8, 4)
    assert m.indptr.shape == (9,)
    with pytest.raises(TepadError, match="divide"):
        random_bsr_matrix(10, 8, 4, 4, 0.1, "float32")


def test_try_get_sparse_input_names_the_weight_arrays():
    np.random.seed(2)
    w = random_bsr_matrix(32, 16, 4, 2, 0.3, "float32")
    X = te.placeholder((8, 16))
    ws, _ = _sparse_placeholders(w)
    Y = topi.nn.relu(topi.nn.sparse_dense(X, *ws))
    names = topi.nn.try_get_sparse_input([X, *ws, Y])
    prefix = f"sparse_dense_bsr_32_16_4_2_{w.indices.shape[0]}_{w.indptr.shape[0]}_"
    assert names == {ws[0]: prefix + "W_data", ws[1]: prefix + "W_indices",
                     ws[2]: prefix + "W_indptr"}
    assert topi.nn.try_get_sparse_input([X]) == {}
    C = te.placeholder((1, 4, 5, 16))
    conv = topi.nn.sparse_conv2d(C, *ws, "NHWC")
    names = topi.nn.try_get_conv2d_sparse_input([C, *ws, conv])
    assert names[ws[1]] == (f"sparse_conv2d_bsr_1_4_5_32_16_4_2_{w.indices.shape[0]}_"
                            f"{w.indptr.shape[0]}_W_indices")


# --- topi.sparse over contrib.sparse ---------------------------------------------------------

def _csr_args(A, a):
    return [A.data, A.indices, A.indptr], [a.data.numpy(), a.indices.numpy(),
                                           a.indptr.numpy()]


def test_contrib_sparse_array_round_trips():
    dense = np.array([[0, 1.5, 0], [2, 0, 3]], dtype="float32")
    a = tsp.array(dense)
    np.testing.assert_array_equal(a.indptr.numpy(), [0, 1, 3])
    np.testing.assert_array_equal(a.indices.numpy(), [1, 0, 2])
    np.testing.assert_array_equal(a.numpy(), dense)
    with pytest.raises(TepadError, match="stype"):
        tsp.array(dense, stype="coo")


@pytest.mark.parametrize("use_bias", [False, True])
def test_csrmv_and_csrmm_with_symbolic_rows(use_bias):
    nr = te.var("nr")
    A = tsp.placeholder(shape=(nr, te.var("nc")), nonzeros=te.var("n"), dtype="float32",
                        name="A")
    dense = rand((7, 5)) * (rand((7, 5)) > 0)
    a = tsp.array(dense)
    x, b, c = rand((5, 1)), rand((5, 3)), rand((7,))
    B, Bm, C = placeholder(x, "x"), placeholder(b, "B"), placeholder(c, "C")
    sa, aa = _csr_args(A, a)
    for op, rhs, val, expect in ((topi.sparse.csrmv, B, x, dense @ x),
                                 (topi.sparse.csrmm, Bm, b, dense @ b)):
        D = op(A, rhs, C if use_bias else None)
        s = te.create_schedule(D.op)
        f = tepad.build(s, [nr, *sa, rhs, C, D], "llvm")
        out = np.zeros(expect.shape, "float32")
        f(7, *aa, val, c, out)
        want = expect + (c[:, None] if use_bias else 0)
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("sparse_side", ["input", "weight"])
def test_sparse_dense_layer(sparse_side):
    dx = rand((4, 6)) * (rand((4, 6)) > 0.3)
    dw = rand((5, 6)) * (rand((5, 6)) > 0.3)
    bias = rand((5,))
    Bias = placeholder(bias, "bias")
    if sparse_side == "input":
        A = tsp.placeholder((4, 6), nonzeros=te.var("nnz"), dtype="float32", name="A")
        W = placeholder(dw, "W")
        sa, aa = _csr_args(A, tsp.array(dx))
        D = topi.sparse.dense(A, W, Bias)
        args, vals = [*sa, W, Bias, D], [*aa, dw, bias]
    else:
        X = placeholder(dx, "X")
        Ws = tsp.placeholder((5, 6), nonzeros=te.var("nnz"), dtype="float32", name="W")
        sw, wa = _csr_args(Ws, tsp.array(dw))
        D = topi.sparse.dense(X, Ws, Bias)
        args, vals = [X, *sw, Bias, D], [dx, *wa, bias]
    f = tepad.build(te.create_schedule(D.op), args, "llvm")
    out = np.zeros((4, 5), "float32")
    f(*vals, out)
    np.testing.assert_allclose(out, dx @ dw.T + bias, rtol=1e-5, atol=1e-5)


def test_sparse_dense_layer_needs_one_sparse_operand():
    with pytest.raises(TepadError, match="exactly one"):
        topi.sparse.dense(te.placeholder((2, 2)), te.placeholder((2, 2)))


def test_cuda_sparse_dense_padded_matches_scipy():
    np.random.seed(12)
    w = random_bsr_matrix(64, 16, 1, 1, 0.1, "float32")
    padded = topi.cuda.pad_sparse_matrix(w, 8)
    assert (np.diff(padded.indptr) % 8 == 0).all()
    np.testing.assert_array_equal(padded.toarray(), w.toarray())
    x = rand((8, 16))
    X = placeholder(x, "X")
    ws, wa = _sparse_placeholders(padded)
    Y = topi.cuda.sparse_dense_padded(X, *ws)
    got = run(Y, [X, *ws], [x, *wa], topi.cuda.schedule_sparse_dense_padded, target="cuda")
    np.testing.assert_allclose(got, x @ w.toarray().T, rtol=1e-5, atol=1e-5)
