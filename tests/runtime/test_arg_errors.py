"""Issue 19: Module-argument errors say what is wrong and how to fix it, and are TepadErrors
(wrong count / type / dtype: ``TepadTypeError``, also a ``TypeError``; the rest: ``TepadError``,
a ``ValueError``)."""
import numpy as np
import pytest

import tepad
from tepad import te
from tepad.errors import TepadTypeError
from tepad.layout import to_physical, from_physical

SPLIT3 = lambda i, j: [i, j // 3, j % 3]   # noqa: E731


def _scale(n=8):
    A = te.placeholder((n,), "float32", name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    return tepad.build(te.create_schedule(B.op), [A, B])


def test_big_endian_float32_names_the_byte_order_and_the_fix():
    mod = _scale()
    a = np.arange(8, dtype=">f4")
    b = np.zeros(8, "float32")
    with pytest.raises(TepadTypeError) as ei:
        mod(a, b)
    msg = str(ei.value)
    assert "argument 0 'A'" in msg and "big-endian" in msg and "byte order" in msg
    assert "expected dtype float32, got float32" not in msg
    assert "arr.astype('<f4')" in msg and "byteswap().view('<f4')" in msg
    assert isinstance(ei.value, TypeError) and isinstance(ei.value, tepad.TepadError)
    # both fixes the message proposes work
    for fixed in (a.astype("<f4"), a.byteswap().view("<f4")):
        mod(fixed, b)
        np.testing.assert_array_equal(b, np.arange(8) * 2)
        b[:] = 0
    # a big-endian output too, and nothing was written
    b_be = np.zeros(8, ">f4")
    with pytest.raises(TepadTypeError, match="argument 1 'B': .*big-endian"):
        mod(np.zeros(8, "float32"), b_be)
    # tepad.nd.array converts to the machine's byte order
    c = tepad.nd.empty((8,), "float32")
    mod(tepad.nd.array(a), c)
    np.testing.assert_array_equal(c.numpy(), np.arange(8) * 2)


def test_other_dtype_mismatch_with_foreign_byte_order():
    mod = _scale()
    with pytest.raises(TepadTypeError, match=r"expected dtype float32, got float64 \('>f8', "
                                              r"non-native byte order\)"):
        mod(np.zeros(8, ">f8"), np.zeros(8, "float32"))


def _padded():
    A = te.placeholder((8, 8), name="A")
    B = te.compute((8, 8), lambda i, j: A[i, j] * 2.0, name="B")
    s = te.create_schedule(B.op)
    s[A].transform_layout(SPLIT3, pad_value=0.0)
    return tepad.build(s, [A, B])


def test_logical_shape_for_a_padded_argument_points_to_to_physical():
    mod = _padded()
    assert [tuple(int(d) for d in i.physical_shape) for i in mod.arg_info] == [(8, 3, 3), (8, 8)]
    a = np.random.rand(8, 8).astype("float32")
    b = np.zeros((8, 8), "float32")
    with pytest.raises(tepad.TepadError) as ei:
        mod(a, b)
    msg = str(ei.value)
    assert msg.startswith("argument 0 'A': expected shape (8, 3, 3), got (8, 8)")
    assert "(8, 8) is the logical shape of 'A'" in msg
    assert "tepad.layout.to_physical" in msg and "mod.arg_info[0]" in msg
    assert isinstance(ei.value, ValueError)
    mod(to_physical(a, SPLIT3, 0.0), b)          # what the message says to do
    np.testing.assert_allclose(b, a * 2, rtol=1e-6)


def test_wrong_physical_shape_for_a_padded_argument_lists_both_shapes():
    mod = _padded()
    with pytest.raises(tepad.TepadError, match=r"argument 0 'A': expected shape \(8, 3, 3\), "
                                               r"got \(8, 4, 3\); 'A' is stored in a transformed "
                                               r"layout \(logical shape \(8, 8\), physical shape "
                                               r"\(8, 3, 3\)\): convert with "
                                               r"tepad.layout.to_physical"):
        mod(np.zeros((8, 4, 3), "float32"), np.zeros((8, 8), "float32"))


def test_padded_output_with_symbolic_size():
    n = te.var("n")
    A = te.placeholder((n, 8), name="A")
    B = te.compute((n, 8), lambda i, j: A[i, j] + 1.0, name="B")
    s = te.create_schedule(B.op)
    s[B].transform_layout(SPLIT3, pad_value=0.0)
    mod = tepad.build(s, [A, B])
    a = np.random.rand(5, 8).astype("float32")
    with pytest.raises(tepad.TepadError, match=r"argument 1 'B': .*\(5, 8\) is the logical shape "
                                               r"of 'B'.*physical shape \(5, 3, 3\).*"
                                               r"from_physical.*mod.arg_info\[1\]"):
        mod(a, np.zeros((5, 8), "float32"))
    bp = np.zeros((5, 3, 3), "float32")
    mod(a, bp)
    np.testing.assert_allclose(from_physical(bp, SPLIT3, (5, 8)), a + 1, rtol=1e-6)


def test_unpadded_arguments_get_no_layout_hint():
    mod = _scale()
    with pytest.raises(tepad.TepadError) as ei:
        mod(np.zeros(7, "float32"), np.zeros(8, "float32"))
    assert "layout" not in str(ei.value)


@pytest.mark.parametrize("args, extra", [
    (lambda a, b: (a,), TypeError),
    (lambda a, b: (a, b, b), TypeError),
    (lambda a, b: (a.tolist(), b), TypeError),
    (lambda a, b: (a.astype("int32"), b), TypeError),
    (lambda a, b: (a[:4], b), ValueError),
    (lambda a, b: (np.zeros(16, "float32")[::2], b), ValueError),
    (lambda a, b: (a, b), None),
])
def test_every_bad_call_raises_a_tepad_error(args, extra):
    mod = _scale()
    a, b = np.ones(8, "float32"), np.zeros(8, "float32")
    call = args(a, b)
    if extra is None:                    # control: a good call
        mod(*call)
        return
    with pytest.raises(tepad.TepadError) as ei:
        mod(*call)
    assert isinstance(ei.value, extra) and isinstance(ei.value, tepad.error.TVMError)


def test_read_only_output_is_a_tepad_error():
    mod = _scale()
    b = np.zeros(8, "float32")
    b.flags.writeable = False
    with pytest.raises(tepad.TepadError, match="argument 1 'B': output array is read-only"):
        mod(np.ones(8, "float32"), b)
