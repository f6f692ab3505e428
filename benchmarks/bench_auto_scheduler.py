"""Auto-scheduling figure: matmul + bias (N x N x N, float32) unscheduled, with
``auto_scheduler.default_schedule`` and after a short search, all timed again in this run.

    python benchmarks/bench_auto_scheduler.py                  N=256, 48 trials
    python benchmarks/bench_auto_scheduler.py --n 128 --trials 16 --log mm.json
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import tepad as tvm  # noqa: E402
from tepad import auto_scheduler, te  # noqa: E402


@auto_scheduler.register_workload
def bench_matmul_add(N, L, M, dtype):
    A = te.placeholder((N, L), name="A", dtype=dtype)
    B = te.placeholder((L, M), name="B", dtype=dtype)
    C = te.placeholder((N, M), name="C", dtype=dtype)
    k = te.reduce_axis((0, L), name="k")
    matmul = te.compute((N, M), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="matmul")
    out = te.compute((N, M), lambda i, j: matmul[i, j] + C[i, j], name="out")
    return [A, B, C, out]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=256)
    ap.add_argument("--trials", type=int, default=48)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--target", default="llvm")
    ap.add_argument("--log", default=None, help="tuning log (default: a temporary file)")
    ns = ap.parse_args(argv)
    n, target = ns.n, tvm.target.Target(ns.target)
    print(f"target {target}: {target.vector_lanes('float32')} fp32 lanes, "
          f"{target.vector_registers} vector registers, {os.cpu_count()} cores")
    A, B, C, out = bench_matmul_add(n, n, n, "float32")
    rng = np.random.default_rng(0)
    a, b, c = (rng.uniform(size=(n, n)).astype("float32") for _ in range(3))
    o = np.zeros((n, n), "float32")

    def timed(s, args):
        f = tvm.build(s, args, target)
        f(a, b, c, o)
        np.testing.assert_allclose(o, a @ b + c, rtol=1e-3)
        ev = f.time_evaluator(f.entry_name, tvm.cpu(), number=5, repeat=3, min_repeat_ms=50)
        return ev(a, b, c, o).median * 1e3

    print(f"unscheduled       {timed(te.create_schedule(out.op), [A, B, C, out]):.3f} ms")
    print(f"default_schedule  {timed(*auto_scheduler.default_schedule([out], target)):.3f} ms")
    log = ns.log or os.path.join(tempfile.mkdtemp(), "bench_auto_scheduler.json")
    task = auto_scheduler.SearchTask(func=bench_matmul_add, args=(n, n, n, "float32"),
                                     target=target)
    policy = auto_scheduler.SketchPolicy(
        task, auto_scheduler.XGBModel(num_warmup_sample=8), seed=ns.seed)
    t0 = time.time()
    task.tune(auto_scheduler.TuningOptions(
        num_measure_trials=ns.trials, num_measures_per_round=16, verbose=0,
        measure_callbacks=[auto_scheduler.RecordToFile(log)]), search_policy=policy)
    print(f"search            {ns.trials} trials in {time.time() - t0:.1f} s (log {log})")
    print(f"tuned             {timed(*task.apply_best(log)):.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
