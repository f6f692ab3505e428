#!/usr/bin/env python3
"""Run TE programs from personal TVM study/sandbox repositories on tepad, imports rewritten.

    python benchmarks/heldout_scripts.py                  every script of :data:`SCRIPTS`
    python benchmarks/heldout_scripts.py -k schedule_optimize   only scripts whose repo/path has this
    options: --timeout S (per script, 180)   --cap N (rerun a timed-out tuning script capped)   --out PATH   --no-write   --json PATH
             --baseline JSON (an earlier --json: adds a *before* column)   --keep   --list
             --report-only --json PATH [--rerun-json RERUN.json ...] (the table of saved records)

The scripts are a held-out body: TE programs (TVM 0.6-0.18: ``te.compute`` /
``create_schedule`` / ``tvm.build``, AutoTVM templates, auto_scheduler searches) that people
wrote while learning TVM, not TVM's own tutorials or tests. Each entry of :data:`SCRIPTS` names
a GitHub repository, a commit and a path; the file is read at run time with ``git show`` from
the bare mirror that the ``fetch`` tool leaves under ``/work/.mirror/OWNER+NAME/repo`` (or
``--mirrors DIR``) into a temporary directory, never into this repository.

Each script runs as ``python script.py`` in its own working directory with its imports
rewritten by ``tvm_suite.rewrite_source`` (``import tvm`` -> tepad, ``from tvm import x`` ->
``from tepad import x``; relay & co become placeholders, auto_scheduler stays tepad's) and
``TEPAD_CUDA=emulate`` (CUDA scripts run through the emulator). Study scripts often stop in
``pdb.set_trace()``: stdin carries ``c`` (continue) lines, so a debugger stop goes on as a
reader pressing ``c`` would. Nothing else of a script is changed.

Every script ends in one class: ``pass`` (exit status 0), ``fail`` (its first error),
``fail*`` (a failure the script has on TVM as well: :data:`FAILS_ON_TVM`), ``timeout`` (a
script that tunes is run again with ``TEPAD_MAX_TRIALS`` capping its trials, to tell whether
it is only slow because of its trial count), or ``out`` (out of scope, with the reason: a relay/relax/TVMScript program, a
meta_schedule one, a file that is not valid Python such as one left with merge-conflict
markers). The scope is decided from the source before running (:func:`scope`) and from the
first error after (a placeholder of relay & co raised).
"""
from __future__ import annotations

import argparse
import collections
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import tvm_suite  # noqa: E402
from results_sections import cpu_name, write_section  # noqa: E402
from tvm_gallery import run_tutorial  # noqa: E402

SECTION = "## Held-out TE scripts from TVM study repositories (imports rewritten)"
BEGIN, END = "<!-- heldout_scripts:begin -->", "<!-- heldout_scripts:end -->"

MIRRORS = Path("/work/.mirror")

_SISI = ("sisiwuxi/tvm-study", "8bc59128e34f869623fd0f6b07f5bf1f04acc3e9")
_ANDREW = ("AndrewZhaoLuo/TVM-Sandbox", "64bbb85026a5dbd298adb44628f7cb8661771b44")
_XUAO = ("xuao1/TVM-Learning", "1d4b55b6f34a90331e3b47ab74d8ca7e5974413d")
_CHARLIE = ("CharlieCurry/tvm-learning", "76592e441d804f63b0e15d813fec5212c293dbe8")
_FENG = ("fengjiran/tvm_learning", "a9ae544d63a828c8e3b4a7e514b9860633a1c0bc")
_LEO = ("LeoBrasileo/TVM-RVV_optimized_operators", "9a9f1c626104c8d74a45eed483d8ba79f3083392")

#: (repository, commit, path) of every script run
SCRIPTS = [
    *[(*_SISI, f"schedule_optimize/{n}.py") for n in (
        "bind", "cache_read", "cache_write", "compute_at", "compute_at2", "compute_inline",
        "compute_inline2", "compute_root", "compute_root2", "compute_root_2", "create_group",
        "decl_buffer", "dot", "fuse", "fuse2", "normalize", "parallel", "pragma", "prefetch",
        "reduction", "reorder", "reorder2", "rfactor", "set_scope", "set_store_predicate",
        "split", "split2", "storage_align", "tensorize", "tensorize_2", "test_gemm", "tile",
        "unroll", "vectorize")],
    (*_SISI, "test/dot.py"),
    (*_SISI, "test/codegen_test_v4.py"),
    (*_SISI, "cuda_run.py"),
    (*_SISI, "gemm/opt_gemm.py"),
    (*_SISI, "gemm/cuda_gemm_square_v0.1.py"),
    (*_SISI, "gemm/cuda_dense.py"),
    (*_SISI, "opt_conv_cuda.py"),
    (*_SISI, "conv2d/cuda_conv2d_nhwc.py"),
    (*_SISI, "mlc.ai/tensor_expression_utility.py"),
    (*_SISI, "mlc.ai/matrix_multiply.py"),
    *[(*_ANDREW, p) for p in (
        "codegen/test_export_to_ll.py", "tir/te_matrix_multiplication.py",
        "tir/test_inconsistent_tir_lowering.py", "tir/test_inconsistent_tir_printing.py",
        "tir/test_serialize_dag.py")],
    *[(*_XUAO, p) for p in (
        "Phase6/TEcode1.py", "Phase6/TEcode2_parallel.py", "Phase6/TEcode3_vector.py",
        "Phase7/tvmtensor.py", "Phase8/Schedule_learing.py", "Phase8/inline_mathfunc.py",
        "Phase8/reduce.py")],
    *[(*_SISI, f"gemm/cuda_gemm_square{v}.py") for v in (
        "", "_v0", "_v0.2", "_v0.3", "_v0.4", "_v0.5", "_v0.6", "_v1", "_v2", "_v3")],
    (*_SISI, "scheduler/auto_scheduler_matmul_cuda.py"),
    *[(*_CHARLIE, p) for p in (
        "autotvm/gemm_difftuner.py", "learningfromlog/autotuner/autoTVM.py",
        "autotvm/gemm_xgbtuner.py", "scheduling/define_config.py",
        "scheduling/tile_space_define.py")],
    *[(*_CHARLIE, f"scheduling/schedule stage/{n}.py") for n in (
        "0.gemm_base", "1.gemm_blocking", "2.gemm_vectorization",
        "3.gemm_gemm_loop_permutation", "4.gemm_packing", "5.gemm_write_cache",
        "6.gemm_parallel", "7.gemm_autotvm")],
    *[(*_CHARLIE, f"scheduling/schedule stage/API intro/{n}.py") for n in (
        "compute_inline", "pragma", "rfactor", "set_store_predicate", "storage_align",
        "tensorize")],
    *[(*_FENG, p) for p in (
        "test_auto_tuning/test_autotvm_matmul_x86.py", "test_auto_tuning/test_space.py",
        "test_te/test_te_schedule.py", "test_te/test_te_tensor.py", "schedule/reduction.py",
        "schedule/rfactor.py", "schedule/storage_align.py", "schedule/cache_read.py")],
    (*_LEO, "operators/softmax/fast_softmax.py"),
]

#: (reason, regex over the source) of scripts that are not TE programs; first match wins
SCOPE_RULES = [
    ("not valid Python (merge-conflict markers)", r"(?m)^<<<<<<< |^>>>>>>> "),
    ("TVMScript / TensorIR", r"@T\.prim_func|@tvm\.script|I\.ir_module|tir\.Schedule\("),
    ("relay/relax", r"\brelay\.\w|\brelax\.\w|import tvm\.relax|from tvm import .*\brelax"),
    ("TVMScript / TensorIR", r"from tvm\.script import"),
    ("meta_schedule", r"meta_schedule|\bms\.tune"),
]

#: scripts that fail on TVM as well (their own bug, or a file they need that is not in
#: the repository): {(repo, path): why}; such a failure is counted apart, as ``fail*``
FAILS_ON_TVM = {
    (_SISI[0], "schedule_optimize/decl_buffer.py"):
        "its intrinsic's buffer declares stride 5760 where the tensor's row is 57600 (TVM's "
        "ArgBinder rejects the bind too)",
    (_SISI[0], "schedule_optimize/reduction.py"):
        "the author's numpy reduction_cpu_6, marked '# err' in the source, sums wrongly",
    (_SISI[0], "test/dot.py"): "calls 'func' that it never defines",
    (_CHARLIE[0], "scheduling/define_config.py"):
        "calls cfg.define_annotate(name, policy=...) without the axes that TVM's signature "
        "(0.6 to 0.18) requires",
    (_CHARLIE[0], "autotvm/gemm_xgbtuner.py"):
        "its tuning is commented out, so the log it reads was never written",
}

#: scripts whose own work takes minutes on a shared 2-core host (numpy.dot of 1024x1024
#: matrices 1000 times, then the tuned kernel 1000 times; a large CUDA kernel through the
#: emulator): {(repo, path): seconds}
SLOW = {
    (_CHARLIE[0], "scheduling/schedule stage/7.gemm_autotvm.py"): 600,
    (_SISI[0], "gemm/cuda_gemm_square_v0.3.py"): 400,     # 1024^3 emulated, 11 launches
    # each emulated trial runs for min_repeat_ms=300 of emulated time, plus a resumed search
    (_SISI[0], "scheduler/auto_scheduler_matmul_cuda.py"): 600,
}

#: (reason, regex over the first error) that make a failed run out of scope
OUT_ERRORS = [(reason, rx) for reason, rx in tvm_suite.OUT_ERRORS]


def scope(src: str) -> str:
    """Why the script ``src`` is not a TE program ("" when it is one)."""
    for reason, rx in SCOPE_RULES:
        if re.search(rx, src):
            return reason
    try:
        compile(src, "script.py", "exec")
    except SyntaxError as e:
        return f"not valid Python ({e.msg}, line {e.lineno})"
    return ""


def mirror_of(repo: str, mirrors: Path = MIRRORS) -> Path:
    """The bare git mirror of ``owner/name`` that ``fetch`` leaves under ``mirrors``."""
    return mirrors / repo.replace("/", "+") / "repo"


def read_script(repo: str, commit: str, path: str, mirrors: Path = MIRRORS) -> str:
    """The text of ``path`` at ``commit`` of ``repo``'s mirror."""
    return subprocess.run(["git", "-C", str(mirror_of(repo, mirrors)), "show",
                           f"{commit}:{path}"], check=True, capture_output=True,
                          text=True).stdout


#: what stdin carries: a ``c`` (continue) for each pdb stop
PDB_CONTINUE = "c\n" * 200


def tunes(src: str) -> bool:
    """Whether a script runs a tuner (whose trial count TEPAD_MAX_TRIALS caps)."""
    return bool(re.search(r"n_trial|num_measure_trials|\.tune\(", src))


def run_script(src: str, work: Path, timeout: int, root: Path = ROOT,
               env_extra: dict | None = None) -> dict:
    """Run one rewritten script's source in ``work`` (``tvm_gallery.run_tutorial``, with
    ``c`` answered to any debugger stop); its outcome, first error and time, a failure whose
    error needs what tepad leaves out classed ``out``."""
    rec = run_tutorial(src, work, timeout, env_extra=env_extra, root=root, script="script.py",
                       stdin=PDB_CONTINUE)
    if rec["result"] == "fail":
        for reason, rx in OUT_ERRORS:
            if rx.search(rec["error"]):
                return dict(rec, result="out", error=reason + ": " + rec["error"])
    return rec


def label(rec: dict) -> str:
    return f"{rec['repo']} `{rec['path']}`"


def table(records: list[dict], baseline: dict | None = None) -> list[str]:
    extra = " before |" if baseline is not None else ""
    lines = [f"| script | result |{extra} first error / reason | time |",
             "|---|---|" + ("---|" if extra else "") + "---|---:|"]
    for r in records:
        b = ""
        if baseline is not None:
            old = baseline.get((r["repo"], r["path"]))
            b = f" {old['result']} |" if old else " - |"
        err = (r["error"] or "").replace("|", "/").replace("`", "'")
        lines.append(f"| {label(r)} | {r['result']} |{b} {err} | {r['time']:.0f} s |")
    return lines


def summary(records: list[dict]) -> str:
    c = collections.Counter(r["result"] for r in records)
    n = len(records) - c["out"] - c["fail*"]
    return (f"**{c['pass']} of {n}** TE scripts run to the end ({c['fail']} fail, "
            f"{c['timeout']} time out; {c['fail*']} more fail on TVM as well, {c['out']} "
            f"more out of scope)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirrors", type=Path, default=MIRRORS)
    ap.add_argument("-k", dest="only", action="append", default=[])
    ap.add_argument("--timeout", type=int, default=180)
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--baseline", type=Path)
    ap.add_argument("--baseline-label", default="the baseline")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--cap", type=int, default=8,
                    help="trial cap (TEPAD_MAX_TRIALS) for the rerun of a timed-out script "
                         "that tunes; 0: no rerun")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--report-only", action="store_true",
                    help="run nothing: write the table of the records in --json")
    ap.add_argument("--rerun-json", type=Path, action="append", default=[],
                    help="with --report-only: records of later reruns, which replace those "
                         "of the same scripts")
    ap.add_argument("--note", default="", help="a sentence added to the section's text")
    ap.add_argument("--tepad-root", type=Path, default=ROOT)
    a = ap.parse_args(argv)

    entries = [e for e in SCRIPTS if not a.only or any(o in f"{e[0]}/{e[2]}" for o in a.only)]
    if a.report_only:
        return report(a, entries, _merged(a.json, a.rerun_json))
    work = Path(tempfile.mkdtemp(prefix="heldout_"))
    records = []
    try:
        for i, (repo, commit, path) in enumerate(entries):
            src = read_script(repo, commit, path, a.mirrors)
            why = scope(src)
            if a.list:
                print(f"{'out' if why else 'in '} {repo} {path} {why}")
                continue
            if why:
                res = {"result": "out", "error": why, "time": 0.0}
            else:
                d = work / f"{i:02d}_{Path(path).stem}"
                limit = max(a.timeout, SLOW.get((repo, path), 0))
                res = run_script(src, d, limit, a.tepad_root.resolve())
                if res["result"] == "timeout" and a.cap and tunes(src):
                    again = run_script(src, d.with_name(d.name + "_capped"), limit,
                                       a.tepad_root.resolve(), {"TEPAD_MAX_TRIALS": str(a.cap)})
                    res["error"] += (f"; with TEPAD_MAX_TRIALS={a.cap}: {again['result']} in "
                                     f"{again['time']:.0f} s"
                                     + (f" ({again['error']})" if again["error"] else ""))
                known = FAILS_ON_TVM.get((repo, path))
                if known and res["result"] == "fail":
                    res["result"] = "fail*"
                    res["error"] = f"fails on TVM too: {known}; here: {res['error']}"
            rec = {"repo": repo, "commit": commit, "path": path, **res}
            print(f"{label(rec)}: {res['result']} {res['time']:.0f} s {res['error']}",
                  flush=True)
            records.append(rec)
            if a.json:
                a.json.write_text(json.dumps(records, indent=1))
    finally:
        if a.keep:
            print("working directories kept in", work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    if a.list:
        return 0
    return report(a, entries, records)


def _merged(main_json: Path, reruns) -> list:
    """The records of ``main_json`` with those of each rerun file replacing the same
    scripts' records (and adding scripts the main run lacks)."""
    records = json.loads(main_json.read_text())
    for rerun in reruns:
        newer = {(r["repo"], r["path"]): r for r in json.loads(rerun.read_text())}
        records = [newer.pop((r["repo"], r["path"]), r) for r in records] + \
            list(newer.values())
    return records


def report(a, entries, records) -> int:
    """Print the table and write the RESULTS.md section."""
    baseline = None
    if a.baseline:
        baseline = {(r["repo"], r["path"]): r for r in json.loads(a.baseline.read_text())}
    tab = table(records, baseline)
    print("\n".join(["", summary(records), "", *tab]))
    if not a.no_write:
        cmd = "python benchmarks/heldout_scripts.py" + "".join(f" -k {o}" for o in a.only)
        repos = sorted({f"{r[0]}@{r[1][:10]}" for r in entries})
        text = "\n".join([
            SECTION, "", BEGIN, "",
            f"TE programs from personal TVM study repositories ({', '.join(repos)}), read "
            f"from git mirrors at run time and run as scripts on tepad with only their imports "
            f"rewritten (`{cmd}`, {a.timeout} s per script, more for the few in `SLOW`; a "
            f"script that times out while tuning is run again with "
            f"`TEPAD_MAX_TRIALS={a.cap}`; CUDA ones with `TEPAD_CUDA=emulate`; a "
            f"`pdb.set_trace()` stop is continued through stdin; `fail*`: a failure the "
            f"script has on TVM as well). "
            f"CPU: {cpu_name()}, shared with other jobs. {summary(records)}."
            + (f" *before*: the same scripts on `{a.baseline_label}`." if baseline else "")
            + (f" {a.note}" if a.note else ""),
            "", *tab, "", END])
        write_section(a.out, text, SECTION, BEGIN, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
