#!/usr/bin/env python3
"""Compile time (lower, build) as pipelines grow, interval and exact InferBound.

    python benchmarks/bench_compile.py            the table; updates RESULTS.md's section
    python benchmarks/bench_compile.py --quick    N = 5, 10 only; writes nothing unless --out
    options: --reps R (default 3)   --ns 5,10,20   --out PATH   --timeout S

Workloads (256 x 256 fp32, stage k reads stage k - 1):

* ``clamped @ output tile``: ``S_k[i, j] = S_{k-1}[i, j] + S_{k-1}[min(i + 1, 255), j] * 0.5``,
  the last stage tiled 32 x 32, every other stage computed at the output's column-tile loop;
* ``clamped @ consumer tile``: the same stencil, every stage tiled 32 x 32 and computed at its
  consumer's column-tile loop (the attach depth grows with N);
* ``clamped @ consumer column``: the same stencil, the output tiled 32 x 32, the stage before
  it at the output's column-tile loop, every other stage at its (untiled) consumer's column
  loop (the measurement; depth N, and work that doubles per level: compiled, not run);
* ``shifted @ output tile`` / ``shifted @ consumer tile``: ``S_{k-1}[i + 1, j]`` instead of the
  clamp (each stage one row smaller), attached as above;
* the tiled conv2d and matmul of ``examples/`` (their default sizes).

Each point runs in a fresh process (nothing cached between points); inside it, after a
2-stage chain is lowered and built once (``warm_up``: the process's first lower and build load
ISL, LLVM and lazily imported modules, reported on their own as the ``first use`` row), ``--reps``
fresh schedules are lowered and built with the simplifier's memo and the compile cache
emptied before each, and the median is reported (ms of process CPU time, which other jobs on a
shared machine disturb less than wall-clock time). ``timeout`` marks points past
``--timeout`` seconds (later N of that row are skipped). Deep nesting (every stage inside the
previous one's loops) no longer stops the IR visitors: lowering and building run on a deep
stack (``tepad.lower.deep_stack``).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))
from results_sections import cpu_name, write_section  # noqa: E402

NS = (5, 10, 12, 20, 50, 100)
SIZE, TILE = 256, 32
SECTION = "## Compile time"
BEGIN, END = "<!-- bench_compile -->", "<!-- /bench_compile -->"

CHAINS = {
    "clamped @ output tile": ("clamped", "output"),
    "clamped @ consumer tile": ("clamped", "tiled"),
    "clamped @ consumer column": ("clamped", "column"),
    "shifted @ output tile": ("shifted", "output"),
    "shifted @ consumer tile": ("shifted", "tiled"),
}
EXAMPLES = ("conv2d", "matmul")
#: the pseudo-workload timing a process's first lower and build (see ``warm_up``)
FIRST_USE = "first use"


def chain(n, stencil="clamped", attach="output", size=SIZE, tile=TILE):
    """The stencil chain of ``n`` stages (see the module docstring): ``(s, [A, out])``."""
    from tepad import te, tir
    rows = size + (n if stencil == "shifted" else 0)
    A = te.placeholder((rows, size), "float32", name="A")
    t, stages = A, []
    for k in range(n):
        src = t
        if stencil == "clamped":
            shape = (size, size)
            last = size - 1

            def body(i, j, src=src, last=last):
                return src[i, j] + src[tir.min(i + 1, last), j] * 0.5
        else:
            shape = (rows - k - 1, size)

            def body(i, j, src=src):
                return src[i, j] + src[i + 1, j] * 0.5
        t = te.compute(shape, body, name=f"S{k + 1}")
        stages.append(t)
    s = te.create_schedule(t.op)
    out = stages[-1]
    _, jo, _, _ = s[out].tile(out.op.axis[0], out.op.axis[1], tile, tile)
    if attach == "output":
        for p in stages[:-1]:
            s[p].compute_at(s[out], jo)
    elif attach == "tiled":
        at = {out: jo}
        for p in stages[:-1]:
            at[p] = s[p].tile(p.op.axis[0], p.op.axis[1], tile, tile)[1]
        for k in range(n - 1, 0, -1):
            s[stages[k - 1]].compute_at(s[stages[k]], at[stages[k]])
    else:
        for k in range(n - 1, 0, -1):
            cons = stages[k]
            s[stages[k - 1]].compute_at(s[cons], jo if cons is out else cons.op.axis[1])
    return s, [A, out]


def _example(name):
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.schedule()


def _fresh_caches():
    from tepad.arith.context import MEMO
    from tepad.codegen.compiler import clear_cache
    MEMO.clear()
    clear_cache()


def warm_up(exact):
    """Lower and build a 2-stage chain in this (fresh) process: ``(lower ms, build ms)`` of
    CPU time. The first lower and build of a process load ISL, LLVM and tepad's lazily
    imported modules (once per process, like ``import tepad``; the table's ``first use``
    row): ``measure`` pays that here, so that every point (one schedule or several) times
    lowering and building alone."""
    import tepad
    s, args = chain(2, "clamped", "tiled")
    t0 = time.process_time()
    f = tepad.lower(s, args, exact_bounds=exact)
    t1 = time.process_time()
    tepad.build(f)
    return (t1 - t0) * 1e3, (time.process_time() - t1) * 1e3


def measure(workload, n, exact, reps):
    """``(lower ms, build ms)`` medians over ``reps`` fresh schedules, in this process (after
    ``warm_up``; the ``first use`` workload: the warm-up's own figures)."""
    import tepad
    first = warm_up(exact)
    if workload == FIRST_USE:
        return first
    lows, builds = [], []
    for _ in range(reps):
        _fresh_caches()
        s, args = _example(workload) if workload in EXAMPLES else chain(n, *CHAINS[workload])
        t0 = time.process_time()
        f = tepad.lower(s, args, exact_bounds=exact)
        t1 = time.process_time()
        tepad.build(f)
        t2 = time.process_time()
        lows.append((t1 - t0) * 1e3)
        builds.append((t2 - t1) * 1e3)
    return statistics.median(lows), statistics.median(builds)


def _point(workload, n, exact, reps, timeout):
    """One measurement in a fresh process: ``(lower, build)`` or a short error string."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--point", workload, str(n),
           "1" if exact else "0", str(reps)]
    env = dict(os.environ, TEPAD_COMPILE_CACHE="0")
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return "timeout"
    for line in reversed(p.stdout.splitlines()):
        if line.startswith("{"):
            r = json.loads(line)
            return r.get("error") or (r["lower"], r["build"])
    return (p.stderr.strip().splitlines() or ["error"])[-1][:60]




def _fmt(x):
    if isinstance(x, str):
        return x
    lo, bu = x
    return f"{lo:.0f} / {bu:.0f}"


def run(ns, reps, timeout, log=print):
    """Rows ``(workload, n or '-', interval point, exact point)``."""
    rows = []
    for w in CHAINS:
        skip = {}
        for n in ns:
            cells = []
            for exact in (False, True):
                if skip.get(exact):
                    cells.append(skip[exact])
                    continue
                t0 = time.perf_counter()
                r = _point(w, n, exact, reps if n <= 20 else 1, timeout)
                if isinstance(r, str):
                    skip[exact] = f"({r})" if r.startswith("(") else f"({r.split(':')[0]})"
                cells.append(r)
                log(f"  {w:28s} N={n:<4d} {'exact' if exact else 'interval':8s} {_fmt(r):>16s}"
                    f"   [{time.perf_counter() - t0:.1f} s]")
            rows.append((w, n, *cells))
    for w in EXAMPLES:
        cells = [_point(w, 0, exact, reps, timeout) for exact in (False, True)]
        log(f"  {w:28s} {_fmt(cells[0]):>16s} {_fmt(cells[1]):>16s}")
        rows.append((f"examples/{w}.py", "-", *cells))
    cells = [_point(FIRST_USE, 2, exact, 1, timeout) for exact in (False, True)]
    log(f"  {FIRST_USE:28s} {_fmt(cells[0]):>16s} {_fmt(cells[1]):>16s}")
    rows.append((f"{FIRST_USE}: a process's first lower / build (2-stage chain)", 2, *cells))
    return rows


def markdown(rows, reps, timeout=60.0):
    out = [SECTION, "", BEGIN,
           f"`python benchmarks/bench_compile.py` on {cpu_name()} ({os.cpu_count()} CPUs), "
           f"Python {platform.python_version()}. Lower / build in ms of process CPU time (the "
           "machine is shared with other jobs; CPU time is what they disturb least), each point "
           "in a fresh "
           f"process, median of {reps} fresh schedules for N <= 20 (one for larger N), simplifier "
           "memo and compile cache emptied before each, after a 2-stage chain lowered and built "
           "in the same mode (the process's first lower and build load ISL, LLVM and tepad's "
           "lazily imported modules once: the last row gives that first call). Workloads: see the script's docstring "
           f"(256 x 256 fp32 stencil chains, 32 x 32 tiles). `timeout`: over {timeout:.0f} s of "
           "wall-clock time; later N of that row are skipped.", "",
           "| workload | N | interval: lower / build | exact: lower / build |",
           "|---|---:|---:|---:|"]
    for w, n, a, b in rows:
        out.append(f"| {w} | {n} | {_fmt(a)} | {_fmt(b)} |")
    out += ["", END]
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--point", nargs=4, help=argparse.SUPPRESS)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--ns", default=None)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    if a.point:
        w, n, exact, reps = a.point
        try:
            lo, bu = measure(w, int(n), exact == "1", int(reps))
            print(json.dumps({"lower": lo, "build": bu}))
        except RecursionError:
            print(json.dumps({"error": "RecursionError"}))
        except Exception as e:      # reported in the table, not raised
            print(json.dumps({"error": re.sub(r"\s+", " ", f"{type(e).__name__}: {e}")[:60]}))
        return
    ns = tuple(int(x) for x in a.ns.split(",")) if a.ns else ((5, 10) if a.quick else NS)
    t0 = time.perf_counter()
    rows = run(ns, a.reps, a.timeout)
    text = markdown(rows, a.reps, a.timeout)
    print()
    print(text)
    print(f"\n({time.perf_counter() - t0:.0f} s)")
    out = a.out or (None if a.quick else HERE / "RESULTS.md")
    if out:
        write_section(out, text, SECTION, BEGIN, END)


if __name__ == "__main__":
    main()
