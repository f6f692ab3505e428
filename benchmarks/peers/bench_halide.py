#!/usr/bin/env python3
"""Peer benchmark: Halide running tepad's workloads W1-W6 with Halide's classic CPU schedules.

    pip install -e '.[bench]'            (or: pip install halide)
    HL_NUM_THREADS=2 python benchmarks/peers/bench_halide.py [--small] [W1 .. W6 INFO]

Written for the halide 21 wheel's Python bindings; pipelines are JIT-compiled with
``Func.compile_to_callable`` for ``get_jit_target_from_environment()`` (the host's features;
with ``$TEPAD_BENCH_ISA=avx2``, ``x86-64-linux-avx-avx2-f16c-fma-sse41``: AVX2 + FMA, every
pipeline's assembly checked for AVX-512, and W2 and W4 get variants whose register blocks
fit AVX2's 16 ymm registers).
``hl.Buffer(ndarray)`` wraps a C-ordered numpy array without a copy and with its axes reversed:
numpy's last axis is Halide's first (``x``), so every Halide index below is written innermost
first. Input and output extents and dense strides are declared, so the compiled code knows
them as constants, like the fixed-size kernels of the other implementations.

One JSON line per schedule variant (see ``peer_common.py``); compile_s is Func definition +
schedule + JIT compilation, the first build in the process included.
"""
from __future__ import annotations

import importlib.metadata
import os
import re
import tempfile

import halide as hl
import numpy as np

from peer_common import (aligned_zeros, check, check_assembly, isa, main, timed, w1_data,
                         w2_data, w3_data, w4_data, w5_data, w6_data)

PEER = "halide"
ISA = isa()
TARGET = (hl.Target("x86-64-linux-avx-avx2-f16c-fma-sse41") if ISA == "avx2"
          else hl.get_jit_target_from_environment())
F32 = hl.Float(32)


def dense(param, *extents):
    """Fix ``param``'s extents (innermost first) with a zero origin and dense strides."""
    stride = 1
    for dim, extent in enumerate(extents):
        param.dim(dim).set_bounds(0, extent).set_stride(stride)
        stride *= extent


def variables(names: str):
    return [hl.Var(v) for v in names.split()]


def compile_callable(func, params):
    """``func`` compiled for TARGET (for avx2, after checking that its assembly has no
    AVX-512)."""
    if ISA != "host":
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "kernel.s")
            func.compile_to_assembly(path, params, "kernel", TARGET)
            with open(path) as f:
                check_assembly(f.read(), f"halide {func.name()}", ISA)
    return func.compile_to_callable(params, TARGET)


def allocation_bytes(func, params, name) -> int | None:
    """Bytes of the allocation of Func ``name`` in the lowered statement (None if none).
    Loop partitioning can copy a loop body, and with it the allocation: the largest counts."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "lowered.stmt")
        func.compile_to_lowered_stmt(path, params, hl.StmtOutputFormat.Text, TARGET)
        with open(path) as f:
            text = f.read()
    largest = None
    # e.g. "allocate pool1[int8 * 16 * 1022 * 10]"
    for dtype, dims in re.findall(rf"allocate {name}\S*\[(\w+) \* ([0-9* ]+)\]", text):
        count = int(np.prod([int(d) for d in dims.split("*")]))
        largest = max(largest or 0, count * int(re.sub(r"\D", "", dtype)) // 8)
    return largest


# ------------------------------------------------------------------ INFO
def info(_sizes):
    def make():
        return None, dict(halide=importlib.metadata.version("halide"), numpy=np.__version__,
                          isa=ISA, target=str(TARGET), HL_NUM_THREADS=os.environ.get("HL_NUM_THREADS"))
    yield "versions", make


# ------------------------------------------------------------------ W1: fused elementwise
def w1(sizes):
    n = sizes["n"]
    a, b, ref = w1_data(n)

    def make():
        # classic elementwise schedule: strips of 16 rows in parallel, rows vectorized by 16
        def build():
            A, B = hl.ImageParam(F32, 2, "A"), hl.ImageParam(F32, 2, "B")
            x, y, strip, row = variables("x y strip row")
            out = hl.Func("out")
            out[x, y] = hl.max(A[x, y] * B[x, y] + hl.f32(1.0), hl.f32(0.0))
            out.split(y, strip, row, 16).parallel(strip).vectorize(x, 16)
            return compile_callable(out, [A, B])

        fn, secs = timed(build)
        c = np.zeros_like(a)
        bufs = (hl.Buffer(a), hl.Buffer(b), hl.Buffer(c))
        fn(*bufs)
        err = check(c, ref, rtol=1e-6, atol=1e-6)
        return (lambda: fn(*bufs)), dict(compile_s=secs, max_abs_err=err,
                                         rate=(3 * n * n * 4, "gbps"))
    yield "16-row strips parallel, vectorize 16", make


# ------------------------------------------------------------------ W2: matmul
def w2(sizes):
    n = sizes["n"]
    a, b, ref = w2_data(n)

    def build(packed, lanes=16, cols=32, rows=None):   # a tile row: cols / lanes vectors
        A, B = hl.ImageParam(F32, 2, "A"), hl.ImageParam(F32, 2, "B")
        x, y, xi, yi, yr, tile, p, kk, j = variables("x y xi yi yr tile p kk j")
        k = hl.RDom([hl.Range(0, n)], "k")
        acc, out = hl.Func("acc"), hl.Func("out")
        acc[x, y] = hl.f32(0.0)
        if packed:
            # B repacked as [n/32][k][32] column panels, read contiguously by the inner loop
            panels = hl.Func("panels")
            panels[j, kk, p] = B[p * cols + j, kk]
            acc[x, y] += A[k.x, y] * panels[x % cols, k.x, x // cols]
        else:
            acc[x, y] += A[k.x, y] * B[x, k.x]
        rows = rows or (8 if packed else 4)
        out[x, y] = acc[x, y]
        # the classic CPU matmul schedule: 32-row tiles in parallel, each computed as blocks of
        # `rows` x `cols` accumulators kept in registers, k innermost of the update
        (out.tile(x, y, xi, yi, cols, 32).fuse(x, y, tile).parallel(tile)
            .split(yi, yi, yr, rows).vectorize(xi, lanes).unroll(xi).unroll(yr))
        acc.compute_at(out, yi).vectorize(x, lanes).unroll(y)
        acc.update().reorder(x, y, k.x).vectorize(x, lanes).unroll(x).unroll(y)
        if packed:
            panels.compute_root().parallel(p).vectorize(j, lanes)
        out.bound(x, 0, n).bound(y, 0, n)
        dense(A, n, n)
        dense(B, n, n)
        return compile_callable(out, [A, B])

    def variant(packed, *shape):
        def make():
            fn, secs = timed(lambda: build(packed, *shape))
            c = np.zeros((n, n), np.float32)
            bufs = (hl.Buffer(a), hl.Buffer(b), hl.Buffer(c))
            fn(*bufs)
            check(c, ref, rtol=1e-4, atol=1e-3)
            return (lambda: fn(*bufs)), dict(compile_s=secs, rate=(2 * n ** 3, "gflops"))
        return make

    yield "tile 32x32, 4x32 register block, B unpacked (classic)", variant(False)
    yield "tile 32x32, 8x32 register block, B packed [N/32][K][32]", variant(True)
    if ISA == "avx2":   # 16 ymm registers: 4 or 8 rows x two ymm of accumulators
        yield "tile 16x32, 4x16 register block, B packed [N/16][K][16] (AVX2)", \
            variant(True, 8, 16, 4)
        yield "tile 16x32, 8x16 register block, B packed [N/16][K][16] (AVX2)", \
            variant(True, 8, 16, 8)


# ------------------------------------------------------------------ W3: two-stage blur
def w3(sizes):
    n = sizes["n"]
    a, ref = w3_data(n)

    def build(at_tile, lanes):
        inp = hl.ImageParam(F32, 2, "inp")
        x, y, xi, yi = variables("x y xi yi")
        third = hl.f32(1.0 / 3.0)
        bx, by = hl.Func("blur_x"), hl.Func("blur_y")
        bx[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) * third
        by[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) * third
        if at_tile:
            # Halide's classic blur schedule: 256x32 tiles, tile rows in parallel, blur_x
            # computed per tile
            by.tile(x, y, xi, yi, 256, 32).vectorize(xi, lanes).parallel(y)
            bx.compute_at(by, x).vectorize(x, lanes)
        else:
            # both stages over the whole image, strips of 16 rows in parallel
            by.vectorize(x, lanes).parallel(y, 16)
            bx.compute_root().vectorize(x, lanes).parallel(y, 16)
        dense(inp, n, n)
        by.bound(x, 0, n - 2).bound(y, 0, n - 2)
        return compile_callable(by, [inp]), by, inp

    def variant(at_tile, lanes):
        def make():
            (fn, func, inp), secs = timed(lambda: build(at_tile, lanes))
            c = np.zeros((n - 2, n - 2), np.float32)
            bufs = (hl.Buffer(a), hl.Buffer(c))
            fn(*bufs)
            check(c, ref, rtol=1e-5, atol=1e-6)
            return (lambda: fn(*bufs)), dict(
                compile_s=secs, intermediate_bytes=allocation_bytes(func, [inp], "blur_x"),
                rate=((n * n + (n - 2) ** 2) * 4, "gbps"))
        return make

    yield "classic: tile 256x32, vec 8, parallel y, blur_x compute_at x", variant(True, 8)
    yield "classic schedule with vec 16", variant(True, 16)
    yield "both stages root (full intermediate), vec 16", variant(False, 16)


# ------------------------------------------------------------------ W4: conv2d
def w4(sizes):
    c, k, h, w = sizes["c"], sizes["k"], sizes["h"], sizes["w"]
    x, wt, ref = w4_data(c, k, h, w)

    def build(oc_vectorized, ob=16, xb=8):
        X = hl.ImageParam(F32, 4, "X")      # numpy (1, c, h, w) seen as [x, y, c, n]
        Wt = hl.ImageParam(F32, 4, "Wt")    # numpy (k, c, 3, 3) seen as [dx, dy, c, k]
        xv, yv, cv, kv, nv = variables("x y c k n")
        ko, ki, xo, xi, t = variables("ko ki xo xi t")
        pad = hl.Func("pad")                # zero border of 1, materialized
        inside = (xv >= 1) & (xv <= w) & (yv >= 1) & (yv <= h)
        pad[xv, yv, cv, nv] = hl.select(
            inside, X[hl.clamp(xv - 1, 0, w - 1), hl.clamp(yv - 1, 0, h - 1), cv, nv], hl.f32(0))
        r = hl.RDom([hl.Range(0, 3), hl.Range(0, 3), hl.Range(0, c)], "r")   # dx, dy, channel
        acc, out = hl.Func("acc"), hl.Func("out")
        if oc_vectorized:
            # weights repacked as [ob oc][dx][dy][c][k/ob]; the accumulator is channel-innermost
            # so that ob (16) output channels x xb (8) positions of x sit in vector registers
            wp = hl.Func("wpack")
            a0, a1, a2, a3, a4 = variables("a0 a1 a2 a3 a4")
            wp[a0, a1, a2, a3, a4] = Wt[a1, a2, a3, a4 * ob + a0]
            acc[kv, xv, yv, nv] = hl.f32(0)
            acc[kv, xv, yv, nv] += (pad[xv + r.x, yv + r.y, r.z, nv]
                                    * wp[kv % ob, r.x, r.y, r.z, kv // ob])
            out[xv, yv, kv, nv] = acc[kv, xv, yv, nv]
            (out.split(kv, ko, ki, ob).split(xv, xo, xi, xb).reorder(ki, xi, xo, yv, ko, nv)
                .fuse(yv, ko, t).parallel(t).vectorize(ki).unroll(xi))
            acc.compute_at(out, xo).vectorize(kv, ob).unroll(xv)
            acc.update().reorder(kv, xv, r.x, r.y, r.z, yv).vectorize(kv, ob).unroll(xv)
            wp.compute_root().vectorize(a0, ob)
        else:
            # x vectorized by 8, 4 output channels per block, one row of the output per task
            acc[xv, yv, kv, nv] = hl.f32(0)
            acc[xv, yv, kv, nv] += pad[xv + r.x, yv + r.y, r.z, nv] * Wt[r.x, r.y, r.z, kv]
            out[xv, yv, kv, nv] = acc[xv, yv, kv, nv]
            (out.split(kv, ko, ki, 4).reorder(xv, ki, yv, ko, nv).fuse(yv, ko, t).parallel(t)
                .vectorize(xv, 8).unroll(ki))
            acc.compute_at(out, t).vectorize(xv, 8).unroll(kv)
            acc.update().reorder(xv, kv, r.x, r.y, r.z, yv).vectorize(xv, 8).unroll(xv).unroll(kv)
        pad.compute_root().parallel(cv).vectorize(xv, 8)
        dense(X, w, h, c, 1)
        dense(Wt, 3, 3, c, k)
        out.bound(xv, 0, w).bound(yv, 0, h).bound(kv, 0, k).bound(nv, 0, 1)
        return compile_callable(out, [X, Wt])

    def variant(oc_vectorized, *block):
        def make():
            fn, secs = timed(lambda: build(oc_vectorized, *block))
            o = np.zeros((1, k, h, w), np.float32)
            bufs = (hl.Buffer(x), hl.Buffer(wt), hl.Buffer(o))
            fn(*bufs)
            check(o, ref, rtol=1e-4, atol=1e-4)
            return (lambda: fn(*bufs)), dict(
                compile_s=secs, rate=(2 * k * c * 9 * h * w, "gflops"),
                notes="pad stage compute_root; the weight repacking (oc-vectorized) is inside "
                      "the timed call")
        return make

    yield "x-vectorized (4 oc x 7x8 x), NCHW weights", variant(False)
    yield "oc-vectorized (16 oc x 8 x), packed weights", variant(True)
    if ISA == "avx2":   # one ymm of output channels: xb accumulators of 16 ymm registers
        yield "oc-vectorized (8 oc x 7 x), packed weights (AVX2)", variant(True, 8, 7)
        yield "oc-vectorized (8 oc x 14 x), packed weights (AVX2)", variant(True, 8, 14)


# ------------------------------------------------------------------ W5: row sums
def w5(sizes):
    rows, cols = sizes["rows"], sizes["cols"]
    a, a_padded, ref = w5_data(rows, cols)

    def build(padded):
        i, io, ii = variables("i io ii")
        out = hl.Func("B")
        out[i] = hl.f32(0)
        if padded:
            # Halide has no padded layout transform: the (rows, 4, 4) zero-padded layout is
            # an input of its own, summed whole (no branch by construction)
            A = hl.ImageParam(F32, 3, "A")
            r = hl.RDom([hl.Range(0, 4), hl.Range(0, 4)], "r")
            out[i] += A[r.x, r.y, i]
            dense(A, 4, 4, rows)
        else:
            A = hl.ImageParam(F32, 2, "A")
            r = hl.RDom([hl.Range(0, cols)], "r")
            out[i] += A[r.x, i]
            dense(A, cols, rows)
        # rows vectorized by 16 (the row index is the vector lane), blocks of 2048 rows in
        # parallel
        out.vectorize(i, 16)
        out.update().split(i, io, ii, 2048).parallel(io).vectorize(ii, 16)
        out.bound(i, 0, rows)
        return compile_callable(out, [A])

    def variant(padded):
        def make():
            fn, secs = timed(lambda: build(padded))
            # the compiled code stores whole 64-byte vectors with aligned stores: numpy's
            # 16-byte alignment is not enough for the output
            o = aligned_zeros((rows,))
            bufs = (hl.Buffer(a_padded if padded else a), hl.Buffer(o))
            fn(*bufs)
            check(o, ref, rtol=1e-5)
            return (lambda: fn(*bufs)), dict(compile_s=secs)
        return make

    yield f"A ({rows},{cols}), RDom {cols}, vectorize i 16", variant(False)
    yield (f"zero-padded ({rows},4,4), RDom 4x4 (branch-free by construction)", variant(True))


# ------------------------------------------------------------------ W6: two chained max-pools
def w6(sizes):
    h, w, ch, tile, strip = sizes["h"], sizes["w"], sizes["ch"], sizes["tile"], sizes["strip"]
    x, ref = w6_data(h, w, ch)

    def window_max(f, c, xx, yy):
        best = f[c, xx, yy]
        for dy in range(3):
            for dx in range(3):
                if dy or dx:
                    best = hl.max(best, f[c, xx + dx, yy + dy])
        return best

    def build(kind):
        X = hl.ImageParam(hl.Int(8), 3, "X")   # numpy (h, w, ch) seen as [c, x, y]
        c, xx, yy, yo, yi, ys = variables("c x y yo yi ys")
        p1, p2 = hl.Func("pool1"), hl.Func("pool2")
        p1[c, xx, yy] = window_max(X, c, xx, yy)
        p2[c, xx, yy] = window_max(p1, c, xx, yy)
        p1.vectorize(c, 16)
        p2.vectorize(c, 16)
        if kind == "sliding":
            # storage at the root, computation per tile: Halide's sliding window computes each
            # row of pool1 once, and storage folding shrinks the buffer to a circular one
            p2.split(yy, yo, yi, tile)
            p1.store_root().compute_at(p2, yo)
        elif kind == "folded":
            p2.split(yy, yo, yi, tile)
            p1.store_root().compute_at(p2, yo).fold_storage(yy, 16)
        elif kind == "strips":
            # parallel strips; a sliding window inside each strip
            p2.split(yy, ys, yy, strip).parallel(ys).split(yy, yo, yi, tile)
            p1.store_at(p2, ys).compute_at(p2, yo)
        elif kind == "recompute":
            p2.split(yy, yo, yi, tile).parallel(yo)
            p1.compute_at(p2, yo)
        else:
            p2.parallel(yy, 8)
            p1.compute_root().parallel(yy, 8)
        dense(X, ch, w, h)
        p2.output_buffer().dim(0).set_bounds(0, ch)
        p2.bound(xx, 0, w - 4).bound(yy, 0, h - 4)
        return compile_callable(p2, [X]), p2, X

    def variant(kind):
        def make():
            (fn, func, X), secs = timed(lambda: build(kind))
            o = np.zeros((h - 4, w - 4, ch), np.int8)
            bufs = (hl.Buffer(x[0]), hl.Buffer(o))
            fn(*bufs)
            check(o, ref[0], rtol=0, exact=True)
            return (lambda: fn(*bufs)), dict(
                compile_s=secs, intermediate_bytes=allocation_bytes(func, [X], "pool1"))
        return make

    yield (f"store_root + compute_at {tile}-row tile (sliding window), serial", variant("sliding"))
    yield "store_root + compute_at + fold_storage(y,16), serial", variant("folded")
    yield (f"{strip}-row parallel strips, store_at strip + compute_at {tile}-row tile",
           variant("strips"))
    yield f"compute_at {tile}-row tile, recompute overlap, parallel", variant("recompute")
    yield "pool1 compute_root (full intermediate), parallel", variant("root")


WORKLOADS = {"INFO": info, "W1": w1, "W2": w2, "W3": w3, "W4": w4, "W5": w5, "W6": w6}

if __name__ == "__main__":
    raise SystemExit(main(PEER, WORKLOADS))
