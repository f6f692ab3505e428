#!/usr/bin/env python3
"""Plain tutorial schedules: W1-W5 with the schedules TVM's tutorials teach.

    python benchmarks/bench_plain.py                        every tool on all cores, wall clock
    python benchmarks/bench_plain.py --threads 1 --clock cpu   one thread each, process CPU time
    python benchmarks/bench_plain.py --small                check the plain schedules at small
                                                            sizes against numpy; times nothing
    options: --only W1,W3   --procs N   --rounds N   --no-peers   --out PATH
    python benchmarks/bench_plain.py --isa avx2 --threads 1 --clock cpu [--tuned-log LOG]
                                                            every tool builds AVX2 code

"Plain" means what a tutorial writes (tile, split, reorder, vectorize, parallel, compute_at),
once, as TE code, with none of the expert tricks (packed layouts, cache_write register blocks,
unrolled accumulators): ``plain_w1`` .. ``plain_w5`` below. Each is checked against numpy
before it is timed.

Timed in the same processes: tepad's plain schedule, tepad's expert schedule
(``examples/<name>.py``), numpy, and every schedule variant of the peers
(``benchmarks/peers/bench_tvm.py``, ``bench_halide.py``, imported and run in-process: their
own ``make()`` builds and checks each variant), in interleaved rounds so that every kernel sees
the same machine (the host is shared and its speed drifts). ``--procs`` worker processes each
report every kernel's median; a figure is the median of those medians. A peer's figure is its
best variant. tepad's kernels get 64-byte aligned arguments (``run.call_args``, as TVM's
tensors are; numpy's large arrays start 16 bytes off a cache line), numpy its own arrays. ``--threads 1`` sets TEPAD_NUM_THREADS, TVM_NUM_THREADS, HL_NUM_THREADS and
OPENBLAS_NUM_THREADS to 1 for the workers; ``--clock cpu`` times with ``time.process_time``
(the CPU time of the process: on a shared host it leaves out the time a thread waited for a
core; meaningful with one thread, where nothing spins).

``--isa avx2`` (``benchmarks/isa.py``) makes every tool build AVX2 + FMA code: tepad's
kernels are scheduled and built under its AVX2 target (the examples' widths follow it) and
their assembly is checked for AVX-512, as the peers check theirs; numpy runs OpenBLAS's
Haswell kernel and its AVX2 loops. ``--tuned-log LOG`` (a log of ``bench_tune.py`` for the
same ISA) adds "tuned": each AutoTVM template's best logged config, timed with the rest.

Full runs (not ``--small``) write the section "Plain tutorial schedules" of
``benchmarks/RESULTS.md`` between ``<!-- bench_plain:begin/end -->`` markers; with ``--isa
avx2``, the section "AVX2 code on this host" between ``<!-- bench_plain_avx2:
begin/end -->`` markers instead.
"""
from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import isa as isas  # noqa: E402
import results_sections  # noqa: E402
from run import (WORKLOADS, blas_info, call_args, cpu_info, fmt_ms,  # noqa: E402
                 load_example, peer_dir)

import numpy as np  # noqa: E402

import tepad  # noqa: E402
from tepad import autotvm, te, tir  # noqa: E402

BEGIN, END = "<!-- bench_plain:begin -->", "<!-- bench_plain:end -->"
SECTION = "## Plain tutorial schedules"
ISA_SECTION = "## {ISA} code on this host"
ISA_BEGIN, ISA_END = "<!-- bench_plain_{isa}:begin -->", "<!-- bench_plain_{isa}:end -->"
WL = {w.key: w for w in WORKLOADS}
TARGET_ROUND_S = 0.04     # time per kernel per round (calls = this / one call's time)
MAX_CALLS = 200


# ----------------------------------------------------------------------------- the schedules
def plain_w1(n=4096):
    """Elementwise ``max(A*B+1, 0)``: rows in parallel, the row split by 16 and vectorized
    (the vector-add tutorial's split / parallel / vectorize, in two dimensions)."""
    A = te.placeholder((n, n), "float32", name="A")
    B = te.placeholder((n, n), "float32", name="B")
    C = te.compute((n, n), lambda i, j: tir.max(A[i, j] * B[i, j] + 1.0, 0.0), name="C")
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    _, ji = s[C].split(j, factor=16)
    s[C].vectorize(ji)
    s[C].parallel(i)
    return s, [A, B, C]


def plain_w2(n=1024):
    """Matmul, TVM's opt_gemm tutorial up to its loop permutation: 32x32 tiles, k split by 4,
    loops (mo, no, ko, mi, ki, ni), the tile's columns vectorized, row tiles in parallel."""
    A = te.placeholder((n, n), "float32", name="A")
    B = te.placeholder((n, n), "float32", name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], 32, 32)
    ko, ki = s[C].split(k, factor=4)
    s[C].reorder(mo, no, ko, mi, ki, ni)
    s[C].vectorize(ni)
    s[C].parallel(mo)
    return s, [A, B, C]


def plain_w3(n=4096):
    """Two-stage blur, the classic schedule: blur_y in 256x32 tiles (rows of tiles parallel,
    the tile's row vectorized), blur_x computed at the tile, its row vectorized. That is the
    schedule of ``examples/blur.py`` itself (stages ``Bx``, ``By``): the expert W3 is the
    tutorial's."""
    return load_example("blur").schedule(n, ty=32, tx=256)


def plain_w4(c=64, k=64, h=56, w=56):
    """conv2d NCHW, pad 1: the padded input computed at the root (channels in parallel); the
    convolution with its reduction outside the output row, the row vectorized, output
    channels in parallel."""
    X = te.placeholder((1, c, h, w), "float32", name="X")
    W = te.placeholder((k, c, 3, 3), "float32", name="W")
    Xp = te.compute((1, c, h + 2, w + 2), lambda b, ci, y, x: tir.if_then_else(
        tir.all(y >= 1, y <= h, x >= 1, x <= w), X[b, ci, y - 1, x - 1],
        tir.const(0.0, "float32")), name="Xp")
    rc = te.reduce_axis((0, c), name="rc")
    ry = te.reduce_axis((0, 3), name="ry")
    rx = te.reduce_axis((0, 3), name="rx")
    Y = te.compute((1, k, h, w), lambda b, f, y, x: te.sum(
        Xp[b, rc, y + ry, x + rx] * W[f, rc, ry, rx], axis=[rc, ry, rx]), name="Y")
    s = te.create_schedule(Y.op)
    b, f, y, x = Y.op.axis
    s[Y].reorder(b, f, y, rc, ry, rx, x)
    s[Y].vectorize(x)
    s[Y].parallel(f)
    s[Xp].parallel(s[Xp].op.axis[1])
    return s, [X, W, Y]


def plain_w5(rows=16384, cols=14):
    """Row sums: rows split by 256, the blocks in parallel; the reduction as written."""
    A = te.placeholder((rows, cols), "float32", name="A")
    j = te.reduce_axis((0, cols), name="j")
    B = te.compute((rows,), lambda i: te.sum(A[i, j], axis=j), name="B")
    s = te.create_schedule(B.op)
    io, _ = s[B].split(B.op.axis[0], factor=256)
    s[B].parallel(io)
    return s, [A, B]


# Extra tepad-plain kernels timed beside a workload: W2's at a size whose rows are not a
# power of two bytes apart (1024 floats = 4 KiB: every row of a tile maps to the same L1 sets)
EXTRA = {"W2": ("plain, n=1056", dict(n=1056))}
SAME_PLAIN = "TVM given the same plain schedule"   # W2, W4: not a peer variant
PLAIN = {"W1": plain_w1, "W2": plain_w2, "W3": plain_w3, "W4": plain_w4, "W5": plain_w5}
# small sizes for the test and --small (W3's n - 2 leaves a partial 256-column tile)
SMALL = {"W1": dict(n=256), "W2": dict(n=128), "W3": dict(n=300),
         "W4": dict(c=8, k=8, h=14, w=14), "W5": dict(rows=1000, cols=14)}


def _sizes(key, small):
    return dict(SMALL[key]) if small else dict(WL[key].full)


def build_plain(key, sizes):
    """The built plain kernel of workload ``key`` at ``sizes``, and its argument tensors."""
    s, args = PLAIN[key](**sizes)
    return tepad.build(s, args), args


def check_plain(key, sizes=None, small=True, isa="host") -> float:
    """Build workload ``key``'s plain schedule for ``isa`` (its assembly checked), run it on
    the example's inputs and compare it with numpy (``run.py``'s reference); returns max |err|
    / max |numpy|, raising AssertionError past the workload's tolerance."""
    sizes = sizes or _sizes(key, small)
    with isas.target_scope(isa):
        mod, args = build_plain(key, sizes)
    isas.check_assembly(mod.get_source("asm"), f"tepad {key} plain", isa)
    inputs = load_example(WL[key].example).inputs(**sizes)
    arrays, outs = call_args(args, inputs)
    mod(*arrays)
    ref = WL[key].numpy_fn(*inputs)
    out = outs[0]
    err = float(np.max(np.abs(out.astype(np.float64) - ref.reshape(out.shape))))
    err /= float(np.max(np.abs(ref))) or 1.0
    assert err <= WL[key].tol, f"{key} plain schedule: relative error {err:.2e}"
    return err


# ----------------------------------------------------------------------------- one worker
def _peer_module(name):
    """``benchmarks/peers/bench_<name>.py`` imported, or None when its package is missing."""
    if importlib.util.find_spec(name) is None:
        return None
    path = peer_dir() / f"bench_{name}.py"
    if not path.exists():
        return None
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(f"peer_bench_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def tuned_schedule(key, tuned_log):
    """``(schedule, args, config text)`` of workload ``key``'s AutoTVM template
    (``bench_tune.FULL_ARGS``) under the best config of ``tuned_log`` for the current target
    (``with Target``), or None when the log has no record of it."""
    import bench_tune          # registers the templates (examples/tune_templates.py)
    name, args = bench_tune.FULL_ARGS[key]
    target = tepad.target.Target.current() or tepad.target.Target("llvm")
    task = autotvm.task.create(name, args=args, target=target)
    with autotvm.apply_history_best(tuned_log) as ctx:
        cfg = ctx.query(target, task.workload)
    if isinstance(cfg, autotvm.FallbackConfigEntity):
        return None
    s, a = task.instantiate(cfg)
    return s, a, ", ".join(f"{k}={v}" for k, v in cfg._entity_map.items())


def kernels(key, sizes, peers=True, log=print, tuned_log=None) -> dict:
    """``{name: callable}`` for workload ``key``: "plain", "expert", "numpy", "tuned" (with
    ``tuned_log``, when it has the workload), and "tvm: <variant>" / "halide: <variant>" for
    each peer variant that builds and checks. tepad's kernels are built for the current
    target; with ``$TEPAD_BENCH_ISA=avx2`` their assembly must be free of AVX-512."""
    w = WL[key]
    out = {}
    ex = load_example(w.example)
    variants = [("plain", sizes, lambda: PLAIN[key](**sizes)),
                ("expert", sizes, lambda: ex.schedule(**sizes))]
    tuned = tuned_schedule(key, tuned_log) if tuned_log and key in PLAIN else None
    if tuned is not None:
        variants.append(("tuned", sizes, lambda: tuned[:2]))
        log(f"# tuned {key}: {tuned[2]}")
        out["#tuned config"] = tuned[2]
    if key in EXTRA:
        name, more = EXTRA[key]
        variants.append((name, more, lambda: PLAIN[key](**more)))
    for name, at, make in variants:
        inputs = ex.inputs(**at)
        ref = w.numpy_fn(*inputs)
        s, args = make()
        mod = tepad.build(s, args)
        isas.check_assembly(mod.get_source("asm"), f"tepad {key} {name}")
        arrays, outs = call_args(args, inputs)     # 64-byte aligned, as TVM's tensors
        mod(*arrays)
        got = outs[0]
        err = float(np.max(np.abs(got - ref.reshape(got.shape)))) / (
            float(np.max(np.abs(ref))) or 1.0)
        if err > w.tol:
            raise AssertionError(f"{key} {name}: relative error {err:.2e} > {w.tol}")
        out[name] = (lambda mod=mod, arrays=arrays: mod(*arrays))
    inputs = ex.inputs(**sizes)
    out["numpy"] = lambda: w.numpy_fn(*inputs)
    if peers:
        for peer in ("tvm", "halide"):
            pm = _peer_module(peer)
            if pm is None:
                continue
            for variant, make in pm.WORKLOADS[key](dict(sizes)):
                try:
                    run, _ = make()      # the peer's own build and check against numpy
                except Exception as err:  # noqa: BLE001 - a failing variant is left out
                    log(f"# {peer} {key} {variant}: FAILED {err!r}")
                    continue
                out[f"{peer}: {variant}"] = run
            if peer == "tvm":
                same = tvm_same_plain(pm, key, sizes)
                if same is not None:
                    out[SAME_PLAIN] = same
    return out


def tvm_same_plain(bt, key, sizes):
    """TVM (``bench_tvm`` module ``bt``) given tepad's plain W2 or W4 schedule, spelled in
    TensorIR: a run callable checked against numpy (not a peer variant: it is not counted as
    TVM's best, it tells whether a gap is the schedule's or tepad's code generation's)."""
    from tvm import s_tir, te as tte
    f32 = "float32"
    if key == "W2":
        n = sizes["n"]
        a, b, ref = bt.w2_data(n)
        A, B = tte.placeholder((n, n), f32, name="A"), tte.placeholder((n, n), f32, name="B")
        k = tte.reduce_axis((0, n), "k")
        C = tte.compute((n, n), lambda i, j: tte.sum(A[i, k] * B[k, j], axis=k), name="C")
        sch = s_tir.Schedule(tte.create_prim_func([A, B, C]))
        i, j, kk = sch.get_loops(sch.get_sblock("C"))
        mo, mi = sch.split(i, [None, 32])
        no, ni = sch.split(j, [None, 32])
        ko, ki = sch.split(kk, [None, 4])
        sch.reorder(mo, no, ko, mi, ki, ni)
        sch.vectorize(ni)
        sch.parallel(mo)
        args = [bt.on_device(a), bt.on_device(b), bt.on_device(np.zeros((n, n), np.float32))]
    elif key == "W4":
        c, k, h, w = sizes["c"], sizes["k"], sizes["h"], sizes["w"]
        x, wt, ref = bt.w4_data(c, k, h, w)
        sch = s_tir.Schedule(bt.w4_prim_func(c, k, h, w))
        conv = sch.get_sblock("conv")
        b_, f, y, x_, rcl, ryl, rxl = sch.get_loops(conv)
        sch.reorder(b_, f, y, rcl, ryl, rxl, x_)
        sch.vectorize(x_)
        sch.parallel(f)
        sch.parallel(sch.get_loops(sch.get_sblock("pad"))[1])
        sch.decompose_reduction(conv, rcl)
        args = [bt.on_device(x), bt.on_device(wt),
                bt.on_device(np.zeros((1, k, h, w), np.float32))]
    else:
        return None
    fn = bt.compile_schedule(sch)
    fn(*args)
    bt.check(args[-1].numpy(), ref, rtol=1e-4, atol=1e-3)
    return lambda: fn(*args)


def interleaved(fns: dict, rounds: int, clock) -> dict:
    """``{name: median seconds}``: ``rounds`` rounds, each calling every kernel for about
    TARGET_ROUND_S (at least once), one kernel after another."""
    calls = {}
    for k, f in fns.items():
        f()
        t0 = time.perf_counter()
        f()
        calls[k] = max(1, min(MAX_CALLS, round(TARGET_ROUND_S / max(time.perf_counter() - t0,
                                                                      1e-7))))
    ts = {k: [] for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            for _ in range(calls[k]):
                t0 = clock()
                f()
                ts[k].append(clock() - t0)
    return {k: statistics.median(v) for k, v in ts.items()}


def numpy_simd() -> str:
    """numpy's SIMD dispatch levels that are on in this process (X86_V3 = AVX2, X86_V4 and
    AVX512_* = AVX-512)."""
    from numpy._core._multiarray_umath import __cpu_features__ as feats
    levels = ("X86_V3", "X86_V4", "AVX512_ICL", "AVX512_SPR")
    return ", ".join(f"{k} {'on' if feats.get(k) else 'off'}" for k in levels if k in feats)


def worker(keys, rounds, clock_name, peers, tuned_log=None) -> dict:
    clock = time.process_time if clock_name == "cpu" else time.perf_counter
    res, configs = {}, {}
    with isas.target_scope():      # $TEPAD_BENCH_ISA: tepad schedules and builds for it
        for key in keys:
            fns = kernels(key, _sizes(key, False), peers,
                          log=lambda m: print(m, file=sys.stderr), tuned_log=tuned_log)
            if "#tuned config" in fns:
                configs[key] = fns.pop("#tuned config")
            res[key] = interleaved(fns, rounds, clock)
    return {"results": res, "blas": blas_info(), "numpy_simd": numpy_simd(),
            "tuned_configs": configs}


# ----------------------------------------------------------------------------- driver
def run_workers(keys, procs, rounds, threads, clock, peers, progress, isa="host",
                tuned_log=None) -> list[dict]:
    """Each worker process's ``{key: {kernel: median s}}``, the workers building ``isa``
    code (``benchmarks/isa.py``)."""
    env = isas.worker_env(isa)
    n = str(threads or os.cpu_count())
    env.update(TEPAD_NUM_THREADS=n, TVM_NUM_THREADS=n, HL_NUM_THREADS=n)
    if threads:
        env.update(OPENBLAS_NUM_THREADS=n, OMP_NUM_THREADS=n)
    out = []
    for p in range(procs):
        progress(f"worker {p + 1}/{procs}: {','.join(keys)}")
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--only", ",".join(keys),
               "--rounds", str(rounds), "--clock", clock] + ([] if peers else ["--no-peers"]) \
            + (["--tuned-log", str(tuned_log)] if tuned_log else [])
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=3600)
        sys.stderr.write(r.stderr[-3000:] if r.returncode else "")
        if r.returncode:
            raise RuntimeError(f"worker {p + 1} failed (exit {r.returncode})")
        out.append(json.loads(r.stdout.strip().splitlines()[-1]))
    return out


def _host_blas_kernel() -> str:
    """The OpenBLAS kernel numpy picks on this host when nothing overrides it (asked in a
    child process with the overrides removed)."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import run; "
            "print(run.blas_info())")
    r = subprocess.run([sys.executable, "-c", code, str(HERE)], capture_output=True, text=True,
                       env=isas.worker_env("host"), timeout=120)
    return r.stdout.strip().splitlines()[-1] if r.returncode == 0 and r.stdout.strip() else "?"


def _numpy_blas(workers: list[dict]) -> str:
    """The BLAS the workers' numpy ran (their environment, not this process's)."""
    return workers[0].get("blas", "?") if workers else "?"


def aggregate(per_proc: list[dict]) -> dict:
    """``{key: {kernel: median over processes of the process's median (ms)}}``."""
    res = {}
    for key in per_proc[0]:
        names = set.intersection(*(set(p[key]) for p in per_proc))
        res[key] = {n: statistics.median(p[key][n] for p in per_proc) * 1e3 for n in names}
    return res


def best(row: dict, peer: str):
    """(ms, variant) of ``peer``'s fastest variant in ``row``, or None."""
    c = [(ms, n.split(": ", 1)[1]) for n, ms in row.items() if n.startswith(peer + ": ")]
    return min(c) if c else None


def table(res: dict) -> str:
    tuned = any("tuned" in row for row in res.values())
    head = ["workload", "tepad plain ms", "tepad expert ms"] + (["tepad tuned ms"] if tuned
                                                                else []) \
        + ["numpy ms", "TVM best ms", "Halide best ms", "plain / best peer", "within 1.1x"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key, row in res.items():
        tv, hl = best(row, "tvm"), best(row, "halide")
        peers = [p[0] for p in (tv, hl) if p]
        ratio = row["plain"] / min(peers) if peers else None
        rows.append("| " + " | ".join([
            f"{key} {WL[key].title}", fmt_ms(row["plain"]), fmt_ms(row["expert"])]
            + ([fmt_ms(row["tuned"]) if "tuned" in row else "-"] if tuned else []) + [
            fmt_ms(row["numpy"]), fmt_ms(tv[0]) if tv else "-", fmt_ms(hl[0]) if hl else "-",
            f"{ratio:.2f}x" if ratio else "-",
            ("yes" if ratio <= 1.1 else "no") if ratio else "-"]) + " |")
    return "\n".join(rows)


def _peer_ms(row, *peers):
    """The fastest figure of ``peers`` in ``row`` (ms), or None."""
    found = [b[0] for b in (best(row, p) for p in peers) if b]
    return min(found) if found else None


def _tepad_ms(row):
    """tepad's best figure in ``row``: the expert schedule or, when timed, the tuned one."""
    return min(row[k] for k in ("expert", "tuned") if k in row)


# Issue 18's targets: (workload, target, what tepad is compared with: row -> (other ms,
# tepad ms), needed ratio other / tepad)
TARGETS = [
    ("W2", "tuned >= 0.9x OpenBLAS",
     lambda r: (r["numpy"], r.get("tuned", r["expert"])), 0.9),
    ("W3", "tepad >= Halide", lambda r: (_peer_ms(r, "halide"), _tepad_ms(r)), 1.0),
    ("W4", "tepad >= numpy im2col + BLAS", lambda r: (r["numpy"], _tepad_ms(r)), 1.0),
    ("W4", "tepad >= the peers", lambda r: (_peer_ms(r, "tvm", "halide"), _tepad_ms(r)), 1.0),
    ("W5", "tepad >= TVM", lambda r: (_peer_ms(r, "tvm"), _tepad_ms(r)), 1.0),
] + [(k, "plain within 1.1x of the best peer",
      lambda r: (_peer_ms(r, "tvm", "halide"), r["plain"]), 1 / 1.1) for k in PLAIN]


def targets_table(res: dict) -> str:
    """One row per issue-18 target of the workloads in ``res``: the figures compared, the
    ratio (other / tepad: above 1, tepad is faster) and whether the target is met. tepad's
    figure is its expert or tuned kernel, whichever is faster, unless the target names one."""
    rows = ["| workload | target | compared with ms | tepad ms | other / tepad | met |",
            "|---|---|---|---|---|---|"]
    for key, text, pick, need in sorted(TARGETS, key=lambda x: x[0]):
        if key not in res:
            continue
        other, mine = pick(res[key])
        if other is None:
            continue
        ratio = other / mine
        rows.append(f"| {key} | {text} | {fmt_ms(other)} | {fmt_ms(mine)} | {ratio:.2f}x | "
                    f"{'yes' if ratio >= need else 'no'} |")
    return "\n".join(rows)


def variants_table(res: dict) -> str:
    rows = ["| workload | peer variant | median ms |", "|---|---|---|"]
    for key, row in res.items():
        for n in sorted(x for x in row if ": " in x):
            rows.append(f"| {key} | {n} | {fmt_ms(row[n])} |")
        if SAME_PLAIN in row:
            rows.append(f"| {key} | {SAME_PLAIN} (not counted as TVM's best) | "
                        f"{fmt_ms(row[SAME_PLAIN])} (tepad plain {fmt_ms(row['plain'])}) |")
        if key in EXTRA and EXTRA[key][0] in row:
            name, more = EXTRA[key]
            amount, unit = WL[key].rate(more)
            base, _ = WL[key].rate(WL[key].full)
            rows.append(f"| {key} | tepad {name} | {fmt_ms(row[name])} ({amount / row[name] / 1e6:.0f} "
                        f"{unit}; plain at the workload's size: {base / row['plain'] / 1e6:.0f} {unit}) |")
    return "\n".join(rows)


def markdown(res, info, a) -> str:
    threads = a.threads or os.cpu_count()
    cmd = "python benchmarks/bench_plain.py" + (f" --threads {a.threads}" if a.threads else "") \
        + f" --clock {a.clock}" + (f" --only {a.only}" if a.only else "")
    lines = [SECTION, "", BEGIN, "",
             f"`{cmd}` on {info['date']}: {info['cpu']['name']} (LLVM `{info['cpu']['llvm_cpu']}`, "
             f"{', '.join(info['cpu']['features'])}), {info['cpu']['cores']} cores shared with "
             f"other jobs; {threads} thread(s) for every tool (TEPAD_NUM_THREADS, TVM_NUM_THREADS, "
             f"HL_NUM_THREADS{', OPENBLAS_NUM_THREADS' if a.threads else ''}); "
             f"{'process CPU time' if a.clock == 'cpu' else 'wall-clock time'}; {info['peers']}; "
             f"numpy BLAS: {info['blas']}.",
             "",
             f"Each figure is the median over {a.procs} worker processes of each process's "
             f"median, every kernel timed in {a.rounds} interleaved rounds (~{TARGET_ROUND_S * 1e3:.0f}"
             " ms of calls per kernel per round). \"tepad plain\" is the tutorial-style schedule of "
             "`benchmarks/bench_plain.py` (`plain_w1` .. `plain_w5`: split / tile / reorder / "
             "vectorize / parallel / compute_at, no packing or register blocking); \"tepad expert\" "
             "is `examples/<name>.py`; a peer's figure is its fastest variant in "
             "`benchmarks/peers/` (which include packed and register-blocked schedules). Issue 18's "
             "target: plain within 1.1x of the best peer.",
             "", table(res), "",
             "Where the plain schedule cannot keep up, the schedule is the cause, not the code "
             "tepad generates for it: compare the rows \"TVM given the same plain schedule\" "
             "(W2 and W4 in TensorIR) below.",
             "",
             "* W2: the rows of A, B and C are 1024 floats = 4 KiB apart, so the 32 rows of a C "
             "tile (and A's 32-row strip) map to the same L1 sets, more lines than the L1 has "
             "ways (12 on Zen 4/5, 8 to 12 on Intel): they evict each other on every k step "
             "and C's tile is reloaded from L2 (the same schedule with 8-row tiles runs about "
             "9x faster here; with 16-row tiles it does not). The peers' best variants avoid it with a packed B panel and a "
             "register-blocked tile-local accumulator (packing and register blocking: the "
             "expert tricks). The same plain schedule at n = 1056 (rows 4224 B apart) is the "
             "extra W2 row below.",
             "* W4: the plain schedule accumulates one 56-float output row (3.5 zmm: four "
             "dependent FMA chains) per tap of the 64x3x3 reduction; with two FMA pipes of "
             "four cycles' latency, eight or more independent accumulators are needed. The "
             "peers' best variants hold 14-28 accumulators (register blocking over output "
             "channels and positions, weights packed by 16 channels).",
             "",
             "Every peer variant (and extra tepad kernels):", "", variants_table(res), ""]
    if threads > 1:
        lines += ["With several threads on a host whose other cores are busy, the peers' "
                  "parallel regions can end with a barrier waiting for a worker that has no "
                  "core (tepad's pool runs such a worker's chunks on the calling thread, see "
                  "the 'Busy cores' section): `--threads 1 --clock cpu` is the comparison "
                  "that holds on a shared host.", ""]
    lines.append(END)
    return "\n".join(lines)


def isa_markdown(res, info, a) -> str:
    """The section of ``--isa`` runs: every tool's ``a.isa`` code on this host, the
    targets measured against it."""
    cmd = (f"python benchmarks/bench_plain.py --isa {a.isa}"
           + (f" --threads {a.threads}" if a.threads else "") + f" --clock {a.clock}"
           + f" --procs {a.procs} --rounds {a.rounds}" + (f" --only {a.only}" if a.only else "")
           + (" --tuned-log LOG" if a.tuned_log else ""))
    name = a.isa.upper()
    threads = a.threads or os.cpu_count()
    cfgs = info.get("tuned_configs") or {}
    lines = [ISA_SECTION.format(ISA=name), "", ISA_BEGIN.format(isa=a.isa), "",
             f"`{cmd}` on {info['date']}: {info['cpu']['name']} (LLVM `{info['cpu']['llvm_cpu']}`, "
             f"{', '.join(info['cpu']['features'])}), {info['cpu']['cores']} cores shared with "
             f"other jobs (load average {info['load'][0]:.2f} before the run, "
             f"{info['load'][1]:.2f} after); {threads} thread(s) for every tool; "
             f"{'process CPU time' if a.clock == 'cpu' else 'wall-clock time'}; {info['peers']}.",
             "",
             f"**This is {name} code run on this AVX-512 host** (its cores, caches, memory and "
             f"clock), **not a machine without AVX-512**: every tool was made to build {name} "
             f"code and nothing else ({isas.describe(a.isa)}); the assembly of every tepad, TVM "
             "and Halide kernel was checked for AVX-512 (zmm, ymm16-31, opmask registers, "
             "embedded broadcasts: none). A real AVX2 machine differs in clock, caches, "
             "memory bandwidth and in how many FMA units its 256-bit instructions reach.",
             "",
             f"numpy's BLAS in the workers: {info['blas']}; numpy's SIMD loops: "
             f"{info.get('numpy_simd', '?')}. (Without `OPENBLAS_CORETYPE`, this OpenBLAS "
             f"picks the kernel `{info.get('host_blas_kernel', '?')}` on this host.)",
             "",
             f"Each figure is the median over {a.procs} worker processes of each process's "
             f"median, every kernel timed in {a.rounds} interleaved rounds. \"tepad plain\": "
             "the tutorial schedules of `bench_plain.py`; \"tepad expert\": "
             "`examples/<name>.py` under the target (their vector widths and register blocks "
             "follow it); \"tepad tuned\": the AutoTVM template (`examples/tune_templates.py`) "
             "at the best config `benchmarks/bench_tune.py --isa "
             f"{a.isa}` logged"
             + (": " + "; ".join(f"{k} {v}" for k, v in sorted(cfgs.items())) if cfgs else
                " (no log given)") + ". A peer's figure is its fastest variant (for "
             f"{name}, W2 and W4 have variants with register blocks that fit 16 ymm "
             "registers beside the AVX-512-sized ones).",
             "", table(res), "",
             "Issue 18's targets (other / tepad above 1: tepad is faster):", "",
             targets_table(res), "",
             "What the code is, where it decides:", "",
             "* W2 plain and W4 plain: the schedules' own limits, as in the section \"Plain "
             "tutorial schedules\" (the 32 rows of a tile 4 KiB apart in the same L1 sets; one "
             "output row of 56 floats = 7 ymm accumulators per tap, fewer than the 8 that two "
             "FMA pipes of four cycles' latency need); TVM given the same schedules does no "
             "better.",
             "* W2 expert / tuned: 4 rows x 16 columns = 8 ymm accumulators (the AVX2 kernels of "
             "BLAS libraries hold 12, e.g. 6 x 16, for slack; 6 rows do not divide the "
             "power-of-two tiles of n = 1024), B packed in 16-float panels, k blocked by 256 "
             "(example) or 128 (tuned) so that the panel's k block stays in L1.",
             "* W4 expert: 2 x 8 output channels x 4 pixels = 8 ymm accumulators, the input "
             "channel innermost of the reduction (`examples/conv2d.py`).",
             "* W5: tepad plain sums each 14-float row with 13 dependent scalar adds (tepad "
             "keeps LLVM's loop and SLP vectorizers off, `tepad/codegen/jit.py`, for the "
             "miscompiles they caused); tepad expert adds each row's two 7-float halves as "
             "vectors first (`rfactor`, `examples/rowsum.py`), then the 7 lanes; TVM's LLVM "
             "vectorizes its row loop across rows (8 rows per ymm, the rows deinterleaved by "
             "shuffles, for `haswell`; 16 rows per zmm for `znver5`, slower there).",
             "",
             "Every peer variant (and extra tepad kernels):", "", variants_table(res), "",
             ISA_END.format(isa=a.isa)]
    return "\n".join(lines)


def write_section(path, text, isa="host"):
    """Replace this script's section for ``isa`` (its heading through its end marker) in
    ``path``, or append it."""
    if isa == "host":
        results_sections.write_section(path, text, SECTION, BEGIN, END)
    else:
        results_sections.write_section(path, text, ISA_SECTION.format(ISA=isa.upper()),
                                       ISA_BEGIN.format(isa=isa), ISA_END.format(isa=isa))

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small", action="store_true", help="check the plain schedules at small "
                    "sizes against numpy; no timing")
    ap.add_argument("--only", default="", help="comma-separated workload keys (W1..W5)")
    ap.add_argument("--threads", type=int, default=0, help="threads for every tool (0: all cores)")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    ap.add_argument("--procs", type=int, default=5, help="worker processes")
    ap.add_argument("--rounds", type=int, default=7, help="interleaved rounds per process")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--out", default=None, help="markdown file for the section "
                    "(default benchmarks/RESULTS.md; 'none' writes nothing)")
    ap.add_argument("--isa", choices=isas.ISAS, default="host",
                    help="instruction set every tool builds for (benchmarks/isa.py)")
    ap.add_argument("--tuned-log", default=None, help="a bench_tune.py log: also time each "
                    "template's best config (same --isa)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    keys = [k.strip() for k in a.only.split(",") if k.strip()] or list(PLAIN)
    if a.worker:
        print(json.dumps(worker(keys, a.rounds, a.clock, not a.no_peers, a.tuned_log)))
        return 0
    if a.small:
        for key in keys:
            err = check_plain(key, isa=a.isa)
            print(f"{key} plain {SMALL[key]} (--isa {a.isa}): rel err {err:.1e} ok")
        return 0

    def progress(msg):
        print(f"[bench_plain {time.strftime('%H:%M:%S')}] {msg}", flush=True)

    peers = [p for p in ("tvm", "halide") if not a.no_peers and importlib.util.find_spec(p)]
    vers = []
    for p, dist in (("tvm", "apache-tvm"), ("halide", "halide")):
        if p in peers:
            import importlib.metadata as md
            vers.append(f"{dist} {md.version(dist)}")
    info = dict(date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                cpu=cpu_info(),
                peers="peers: " + (", ".join(vers) if vers else "none installed"))
    progress(f"{info['cpu']['name']} ({info['cpu']['llvm_cpu']}); {info['peers']}; "
             f"--isa {a.isa}")
    load0 = os.getloadavg()[0]
    tuned_log = str(Path(a.tuned_log).resolve()) if a.tuned_log else None
    workers = run_workers(keys, a.procs, a.rounds, a.threads, a.clock, bool(peers), progress,
                          a.isa, tuned_log)
    info.update(blas=_numpy_blas(workers), load=(load0, os.getloadavg()[0]),
                numpy_simd=workers[0].get("numpy_simd"),
                tuned_configs=workers[0].get("tuned_configs"),
                host_blas_kernel=_host_blas_kernel())
    res = aggregate([w["results"] for w in workers])
    print()
    print(table(res))
    print()
    print(variants_table(res))
    if a.isa != "host":
        print()
        print(targets_table(res))
    out = None if a.out == "none" else (a.out or HERE / "RESULTS.md")
    if out:
        text = markdown(res, info, a) if a.isa == "host" else isa_markdown(res, info, a)
        write_section(out, text, a.isa)
        progress(f"wrote the section to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
