"""TVM's "Introduction to TOPI" tutorial (its CPU part), in our words: a row sum written by
hand and with ``topi.sum``, lowered with only the input as argument (TVM's lower keeps the
result in scratch memory); numpy-style operators on tensors (``a + b`` broadcasts as
``topi.add``); ``topi.elemwise_sum``, division by a scalar and a full reduction, built for
the CPU and checked against numpy; and ``topi.nn.softmax`` on the CPU. The tutorial's
``topi.cuda`` schedules need a GPU target and are not part of this file."""
import numpy as np
import pytest

import tepad as tvm
from tepad import te, topi

from .helpers import allocations


def row_sum_by_hand():
    rows, cols = te.var("rows"), te.var("cols")
    mat = te.placeholder((rows, cols), name="mat")
    k = te.reduce_axis((0, cols), "k")
    total = te.compute((rows,), lambda i: te.sum(mat[i, k], axis=k), name="total")
    return mat, total


def test_row_sum_lowered_without_its_output_argument():
    mat, total = row_sum_by_hand()
    s = te.create_schedule(total.op)
    mod = tvm.lower(s, [mat], simple_mode=True)
    assert allocations(mod) == ["total"]         # the result lives in scratch memory
    assert [b.name for b in mod["main"].buffer_map.values()] == ["mat"]
    with pytest.raises(tvm.TepadError, match="output total of the schedule is not in the "
                                             "argument list"):
        tvm.build(s, [mat])
    a = np.random.default_rng(0).random((5, 7), dtype="float32")
    out = np.zeros(5, "float32")
    tvm.build(s, [mat, total])(a, out)
    np.testing.assert_allclose(out, a.sum(axis=1), rtol=1e-5)


def test_topi_sum_matches_the_hand_written_one():
    mat, _ = row_sum_by_hand()
    total = topi.sum(mat, axis=1)
    s = te.create_schedule(total.op)
    assert len(allocations(tvm.lower(s, [mat], simple_mode=True))) == 1
    a = np.random.default_rng(1).random((6, 9), dtype="float32")
    out = np.zeros(6, "float32")
    tvm.build(s, [mat, total])(a, out)
    np.testing.assert_allclose(out, a.sum(axis=1), rtol=1e-5)


def test_tensor_operators_broadcast_like_numpy():
    big = te.placeholder((3, 4, 5), name="big")
    small = te.placeholder((4, 5), name="small")
    plus, times = big + small, big * small
    minus, ratio = 1.5 - big, big / 4.0
    neg = -small
    for t in (plus, times, minus, ratio):
        assert [int(e) for e in t.shape] == [3, 4, 5]
    assert plus.op.tag == "broadcast"
    s = te.create_schedule([plus.op, times.op, minus.op, ratio.op, neg.op])
    f = tvm.build(s, [big, small, plus, times, minus, ratio, neg])
    rng = np.random.default_rng(2)
    a, b = rng.random((3, 4, 5), dtype="float32"), rng.random((4, 5), dtype="float32")
    outs = [np.zeros((3, 4, 5), "float32") for _ in range(4)] + [np.zeros((4, 5), "float32")]
    f(a, b, *outs)
    for got, want in zip(outs, (a + b, a * b, 1.5 - a, a / 4.0, -b)):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    with pytest.raises(tvm.TepadError, match="do not broadcast"):
        big + te.placeholder((3, 5), name="odd")


def test_fused_chain_ending_in_a_full_reduction():
    big = te.placeholder((20, 6, 6), name="big")
    small = te.placeholder((6, 6), name="small")
    mixed = topi.elemwise_sum([big + small, big * small])
    assert mixed.op.name == "T_elemwise_sum"
    halved = mixed / 2.0
    scalar = topi.sum(halved)
    assert scalar.shape == ()
    s = te.create_schedule(scalar.op)
    rng = np.random.default_rng(3)
    a, b = rng.random((20, 6, 6), dtype="float32"), rng.random((6, 6), dtype="float32")
    got = tvm.nd.array(np.zeros((), "float32"))
    tvm.build(s, [big, small, scalar], "llvm")(tvm.nd.array(a), tvm.nd.array(b), got)
    want = np.sum(((a + b) + (a * b)) / 2.0)
    tvm.testing.assert_allclose(got.numpy(), want, rtol=1e-5)
    # every stage but the reduction is an intermediate: scratch memory
    assert len(allocations(tvm.lower(s, [big, small, scalar]))) == 4
    with pytest.raises(tvm.TepadError, match="same shape and dtype"):
        topi.elemwise_sum([big, small])


def test_softmax_on_the_cpu():
    logits = te.placeholder((16, 32), name="logits")
    probs = topi.nn.softmax(logits)
    s = te.create_schedule(probs.op)
    x = np.random.default_rng(4).standard_normal((16, 32)).astype("float32")
    out = np.zeros_like(x)
    tvm.build(s, [logits, probs])(x, out)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)
