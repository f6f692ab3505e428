"""Integer bit operations: the PrimExpr operators (& | ^ << >> ~ on integers; & | on bool
stay logical) and topi's bitwise_* / *_shift with broadcasting, against numpy."""
import numpy as np
import pytest

import tepad as tvm
from tepad import te, topi

RNG = np.random.default_rng(7)


def _run(out, ins, arrays):
    s = te.create_schedule(out.op)
    if len(out.shape) == 2:
        s[out].vectorize(out.op.axis[1])
    f = tvm.build(s, list(ins) + [out])
    res = tvm.nd.empty(tuple(int(x) for x in out.shape), out.dtype)
    f(*[tvm.nd.array(a) for a in arrays], res)
    return res.numpy()


@pytest.mark.parametrize("dtype", ["int32", "uint16", "int8"])
@pytest.mark.parametrize("name, ref", [("bitwise_and", np.bitwise_and),
                                       ("bitwise_or", np.bitwise_or),
                                       ("bitwise_xor", np.bitwise_xor),
                                       ("left_shift", np.left_shift),
                                       ("right_shift", np.right_shift)])
def test_topi_binary_bit_ops_broadcast(name, ref, dtype):
    A = te.placeholder((3, 8), dtype, name="A")
    B = te.placeholder((8,), dtype, name="B")
    C = getattr(topi, name)(A, B)
    info = np.iinfo(dtype)
    a = RNG.integers(info.min, info.max, (3, 8), endpoint=True).astype(dtype)
    if "shift" in name:
        b = RNG.integers(0, info.bits - 1, 8).astype(dtype)
    else:
        b = RNG.integers(info.min, info.max, 8, endpoint=True).astype(dtype)
    np.testing.assert_array_equal(_run(C, [A, B], [a, b]), ref(a, b))


def test_topi_bitwise_not_and_scalar_operand():
    A = te.placeholder((4, 8), "int32", name="A")
    a = RNG.integers(-2**31, 2**31 - 1, (4, 8)).astype("int32")
    np.testing.assert_array_equal(_run(topi.bitwise_not(A), [A], [a]), ~a)
    np.testing.assert_array_equal(_run(topi.bitwise_and(A, 0xFF), [A], [a]), a & 0xFF)


def test_expression_operators_fold_and_refuse_floats():
    x = te.var("x")
    assert (tvm.tir.const(12, "int32") & 10).value == 8
    assert (tvm.tir.const(1, "int32") << 4).value == 16
    assert (x ^ 3).op.name == "tir.bitwise_xor"
    b = te.var("b", "bool")
    assert isinstance(b & b, tvm.tir.And)
    with pytest.raises(tvm.TepadError, match="integer"):
        te.var("f", "float32") ^ 1


@pytest.mark.parametrize("src,dst", [("float32", "int32"), ("int32", "float32"),
                                     ("float64", "uint64"), ("int16", "float16")])
def test_reinterpret_reads_the_bits_as_the_other_dtype(src, dst):
    A = te.placeholder((3, 5), src, name="A")
    B = topi.reinterpret(A, dst)
    assert B.dtype == dst and B.op.name == "T_reinterpret"
    f = tvm.build(te.create_schedule(B.op), [A, B])
    a = (np.random.default_rng(3).standard_normal((3, 5)) * 100).astype(src)
    b = np.zeros((3, 5), dst)
    f(a, b)
    np.testing.assert_array_equal(b.view(src), a)


def test_reinterpret_refuses_a_dtype_of_another_width():
    A = te.placeholder((4,), "float32", name="A")
    with pytest.raises(tvm.TepadError, match="reinterpret"):
        topi.reinterpret(A, "int64")
