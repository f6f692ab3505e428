"""Tuned: the AutoTVM templates of W1-W6 (examples/tune_templates.py) tuned briefly on this
machine, beside the examples' fixed schedules timed in the same run.

    python benchmarks/bench_tune.py                      full sizes, 8 trials each; prints the
                                                         section
    python benchmarks/bench_tune.py --out benchmarks/RESULTS.md
                                                         replaces (or adds) only the "Tuned"
                                                         section of RESULTS.md
    python benchmarks/bench_tune.py --quick              small sizes, a few trials
    python benchmarks/bench_tune.py --isa avx2 --only W2,W4 --log avx2.log
                                                         AVX2 code (benchmarks/isa.py) for
                                                         two workloads; bench_plain.py
                                                         --isa avx2 --tuned-log avx2.log
                                                         times the best configs

Each template is measured first at its default (every knob's first choice: the example's
schedule where the knob lists start with it), then tuned with the random tuner for ``--trials``
candidates (each built in a worker process, checked against the oracle and timed in a separate
worker: ``number`` calls x ``repeat`` timings, the mean kept). The fixed schedule is timed in
this process with ``time_evaluator`` (median of the repeats). The log goes to
``--log`` (default: a temporary file). ``--isa avx2`` tunes for tepad's AVX2 target (the
templates' default then is the examples' AVX2 schedule) and names its section apart.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import tepad  # noqa: E402
import isa as isas  # noqa: E402
from tepad.autotvm.session import make_option, tune_template  # noqa: E402
from tepad.autotvm.measure import random_array  # noqa: E402

SECTION = "## Tuned (AutoTVM templates, benchmarks/bench_tune.py)"
# the template and its arguments of each workload at the benchmark sizes
FULL_ARGS = {"W1": ("w1/elementwise", (4096,)), "W2": ("w2/matmul", (1024,)),
             "W3": ("w3/blur", (4096,)), "W4": ("w4/conv2d", (64, 64, 56, 56)),
             "W5": ("w5/rowsum", (16384, 14)), "W6": ("w6/maxpool", (1024, 1024))}


def section_title(isa: str) -> str:
    """The heading of this script's RESULTS.md section for ``isa``."""
    return SECTION if isa == "host" else SECTION.replace("(AutoTVM", f"for --isa {isa} (AutoTVM")


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


TEMPLATES = load(ROOT / "examples" / "tune_templates.py", "tepad_tune_templates")


def fixed_schedules(quick: bool) -> list:
    """``(key, title, template, template args, fixed-schedule thunk)`` per workload."""
    ex = {n: load(ROOT / "examples" / f"{n}.py", f"tepad_bench_tune_{n}")
          for n in ("elementwise", "matmul", "blur", "conv2d", "rowsum")}
    rolling = load(ROOT / "benchmarks" / "bench_rolling.py", "tepad_bench_tune_rolling")
    a = TEMPLATES.TUNE_ARGS
    sizes = dict(a) if quick else dict(FULL_ARGS.values())
    return [
        ("W1", "elementwise 4096^2" if not quick else "elementwise", "w1/elementwise",
         sizes["w1/elementwise"], lambda: ex["elementwise"].schedule(*sizes["w1/elementwise"])),
        ("W2", "matmul 1024^3" if not quick else "matmul", "w2/matmul", sizes["w2/matmul"],
         lambda: ex["matmul"].schedule(*sizes["w2/matmul"])),
        ("W3", "blur 4096^2" if not quick else "blur", "w3/blur", sizes["w3/blur"],
         lambda: ex["blur"].schedule(*sizes["w3/blur"])),
        ("W4", "conv2d 64x56x56" if not quick else "conv2d", "w4/conv2d", sizes["w4/conv2d"],
         lambda: ex["conv2d"].schedule(*sizes["w4/conv2d"])),
        ("W5", "row sums 16384x14" if not quick else "row sums", "w5/rowsum",
         sizes["w5/rowsum"], lambda: ex["rowsum"].schedule(*sizes["w5/rowsum"])),
        ("W6", "2 max-pools 1024^2x16 int8" if not quick else "2 max-pools", "w6/maxpool",
         sizes["w6/maxpool"], lambda: rolling.schedule("tiled_parallel",
                                                       *sizes["w6/maxpool"])),
    ]


def time_fixed(thunk, number, repeat, isa="host") -> float:
    """Median seconds per call of the fixed schedule (scheduled and built here for ``isa``,
    random inputs)."""
    with isas.target_scope(isa):
        s, args = thunk()
        mod = tepad.build(s, args)
    isas.check_assembly(mod.get_source("asm"), "tepad fixed schedule", isa)
    rng = np.random.default_rng(0)
    arrays = [random_array(tuple(int(d) for d in t.shape), t.dtype, rng) for t in args]
    res = mod.time_evaluator(mod.entry_name, number=number, repeat=repeat)(*arrays)
    return statistics.median(res.results)


def run(quick=False, trials=8, number=4, repeat=3, log=None, progress=print, isa="host",
        only=()) -> str:
    """Tune every workload (those of ``only`` when given) for ``isa``; the markdown section."""
    target = str(isas.tepad_target(isa) or "llvm")
    own_log = log is None
    if own_log:
        fd, log = tempfile.mkstemp(prefix="bench_tune_", suffix=".log")
        os.close(fd)
    option = make_option(timeout=20, number=number, repeat=repeat)
    load_before = os.getloadavg()[0]
    rows = []
    t_all = time.time()
    for key, title, name, args, thunk in fixed_schedules(quick):
        if only and key not in only:
            continue
        t0 = time.time()
        fixed = time_fixed(thunk, number, repeat, isa)
        r = tune_template(name, args, n_trial=trials, tuner="random", log=log, option=option,
                          progress=False, seed=0, target=target)
        progress(f"{key} {name}: fixed {fixed * 1e3:.3f} ms, default "
                 f"{(r.default_cost or float('nan')) * 1e3:.3f} ms, tuned "
                 f"{(r.best_cost or float('nan')) * 1e3:.3f} ms ({time.time() - t0:.0f} s)")
        rows.append((key, title, name, fixed, r))
    if own_log:
        os.remove(log)
    flags = (" --quick" if quick else "") + (f" --isa {isa}" if isa != "host" else "") \
        + (f" --only {','.join(only)}" if only else "") + f" --trials {trials}"
    lines = [section_title(isa), "",
             f"Generated by `python benchmarks/bench_tune.py{flags}` on "
             f"{time.strftime('%Y-%m-%d %H:%M')} ({os.cpu_count()} cores; "
             f"`{tepad.target.host_cpu_name()}`; target `{target}`), "
             f"{time.time() - t_all:.0f} s in all. "
             f"Random tuner, {trials} candidates per workload after the default; each "
             f"candidate timed as {number} calls x {repeat} repeats in a separate worker "
             "process (mean of the repeats' means); the fixed schedule (the examples' and "
             "bench_rolling's tiled-parallel W6) timed in the benchmark process (median). "
             f"Load average {load_before:.1f} before and {os.getloadavg()[0]:.1f} after the run "
             f"on {os.cpu_count()} cores: with other jobs on the host, parallel kernels wait "
             "at their barriers for descheduled threads and the figures are noise; compare "
             "only runs on a quiet machine.",
             "",
             "| workload | template | fixed schedule ms | template default ms | tuned ms | "
             "tuned / fixed | tried (failed) of space | best config |",
             "|---|---|---:|---:|---:|---:|---|---|"]
    for key, title, name, fixed, r in rows:
        d = f"{r.default_cost * 1e3:.3f}" if r.default_cost is not None else "failed"
        b = f"{r.best_cost * 1e3:.3f}" if r.best_cost is not None else "failed"
        ratio = f"{fixed / r.best_cost:.2f}x" if r.best_cost else "-"
        cfg = ", ".join(f"{k}={v}" for k, v in r.best_config._entity_map.items()) \
            if r.best_config is not None else "-"
        lines.append(f"| {key} {title} | `{name}` | {fixed * 1e3:.3f} | {d} | {b} | {ratio} | "
                     f"{r.trials + 1} ({r.errors}) of {r.space_size} | {cfg} |")
    lines.append("")
    lines.append("tuned / fixed > 1x: the tuned template beat the example's fixed schedule.")
    return "\n".join(lines) + "\n"


def replace_section(text: str, section: str, title: str = SECTION) -> str:
    """``text`` with its section headed ``title`` replaced by ``section`` (added before the
    first section after the per-workload ones, or at the end, when there is none)."""
    if title in text:
        start = text.index(title)
        nxt = text.find("\n## ", start + len(title))
        end = nxt + 1 if nxt >= 0 else len(text)
        return text[:start] + section + ("\n" if nxt >= 0 else "") + text[end:]
    anchor = text.find("\n## RFC 0077")
    if anchor < 0:
        return text.rstrip("\n") + "\n\n" + section
    return text[:anchor + 1] + section + "\n" + text[anchor + 1:]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes")
    ap.add_argument("--trials", type=int, default=8, help="candidates per workload (8)")
    ap.add_argument("--number", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--log", help="keep the tuning log here")
    ap.add_argument("--out", help="markdown file whose Tuned section to replace or add")
    ap.add_argument("--isa", choices=isas.ISAS, default="host",
                    help="instruction set (benchmarks/isa.py; default: the host's)")
    ap.add_argument("--only", default="", help="comma-separated workload keys (W1..W6)")
    a = ap.parse_args(argv)
    only = tuple(k.strip() for k in a.only.split(",") if k.strip())
    section = run(a.quick, a.trials, a.number, a.repeat, a.log,
                  progress=lambda m: print(m, file=sys.stderr, flush=True), isa=a.isa,
                  only=only)
    if a.out:
        p = Path(a.out)
        p.write_text(replace_section(p.read_text() if p.exists() else "", section,
                                     section_title(a.isa)))
        print(f"wrote the Tuned section to {a.out}", file=sys.stderr)
    else:
        print(section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
