"""auto_broadcast buffers: a symbolic dimension that is 1 at run time is read at index 0."""
import numpy as np
import pytest

import tepad
from tepad import te, tir


def _add3(binds_b=True, binds_a=True):
    m = [te.size_var(f"m{k}") for k in range(3)]
    n = [te.size_var(f"n{k}") for k in range(3)]
    o = [te.size_var(f"o{k}") for k in range(3)]
    A = te.placeholder(m, name="A")
    B = te.placeholder(n, name="B")
    C = te.compute(o, lambda i, j, k: A[i, j, k] + B[i, j, k], name="C")
    binds = {}
    if binds_a:
        binds[A] = tir.decl_buffer(A.shape, A.dtype, name="Ab", buffer_type="auto_broadcast")
    if binds_b:
        binds[B] = tir.decl_buffer(B.shape, B.dtype, name="Bb", buffer_type="auto_broadcast")
    s = te.create_schedule(C.op)
    return tepad.build(s, [A, B, C], target="llvm", binds=binds)


@pytest.mark.parametrize("bshape", [(2, 1, 1), (1, 4, 3), (2, 4, 1), (1, 1, 1), (2, 4, 3)])
def test_size_one_dimensions_broadcast(bshape):
    f = _add3()
    rng = np.random.default_rng(0)
    a = rng.uniform(size=(2, 4, 3)).astype("float32")
    b = rng.uniform(size=bshape).astype("float32")
    c = np.zeros((2, 4, 3), "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, a + b, rtol=1e-6)


def test_both_inputs_broadcast():
    f = _add3()
    rng = np.random.default_rng(1)
    a = rng.uniform(size=(1, 4, 1)).astype("float32")
    b = rng.uniform(size=(2, 1, 3)).astype("float32")
    c = np.zeros((2, 4, 3), "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, a + b, rtol=1e-6)


def test_broadcast_still_refuses_a_short_dimension_that_is_not_one():
    f = _add3()
    a = np.ones((2, 4, 3), "float32")
    b = np.ones((2, 2, 3), "float32")     # 2 is neither 4 nor 1
    c = np.zeros((2, 4, 3), "float32")
    with pytest.raises(tepad.TepadError, match="outside the shape"):
        f(a, b, c)
    assert not c.any()


def test_without_auto_broadcast_a_size_one_dimension_is_an_out_of_bounds_read():
    f = _add3(binds_b=False)
    a = np.ones((2, 4, 3), "float32")
    b = np.ones((2, 1, 1), "float32")
    c = np.zeros((2, 4, 3), "float32")
    with pytest.raises(tepad.TepadError, match="outside the shape"):
        f(a, b, c)


def test_broadcast_expr_shapes_and_scalar_args():
    n0, m0, x = te.size_var("n0"), te.size_var("m0"), te.size_var("x")
    n1, m1 = te.size_var("n1"), te.size_var("m1")
    o0, o1 = te.size_var("o0"), te.size_var("o1")
    A = te.placeholder((m0, n0), name="A")
    B = te.placeholder((m1, n1), name="B")
    C = te.compute((o0, o1 // x), lambda i, j: A[i, j] + B[i, j], name="C")
    binds = {t: tir.decl_buffer(t.shape, t.dtype, name=t.name + "b",
                                buffer_type="auto_broadcast") for t in (A, B, C)}
    s = te.create_schedule(C.op)
    f = tepad.build(s, [A, B, C, o1, x], target="llvm", binds=binds)
    a = np.arange(4, dtype="float32").reshape(1, 4)
    b = np.arange(8, dtype="float32").reshape(2, 4)
    c = np.zeros((2, 4), "float32")
    f(a, b, c, 4, 1)
    np.testing.assert_allclose(c, a + b)


def test_broadcast_index_is_a_select_on_the_size():
    m = te.size_var("m")
    A = te.placeholder((m,), name="A")
    B = te.compute((8,), lambda i: A[i] * 2, name="B")
    Ab = tir.decl_buffer(A.shape, A.dtype, name="Ab", buffer_type="auto_broadcast")
    s = te.create_schedule(B.op)
    text = str(tepad.lower(s, [A, B], binds={A: Ab}))
    assert "m == 1" in text.replace("(", "").replace(")", "")
    f = tepad.build(s, [A, B], binds={A: Ab})
    b = np.zeros(8, "float32")
    f(np.array([3.0], "float32"), b)
    np.testing.assert_allclose(b, np.full(8, 6.0))


def test_a_read_past_a_size_one_dimension_is_refused_when_the_extent_is_not_affine():
    # C's extent o1 // x is not quasi-affine: the read check stands a parameter in for it
    n0, m0, x = te.size_var("n0"), te.size_var("m0"), te.size_var("x")
    o0, o1 = te.size_var("o0"), te.size_var("o1")
    A = te.placeholder((m0, n0), name="A")
    C = te.compute((o0, o1 // x), lambda i, j: A[i, j] * 2, name="C")
    s = te.create_schedule(C.op)
    f = tepad.build(s, [A, C, o1, x], target="llvm")
    c = np.zeros((2, 4), "float32")
    with pytest.raises(tepad.TepadError, match="outside the shape"):
        f(np.ones((1, 4), "float32"), c, 4, 1)       # row 1 of a 1-row A
    with pytest.raises(tepad.TepadError, match="outside the shape"):
        f(np.ones((2, 3), "float32"), c, 8, 2)       # column 3 of a 3-column A
    a = np.arange(8, dtype="float32").reshape(2, 4)
    f(a, c, 4, 1)
    np.testing.assert_allclose(c, a * 2)
