"""Module.__call__'s fast path for static signatures (ArgChecker.pointers): exact matches skip
the full check; every mismatch still reaches ArgChecker.check and its error."""
import numpy as np
import pytest

import tepad
from tepad import te


def _scale_module(n=6, m=5):
    A = te.placeholder((n, m), "float32", name="A")
    B = te.compute((n, m), lambda i, j: A[i, j] * 2.0, name="B")
    s = te.create_schedule(B.op)
    return tepad.build(s, [A, B])


def test_exact_arguments_take_the_fast_path_with_the_right_addresses():
    mod = _scale_module()
    a = np.random.rand(6, 5).astype("float32")
    b = np.zeros((6, 5), "float32")
    ptrs = mod._checker.pointers((a, b))
    assert ptrs == [a.ctypes.data, b.ctypes.data]
    mod(a, b)
    np.testing.assert_allclose(b, a * 2)


def test_read_only_input_is_fine_read_only_output_is_refused():
    mod = _scale_module()
    a = np.random.rand(6, 5).astype("float32")
    a.flags.writeable = False
    b = np.zeros((6, 5), "float32")
    assert mod._checker.pointers((a, b)) == [a.ctypes.data, b.ctypes.data]
    mod(a, b)
    np.testing.assert_allclose(b, a * 2)
    b.flags.writeable = False
    assert mod._checker.pointers((a, b)) is None
    with pytest.raises(ValueError, match="argument 1 'B': output array is read-only"):
        mod(a, b)


@pytest.mark.parametrize("bad, exc, msg", [
    (lambda a: a.astype("float64"), TypeError, "expected dtype float32"),
    (lambda a: a[:5], ValueError, r"expected shape \(6, 5\)"),
    (lambda a: np.asfortranarray(a), ValueError, "C-contiguous"),
    (lambda a: a.tolist(), TypeError, "expected a numpy.ndarray"),
    (lambda a: np.zeros((6, 5), "float32").view(np.matrix), TypeError, "numpy.ndarray"),
])
def test_mismatches_fall_back_to_the_full_check(bad, exc, msg):
    mod = _scale_module()
    a = np.random.rand(6, 5).astype("float32")
    b = np.zeros((6, 5), "float32")
    x = bad(a)
    assert mod._checker.pointers((x, b)) is None
    if isinstance(x, np.matrix):    # an ndarray subclass: the full check accepts it
        mod(x, b)
        return
    with pytest.raises(exc, match=msg):
        mod(x, b)


def test_wrong_argument_count_falls_back():
    mod = _scale_module()
    a = np.random.rand(6, 5).astype("float32")
    assert mod._checker.pointers((a,)) is None
    with pytest.raises(TypeError, match="expected 2 arguments"):
        mod(a)


def test_empty_arrays():
    mod = _scale_module(0, 5)
    a = np.zeros((0, 5), "float32")
    b = np.zeros((0, 5), "float32")
    assert mod._checker.pointers((a, b)) is not None
    mod(a, b)


def test_symbolic_shapes_never_take_the_fast_path():
    n = te.var("n")
    A = te.placeholder((n,), "float32", name="A")
    B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    mod = tepad.build(te.create_schedule(B.op), [A, B])
    a = np.arange(7, dtype="float32")
    b = np.zeros(7, "float32")
    assert mod._checker.pointers((a, b)) is None
    mod(a, b)
    np.testing.assert_array_equal(b, a + 1)
