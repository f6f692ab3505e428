#!/usr/bin/env python3
"""Peer benchmark: TVM 0.27's MetaSchedule (``tvm.s_tir.meta_schedule.tune_tir``) on
``te.create_prim_func`` of the computes ``benchmarks/bench_auto_scheduler.py --ops`` tunes
with tepad's auto-scheduler (same definitions, same sizes, same trial budget).

    python -m venv /tmp/tvmvenv && /tmp/tvmvenv/bin/pip install apache-tvm numpy
    TVM_NUM_THREADS=1 /tmp/tvmvenv/bin/python benchmarks/peers/bench_metaschedule.py \\
        --trials 64 --ops matmul conv2d softmax [--ir DIR]

``--ir DIR`` writes each op's best schedule (its TIR and the trace that made it) to
``DIR/OP.py``, to compare with the lowered IR of tepad's best state.

One JSON line per op: ``op``, ``trials`` (asked), ``tune_s`` (wall time of ``tune_tir``),
``s_per_trial``, ``ms`` (the best schedule, rebuilt and timed with ``time_evaluator``:
median of ``repeat`` runs), ``gflops``, ``default_ms`` (the untuned PrimFunc), ``max_err``
(against numpy), ``load_start`` / ``load_end`` (the machine's 1-minute load average when
the search started and ended). The target is LLVM for the host CPU (the name LLVM gives it) with
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

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import auto_workloads as workloads  # noqa: E402  (benchmarks/: the computes, shared with tepad's)

F32 = workloads.F32


OPS = {op: (lambda s, op=op, build=build: (build(te, *workloads.args_of(op, s)),
                                           workloads.flop(op, s)))
       for op, build in workloads.BUILDERS.items()}
reference = workloads.reference
SIZES = workloads.SIZES


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


def run(op, sizes, trials, cores, repeat, ir_dir=None):
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
    load_start = round(os.getloadavg()[0], 1)
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
    if ir_dir:                          # the best schedule's TIR and trace, to compare
        os.makedirs(ir_dir, exist_ok=True)
        with open(os.path.join(ir_dir, f"{op}.py"), "w") as fh:
            fh.write(sch.mod.script() + "\n# trace\n" + str(sch.trace) + "\n")
    f = tvm.compile(sch.mod, target=target)
    f["main"](*nd)
    err = float(np.max(np.abs(nd[-1].numpy() - want)))
    ms_ = time_func(f, nd, repeat)
    measured = len(db.get_all_tuning_records())
    return {"op": op, "sizes": sizes, "trials": trials, "measured": measured,
            "tune_s": round(tune_s, 1), "s_per_trial": round(tune_s / max(1, measured), 2),
            "ms": round(ms_, 3), "gflops": round(flop / ms_ / 1e6, 1),
            "default_ms": round(default_ms, 3), "max_err": err, "tvm": tvm.__version__,
            "cpu": cpu, "cores": cores, "load_start": load_start,
            "load_end": round(os.getloadavg()[0], 1)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", nargs="+", default=["matmul", "conv2d", "softmax"],
                    choices=sorted(OPS))
    ap.add_argument("--trials", type=int, default=64)
    ap.add_argument("--cores", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--size", action="append", default=[],
                    help="OP:KEY=VALUE to change a size (e.g. matmul:n=512)")
    ap.add_argument("--ir", help="write each op's best TIR and trace to DIR/OP.py")
    ns = ap.parse_args(argv)
    sizes = {k: dict(v) for k, v in SIZES.items()}
    for item in ns.size:
        op, kv = item.split(":", 1)
        key, value = kv.split("=", 1)
        sizes[op][key] = int(value)
    for op in ns.ops:
        print(json.dumps(run(op, sizes[op], ns.trials, ns.cores, ns.repeat, ns.ir)), flush=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("TVM_NUM_THREADS", "1")
    sys.exit(main())
