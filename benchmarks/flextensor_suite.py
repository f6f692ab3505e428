#!/usr/bin/env python3
"""Run FlexTensor's TE programs (pku-liang/FlexTensor, ASPLOS 2020) on tepad with only their
imports rewritten.

    python benchmarks/flextensor_suite.py                 every case and script
    python benchmarks/flextensor_suite.py -k op: -k space: only cases whose name has these
    options: --mirror DIR (a bare git mirror of pku-liang/FlexTensor)   --rev REV (HEAD)
             --timeout S (per case, 300)   --script-timeout S (per script, 240)
             --no-scripts   --out PATH   --no-write   --json PATH   --keep   -j N
             --report-only --json PATH (the table of records saved by an earlier run)
             --baseline JSON (records of an earlier run: a *before* column)

At run time the ``flextensor`` package is read from the mirror (``git archive``) into a
temporary directory, never into this repository, and every ``.py`` file's tvm imports are
rewritten by ``tvm_suite.rewrite_source`` (``import tvm`` -> tepad under the name tvm,
``from tvm import x`` -> ``from tepad import x``; relay & co become placeholders). FlexTensor
imports ``psutil`` (to signal child processes); when it is not installed a small /proc-based
stand-in is written next to the package (:data:`PSUTIL_SHIM`).

Two kinds of records:

* **cases** (``benchmarks/flextensor_cases.py``, each in its own process): every operator of
  ``flextensor/nn/ops.py`` with the default schedule against a numpy reference (``op:``),
  FlexTensor's schedule-space code (``space.generate_space_*``) drawing a few random
  configurations that its llvm / CUDA templates apply through ``schedule_with_config``, each
  built and compared with numpy (``space:``; CUDA ones through ``TEPAD_CUDA=emulate``), and
  ``test/test_scheduler.py``'s fixed configuration (``fixed:``);
* **scripts**: FlexTensor's test, example and testing scripts run as ``python file.py`` in
  their directory (``TEPAD_CUDA=emulate``, ``TEPAD_MAX_TRIALS=4``), except those whose source
  needs what tepad is not (:data:`OUT_RULES`: PyTorch, relay/nnvm, remote devices, HeteroCL,
  FlexTensor's own TVM fork).

Each record is ``pass``, ``fail`` (first error), ``timeout``, ``broken`` (the program fails on
any TVM, with the reason: ``flextensor_cases.BROKEN``, :data:`ERROR_RULES`) or ``out`` (needs
what tepad is not, with the reason: :data:`OUT_RULES`, :data:`ERROR_RULES`).
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import tvm_suite  # noqa: E402
from results_sections import cpu_name, write_section  # noqa: E402

SECTION = "## FlexTensor's TE programs (imports rewritten)"
BEGIN, END = "<!-- flextensor_suite:begin -->", "<!-- flextensor_suite:end -->"

MIRROR = Path("/work/.mirror/pku-liang+FlexTensor/repo")
CASES = HERE / "flextensor_cases.py"

#: relay & co stay placeholders; rpc and auto_scheduler are tepad's
OUT_MODULES = tuple(m for m in tvm_suite.OUT_MODULES if m not in ("auto_scheduler", "rpc"))

#: the scripts run as programs: directories under flextensor/ (files directly in them)
SCRIPT_DIRS = ("test", "test/test_tvm/legacy", "test/test_tvm/graph", "test/test_tvm/grad",
               "test/test_tvm_expr/grad", "test/test_tvm_expr/network",
               "test/test_tvm_expr/train", "examples", "testing", "testing/net",
               "testing/others", "testing/others/hand-craft", "baselines",
               "baselines/conv-autotvm", "baselines/conv-tvm", "baselines/sparse")
# optimize/*.py are the search's command-line drivers: without arguments they do nothing,
# with them they call scheduler.schedule, whose cost model (flextensor.model) needs PyTorch

#: files that are modules, not programs
NOT_PROGRAMS = re.compile(r"(^|/)(__init__|pyimpl|layers)\.py$|/config_\w+\.py$")

#: (reason, regex over the script's source), first match wins
OUT_RULES = [
    ("needs PyTorch", r"^\s*(import torch|from torch)"),
    ("relay/nnvm", r"\brelay\b|\bnnvm\b"),
    ("HeteroCL / Vivado HLS", r"heterocl|\bhcl\b|vhls"),
    ("FlexTensor's TVM fork (tvm.tg / te.grad / tensor_graph / requires_grad)",
     r"\btvm\.tg\b|\btg\.|te\.grad\b|tensor_graph|\bgrad_op\b|GraphTune|requires_grad"),
    ("needs command-line arguments", r"sys\.argv\[1\]"),
    ("remote device (RPC / Android / OpenCL / gemmini)",
     r"rpc\.connect|connect_tracker|android|\bndk\b|\"opencl\"|'opencl'|gemmini|spike"),
]

_TORCH = "needs PyTorch"
#: (result, reason, regex over the first error) for scripts that ran and failed, first match
#: wins: failures that are not tepad's
ERROR_RULES = [
    ("out", _TORCH + " (through flextensor.train)", r"No module named 'torch'"),
    ("out", _TORCH + " (the search's cost model, flextensor.model)",
     r"name 'WalkerGroup' is not defined"),
    ("out", "reads a data or tuning-log file the repository does not have",
     r"FileNotFoundError|no log file"),
    ("broken", "imports a name FlexTensor's own package no longer has",
     r"cannot import name '\w+' from 'flextensor|No module named 'flextensor\."),
    ("broken", "calls Task(name, func, args, target, dev_id), an older signature than "
               "flextensor.task's (category, name, func, args, target)",
     r"KeyError: 'yolo1_None_llvm_0\(0\)'"),
    ("broken", "builds a schedule of a placeholder alone; its own comment says TVM "
               "segfaults there (tepad raises a TepadError)",
     r"the schedule computes nothing"),
    ("broken", "mixes TVM 0.6's tvm.stmt with 0.7's tvm.tir: no TVM release has both",
     r"tvm\.stmt\.ProducerConsumer"),
    ("broken", "'/' on two integer expressions: TVM 0.6-0.18 raise div_ambiguity_error too",
     r"`/` on integer expressions|'/' on integer expressions"),
    ("out", "TVM 0.4's topi.broadcast_add (topi.add since 0.5)", r"'broadcast_add'"),
    ("broken", "pads with tvm.select, which evaluates both operands, so A[yy - 1] is read "
               "at yy = 0: an out-of-bounds load in TVM's code too (tepad refuses it at "
               "build; te.if_then_else is the guard)",
     r"stage 'Apad' reads A\[yy - 1, xx - 1, cc, nn\] outside the shape .*opt_conv_cpu\.py"),
    ("broken", "its tile_k filter reads entity.size[0], the -1 placeholder of TVM's split "
               "entities too: no split passes (TVM's space is empty as well)",
     r"no split of k \(length 2048\) passes policy 'factors' and the filter .*gemm_int8"),
    ("out", "assembles result directories of earlier experiments (none here)",
     r"IndexError: list index out of range .*assemble\.py"),
    ("broken", "its task is commented out of flextensor/task.py's registry",
     r"KeyError: 'conv2d_1x1-packed_"),
    ("broken", "calls topi.nn.conv2d_NCHWc without dilation, which TVM 0.6-0.18 require too",
     r"conv2d_NCHWc\(\) missing 1 required positional argument: 'dilation'"),
    ("broken", "unpacks 3 reduce axes of FlexTensor's conv2d_nchwc, which has 4 today",
     r"too many values to unpack \(expected 3\) .*schedule_conv2d_nchwc_x86\.py"),
]

PSUTIL_SHIM = '''"""A stand-in for psutil written by benchmarks/flextensor_suite.py when psutil is not
installed: FlexTensor's scheduler imports it only to find and signal a process's children
(Process(pid).children(recursive=True), send_signal, NoSuchProcess); this reads /proc."""
import os


class NoSuchProcess(Exception):
    pass


class Process:
    def __init__(self, pid=None):
        self.pid = os.getpid() if pid is None else pid
        if not os.path.exists(f"/proc/{self.pid}"):
            raise NoSuchProcess(self.pid)

    def children(self, recursive=False):
        kids = []
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open(f"/proc/{d}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == self.pid:
                try:
                    kids.append(Process(int(d)))
                except NoSuchProcess:
                    continue
        if recursive:
            for k in list(kids):
                kids.extend(k.children(recursive=True))
        return kids

    def send_signal(self, sig):
        try:
            os.kill(self.pid, sig)
        except ProcessLookupError:
            raise NoSuchProcess(self.pid) from None
'''


# ----------------------------------------------------------------------------- preparing

def _git(mirror: Path, *args: str, binary=False):
    out = subprocess.run(["git", "--git-dir", str(mirror), *args], check=True,
                         capture_output=True, text=not binary).stdout
    return out


def prepare(mirror: Path, rev: str, work: Path) -> str:
    """Extract ``flextensor/`` of ``rev`` into ``work`` with its imports rewritten, plus the
    support module, the cases file and (without psutil) the psutil stand-in; the commit."""
    work.mkdir(parents=True, exist_ok=True)
    tar = _git(mirror, "archive", rev, "flextensor", binary=True)
    subprocess.run(["tar", "-x", "-C", str(work)], input=tar, check=True)
    for p in (work / "flextensor").rglob("*.py"):
        p.write_text(tvm_suite.rewrite_source(p.read_text(errors="replace"), OUT_MODULES))
    tvm_suite.write_support(work, OUT_MODULES)
    shutil.copy(CASES, work / CASES.name)
    if importlib.util.find_spec("psutil") is None:
        (work / "psutil.py").write_text(PSUTIL_SHIM)
    return _git(mirror, "rev-parse", rev).strip()


def _env(work: Path, root: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root), str(work), env.get("PYTHONPATH", "")])
    env["TEPAD_CUDA"] = "emulate"
    env["TEPAD_MAX_TRIALS"] = "4"
    env["MPLBACKEND"] = "Agg"
    env.setdefault("PYTHONWARNINGS", "ignore")
    return env


# ----------------------------------------------------------------------------- running

def list_cases(work: Path, root: Path) -> list[str]:
    out = subprocess.run([sys.executable, CASES.name, "--list"], cwd=work, env=_env(work, root),
                         capture_output=True, text=True, check=True).stdout
    return [ln for ln in out.splitlines() if ln.strip()]


def run_case(name: str, work: Path, root: Path, timeout: int) -> dict:
    t0 = time.time()
    try:
        proc = subprocess.run([sys.executable, CASES.name, name], cwd=work,
                              env=_env(work, root), capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"name": name, "result": "timeout", "error": f"over {timeout} s", "note": "",
                "time": time.time() - t0}
    rec = None
    for ln in proc.stdout.splitlines():
        if ln.startswith("FLEXTENSOR_CASE "):
            rec = json.loads(ln[len("FLEXTENSOR_CASE "):])
    if rec is None:
        rec = {"result": "fail", "note": "",
               "error": tvm_suite_first_error(proc.stderr or proc.stdout)}
    return {"name": name, **rec, "time": time.time() - t0}


def tvm_suite_first_error(text: str) -> str:
    """The exception line of a traceback (the last ``Name: message`` line)."""
    lines = text.strip().splitlines()
    where = ""
    for ln in lines:
        m = re.match(r'\s*File "[^"]*/(flextensor/[^"]+)", line (\d+)', ln)
        if m:
            where = f" ({m.group(1)}:{m.group(2)})"
    for ln in reversed(lines):
        if re.match(r"^[\w.]+(Error|Exception|Exit)\b", ln) or re.match(r"^[\w.]+: ", ln):
            return (ln.strip()[:240] + where).strip()
    return (lines[-1].strip()[:240] if lines else "(no output)") + where


def scripts(work: Path) -> list[str]:
    """The program files of :data:`SCRIPT_DIRS`, relative to ``work``."""
    out = []
    for d in SCRIPT_DIRS:
        for p in sorted((work / "flextensor" / d).glob("*.py")):
            rel = str(p.relative_to(work))
            if not NOT_PROGRAMS.search(rel):
                out.append(rel)
    return out


def out_reason(src: str) -> str:
    for reason, rx in OUT_RULES:
        if re.search(rx, src, re.M):
            return reason
    return ""


def run_script(rel: str, work: Path, root: Path, timeout: int, mirror_src: str) -> dict:
    reason = out_reason(mirror_src)
    if reason:
        return {"name": rel, "result": "out", "error": "", "note": reason, "time": 0.0}
    path = work / rel
    t0 = time.time()
    try:
        proc = subprocess.run([sys.executable, path.name], cwd=path.parent,
                              env=_env(work, root), capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"name": rel, "result": "timeout", "error": f"over {timeout} s", "note": "",
                "time": time.time() - t0}
    secs = time.time() - t0
    if proc.returncode == 0:
        return {"name": rel, "result": "pass", "error": "", "note": "", "time": secs}
    err = tvm_suite_first_error(proc.stderr)
    for result, why, rx in ERROR_RULES:
        if re.search(rx, err):
            return {"name": rel, "result": result, "error": err, "note": why, "time": secs}
    return {"name": rel, "result": "fail", "error": err, "note": "", "time": secs}


# ----------------------------------------------------------------------------- reporting

def group(name: str) -> str:
    return name.split(":", 1)[0] if ":" in name else "script"


def summary(records: list[dict]) -> str:
    parts = []
    for g in ("op", "space", "fixed", "script"):
        rs = [r for r in records if group(r["name"]) == g]
        if not rs:
            continue
        c = collections.Counter(r["result"] for r in rs)
        runnable = len(rs) - c["out"] - c["broken"]
        extra = ", ".join(f"{c[k]} {k}" for k in ("fail", "timeout", "broken", "out") if c[k])
        parts.append(f"{g}: **{c['pass']} of {runnable}** pass" + (f" ({extra})" if extra else ""))
    return "; ".join(parts)


def table(records: list[dict], baseline: dict | None = None) -> list[str]:
    extra = " before |" if baseline is not None else ""
    lines = [f"| case / script | result |{extra} first error / note | time |",
             "|---|---|" + ("---|" if extra else "") + "---|---:|"]
    for r in records:
        b = ""
        if baseline is not None:
            old = baseline.get(r["name"])
            b = f" {old['result']} |" if old else " - |"
        text = "; ".join(x for x in (r.get("error", ""), r.get("note", "")) if x)
        text = text.replace("|", "/").replace("`", "'").replace("\n", " ")
        lines.append(f"| `{r['name']}` | {r['result']} |{b} {text} | {r['time']:.0f} s |")
    return lines


def report(a, records: list[dict], commit: str) -> None:
    baseline = None
    if a.baseline:
        baseline = {r["name"]: r for r in json.loads(a.baseline.read_text())}
    tab = table(records, baseline)
    print("\n".join(["", summary(records), "", *tab]))
    if a.no_write:
        return
    cmd = "python benchmarks/flextensor_suite.py" + "".join(f" -k {o}" for o in a.only)
    text = "\n".join([
        SECTION, "", BEGIN, "",
        f"FlexTensor (pku-liang/FlexTensor, commit {commit[:12]}), read from a git mirror at "
        f"run time and run on tepad with only its tvm imports rewritten (`{cmd}`; "
        f"{a.timeout} s per case, {a.script_timeout} s per script). *op*: each operator of "
        f"`flextensor/nn/ops.py` with the default schedule against numpy; *space*: "
        f"FlexTensor's schedule-space code drawing random configurations for its llvm and "
        f"CUDA templates (`TEPAD_CUDA=emulate`), each schedule built and compared with numpy "
        f"(its search driver needs PyTorch for its cost model, so configurations are drawn "
        f"as its random warm-up does); *fixed*: `test/test_scheduler.py`'s configuration; "
        f"*script*: its test / example / testing scripts as programs. *broken*: the "
        f"program fails on any TVM (reason given); *out*: needs what tepad is not; the pass "
        f"counts are of the rest. "
        f"CPU: {cpu_name()}, shared with other jobs. {summary(records)}."
        + (f" *before*: {a.baseline_label}." if baseline else "")
        + (f" {a.note}" if a.note else ""),
        "", *tab, "", END])
    write_section(a.out, text, SECTION, BEGIN, END)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", type=Path, default=MIRROR)
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("-k", dest="only", action="append", default=[],
                    help="only cases / scripts whose name contains this (repeatable)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per case")
    ap.add_argument("--script-timeout", type=int, default=240, help="seconds per script")
    ap.add_argument("--no-scripts", action="store_true")
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--baseline", type=Path)
    ap.add_argument("--baseline-label", default="the same cases before the fixes")
    ap.add_argument("--note", default="", help="a sentence added to the section's text")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--tepad-root", type=Path, default=ROOT)
    a = ap.parse_args(argv)
    root = a.tepad_root.resolve()

    if not a.mirror.exists():
        print(f"no FlexTensor mirror at {a.mirror}", file=sys.stderr)
        return 2
    commit = _git(a.mirror, "rev-parse", a.rev).strip()
    if a.report_only:
        report(a, json.loads(a.json.read_text()), commit)
        return 0

    work = Path(tempfile.mkdtemp(prefix="flextensor_suite_"))
    try:
        prepare(a.mirror, a.rev, work)
        jobs = [("case", n) for n in list_cases(work, root)]
        if not a.no_scripts:
            jobs += [("script", s) for s in scripts(work)]
        if a.only:
            jobs = [j for j in jobs if any(o in j[1] for o in a.only)]

        def one(job):
            kind, name = job
            if kind == "case":
                rec = run_case(name, work, root, a.timeout)
            else:
                src = _git(a.mirror, "show", f"{a.rev}:{name}")
                rec = run_script(name, work, root, a.script_timeout, src)
            print(f"{rec['name']}: {rec['result']} {rec['time']:.0f} s "
                  f"{rec.get('error', '')} {rec.get('note', '')}".rstrip(), flush=True)
            return rec

        with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as pool:
            records = list(pool.map(one, jobs))
    finally:
        if a.keep:
            print("working directory kept in", work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    if a.json:
        a.json.write_text(json.dumps(records, indent=1))
    report(a, records, commit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
