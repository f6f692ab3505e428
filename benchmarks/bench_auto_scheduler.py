"""Auto-scheduling figure: matmul + bias (N x N x N, float32) unscheduled, with
``auto_scheduler.default_schedule`` and after a short search, all timed again in this run.

    python benchmarks/bench_auto_scheduler.py                  N=256, 48 trials
    python benchmarks/bench_auto_scheduler.py --n 128 --trials 16 --log mm.json

``--ops OP ...`` tunes the computes of ``peers/bench_metaschedule.py`` (matmul + bias,
conv2d, depthwise conv, softmax, batch matmul; same definitions and default sizes, changed
with ``--size OP:KEY=VALUE``) at ``--trials`` each and prints one JSON line per op: numpy,
default_schedule, the tuned best (medians of ``--repeat`` timings, rebuilt in this process),
tuning time and time per trial; ``--curve PNG`` draws the best-so-far curves;
``--metaschedule FILE`` reads that script's JSON lines and ``--results`` writes the
comparison table into RESULTS.md (``results_sections.write_section``).
"""
import argparse
import json
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import tepad as tvm  # noqa: E402
from tepad import auto_scheduler, te  # noqa: E402
from tepad.auto_scheduler.curve import best_so_far, plot_curve  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from results_sections import cpu_name, write_section  # noqa: E402
import auto_workloads as workloads  # noqa: E402


@auto_scheduler.register_workload
def bench_matmul_add(N, L, M, dtype):
    return workloads.matmul_add(te, N, L, M, dtype)


@auto_scheduler.register_workload
def bench_conv2d(c, k, h, w):
    return workloads.conv2d(te, c, k, h, w)


@auto_scheduler.register_workload
def bench_depthwise(c, h, w):
    return workloads.depthwise(te, c, h, w)


@auto_scheduler.register_workload
def bench_softmax(n, m):
    return workloads.softmax(te, n, m)


@auto_scheduler.register_workload
def bench_batch_matmul(b, n):
    return workloads.batch_matmul(te, b, n)


# op: (registered workload, its arguments at sizes s, flop at s, numpy reference)
OPS = {op: (func, lambda s, op=op: workloads.args_of(op, s),
            lambda s, op=op: workloads.flop(op, s),
            lambda *ins, op=op: workloads.reference(op, ins))
       for op, func in [("matmul", bench_matmul_add), ("conv2d", bench_conv2d),
                        ("depthwise", bench_depthwise), ("softmax", bench_softmax),
                        ("batch_matmul", bench_batch_matmul)]}
SIZES = workloads.SIZES


def _example(name):
    """``examples/NAME.py`` as a module (its expert schedule)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        f"example_{name}", os.path.join(HERE, "..", "examples", f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def expert(op, s, target=None):
    """tepad's hand-written schedule of ``op`` at sizes ``s`` for ``target`` (its widths and
    TOPI's choices read the target: it is entered as ``with target``): ``(schedule, tensors,
    args_of, what)`` where ``args_of(ins, out)`` gives the kernel's arguments from the benchmark's
    inputs and output and ``what`` names the schedule. The matmul and conv2d ones are the
    expert schedules of ``examples/matmul.py`` (W2: ``A @ B``, the bias added by numpy
    outside the timing is not counted, so this column is a lower bound) and
    ``examples/conv2d.py`` (W4); the others are TOPI's x86 schedules of TOPI's computes
    (``depthwise_conv2d_nchw``, ``softmax``, ``batch_matmul``)."""
    if target is None:
        return _expert(op, s)
    with tvm.target.Target(target) if isinstance(target, str) else target:
        return _expert(op, s)


def _expert(op, s):
    from tepad import topi
    if op == "matmul":
        sch, args = _example("matmul").schedule(n=s["n"])[:2]
        return sch, args, lambda ins, out: [ins[0], ins[1], out], "examples/matmul.py (A @ B)"
    if op == "conv2d":
        sch, args = _example("conv2d").schedule(c=s["c"], k=s["k"], h=s["h"], w=s["w"])[:2]
        return sch, args, lambda ins, out: [ins[0], ins[1], out], "examples/conv2d.py"
    if op == "depthwise":
        X = te.placeholder((1, s["c"], s["h"], s["w"]), "float32", name="X")
        W = te.placeholder((s["c"], 1, 3, 3), "float32", name="W")
        out = topi.nn.depthwise_conv2d_nchw(X, W, 1, 1, 1)
        sch = topi.x86.schedule_depthwise_conv2d_nchw([out])
        return sch, [X, W, out], lambda ins, o: [ins[0], ins[1], o], \
            "topi.x86.schedule_depthwise_conv2d_nchw"
    if op == "softmax":
        x = te.placeholder((s["n"], s["m"]), "float32", name="x")
        out = topi.nn.softmax(x)
        sch = topi.x86.schedule_softmax([out])
        return sch, [x, out], lambda ins, o: [ins[0], o], "topi.x86.schedule_softmax"
    if op == "batch_matmul":
        A = te.placeholder((s["b"], s["n"], s["n"]), "float32", name="A")
        B = te.placeholder((s["b"], s["n"], s["n"]), "float32", name="B")
        out = topi.nn.batch_matmul(A, B, transpose_b=False)
        sch = topi.x86.schedule_batch_matmul([out])
        return sch, [A, B, out], lambda ins, o: [ins[0], ins[1], o], \
            "topi.x86.schedule_batch_matmul"
    raise KeyError(op)


def _median_ms(fn, repeat):
    """Median CPU time of the calling thread per call, in ms: on a machine shared with other
    jobs the wall time of a one-thread kernel mostly measures the wait for a core (run with
    TEPAD_NUM_THREADS=1 and OPENBLAS_NUM_THREADS=1 so that the work stays on this thread)."""
    t0 = time.thread_time()
    fn()
    first = max(time.thread_time() - t0, 1e-6)
    number = max(1, int(0.02 / first))
    times = []
    for _ in range(repeat):
        t0 = time.thread_time()
        for _ in range(number):
            fn()
        times.append((time.thread_time() - t0) / number)
    return float(np.median(times)) * 1e3


def _inputs(op, sizes):
    func, args_of, _, ref = OPS[op]
    tensors = func(*args_of(sizes))
    rng = np.random.default_rng(0)
    ins = [rng.uniform(-1, 1, size=[int(d) for d in t.shape]).astype("float32")
           for t in tensors[:-1]]
    out = np.zeros([int(d) for d in tensors[-1].shape], "float32")
    return tensors, ins, ref(*ins), out


def _expert_kernel(op, sizes, target, ins, out, want):
    """``(call, what)``: the expert kernel of ``op`` bound to the benchmark's arrays,
    checked against numpy first."""
    esch, eargs, eargs_of, what = expert(op, sizes, target)
    f = tvm.build(esch, eargs, target)
    kargs = eargs_of(ins, out)
    f(*kargs)
    want_e = ins[0] @ ins[1] if op == "matmul" else want      # the bias is not in it
    np.testing.assert_allclose(out, want_e, rtol=1e-3, atol=1e-3)
    return (lambda: f(*kargs)), what


def measure_expert(op, sizes, target, repeat) -> dict:
    """``{"expert": what, "expert_ms": ms}`` for ``expert(op, sizes)``, checked against
    numpy first; ``expert_ms`` None (and ``expert_error``) when it fails."""
    _, ins, want, out = _inputs(op, sizes)
    row = {}
    try:
        call, row["expert"] = _expert_kernel(op, sizes, target, ins, out, want)
        row["expert_ms"] = round(_median_ms(call, repeat), 3)
    except Exception as err:  # noqa: BLE001 -- the table says it was not measured
        row["expert_ms"] = None
        row["expert_error"] = f"{type(err).__name__}: {err}"[:200]
    return row


def _interleaved_ms(calls, repeat) -> dict:
    """Median CPU time per call in ms of each of ``calls`` ({name: fn}), timed in
    ``repeat`` rounds that take one block (at least 20 ms) of every fn in turn, so that a
    change in the machine's load affects them alike."""
    numbers, times = {}, {k: [] for k in calls}
    for k, fn in calls.items():
        t0 = time.thread_time()
        fn()
        numbers[k] = max(1, int(0.02 / max(time.thread_time() - t0, 1e-6)))
    for _ in range(repeat):
        for k, fn in calls.items():
            t0 = time.thread_time()
            for _ in range(numbers[k]):
                fn()
            times[k].append((time.thread_time() - t0) / numbers[k])
    return {k: round(float(np.median(v)) * 1e3, 3) for k, v in times.items()}


def run_op(op, sizes, trials, target, repeat, seed, log_dir):
    """One JSON-able row: numpy, expert, default_schedule and tuned times of ``op`` at
    ``sizes`` (timed together after the search, ``_interleaved_ms``), the search's time and
    its best-so-far curve."""
    func, args_of, flop_of, ref = OPS[op]
    args = args_of(sizes)
    tensors, ins, want, out = _inputs(op, sizes)
    flop = flop_of(sizes)

    def kernel(s, targs):
        f = tvm.build(s, targs, target)
        f(*ins, out)
        np.testing.assert_allclose(out, want, rtol=1e-3, atol=1e-3)
        return lambda: f(*ins, out)

    row = {"op": op, "sizes": sizes, "trials": trials, "target": str(target)}
    calls = {"numpy": lambda: ref(*ins),
             "default": kernel(*auto_scheduler.default_schedule([tensors[-1]], target))}
    try:
        calls["expert"], row["expert"] = _expert_kernel(op, sizes, target, ins, out, want)
    except Exception as err:  # noqa: BLE001 -- the table says it was not measured
        row["expert_ms"] = None
        row["expert_error"] = f"{type(err).__name__}: {err}"[:200]
    log = os.path.join(log_dir, f"{op}.json")
    if os.path.exists(log):
        os.remove(log)
    row["load_start"] = round(os.getloadavg()[0], 1)
    t0 = time.perf_counter()
    summary = auto_scheduler.tune_workload(func, args, trials, log, target=target, seed=seed)
    row["tune_s"] = round(time.perf_counter() - t0, 1)
    row["load_end"] = round(os.getloadavg()[0], 1)
    row["measured"], row["errors"] = summary.trials, summary.errors
    row["confirmations"] = summary.confirmations
    row["s_per_trial"] = round(row["tune_s"] / max(1, summary.trials), 2)
    task = auto_scheduler.SearchTask(func=func, args=args, target=target)
    calls["tuned"] = kernel(*task.apply_best(log))
    ms = _interleaved_ms(calls, repeat)
    row["numpy_ms"], row["default_ms"], row["ms"] = ms["numpy"], ms["default"], ms["tuned"]
    if "expert" in ms:
        row["expert_ms"] = ms["expert"]
    row["gflops"] = round(flop / row["ms"] / 1e6, 1)
    curve = best_so_far(log, task.workload_key, flop)[:summary.trials]
    row["curve"] = [round(v, 2) for v in curve]
    return row


def _load(r) -> str:
    if r.get("load_start") is None:
        return "-"
    return f"{r['load_start']:.0f}-{r['load_end']:.0f}"


def table(rows, ms_rows, threads, note="") -> str:
    """The RESULTS.md section: one row per tepad run, with MetaSchedule's run of the same op,
    sizes and trial budget where there is one."""
    def key(r):
        return r["op"], json.dumps(r["sizes"], sort_keys=True), r["trials"]

    ms_by = {key(r): r for r in ms_rows}
    tvm_version = next((r["tvm"] for r in ms_rows if "tvm" in r), "0.27")
    lines = [
        "## Auto-scheduler against MetaSchedule",
        "<!-- bench_auto_scheduler: begin -->",
        "",
        f"CPU: {cpu_name()} (Zen 4, AVX-512), {threads} thread(s) for the kernels, on a "
        "two-core machine shared with other jobs (the load column: the 1-minute load average "
        "when each search started and ended, tepad / MetaSchedule). tepad: "
        "`python benchmarks/bench_auto_scheduler.py --ops ...` (target `llvm`, the host: 16 "
        "fp32 lanes, 32 vector registers; `tune_workload`: the analytical default measured "
        "first, then `SketchPolicy` with `XGBModel(num_warmup_sample=8)`, 16 states a round; "
        "the runner times each state 3 times, at least 20 ms each, in CPU time of the "
        "measuring process, and the search ranks by the least of the 3). MetaSchedule: TVM "
        f"{tvm_version}, `benchmarks/peers/bench_metaschedule.py` (`tune_tir` on "
        "`te.create_prim_func` of the same compute, target llvm -mcpu=<host> num-cores=1, "
        "xgb cost model, evolutionary search, wall-time runner). expert: tepad's hand-written "
        "schedules (`examples/matmul.py`, which computes `A @ B` without the bias, and "
        "`examples/conv2d.py`, which packs the weights; TOPI's x86 schedules of TOPI's "
        "computes for the others). Kernel times are medians of the calling thread's CPU time "
        "per call in ms (TEPAD_NUM_THREADS=1, TVM_NUM_THREADS=1, OPENBLAS_NUM_THREADS=1), the "
        "best schedule rebuilt after tuning; tuning s is the wall time of the whole search, "
        "s/trial that over the trials measured.",
        "",
        "| op (sizes) | numpy | tepad expert | tepad default_schedule | tepad tuned (trials) | "
        "tuned / default | tepad tuning s (s/trial) | MetaSchedule tuned (trials) | "
        "MetaSchedule tuning s (s/trial) | tuned: MetaSchedule / tepad | load |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        m = ms_by.get(key(r))
        sz = ", ".join(f"{k}={v}" for k, v in r["sizes"].items())
        if m and m.get("ms") is not None:
            mcols = (f"{m['ms']:.3f} ({m['measured']}) | {m['tune_s']:.0f} "
                     f"({m['s_per_trial']:.2f}) | {m['ms'] / r['ms']:.2f}x |")
        else:
            mcols = "not measured | not measured | - |"
        ex = f"{r['expert_ms']:.3f}" if r.get("expert_ms") is not None else "-"
        tgt = r.get("target", "llvm")
        if tgt != "llvm":               # the header describes the host's target
            sz += f"; target {tgt}"
        lines.append(f"| {r['op']} ({sz}) | {r['numpy_ms']:.3f} | {ex} | "
                     f"{r['default_ms']:.3f} | "
                     f"{r['ms']:.3f} ({r['trials']}; {r['gflops']:.1f} GFLOP/s) | "
                     f"{r['default_ms'] / r['ms']:.2f}x | {r['tune_s']:.0f} "
                     f"({r['s_per_trial']:.2f}) | {mcols} {_load(r)} / "
                     f"{_load(m) if m else '-'} |")
    curves = [r for r in rows if r.get("curve")]
    if curves:
        lines += ["", "Best-so-far curves (the runner's GFLOP/s of the best state after trial 1, "
                  "8, 16, 32, 64, ..., from the search's log; `--curve PNG` draws them):", ""]
        for r in curves:
            c = r["curve"]
            marks = [k for k in (1, 8, 16, 32, 64, 128, 256, 512, 1000) if k <= len(c)]
            sz = ", ".join(f"{k}={v}" for k, v in r["sizes"].items())
            lines.append(f"- {r['op']} ({sz}): " +
                         ", ".join(f"{k}: {c[k - 1]:.1f}" for k in marks))
    if note:
        lines += ["", note.strip()]
    lines += ["", "<!-- bench_auto_scheduler: end -->"]
    return "\n".join(lines)


def main_ops(ns):
    sizes = {k: dict(v) for k, v in SIZES.items()}
    for item in ns.size:
        op, kv = item.split(":", 1)
        key, value = kv.split("=", 1)
        sizes[op][key] = int(value)
    target = tvm.target.Target(ns.target)
    log_dir = ns.log or tempfile.mkdtemp(prefix="bench_auto_")
    os.makedirs(log_dir, exist_ok=True)
    rows = []
    for path in ns.rows:                 # rows of earlier runs (this script's JSON lines)
        with open(path) as f:
            rows += [json.loads(line) for line in f if line.startswith('{"op"')]
    for row in rows:                     # runs from before the expert column: time it now
        if "expert_ms" not in row:
            row.update(measure_expert(row["op"], row["sizes"], target, ns.repeat))
            row["expert_timed_later"] = True
    for op in ns.ops:
        if op == "none":
            continue
        row = run_op(op, sizes[op], ns.trials, target, ns.repeat, ns.seed, log_dir)
        rows.append(row)
        print(json.dumps(row), flush=True)
    if ns.curve:
        plot_curve({f"{r['op']} ({r['trials']} trials)": r["curve"] for r in rows}, ns.curve,
                   title=f"tepad auto-scheduler, best so far ({target})")
        print(f"curve: {ns.curve}")
    ms_rows = []
    for path in ns.metaschedule or []:
        with open(path) as f:
            ms_rows += [json.loads(line) for line in f if line.startswith("{")]
    note = open(ns.note).read() if ns.note else ""
    text = table(rows, ms_rows, os.environ.get("TEPAD_NUM_THREADS", os.cpu_count()), note)
    print(text)
    if ns.results:
        write_section(os.path.join(HERE, "RESULTS.md"), text,
                      "## Auto-scheduler against MetaSchedule",
                      "<!-- bench_auto_scheduler: begin -->",
                      "<!-- bench_auto_scheduler: end -->")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", nargs="+", choices=sorted(OPS) + ["none"],
                    help="tune these computes (see the module docstring); none: only the "
                    "--rows of earlier runs")
    ap.add_argument("--rows", nargs="*", default=[],
                    help="with --ops: JSON lines of earlier runs of this script to include")
    ap.add_argument("--size", action="append", default=[], help="OP:KEY=VALUE")
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--curve", help="with --ops: best-so-far curves as a PNG")
    ap.add_argument("--metaschedule", nargs="*",
                    help="with --ops: JSON lines of bench_metaschedule.py")
    ap.add_argument("--results", action="store_true", help="with --ops: write RESULTS.md")
    ap.add_argument("--note", help="with --ops: a markdown file appended to the section")
    ap.add_argument("--n", type=int, default=256)
    ap.add_argument("--trials", type=int, default=48)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--target", default="llvm")
    ap.add_argument("--log", default=None, help="tuning log (default: a temporary file)")
    ns = ap.parse_args(argv)
    if ns.ops:
        return main_ops(ns)
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
