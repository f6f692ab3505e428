"""Stage.set_store_predicate (stores guarded by a user condition) and
Stage.set_axis_separators (an N-d physical buffer without reordering)."""
import numpy as np
import pytest

import tepad
from tepad import te, tir


def test_store_predicate_guards_the_stores():
    A = te.placeholder((8, 4), name="A")
    B = te.compute((8, 4), lambda i, j: A[i, j] * 2.0, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=4)
    s[B].set_store_predicate(xi < 2)
    a = np.random.default_rng(0).random((8, 4), dtype="float32")
    b = np.full((8, 4), -1.0, "float32")
    tepad.build(s, [A, B])(a, b)
    keep = (np.arange(8) % 4 < 2)[:, None]
    np.testing.assert_allclose(b, np.where(keep, a * 2.0, -1.0), rtol=1e-6)


def test_store_predicate_on_a_reduction_keeps_the_identity_elsewhere():
    A = te.placeholder((6, 5), name="A")
    k = te.reduce_axis((0, 5), name="k")
    B = te.compute((6,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    s[B].set_store_predicate(k < 3)
    a = np.random.default_rng(1).random((6, 5), dtype="float32")
    b = np.zeros(6, "float32")
    tepad.build(s, [A, B])(a, b)
    np.testing.assert_allclose(b, a[:, :3].sum(axis=1), rtol=1e-5)


def test_store_predicate_must_be_a_condition():
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i], name="B")
    s = te.create_schedule(B.op)
    with pytest.raises(tepad.TepadError, match="needs a condition"):
        s[B].set_store_predicate(B.op.axis[0] + 1)


def test_axis_separators_give_a_two_dimensional_physical_buffer():
    A = te.placeholder((2, 3, 4), name="A")
    B = te.compute((2, 3, 4), lambda i, j, k: A[i, j, k] + 1.0, name="B")
    s = te.create_schedule(B.op)
    s[B].set_axis_separators([2])
    f = tepad.lower(s, [A, B])["main"]
    stores = []
    tir.post_order_visit(f.body, lambda n: stores.append(n) if isinstance(n, tir.BufferStore)
                         else None)
    assert [len(st.indices) for st in stores] == [2]     # (i*3 + j, k)
    a = np.random.default_rng(2).random((2, 3, 4), dtype="float32")
    b = np.zeros((2, 3, 4), "float32")
    tepad.build(s, [A, B])(a, b)
    np.testing.assert_allclose(b, a + 1.0, rtol=1e-6)
    with pytest.raises(tepad.TepadError, match="strictly between 0"):
        s[A].set_axis_separators([3])


def test_double_buffer_is_recorded_and_computes_the_same():
    A = te.placeholder((16, 8), name="A")
    B = te.compute((16, 8), lambda i, j: A[i, j] + 1.0, name="B")
    C = te.compute((16, 8), lambda i, j: B[i, j] * 2.0, name="C")
    s = te.create_schedule(C.op)
    io, _ = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], io)
    plain = tepad.lower(s, [A, C])["main"].script()
    s[B].double_buffer()
    assert s[B].is_double_buffered
    # the IR facts are tests/lower/test_inject_double_buffer.py's
    assert tepad.lower(s, [A, C])["main"].script() != plain
    a = np.random.default_rng(3).random((16, 8), dtype="float32")
    c = np.zeros((16, 8), "float32")
    tepad.build(s, [A, C])(a, c)
    np.testing.assert_allclose(c, (a + 1.0) * 2.0, rtol=1e-6)
    with pytest.raises(tepad.TepadError, match="double_buffer on an output"):
        s[C].double_buffer()
