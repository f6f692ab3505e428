#!/usr/bin/env python3
"""Peer benchmark: TVM 0.27's MetaSchedule (``tvm.s_tir.meta_schedule.tune_tir``) on
``te.create_prim_func`` of the computes ``benchmarks/bench_auto_scheduler.py --ops`` tunes
with tepad's auto-scheduler (same definitions, same sizes, same trial budget).

    python -m venv /tmp/tvmvenv && /tmp/tvmvenv/bin/pip install apache-tvm numpy
    TVM_NUM_THREADS=1 /tmp/tvmvenv/bin/python benchmarks/peers/bench_metaschedule.py \\
        --trials 64 --ops matmul conv2d softmax

One JSON line per op: ``op``, ``trials`` (asked), ``tune_s`` (wall time of ``tune_tir``),
``s_per_trial``, ``ms`` (the best schedule, rebuilt and timed with ``time_evaluator``:
median of ``repeat`` runs), ``gflops``, ``default_ms`` (the untuned PrimFunc), ``max_err``
(against numpy). The target is LLVM for the host CPU (the name LLVM gives it) with
``num-cores`` = ``--cores`` (MetaSchedule's thread count for parallel loops).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

import numpy as np
import tvm
from tvm import te
from tvm.s_tir import meta_schedule as ms

F32 = "float32"


def matmul(n):
    A = te.placeholder((n, n), F32, name="A")
    B = te.placeholder((n, n), F32, name="B")
    C = te.placeholder((n, n), F32, name="C")
    k = te.reduce_axis((0, n), name="k")
    mm = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="matmul")
    out = te.compute((n, n), lambda i, j: mm[i, j] + C[i, j], name="out")
    return [A, B, C, out], 2.0 * n ** 3


def conv2d(c, k, h, w):
    X = te.placeholder((1, c, h, w), F32, name="data")
    W = te.placeholder((k, c, 3, 3), F32, name="weight")
    pad = te.compute((1, c, h + 2, w + 2), lambda b, ci, y, x: te.if_then_else(
        te.all(y >= 1, y < h + 1, x >= 1, x < w + 1), X[b, ci, y - 1, x - 1], 0.0),
        name="pad")
    rc = te.reduce_axis((0, c), name="rc")
    ry = te.reduce_axis((0, 3), name="ry")
    rx = te.reduce_axis((0, 3), name="rx")
    conv = te.compute((1, k, h, w), lambda b, f, y, x: te.sum(
        pad[b, rc, y + ry, x + rx] * W[f, rc, ry, rx], axis=[rc, ry, rx]), name="conv")
    return [X, W, conv], 2.0 * k * c * h * w * 9


def depthwise(c, h, w):
    X = te.placeholder((1, c, h, w), F32, name="data")
    W = te.placeholder((c, 1, 3, 3), F32, name="weight")
    pad = te.compute((1, c, h + 2, w + 2), lambda b, ci, y, x: te.if_then_else(
        te.all(y >= 1, y < h + 1, x >= 1, x < w + 1), X[b, ci, y - 1, x - 1], 0.0),
        name="pad")
    ry = te.reduce_axis((0, 3), name="ry")
    rx = te.reduce_axis((0, 3), name="rx")
    conv = te.compute((1, c, h, w), lambda b, f, y, x: te.sum(
        pad[b, f, y + ry, x + rx] * W[f, 0, ry, rx], axis=[ry, rx]), name="conv")
    return [X, W, conv], 2.0 * c * h * w * 9


def softmax(n, m):
    x = te.placeholder((n, m), F32, name="x")
    k1 = te.reduce_axis((0, m), name="k1")
    mx = te.compute((n,), lambda i: te.max(x[i, k1], axis=k1), name="mx")
    e = te.compute((n, m), lambda i, j: te.exp(x[i, j] - mx[i]), name="e")
    k2 = te.reduce_axis((0, m), name="k2")
    total = te.compute((n,), lambda i: te.sum(e[i, k2], axis=k2), name="total")
    out = te.compute((n, m), lambda i, j: e[i, j] / total[i], name="out")
    return [x, out], 5.0 * n * m


def batch_matmul(b, n):
    A = te.placeholder((b, n, n), F32, name="A")
    B = te.placeholder((b, n, n), F32, name="B")
    k = te.reduce_axis((0, n), name="k")
    out = te.compute((b, n, n), lambda z, i, j: te.sum(A[z, i, k] * B[z, k, j], axis=k),
                     name="bmm")
    return [A, B, out], 2.0 * b * n ** 3


def reference(op, ins):
    if op == "matmul":
        return ins[0] @ ins[1] + ins[2]
    if op == "batch_matmul":
        return ins[0] @ ins[1]
    if op == "softmax":
        e = np.exp(ins[0] - ins[0].max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)
    x, w = ins
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    h, wd = x.shape[2], x.shape[3]
    win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))  # 1,c,h,w,3,3
    if op == "depthwise":
        return np.einsum("bchwyx,cyx->bchw", win, w[:, 0])
    return np.einsum("bchwyx,fcyx->bfhw", win, w).reshape(1, w.shape[0], h, wd)


OPS = {
    "matmul": lambda s: matmul(s["n"]),
    "conv2d": lambda s: conv2d(s["c"], s["k"], s["h"], s["w"]),
    "depthwise": lambda s: depthwise(s["c"], s["h"], s["w"]),
    "softmax": lambda s: softmax(s["n"], s["m"]),
    "batch_matmul": lambda s: batch_matmul(s["b"], s["n"]),
}
# the sizes bench_auto_scheduler.py --ops uses (W2 is matmul n=1024, W4 conv2d 64/64/56)
SIZES = {"matmul": dict(n=1024), "conv2d": dict(c=64, k=64, h=56, w=56),
         "depthwise": dict(c=128, h=56, w=56), "softmax": dict(n=1024, m=1024),
         "batch_matmul": dict(b=8, n=256)}


def time_func(exe, args, repeat):
    """Median CPU time of the calling thread per call, in ms (as bench_auto_scheduler.py
    times tepad's kernels: with TVM_NUM_THREADS=1 TVM runs the kernel on this thread)."""
    f = exe["main"]
    t0 = time.thread_time()
    f(*args)
    first = max(time.thread_time() - t0, 1e-6)
    number = max(1, int(0.02 / first))
    times = []
    for _ in range(repeat):
        t0 = time.thread_time()
        for _ in range(number):
            f(*args)
        times.append((time.thread_time() - t0) / number)
    return float(np.median(times)) * 1e3


def run(op, sizes, trials, cores, repeat):
    tensors, flop = OPS[op](sizes)
    cpu = tvm.get_global_func("target.llvm_get_system_cpu")()
    target = tvm.target.Target({"kind": "llvm", "mcpu": cpu, "num-cores": cores})
    mod = tvm.IRModule({"main": te.create_prim_func(tensors)})
    rng = np.random.default_rng(0)
    ins = [rng.uniform(-1, 1, size=[int(d) for d in t.shape]).astype(F32)
           for t in tensors[:-1]]
    want = reference(op, ins)
    dev = tvm.cpu()
    nd = [tvm.runtime.tensor(a, dev) for a in ins] + \
        [tvm.runtime.tensor(np.zeros([int(d) for d in tensors[-1].shape], F32), dev)]
    default = tvm.compile(mod, target=target)
    default_ms = time_func(default, nd, max(3, repeat // 3))
    work = tempfile.mkdtemp(prefix=f"ms_{op}_")
    t0 = time.perf_counter()
    db = ms.tune_tir(mod, target, work, max_trials_global=trials,
                     num_trials_per_iter=min(64, trials), num_tuning_cores=cores, seed=0,
                     database="memory",
                     builder=ms.builder.LocalBuilder(max_workers=1, timeout_sec=300),
                     runner=ms.runner.LocalRunner(evaluator_config=ms.runner.EvaluatorConfig(
                         number=1, repeat=3, min_repeat_ms=20), timeout_sec=300))
    tune_s = time.perf_counter() - t0
    sch = ms.tir_integration.compile_tir(db, mod, target)
    if sch is None:
        return {"op": op, "sizes": sizes, "trials": trials, "tune_s": tune_s,
                "error": "no valid schedule"}
    f = tvm.compile(sch.mod, target=target)
    f["main"](*nd)
    err = float(np.max(np.abs(nd[-1].numpy() - want)))
    ms_ = time_func(f, nd, repeat)
    measured = len(db.get_all_tuning_records())
    return {"op": op, "sizes": sizes, "trials": trials, "measured": measured,
            "tune_s": round(tune_s, 1), "s_per_trial": round(tune_s / max(1, measured), 2),
            "ms": round(ms_, 3), "gflops": round(flop / ms_ / 1e6, 1),
            "default_ms": round(default_ms, 3), "max_err": err, "tvm": tvm.__version__,
            "cpu": cpu, "cores": cores}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", nargs="+", default=["matmul", "conv2d", "softmax"],
                    choices=sorted(OPS))
    ap.add_argument("--trials", type=int, default=64)
    ap.add_argument("--cores", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--size", action="append", default=[],
                    help="OP:KEY=VALUE to change a size (e.g. matmul:n=512)")
    ns = ap.parse_args(argv)
    sizes = {k: dict(v) for k, v in SIZES.items()}
    for item in ns.size:
        op, kv = item.split(":", 1)
        key, value = kv.split("=", 1)
        sizes[op][key] = int(value)
    for op in ns.ops:
        print(json.dumps(run(op, sizes[op], ns.trials, ns.cores, ns.repeat)), flush=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("TVM_NUM_THREADS", "1")
    sys.exit(main())
