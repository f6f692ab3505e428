"""End to end: define, schedule, lower, build, run, compare with numpy."""
import numpy as np
import pytest

import tepad
from tepad import te, tir

rng = np.random.default_rng(7)


def rand(*shape, dtype="float32"):
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(-50, 50, size=shape).astype(dtype)


def run(s, args, inputs, out_shapes, name="main"):
    mod = tepad.build(s, args, name=name)
    outs = [np.zeros(sh, dtype=t.dtype) for sh, t in zip(out_shapes, args[len(inputs):])]
    mod(*inputs, *outs)
    return outs, mod


def test_elementwise_fused():
    n = 1000
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute((n,), lambda i: te.max(A[i] * B[i] + 1.0, te.const(0.0)), name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=64)
    s[C].parallel(xo)
    s[C].vectorize(xi)
    a, b = rand(n), rand(n)
    (c,), mod = run(s, [A, B, C], [a, b], [(n,)])
    np.testing.assert_allclose(c, np.maximum(a * b + 1, 0), rtol=1e-5, atol=1e-6)


def test_matmul_tile_reorder_vectorize_parallel():
    n, m, l = 64, 48, 40
    A = te.placeholder((n, l), name="A")
    B = te.placeholder((l, m), name="B")
    k = te.reduce_axis((0, l), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    io, jo, ii, ji = s[C].tile(C.op.axis[0], C.op.axis[1], 16, 8)
    ko, ki = s[C].split(k, factor=4)
    s[C].reorder(io, jo, ko, ki, ii, ji)
    s[C].vectorize(ji)
    s[C].parallel(io)
    a, b = rand(n, l), rand(l, m)
    (c,), mod = run(s, [A, B, C], [a, b], [(n, m)])
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
    assert "x float>" in mod.ll


def test_reduction_max_with_where():
    n, m = 37, 23
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), name="k")
    B = te.compute((n,), lambda i: te.max(A[i, k], axis=k, where=k > 3), name="B")
    s = te.create_schedule(B.op)
    a = rand(n, m)
    (b,), _ = run(s, [A, B], [a], [(n,)])
    np.testing.assert_allclose(b, a[:, 4:].max(axis=1))


def test_row_sum_non_divisible_split():
    n, m = 30, 14
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), name="k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=8)
    ko, ki = s[B].split(k, factor=4)
    a = rand(n, m)
    (b,), _ = run(s, [A, B], [a], [(n,)])
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-5, atol=1e-5)


def blur(n):
    A = te.placeholder((n + 2, n + 2), name="A")
    Bx = te.compute((n + 2, n), lambda y, x: A[y, x] + A[y, x + 1] + A[y, x + 2], name="Bx")
    By = te.compute((n, n), lambda y, x: Bx[y, x] + Bx[y + 1, x] + Bx[y + 2, x], name="By")
    return A, Bx, By


def blur_ref(a):
    bx = a[:, :-2] + a[:, 1:-1] + a[:, 2:]
    return bx[:-2] + bx[1:-1] + bx[2:]


@pytest.mark.parametrize("tile", [8, 5])
def test_blur_compute_at_inside_tile(tile):
    n = 30
    A, Bx, By = blur(n)
    s = te.create_schedule(By.op)
    yo, xo, yi, xi = s[By].tile(By.op.axis[0], By.op.axis[1], tile, tile)
    s[Bx].compute_at(s[By], xo)
    a = rand(n + 2, n + 2)
    (b,), _ = run(s, [A, By], [a], [(n, n)])
    np.testing.assert_allclose(b, blur_ref(a), rtol=1e-5, atol=1e-5)
    func = tepad.lower(s, [A, By], flatten=False)["main"]
    realizes = []
    tir.post_order_visit(func.body, lambda x: realizes.append(x)
                         if isinstance(x, tir.BufferRealize) else None)
    assert len(realizes) == 1
    assert [int(r.extent) for r in realizes[0].bounds] == [tile + 2, tile]
    flat = tepad.lower.passes.storage_flatten(func)
    allocs = []
    tir.post_order_visit(flat.body, lambda x: allocs.append(x) if isinstance(x, tir.Allocate)
                         else None)
    assert [int(e) for e in allocs[0].extents] == [(tile + 2) * tile]


def test_conv2d_nchw_inlined_padding():
    N, C, H, W, K = 1, 3, 10, 10, 4
    data = te.placeholder((N, C, H, W), name="data")
    weight = te.placeholder((K, C, 3, 3), name="weight")
    pad = te.compute((N, C, H + 2, W + 2),
                     lambda n, c, y, x: te.if_then_else(
                         tir.all(y >= 1, y <= H, x >= 1, x <= W),
                         data[n, c, y - 1, x - 1], te.const(0.0)), name="pad")
    rc = te.reduce_axis((0, C), name="rc")
    ry = te.reduce_axis((0, 3), name="ry")
    rx = te.reduce_axis((0, 3), name="rx")
    out = te.compute((N, K, H, W), lambda n, k, y, x: te.sum(
        pad[n, rc, y + ry, x + rx] * weight[k, rc, ry, rx], axis=[rc, ry, rx]), name="out")
    s = te.create_schedule(out.op)
    s[pad].compute_inline()
    n, k, y, x = out.op.axis
    xo, xi = s[out].split(x, factor=4)
    s[out].vectorize(xi)
    d, w = rand(N, C, H, W), rand(K, C, 3, 3)
    (o,), _ = run(s, [data, weight, out], [d, w], [(N, K, H, W)])
    dp = np.pad(d, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.zeros((N, K, H, W), "float32")
    for ry_ in range(3):
        for rx_ in range(3):
            ref += np.einsum("nchw,kc->nkhw", dp[:, :, ry_:ry_ + H, rx_:rx_ + W],
                             w[:, :, ry_, rx_])
    np.testing.assert_allclose(o, ref, rtol=1e-4, atol=1e-4)


def test_cache_read_and_cache_write():
    n = 64
    A = te.placeholder((n, n), name="A")
    B = te.compute((n, n), lambda i, j: A[i, j] * 3.0, name="B")
    s = te.create_schedule(B.op)
    AA = s.cache_read(A, "local", [B])
    BL = s.cache_write(B, "local")
    io, jo, ii, ji = s[B].tile(B.op.axis[0], B.op.axis[1], 8, 8)
    s[BL].compute_at(s[B], jo)
    s[AA].compute_at(s[BL], s[BL].op.axis[0])
    a = rand(n, n)
    (b,), _ = run(s, [A, B], [a], [(n, n)])
    np.testing.assert_allclose(b, a * 3, rtol=1e-5, atol=1e-6)
    assert AA.name == "A.local" and BL.name == "B.local"


def test_symbolic_shape_bound_at_call():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0 + 1.0, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=8)
    mod = tepad.build(s, [A, B])
    for size in (1, 8, 13, 100):
        a = rand(size)
        b = np.zeros(size, "float32")
        mod(a, b)
        np.testing.assert_allclose(b, a * 2 + 1, rtol=1e-5, atol=1e-6)


def test_multiple_outputs_in_one_schedule():
    n = 20
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((n,), lambda i: B[i] * 2.0, name="C")
    D = te.compute((n,), lambda i: B[i] - 3.0, name="D")
    s = te.create_schedule([C.op, D.op])
    a = rand(n)
    (c, d), _ = run(s, [A, C, D], [a], [(n,), (n,)])
    np.testing.assert_allclose(c, (a + 1) * 2, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(d, a + 1 - 3, rtol=1e-5, atol=1e-6)


def test_multi_output_compute():
    n = 16
    A = te.placeholder((n,), name="A")
    B, C = te.compute((n,), lambda i: [A[i] + 1.0, A[i] * 2.0], name="BC")
    s = te.create_schedule(B.op)
    a = rand(n)
    (b, c), _ = run(s, [A, B, C], [a], [(n,), (n,)])
    np.testing.assert_allclose(b, a + 1)
    np.testing.assert_allclose(c, a * 2)


def test_int_floordiv_floormod():
    n = 40
    A = te.placeholder((n,), "int32", name="A")
    B = te.compute((n,), lambda i: (A[i] // 3) * 10 + A[i] % 3, name="B")
    s = te.create_schedule(B.op)
    a = rand(n, dtype="int32")
    (b,), _ = run(s, [A, B], [a], [(n,)])
    np.testing.assert_array_equal(b, (a // 3) * 10 + a % 3)


def test_lower_prints_readable_ir():
    A = te.placeholder((16,), name="A")
    B = te.compute((16,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    mod = tepad.lower(s, [A, B], name="add_one")
    text = mod["add_one"].script()
    assert text.startswith("@T.prim_func\ndef add_one(A: T.Buffer((16,), 'float32'), "
                           "B: T.Buffer((16,), 'float32')):")
    assert "B[i] = A[i] + T.float32(1.0)" in text
    assert str(mod) == mod.script() == "@I.ir_module\nclass Module:\n" + "\n".join(
        "    " + ln if ln else ln for ln in text.split("\n"))
