#!/usr/bin/env python3
"""Peer benchmark: Apache TVM running tepad's workloads W1-W6 with TVM's classic CPU schedules.

    pip install -e '.[bench]'            (or: pip install apache-tvm)
    TVM_NUM_THREADS=2 python benchmarks/peers/bench_tvm.py [--small] [W1 .. W6 INFO]

Written for apache-tvm 0.27 (the current PyPI wheel): the tensor expressions are TE
(``tvm.te``), turned into a PrimFunc with ``te.create_prim_func`` and scheduled with the
TensorIR schedule (``tvm.s_tir.Schedule``; blocks are fetched with ``get_sblock``; the IR
namespace is ``tvm.tirx``). The TE-level ``create_schedule`` is gone from 0.27, so each
schedule below is the TensorIR spelling of the schedule TVM's tutorials and the usual CPU
recipes give for that kind of kernel. The target is LLVM for the host CPU, whose name is
asked from LLVM (the wheel's LLVM rejects ``-mcpu=native``); with ``$TEPAD_BENCH_ISA=avx2``
it is ``{"kind": "llvm", "mcpu": "haswell"}`` (AVX2 + FMA; every compiled kernel's assembly
is checked for AVX-512), and W2 and W4 get variants whose register blocks fit AVX2's 16
ymm registers.

One JSON line per schedule variant (see ``peer_common.py``); compile_s is TE definition +
schedule + ``tvm.compile``, the first build in the process included (it pays for TVM's lazy
initialization).
"""
from __future__ import annotations

import re

import numpy as np
import tvm
from tvm import s_tir, te, tirx

from peer_common import (main, w1_data, w2_data, w3_data, w4_data, w5_data, w6_data, check,
                         check_assembly, isa, timed)

PEER = "tvm"
HOST_CPU = tvm.get_global_func("target.llvm_get_system_cpu")()
ISA = isa()
MCPU = {"host": HOST_CPU, "avx2": "haswell"}[ISA]
TARGET = tvm.target.Target({"kind": "llvm", "mcpu": MCPU})
DEV = tvm.cpu()
F32 = "float32"


def f32(value):
    return tirx.const(value, F32)


def on_device(array):
    return tvm.runtime.tensor(np.ascontiguousarray(array), DEV)


def compile_schedule(sch):
    """The scheduled module compiled for TARGET; returns its entry function (for avx2, after
    checking that its assembly has no AVX-512)."""
    exe = tvm.compile(sch.mod, target=TARGET)
    if ISA != "host":
        check_assembly(exe.mod.inspect_source("asm"), "tvm kernel", ISA)
    return exe["main"]


def lowered_allocations(sch) -> dict:
    """{buffer name: bytes} of the allocations in the module as it reaches MakePackedAPI
    (fully lowered and flattened: every intermediate is a flat ``T.alloc_buffer``)."""
    seen = []

    @tvm.instrument.pass_instrument
    class Grab:
        def run_before_pass(self, mod, info):
            if not seen and info.name.endswith("MakePackedAPI"):
                seen.append(mod.script())

    with tvm.transform.PassContext(instruments=[Grab()]):
        tvm.compile(sch.mod, target=TARGET)
    found = {}
    for name, extent, dtype in re.findall(   # TVMScript leaves the dtype out for float32
            r"(\w+) = T\.alloc_buffer\(\((\d+),\)(?:, \"(\w+)\")?", seen[0] if seen else ""):
        bits = int(re.sub(r"\D", "", dtype or "float32"))
        found[name] = max(found.get(name, 0), int(extent) * bits // 8)   # copies: largest
    return found


# ------------------------------------------------------------------ INFO
def info(_sizes):
    import importlib.metadata as md

    def make():
        return None, dict(tvm=tvm.__version__, apache_tvm=md.version("apache-tvm"),
                          numpy=np.__version__, llvm_cpu=HOST_CPU, isa=ISA, target=str(TARGET))
    yield "versions", make


# ------------------------------------------------------------------ W1: fused elementwise
def w1(sizes):
    n = sizes["n"]
    a, b, ref = w1_data(n)

    def make():
        # classic elementwise schedule: rows in parallel, the row split by 16 and vectorized
        def build():
            A = te.placeholder((n, n), F32, name="A")
            B = te.placeholder((n, n), F32, name="B")
            C = te.compute((n, n), lambda i, j: te.max(A[i, j] * B[i, j] + f32(1.0), f32(0.0)),
                           name="C")
            sch = s_tir.Schedule(te.create_prim_func([A, B, C]))
            rows, cols = sch.get_loops(sch.get_sblock("C"))
            _, lanes = sch.split(cols, [None, 16])
            sch.vectorize(lanes)
            sch.parallel(rows)
            return compile_schedule(sch)

        fn, secs = timed(build)
        ta, tb, tc = on_device(a), on_device(b), on_device(np.zeros_like(a))
        fn(ta, tb, tc)
        err = check(tc.numpy(), ref, rtol=1e-6, atol=1e-6)
        return (lambda: fn(ta, tb, tc)), dict(compile_s=secs, max_abs_err=err,
                                              rate=(3 * n * n * 4, "gbps"))
    yield "parallel rows, vectorize 16", make


# ------------------------------------------------------------------ W2: matmul
def w2(sizes):
    n = sizes["n"]
    a, b, ref = w2_data(n)

    def build(register_rows, panel=32):   # panel: columns of B per packed panel, of C per tile
        A = te.placeholder((n, n), F32, name="A")
        B = te.placeholder((n, n), F32, name="B")
        k = te.reduce_axis((0, n), "k")
        # B repacked into column panels, [n/32][k][32]: the inner loop reads it contiguously
        packed = te.compute((n // panel, n, panel), lambda p, kk, j: B[kk, p * panel + j],
                            name="packedB")
        C = te.compute((n, n), lambda i, j: te.sum(
            A[i, k] * packed[j // panel, k, tirx.indexmod(j, panel)], axis=k), name="C")
        sch = s_tir.Schedule(te.create_prim_func([A, B, C]))
        blk = sch.get_sblock("C")
        i, j, kk = sch.get_loops(blk)
        i_tile, i_in = sch.split(i, [None, 32])
        j_tile, j_in = sch.split(j, [None, panel])
        k_out, k_in = sch.split(kk, [None, 4])
        if register_rows:
            # rows of the tile in groups held in registers (register_rows x panel accumulators)
            i_grp, i_reg = sch.split(i_in, [None, register_rows])
            sch.reorder(i_tile, j_tile, i_grp, k_out, k_in, i_reg, j_in)
            sch.unroll(i_reg)
        else:
            # the tutorial's loop order: 32x32 tile, k split by 4, columns innermost
            sch.reorder(i_tile, j_tile, k_out, i_in, k_in, j_in)
        out_tile = sch.cache_write(blk, 0, "global")      # accumulate in a tile-local buffer
        sch.reverse_compute_at(out_tile, j_tile)
        sch.vectorize(sch.get_loops(out_tile)[-1])
        sch.unroll(k_in)
        sch.vectorize(j_in)
        sch.parallel(i_tile)
        sch.decompose_reduction(blk, k_out)
        p, _, lanes = sch.get_loops(sch.get_sblock("packedB"))
        sch.parallel(p)
        sch.vectorize(lanes)
        return compile_schedule(sch)

    def variant(register_rows, panel=32):
        def make():
            fn, secs = timed(lambda: build(register_rows, panel))
            ta, tb, tc = on_device(a), on_device(b), on_device(np.zeros((n, n), np.float32))
            fn(ta, tb, tc)
            check(tc.numpy(), ref, rtol=1e-4, atol=1e-3)
            return (lambda: fn(ta, tb, tc)), dict(compile_s=secs, rate=(2 * n ** 3, "gflops"))
        return make

    yield "tile32x32 k4, packed B, cache_write (tutorial)", variant(0)
    yield "tile32x32 k4, packed B, 8x32 register block", variant(8)
    if ISA == "avx2":   # 16 ymm registers: 4 or 8 rows x two ymm of accumulators
        yield "tile32x16 k4, packed B 16 wide, 4x16 register block (AVX2)", variant(4, 16)
        yield "tile32x16 k4, packed B 16 wide, 8x16 register block (AVX2)", variant(8, 16)


# ------------------------------------------------------------------ W3: two-stage blur
def w3(sizes):
    n = sizes["n"]
    a, ref = w3_data(n)

    def build(at_tile, lanes):
        third = f32(1.0 / 3.0)
        I = te.placeholder((n, n), F32, name="I")
        bx = te.compute((n, n - 2), lambda y, x: (I[y, x] + I[y, x + 1] + I[y, x + 2]) * third,
                        name="blur_x")
        by = te.compute((n - 2, n - 2),
                        lambda y, x: (bx[y, x] + bx[y + 1, x] + bx[y + 2, x]) * third,
                        name="blur_y")
        sch = s_tir.Schedule(te.create_prim_func([I, by]))
        bx_blk, by_blk = sch.get_sblock("blur_x"), sch.get_sblock("blur_y")
        if at_tile:
            # the classic blur schedule: 256 x 32 tiles of blur_y, tile rows in parallel,
            # blur_x computed per tile (its 2 extra rows recomputed by the next tile)
            y, x = sch.get_loops(by_blk)
            y_tile, y_in = sch.split(y, [None, 32])
            x_tile, x_in = sch.split(x, [None, 256])
            sch.reorder(y_tile, x_tile, y_in, x_in)
            sch.vectorize(sch.split(x_in, [None, lanes])[1])
            sch.parallel(y_tile)
            sch.compute_at(bx_blk, x_tile)
            sch.vectorize(sch.split(sch.get_loops(bx_blk)[-1], [None, lanes])[1])
        else:
            # both stages over the whole image, rows in parallel
            for blk in (bx_blk, by_blk):
                y, x = sch.get_loops(blk)
                sch.vectorize(sch.split(x, [None, lanes])[1])
                sch.parallel(y)
        return compile_schedule(sch), sch

    def variant(at_tile, lanes):
        def make():
            (fn, sch), secs = timed(lambda: build(at_tile, lanes))
            ti, to = on_device(a), on_device(np.zeros((n - 2, n - 2), np.float32))
            fn(ti, to)
            check(to.numpy(), ref, rtol=1e-5, atol=1e-6)
            return (lambda: fn(ti, to)), dict(
                compile_s=secs, allocations=lowered_allocations(sch),
                rate=((n * n + (n - 2) ** 2) * 4, "gbps"))
        return make

    yield "tile 256x32, vec 8, parallel, blur_x compute_at tile", variant(True, 8)
    yield "tile 256x32, vec 16, parallel, blur_x compute_at tile", variant(True, 16)
    yield "both stages root (full intermediate), vec 16", variant(False, 16)


# ------------------------------------------------------------------ W4: conv2d
def w4_prim_func(c, k, h, w, ocb=None):
    """W4's conv2d as a PrimFunc of (X, Wt, conv): the zero-padded input is the block
    ``pad``; ``ocb``: the weights repacked to [k/ocb][c][3][3][ocb] (block ``wpack``, ocb
    output channels side by side), None: read as given."""
    X = te.placeholder((1, c, h, w), F32, name="X")
    Wt = te.placeholder((k, c, 3, 3), F32, name="Wt")
    pad = te.compute((1, c, h + 2, w + 2), lambda b, ci, yy, xx: te.if_then_else(
        te.all(yy >= 1, yy <= h, xx >= 1, xx <= w), X[b, ci, yy - 1, xx - 1], f32(0.0)),
        name="pad")
    rc = te.reduce_axis((0, c), "rc")
    ry = te.reduce_axis((0, 3), "ry")
    rx = te.reduce_axis((0, 3), "rx")
    if ocb:
        wpack = te.compute((k // ocb, c, 3, 3, ocb),
                           lambda fo, ci, dy, dx, fi: Wt[fo * ocb + fi, ci, dy, dx],
                           name="wpack")
        weight = (lambda f: wpack[f // ocb, rc, ry, rx, tirx.indexmod(f, ocb)])
    else:
        weight = (lambda f: Wt[f, rc, ry, rx])
    out = te.compute((1, k, h, w), lambda b, f, yy, xx: te.sum(
        pad[b, rc, yy + ry, xx + rx] * weight(f), axis=[rc, ry, rx]), name="conv")
    return te.create_prim_func([X, Wt, out])


def w4(sizes):
    c, k, h, w = sizes["c"], sizes["k"], sizes["h"], sizes["w"]
    x, wt, ref = w4_data(c, k, h, w)

    def build(oc_vectorized, ocb=16, xb=14):
        sch = s_tir.Schedule(w4_prim_func(c, k, h, w, ocb if oc_vectorized else None))
        conv = sch.get_sblock("conv")
        b, f, yy, xx, rc_l, ry_l, rx_l = sch.get_loops(conv)
        if oc_vectorized:
            # NCHW[16c]-style: xb x positions x ocb output channels accumulated in registers,
            # the accumulator laid out channel-innermost
            f_out, f_in = sch.split(f, [None, ocb])
            x_out, x_in = sch.split(xx, [None, xb])
            sch.reorder(b, f_out, yy, x_out, rc_l, ry_l, rx_l, x_in, f_in)
            acc = sch.cache_write(conv, 0, "global")
            sch.reverse_compute_at(acc, x_out)
            sch.transform_layout(conv, ("write", 0), lambda b_, f_, y_, x_: (b_, y_, x_, f_))
            sch.vectorize(f_in)
            sch.unroll(x_in)
            sch.parallel(sch.fuse(f_out, yy))
            init = sch.decompose_reduction(conv, rc_l)
            sch.vectorize(sch.get_loops(init)[-1])
            sch.vectorize(sch.get_loops(sch.get_sblock("wpack"))[-1])
        else:
            # 4 output channels x (row in vectors of 8 along x) accumulated in registers
            f_out, f_in = sch.split(f, [None, 4])
            x_out, x_in = sch.split(xx, [None, 8])
            sch.reorder(b, f_out, yy, rc_l, ry_l, rx_l, f_in, x_out, x_in)
            acc = sch.cache_write(conv, 0, "global")
            sch.reverse_compute_at(acc, yy)
            sch.vectorize(x_in)
            sch.unroll(x_out)
            sch.unroll(f_in)
            sch.parallel(sch.fuse(f_out, yy))
            init = sch.decompose_reduction(conv, rc_l)
            sch.vectorize(sch.get_loops(init)[-1])
            sch.vectorize(sch.split(sch.get_loops(acc)[-1], [None, 8])[1])
        sch.parallel(sch.get_loops(sch.get_sblock("pad"))[1])   # pad materialized, by channel
        return compile_schedule(sch)

    def variant(oc_vectorized, ocb=16, xb=14):
        def make():
            fn, secs = timed(lambda: build(oc_vectorized, ocb, xb))
            tx, tw = on_device(x), on_device(wt)
            to = on_device(np.zeros((1, k, h, w), np.float32))
            fn(tx, tw, to)
            check(to.numpy(), ref, rtol=1e-4, atol=1e-4)
            return (lambda: fn(tx, tw, to)), dict(
                compile_s=secs, rate=(2 * k * c * 9 * h * w, "gflops"),
                notes="pad stage materialized; the weight repacking (oc-vectorized) is inside "
                      "the timed call")
        return make

    yield "x-vectorized (4 oc x 7x8 x), NCHW weights", variant(False)
    yield "oc-vectorized (16 oc x 14 x), packed weights [K/16,C,3,3,16]", variant(True)
    if ISA == "avx2":   # one ymm of output channels: xb accumulators of 16 ymm registers
        yield "oc-vectorized (8 oc x 7 x), packed weights [K/8,C,3,3,8] (AVX2)", \
            variant(True, 8, 7)
        yield "oc-vectorized (8 oc x 14 x), packed weights [K/8,C,3,3,8] (AVX2)", \
            variant(True, 8, 14)


# ------------------------------------------------------------------ W5: row sums, padded layout
def w5(sizes):
    rows, cols = sizes["rows"], sizes["cols"]
    a, a_padded, ref = w5_data(rows, cols)

    def build(kind):
        if kind == "stated-padded":
            # the reduction written by hand over the zero-padded (rows, 4, 4) layout
            A = te.placeholder((rows, 4, 4), F32, name="A")
            jo = te.reduce_axis((0, 4), "jo")
            ji = te.reduce_axis((0, 4), "ji")
            B = te.compute((rows,), lambda i: te.sum(A[i, jo, ji], axis=[jo, ji]), name="B")
        else:
            A = te.placeholder((rows, cols), F32, name="A")
            j = te.reduce_axis((0, cols), "j")
            B = te.compute((rows,), lambda i: te.sum(A[i, j], axis=j), name="B")
        sch = s_tir.Schedule(te.create_prim_func([A, B]))
        blk = sch.get_sblock("B")
        if kind == "transform-layout":
            # RFC 0077's example with TVM's own primitive: A's layout becomes [i, j//4, j%4]
            # padded with zeros; splitting j by 4 leaves a predicate (T.where) in the loop
            sch.transform_layout(blk, ("read", 0), lambda i, jj: (i, jj // 4, jj % 4),
                                 pad_value=0.0)
            sch.split(sch.get_loops(blk)[1], [None, 4])
        halves, _ = sch.split(sch.get_loops(blk)[0], [2, None])
        sch.parallel(halves)
        return compile_schedule(sch)

    def variant(kind):
        def make():
            fn, secs = timed(lambda: build(kind))
            ta = on_device(a if kind == "plain" else a_padded)
            tb = on_device(np.zeros(rows, np.float32))
            fn(ta, tb)
            check(tb.numpy(), ref, rtol=1e-5)
            return (lambda: fn(ta, tb)), dict(compile_s=secs)
        return make

    yield f"no layout change, A ({rows},{cols})", variant("plain")
    yield ("transform_layout [i,j//4,j%4] pad_value=0, split j -> T.where (branchy)",
           variant("transform-layout"))
    yield f"hand-stated reduction over padded ({rows},4,4) (branch-free)", variant("stated-padded")


# ------------------------------------------------------------------ W6: two chained max-pools
def w6(sizes):
    h, w, ch, tile = sizes["h"], sizes["w"], sizes["ch"], sizes["tile"]
    x, ref = w6_data(h, w, ch)

    def pool(T, shape, name):
        def window_max(b, yy, xx, cc):
            best = T[b, yy, xx, cc]
            for dy in range(3):
                for dx in range(3):
                    if dy or dx:
                        best = te.max(best, T[b, yy + dy, xx + dx, cc])
            return best
        return te.compute(shape, window_max, name=name)

    def build(kind):
        X = te.placeholder((1, h, w, ch), "int8", name="X")
        p1 = pool(X, (1, h - 2, w - 2, ch), "pool1")
        p2 = pool(p1, (1, h - 4, w - 4, ch), "pool2")
        sch = s_tir.Schedule(te.create_prim_func([X, p2]))
        b1, b2 = sch.get_sblock("pool1"), sch.get_sblock("pool2")
        y_tile, _ = sch.split(sch.get_loops(b2)[1], [None, tile])
        if kind != "root":
            sch.compute_at(b1, y_tile)          # pool1's rows for one tile of pool2
        for blk in (b2, b1):                     # (x, channel) fused, 32 int8 lanes
            loops = sch.get_loops(blk)
            sch.vectorize(sch.split(sch.fuse(loops[-2], loops[-1]), [None, 32])[1])
        if kind == "rolling":
            sch.rolling_buffer(b1, 0)            # TVM's rolling_buffer: the tile loop stays serial
        elif kind == "recompute":
            sch.parallel(y_tile)
        else:
            sch.parallel(sch.get_loops(b1)[1])
            sch.parallel(y_tile)
        return compile_schedule(sch), sch

    def variant(kind):
        def make():
            (fn, sch), secs = timed(lambda: build(kind))
            tx, to = on_device(x), on_device(np.zeros((1, h - 4, w - 4, ch), np.int8))
            fn(tx, to)
            check(to.numpy(), ref, rtol=0, exact=True)
            allocs = lowered_allocations(sch)
            return (lambda: fn(tx, to)), dict(compile_s=secs, allocations=allocs,
                                              intermediate_bytes=allocs.get("pool1"))
        return make

    yield f"rolling_buffer (pool1 compute_at {tile}-row tile, serial)", variant("rolling")
    yield f"compute_at {tile}-row tile, recompute overlap, parallel", variant("recompute")
    yield "pool1 root (full intermediate), parallel", variant("root")


WORKLOADS = {"INFO": info, "W1": w1, "W2": w2, "W3": w3, "W4": w4, "W5": w5, "W6": w6}

if __name__ == "__main__":
    raise SystemExit(main(PEER, WORKLOADS))
