#!/usr/bin/env python3
"""Run TVM's TE tutorials (releases 0.6 to 0.18) on tepad with only their imports rewritten.

    python benchmarks/tvm_gallery.py                      every TE tutorial of the default tags
    python benchmarks/tvm_gallery.py --mirror DIR         another bare TVM git mirror
    python benchmarks/tvm_gallery.py -k opt_gemm          only tutorials whose tag/path has this
    options: --tags v0.6.0,v0.18.0   --timeout S (per tutorial, 600)   --out PATH   --no-write
             --json PATH   --keep   --cap N (rerun timed-out tutorials with TEPAD_MAX_TRIALS=N)
             --list (print the tutorials and the out-of-scope ones, run nothing)
             --report-only --json PATH (the table of records saved by an earlier run)
             [--extra-json SIDE.json ...: tutorials the main run lacks]
             [--rerun-json RERUN.json ...: later reruns, replacing the same tutorials' records]

The tutorials are read from a bare git mirror of apache/tvm (``git ls-tree`` / ``git show``
of each tag) into a temporary directory at run time, never into this repository. A file
that is the same blob in several tags runs once, under the oldest tag that has it. Each
tutorial runs as a script (``python tutorial.py``) in its own working directory with
``TEPAD_CUDA=emulate`` (CUDA tutorials run through the emulator) and its tuning trial counts
as written; its imports are rewritten by ``tvm_suite.rewrite_source`` (``import tvm`` ->
``import tepad as tvm``, ``from tvm import x`` -> ``from tepad import x``), except that
``auto_scheduler`` is tepad's, not a placeholder.

Every tutorial ends in one class: ``pass`` (ran to the end), ``fail`` (an exception: its last
line is the first error), ``timeout``. A timed-out tutorial is run again with
``TEPAD_MAX_TRIALS`` (which tepad's autotvm tuners and auto-scheduler honour) capping its
trial count, to tell whether it is only slow because of its own trial count. A tutorial that
leaves its ``task.tune(tune_option)`` commented out and tells the reader to uncomment it to
run it (v0.18's tune_conv2d_layer_cuda: the lines after it read the search's log) runs with
that one line uncommented (:func:`uncomment_tuning`), noted in its row. Tutorials of
the tags that are not TE programs are counted apart with the reason (:data:`OUT_RULES`).
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import tvm_suite  # noqa: E402
from results_sections import cpu_name, write_section  # noqa: E402

SECTION = "## TVM's TE tutorials (imports rewritten)"
BEGIN, END = "<!-- tvm_gallery:begin -->", "<!-- tvm_gallery:end -->"

MIRROR = Path("/work/.mirror/apache+tvm/repo")
#: the TE era: 0.6 (``tutorials/``, top-level ``topi``), 0.7 (``tvm.topi``, auto_scheduler),
#: 0.8 (the first ``gallery/``), 0.18 (the last release with TE)
TAGS = ("v0.6.0", "v0.7.0", "v0.8.0", "v0.18.0")

#: tutorials that are TE programs (paths as in the tags' trees)
IN_SCOPE = re.compile(
    r"^(gallery/tutorial/(tensor_expr_get_started|intro_topi|autotvm_matmul_x86|"
    r"auto_scheduler_matmul_x86)\.py"
    r"|gallery/how_to/(work_with_schedules|optimize_operators)/\w+\.py"
    r"|gallery/how_to/extend_tvm/low_level_custom_pass\.py"
    r"|gallery/how_to/tune_with_autotvm/tune_conv2d_cuda\.py"
    r"|gallery/how_to/tune_with_autoscheduler/(tune_conv2d_layer_cuda|tune_sparse_x86)\.py"
    r"|tutorials/(language|optimize|topi)/\w+\.py"
    r"|tutorials/autotvm/(tune_simple_template|tune_conv2d_cuda)\.py"
    r"|tutorials/dev/low_level_custom_pass\.py"
    r"|tutorials/(get_started/)?(tensor_expr_get_started|autotvm_matmul_x86|"
    r"auto_scheduler_matmul_x86)\.py"
    r"|tutorials/auto_scheduler/(tune_matmul_x86|tune_conv2d_layer_cuda|tune_sparse_x86)\.py"
    r"|(tutorials(/get_started)?|gallery/tutorial)/cross_compilation_and_rpc\.py)$")

#: (reason, regex over the path) of the tutorials that are not TE programs, first match wins
OUT_RULES = [
    ("microTVM", r"micro"),
    ("VTA", r"vta"),
    ("tvmc", r"tvmc"),
    ("bring_your_own_datatypes", r"bring_your_own_datatypes"),
    ("rpc/cross-compilation", r"rpc|cross_compil"),
    ("TVMScript", r"tensor_ir_blitz|tvmscript|tir_blitz"),
    ("relay/relax/frontends",
     r"relay|relax|frontend|compile_models|from_\w+|deploy|tune_network|tune_relay|"
     r"use_pass_infra|use_pass_instrument|work_with_pytorch|work_with_msc|uma\.py|"
     r"extend_tvm/|graph_executor|quantiz|tune_with_autotvm/tune_relay|autotvm/tune_relay|"
     r"_network|tvm_mobile|build_gcn|bert|pytorch|mxnet|onnx|tensorflow|tflite|keras|"
     r"coreml|darknet|caffe|paddle|oneflow|convert_layout|ndarray_and_tensor"),
    ("not a program (install / overview)", r"install|introduction|setup|__init__|conf\.py"),
]

#: what the rewritten imports leave to placeholders: relay & co, but not auto_scheduler
OUT_MODULES = tuple(m for m in tvm_suite.OUT_MODULES if m not in ("auto_scheduler", "rpc"))


def out_reason(path: str) -> str:
    """Why the tutorial at ``path`` is not a TE program ("" when it is one, or unknown)."""
    if IN_SCOPE.match(path):
        return ""
    for reason, rx in OUT_RULES:
        if re.search(rx, path):
            return reason
    return "other (not a TE tutorial)"


# ----------------------------------------------------------------------------- the mirror

def _git(mirror: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(mirror), *args], check=True, capture_output=True,
                          text=True).stdout


def tutorial_files(mirror: Path, tag: str) -> list[tuple[str, str]]:
    """``[(path, blob hash)]`` of the tutorial ``.py`` files of ``tag`` (``tutorials/`` and
    ``gallery/`` trees)."""
    out = []
    for line in _git(mirror, "ls-tree", "-r", f"refs/tags/{tag}", "--", "tutorials",
                     "gallery").splitlines():
        meta, path = line.split("\t", 1)
        if path.endswith(".py"):
            out.append((path, meta.split()[2]))
    return out


def collect(entries: dict) -> tuple[list[dict], list[dict]]:
    """(in-scope tutorials, out-of-scope ones) from ``{tag: [(path, blob)]}`` (tags oldest
    first); a blob seen in several tags is one tutorial under its first tag, with the others
    listed in ``also``."""
    seen, ins, outs = {}, [], []
    for tag, files in entries.items():
        for path, blob in files:
            if blob in seen:
                seen[blob]["also"].append(tag)
                continue
            rec = {"tag": tag, "path": path, "blob": blob, "also": []}
            seen[blob] = rec
            reason = out_reason(path)
            if reason:
                rec["reason"] = reason
                outs.append(rec)
            else:
                ins.append(rec)
    return ins, outs


# ----------------------------------------------------------------------------- running

def first_error(stderr: str) -> str:
    """The exception line of a traceback on ``stderr`` (its last ``Name: message`` line
    after the last ``Traceback``), with the tutorial's line that raised it when known."""
    text = stderr.strip()
    if "Traceback (most recent call last)" in text:
        text = text[text.rindex("Traceback (most recent call last)"):]
    lines = text.splitlines()
    where = ""
    for ln in lines:
        m = re.match(r'\s*File "[^"]*/tutorial\.py", line (\d+)', ln)
        if m:
            where = f" (line {m.group(1)})"
    exc = ""
    for ln in reversed(lines):
        if re.match(r"^[\w.]+(Error|Exception|Exit|Interrupt|Warning)\b.*", ln) or \
                re.match(r"^[\w.]+: ", ln):
            exc = ln.strip()
            break
    if not exc:
        exc = lines[-1].strip() if lines else "(no output)"
    return (exc[:240] + where).strip()


def run_tutorial(src: str, work: Path, timeout: int, env_extra: dict | None = None,
                 root: Path = ROOT, script: str = "tutorial.py", stdin: str | None = None) -> dict:
    """Run one rewritten tutorial's source in ``work`` (as the file ``script``, with ``stdin``
    as its input); its outcome, first error and time."""
    work.mkdir(parents=True, exist_ok=True)
    tvm_suite.write_support(work, OUT_MODULES)
    (work / script).write_text(tvm_suite.rewrite_source(src, OUT_MODULES))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root), str(work), env.get("PYTHONPATH", "")])
    env["TEPAD_CUDA"] = "emulate"
    env["MPLBACKEND"] = "Agg"
    env.setdefault("PYTHONWARNINGS", "ignore")
    env.update(env_extra or {})
    t0 = time.time()
    proc = subprocess.run(["timeout", str(timeout), sys.executable, script], cwd=work,
                          env=env, input=stdin, capture_output=True, text=True)
    secs = time.time() - t0
    if proc.returncode == 124:
        return {"result": "timeout", "error": f"over {timeout} s", "time": secs}
    if proc.returncode == 0:
        return {"result": "pass", "error": "", "time": secs}
    err = (proc.stderr or proc.stdout).replace(f'/{script}"', '/tutorial.py"')
    return {"result": "fail", "error": first_error(err), "time": secs}


#: what a tutorial's text says before a line it leaves commented out for the reader to run
UNCOMMENT_HINT = "# Uncomment the following line to run it by yourself."
_COMMENTED_TUNE = re.compile(r"^(?P<hint>" + re.escape(UNCOMMENT_HINT) +
                             r"\n)# (?P<line>task\.tune\(tune_option\))$", re.M)


def uncomment_tuning(src: str) -> tuple[str, str]:
    """``(source, note)``: a tutorial that leaves its ``task.tune(tune_option)`` commented out
    under "Uncomment the following line to run it by yourself." (its later lines read the log
    that search writes) with that one line uncommented, as the text tells the reader, and a
    note saying so; any other source unchanged with note "". Other lines the text offers to
    uncomment (a resumed search) stay commented."""
    out, n = _COMMENTED_TUNE.subn(lambda m: m.group("hint") + m.group("line"), src)
    return (out, "ran with its commented-out `task.tune(tune_option)` uncommented, as its "
                 "text tells the reader") if n else (src, "")


def tunes(src: str) -> bool:
    """Whether a tutorial's source runs a tuner (whose trial count TEPAD_MAX_TRIALS caps)."""
    return bool(re.search(r"n_trial|num_measure_trials|\.tune\(|tune_and_evaluate", src))


# ----------------------------------------------------------------------------- reporting

def label(rec: dict) -> str:
    also = f" (= {', '.join(rec['also'])})" if rec.get("also") else ""
    return f"{rec['tag']} `{rec['path']}`{also}"


def table(records: list[dict], baseline: dict | None = None) -> list[str]:
    """Per-tutorial rows; ``baseline`` (``{blob: record}`` of an earlier run) adds a
    *before* column."""
    extra = " before |" if baseline is not None else ""
    lines = [f"| tutorial (first tag) | result |{extra} first error / note | time |",
             "|---|---|" + ("---|" if extra else "") + "---|---:|"]
    for r in records:
        b = ""
        if baseline is not None:
            old = baseline.get(r["blob"])
            b = f" {old['result']} |" if old else " - |"
        err = (r["error"] or "").replace("|", "/").replace("`", "'")
        lines.append(f"| {label(r)} | {r['result']} |{b} {err} | {r['time']:.0f} s |")
    return lines


def summary(records: list[dict]) -> str:
    c = collections.Counter(r["result"] for r in records)
    n = len(records)
    return (f"**{c['pass']} of {n}** run to the end ({c['fail']} fail, {c['timeout']} time "
            f"out)")


def out_table(outs: list[dict]) -> list[str]:
    c = collections.Counter(r["reason"] for r in outs)
    lines = ["| out of scope (distinct files) | count |", "|---|---:|"]
    lines += [f"| {k} | {v} |" for k, v in c.most_common()]
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", type=Path, default=MIRROR, help="bare git mirror of apache/tvm")
    ap.add_argument("--tags", default=",".join(TAGS), help="comma-separated, oldest first")
    ap.add_argument("-k", dest="only", action="append", default=[],
                    help="only tutorials whose 'tag/path' contains this (repeatable)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per tutorial")
    ap.add_argument("--cap", type=int, default=8,
                    help="trial cap (TEPAD_MAX_TRIALS) for the rerun of a timed-out tutorial; "
                         "0: no rerun")
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--json", type=Path, help="write per-tutorial records here")
    ap.add_argument("--baseline", type=Path, help="records (--json) of an earlier run")
    ap.add_argument("--baseline-label", default="the baseline")
    ap.add_argument("--keep", action="store_true", help="keep the working directories")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="tutorials run at once")
    ap.add_argument("--report-only", action="store_true",
                    help="run nothing: write the table of the records in --json")
    ap.add_argument("--extra-json", type=Path, action="append", default=[],
                    help="with --report-only: records of side runs, for tutorials --json lacks")
    ap.add_argument("--rerun-json", type=Path, action="append", default=[],
                    help="with --report-only: records of later reruns, which replace those "
                         "of the same tutorials in --json and --extra-json")
    ap.add_argument("--note", default="", help="a sentence added to the section's text")
    ap.add_argument("--list", action="store_true", help="list the tutorials, run nothing")
    ap.add_argument("--tepad-root", type=Path, default=ROOT)
    a = ap.parse_args(argv)

    tags = [t for t in a.tags.split(",") if t]
    ins, outs = collect({t: tutorial_files(a.mirror, t) for t in tags})
    if a.only:
        ins = [r for r in ins if any(o in f"{r['tag']}/{r['path']}" for o in a.only)]
    if a.list:
        for r in ins:
            print("in ", label(r))
        for r in outs:
            print("out", label(r), "--", r["reason"])
        return 0

    if a.report_only:
        records = json.loads(a.json.read_text())
        have = {r["blob"] for r in records}
        for extra in a.extra_json:       # side runs: only tutorials the main run lacks
            records += [r for r in json.loads(extra.read_text()) if r["blob"] not in have]
            have = {r["blob"] for r in records}
        for rerun in a.rerun_json:       # reruns after a fix: their records win
            newer = {r["blob"]: r for r in json.loads(rerun.read_text())}
            records = [newer.pop(r["blob"], r) for r in records] + list(newer.values())
        order = {r["blob"]: k for k, r in enumerate(ins)}
        records.sort(key=lambda r: order.get(r["blob"], len(order)))
        missing = len(ins) - len(records)
        return report(a, tags, records, outs, missing)

    work = Path(tempfile.mkdtemp(prefix="tvm_gallery_"))
    lock, done = threading.Lock(), []

    def one(i_r):
        i, r = i_r
        src, note = uncomment_tuning(_git(a.mirror, "cat-file", "blob", r["blob"]))
        d = work / f"{i:02d}_{Path(r['path']).stem}"
        res = run_tutorial(src, d, a.timeout, root=a.tepad_root.resolve())
        if res["result"] == "timeout" and a.cap and tunes(src):
            again = run_tutorial(src, d.with_name(d.name + "_capped"), a.timeout,
                                 {"TEPAD_MAX_TRIALS": str(a.cap)}, root=a.tepad_root.resolve())
            res["error"] += (f"; with TEPAD_MAX_TRIALS={a.cap}: {again['result']} in "
                             f"{again['time']:.0f} s"
                             + (f" ({again['error']})" if again["error"] else ""))
        if note:
            res["error"] = "; ".join(x for x in (res["error"], note) if x)
        rec = {**r, **res}
        print(f"{label(rec)}: {res['result']} {res['time']:.0f} s {res['error']}", flush=True)
        if a.json:
            with lock:       # the records so far, so that an interrupted run still has them
                done.append(rec)
                a.json.write_text(json.dumps(done, indent=1))
        return rec

    try:
        with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as pool:
            records = list(pool.map(one, enumerate(ins)))
    finally:
        if a.keep:
            print("working directories kept in", work)
        else:
            shutil.rmtree(work, ignore_errors=True)

    return report(a, tags, records, outs, 0)


def report(a, tags, records, outs, missing: int) -> int:
    """Print the table and write the RESULTS.md section (``missing``: tutorials not run)."""
    baseline = None
    if a.baseline:
        baseline = {r["blob"]: r for r in json.loads(a.baseline.read_text())}
    tab = table(records, baseline)
    gap = f" {missing} tutorials were not run (the run was cut short)." if missing else ""
    print("\n".join(["", summary(records) + gap, "", *tab, "", *out_table(outs)]))
    if a.json and not a.report_only:
        a.json.write_text(json.dumps(records, indent=1))
    if not a.no_write:
        cmd = "python benchmarks/tvm_gallery.py" + "".join(f" -k {o}" for o in a.only)
        text = "\n".join([
            SECTION, "", BEGIN, "",
            f"TVM's TE tutorials of tags {', '.join(tags)}, read from a git mirror of "
            f"apache/tvm and run as scripts on tepad with only their imports rewritten "
            f"(`{cmd}`, {a.timeout} s per tutorial, {a.jobs} at once; CUDA ones with "
            f"`TEPAD_CUDA=emulate`, tuning trial counts as written, and a tutorial that times "
            f"out while tuning run again with `TEPAD_MAX_TRIALS={a.cap}`; a file identical in "
            f"several tags runs once, under its first tag). CPU: {cpu_name()}, shared with "
            f"other jobs. {summary(records)}.{gap}"
            + (f" *before*: the same tutorials on `{a.baseline_label}`." if baseline else "")
            + (f" {a.note}" if a.note else ""),
            "", *tab, "", "Tutorials of these tags that are not TE programs:", "",
            *out_table(outs), "", END])
        write_section(a.out, text, SECTION, BEGIN, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
