"""rolling_buffer benchmark: two chained 3x3 max-pools on an int8 (1, 1024, 1024, 16) NHWC
tensor, the second pool tiled by rows of 8.

Every stage vectorizes its fused (x, channel) axis, as TVM's and Halide's schedules of this
chain do, with the widest power of two up to 32 lanes that divides it (32 x int8, a ymm: as
TVM's schedule; 64-lane zmm vectors measured 4-10 % slower here, and 64-byte-aligned arrays
recovered only 1-2 % of that, so the cause is not the numpy arrays' 16-byte alignment alone).

Variants (one thread unless marked):
  root        the first pool computed at the root: the whole intermediate is materialized
  tiled       the first pool computed at the second pool's row tile: 10 rows per tile, the
              2 overlap rows recomputed by the next tile (25 % extra work on the first pool)
  rolling     tiled + rolling_buffer(): the same 10-row buffer, used circularly; each row of
              the intermediate is computed once
  tiled, parallel tiles (2 threads)
              tiled with the row tiles in parallel (TVM's and Halide's parallel schedule of
              this chain: the overlap rows recomputed, so any thread can take any tile)
  rolling, parallel strips (2 threads)
              rows cut into strips of STRIP that run in parallel; inside a strip, tiles of 8
              rows with the rolling buffer (a buffer per strip; 2 rows recomputed per strip,
              as Halide's sliding window over parallel strips). TVM's rolling_buffer must stay
              serial.
  numpy       np.maximum over shifted slices (vectorized numpy, reference timing)

``rolling_markdown()`` returns the results table (medians of >= 10 runs), with the peers' W6
records when given (benchmarks/run.py passes those of the same run); run as a script to print
it. Sizes can be reduced with the environment variable ``BENCH_ROLLING_H`` (rows).
"""
from __future__ import annotations

import importlib.util
import os
import statistics
from pathlib import Path

import numpy as np

import tepad
from tepad import te
from tepad.runtime.timing import sample_times
from tepad.tir import dtype as dt
from tepad.tir.functor import post_order_visit
from tepad.tir.stmt import Allocate

H = int(os.environ.get("BENCH_ROLLING_H", 1024))
W = 1024
CH = 16
TILE = 8
STRIP = 256
RUNS = 10


def _load_example(stem):
    spec = importlib.util.spec_from_file_location(
        f"tepad_example_{stem}", Path(__file__).resolve().parent.parent / "examples" / f"{stem}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_mp = _load_example("maxpool_rolling")
_pool = _mp.maxpool_nhwc
_vectorize_fused = _mp.vectorize_fused


def schedule(variant, h=H, w=W):
    """``variant``: one of VARIANTS (see the module docstring)."""
    A = te.placeholder((1, h, w, CH), "int8", name="A")
    B = _pool(A, "B")
    C = _pool(B, "C")
    s = te.create_schedule(C.op)
    n, y, x, c = C.op.axis
    bn, by, bx, bc = B.op.axis
    if variant == "rolling_parallel":
        ys, yr = s[C].split(y, factor=STRIP)
        yo, _ = s[C].split(yr, factor=TILE)
        s[C].parallel(ys)
    elif variant != "root":
        yo, _ = s[C].split(y, factor=TILE)
        if variant == "tiled_parallel":
            s[C].parallel(yo)
    _vectorize_fused(s[C], x, c, C.op.reduce_axis, (w - 4) * CH)
    if variant != "root":
        s[B].compute_at(s[C], yo)
        if variant in ("rolling", "rolling_parallel"):
            s[B].rolling_buffer()
    _vectorize_fused(s[B], bx, bc, B.op.reduce_axis, (w - 2) * CH)
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
    """Median seconds of ``runs`` calls after the shared idle pause and timed warm-up
    (tepad.runtime.timing: this VM runs a kernel slowly for a while after it was idle)."""
    return statistics.median(sample_times(fn, runs))


VARIANTS = ("root", "tiled", "rolling", "tiled_parallel", "rolling_parallel")
LABELS = {"root": "root", "tiled": "tiled", "rolling": "rolling",
          "tiled_parallel": "tiled, parallel tiles (2 threads; bytes per tile buffer, one per "
                            "running thread)",
          "rolling_parallel": f"rolling, parallel strips of {STRIP} rows (2 threads; bytes per "
                              "strip buffer, one per running thread)"}


def run(runs=RUNS, h=H, w=W, between=None):
    """Rows per variant (bytes, median time, correctness). With ``between``, every tepad
    variant is timed before and after ``between()`` runs (the peers) and the samples pooled;
    returns (rows, between's result)."""
    rng = np.random.default_rng(0)
    a = rng.integers(-128, 128, size=(1, h, w, CH)).astype("int8")
    ref = numpy_pools(a)
    rows, timers = [], []
    for variant in VARIANTS:
        s, args = schedule(variant, h, w)
        func = tepad.lower(s, args)["main"]      # flattened, as TVM's lower
        mod = tepad.build(func)
        out = np.zeros((1, h - 4, w - 4, CH), "int8")
        mod(a, out)
        ok = bool(np.array_equal(out, ref))
        timer = (lambda m=mod, o=out: sample_times(lambda: m(a, o), runs))
        timers.append(timer)
        rows.append({"variant": variant, "bytes": intermediate_bytes(func), "samples": timer(),
                     "ok": ok})
    extra = None
    if between is not None:
        extra = between()
        for row, timer in zip(rows, timers):
            row["samples"] += timer()
    for row in rows:
        row["time"] = statistics.median(row.pop("samples"))
    t_np = _median_time(lambda: numpy_pools(a), runs)
    rows.append({"variant": "numpy", "bytes": (h - 2) * (w - 2) * CH, "time": t_np, "ok": True})
    return rows, extra


def _computed_rows(variant, h):
    """Rows of the first pool computed per call."""
    b_rows, tiles = h - 2, -(-(h - 4) // TILE)
    if variant in ("tiled", "tiled_parallel"):
        return tiles * (TILE + 2)
    if variant == "rolling_parallel":      # each strip after the first recomputes 2 rows
        return b_rows + 2 * (-(-(h - 4) // STRIP) - 1)
    return b_rows


def rolling_markdown(runs=RUNS, h=H, w=W, run_peers=None) -> str:
    """The table. ``run_peers()`` returns peer-script W6 records (peer, variant, median_s,
    intermediate_bytes); it runs between two timing passes of tepad's variants and its
    records are listed under them."""
    rows, peer_rows = run(runs, h, w, between=run_peers)
    peer_rows = peer_rows or ()
    base = {r["variant"]: r for r in rows}
    lines = [
        "## Rolling buffer: two chained 3x3 max-pools", "",
        f"Two chained 3x3 max-pools, int8 NHWC (1, {h}, {w}, {CH}); second pool tiled by rows "
        f"of {TILE}; (x, channel) fused and vectorized; one thread unless marked; median of "
        f"{runs} runs.",
        "",
        "| variant | intermediate bytes | rows of pool 1 computed | time (ms) | vs numpy | "
        "vs tiled | correct |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        v = r["variant"]
        lines.append(
            f"| {LABELS.get(v, v)} | {r['bytes']:,} | {_computed_rows(v, h):,} | "
            f"{r['time'] * 1e3:.2f} | {base['numpy']['time'] / r['time']:.2f}x | "
            f"{base['tiled']['time'] / r['time']:.2f}x | {'yes' if r['ok'] else 'NO'} |")
    if peer_rows and (h, w) == (1024, 1024):
        serial = base["rolling"]["time"]
        par = min(base["rolling_parallel"]["time"], base["tiled_parallel"]["time"])
        lines += ["", "Peers, same run, timed between tepad's two passes (benchmarks/peers "
                  "scripts; their own timing loop, median of 10): tepad as fast as = "
                  "peer time / tepad time of the matching tepad variant (rolling for serial, "
                  "the faster of tepad's two parallel variants for parallel).", "",
                  "| peer | variant | intermediate bytes | time (ms) | tepad as fast as |",
                  "|---|---|---:|---:|---:|"]
        for rec in sorted(peer_rows, key=lambda r: (r["peer"], r["median_s"])):
            t = rec["median_s"]
            mine = serial if "serial" in rec.get("variant", "") else par
            nbytes = rec.get("intermediate_bytes")
            lines.append(f"| {rec['peer']} | {rec.get('variant', '')} | "
                         f"{'' if nbytes is None else f'{nbytes:,}'} | {t * 1e3:.2f} | "
                         f"{t / mine:.2f}x |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(rolling_markdown())
