"""TVM's te/tir math functions (erf, log1p, tan, atan, log2, log10, exp2, rsqrt, trunc, fmod,
isnan/isinf/isfinite, popcount): scalar and vectorized builds agree with numpy and with the
reference evaluator."""
import math

import numpy as np
import pytest

import tepad
from tepad import te
from tepad.testing import reference

UNARY = {
    "erf": np.vectorize(math.erf), "log1p": np.log1p, "tan": np.tan, "atan": np.arctan,
    "log2": np.log2, "log10": np.log10, "exp2": np.exp2, "rsqrt": lambda x: 1 / np.sqrt(x),
    "trunc": np.trunc,
}


@pytest.mark.parametrize("vectorize", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_math(name, dtype, vectorize):
    n = 16
    A = te.placeholder((n,), dtype, name="A")
    B = te.compute((n,), lambda i: getattr(te, name)(A[i]), name="B")
    s = te.create_schedule(B.op)
    if vectorize:
        _, inner = s[B].split(B.op.axis[0], factor=8)
        s[B].vectorize(inner)
    a = np.linspace(0.1, 3.0, n).astype(dtype)
    b = np.zeros(n, dtype)
    tepad.build(s, [A, B])(a, b)
    rtol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(b, UNARY[name](a.astype("float64")), rtol=rtol)
    np.testing.assert_allclose(reference(B, {A: a}), b, rtol=rtol)


def test_fmod_and_float_tests():
    A = te.placeholder((6,), name="A")
    F = te.compute((6,), lambda i: te.fmod(A[i], 1.5), name="F")
    N = te.compute((6,), lambda i: te.isnan(A[i]).astype("int32") * 4 +
                   te.isinf(A[i]).astype("int32") * 2 + te.isfinite(A[i]).astype("int32"),
                   name="N")
    s = te.create_schedule([F.op, N.op])
    a = np.array([-3.7, 2.5, np.nan, np.inf, -np.inf, 0.0], "float32")
    f, m = np.zeros(6, "float32"), np.zeros(6, "int32")
    with np.errstate(invalid="ignore"):
        tepad.build(s, [A, F, N])(a, f, m)
        np.testing.assert_allclose(f, np.fmod(a, np.float32(1.5)), equal_nan=True)
    np.testing.assert_array_equal(m, [1, 1, 4, 2, 2, 1])


def test_popcount_and_integer_tests():
    A = te.placeholder((5,), "int32", name="A")
    P = te.compute((5,), lambda i: te.popcount(A[i]) + te.isnan(A[i]).astype("int32"),
                   name="P")
    s = te.create_schedule(P.op)
    a = np.array([0, 1, 7, -1, 1 << 20], "int32")
    p = np.zeros(5, "int32")
    tepad.build(s, [A, P])(a, p)
    np.testing.assert_array_equal(p, [0, 1, 3, 32, 1])
    np.testing.assert_array_equal(reference(P, {A: a}), p)
    with pytest.raises(tepad.TepadError, match="popcount needs an integer"):
        te.popcount(te.placeholder((1,), name="X")[0])


def test_kernel_named_like_a_function_it_calls_runs():
    # the kernel's symbol moves aside (tests/codegen/test_kernel_names.py); tan is libm's
    A = te.placeholder((8,), "float64", name="A")
    B = te.compute(A.shape, lambda i: te.tan(A[i]), name="B")
    s = te.create_schedule(B.op)
    for name in ("tan", "tan_kernel"):
        f = tepad.build(s, [A, B], name=name)
        a = np.linspace(0.0, 1.0, 8)
        b = np.zeros(8)
        f(a, b)
        np.testing.assert_allclose(b, np.tan(a))
