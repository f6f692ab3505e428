"""The demo's matmul (``python -m tepad demo``: examples/matmul.py's schedule for the host
target) against numpy's ``a @ b``, for each instruction set of ``--isa``.

    python benchmarks/bench_demo.py                        host and avx2, 1 thread, CPU time
    python benchmarks/bench_demo.py --isa avx2 --threads 0 --clock wall
    python benchmarks/bench_demo.py --out benchmarks/RESULTS.md     also write its section

Each ISA runs in fresh worker processes (``--procs``), because what it changes is read at
start-up: ``avx2`` sets ``TEPAD_HOST_TARGET=haswell`` (tepad acts as on an AVX2 + FMA CPU: the
demo's schedule takes 8 fp32 lanes and 16 registers, and LLVM emits no AVX-512, which the
worker checks in the kernel's assembly) and pins numpy to AVX2 as ``benchmarks/isa.py`` does
(``OPENBLAS_CORETYPE=Haswell``); ``host`` leaves both to the machine. Both drop the caller's
``OPENBLAS_CORETYPE`` / ``OPENBLAS_L2_SIZE`` overrides. A worker checks the result against
numpy, then times tepad and numpy call by call in ``--rounds`` interleaved rounds; a figure is
the median over the workers of each worker's median. The report names the CPU and the BLAS
kernel numpy ran.
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
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import isa as isas  # noqa: E402
import results_sections  # noqa: E402

#: what ``TEPAD_HOST_TARGET`` is for each ISA (None: unset, the machine's CPU)
HOST_TARGET = {"host": None, "avx2": "haswell"}
SECTION = "## The demo's matmul against numpy, per instruction set"
BEGIN, END = "<!-- bench_demo:begin -->", "<!-- bench_demo:end -->"


def worker_env(isa: str, threads: int, env: dict | None = None) -> dict:
    """The environment of a worker timing ``isa``: ``isa.worker_env``'s (numpy pinned for
    avx2, OpenBLAS overrides dropped), ``TEPAD_HOST_TARGET`` set or removed, and the thread
    count of both tools (``threads`` 0: theirs)."""
    out = isas.worker_env(isa, env)
    out.pop("TEPAD_HOST_TARGET", None)
    if HOST_TARGET[isa]:
        out["TEPAD_HOST_TARGET"] = HOST_TARGET[isa]
    for k in ("TEPAD_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        out.pop(k, None)
        if threads:
            out[k] = str(threads)
    return out


def run_worker(n: int, rounds: int, clock_name: str) -> dict:
    """Build the demo's matmul for the host target, check it, time it and numpy's ``@``."""
    import numpy as np
    import tepad
    from tepad import demo
    from tepad.target import Target, describe_host

    import run as bench_run
    title, s, args, inputs, ref = demo.matmul_kernel(n)
    mod = tepad.build(s, args)
    isa = isas.current()
    isas.check_assembly(mod.get_source("asm"), "tepad demo matmul", isa)
    a, b = inputs
    out = np.zeros((n, n), "float32")
    mod(a, b, out)
    np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-3 * n / 1024)
    clock = time.process_time if clock_name == "cpu" else time.perf_counter
    for _ in range(2):
        mod(a, b, out)
        a @ b
    ts, tn = [], []
    for _ in range(rounds):
        t0 = clock()
        mod(a, b, out)
        t1 = clock()
        a @ b
        t2 = clock()
        ts.append(t1 - t0)
        tn.append(t2 - t1)
    t = Target("llvm")
    return {"isa": isa, "host": describe_host(), "title": title,
            "lanes": t.vector_lanes("float32"), "registers": t.vector_registers,
            "tepad_ms": 1e3 * statistics.median(ts), "tepad_min_ms": 1e3 * min(ts),
            "numpy_ms": 1e3 * statistics.median(tn), "numpy_min_ms": 1e3 * min(tn),
            "blas": bench_run.blas_info()}


def measure(isa: str, a) -> dict:
    """Median over ``a.procs`` workers of their medians, for ``isa``."""
    env = worker_env(isa, a.threads)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE.parent), env.get("PYTHONPATH", "")])
    rows = []
    for _ in range(a.procs):
        cmd = [sys.executable, str(Path(__file__)), "--worker", "--n", str(a.n),
               "--rounds", str(a.rounds), "--clock", a.clock]
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
        if r.returncode:
            raise SystemExit(f"bench_demo worker ({isa}) failed:\n{r.stdout}\n{r.stderr}")
        rows.append(json.loads(r.stdout.strip().splitlines()[-1]))
    out = dict(rows[0])
    for k in ("tepad_ms", "numpy_ms"):
        out[k] = statistics.median(r[k] for r in rows)
    for k in ("tepad_min_ms", "numpy_min_ms"):
        out[k] = min(r[k] for r in rows)
    return out


def render(results: list, info: dict, a) -> str:
    """The RESULTS.md section for ``results`` (one dict per ISA)."""
    threads = f"{a.threads} thread(s) for both" if a.threads else "all cores for both"
    clock = "process CPU time" if a.clock == "cpu" else "wall time"
    lines = [SECTION, "", BEGIN, "",
             f"`python benchmarks/bench_demo.py --isa {','.join(r['isa'] for r in results)} "
             f"--n {a.n} --threads {a.threads} --clock {a.clock} --procs {a.procs} --rounds "
             f"{a.rounds}` on {info['date']}: {info['cpu']['name']} (LLVM "
             f"`{info['cpu']['llvm_cpu']}`, {', '.join(info['cpu']['features'])}), "
             f"{info['cpu']['cores']} cores shared with other jobs (load average "
             f"{info['load'][0]:.2f} before the run, {info['load'][1]:.2f} after); {threads}; "
             f"{clock}.",
             "",
             "The kernel is the demo's (`tepad.demo.matmul_kernel`: examples/matmul.py's "
             "schedule for the host target, its panel width and register block read from the "
             "target: 8 x 2V with 32 vector registers, 4 x 3V with 16). `avx2` is this host acting as an AVX2 + FMA CPU "
             "(`TEPAD_HOST_TARGET=haswell`; the kernel's assembly is checked for AVX-512: "
             "none) with numpy's OpenBLAS pinned to its Haswell kernel: AVX2 code on this "
             "host's cores, caches and clock, not an AVX2 machine. Each figure is the median "
             f"over {a.procs} worker processes of each one's median of {a.rounds} calls, tepad "
             "and numpy interleaved call by call (minimum in brackets).",
             "",
             "| ISA | host target | tepad demo matmul ms | numpy `a @ b` ms | numpy / tepad "
             "| numpy's BLAS |",
             "|---|---|---:|---:|---:|---|"]
    for r in results:
        lines.append(f"| {r['isa']} | `{r['host']}` ({r['lanes']} fp32 lanes, "
                     f"{r['registers']} registers) | {r['tepad_ms']:.2f} "
                     f"({r['tepad_min_ms']:.2f}) | {r['numpy_ms']:.2f} ({r['numpy_min_ms']:.2f})"
                     f" | {r['numpy_ms'] / r['tepad_ms']:.2f}x | {r['blas']} |")
    lines += ["", "numpy / tepad above 1x: the demo's kernel is faster."]
    if info["cpu"]["llvm_cpu"] == "znver4":
        lines += ["", "On Zen 4 (LLVM `znver4`) a 512-bit FMA runs as two 256-bit halves: AVX-512 "
                  "and AVX2 code have the same FMA peak here, hence the close figures. A real "
                  "AVX2-only CPU (Zen 3, Haswell) differs in clock, caches and FMA latency."]
    lines += ["", END]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--isa", default="host,avx2", help="comma-separated: host, avx2")
    ap.add_argument("--n", type=int, default=1024, help="matmul size (n x n x n)")
    ap.add_argument("--threads", type=int, default=1, help="threads for both (0: all cores)")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="cpu")
    ap.add_argument("--procs", type=int, default=3, help="worker processes per ISA")
    ap.add_argument("--rounds", type=int, default=15, help="interleaved calls per worker")
    ap.add_argument("--out", default=None, help="markdown file for the section "
                    "(benchmarks/RESULTS.md); printed only when absent")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        print(json.dumps(run_worker(a.n, a.rounds, a.clock)))
        return 0
    import run as bench_run
    names = [isas.check_isa(x.strip()) for x in a.isa.split(",") if x.strip()]
    load0 = os.getloadavg()[0]
    results = [measure(name, a) for name in names]
    info = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "cpu": bench_run.cpu_info(), "load": (load0, os.getloadavg()[0])}
    text = render(results, info, a)
    print(text)
    if a.out:
        results_sections.write_section(a.out, text, SECTION, BEGIN, END)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
