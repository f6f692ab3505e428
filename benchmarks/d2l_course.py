#!/usr/bin/env python3
"""Run the course "Dive into Deep Learning Compiler" (d2l-ai/d2l-tvm, written for TVM 0.6/0.7's
TE) on tepad with only its tvm imports rewritten.

    python benchmarks/d2l_course.py                       every chapter of the course
    python benchmarks/d2l_course.py -k cpu_schedules      only chapters whose path has this
    options: --mirror DIR (bare git mirror of d2l-ai/d2l-tvm)   --rev REV (HEAD)
             --timeout S (per chapter, 900)   --out PATH   --no-write   --json PATH   --keep
             --list (print the chapters, their cells and what is skipped, run nothing)
             --report-only --json PATH (the table of records saved by an earlier run)
             [--rerun-json RERUN.json ...: later reruns, replacing the same chapters' records]
             --baseline OLD.json (adds a *before* column)
             --drafts (also the earlier drafts of the chapters, each at its last commit)

The chapters (``chapter_*/*.md``) and the course's helper module (``d2ltvm/d2ltvm.py``) are
read from a bare git mirror of the course at run time into a temporary directory, never into
this repository. A chapter's code cells (fenced ``{.python .input}``) run in order, as its
notebook does: one IPython shell per chapter, one ``run_cell`` per cell (so ``%timeit``,
``!cmd`` and a cell's displayed last value behave as in the notebook), with
``MPLBACKEND=Agg`` and ``TEPAD_CUDA=emulate`` (the GPU chapters run through tepad's CUDA
emulator). The cells and the helper module have their imports rewritten by
``tvm_suite.rewrite_source`` (``import tvm`` -> ``import tepad as tvm``, ``from tvm import
te`` -> ``from tepad import te``), and so is the ``'import tvm\n'`` that opens a string of code
for ``timeit.Timer(setup=...)`` (:func:`rewrite`); the course's ``import topi`` (TVM 0.6)
binds tepad's ``topi`` shim. A chapter stops at its first failing cell.

MXNet, which the course compares against, has no build for Python 3.11 / NumPy 2 (its last
wheel, 1.9.1, fails at import on NumPy 2's removed names), so the cells that use it are not
run: a cell's top-level statement is commented out when it names ``mx.``, ``import mxnet`` or a
``*_mxnet`` helper, or when it reads a name that only such statements bind (see
:func:`strip_mxnet`); the rest of the cell runs. Each row says how many statements were left
out. Where a left-out statement is the MXNet check of a TVM convolution's result (after
``get_conv_data_mxnet(ARGS)``), the same line checks that result against numpy's convolution
of the same seeded data instead (:func:`numpy_checks`), and the row says so; the other MXNet
checks (pooling, batch norm) are only left out. Chapters that are not TE programs are counted
apart with the reason (:data:`OUT_CHAPTERS`).

Every chapter ends in one class: ``pass`` (every cell ran), ``fail`` (a cell raised: the
first error line and the cell's number), ``timeout``.

The chapters' timing loops (``d2ltvm.bench_workload``: repeat a workload for about one
second per size) run as written, except the largest sizes of the matrix multiplication
chapters and drafts (:data:`SIZE_CAPS`, said in their rows; ``--as-written`` runs them too). The curves
a chapter plots through ``d2ltvm.plot`` are recorded and tabulated (first and last size).
"""
from __future__ import annotations

import argparse
import ast
import collections
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

SECTION = "## The course \"Dive into Deep Learning Compiler\" (imports rewritten)"
BEGIN, END = "<!-- d2l_course:begin -->", "<!-- d2l_course:end -->"

MIRROR = Path("/work/.mirror/d2l-ai+d2l-tvm/repo")

#: chapters that are not TE programs: path -> reason
OUT_CHAPTERS = {
    "chapter_getting_started/install.md": "installation (pip commands and the imports the "
                                          "d2ltvm module repeats)",
    "chapter_getting_started/from_mxnet.md": "an MXNet model compiled through relay (no MXNet "
                                             "for Python 3.11; relay is not TE)",
    "chapter_getting_started/remote.md": "RPC to a remote device (relay model, tvm.rpc)",
    "chapter_cpu_schedules/arch.md": "not a TE program (shell commands that print the host's "
                                     "CPU facts)",
    "chapter_gpu_schedules/arch.md": "not a TE program (nvidia-smi)",
    "chapter_cpu_schedule/arch.md": "not a TE program (shell commands that print the host's "
                                    "CPU facts)",
    "chapter_gpu_schedule/arch.md": "not a TE program (nvidia-smi)",
}

#: the earlier drafts of the course (folders later renamed and rewritten), each at the last
#: commit that has it: (commit, folders); run with ``--drafts``, each with its commit's d2ltvm
DRAFTS = [
    ("d8b36a8", ("chapter_expression", "chapter_cpu_schedule", "chapter_gpu_schedule")),
    ("57fd891", ("chapter_schedule",)),
]

#: chapter -> what is known about its failure, added to its row
KNOWN = {
    "chapter_expression/index_shape_expression.md":
        "the draft (Oct 2019) was written for TVM 0.6.dev, whose `/` on integer expressions "
        "TVM 0.6.0 itself rejects as ambiguous (as tepad does)",
}

#: chapter -> what its row must say whatever its result
NOTES = {
    "chapter_cpu_schedule/basic_conv.md":
        "its arrays are MXNet's (mxnet.np, handed to the TVM kernels): the kernels' tests and "
        "timings are left out with MXNet, only the definitions and lowering run",
    "chapter_cpu_schedule/conv.md":
        "its arrays are MXNet's (mxnet.np, handed to the TVM kernels): the kernels' tests and "
        "timings are left out with MXNet, only the definitions and lowering run",
}

#: chapter -> (statement as written, as run, why): the sizes the timing loops sweep, cut where
#: the sweep as written does not fit a chapter's time on a small shared host; ``--as-written``
#: runs them unchanged
SIZE_CAPS = {
    "chapter_cpu_schedules/matmul.md": (
        "sizes = 2**np.arange(5, 12, 1)", "sizes = 2**np.arange(5, 11, 1)",
        "n up to 1024, not 2048: the naive schedules (default, reorder) at n = 2048 run "
        "17 GFLOP each, three times per schedule, one core"),
    "chapter_cpu_schedule/matmul.md": (     # the draft of chapter_cpu_schedules/matmul.md
        "sizes = 2**np.arange(5, 12, 1)", "sizes = 2**np.arange(5, 11, 1)",
        "n up to 1024, not 2048: the naive schedules at n = 2048 run 17 GFLOP each, three "
        "times per schedule, one core"),
    "chapter_schedule/cpu/matrix_product.md": (   # the first draft of the same chapter
        "avg_times, sizes = [], 2**np.arange(5, 12, 1)",
        "avg_times, sizes = [], 2**np.arange(5, 11, 1)",
        "n up to 1024, not 2048: the naive schedules at n = 2048 run 17 GFLOP each, at least "
        "four times per schedule (%timeit -r3), one core"),
    "chapter_gpu_schedules/matmul.md": (
        "sizes = 2**np.arange(8, 15, 1)", "sizes = 2**np.arange(8, 12, 1)",
        "n up to 2048 (the size the chapter checks), not 16384: the emulator runs the CUDA "
        "kernel on the CPU, and n = 16384 is 8.8 TFLOP"),
}

#: a cell that uses MXNet
MXNET = re.compile(r"\bmx\.|\bimport mxnet\b|\bfrom mxnet\b|\w+_mxnet\b")

FENCE = re.compile(r"^```\{\.python \.input\b[^}]*\}\s*$")


# ----------------------------------------------------------------------------- the mirror

def _git(mirror: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(mirror), *args], check=True,
                          capture_output=True, text=True).stdout


def chapter_paths(mirror: Path, rev: str) -> list[str]:
    """The chapters' markdown paths at ``rev``, in the course's order (folder, then file)."""
    names = _git(mirror, "ls-tree", "-r", "--name-only", rev).splitlines()
    return sorted(p for p in names if re.match(r"^chapter_\w+/[\w/]+\.md$", p))


def cells_of(markdown: str) -> list[str]:
    """The code cells (``{.python .input}`` fences) of a chapter, in order."""
    cells, cur = [], None
    for line in markdown.splitlines():
        if cur is None:
            if FENCE.match(line):
                cur = []
        elif line.startswith("```"):
            cells.append("\n".join(cur) + "\n")
            cur = None
        else:
            cur.append(line)
    return cells


def _names(stmt: ast.stmt) -> tuple[set[str], set[str]]:
    """(names a top-level statement binds in the module, names it reads anywhere): a def or
    class binds its name only; names bound inside functions, lambdas and comprehensions are
    theirs."""
    binds, reads = set(), set()
    scopes = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp,
              ast.SetComp, ast.DictComp, ast.GeneratorExp)

    def visit(node, top):
        if isinstance(node, ast.Name):
            if not isinstance(node.ctx, ast.Load):
                if top:
                    binds.add(node.id)
            else:
                reads.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and top:
            binds.update((al.asname or al.name).split(".")[0] for al in node.names)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and top:
            binds.add(node.name)
        inner = top and not isinstance(node, scopes)
        for child in ast.iter_child_nodes(node):
            visit(child, inner)

    visit(stmt, True)
    return binds, reads


SKIPPED = "# [not run: MXNet] "


def strip_mxnet(cells: list[str]) -> tuple[list[str], int]:
    """The cells with their MXNet statements commented out, and how many statements that is.

    A top-level statement is left out when it names MXNet (:data:`MXNET`) or reads a name
    that only left-out statements bind, so the cut spreads to what depends on MXNet's results
    and no further (a cell's ``sizes = ...`` next to its MXNet timing still runs). IPython's
    ``%``/``!`` lines are kept. Line numbers are kept (a left-out line becomes a comment)."""
    out, dropped, defined, missing = [], 0, set(), set()
    for src in cells:
        lines = src.splitlines()
        text = "\n".join("" if re.match(r"^\s*[%!]", ln) else ln for ln in lines)
        try:
            tree = ast.parse(text)
        except SyntaxError:
            out.append(src)
            continue
        for stmt in tree.body:
            seg = "\n".join(lines[stmt.lineno - 1:stmt.end_lineno])
            binds, reads = _names(stmt)
            if MXNET.search(seg) or (reads & missing) - defined:
                dropped += 1
                missing |= binds - defined
                for i in range(stmt.lineno - 1, stmt.end_lineno):
                    lines[i] = SKIPPED + lines[i]
            else:
                defined |= binds
                missing -= binds
        out.append("\n".join(lines) + "\n")
    return out, dropped


def cap_sizes(path: str, cells: list[str]) -> tuple[list[str], str]:
    """The cells with the chapter's :data:`SIZE_CAPS` edit applied, and a note saying so
    (``""`` when the chapter has none); an edit whose statement is not found exactly once is
    reported in the note, not applied."""
    if path not in SIZE_CAPS:
        return cells, ""
    old, new, why = SIZE_CAPS[path]
    hits = sum(c.count(old) for c in cells)
    if hits != 1:
        return cells, f"size cap not applied ('{old}' found {hits} times)"
    return [c.replace(old, new) for c in cells], f"timing sizes capped: {why}"


#: ``get_conv_data_mxnet(ARGS)`` and the MXNet check of a TVM result ``VAR`` that follows it
_MX_CONV = re.compile(r"^" + re.escape(SKIPPED) +
                      r"data, weight, bias, out_mx = (?:d2ltvm\.)?get_conv_data_mxnet\((.*)\)\s*$")
_MX_CHECK = re.compile(r"^" + re.escape(SKIPPED) +
                       r"np\.testing\.assert_allclose\(out_mx\[0\]\.asnumpy\(\), "
                       r"(\w+)\.asnumpy\(\), atol=[\w.-]+\)\s*$")

#: the numpy reference the MXNet checks of convolutions are replaced by (module of the run)
CHECK_MODULE = """\
import numpy as np
import d2ltvm


def conv(out, oc, ic, n, k, p=0, s=1, ctx='cpu', conv_type='direct'):
    \"\"\"out (a TVM result) against numpy's convolution of the chapter's seeded data.\"\"\"
    data, weight, _ = d2ltvm.get_conv_data(oc, ic, n, k, p, s, conv_type=conv_type)
    x = np.pad(data, ((0, 0), (p, p), (p, p)))
    on = (n - k + 2 * p) // s + 1
    ref = np.zeros((oc, on, on), 'float32')
    for i in range(on):
        for j in range(on):
            win = x[:, i * s:i * s + k, j * s:j * s + k]
            if conv_type == 'depthwise':
                ref[:, i, j] = (weight[:, 0] * win).sum(axis=(1, 2))
            else:
                ref[:, i, j] = np.tensordot(weight, win, axes=3)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)
    print("checked against numpy:", conv_type, "convolution", out.shape)
"""


def numpy_checks(cells: list[str]) -> tuple[list[str], int]:
    """The cells with each left-out MXNet check of a convolution's TVM result (after
    ``get_conv_data_mxnet(ARGS)``, in that cell or an earlier one) replaced, on the same line, by a check of that result against
    numpy's convolution of the same seeded data (:data:`CHECK_MODULE`), and how many."""
    out, n, args = [], 0, None
    for src in cells:
        lines = src.splitlines()
        for i, ln in enumerate(lines):
            m = _MX_CONV.match(ln)
            if m:
                args = m.group(1)
                continue
            m = _MX_CHECK.match(ln)
            if m and args is not None:
                lines[i] = (f"import _d2l_check; _d2l_check.conv({m.group(1)}.asnumpy(), {args})"
                            f"  # in place of the MXNet check")
                n += 1
        out.append("\n".join(lines) + "\n")
    return out, n


# ----------------------------------------------------------------------------- running

#: runs one chapter's cells (cells.json) in an IPython shell; stops at the first error
DRIVER = r'''
import json, sys, traceback
from IPython.core.interactiveshell import InteractiveShell

cells = json.load(open("cells.json"))

# record the curves the chapter plots (its timings) for the report; the plot itself is drawn
import d2ltvm
_plot, plots = d2ltvm.plot, []


def plot(X, Y, xlabel=None, ylabel=None, legend=[], *args, **kw):
    def listed(v):
        try:
            return [float(x) for x in v]
        except TypeError:
            return [listed(x) for x in v]
    plots.append({"xlabel": xlabel, "ylabel": ylabel, "legend": list(legend or []),
                  "X": listed(X), "Y": listed(Y)})
    json.dump(plots, open("plots.json", "w"))
    return _plot(X, Y, xlabel, ylabel, legend, *args, **kw)


# the package re-exports the module d2ltvm.d2ltvm, whose helpers call that module's plot
d2ltvm.plot = plot
if hasattr(d2ltvm, "d2ltvm"):
    d2ltvm.d2ltvm.plot = plot
shell = InteractiveShell.instance(colors="NoColor")
# a plain shell has no GUI loop: "%matplotlib inline" picks the inline backend and its figures
# display as text
shell.enable_gui = lambda gui=None: None
for k, src in enumerate(cells, 1):
    print(f"--- cell {k}", flush=True)
    res = shell.run_cell(src, store_history=True)
    err = res.error_before_exec or res.error_in_exec
    if err is not None:
        sys.stderr.write("".join(traceback.format_exception(type(err), err, err.__traceback__)))
        sys.stderr.write(f"D2L_FAILED_CELL {k}\n")
        sys.exit(1)
'''


def first_error(stderr: str) -> str:
    """The exception line of the traceback on ``stderr``, with the cell that raised it."""
    cell = re.search(r"D2L_FAILED_CELL (\d+)", stderr)
    text = stderr
    if "Traceback (most recent call last)" in text:
        text = text[text.rindex("Traceback (most recent call last)"):]
    lines = [ln for ln in text.splitlines() if not ln.startswith("D2L_FAILED_CELL")]
    exc = ""
    for ln in reversed(lines):
        if re.match(r"^[\w.]+(Error|Exception|Exit|Interrupt)\b.*", ln) or \
                re.match(r"^[\w.]+: ", ln):
            exc = ln.strip()
            break
    if not exc:
        exc = lines[-1].strip() if lines else "(no output)"
    return (exc[:240] + (f" (cell {cell.group(1)})" if cell else "")).strip()


#: ``'import tvm\n'`` opening a string of code (a ``timeit.Timer`` setup) -- an import too
_STRING_IMPORT = re.compile(r"""(['"])import tvm\\n""")


def rewrite(src: str) -> str:
    """A cell or module with its tvm imports rewritten: the statements
    (``tvm_suite.rewrite_source``) and the ``import tvm`` that opens a string of code handed to
    ``timeit.Timer(setup=...)``."""
    return tvm_suite.rewrite_source(_STRING_IMPORT.sub(r"\1import tepad as tvm\\n", src))


def prepare_d2ltvm(mirror: Path, rev: str, work: Path) -> None:
    """The course's ``d2ltvm`` package in ``work``, its imports rewritten and its MXNet
    statements left out as in the chapters (:func:`strip_mxnet`)."""
    pkg = work / "d2ltvm"
    pkg.mkdir(parents=True, exist_ok=True)
    tvm_suite.write_support(work)       # what its rewritten `import tvm` loads
    (pkg / "__init__.py").write_text(_git(mirror, "show", f"{rev}:d2ltvm/__init__.py"))
    (pkg / "d2ltvm.py").write_text(
        rewrite(strip_mxnet([_git(mirror, "show", f"{rev}:d2ltvm/d2ltvm.py")])[0][0]))


def run_chapter(cells: list[str], work: Path, timeout: int,
                shared: Path, root: Path = ROOT, env_extra: dict | None = None) -> dict:
    """Run one chapter's cells (rewritten) in ``work``; its outcome, first error and time."""
    work.mkdir(parents=True, exist_ok=True)
    tvm_suite.write_support(work)
    (work / "cells.json").write_text(json.dumps(
        [rewrite(c) for c in cells]))
    (work / "driver.py").write_text(DRIVER)
    (work / "_d2l_check.py").write_text(CHECK_MODULE)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root), str(work), str(shared),
                                         env.get("PYTHONPATH", "")])
    env["TEPAD_CUDA"] = "emulate"
    env["MPLBACKEND"] = "Agg"
    env.setdefault("PYTHONWARNINGS", "ignore")
    env.update(env_extra or {})
    t0 = time.time()
    with open(work / "stdout.txt", "w") as out, open(work / "stderr.txt", "w") as err:
        rc = subprocess.run(["timeout", str(timeout), sys.executable, "driver.py"], cwd=work,
                            env=env, stdout=out, stderr=err).returncode
    secs = time.time() - t0
    stdout = (work / "stdout.txt").read_text(errors="replace")
    stderr = (work / "stderr.txt").read_text(errors="replace")
    last = re.findall(r"^--- cell (\d+)", stdout, re.M)
    plots = work / "plots.json"
    curves = {"plots": json.loads(plots.read_text()) if plots.exists() else []}
    if rc == 124:
        at = f" (in cell {last[-1]})" if last else ""
        return {"result": "timeout", "error": f"over {timeout} s{at}", "time": secs, **curves}
    if rc == 0:
        return {"result": "pass", "error": "", "time": secs, **curves}
    return {"result": "fail", "error": first_error(stderr or stdout), "time": secs,
            **curves}


# ----------------------------------------------------------------------------- reporting

def table(records: list[dict], baseline: dict | None = None) -> list[str]:
    extra = " before |" if baseline is not None else ""
    lines = [f"| chapter | cells (MXNet statements left out) | result |{extra} first error / note | time |",
             "|---|---:|---|" + ("---|" if extra else "") + "---|---:|"]
    for r in records:
        b = ""
        if baseline is not None:
            old = baseline.get(r["path"])
            b = f" {old['result']} |" if old else " - |"
        err = (r["error"] or "").replace("|", "/").replace("`", "'")
        lines.append(f"| `{r['path']}` | {r['cells']} ({r['skipped']}) | {r['result']} |{b} "
                     f"{err} | {r['time']:.0f} s |")
    return lines


def _fmt(v: float) -> str:
    return "nan" if v != v else (f"{v:.3g}" if abs(v) >= 1e-3 else f"{v:.2e}")


def timings(records: list[dict]) -> list[str]:
    """One row per curve set a chapter plots (``d2ltvm.plot``/``plot_gflops``): each curve's
    value at the smallest and the largest x."""
    lines = ["| chapter | plot (y) | x: first .. last | curves: first .. last |",
             "|---|---|---|---|"]
    for r in records:
        for k, pl in enumerate(r.get("plots", []), 1):
            X, Y = pl["X"], pl["Y"]
            if not Y or not isinstance(Y[0], list):
                Y = [Y]
            if X and isinstance(X[0], list):
                X = X[0]
            names = pl["legend"] or [f"curve {i + 1}" for i in range(len(Y))]
            curves = "; ".join(f"{n} {_fmt(y[0])} .. {_fmt(y[-1])}"
                               for n, y in zip(names, Y) if y)
            xs = f"{_fmt(X[0])} .. {_fmt(X[-1])}" if X else ""
            lines.append(f"| `{r['path']}` | {k} ({pl['ylabel'] or ''}) | {xs} | {curves} |")
    return lines


def summary(records: list[dict]) -> str:
    c = collections.Counter(r["result"] for r in records)
    return (f"**{c['pass']} of {len(records)}** chapters run to the end ({c['fail']} fail, "
            f"{c['timeout']} time out)")


def read_chapters(mirror: Path, rev: str, dirs, prefix: str, as_written: bool) -> list[dict]:
    """The chapters at ``rev`` (only those under the folders ``dirs`` when given) with code
    cells, as they will run; their paths carry ``prefix`` (a draft's commit)."""
    chapters = []
    for path in chapter_paths(mirror, rev):
        if dirs and path.split("/")[0] not in dirs:
            continue
        cells = cells_of(_git(mirror, "show", f"{rev}:{path}"))
        if not cells:
            continue
        run, dropped = strip_mxnet(cells)
        run, checks = numpy_checks(run)
        note = f"{checks} MXNet checks of a convolution replaced by numpy's" if checks else ""
        if not as_written:
            run, cap = cap_sizes(path, run)
            note = "; ".join(x for x in (note, cap) if x)
        chapters.append({"path": prefix + path, "base": path, "rev": rev, "cells": cells,
                         "run": run, "skipped": dropped, "note": note})
    return chapters


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", type=Path, default=MIRROR)
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("-k", dest="only", action="append", default=[],
                    help="only chapters whose path contains this (repeatable)")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per chapter")
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--json", type=Path, help="write per-chapter records here")
    ap.add_argument("--baseline", type=Path, help="records (--json) of an earlier run")
    ap.add_argument("--baseline-label", default="the baseline")
    ap.add_argument("--keep", action="store_true", help="keep the working directories")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--rerun-json", type=Path, action="append", default=[])
    ap.add_argument("--note", default="", help="a sentence added to the section's text")
    ap.add_argument("--drafts", action="store_true",
                    help="also the course's earlier drafts (DRAFTS), each at its last commit")
    ap.add_argument("--as-written", action="store_true",
                    help="run every timing loop's sizes as written (no SIZE_CAPS)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("-v", dest="verbose", action="store_true",
                    help="with --list: print the statements left out")
    ap.add_argument("--tepad-root", type=Path, default=ROOT)
    a = ap.parse_args(argv)

    rev = _git(a.mirror, "rev-parse", a.rev).strip()
    sets = [(rev, None, "")]
    if a.drafts:
        sets += [(_git(a.mirror, "rev-parse", r).strip(), dirs, f"{r}:") for r, dirs in DRAFTS]
    chapters = []
    for crev, dirs, prefix in sets:
        chapters += read_chapters(a.mirror, crev, dirs, prefix, a.as_written)
    ins = [c for c in chapters if c["base"] not in OUT_CHAPTERS]
    outs = [c for c in chapters if c["base"] in OUT_CHAPTERS]
    if a.only:
        ins = [c for c in ins if any(o in c["path"] for o in a.only)]
    if a.list:
        for c in ins:
            print(f"in  {c['path']}: {len(c['cells'])} cells, {c['skipped']} MXNet "
                  f"statements left out" + (f"; {c['note']}" if c["note"] else ""))
            if c["skipped"] and a.verbose:
                print("".join(ln + "\n" for cell in c["run"] for ln in cell.splitlines()
                              if ln.startswith(SKIPPED)))
        for c in outs:
            print(f"out {c['path']}: {OUT_CHAPTERS[c['base']]}")
        return 0

    if a.report_only:
        records = json.loads(a.json.read_text())
        for rerun in a.rerun_json:
            newer = {r["path"]: r for r in json.loads(rerun.read_text())}
            records = [newer.pop(r["path"], r) for r in records] + list(newer.values())
        order = {c["path"]: k for k, c in enumerate(chapters)}
        records.sort(key=lambda r: order.get(r["path"], len(order)))
        return report(a, rev, records, outs)

    work = Path(tempfile.mkdtemp(prefix="d2l_course_"))
    records = []
    try:
        for i, c in enumerate(ins):
            shared = work / f"_shared_{c['rev'][:10]}"
            if not shared.exists():
                prepare_d2ltvm(a.mirror, c["rev"], shared)
            d = work / f"{i:02d}_{c['path'].replace('/', '__').replace(':', '_')[:-3]}"
            res = run_chapter(c["run"], d, a.timeout, shared,
                              root=a.tepad_root.resolve())
            if res["result"] != "pass" and c["base"] in KNOWN:
                res["error"] += f" -- {KNOWN[c['base']]}"
            if c["note"]:
                res["error"] = "; ".join(x for x in (res["error"], c["note"]) if x)
            rec = {"path": c["path"], "cells": len(c["cells"]), "skipped": c["skipped"],
                   **res}
            records.append(rec)
            print(f"{c['path']}: {res['result']} {res['time']:.0f} s {res['error']}",
                  flush=True)
            if a.json:
                a.json.write_text(json.dumps(records, indent=1))
    finally:
        if a.keep:
            print("working directories kept in", work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return report(a, rev, records, outs)


def report(a, rev: str, records: list[dict], outs: list[dict]) -> int:
    for r in records:                   # records of an earlier run get the notes too
        note = NOTES.get(r["path"].split(":")[-1], "")
        if note and note not in r["error"]:
            r["error"] = "; ".join(x for x in (r["error"], note) if x)
    baseline = None
    if a.baseline:
        baseline = {r["path"]: r for r in json.loads(a.baseline.read_text())}
    tab = table(records, baseline)
    out_tab = ["| out of scope | reason |", "|---|---|"] + \
        [f"| `{c['path']}` | {OUT_CHAPTERS[c['base']]} |" for c in outs]
    print("\n".join(["", summary(records), "", *tab, "", *out_tab, "", *timings(records)]))
    if a.json and not a.report_only:
        a.json.write_text(json.dumps(records, indent=1))
    if not a.no_write:
        cmd = "python benchmarks/d2l_course.py" + (" --drafts" if a.drafts else "") + \
            "".join(f" -k {o}" for o in a.only)
        drafts = ("; with `--drafts` also the earlier drafts of the chapters, each at the last "
                  "commit that has it (" + ", ".join(f"{r}: {', '.join(d)}" for r, d in DRAFTS)
                  + "), their rows prefixed by that commit") if a.drafts else ""
        text = "\n".join([
            SECTION, "", BEGIN, "",
            f"The chapters of d2l-ai/d2l-tvm (commit {rev[:10]}{drafts}), read from a git "
            f"mirror and "
            f"run cell by cell in an IPython shell on tepad with only their imports rewritten "
            f"(`{cmd}`, {a.timeout} s per chapter; GPU chapters with `TEPAD_CUDA=emulate`; "
            f"the statements that use MXNet, which has no build for Python 3.11 / NumPy 2, "
            f"and those that read only their results, are left out and counted; "
            + ("sizes as written" if a.as_written else
               "the matrix multiplication chapters' largest timing sizes cut, as their rows "
               "say") + f"). CPU: {cpu_name()}, shared "
            f"with other jobs. {summary(records)}."
            + (f" *before*: the same chapters on `{a.baseline_label}`." if baseline else "")
            + (f" {a.note}" if a.note else ""),
            "", *tab, "", "Chapters that are not TE programs:", "", *out_tab, "",
            "The timings the chapters plot (the series passed to `d2ltvm.plot` / "
            "`plot_gflops`; GFLOPS or seconds as the chapter's y label says, MXNet curves "
            "not run):", "", *timings(records), "", END])
        write_section(a.out, text, SECTION, BEGIN, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
