"""The numpy oracle (tepad.testing.reference) against hand-written numpy."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.testing import reference

RNG = np.random.default_rng(0)


def rand(*shape, dtype="float32"):
    if np.dtype(dtype).kind == "f":
        return RNG.standard_normal(shape).astype(dtype)
    return RNG.integers(-50, 50, size=shape).astype(dtype)


def test_elementwise():
    A = te.placeholder((4, 5), name="A")
    B = te.placeholder((4, 5), name="B")
    C = te.compute((4, 5), lambda i, j: A[i, j] * 2.0 + B[i, j] - tir.exp(A[i, j]), name="C")
    a, b = rand(4, 5), rand(4, 5)
    out = reference(C, {A: a, B: b})
    assert out.dtype == np.float32 and out.shape == (4, 5)
    np.testing.assert_allclose(out, a * 2 + b - np.exp(a), rtol=1e-6)


def test_index_arithmetic_and_math():
    A = te.placeholder((6,), name="A")
    C = te.compute((6,), lambda i: A[5 - i] + tir.Cast("float32", i * i) +
                   tir.sqrt(tir.abs(A[i])), name="C")
    a = rand(6)
    ref = a[::-1] + np.arange(6, dtype=np.float32) ** 2 + np.sqrt(np.abs(a))
    np.testing.assert_allclose(reference(C, {A: a}), ref, rtol=1e-6)


def test_broadcast():
    A = te.placeholder((3, 4), name="A")
    b = te.placeholder((4,), name="b")
    C = te.compute((2, 3, 4), lambda n, i, j: A[i, j] + b[j] * tir.Cast("float32", n),
                   name="C")
    a, bb = rand(3, 4), rand(4)
    ref = a[None] + bb[None, None] * np.arange(2, dtype=np.float32)[:, None, None]
    np.testing.assert_allclose(reference(C, {A: a, b: bb}), ref, rtol=1e-6)


def test_matmul():
    n, m, l = 7, 5, 9
    A = te.placeholder((n, l), name="A")
    B = te.placeholder((l, m), name="B")
    k = te.reduce_axis((0, l), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    a, b = rand(n, l), rand(l, m)
    np.testing.assert_allclose(reference(C, {A: a, B: b}), a @ b, rtol=1e-5, atol=1e-5)


def test_sum_with_init_and_two_axes():
    A = te.placeholder((4, 3, 5), name="A")
    k1 = te.reduce_axis((0, 3), name="k1")
    k2 = te.reduce_axis((1, 5), name="k2")
    C = te.compute((4,), lambda i: te.sum(A[i, k1, k2], axis=[k1, k2], init=10.0), name="C")
    a = rand(4, 3, 5)
    np.testing.assert_allclose(reference(C, {A: a}), 10 + a[:, :, 1:].sum(axis=(1, 2)),
                               rtol=1e-5)


def test_max_min_with_where():
    A = te.placeholder((6, 8), name="A")
    k = te.reduce_axis((0, 8), name="k")
    Mx = te.compute((6,), lambda i: te.max(A[i, k], axis=k, where=k < i), name="Mx")
    Mn = te.compute((6,), lambda i: te.min(A[i, k], axis=k, where=k >= i), name="Mn")
    a = rand(6, 8)
    mx, mn = reference([Mx, Mn], {A: a})
    lowest = np.finfo(np.float32).min
    exp_mx = np.array([a[i, :i].max() if i else lowest for i in range(6)], dtype=np.float32)
    exp_mn = np.array([a[i, i:].min() for i in range(6)], dtype=np.float32)
    np.testing.assert_array_equal(mx, exp_mx)     # row 0: nothing selected -> identity
    np.testing.assert_array_equal(mn, exp_mn)


def test_int_max_reduction_with_init():
    A = te.placeholder((5, 4), dtype="int32", name="A")
    k = te.reduce_axis((0, 4), name="k")
    C = te.compute((5,), lambda i: te.max(A[i, k], axis=k, init=0), name="C")
    a = rand(5, 4, dtype="int32")
    np.testing.assert_array_equal(reference(C, {A: a}), np.maximum(a.max(axis=1), 0))


def test_user_comm_reducer_product():
    prod = te.comm_reducer(lambda x, y: x * y, lambda t: tir.const(1, t), name="prod")
    A = te.placeholder((4, 6), name="A")
    k = te.reduce_axis((0, 6), name="k")
    C = te.compute((4,), lambda i: prod(A[i, k], axis=k), name="C")
    D = te.compute((4,), lambda i: prod(A[i, k], axis=k, where=k % 2 == 0), name="D")
    a = (RNG.random((4, 6)) + 0.5).astype("float32")
    c, d = reference([C, D], {A: a})
    np.testing.assert_allclose(c, a.prod(axis=1), rtol=1e-5)
    np.testing.assert_allclose(d, a[:, ::2].prod(axis=1), rtol=1e-5)


def test_user_reducer_order_dependent_combiner():
    # "keep the last selected value": combine(acc, v) = v is only meaningful with a fold order
    last = te.comm_reducer(lambda x, y: y, lambda t: tir.const(-1, t), name="last")
    A = te.placeholder((3, 5), dtype="int32", name="A")
    k = te.reduce_axis((0, 5), name="k")
    C = te.compute((3,), lambda i: last(A[i, k], axis=k, where=A[i, k] > 0), name="C")
    a = np.array([[1, -2, 3, -4, -5], [-1, -2, -3, -4, -5], [0, 7, 0, 0, 9]], dtype="int32")
    np.testing.assert_array_equal(reference(C, {A: a}), [3, -1, 9])


def test_blur_3x3():
    H, W = 8, 10
    A = te.placeholder((H, W), name="A")
    ry = te.reduce_axis((0, 3), name="ry")
    rx = te.reduce_axis((0, 3), name="rx")
    B = te.compute((H - 2, W - 2),
                   lambda y, x: te.sum(A[y + ry, x + rx] / 9.0, axis=[ry, rx]), name="B")
    a = rand(H, W)
    ref = sum(a[dy:dy + H - 2, dx:dx + W - 2] / 9 for dy in range(3) for dx in range(3))
    np.testing.assert_allclose(reference(B, {A: a}), ref, rtol=1e-5, atol=1e-6)


def test_two_stage_blur():
    A = te.placeholder((12,), name="A")
    B = te.compute((10,), lambda i: A[i] + A[i + 1] + A[i + 2], name="B")
    C = te.compute((8,), lambda i: B[i] + B[i + 1] + B[i + 2], name="C")
    a = rand(12)
    b = a[:-2] + a[1:-1] + a[2:]
    c = b[:-2] + b[1:-1] + b[2:]
    np.testing.assert_allclose(reference(C, {A: a}), c, rtol=1e-5, atol=1e-6)


def test_conv2d_zero_padding():
    N, CI, H, W, CO, K, P = 2, 3, 6, 5, 4, 3, 1
    X = te.placeholder((N, CI, H, W), name="X")
    Wt = te.placeholder((CO, CI, K, K), name="Wt")
    Xp = te.compute(
        (N, CI, H + 2 * P, W + 2 * P),
        lambda n, c, y, x: te.if_then_else(
            tir.all(y >= P, y < H + P, x >= P, x < W + P), X[n, c, y - P, x - P], 0.0),
        name="Xp")
    rc = te.reduce_axis((0, CI), name="rc")
    ry = te.reduce_axis((0, K), name="ry")
    rx = te.reduce_axis((0, K), name="rx")
    Y = te.compute((N, CO, H, W), lambda n, f, y, x: te.sum(
        Xp[n, rc, y + ry, x + rx] * Wt[f, rc, ry, rx], axis=[rc, ry, rx]), name="Y")
    x, w = rand(N, CI, H, W), rand(CO, CI, K, K)
    xp = np.pad(x, ((0, 0), (0, 0), (P, P), (P, P)))
    ref = np.zeros((N, CO, H, W), dtype=np.float64)
    for dy in range(K):
        for dx in range(K):
            ref += np.einsum("nchw,fc->nfhw", xp[:, :, dy:dy + H, dx:dx + W], w[:, :, dy, dx])
    np.testing.assert_allclose(reference(Y, {X: x, Wt: w}), ref, rtol=1e-4, atol=1e-5)


def test_conv_inline_padding_out_of_range_loads_are_safe():
    # the untaken branch reads A[-1] and A[n]: the oracle must clip, not fail or wrap
    A = te.placeholder((5,), name="A")
    B = te.compute((7,), lambda i: te.if_then_else(
        tir.all(i >= 1, i <= 5), A[i - 1], tir.const(-1.0)), name="B")
    a = rand(5)
    np.testing.assert_array_equal(reference(B, {A: a}), np.concatenate([[-1], a, [-1]]))


def test_symbolic_shape_bound_from_array():
    n = te.var("n")
    A = te.placeholder((n, 3), name="A")
    B = te.compute((n, 3), lambda i, j: A[n - 1 - i, j] + 1.0, name="B")
    for size in (1, 4, 9):
        a = rand(size, 3)
        out = reference(B, {A: a})
        assert out.shape == (size, 3)
        np.testing.assert_allclose(out, a[::-1] + 1, rtol=1e-6)


def test_symbolic_shape_expression_checked():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n + 2,), name="B")
    C = te.compute((n,), lambda i: A[i] + B[i + 2], name="C")
    a, b = rand(4), rand(6)
    np.testing.assert_allclose(reference(C, {A: a, B: b}), a + b[2:], rtol=1e-6)
    with pytest.raises(tepad.TepadError, match="B"):
        reference(C, {A: a, B: rand(5)})


def test_symbolic_inconsistent_binding():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute((n,), lambda i: A[i] + B[i], name="C")
    with pytest.raises(tepad.TepadError, match="n"):
        reference(C, {A: rand(3), B: rand(4)})


def test_output_only_var_given_in_inputs():
    n = te.var("n")
    A = te.placeholder((4,), name="A")
    C = te.compute((n,), lambda i: A[i % 4], name="C")
    a = rand(4)
    np.testing.assert_array_equal(reference(C, {A: a, n: 6}), a[np.arange(6) % 4])
    with pytest.raises(tepad.TepadError, match="n"):
        reference(C, {A: a})


def test_missing_input_and_wrong_shape():
    A = te.placeholder((3,), name="A")
    B = te.placeholder((3,), name="B")
    C = te.compute((3,), lambda i: A[i] + B[i], name="C")
    with pytest.raises(tepad.TepadError, match="B"):
        reference(C, {A: rand(3)})
    with pytest.raises(tepad.TepadError, match="A"):
        reference(C, {A: rand(4), B: rand(3)})
    with pytest.raises(tepad.TepadError, match="A"):
        reference(C, {A: rand(3, 1), B: rand(3)})


def test_multiple_outputs_and_shared_stage_evaluated_once():
    A = te.placeholder((5,), name="A")
    B = te.compute((5,), lambda i: A[i] * 2.0, name="B")
    C = te.compute((5,), lambda i: B[i] + 1.0, name="C")
    D = te.compute((5,), lambda i: B[i] - 1.0, name="D")
    a = rand(5)
    c, d = reference([C, D], {A: a})
    np.testing.assert_allclose(c, 2 * a + 1, rtol=1e-6)
    np.testing.assert_allclose(d, 2 * a - 1, rtol=1e-6)
    one = reference([C], {A: a})
    assert isinstance(one, list) and len(one) == 1


def test_multi_output_compute():
    A = te.placeholder((4,), name="A")
    S, P = te.compute((4,), lambda i: [A[i] + 1.0, A[i] * 3.0], name="SP")
    a = rand(4)
    s, p = reference([S, P], {A: a})
    np.testing.assert_allclose(s, a + 1, rtol=1e-6)
    np.testing.assert_allclose(p, a * 3, rtol=1e-6)


def test_int32_floordiv_floormod_negatives():
    A = te.placeholder((12,), dtype="int32", name="A")
    B = te.placeholder((12,), dtype="int32", name="B")
    Q = te.compute((12,), lambda i: A[i] // B[i], name="Q")
    R = te.compute((12,), lambda i: A[i] % B[i], name="R")
    TQ = te.compute((12,), lambda i: tir.truncdiv(A[i], B[i]), name="TQ")
    TR = te.compute((12,), lambda i: tir.truncmod(A[i], B[i]), name="TR")
    a = np.array([-7, 7, -7, 7, -1, 0, 5, -5, -9, 9, -8, 8], dtype="int32")
    b = np.array([2, 2, -2, -2, 3, 3, -3, -3, 4, -4, 4, -4], dtype="int32")
    q, r, tq, tr = reference([Q, R, TQ, TR], {A: a, B: b})
    np.testing.assert_array_equal(q, [x // y for x, y in zip(a.tolist(), b.tolist())])
    np.testing.assert_array_equal(r, [x % y for x, y in zip(a.tolist(), b.tolist())])
    np.testing.assert_array_equal(tq, [int(x / y) for x, y in zip(a.tolist(), b.tolist())])
    np.testing.assert_array_equal(tr, [int(np.fmod(x, y)) for x, y in zip(a.tolist(),
                                                                            b.tolist())])
    assert q.dtype == np.int32


def test_index_floordiv_with_negative_offsets():
    A = te.placeholder((4,), name="A")
    C = te.compute((8,), lambda i: A[(i - 4) // 2 + 2] + tir.Cast("float32", (i - 4) % 3),
                   name="C")
    a = rand(4)
    idx = np.arange(8)
    np.testing.assert_allclose(reference(C, {A: a}), a[(idx - 4) // 2 + 2] + (idx - 4) % 3)


def test_int32_wraps():
    A = te.placeholder((3,), dtype="int32", name="A")
    C = te.compute((3,), lambda i: A[i] * 65536 + 1, name="C")
    a = np.array([1, 40000, -40000], dtype="int32")
    with np.errstate(over="ignore"):
        exp = a * np.int32(65536) + np.int32(1)
    out = reference(C, {A: a})
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, exp)


def test_casts_and_select_and_compare():
    A = te.placeholder((6,), name="A")
    C = te.compute((6,), lambda i: tir.Select(A[i] > 0.0, tir.Cast("int32", A[i] * 10.0),
                                              tir.const(-1)), name="C")
    a = np.array([0.26, -1, 3.99, 0, -0.5, 1.5], dtype="float32")
    exp = np.where(a > 0, (a * np.float32(10)).astype(np.int32), -1)
    np.testing.assert_array_equal(reference(C, {A: a}), exp)


def test_float32_stays_float32():
    A = te.placeholder((3,), name="A")
    C = te.compute((3,), lambda i: A[i] + 1e-8, name="C")
    a = np.ones(3, dtype="float32")
    out = reference(C, {A: a})
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, a)       # 1 + 1e-8 rounds to 1 in float32


def test_let_and_round():
    x = tir.Var("x", "float32")
    A = te.placeholder((6,), name="A")
    C = te.compute((6,), lambda i: tir.Let(x, A[i] * 2.0, tir.round(x) + x), name="C")
    a = np.array([0.25, -0.25, 1.25, -1.25, 0.2, 2.7], dtype="float32")
    t = a * 2
    exp = np.rint(t) + t    # half to even, like numpy and llvm.nearbyint
    np.testing.assert_allclose(reference(C, {A: a}), exp, rtol=1e-6)


def test_triangular_reduce_domain_depends_on_outer_axis():
    A = te.placeholder((5,), name="A")
    k = te.reduce_axis((0, 5), name="k")
    C = te.compute((5,), lambda i: te.sum(A[k], axis=k, where=k <= i), name="C")
    a = rand(5)
    np.testing.assert_allclose(reference(C, {A: a}), np.cumsum(a), rtol=1e-5, atol=1e-6)


def test_chunking_matches_unchunked(monkeypatch):
    import sys
    R = sys.modules["tepad.testing.reference"]      # the attribute is the function
    A = te.placeholder((9, 4), name="A")
    B = te.placeholder((4, 3), name="B")
    k = te.reduce_axis((0, 4), name="k")
    C = te.compute((9, 3), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    a, b = rand(9, 4), rand(4, 3)
    full = reference(C, {A: a, B: b})
    monkeypatch.setattr(R, "CHUNK_ELEMENTS", 20)
    calls = []
    orig = R._Oracle._eval_body
    monkeypatch.setattr(R._Oracle, "_eval_body",
                        lambda self, *args: calls.append(args[-2:]) or orig(self, *args))
    np.testing.assert_array_equal(reference(C, {A: a, B: b}), full)
    assert calls == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7), (7, 8), (8, 9)]


def test_placeholder_output_and_input_dtype_conversion():
    A = te.placeholder((3,), name="A")
    out = reference(A, {A: np.arange(3, dtype=np.float64)})
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [0, 1, 2])
    with pytest.raises(tepad.TepadError, match="A"):
        I = te.placeholder((3,), dtype="int32", name="A")
        reference(I, {I: np.ones(3, dtype=np.float32)})


def test_scalar_parameter_var():
    alpha = te.var("alpha", "float32")
    A = te.placeholder((4,), name="A")
    C = te.compute((4,), lambda i: A[i] * alpha, name="C")
    a = rand(4)
    np.testing.assert_allclose(reference(C, {A: a, alpha: 0.5}), a * np.float32(0.5))
    n = te.var("n")
    with pytest.raises(tepad.TepadError, match="n"):
        reference(te.compute((n,), lambda i: A[i], name="D"), {A: a, n: 2.5})


def test_reduction_of_computed_stage_and_empty_where():
    A = te.placeholder((3, 4), dtype="int32", name="A")
    B = te.compute((3, 4), lambda i, j: A[i, j] * A[i, j], name="B")
    k = te.reduce_axis((0, 4), name="k")
    C = te.compute((3,), lambda i: te.sum(B[i, k], axis=k, where=A[i, k] > 100), name="C")
    D = te.compute((3,), lambda i: te.sum(B[i, k], axis=k), name="D")
    a = rand(3, 4, dtype="int32")
    c, d = reference([C, D], {A: a})
    np.testing.assert_array_equal(c, np.zeros(3, dtype=np.int32))
    np.testing.assert_array_equal(d, (a * a).sum(axis=1))
    assert c.dtype == np.int32 and d.dtype == np.int32


def _wrap32(v):
    return (v + 2**31) % 2**32 - 2**31


def test_int32_semantics_property():
    from hypothesis import given, strategies as st

    A = te.placeholder((1,), dtype="int32", name="A")
    B = te.placeholder((1,), dtype="int32", name="B")
    outs = [te.compute((1,), f, name=n) for n, f in [
        ("fdiv", lambda i: A[i] // B[i]), ("fmod", lambda i: A[i] % B[i]),
        ("tdiv", lambda i: tir.truncdiv(A[i], B[i])), ("tmod", lambda i: tir.truncmod(A[i], B[i])),
        ("mul", lambda i: A[i] * B[i]), ("sub", lambda i: A[i] - B[i]),
        ("mx", lambda i: tir.max(A[i], B[i]))]]
    i32 = st.integers(-2**31 + 1, 2**31 - 1)

    @given(i32, i32.filter(lambda v: v != 0))
    def check(a, b):
        got = [int(r[0]) for r in reference(outs, {A: np.array([a], "int32"),
                                                   B: np.array([b], "int32")})]
        q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
        assert got == [a // b, a % b, q, a - q * b, _wrap32(a * b), _wrap32(a - b), max(a, b)]

    check()
