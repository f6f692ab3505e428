"""rolling_buffer benchmark: two chained 3x3 max-pools on an int8 (1, 1024, 1024, 16) NHWC
tensor, the second pool tiled by rows of 8.

Variants (all single-threaded, channels vectorized):
  root        the first pool computed at the root: the whole intermediate is materialized
  tiled       the first pool computed at the second pool's row tile: 10 rows per tile, the
              2 overlap rows recomputed by the next tile (25 % extra work on the first pool)
  rolling     tiled + rolling_buffer(): the same 10-row buffer, used circularly; each row of
              the intermediate is computed once
  numpy       np.maximum over shifted slices (vectorized numpy, reference timing)

``rolling_markdown()`` returns the results table (medians of >= 10 runs); run as a script to
print it. Sizes can be reduced with the environment variable ``BENCH_ROLLING_H`` (rows).
"""
from __future__ import annotations

import os
import statistics
import time

import numpy as np

import tepad
from tepad import te
from tepad.tir import dtype as dt
from tepad.tir.functor import post_order_visit
from tepad.tir.stmt import Allocate

H = int(os.environ.get("BENCH_ROLLING_H", 1024))
W = 1024
CH = 16
TILE = 8
RUNS = 10


def _pool(X, name):
    r0 = te.reduce_axis((0, 3), name + "_ry")
    r1 = te.reduce_axis((0, 3), name + "_rx")
    n, h, w, c = (int(x) for x in X.shape)
    return te.compute((n, h - 2, w - 2, c),
                      lambda b, y, x, ch: te.max(X[b, y + r0, x + r1, ch], axis=[r0, r1]),
                      name=name)


def schedule(variant, h=H, w=W):
    A = te.placeholder((1, h, w, CH), "int8", name="A")
    B = _pool(A, "B")
    C = _pool(B, "C")
    s = te.create_schedule(C.op)
    n, y, x, c = C.op.axis
    ry, rx = C.op.reduce_axis
    bn, by, bx, bc = B.op.axis
    bry, brx = B.op.reduce_axis
    if variant == "root":
        s[C].reorder(n, y, x, ry, rx, c)
    else:
        yo, yi = s[C].split(y, factor=TILE)
        s[C].reorder(n, yo, yi, x, ry, rx, c)
        s[B].compute_at(s[C], yo)
        if variant == "rolling":
            s[B].rolling_buffer()
    s[C].vectorize(c)
    s[B].reorder(bn, by, bx, bry, brx, bc)
    s[B].vectorize(bc)
    return s, [A, C]


def intermediate_bytes(func):
    """Bytes of every Allocate in the lowered function (the intermediate buffers)."""
    total = 0

    def f(n):
        nonlocal total
        if isinstance(n, Allocate):
            k = 1
            for e in n.extents:
                k *= int(e)
            total += k * dt.parse(n.dtype).bits // 8
    post_order_visit(func.body, f)
    return total


def numpy_pools(a):
    def pool(x):
        hh, ww = x.shape[1] - 2, x.shape[2] - 2
        out = x[:, 0:hh, 0:ww]
        for dy in range(3):
            for dx in range(3):
                if dy or dx:
                    out = np.maximum(out, x[:, dy:dy + hh, dx:dx + ww])
        return out
    return pool(pool(a))


def _median_time(fn, runs=RUNS):
    fn()                                   # warm-up
    ts = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def run(runs=RUNS, h=H, w=W):
    rng = np.random.default_rng(0)
    a = rng.integers(-128, 128, size=(1, h, w, CH)).astype("int8")
    ref = numpy_pools(a)
    rows = []
    for variant in ("root", "tiled", "rolling"):
        s, args = schedule(variant, h, w)
        func = tepad.lower.passes.storage_flatten(tepad.lower(s, args))
        mod = tepad.build(func)
        out = np.zeros((1, h - 4, w - 4, CH), "int8")
        mod(a, out)
        ok = bool(np.array_equal(out, ref))
        t = _median_time(lambda: mod(a, out), runs)
        # work of the first pool: rows of B computed per output
        rows.append({"variant": variant, "bytes": intermediate_bytes(func), "time": t, "ok": ok})
    t_np = _median_time(lambda: numpy_pools(a), runs)
    rows.append({"variant": "numpy", "bytes": (h - 2) * (w - 2) * CH, "time": t_np, "ok": True})
    return rows


def rolling_markdown(runs=RUNS, h=H, w=W) -> str:
    rows = run(runs, h, w)
    base = {r["variant"]: r for r in rows}
    b_rows = h - 2
    tiles = -(-(h - 4) // TILE)
    computed = {"root": b_rows, "tiled": tiles * (TILE + 2), "rolling": b_rows,
                "numpy": b_rows}
    lines = [
        "## Rolling buffer: two chained 3x3 max-pools", "",
        f"Two chained 3x3 max-pools, int8 NHWC (1, {h}, {w}, {CH}); second pool tiled by rows "
        f"of {TILE}; single thread, channels vectorized; median of {runs} runs.",
        "",
        "| variant | intermediate bytes | rows of pool 1 computed | time (ms) | vs numpy | "
        "vs tiled | correct |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        v = r["variant"]
        lines.append(
            f"| {v} | {r['bytes']:,} | {min(computed[v], b_rows) if v != 'tiled' else computed[v]:,}"
            f" | {r['time'] * 1e3:.2f} | {base['numpy']['time'] / r['time']:.2f}x | "
            f"{base['tiled']['time'] / r['time']:.2f}x | {'yes' if r['ok'] else 'NO'} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(rolling_markdown())
