#!/usr/bin/env python3
"""topi.vision's detection operators (CPU schedules) vs numpy: a short run on this CPU.

    python benchmarks/bench_vision.py [--reps N] [--target "llvm -mcpu=..."]

Prints one row per operator: tepad's kernel (built for the target with its
``topi.generic`` schedule) and a numpy version written here (array expressions where the
operator has them; NMS is the usual numpy loop over the boxes in score order, each step
one vectorized IoU against the remaining boxes), both checked equal first, median of
``--reps`` runs each in the same process. Nothing is written to RESULTS.md.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402

import tepad  # noqa: E402
from tepad import te, topi  # noqa: E402
from tepad.codegen import default_num_threads  # noqa: E402
from tepad.target import Target  # noqa: E402
from run import call_args, cpu_info, fmt_ms, median_time  # noqa: E402

RNG = np.random.default_rng(5)


def _np_valid_counts(data, thr):
    keep = (data[:, :, 1] > thr) & (data[:, :, 0] >= 0)
    count = keep.sum(1).astype("int32")
    out = -np.ones_like(data)
    idx = -np.ones(data.shape[:2], "int32")
    for b in range(data.shape[0]):
        rows = np.flatnonzero(keep[b])
        out[b, :len(rows)] = data[b, rows]
        idx[b, :len(rows)] = rows
    return count, out, idx


def _np_nms(data, thr):
    """Rows by descending score, suppressed ones -1 (same class only; scores > 0)."""
    out = -np.ones_like(data)
    for b in range(data.shape[0]):
        d = data[b]
        order = np.argsort(-d[:, 1], kind="stable")
        s = d[order]
        x0, y0 = np.minimum(s[:, 2], s[:, 4]), np.minimum(s[:, 3], s[:, 5])
        x1, y1 = np.maximum(s[:, 2], s[:, 4]), np.maximum(s[:, 3], s[:, 5])
        area = (x1 - x0) * (y1 - y0)
        alive = np.ones(len(s), bool)
        for j in range(len(s)):
            if not alive[j]:
                continue
            r = slice(j + 1, None)
            w = np.maximum(0, np.minimum(x1[j], x1[r]) - np.maximum(x0[j], x0[r]))
            h = np.maximum(0, np.minimum(y1[j], y1[r]) - np.maximum(y0[j], y0[r]))
            inter = w * h
            iou = inter / (area[j] + area[r] - inter)
            alive[r] &= ~((iou >= thr) & (s[r, 0] == s[j, 0]))
        out[b, alive] = s[alive]
    return out


def _np_prior(h, w, sizes, ratios):
    halves = [(s * h / w / 2, s / 2) for s in sizes]
    halves += [(sizes[0] * h / w * math.sqrt(r) / 2, sizes[0] / math.sqrt(r) / 2)
               for r in ratios[1:]]
    gy, gx = np.meshgrid((np.arange(h) + 0.5) / h, (np.arange(w) + 0.5) / w, indexing="ij")
    hw = np.array([a for a, _ in halves], "float32")
    hh = np.array([b for _, b in halves], "float32")
    return np.stack([gx[..., None] - hw, gy[..., None] - hh, gx[..., None] + hw,
                     gy[..., None] + hh], axis=-1).reshape(1, -1, 4)


def _boxes(batch, n):
    d = np.empty((batch, n, 6), "float32")
    d[:, :, 0] = RNG.integers(0, 4, (batch, n))
    d[:, :, 1] = RNG.uniform(0.01, 1, (batch, n))
    xy = RNG.uniform(0, 100, (batch, n, 2))
    d[:, :, 2:4] = xy
    d[:, :, 4:6] = xy + RNG.uniform(5, 30, (batch, n, 2))
    return d


def cases():
    """(name, build() -> (outs, placeholders, arrays, schedule), numpy fn, numpy does)."""
    def valid_counts():
        data = RNG.uniform(-1, 1, (4, 2500, 6)).astype("float32")
        D = te.placeholder(data.shape, name="data")
        return (topi.vision.get_valid_counts(D, 0.3, 0, 1), [D], [data],
                topi.generic.schedule_get_valid_counts)

    def nms():
        data = _boxes(1, 1000)
        D = te.placeholder(data.shape, name="data")
        V = te.placeholder((1,), "int32", name="valid")
        out = topi.vision.non_max_suppression(D, V, None, iou_threshold=0.5,
                                              return_indices=False)
        return out, [D, V], [data, np.array([1000], "int32")], topi.generic.schedule_nms

    def prior():
        D = te.placeholder((1, 3, 64, 64), name="data")
        out = topi.vision.ssd.multibox_prior(D, (0.5, 0.25, 0.1), (1, 2, 0.5))
        return out, [D], [np.zeros((1, 3, 64, 64), "float32")], \
            topi.generic.schedule_multibox_prior

    return [("get_valid_counts (4, 2500, 6)", valid_counts,
             lambda d: _np_valid_counts(d, 0.3), "mask + per-row compaction"),
            ("non_max_suppression (1, 1000, 6)", nms, lambda d, v: _np_nms(d, 0.5),
             "argsort + loop of vectorized IoU"),
            ("ssd.multibox_prior (1, 3, 64, 64), 5 anchors", prior,
             lambda d: _np_prior(64, 64, (0.5, 0.25, 0.1), (1, 2, 0.5)), "meshgrid expression")]


def run_case(name, build, ref, desc, reps, target):
    with Target(target):
        outs, inputs, arrays, sched = build()
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        s = sched(outs)
    mod = tepad.build(s, inputs + outs, target=target)
    args, res = call_args(inputs + outs, arrays)
    mod(*args)
    want = ref(*arrays)
    want = list(want) if isinstance(want, tuple) else [want]
    ok = all(np.allclose(r, w, rtol=1e-5, atol=1e-6) for r, w in zip(res, want))
    t_ms = median_time(lambda: mod(*args), reps)[0] * 1e3
    n_ms = median_time(lambda: ref(*arrays), reps)[0] * 1e3
    return dict(name=name, tepad_ms=t_ms, numpy_ms=n_ms, ok=ok, desc=desc)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--target", default="llvm")
    a = ap.parse_args(argv)
    info = cpu_info()
    print(f"{info['name']} (LLVM {info['llvm_cpu']}, {info['cores']} cores), target "
          f"{a.target}, tepad on {default_num_threads()} thread(s), median of {a.reps}")
    print("| operator | tepad ms | numpy ms | numpy / tepad | numpy does | equal |")
    print("|---|---:|---:|---:|---|---|")
    rows = [run_case(*c, reps=a.reps, target=a.target) for c in cases()]
    for r in rows:
        print(f"| {r['name']} | {fmt_ms(r['tepad_ms'])} | {fmt_ms(r['numpy_ms'])} | "
              f"{r['numpy_ms'] / r['tepad_ms']:.2f}x | {r['desc']} | "
              f"{'yes' if r['ok'] else 'NO'} |", flush=True)
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
