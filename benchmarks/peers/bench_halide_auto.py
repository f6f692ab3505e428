#!/usr/bin/env python3
"""Peer benchmark: Halide's autoschedulers on the auto-scheduler benchmark's computes.

    pip install halide                       (the halide 21 wheel ships the plugins)
    HL_NUM_THREADS=2 python benchmarks/peers/bench_halide_auto.py [--small] [OP ...]
                                             [--schedulers Adams2019,Mullapudi2016,Li2018]
                                             [--write]   (its section of RESULTS.md)

The five computes of ``benchmarks/auto_workloads.py`` (matmul + add, conv2d with its padding,
depthwise conv2d, softmax, batch matmul), written as Halide Funcs with the same sizes, each
scheduled by Halide's autoschedulers with no hand schedule: Adams2019 (a beam search over a
learned cost model, with the weights the wheel ships; it measures nothing), Mullapudi2016 and
Li2018 (analytical). ``parallelism`` is the number of threads. Pipelines are JIT-compiled with
``compile_to_callable`` for ``get_jit_target_from_environment()`` (with
``$TEPAD_BENCH_ISA=avx2``: AVX2 + FMA, the assembly checked for AVX-512), checked against the
numpy reference of ``auto_workloads.reference`` before they are timed.

``hl.Buffer(ndarray)`` reverses the axes: numpy's last axis is Halide's first, so every Halide
index below is written innermost first. One JSON line per (op, autoscheduler) as
``peer_common.emit`` writes them, with ``schedule_s`` (the autoscheduler's run) and
``compile_s``.
"""
from __future__ import annotations

import importlib.metadata
import os
import sys
import time
from pathlib import Path

import halide as hl
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import auto_workloads as aw  # noqa: E402
from peer_common import check, check_assembly, emit, isa, time_call  # noqa: E402
from results_sections import cpu_name, write_section  # noqa: E402

PEER = "halide-auto"
ISA = isa()
TARGET = (hl.Target("x86-64-linux-avx-avx2-f16c-fma-sse41") if ISA == "avx2"
          else hl.get_jit_target_from_environment())
F32 = hl.Float(32)
SCHEDULERS = ("Adams2019", "Mullapudi2016", "Li2018")
SMALL = {"matmul": dict(n=64), "conv2d": dict(c=8, k=8, h=14, w=14),
         "depthwise": dict(c=8, h=14, w=14), "softmax": dict(n=64, m=64),
         "batch_matmul": dict(b=2, n=32)}
REPS = 10
_LOADED: set = set()


def load_plugin(name: str) -> None:
    """Load ``libautoschedule_<name>.so`` from the wheel's lib folder (once)."""
    if name in _LOADED:
        return
    lib = Path(hl.__file__).parent
    for sub in ("lib64", "lib"):
        path = lib / sub / f"libautoschedule_{name.lower()}.so"
        if path.exists():
            hl.load_plugin(str(path))
            _LOADED.add(name)
            return
    raise FileNotFoundError(f"no libautoschedule_{name.lower()}.so in the halide wheel")


SHAPES: dict = {}       # input name -> its numpy shape, for the inputs of the op defined last


def image(name: str, shape) -> hl.ImageParam:
    """An input of numpy ``shape`` (Halide extents reversed), bounds and estimates set."""
    p = hl.ImageParam(F32, len(shape), name)
    SHAPES[name] = tuple(shape)
    stride = 1
    for dim, extent in enumerate(reversed(shape)):
        p.dim(dim).set_bounds(0, extent).set_stride(stride).set_estimate(0, extent)
        stride *= extent
    return p


def define(op: str, s: dict):
    """(output Func, its numpy shape, the input ImageParams) of ``op`` at sizes ``s``."""
    x, y, z, w = (hl.Var(v) for v in "xyzw")
    if op == "matmul":
        n = s["n"]
        A, B, C = image("A", (n, n)), image("B", (n, n)), image("C", (n, n))
        k = hl.RDom([(0, n)])
        mm = hl.Func("matmul")
        mm[x, y] = hl.f32(0)
        mm[x, y] += A[k.x, y] * B[x, k.x]
        out = hl.Func("out")
        out[x, y] = mm[x, y] + C[x, y]
        return out, (n, n), [A, B, C]
    if op in ("conv2d", "depthwise"):
        c, h, wd = s["c"], s["h"], s["w"]
        k = s.get("k", c)
        X = image("data", (1, c, h, wd))
        Wt = image("weight", (k, c, 3, 3) if op == "conv2d" else (c, 1, 3, 3))
        pad = hl.BoundaryConditions.constant_exterior(X, hl.f32(0), [(0, wd), (0, h)])
        out = hl.Func("conv")
        out[x, y, z, w] = hl.f32(0)
        if op == "conv2d":
            r = hl.RDom([(0, 3), (0, 3), (0, c)])
            out[x, y, z, w] += pad[x + r.x - 1, y + r.y - 1, r.z, w] * Wt[r.x, r.y, r.z, z]
        else:
            r = hl.RDom([(0, 3), (0, 3)])
            out[x, y, z, w] += pad[x + r.x - 1, y + r.y - 1, z, w] * Wt[r.x, r.y, 0, z]
        return out, (1, k, h, wd), [X, Wt]
    if op == "softmax":
        n, m = s["n"], s["m"]
        X = image("x", (n, m))
        r = hl.RDom([(0, m)])
        mx, e, total, out = (hl.Func(f) for f in ("mx", "e", "total", "out"))
        mx[y] = hl.maximum(X[r.x, y])
        e[x, y] = hl.exp(X[x, y] - mx[y])
        total[y] = hl.sum(e[r.x, y])
        out[x, y] = e[x, y] / total[y]
        return out, (n, m), [X]
    if op == "batch_matmul":
        b, n = s["b"], s["n"]
        A, B = image("A", (b, n, n)), image("B", (b, n, n))
        k = hl.RDom([(0, n)])
        out = hl.Func("bmm")
        out[x, y, z] = hl.f32(0)
        out[x, y, z] += A[k.x, y, z] * B[x, k.x, z]
        return out, (b, n, n), [A, B]
    raise ValueError(f"unknown op {op!r}; known: {list(aw.BUILDERS)}")


def build(op: str, s: dict, scheduler: str):
    """(callable, output shape, input params, autoscheduler seconds, compile seconds)."""
    load_plugin(scheduler)
    out, shape, params = define(op, s)
    out.set_estimates([(0, e) for e in reversed(shape)])
    pipeline = hl.Pipeline(out)
    threads = os.environ.get("HL_NUM_THREADS") or str(os.cpu_count() or 1)
    start = time.perf_counter()
    pipeline.apply_autoscheduler(TARGET, hl.AutoschedulerParams(scheduler,
                                                                {"parallelism": threads}))
    schedule_s = time.perf_counter() - start
    start = time.perf_counter()
    if ISA != "host":
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "kernel.s")
            pipeline.compile_to_assembly(path, params, "kernel", TARGET)
            with open(path) as f:
                check_assembly(f.read(), f"halide {op} {scheduler}", ISA)
    fn = pipeline.compile_to_callable(params, TARGET)
    return fn, shape, params, schedule_s, time.perf_counter() - start


SECTION = "## Halide's autoschedulers on the auto-scheduler computes"
BEGIN, END = "<!-- bench_halide_auto:begin -->", "<!-- bench_halide_auto:end -->"


def write_results(records: list, path: Path, note: str = "") -> None:
    """The RESULTS.md section of this run's records (``note``: a sentence more)."""
    info = next((r for r in records if r["workload"] == "INFO"), {})
    rows = ["| op | sizes | autoscheduler | median ms | min ms | GFLOP/s (median) | "
            "autoscheduler s |", "|---|---|---|---:|---:|---:|---:|"]
    for r in records:
        if r["workload"] == "INFO":
            continue
        if "median_s" not in r:
            rows.append(f"| {r['workload']} | | {r['variant']} | {r.get('error', '')[:80]} "
                        "| | | |")
            continue
        sz = ", ".join(f"{k}={v}" for k, v in r["sizes"].items())
        rows.append(f"| {r['workload']} | {sz} | {r['variant']} | {r['median_s'] * 1e3:.3f} | "
                    f"{r['min_s'] * 1e3:.3f} | {r['gflops_median']:.1f} | "
                    f"{r['schedule_s']:.1f} |")
    load = os.getloadavg()[0]
    text = "\n".join([
        SECTION, "", BEGIN, "",
        f"`HL_NUM_THREADS={info.get('HL_NUM_THREADS')} python "
        f"benchmarks/peers/bench_halide_auto.py --write` on {cpu_name()} (halide "
        f"{info.get('halide')}, target `{info.get('target')}`, load average {load:.1f} at the "
        "end). The computes and sizes are `benchmarks/auto_workloads.py`'s, each scheduled by "
        "one of Halide's autoschedulers with no hand schedule and checked against numpy; "
        "Adams2019 searches over its learned cost model (the wheel's weights) and measures "
        "nothing, Mullapudi2016 and Li2018 are analytical. Medians of "
        f"{REPS} calls after a warm-up." + (f" {note}" if note else ""), "", *rows, "", END])
    write_section(path, text, SECTION, BEGIN, END)


def run(op: str, sizes: dict, scheduler: str) -> dict:
    try:
        fn, shape, params, schedule_s, compile_s = build(op, sizes, scheduler)
        rng = np.random.default_rng(0)
        ins = [rng.standard_normal(SHAPES[p.name()]).astype("float32") for p in params]
        out = np.zeros(shape, "float32")
        bufs = [hl.Buffer(a) for a in ins] + [hl.Buffer(out)]
        fn(*bufs)
        err = check(out, aw.reference(op, ins), rtol=1e-3, atol=1e-3)
        fields = time_call(lambda: fn(*bufs), REPS)
        fields["gflops_median"] = aw.flop(op, sizes) / fields["median_s"] / 1e9
        rec = dict(workload=op, variant=scheduler, **fields, schedule_s=schedule_s,
                   compile_s=compile_s, max_abs_err=err, sizes=sizes)
    except Exception as err:  # noqa: BLE001 - one failing variant must not stop the rest
        rec = dict(workload=op, variant=f"{scheduler} FAILED",
                   error=f"{type(err).__name__}: {err}"[:400])
    emit(PEER, **rec)
    return rec


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    small = "--small" in argv
    write = "--write" in argv
    schedulers = SCHEDULERS
    if "--schedulers" in argv:
        k = argv.index("--schedulers")
        schedulers = tuple(argv[k + 1].split(","))
        del argv[k:k + 2]
    ops = [a for a in argv if not a.startswith("--")] or list(aw.BUILDERS)
    info = dict(workload="INFO", variant="versions", halide=importlib.metadata.version("halide"),
                numpy=np.__version__, isa=ISA, target=str(TARGET),
                HL_NUM_THREADS=os.environ.get("HL_NUM_THREADS"))
    emit(PEER, **info)
    records = [info]
    for op in ops:
        sizes = dict((SMALL if small else aw.SIZES).get(op, {}))
        for scheduler in schedulers:
            records.append(run(op, sizes, scheduler))
    if write and not small:
        write_results(records, Path(__file__).resolve().parents[1] / "RESULTS.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
