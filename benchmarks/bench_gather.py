#!/usr/bin/env python3
"""What the default index checks cost: gather-heavy kernels built with and without them.

    python benchmarks/bench_gather.py            writes its section of benchmarks/RESULTS.md
    python benchmarks/bench_gather.py --quick    fewer calls, prints only (unless --out)

Kernels (fp32, one thread: ``TEPAD_NUM_THREADS=1``, so the figures do not depend on how busy
the other core is): a 1-d gather ``B[i] = A[I[i]]`` (scalar loop and vectorized by 16), a row
gather ``B[i, j] = A[I[i], j]`` (j vectorized: one check per row of 16 lanes) and a 2-d point
gather ``B[i] = A[I[i], J[i]]``. Each is built with ``index_check=True`` (the default) and
``index_check=False``; the two are timed in alternating rounds in one process (median of all
calls), and both results are checked against numpy.
"""
from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
os.environ["TEPAD_NUM_THREADS"] = "1"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))
import numpy as np  # noqa: E402
from results_sections import cpu_name, write_section  # noqa: E402

import tepad  # noqa: E402
from tepad import te  # noqa: E402

HEADING = "## Index checks: cost on gathers"
BEGIN = "<!-- bench_gather: begin -->"
END = "<!-- bench_gather: end -->"


def gather_1d(vector: bool):
    n, m = 1 << 20, 1 << 22
    A = te.placeholder((n,), "float32", name="A")
    I = te.placeholder((m,), "int32", name="I")
    B = te.compute((m,), lambda i: A[I[i]], name="B")
    s = te.create_schedule(B.op)
    if vector:
        _, ii = s[B].split(B.op.axis[0], factor=16)
        s[B].vectorize(ii)
    rng = np.random.default_rng(0)
    a = rng.random(n, dtype="float32")
    idx = rng.integers(0, n, m, dtype="int32")
    return s, [A, I, B], [a, idx], np.zeros(m, "float32"), a[idx]


def gather_rows():
    n, rows, cols = 8192, 16384, 64
    A = te.placeholder((n, cols), "float32", name="A")
    I = te.placeholder((rows,), "int32", name="I")
    B = te.compute((rows, cols), lambda i, j: A[I[i], j], name="B")
    s = te.create_schedule(B.op)
    s[B].vectorize(B.op.axis[1])
    rng = np.random.default_rng(1)
    a = rng.random((n, cols), dtype="float32")
    idx = rng.integers(0, n, rows, dtype="int32")
    return s, [A, I, B], [a, idx], np.zeros((rows, cols), "float32"), a[idx]


def gather_2d():
    h, w, m = 2048, 2048, 1 << 21
    A = te.placeholder((h, w), "float32", name="A")
    I = te.placeholder((m,), "int32", name="I")
    J = te.placeholder((m,), "int32", name="J")
    B = te.compute((m,), lambda i: A[I[i], J[i]], name="B")
    s = te.create_schedule(B.op)
    rng = np.random.default_rng(2)
    a = rng.random((h, w), dtype="float32")
    ii = rng.integers(0, h, m, dtype="int32")
    jj = rng.integers(0, w, m, dtype="int32")
    return s, [A, I, J, B], [a, ii, jj], np.zeros(m, "float32"), a[ii, jj]


KERNELS = [
    ("1-d gather A[I[i]], 4M of 1M, scalar loop", lambda: gather_1d(False)),
    ("1-d gather A[I[i]], 4M of 1M, vectorized 16", lambda: gather_1d(True)),
    ("row gather A[I[i], j], 16384 rows of 64, j vectorized", gather_rows),
    ("2-d gather A[I[i], J[i]], 2M of 2048x2048", gather_2d),
]


def measure(make, rounds: int, per_round: int):
    s, args, ins, out, want = make()
    mods = {flag: tepad.build(s, args, index_check=flag) for flag in (True, False)}
    times = {True: [], False: []}
    for flag, mod in mods.items():
        out[...] = 0
        mod(*ins, out)
        assert np.array_equal(out, want), f"index_check={flag}: wrong result"
    for _ in range(rounds):
        for flag, mod in mods.items():
            for _ in range(per_round):
                t0 = time.perf_counter()
                mod(*ins, out)
                times[flag].append(time.perf_counter() - t0)
    checks = mods[True].messages
    return statistics.median(times[True]), statistics.median(times[False]), len(checks)




def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--per-round", type=int, default=5)
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    if args.quick:
        args.rounds, args.per_round = 2, 2
    rows = []
    for name, make in KERNELS:
        on, off, n_checks = measure(make, args.rounds, args.per_round)
        rows.append((name, on, off, n_checks))
        print(f"{name}: checked {on * 1e3:.3f} ms, unchecked {off * 1e3:.3f} ms", flush=True)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [HEADING, "", BEGIN, "",
             f"Measured {datetime.date.today()} with `benchmarks/bench_gather.py` on "
             f"{cpu_name()} (target: the host CPU, `llvm`; one thread; load average "
             f"{load:.1f} from other sessions). Median ms of {args.rounds * args.per_round} "
             "calls each, the two builds alternating. 'checks': the index checks in the "
             "kernel (one per data-dependent access; a vector access has one for all its "
             "lanes). Other sessions load this host: differences of ~10 % are noise here.",
             "",
             "| kernel | index_check=True (default) | index_check=False | cost | checks |",
             "|---|---|---|---|---|"]
    for name, on, off, n in rows:
        lines.append(f"| {name} | {on * 1e3:.3f} | {off * 1e3:.3f} | "
                     f"{(on / off - 1) * 100:+.1f} % | {n} |")
    lines += ["", END]
    text = "\n".join(lines)
    print(text)
    out = args.out or (None if args.quick else str(HERE / "RESULTS.md"))
    if out:
        write_section(out, text, HEADING, BEGIN, END)
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
