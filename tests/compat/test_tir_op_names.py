"""TVM's remaining ``tvm.tir`` / ``tvm.te`` operator names (inverse and hyperbolic math,
two-argument math, clz, reinterpret, named bit operations, ceildiv, generic arithmetic,
stmt_seq / stmt_list, tir.comm_reducer) and ``tvm.tir.analysis``, built and compared with
numpy."""
import numpy as np
import pytest

import tepad as tvm
from tepad import te, tir

N = 40


def _run(fcompute, inputs, out_dtype="float32", vectorize=False):
    phs = [te.placeholder((N,), dtype=a.dtype, name=f"A{k}") for k, a in enumerate(inputs)]
    C = te.compute((N,), lambda i: fcompute(*[p[i] for p in phs]), name="C")
    s = te.create_schedule(C.op)
    if vectorize:
        xo, xi = s[C].split(C.op.axis[0], factor=8)
        s[C].vectorize(xi)
    f = tvm.build(s, [*phs, C], target="llvm")
    out = tvm.nd.array(np.zeros(N, out_dtype))
    f(*[tvm.nd.array(a) for a in inputs], out)
    return out.numpy()


UNARY = [("acos", np.arccos, (-0.95, 0.95)), ("asin", np.arcsin, (-0.95, 0.95)),
         ("atanh", np.arctanh, (-0.9, 0.9)), ("acosh", np.arccosh, (1.0, 4.0)),
         ("asinh", np.arcsinh, (-3.0, 3.0)), ("cosh", np.cosh, (-3.0, 3.0)),
         ("sinh", np.sinh, (-3.0, 3.0)), ("nearbyint", np.rint, (-4.0, 4.0))]


@pytest.mark.parametrize("name,ref,rng", UNARY, ids=[u[0] for u in UNARY])
@pytest.mark.parametrize("vectorize", [False, True])
def test_unary_math(name, ref, rng, vectorize):
    a = np.random.default_rng(1).uniform(*rng, N).astype("float32")
    if name == "nearbyint":
        a[:4] = [0.5, 1.5, 2.5, -0.5]         # ties go to even, as numpy's rint
    got = _run(getattr(tir, name), [a], vectorize=vectorize)
    np.testing.assert_allclose(got, ref(a), rtol=2e-6, atol=1e-6)
    assert getattr(te, name) is getattr(tir, name)


BINARY = [("atan2", np.arctan2), ("hypot", np.hypot), ("copysign", np.copysign),
          ("nextafter", np.nextafter)]


@pytest.mark.parametrize("name,ref", BINARY, ids=[b[0] for b in BINARY])
@pytest.mark.parametrize("vectorize", [False, True])
def test_binary_math(name, ref, vectorize):
    r = np.random.default_rng(2)
    a = r.uniform(-3, 3, N).astype("float32")
    b = r.uniform(-3, 3, N).astype("float32")
    got = _run(getattr(tir, name), [a, b], vectorize=vectorize)
    np.testing.assert_allclose(got, ref(a, b), rtol=2e-6)


def test_exp10_ldexp():
    a = np.linspace(-2, 2, N).astype("float32")
    e = np.arange(N).astype("int32") % 7 - 3
    np.testing.assert_allclose(_run(tir.exp10, [a]), 10.0 ** a, rtol=1e-5)
    np.testing.assert_allclose(_run(tir.ldexp, [a, e]), np.ldexp(a, e), rtol=1e-6)


def test_clz_reinterpret_and_bit_names():
    r = np.random.default_rng(3)
    x = r.integers(1, 2 ** 31 - 1, N).astype("int32")
    y = r.integers(0, 7, N).astype("int32")
    want_clz = np.array([32 - int(v).bit_length() for v in x], "int32")
    np.testing.assert_array_equal(_run(tir.clz, [x], "int32"), want_clz)
    f = np.random.default_rng(4).normal(size=N).astype("float32")
    np.testing.assert_array_equal(
        _run(lambda v: tir.reinterpret("int32", v), [f], "int32"), f.view("int32"))
    for name, ref in [("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
                      ("bitwise_xor", np.bitwise_xor), ("shift_left", np.left_shift),
                      ("shift_right", np.right_shift)]:
        np.testing.assert_array_equal(_run(getattr(tir, name), [x, y], "int32"), ref(x, y),
                                      err_msg=name)
    np.testing.assert_array_equal(_run(tir.bitwise_not, [x], "int32"), ~x)


def test_generic_arithmetic_and_ceildiv():
    a = np.arange(1, N + 1).astype("int32")
    b = (np.arange(N) % 5 + 1).astype("int32")
    np.testing.assert_array_equal(_run(tir.ceildiv, [a, b], "int32"), -(-a // b))
    np.testing.assert_array_equal(_run(tir.add, [a, b], "int32"), a + b)
    np.testing.assert_array_equal(_run(tir.subtract, [a, b], "int32"), a - b)
    np.testing.assert_array_equal(_run(tir.multiply, [a, b], "int32"), a * b)
    g = tir.generic
    np.testing.assert_array_equal(_run(g.floordiv, [a, b], "int32"), a // b)
    np.testing.assert_allclose(_run(lambda u, v: g.divide(g.cast(u, "float32"), v), [a, b]),
                               a / b, rtol=1e-6)
    assert te.add is tir.add and tvm.generic.add is tir.generic.add


def test_reinterpret_checks_width():
    with pytest.raises(tvm.TepadError, match="widths must agree"):
        tir.reinterpret("int64", tir.const(1.0, "float32"))
    with pytest.raises(tvm.TepadError, match="float dtype"):
        tir.infinity("int32")
    assert float(tir.infinity("float32").value) == float("inf")


def test_stmt_seq_and_list():
    e1, e2, e3 = (tir.Evaluate(k) for k in range(3))
    seq = tir.stmt_seq(e1, tir.stmt_seq(e2, e3))
    assert isinstance(seq, tir.SeqStmt)
    assert tir.stmt_list(seq) == [e1, e2, e3]
    assert tir.stmt_list(e1) == [e1]


def test_tir_comm_reducer_and_sum():
    A = te.placeholder((N, 6), name="A")
    k = te.reduce_axis((0, 6), name="k")
    prod = tir.comm_reducer(lambda x, y: x * y, lambda t: tir.const(1, t), name="prod")
    P = te.compute((N,), lambda i: prod(A[i, k], axis=k), name="P")
    k2 = te.reduce_axis((0, 6), name="k2")
    S = te.compute((N,), lambda i: tir.sum(A[i, k2], axis=k2), name="S")
    s = te.create_schedule([P.op, S.op])
    f = tvm.build(s, [A, P, S])
    a = np.random.default_rng(5).uniform(0.5, 1.5, (N, 6)).astype("float32")
    p, q = tvm.nd.array(np.zeros(N, "float32")), tvm.nd.array(np.zeros(N, "float32"))
    f(tvm.nd.array(a), p, q)
    np.testing.assert_allclose(p.numpy(), a.prod(1), rtol=1e-5)
    np.testing.assert_allclose(q.numpy(), a.sum(1), rtol=1e-5)


def _lowered(with_shared=False):
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] * 2.0 + 1.0, name="B")
    s = te.create_schedule(B.op)
    return tvm.lower(s, [A, B])["main"], B


def test_analysis_verifiers_and_counts():
    from tepad.tir import analysis
    func, _ = _lowered()
    assert analysis.verify_ssa(func)
    assert analysis.verify_memory(func)
    assert analysis.verify_well_formed(func)
    assert analysis.verify_gpu_code(func, {"max_threads_per_block": 1})   # no kernel
    # 64 iterations of one multiply and one add
    assert analysis.estimate_tir_flops(func.body) == 128.0
    assert analysis.estimate_tir_flops(tvm.IRModule({"main": func})) == 128.0
    i = tir.Var("i", "int32")
    n = tir.Var("n", "int32")
    assert analysis.undefined_vars(i + n, [i]) == [n]
    assert analysis.expr_deep_equal(i + 1, i + 1) and not analysis.expr_deep_equal(i, n)


def test_analysis_allocations_and_gpu_limits():
    from tepad.tir import analysis
    A = te.placeholder((256,), name="A")
    B = te.compute((256,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((256,), lambda i: B[i] * 2.0, name="C")
    s = te.create_schedule(C.op)
    func = tvm.lower(s, [A, C])["main"]
    assert analysis.calculate_allocated_bytes(func) == {"main": {"global": 1024}}
    assert analysis.calculate_workspace_bytes(func, 512) == 1024
    s = te.create_schedule(C.op)
    s[B].compute_inline()
    xo, xi = s[C].split(C.op.axis[0], factor=128)
    s[C].bind(xo, te.thread_axis("blockIdx.x"))
    s[C].bind(xi, te.thread_axis("threadIdx.x"))
    gfunc = tvm.lower(s, [A, C])["main"]
    assert analysis.verify_gpu_code(gfunc, {"max_threads_per_block": 128})
    assert not analysis.verify_gpu_code(gfunc, {"max_threads_per_block": 64})
    assert analysis.verify_memory(gfunc)
