"""Command line: ``tepad demo | lower | bounds | run | tune | bench | graph | layout``.

Every command but ``demo`` and ``bench`` takes a Python file that defines a function returning
``(schedule, args)`` -- ``schedule()`` unless ``--func NAME`` says otherwise -- and optionally
``inputs()`` returning numpy arrays for the placeholders in ``args`` (logical layout):

    tepad lower examples/blur.py                     IR after every pass (--pass NAME: one)
    tepad bounds examples/blur.py                    InferBound table, computed vs needed
    tepad bounds examples/blur.py --stage Bx --plot bx.png
    tepad run examples/matmul.py --repeat 50         build, check against the oracle, time
    tepad run examples/gpu/blur.py --target cuda     a GPU schedule (emulated without a GPU)
    tepad graph examples/conv2d.py [--png g.png]     read graph + attach edges as DOT / PNG
    tepad layout examples/row_summation.py --stage A [--png a.png]
    tepad tune examples/tune_templates.py -n 20      tune every @autotvm.template in the file
    tepad tune --auto FILE.py -n 32 [--target cuda]  auto-schedule its registered workloads
    tepad bench --quick                              benchmarks/run.py of the checkout
                                                     (full runs: report in ./tepad-bench-results.md)

``python -m tepad ...`` is the same program.
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

from . import __version__, bound
from .autotvm.session import TUNERS, make_option, template_args, templates_in, tune_template
from .auto_scheduler import LocalRunner as AutoLocalRunner, SearchTask, tune_workload
from .auto_scheduler.curve import best_so_far, plot_curve
from .auto_scheduler.workload_registry import WORKLOAD_FUNC_REGISTRY, make_workload_key
from .bound import attach_path, infer_bound
from .backend import backend_for
from .demo import iter_var_role, main as demo_main
from .driver import build
from .errors import InternalError, TepadError
from .layout import from_physical, to_physical
from .lower.thread_binding import schedule_thread_bindings
from .lower.pipeline import PHASES, Options, PassLog, format_step, labelled, select
from .schedule import Schedule
from .schedule.stage import AttachType
from .tensor.tensor import PlaceholderOp
from . import config
from .runtime import cuda_driver
from .runtime.timing import bounded_times, busy_note
from .target import Target, is_opencl_kind
from .testing import random_array as testing_random_array, reference
from .tir.expr import Var
from .viz import MissingDependency
from .viz.evaluate import evaluate
from .viz.graph import graph_to_dot, render_graph_png, schedule_graph
from .viz.layout import PAD, layout_cells, layout_text, plot_layout, transformed_stages
from .viz.regions import consumer_regions, plot_regions

MISSING_MPL = 3   # exit status when a picture needs matplotlib and it is not installed


# ---------------------------------------------------------------------------------------------
# loading a schedule file
# ---------------------------------------------------------------------------------------------
class CliError(Exception):
    """A user mistake on the command line: printed as ``tepad: error: ...``, exit status 2."""


def load_module(path):
    p = Path(path)
    if not p.is_file():
        raise CliError(f"{path}: no such file (give a Python file defining schedule())")
    spec = importlib.util.spec_from_file_location(f"tepad_cli_{p.stem}", p)
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(p.resolve().parent))
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.path.pop(0)
    return mod


def load_schedule(path, func="schedule"):
    """``(module, schedule, args)`` from calling ``func()`` of the file at ``path``."""
    mod = load_module(path)
    fn = getattr(mod, func, None)
    if not callable(fn):
        cands = [n for n, v in vars(mod).items() if callable(v) and not n.startswith("_")
                 and getattr(v, "__module__", None) == mod.__name__]
        raise CliError(f"{path} has no function {func}(); pick one with --func "
                       f"(functions defined there: {', '.join(cands) or 'none'})")
    out = fn()
    if not (isinstance(out, tuple) and len(out) == 2):
        raise CliError(f"{path}: {func}() must return (schedule, args), got {type(out).__name__}")
    s, args = out
    if not isinstance(s, Schedule):
        raise CliError(f"{path}: {func}() returned {type(s).__name__} where a Schedule was "
                       "expected (return (s, [tensors...]))")
    return mod, s, list(args)


# ---------------------------------------------------------------------------------------------
# lower
# ---------------------------------------------------------------------------------------------
def pipeline_labels(opts: Options = Options(), backend=None) -> list:
    """Every step ``tepad.build`` runs under ``opts``, in order: the entry, then PIPELINE,
    then the passes of ``backend`` (default: the CPU's, none)."""
    extra = labelled(backend.passes) if backend is not None else []
    return ["schedule_ops"] + [label for label, _ in select(PHASES, opts)] + \
        [label for label, _ in extra]


def lower_steps(s, args, exact=False, name="main", opts: Options = Options(),
                backend=None) -> list:
    """``[Step]``: the entry (schedule_ops) and every pass ``tepad.build`` runs, in order,
    the passes of ``backend`` (``tepad.backend``; default the CPU's) included."""
    log = PassLog(print_ir=False, keep=True)
    backend = backend if backend is not None else backend_for(Target("llvm"))
    backend.lower(s, args, name, opts, exact, log)
    return log.steps


def cmd_lower(ns, out):
    try:
        target = Target(ns.target or "llvm")
        backend = backend_for(target, True if ns.emulate else None)
    except TepadError as e:
        raise CliError(f"--target {ns.target!r}: {e}") from None
    opts = backend.options(target, ns.checked, ns.bounds_check)
    known = pipeline_labels(opts, backend)
    if ns.list_passes:
        out.write(f"steps tepad.build runs for {str(target)!r}, in order "
                  f"(tepad/lower/pipeline.py PIPELINE, then the {backend.name} backend's):\n")
        phase = {label: p.phase for label, p in select(PHASES, opts)}
        phase.update({label: "backend" for label, _ in labelled(backend.passes)})
        for label in known:
            out.write(f"  {label:<40} {phase.get(label, 'entry')}\n")
        return 0
    want = ns.pass_name or "all"
    if want != "all" and want not in known and want not in {k.split(".")[0] for k in known}:
        raise CliError(f"unknown pass {want!r}; passes: all, {', '.join(known)}")
    _, s, args = load_schedule(ns.file, ns.func)
    steps = lower_steps(s, args, exact=ns.exact, name=ns.name, opts=opts, backend=backend)
    if want != "all":
        hit = [st for st in steps if st.label == want] or \
            [st for st in steps if st.label.split(".")[0] == want]
        out.write(format_step(hit[0], show_unchanged_ir=True) + "\n")
        return 0
    for st in steps:
        out.write(format_step(st) + "\n")
    return 0


# ---------------------------------------------------------------------------------------------
# bounds
# ---------------------------------------------------------------------------------------------
def _fmt(e):
    return "-" if e is None else str(e)


def bounds_text(s, exact=True):
    """The InferBound table: one row per IterVar; interval and (when available) exact ranges."""
    s2 = s.copy().normalize()
    bm = infer_bound(s2)
    bm_e, note = None, None
    if exact:
        try:
            bm_e = infer_bound(s2, exact=True)
        except TypeError as e:
            note = f"exact mode unavailable ({e})"
        except Exception as e:   # noqa: BLE001 - exact mode is optional here
            note = f"exact mode failed: {type(e).__name__}: {e}"
    hdr = ["stage", "itervar", "kind", "min", "extent"] + \
        (["exact min", "exact extent"] if bm_e is not None else []) + ["attach path"]
    rows = [hdr]
    for st in s2.stages:
        if isinstance(st.op, PlaceholderOp):
            continue
        path = ", ".join(iv.name for iv in attach_path(st)) or "-"
        for iv in st.all_iter_vars:
            r = bm.get(iv)
            if r is None:
                continue
            row = [st.name, iv.name, iter_var_role(st, iv), _fmt(r.min), _fmt(r.extent)]
            if bm_e is not None:
                re_ = bm_e.get(iv)
                same = re_ is not None and str(re_.min) == str(r.min) and \
                    str(re_.extent) == str(r.extent)
                row += ["=", "="] if same else [_fmt(re_ and re_.min), _fmt(re_ and re_.extent)]
            rows.append(row + [path])
    w = [max(len(r[k]) for r in rows) for k in range(len(hdr))]
    lines = ["  ".join(c.ljust(w[k]) for k, c in enumerate(r)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * x for x in w))
    if bm_e is not None:
        preds = getattr(bm_e, "predicates", {}) or {}
        for op, p in preds.items():
            lines.append(f"exact predicate for {op.name}: {p}")
        lines.append("('=' : exact mode gives the same range as interval mode)")
    if note:
        lines.append(note)
    return "\n".join(lines)


def explain_text(s, exact=True):
    """computed vs needed elements (``tepad.bound.explain``), or interval-only counts."""
    explain = getattr(bound, "explain", None)
    if exact and explain is not None:
        try:
            return str(explain(s))
        except Exception as e:   # noqa: BLE001 - e.g. symbolic shapes
            return f"(tepad.bound.explain failed: {type(e).__name__}: {e})"
    return "(computed-vs-needed counts need tepad.bound.explain and exact mode; " \
        "interval table only)"


def cmd_bounds(ns, out):
    _, s, args = load_schedule(ns.file, ns.func)
    out.write("InferBound (interval mode" + (", exact mode beside it" if not ns.no_exact else "")
              + "); attach path innermost first\n")
    out.write(bounds_text(s, exact=not ns.no_exact) + "\n\n")
    out.write("elements computed vs needed per stage\n")
    out.write(explain_text(s, exact=not ns.no_exact) + "\n")
    if ns.stage or ns.plot:
        stage = ns.stage or _default_producer(s)
        if not ns.stage:
            out.write(f"\n(no --stage: showing {stage}, a producer that other stages read)\n")
        rep = consumer_regions(s, stage, iterations=ns.iters, exact=not ns.no_exact)
        out.write("\n" + str(rep) + "\n")
        if ns.plot:
            plot_regions(rep, ns.plot)
            out.write(f"wrote {ns.plot}\n")
    return 0


def _size(t):
    n = 1
    for d in t.shape:
        try:
            n *= int(d)
        except (TypeError, ValueError):
            return 0
    return n


def _default_producer(s):
    """The stage whose regions ``bounds --plot`` draws without ``--stage``: one that other
    stages read (an output nobody reads has nothing to compare with). A compute stage
    attached with compute_at first, then any read compute stage, then a read input."""
    read = set()
    for st in s.stages:
        if not isinstance(st.op, PlaceholderOp):
            read.update(t.op for t in st.op.input_tensors)
    comp = [st for st in s.stages if not isinstance(st.op, PlaceholderOp) and st.op in read]
    att = [st for st in comp if st.attach_type == AttachType.Scope]
    inputs = sorted((st for st in s.stages if isinstance(st.op, PlaceholderOp) and
                     st.op in read), key=lambda st: -_size(st.op.output(0)))
    pick = att or [st for st in comp if not st.is_output] or comp or inputs or \
        [st for st in s.stages if not isinstance(st.op, PlaceholderOp)]
    if not pick:
        raise CliError("the schedule has no stage to plot")
    return pick[0].name


# ---------------------------------------------------------------------------------------------
# run
# ---------------------------------------------------------------------------------------------
def random_array(shape, dtype, rng):
    """``tepad run``'s inputs: floats in [-0.5, 0.5), integers in [-100, 100]."""
    return testing_random_array(shape, dtype, rng, floats=(-0.5, 0.5), ints=(-100, 101))


def _pad_number(pad, dtype):
    """pad_value as a number for filling numpy padding (NaN for 'never read'/undef floats)."""
    import numpy as np
    floating = not dtype.startswith(("int", "uint", "bool"))
    if pad is None or (hasattr(pad, "op") and getattr(pad, "op", "") == "tir.undef"):
        return np.nan if floating else 0
    if isinstance(pad, (int, float)):
        return pad
    v = getattr(pad, "value", None)
    if isinstance(v, (int, float)):
        return v
    return None


def _pad_fill(pad, dtype):
    """A value or callable ``tepad.layout.to_physical`` can use for ``pad``."""
    num = _pad_number(pad, dtype)
    if num is not None:
        return num
    if callable(pad):

        def fill(*grids):
            vs = [Var(f"p{k}") for k in range(len(grids))]
            e = pad(*vs)
            n = _pad_number(e, dtype)
            return n if n is not None else evaluate(e, dict(zip(vs, grids)))
        return fill
    return 0


def prepare_arrays(mod, s, args, inputs, rng):
    """Kernel arrays (physical layouts) + logical inputs/outputs for the oracle."""
    import numpy as np
    infos = mod.arg_info
    it = iter(inputs) if inputs is not None else None
    arrays, feed, outs = [], {}, []
    for t, info in zip(args, infos):
        st = s[t]
        maps = list(getattr(st, "layout_transforms", []) or [])
        lshape = tuple(int(d) for d in info.logical_shape)
        pshape = tuple(int(d) for d in info.physical_shape)
        if isinstance(t.op, PlaceholderOp):
            a = next(it) if it is not None else random_array(lshape, info.dtype, rng)
            a = np.ascontiguousarray(a, dtype=info.dtype)
            feed[t] = a
            arr = to_physical(a, maps, pad_value=_pad_fill(info.pad_value, info.dtype)) \
                if maps else a
        else:
            arr = np.zeros(pshape, dtype=info.dtype)
            outs.append((t, len(arrays), maps, lshape))
        arrays.append(np.ascontiguousarray(arr))
    return arrays, feed, outs


def check_outputs(arrays, feed, outs, s):
    """``[(name, ok, max_abs_err, note)]`` against ``tepad.testing.reference``."""
    import numpy as np
    res = []
    for t, k, maps, lshape in outs:
        got = from_physical(arrays[k], maps, lshape) if maps else arrays[k]
        want = np.asarray(reference(t, feed))
        if got.dtype.kind in "fc":
            tol = 1e-4 * max(1.0, float(np.abs(want).max()) if want.size else 1.0)
            ok = bool(np.allclose(got, want, rtol=1e-4, atol=tol))
        else:
            ok = bool(np.array_equal(got, want))
        err = float(np.max(np.abs(got.astype("float64") - want.astype("float64")))) \
            if want.size else 0.0
        note = ""
        pad = s[t].pad_value if maps else None
        num = _pad_number(pad, str(got.dtype)) if pad is not None else None
        if maps and num is not None and not (isinstance(num, float) and num != num):
            cells = layout_cells(s, s[t].name).physical.reshape(arrays[k].shape)
            padvals = arrays[k][cells == PAD]
            note = f"padding holds {num}: {bool(np.all(padvals == num))} " \
                   f"({padvals.size} cells)"
        res.append((t.name, ok, err, note))
    return res


class Progress:
    """A one-line progress bar on a terminal stream; silent when not needed."""

    def __init__(self, total, stream, label="timing", enabled=True):
        self.total, self.stream, self.label = total, stream, label
        self.enabled = enabled
        self.shown = False

    def update(self, k, per_call):
        if not self.enabled:
            return
        n = 30
        fill = int(n * k / self.total)
        self.stream.write(f"\r{self.label} [{'#' * fill}{'.' * (n - fill)}] {k}/{self.total}"
                          f"  {per_call * 1e3:.3f} ms/call")
        self.stream.flush()
        self.shown = True

    def close(self):
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


def run_target(ns, s, out):
    """``(target, emulate)`` for ``tepad run``: ``--target`` when given, else 'cuda' for a
    schedule with GPU thread bindings under ``TEPAD_CUDA=emulate``, else the CPU. A CUDA
    target runs on the GPU emulator when ``TEPAD_CUDA=emulate`` is set or no CUDA GPU is
    there (said on ``out``)."""
    emulate_env = config.cuda_emulated()
    target = ns.target
    if target is None:
        target = "cuda" if emulate_env and schedule_thread_bindings(s) else None
        if target:
            out.write("TEPAD_CUDA=emulate and GPU thread bindings: building for 'cuda' on "
                      "the GPU emulator\n")
    try:
        gpu = target is not None and Target(target).is_gpu
    except TepadError as e:
        raise CliError(f"--target {target!r}: {e}") from None
    if gpu and not emulate_env and is_opencl_kind(target):
        out.write(f"tepad has no OpenCL runtime: running the {target!r} build on the GPU "
                  "emulator (TEPAD_CUDA=emulate, docs/gpu.md)\n")
        return target, True
    if gpu and not emulate_env and not cuda_driver.cuda_available(0):
        out.write(f"no CUDA GPU here: running the {target!r} build on the GPU emulator "
                  "(TEPAD_CUDA=emulate, docs/gpu.md)\n")
        return target, True
    return target, False


def cmd_run(ns, out):
    mod_, s, args = load_schedule(ns.file, ns.func)
    target, emulate = run_target(ns, s, out)
    # emulate False: the environment's default (TEPAD_CUDA) decides, as for tepad.build
    return _run(ns, out, mod_, s, args, target, True if emulate else None)


def _run(ns, out, mod_, s, args, target, emulate=None):
    import numpy as np
    t0 = time.perf_counter()
    mod = build(s, args, target=target, bounds_check=ns.bounds_check, emulate=emulate)
    t_build = time.perf_counter() - t0
    inputs = None
    if not ns.random_inputs and hasattr(mod_, "inputs") and ns.func == "schedule":
        inputs = list(mod_.inputs())
    rng = np.random.default_rng(ns.seed)
    arrays, feed, outs = prepare_arrays(mod, s, args, inputs, rng)
    out.write(f"built {mod.name}({', '.join(a.name for a in mod.arg_info)}) in "
              f"{t_build * 1e3:.0f} ms\n")
    for a in mod.arg_info:
        lshape = tuple(int(d) for d in a.logical_shape)
        pshape = tuple(int(d) for d in a.physical_shape)
        extra = "" if lshape == pshape else f" -> physical {pshape}"
        pad = f", pad_value={a.pad_value!r}" if a.pad_value is not None else ""
        out.write(f"  {'out' if a.is_output else 'in '} {a.name}: {a.dtype}{list(lshape)}"
                  f"{extra}{pad}\n")
    mod(*arrays)
    ok_all = True
    if not ns.no_check:
        for name, ok, err, note in check_outputs(arrays, feed, outs, s):
            ok_all &= ok
            out.write(f"{name}: {'matches' if ok else 'DIFFERS from'} the oracle "
                      f"(max abs error {err:.2e}){'; ' + note if note else ''}\n")
    # timing: --repeat calls, or as many as fit in --seconds (at least 3); without --repeat the
    # run stops at twice the budget even when a busy machine slows every call down
    t0 = time.perf_counter()
    mod(*arrays)
    one = time.perf_counter() - t0
    n = ns.repeat or max(3, min(10_000, int(ns.seconds / max(one, 1e-7))))
    err_stream = sys.stderr
    bar = Progress(n, err_stream, enabled=(n * one > 1.0 and not ns.no_progress
                                           and err_stream.isatty()) or ns.progress)
    step = max(1, n // 50)
    done = []

    def call():
        mod(*arrays)
        done.append(None)
        if len(done) % step == 0 or len(done) == n:
            bar.update(len(done), one)
    budget = float("inf") if ns.repeat else 2 * ns.seconds
    ts, cut = bounded_times(call, n, budget)
    bar.close()
    ts = np.array(ts)
    out.write(f"time: median {np.median(ts) * 1e3:.4f} ms, min {ts.min() * 1e3:.4f} ms over "
              f"{len(ts)} calls{' (stopped at the time budget)' if cut else ''}"
              f"{busy_note(ts)}\n")
    return 0 if ok_all else 1


# ---------------------------------------------------------------------------------------------
# bench, graph, layout
# ---------------------------------------------------------------------------------------------
def find_bench_script():
    root = Path(__file__).resolve().parent.parent
    p = root / "benchmarks" / "run.py"
    return p if p.is_file() else None


BENCH_REPORT = "tepad-bench-results.md"


def bench_report_path(ns):
    """Where ``tepad bench`` has benchmarks/run.py write its markdown report: ``--out`` when
    given (relative to the current directory), else for a full run ``BENCH_REPORT`` in the
    current directory, else (``--quick``) nowhere (None). Never the tracked
    benchmarks/RESULTS.md unless ``--out`` names it."""
    if ns.out:
        return Path(ns.out).resolve()
    return None if ns.quick else Path.cwd() / BENCH_REPORT


def cmd_bench(ns, out, rest):
    import subprocess
    script = find_bench_script()
    if script is None:
        raise CliError("tepad bench runs benchmarks/run.py from a tepad source checkout, and "
                       "this installation has none (clone the repository and pip install -e .)")
    report = bench_report_path(ns)
    cmd = [sys.executable, str(script)] + (["--quick"] if ns.quick else []) + \
        (["--out", str(report)] if report is not None else []) + list(rest)
    out.write("$ " + " ".join(cmd) + "\n")
    out.flush()
    code = subprocess.call(cmd, cwd=str(script.parent.parent))
    if report is not None and code == 0:
        out.write(f"report: {report}\n")
    return code


def _chosen(ns, found, what: str) -> list:
    """The names ``--template`` picks among ``found`` (all by default), after checking them
    and ``--n-trial``; ``what`` names the kind in messages (template, workload)."""
    names = ns.template or list(found)
    unknown = [n for n in names if n not in found]
    if unknown:
        raise CliError(f"{ns.file}: no {what} {', '.join(unknown)}; {what}s there: "
                       f"{', '.join(found)}")
    if ns.n_trial < 1:
        raise CliError("--n-trial must be >= 1")
    return names


def cmd_tune(ns, out):
    """Tune every template of the file: progress bar, log, best config, speedup."""
    if ns.auto:
        return cmd_tune_auto(ns, out)
    if ns.target is not None:
        raise CliError("--target goes with --auto; an @autotvm.template builds for the target "
                       "its own code names")
    mod = load_module(ns.file)
    found = templates_in(vars(mod))
    if not found:
        raise CliError(f"{ns.file}: no @autotvm.template function (decorate a function "
                       "returning (s, args) with @autotvm.template(\"name\"))")
    names = _chosen(ns, found, "template")
    log = ns.log or f"{Path(ns.file).stem}.log"
    option = make_option(timeout=ns.timeout, number=ns.number, repeat=ns.repeat)
    for name in names:
        args = template_args(name, found[name], vars(mod))
        out.write(f"[{name}] args={args}\n")
        out.flush()
        try:
            r = tune_template(name, args, n_trial=ns.n_trial, tuner=ns.tuner, log=log,
                              option=option, early_stopping=ns.early_stopping,
                              progress=not ns.no_progress, stream=out, seed=ns.seed)
        except ImportError as err:          # an optional tuner's package is missing
            raise CliError(str(err)) from None
        out.write(f"[{name}] space {r.space_size} configs, {r.trials} tried, {r.errors} "
                  f"failed\n")
        if r.default_cost is not None:
            out.write(f"[{name}] default: {r.default_cost * 1e3:.4f} ms  "
                      f"{r.default_config}\n")
        else:
            out.write(f"[{name}] default: failed to run\n")
        if r.best_cost is None:
            out.write(f"[{name}] best: no candidate ran\n")
            continue
        gflops = f", {r.flop / r.best_cost / 1e9:.2f} GFLOPS" if r.flop else ""
        out.write(f"[{name}] best: {r.best_cost * 1e3:.4f} ms{gflops}  {r.best_config}\n")
        if r.speedup is not None:
            out.write(f"[{name}] speedup over the untuned default: {r.speedup:.2f}x\n")
    out.write(f"log: {log}\n")
    return 0


def cmd_tune_auto(ns, out):
    """Auto-schedule every @auto_scheduler.register_workload function of the file."""
    mod = load_module(ns.file)
    found = {name: f for name, f in WORKLOAD_FUNC_REGISTRY.items()
             if any(v is f for v in vars(mod).values())}
    if not found:
        raise CliError(f"{ns.file}: no @auto_scheduler.register_workload function (decorate a "
                       "function returning its list of tensors)")
    names = _chosen(ns, found, "workload")
    log = ns.log or f"{Path(ns.file).stem}.json"
    target = _auto_target(ns.target or "llvm")
    runner = AutoLocalRunner(timeout=ns.timeout, number=ns.number, repeat=ns.repeat,
                             min_repeat_ms=0)
    curves = {}
    for name in names:
        args = template_args(name, found[name], vars(mod))
        out.write(f"[{name}] args={args} target={target}\n")
        out.flush()
        r = tune_workload(found[name], args, ns.n_trial, log, target=target, runner=runner,
                          seed=ns.seed)
        out.write(f"[{name}] {r.trials} states measured, {r.errors} failed"
                  + (f" (and {r.confirmations} measured again to confirm the best)"
                     if r.confirmations else "") + "\n")
        for what, cost in (("default_schedule", r.default_cost), ("best", r.best_cost)):
            if cost is None:
                out.write(f"[{name}] {what}: did not run\n")
            else:
                out.write(f"[{name}] {what}: {cost * 1e3:.4f} ms, "
                          f"{r.flop / cost / 1e9:.2f} GFLOPS\n")
        if r.speedup is not None:
            out.write(f"[{name}] speedup over default_schedule: {r.speedup:.2f}x\n")
        if r.best_cost is not None:
            task = SearchTask(func=found[name], args=args, target=target)
            code = task.print_best(log)
            out.write(f"[{name}] best schedule (tepad code):\n"
                      + "".join(f"    {line}\n" for line in code.splitlines()))
        curves[name] = best_so_far(log, make_workload_key(found[name], args),
                                   r.flop)[:r.trials]
    if ns.curve:
        plot_curve(curves, ns.curve)
        out.write(f"best-so-far curve: {ns.curve}\n")
    out.write(f"log: {log}\n")
    return 0


def _auto_target(text):
    """The Target of ``tepad tune --auto --target``: a CPU target, or a GPU one (CUDA runs
    on the GPU, or through the emulator with TEPAD_CUDA=emulate)."""
    try:
        return Target(text)
    except TepadError as err:
        raise CliError(f"--target {text!r}: {err}") from None


def cmd_graph(ns, out):
    _, s, args = load_schedule(ns.file, ns.func)
    g = schedule_graph(s)
    out.write(graph_to_dot(g, Path(ns.file).stem))
    if ns.png:
        how = render_graph_png(g, ns.png, prefer_dot=not ns.matplotlib)
        sys.stderr.write(f"wrote {ns.png} ({how})\n")
    return 0


def cmd_layout(ns, out):
    _, s, args = load_schedule(ns.file, ns.func)
    names = [ns.stage] if ns.stage else transformed_stages(s)
    if not names:
        raise CliError(f"no stage of {ns.file} has a transform_layout")
    for k, name in enumerate(names):
        out.write(("\n" if k else "") + layout_text(s, name) + "\n")
    if ns.png:
        for name, path in layout_png_paths(ns.png, names):
            plot_layout(s, name, path)
            out.write(f"wrote {path} (stage {name})\n")
    return 0


def layout_png_paths(png, names) -> list:
    """``[(stage, path)]``: ``png`` itself for one stage; ``OUT_<stage>.png`` for each of
    several."""
    if len(names) == 1:
        return [(names[0], png)]
    p = Path(png)
    return [(n, str(p.with_name(f"{p.stem}_{n}{p.suffix or '.png'}"))) for n in names]


# ---------------------------------------------------------------------------------------------
def build_parser():
    p = argparse.ArgumentParser(
        prog="tepad", description="tepad tensor-expression compiler",
        epilog="FILE.py defines schedule() -> (s, args) (or pick a function with --func) and "
               "optionally inputs(). See docs/tutorial.md.")
    p.add_argument("--version", action="version", version=f"tepad {__version__}")
    sub = p.add_subparsers(dest="cmd", required=True, metavar="COMMAND")
    sub.add_parser("demo", help="define, schedule, lower, build and run example kernels")

    def with_file(name, help_):
        sp = sub.add_parser(name, help=help_, description=help_)
        sp.add_argument("file", metavar="FILE.py", help="file defining schedule() -> (s, args)")
        sp.add_argument("--func", default="schedule",
                        help="function of FILE.py returning (s, args) (default: schedule)")
        return sp

    sp = with_file("lower", "print the IR after each lowering pass (or one with --pass)")
    sp.add_argument("--pass", dest="pass_name", metavar="NAME", default="all",
                    help="'all' (default): every step build runs, in order, the IR after each "
                         "that changed it; NAME: the IR after that step (see --list-passes)")
    sp.add_argument("--list-passes", action="store_true", help="list the pass names and exit")
    sp.add_argument("--exact", action="store_true", help="exact (ISL) bound inference")
    sp.add_argument("--checked", action="store_true",
                    help="as build(checked=True): input padding promises checked at run time")
    sp.add_argument("--bounds-check", action="store_true",
                    help="as build(bounds_check=True): every buffer access guarded")
    sp.add_argument("--name", default="main", help="kernel name (default: main)")
    sp.add_argument("--target", default=None,
                    help="the target whose backend's steps follow PIPELINE (default llvm; "
                         "'cuda' / 'opencl': the host/device split and warp lowering)")
    sp.add_argument("--emulate", action="store_true",
                    help="with a cuda or opencl target: the GPU emulator's steps (default: "
                         "TEPAD_CUDA=emulate)")

    sp = with_file("bounds", "the InferBound table per stage; --plot draws one producer's "
                             "regions (interval box, exact set, needed points)")
    sp.add_argument("--stage", help="producer whose per-iteration regions to show")
    sp.add_argument("--plot", metavar="OUT.png", help="draw the regions (needs matplotlib)")
    sp.add_argument("--iters", type=int, default=4, help="attach iterations to show (4)")
    sp.add_argument("--no-exact", action="store_true", help="interval mode only (no ISL)")

    sp = with_file("run", "build, check against the numpy oracle, and time")
    sp.add_argument("--repeat", type=int, default=0, help="timed calls (default: ~--seconds)")
    sp.add_argument("--seconds", type=float, default=0.5, help="timing budget (default 0.5)")
    sp.add_argument("--seed", type=int, default=0, help="random input seed")
    sp.add_argument("--random-inputs", action="store_true",
                    help="random inputs even when FILE.py defines inputs()")
    sp.add_argument("--no-check", action="store_true", help="skip the oracle comparison")
    sp.add_argument("--bounds-check", action="store_true",
                    help="build with bounds-checked buffer accesses")
    sp.add_argument("--target", default=None,
                    help="build target: 'llvm ...' (the CPU, default) or 'cuda' (a CUDA GPU; "
                         "without one, or with TEPAD_CUDA=emulate, the GPU emulator runs it "
                         "on the CPU); default under TEPAD_CUDA=emulate: 'cuda' for a "
                         "schedule with GPU thread bindings")
    sp.add_argument("--progress", action="store_true", help="always show the progress bar")
    sp.add_argument("--no-progress", action="store_true", help="never show the progress bar")

    sp = sub.add_parser("tune", help="tune the @autotvm.template functions of FILE.py",
                        description="tune every @autotvm.template function of FILE.py (its "
                        "arguments: TUNE_ARGS = {name: args} in the file, or the function's "
                        "defaults), with a progress bar; writes the log and prints the best "
                        "config and its speedup over the untuned default")
    sp.add_argument("file", metavar="FILE.py", help="file defining @autotvm.template functions")
    sp.add_argument("-n", "--n-trial", type=int, default=20, help="trials per template (20)")
    sp.add_argument("--tuner", choices=sorted(TUNERS), default="random",
                    help="search: random (default), grid, ga, xgb (needs tepad[tune])")
    sp.add_argument("--template", action="append", metavar="NAME",
                    help="tune only this template (repeatable)")
    sp.add_argument("--log", metavar="OUT.log",
                    help="log file, appended to (default: <FILE stem>.log here)")
    sp.add_argument("--timeout", type=float, default=10, help="seconds per candidate run (10)")
    sp.add_argument("--number", type=int, default=4, help="calls per timing (4)")
    sp.add_argument("--repeat", type=int, default=3, help="timings per candidate (3)")
    sp.add_argument("--early-stopping", type=int, default=None,
                    help="stop after this many trials without a better config")
    sp.add_argument("--seed", type=int, default=None, help="seed of the random search")
    sp.add_argument("--no-progress", action="store_true", help="no progress bar")
    sp.add_argument("--auto", action="store_true",
                    help="auto-schedule the @auto_scheduler.register_workload functions of "
                    "FILE.py instead (log: <FILE stem>.json)")
    sp.add_argument("--curve", metavar="OUT.png",
                    help="with --auto: draw the best-so-far curve (GFLOP/s over trials) of "
                    "every workload (needs matplotlib)")
    sp.add_argument("--target", default=None,
                    help="with --auto: the target to tune for (default llvm, the host; e.g. "
                    "'llvm -mcpu=haswell', or cuda, through the GPU emulator with "
                    "TEPAD_CUDA=emulate)")

    sp = sub.add_parser("bench", help="run benchmarks/run.py of the source checkout "
                                      "(other options are passed through)")
    sp.add_argument("--quick", action="store_true", help="small sizes, a few seconds")
    sp.add_argument("--out", metavar="REPORT.md",
                    help=f"markdown report (default: ./{BENCH_REPORT} for a full run, none "
                         "with --quick; --out benchmarks/RESULTS.md updates the tracked "
                         "figures)")

    sp = with_file("graph", "the read graph with compute_at edges: DOT on stdout, --png image")
    sp.add_argument("--png", metavar="OUT.png", help="also draw a PNG (graphviz dot, else "
                                                     "matplotlib)")
    sp.add_argument("--matplotlib", action="store_true", help="draw with matplotlib even if "
                                                              "graphviz is installed")

    sp = with_file("layout", "logical -> physical cells of a transform_layout, with padding")
    sp.add_argument("--stage", help="the transformed stage (default: every one)")
    sp.add_argument("--png", metavar="OUT.png",
                    help="draw it (needs matplotlib); several stages: OUT_<stage>.png each")
    return p


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    p = build_parser()
    if argv[:1] == ["bench"]:
        ns, rest = p.parse_known_args(argv)
    else:
        ns, rest = p.parse_args(argv), []
    if ns.cmd == "demo":
        return demo_main()
    out = sys.stdout
    try:
        if ns.cmd == "bench":
            return cmd_bench(ns, out, rest)
        return {"lower": cmd_lower, "bounds": cmd_bounds, "run": cmd_run, "graph": cmd_graph,
                "layout": cmd_layout, "tune": cmd_tune}[ns.cmd](ns, out)
    except MissingDependency as e:
        sys.stderr.write(f"tepad {ns.cmd}: {e}\n")
        return MISSING_MPL
    except InternalError as e:
        sys.stderr.write(f"tepad {ns.cmd}: internal compiler error (a tepad bug, please "
                         f"report it with the file): {e}\n")
        return 1
    except (CliError, TepadError) as e:
        sys.stderr.write(f"tepad {ns.cmd}: error: {e}\n")
        return 2
