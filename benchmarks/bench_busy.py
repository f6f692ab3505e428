#!/usr/bin/env python3
"""Parallel kernels on a machine whose other cores are busy: parallel vs single-threaded.

    python benchmarks/bench_busy.py                 writes its section of benchmarks/RESULTS.md
    python benchmarks/bench_busy.py --quick         fewer calls, prints only (unless --out)
    options: --reps-small N --reps-large N --no-peers --baseline PATH --out PATH

For the blur (examples/blur.py) and the fused elementwise kernel (examples/elementwise.py), a
small and a large size, each kernel is timed (median of the calls after a warm-up) with all
threads and with one thread (``TEPAD_NUM_THREADS=1``), on the machine as it is ("quiet") and
while busy-loop processes keep ``cores - 1`` cores loaded ("busy"). Each measurement runs in a
fresh process. ``--baseline PATH`` also times a tepad checkout at PATH (e.g. the commit before
the thread pool, with libgomp's fork-join team) the same way; TVM's and Halide's parallel
runtimes (``benchmarks/peers``, the same schedules as W1 / W3: the first variant that runs at
that size) are timed when ``import tvm`` /
``import halide`` work (``$TEPAD_PEER_PATH`` is put on their ``sys.path``), with
``TVM_NUM_THREADS`` / ``HL_NUM_THREADS`` set as tepad's.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from results_sections import cpu_name, write_section  # noqa: E402

SIZES = {"blur": (130, 2050), "elementwise": (128, 2048)}
HEADING = "## Busy cores: parallel vs single-threaded"
BEGIN = "<!-- bench_busy: begin -->"
END = "<!-- bench_busy: end -->"


# ----------------------------------------------------------------------------- one measurement
def _time(fn, reps: int) -> float:
    for _ in range(max(3, reps // 10)):
        fn()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def _tepad_kernel(kernel: str, n: int):
    import importlib.util
    import numpy as np
    import tepad
    spec = importlib.util.spec_from_file_location(kernel, ROOT / "examples" / f"{kernel}.py")
    ex = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ex)
    s, args = ex.schedule(n)
    mod = tepad.build(s, args)
    ins = ex.inputs(n)
    out = np.zeros([int(d) for d in args[-1].shape], "float32")
    mod(*ins, out)
    if kernel == "blur":
        a = ins[0].astype("float64")
        bx = (a[:, :-2] + a[:, 1:-1] + a[:, 2:]) / 3
        want = (bx[:-2] + bx[1:-1] + bx[2:]) / 3
    else:
        want = np.maximum(ins[0] * ins[1] + 1, 0)
    assert np.allclose(out, want, rtol=1e-5, atol=1e-5), "tepad result differs from numpy"
    return lambda: mod(*ins, out)


def _peer_kernel(peer: str, kernel: str, n: int):
    sys.path.insert(0, str(HERE / "peers"))
    bench = __import__(f"bench_{peer}")
    gen = (bench.w3 if kernel == "blur" else bench.w1)({"n": n})
    err = None
    for _name, make in gen:     # the classic parallel schedule first; the next where it fails
        try:                    # (Halide's 256-wide blur tile needs a 256-wide output)
            fn, _extras = make()
            return fn
        except Exception as e:  # noqa: BLE001 - the peer's own error, reported if all fail
            err = e
    raise RuntimeError(f"{peer}: no variant of {kernel} ran at n={n}: {err}")


def worker(spec: dict) -> dict:
    if spec["impl"] in ("tvm", "halide"):
        fn = _peer_kernel(spec["impl"], spec["kernel"], spec["n"])
    else:
        fn = _tepad_kernel(spec["kernel"], spec["n"])
    return {"median_s": _time(fn, spec["reps"])}


# ----------------------------------------------------------------------------- orchestration
def _env(impl: str, path: str | None, threads: int) -> dict:
    env = dict(os.environ)
    env["TEPAD_NUM_THREADS"] = env["TVM_NUM_THREADS"] = env["HL_NUM_THREADS"] = str(threads)
    if impl in ("tvm", "halide"):
        extra = os.environ.get("TEPAD_PEER_PATH", "")
        env["PYTHONPATH"] = os.pathsep.join(p for p in (extra, env.get("PYTHONPATH", "")) if p)
    else:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (path, env.get("PYTHONPATH", "")) if p)
    return env


def measure(impl, path, kernel, n, threads, reps) -> float | None:
    spec = dict(impl=impl, kernel=kernel, n=n, reps=reps)
    r = subprocess.run([sys.executable, __file__, "--worker", json.dumps(spec)],
                       capture_output=True, text=True, env=_env(impl, path, threads),
                       timeout=600, cwd=str(ROOT))
    if r.returncode != 0:
        print(f"  {impl} {kernel} {n} x{threads}: FAILED\n{r.stderr[-1500:]}", file=sys.stderr)
        return None
    return json.loads(r.stdout.strip().splitlines()[-1])["median_s"]


class Busy:
    """``k`` busy-loop processes for the duration of a ``with`` block."""

    def __init__(self, k: int):
        self.k = k
        self.procs = []

    def __enter__(self):
        self.procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                      for _ in range(self.k)]
        time.sleep(0.3)
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()


def peer_available(name: str) -> bool:
    env = _env(name, None, 1)
    r = subprocess.run([sys.executable, "-c", f"import {name}"], env=env, capture_output=True,
                       timeout=120)
    return r.returncode == 0




def fmt(t):
    return "failed" if t is None else f"{t * 1e3:.3f}"


def ratio(p, s):
    return "-" if p is None or s is None else f"{p / s:.2f}"


def run(args) -> str:
    cores = os.cpu_count() or 1
    impls = [("tepad", str(ROOT))]
    if args.baseline:
        impls.append(("tepad (before: libgomp team)", args.baseline))
    if not args.no_peers:
        for peer in ("tvm", "halide"):
            if peer_available(peer):
                impls.append((peer, None))
            else:
                print(f"{peer}: not importable, skipped", file=sys.stderr)
    rows = []
    for kernel, sizes in SIZES.items():
        for n, reps in zip(sizes, (args.reps_small, args.reps_large)):
            for label, path in impls:
                impl = label.split()[0] if label.startswith("tepad") else label
                res = {}
                for cond in ("quiet", "busy"):
                    with Busy(cores - 1 if cond == "busy" else 0):
                        for threads in (cores, 1):
                            res[cond, threads] = measure(impl, path, kernel, n, threads, reps)
                rows.append((kernel, n, label, res))
                print(f"{kernel} {n} {label}: " + ", ".join(
                    f"{c} x{t} {fmt(v)} ms" for (c, t), v in res.items()), flush=True)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [HEADING, "", BEGIN, "",
             f"Measured {datetime.date.today()} with `benchmarks/bench_busy.py` on {cpu_name()} "
             f"({cores} cores, load average {load:.1f} at the end: other sessions share this "
             f"host, so 'quiet' is not idle). 'busy': {cores - 1} busy-loop process(es) "
             "(`while True: pass`) run for the whole measurement. Median ms of "
             f"{args.reps_small} (small) / {args.reps_large} (large) calls after a warm-up, each "
             f"measurement in a fresh process; {cores} threads vs one "
             "(`TEPAD_NUM_THREADS` / `TVM_NUM_THREADS` / `HL_NUM_THREADS`). 'par/1' is the "
             "parallel median over the single-threaded one: under 1.5 is the goal when busy.",
             "",
             "| kernel | size | implementation | quiet par | quiet 1 thr | quiet par/1 | "
             "busy par | busy 1 thr | busy par/1 |",
             "|---|---|---|---|---|---|---|---|---|"]
    for kernel, n, label, res in rows:
        lines.append(f"| {kernel} | {n}x{n} | {label} | {fmt(res['quiet', cores])} | "
                     f"{fmt(res['quiet', 1])} | {ratio(res['quiet', cores], res['quiet', 1])} | "
                     f"{fmt(res['busy', cores])} | {fmt(res['busy', 1])} | "
                     f"{ratio(res['busy', cores], res['busy', 1])} |")
    lines += ["", END]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reps-small", type=int, default=300)
    ap.add_argument("--reps-large", type=int, default=30)
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--baseline", help="path of another tepad checkout to time the same way")
    ap.add_argument("--out", help="RESULTS.md to write the section into (default: "
                                  "benchmarks/RESULTS.md unless --quick)")
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(json.loads(args.worker))))
        return 0
    if args.quick:
        args.reps_small, args.reps_large = 50, 5
    text = run(args)
    print(text)
    out = args.out or (None if args.quick else str(HERE / "RESULTS.md"))
    if out:
        write_section(out, text, HEADING, BEGIN, END)
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
