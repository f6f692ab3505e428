"""Performance-related codegen: compile cache, fast-math scope, vector widths, guarded vector
bodies, dynamically scheduled parallel loops."""
import re

import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad import codegen
from tepad.codegen import parallel
from tepad.runtime import build_module
from tepad.lower.passes.vectorize_loop import vectorize_loop
from codegen_helpers import make_func, loop

F = tir.ForKind


def _elementwise(n=64):
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    C = te.compute((n, n), lambda i, j: tir.max(A[i, j] * B[i, j] + 1.0, 0.0), name="C")
    s = te.create_schedule(C.op)
    s[C].parallel(C.op.axis[0])
    s[C].vectorize(C.op.axis[1])
    return s, [A, B, C]


def test_compile_cache_hit_reuses_jit_code():
    codegen.clear_cache()
    s, args = _elementwise()
    f = tepad.lower(s, args)
    m1 = tepad.build(f)
    assert tepad.build(f) is m1        # the same PrimFunc object: the driver's cache
    hits = codegen.stats["hits"]
    m2 = tepad.build(tepad.lower(s, args))   # a new, identical PrimFunc: codegen's cache
    assert codegen.stats["hits"] == hits + 1
    assert m2._jit is m1._jit
    # a rebuilt schedule lowers to the same script: also a hit
    s2, args2 = _elementwise()
    m3 = tepad.build(s2, args2)
    assert m3._jit is m1._jit
    a = np.random.rand(64, 64).astype("float32")
    b = np.random.rand(64, 64).astype("float32")
    c = np.zeros((64, 64), "float32")
    m3(a, b, c)
    np.testing.assert_allclose(c, np.maximum(a * b + 1, 0), rtol=1e-6)


def test_compile_cache_distinguishes_shapes_and_can_be_disabled():
    codegen.clear_cache()
    m1 = tepad.build(*_elementwise(64))
    m2 = tepad.build(*_elementwise(32))
    assert m1._jit is not m2._jit
    with codegen.cache_disabled():
        m3 = tepad.build(*_elementwise(64))
    assert m3._jit is not m1._jit


def test_reassoc_only_on_reduction_updates():
    s, args = _elementwise()
    m = tepad.build(s, args)
    assert "reassoc" not in m.unoptimized_ll
    A = te.placeholder((8, 100), name="A")
    k = te.reduce_axis((0, 100), name="k")
    Bs = te.compute((8,), lambda i: te.sum(A[i, k] * 2.0, axis=k), name="B")
    m = tepad.build(te.create_schedule(Bs.op), [A, Bs])
    lines = [l for l in m.unoptimized_ll.splitlines() if "reassoc" in l]
    assert lines and all("fadd" in l for l in lines)   # the combining add, not the multiply
    a = np.random.rand(8, 100).astype("float32")
    out = np.zeros(8, "float32")
    m(a, out)
    np.testing.assert_allclose(out, (a * 2).sum(1), rtol=1e-5)


def test_vector_widths_are_powers_of_two():
    A, C = tir.Buffer((56,), "float32", "A"), tir.Buffer((56,), "float32", "C")
    f = make_func([A, C], lambda a, c: loop(56, lambda i: tir.BufferStore(c, a[i] + 1.0, [i]),
                                            F.VECTORIZED))
    g = vectorize_loop(f)
    widths = set()
    tir.post_order_visit(g.body, lambda n: widths.add(n.lanes) if isinstance(n, tir.Ramp) else None)
    assert widths == {32, 16, 8}
    mod = build_module(g)
    assert not re.search(r"<56 x float>", mod.ll)
    a = np.random.rand(56).astype("float32")
    c = np.zeros(56, "float32")
    mod(a, c)
    np.testing.assert_allclose(c, a + 1, rtol=1e-6)


@pytest.mark.parametrize("n", [1, 5, 63, 64, 65, 100, 130])
def test_guarded_tile_is_vectorized_with_scalar_fallback(n):
    # tiles of 64 over n elements: the last tile is partial, guarded by `likely(x < n)`
    A = te.placeholder((n,), name="A")
    C = te.compute((n,), lambda x: A[x] * 3.0, name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=64)
    s[C].vectorize(xi)
    mod = tepad.build(s, [A, C])
    if n > 64:   # the full tile and the in-bounds part of the partial one run as vectors
        assert re.search(r"fmul contract <\d+ x float>", mod.unoptimized_ll), \
            "a guarded tile should still get a vector body"
    a = np.random.rand(n).astype("float32")
    c = np.zeros(n, "float32")
    mod(a, c)
    np.testing.assert_allclose(c, a * 3, rtol=1e-6)


@pytest.mark.parametrize("w", [3, 4, 5, 7, 8])
def test_fused_split_tile_guarded_through_floordiv_is_vectorized(w):
    """``fuse(x, c)`` then ``split(64)`` over w x 16 int8 values: the partial last tile is
    guarded by ``xo * 4 + xi // 16 < w``, monotone in the lane though not affine. It gets a
    64-lane vector body plus the scalar fallback (it used to become a scalar loop with a
    div/mod per byte: 93 ms instead of 2.5 ms on the rolling pool chain)."""
    A = te.placeholder((w, 16), "int8", name="A")
    C = te.compute((w, 16), lambda x, c: A[x, c] + tir.const(1, "int8"), name="C")
    s = te.create_schedule(C.op)
    xc = s[C].fuse(*C.op.axis)
    _, xi = s[C].split(xc, factor=64)
    s[C].vectorize(xi)
    mod = tepad.build(s, [A, C])
    if w > 4:       # at least one tile: a full vector body exists
        assert "<64 x i8>" in mod.unoptimized_ll, "the guarded tile should get a vector body"
    a = np.random.default_rng(w).integers(-100, 100, (w, 16)).astype("int8")
    c = np.zeros((w, 16), "int8")
    mod(a, c)
    np.testing.assert_array_equal(c, a + 1)


def test_guard_monotonicity_is_read_from_the_form():
    from tepad.lower.passes.vectorize_loop import _convex_guard, _direction
    i, xo, n = tir.Var("i"), tir.Var("xo"), tir.Var("n")
    assert _direction(xo * 4 + tir.floordiv(i, 16), i) == 1
    assert _direction(tir.const(100) - tir.floordiv(i * 3, 2), i) == -1
    assert _direction(tir.floordiv(i, 4) - i, i) is None       # up and down: unknown
    assert _direction(tir.floormod(i, 16), i) is None
    assert _direction(i * n, i) is None                          # sign of n unknown
    assert _convex_guard(xo * 4 + tir.floordiv(i, 16) < n, i)
    assert not _convex_guard(tir.floordiv(i, 4) - i < n, i)
    assert not _convex_guard(tir.floordiv(i, 16) < tir.floormod(i, 5), i)


@pytest.mark.parametrize("guard, keep", [
    # i // 4 - i rises and falls: the lanes that pass need not be an interval
    (lambda i: tir.floordiv(i, 4) - i > -6, lambda k: k // 4 - k > -6),
    (lambda i: tir.floormod(i, 2) == 0, lambda k: k % 2 == 0),
], ids=["nonmonotone", "nonconvex"])
def test_guard_that_is_not_an_interval_is_not_widened(guard, keep):
    A, C = tir.Buffer((64,), "float32", "A"), tir.Buffer((64,), "float32", "C")

    def body(a, c):
        return loop(16, lambda i: tir.IfThenElse(guard(i), tir.BufferStore(c, a[i], [i])),
                    F.VECTORIZED)
    g = vectorize_loop(make_func([A, C], body))
    fors = []
    tir.post_order_visit(g.body, lambda n: fors.append(n) if isinstance(n, tir.For) else None)
    assert fors and fors[0].kind == F.SERIAL
    a = np.random.rand(64).astype("float32")
    c = np.zeros(64, "float32")
    build_module(g)(a, c)
    expect = np.zeros(64, "float32")
    kept = [k for k in range(16) if keep(k)]
    expect[kept] = a[kept]
    np.testing.assert_array_equal(c, expect)


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_dynamic_parallel_chunks_cover_every_iteration(threads, monkeypatch):
    monkeypatch.setattr(parallel, "PARALLEL_MIN_WORK", 0)   # small loop: still use the team
    A = tir.Buffer((1000,), "int32", "A")

    def body(a):
        return loop(1000, lambda i: tir.BufferStore(a, a[i] + i + 1, [i]), F.PARALLEL)
    mod = build_module(make_func([A], body), num_threads=threads)
    assert "tepad_parallel_hook" in mod.unoptimized_ll      # chunks claimed on the pool
    a = np.zeros(1000, "int32")
    mod(a)
    np.testing.assert_array_equal(a, np.arange(1, 1001))   # each iteration ran exactly once
