#!/usr/bin/env python3
"""Run TVM's own TE test files against tepad with only their imports rewritten.

    python benchmarks/tvm_suite.py /tmp/tvm_tests            every test_*.py under the folder
    python benchmarks/tvm_suite.py /tmp/tvm_tests -k te/     only files whose path contains "te/"
    options: --timeout S (per file, 300)   --test-timeout S (per test, 60)   --out PATH
             --no-write   --json PATH (per-test results)   --keep (keep the rewritten copy)
             --tepad-root DIR (test the tepad package under DIR, e.g. another branch's)

The folder holds test files taken from a TVM checkout (for example v0.18.0's tests/python/te,
integration, tir-transform, topi, codegen); they are read from there and never copied into
this repository. Each run copies the folder to a temporary directory, rewrites its imports
(``import tvm`` -> ``import tepad as tvm``, ``from tvm.x import y`` -> ``from tepad.x import
y``, ...), adds a conftest that loads ``tepad.testing.plugin`` (TVM's ``target``/``dev``
fixtures) and a per-test time limit, then runs pytest on one file at a time with
``TEPAD_CUDA=emulate``, reading per-test outcomes from a JUnit XML report.

Every test is then put in one class:

* ``pass`` / ``fail`` -- in scope: a TE program tepad is meant to run;
* ``skip`` -- pytest skipped it (a ``requires_*`` marker, an explicit skip);
* ``out`` -- out of scope: the test needs something tepad does not do (TVMScript parsing,
  relay/relax, ``tir.Schedule``, meta_schedule, rpc, a GPU API other than emulated CUDA);
  decided from the test function's source (and the module-level names it uses), its
  parameters and its error, whatever its outcome;
* ``pending`` -- needs a feature still being built elsewhere, counted apart from the rate
  (no rule produces it today: create_prim_func, blocks, LoopPartition, StorageRewrite and
  pass instruments, once pending, are in scope now).

Imports of out-of-scope modules (``tvm.relay``, ``tvm.script``, ...) are rewritten to a
placeholder that absorbs any use, so that the rest of a file still collects and runs.

Prints a table per file, the overall in-scope pass rate and the failures clustered by their
first error line, and writes the "TVM's own tests" section of ``benchmarks/RESULTS.md``.
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
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from results_sections import write_section  # noqa: E402

SECTION = "## TVM's own tests (imports rewritten)"
BEGIN, END = "<!-- tvm_suite:begin -->", "<!-- tvm_suite:end -->"

#: tvm submodules tepad does not provide; their imports become an absorbing placeholder
OUT_MODULES = ("relay", "relax", "meta_schedule", "rpc", "micro", "auto_scheduler",
               "dlight", "contrib.hexagon", "contrib.ethosu", "script.ir_builder")

#: (class, reason, regex over the test's source and the module-level names it uses)
SCOPE_RULES = [
    ("out", "TVMScript", r"@T\.prim_func|@tvm\.script|I\.ir_module|@I\.|T\.Buffer|T\.block|"
                         r"tvm\.script\.from_source|T\.grid|T\.serial|\.script\(\)|"
                         r"T\.handle\b|T\.match_buffer|T\.decl_buffer"),
    ("out", "relay/relax", r"\brelay\.|\brelax\.|\brelay\b"),
    ("out", "tir.Schedule", r"tir\.Schedule|tvm\.tir\.schedule|\bsch\.get_block\b"),
    ("out", "meta_schedule", r"meta_schedule|\bms\.|auto_scheduler"),
    ("out", "rpc", r"\brpc\.|tracker|remote\("),
    ("out", "GPU API", r"tensorcore|wmma|mma_sync|requires_tensorcore|cudagraph|"
                       r"requires_vulkan|requires_opencl|requires_rocm|requires_metal|"
                       r"\bhexagon\b|ethosu|\bmicro\b|webgpu"),
]

#: parameter values (in a test id) naming a device tepad does not run
OUT_PARAMS = re.compile(r"opencl|vulkan|rocm|metal|nvptx|hexagon|webgpu|spirv|aocl|sdaccel|"
                        r"vta|ext_dev|cudnn|cublas|rocblas|mkl|dnnl", re.I)

#: first-error patterns that mean out of scope whatever the source says
OUT_ERRORS = [
    ("relay/relax", re.compile(r"tvm_suite placeholder:? (relay|relax)")),
    ("TVMScript", re.compile(r"tvm_suite placeholder:? script")),
    ("meta_schedule", re.compile(r"tvm_suite placeholder:? (meta_schedule|auto_scheduler)")),
    ("rpc", re.compile(r"tvm_suite placeholder:? rpc")),
    ("GPU API", re.compile(r"tvm_suite placeholder:? (micro|contrib|dlight)")),
]

PLACEHOLDER = '''
class _TvmSuiteOut:
    """Stands for a tvm module tepad does not provide; using it raises."""
    def __init__(self, name):
        object.__setattr__(self, "_name", name)
    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _TvmSuiteOut(self._name + "." + attr)
    def __call__(self, *a, **k):
        if len(a) == 1 and callable(a[0]) and not k:
            return a[0]  # used as a decorator: leave the function alone
        # a call at import time (a type annotation, a parameter list) gives another
        # placeholder, so the file still collects; a test that uses it fails on the way
        return _TvmSuiteOut(self._name + "()")
    def __getitem__(self, key):
        return self
    def __iter__(self):
        raise RuntimeError("tvm_suite placeholder: " + self._name + " (out of scope)")
    def __bool__(self):
        raise RuntimeError("tvm_suite placeholder: " + self._name + " (out of scope)")
    def _arith(self, *other):
        return self
    __add__ = __radd__ = __mul__ = __rmul__ = __sub__ = __rsub__ = _arith
    __truediv__ = __floordiv__ = __mod__ = __neg__ = _arith
    def __mro_entries__(self, bases):
        return (object,)
    def __repr__(self):
        return "<tvm_suite placeholder " + self._name + ">"
'''

CONFTEST = '''
import os
import signal

import pytest

pytest_plugins = ["tepad.testing.plugin"]

LIMIT = int(os.environ.get("TVM_SUITE_TEST_TIMEOUT", "60"))


class TvmSuiteTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise TvmSuiteTimeout("tvm_suite: test exceeded %d s" % LIMIT)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(LIMIT)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
'''


# ----------------------------------------------------------------------------- rewriting

def _out_module(dotted: str, out_modules=OUT_MODULES) -> str | None:
    """The out-of-scope tvm submodule ``dotted`` (``"relay.backend"``) falls under, if any."""
    for m in out_modules:
        if dotted == m or dotted.startswith(m + "."):
            return m
    return None


SUPPORT = "from _tvm_suite_support import _TvmSuiteOut, _tvm_suite_script"
#: what ``import tvm`` becomes: tepad, seen through a module that answers the out-of-scope
#: submodules (``tvm.relay``, ``tvm.script.ir_module``) with placeholders
TVM_BIND = "from _tvm_suite_support import tvm"


def _placeholder_line(indent: str, name: str, what: str) -> str:
    return f"{indent}{SUPPORT}; {name} = _TvmSuiteOut({what!r})"


def rewrite_line(line: str, out_modules=OUT_MODULES) -> tuple[str, bool]:
    """One source line with its tvm import rewritten to tepad; the flag says whether the
    line uses the out-of-scope placeholder. ``out_modules``: the tvm submodules that become
    placeholders (default: :data:`OUT_MODULES`)."""
    m = re.match(r"^(\s*)import ((?:[\w.]+\s*,\s*)+[\w.]+)\s*(#.*)?$", line)
    if m and re.search(r"\btvm\b", m.group(2)):
        # "import tvm, numpy, os": one statement per module
        indent = m.group(1)
        parts = [rewrite_line(f"{indent}import {p.strip()}", out_modules)
                 for p in m.group(2).split(",")]
        return "; ".join(p[0].strip() for p in parts).join([indent, ""]), any(p[1] for p in parts)
    m = re.match(r"^(\s*)import tvm((?:\.\w+)*)(\s+as\s+(\w+))?\s*(#.*)?$", line)
    if m:
        indent, sub, _, alias, _ = m.groups()
        sub = sub[1:] if sub else ""
        out = _out_module(sub, out_modules) if sub else None
        if out:
            name = alias or "tvm"
            if alias:
                return _placeholder_line(indent, alias, sub), True
            return f"{indent}{TVM_BIND}", False
        if alias:
            return f"{indent}import tepad{('.' + sub) if sub else ''} as {alias}", False
        if sub:
            return f"{indent}import tepad.{sub}; {TVM_BIND}  # was import tvm.{sub}", False
        return f"{indent}{TVM_BIND}", False
    m = re.match(r"^(\s*)from tvm((?:\.\w+)*) import (.*)$", line)
    if m:
        indent, sub, names = m.groups()
        sub = sub[1:] if sub else ""
        if names.strip().startswith("("):
            return line.replace("from tvm", "from tepad", 1), False  # multi-line: rare
        comment = ""
        if "#" in names:
            names, comment = names.split("#", 1)
            comment = "  #" + comment
        parts = [p.strip() for p in names.split(",") if p.strip()]
        keep, ph = [], []
        for p in parts:
            mm = re.match(r"(\w+)(?:\s+as\s+(\w+))?$", p)
            if not mm:
                keep.append(p)
                continue
            full = f"{sub}.{mm.group(1)}" if sub else mm.group(1)
            if _out_module(full, out_modules):
                ph.append((mm.group(2) or mm.group(1), full))
            elif sub == "script" or sub.startswith("script."):
                # tepad.script.tir has the typed constants only: anything else is a placeholder
                ph.append((mm.group(2) or mm.group(1), None, full))
            else:
                keep.append(p)
        out = []
        if keep:
            out.append(f"{indent}from tepad{('.' + sub) if sub else ''} import "
                       f"{', '.join(keep)}{comment}")
        used_ph = False
        for entry in ph:
            if len(entry) == 2:
                out.append(_placeholder_line(indent, entry[0], entry[1]))
            else:
                alias, _, full = entry
                out.append(f"{indent}{SUPPORT}; {alias} = _tvm_suite_script({full!r})")
            used_ph = True
        # one line for one line, so that tracebacks show the original line numbers
        return ((indent + "; ".join(o.strip() for o in out)) if out else f"{indent}pass"), \
            used_ph
    return line, False


SCRIPT_PROXY = '''
def _tvm_suite_script(full):
    """tepad.script's module when it has the name, else a placeholder that forwards the
    names tepad.script has (T.int32, T.float32, ...)."""
    import importlib
    try:
        real = importlib.import_module("tepad." + full)
    except ImportError:
        return _TvmSuiteOut(full)

    class _Proxy(_TvmSuiteOut):
        def __getattr__(self, attr):
            if hasattr(real, attr):
                got = getattr(real, attr)
                if isinstance(got, types.ModuleType):
                    return _tvm_suite_script(full + "." + attr)
                return got
            return _TvmSuiteOut(full + "." + attr)
    return _Proxy(full)


class _TvmModule(types.ModuleType):
    """tepad under the name tvm: every attribute is tepad's, except the out-of-scope
    submodules (placeholders) and tvm.script (tepad.script's names, else placeholders)."""
    def __getattr__(self, name):
        if name in _OUT:
            return _TvmSuiteOut(name)
        if name == "script":
            return _tvm_suite_script("script")
        return getattr(_tepad, name)


tvm = _TvmModule("tvm")
'''


def rewrite_source(src: str, out_modules=OUT_MODULES) -> str:
    """``src`` with every tvm import rewritten, line for line (placeholders come from a
    support module imported on the same line), so that tracebacks and the JUnit report
    show the original line numbers."""
    return "\n".join(rewrite_line(line, out_modules)[0] for line in src.splitlines()) + "\n"


def write_support(work: Path, out_modules=OUT_MODULES) -> None:
    """The support module the rewritten imports load (``tvm`` as tepad, placeholders)."""
    outs = sorted({m.split(".")[0] for m in out_modules if "." not in m})
    (work / "_tvm_suite_support.py").write_text(
        f"import types\n\nimport tepad as _tepad\n\n_OUT = {tuple(outs)!r}\n"
        + PLACEHOLDER + SCRIPT_PROXY)


def prepare(src_dir: Path, work: Path) -> None:
    """Copy the test tree to ``work`` with rewritten imports and the suite's conftest."""
    for p in src_dir.rglob("*"):
        rel = p.relative_to(src_dir)
        dst = work / rel
        if p.is_dir():
            dst.mkdir(parents=True, exist_ok=True)
        elif p.suffix == ".py" and p.name != "conftest.py":
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_text(rewrite_source(p.read_text()))
    (work / "conftest.py").write_text(CONFTEST)
    write_support(work)


# ----------------------------------------------------------------------------- classifying

class FileSource:
    """The test functions of one original test file, their sources and the module-level
    names each uses."""

    def __init__(self, path: Path):
        self.text = path.read_text()
        self.tree = ast.parse(self.text)
        self.toplevel = {}   # name -> source of a module-level def/class/assignment
        self.tests = {}      # "Class::test" or "test" -> source
        for node in self.tree.body:
            seg = ast.get_source_segment(self.text, node) or ""
            deco = "".join("@" + (ast.get_source_segment(self.text, d) or "") + "\n"
                           for d in getattr(node, "decorator_list", []))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.toplevel[node.name] = deco + seg
                if node.name.startswith("test"):
                    self.tests[node.name] = deco + seg
            elif isinstance(node, ast.ClassDef):
                self.toplevel[node.name] = deco + seg
                for sub in node.body:
                    if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                            sub.name.startswith("test"):
                        self.tests[f"{node.name}::{sub.name}"] = deco + seg
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        self.toplevel[t.id] = seg

    def context(self, key: str) -> str:
        """The test's source plus the sources of the module-level names it mentions (two
        levels deep)."""
        # a test a class inherits (CompareBeforeAfter's test_compare) reads as its class
        src = self.tests.get(key) or self.toplevel.get(key.split("::")[0], "")
        seen, frontier, parts = set(), [src], [src]
        for _ in range(2):
            nxt = []
            for s in frontier:
                for name in set(re.findall(r"\b\w+\b", s)):
                    if name in self.toplevel and name not in seen:
                        seen.add(name)
                        parts.append(self.toplevel[name])
                        nxt.append(self.toplevel[name])
            frontier = nxt
        return "\n".join(parts)


def classify(src_ctx: str, test_id: str, outcome: str, error: str) -> tuple[str, str]:
    """(class, reason) of one test: see the module docstring."""
    params = test_id[test_id.find("["):] if "[" in test_id else ""
    if params and OUT_PARAMS.search(params):
        return "out", "GPU API"
    for reason, rx in OUT_ERRORS:
        if rx.search(error or ""):
            return "out", reason
    if outcome == "skip":
        return "skip", error
    for cls, reason, rx in SCOPE_RULES:
        if re.search(rx, src_ctx):
            if cls == "pending" and outcome == "pass":
                return "pass", ""
            # an out-of-scope test is out even when it passes: the placeholders absorb what
            # it asks of relay/TVMScript, so its pass would say nothing about tepad
            return cls, reason
    return outcome, error


def first_error(elem) -> str:
    """The first line of a JUnit failure/error element's message, as the cluster key."""
    msg = elem.get("message") or ""
    text = elem.text or ""
    if not msg.strip() or msg.strip() == "collection failure":
        # a collection error's message is generic: its traceback's last "E " line says why
        errs = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("E ")]
        msg = errs[-1] if errs else (text.strip().splitlines() or [""])[-1]
    line = msg.strip().splitlines()[0] if msg.strip() else ""
    return line[:300]


def run_file(work: Path, rel: Path, timeout: int, test_timeout: int,
             root: Path = ROOT) -> tuple[list, str]:
    """Run pytest on one rewritten file with the tepad package under ``root``; return
    [(test id, outcome, error)] and a note."""
    xml = work / ".junit" / (str(rel).replace("/", "__") + ".xml")
    xml.parent.mkdir(exist_ok=True)
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root) + os.pathsep + env.get("PYTHONPATH", "")
    env["TEPAD_CUDA"] = "emulate"
    env["TVM_SUITE_TEST_TIMEOUT"] = str(test_timeout)
    env.setdefault("PYTHONWARNINGS", "ignore")
    cmd = ["timeout", str(timeout), sys.executable, "-m", "pytest", "-q", "-p",
           "no:cacheprovider", "--rootdir", str(work), "--junitxml", str(xml), str(rel)]
    t0 = time.time()
    proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True)
    note = f"{time.time() - t0:.0f} s"
    if proc.returncode == 124 or not xml.exists():
        return [], f"timed out after {timeout} s" if proc.returncode == 124 else \
            "no report: " + (proc.stderr or proc.stdout)[-300:]
    results = []
    for tc in ET.parse(xml).getroot().iter("testcase"):
        name = tc.get("name", "")
        cls = tc.get("classname", "")
        mod = str(rel.with_suffix("")).replace("/", ".")
        klass = cls[len(mod) + 1:] if cls.startswith(mod + ".") else ""
        tid = f"{klass}::{name}" if klass else name
        outcome, err = "pass", ""
        for tag in ("failure", "error"):
            e = tc.find(tag)
            if e is not None:
                outcome, err = "fail", first_error(e)
                if not name or (tag == "error" and "collect" in (e.get("message") or "")):
                    tid = "<collection>"
                break
        s = tc.find("skipped")
        if s is not None and outcome == "pass":
            outcome, err = "skip", (s.get("message") or "")[:200]
        results.append((tid, outcome, err))
    return results, note


def evaluate(src_dir: Path, rel: Path, results: list, note: str) -> list[dict]:
    """Per-test records of one file, with collection errors and timeouts spread over the
    file's test functions."""
    fs = FileSource(src_dir / rel)
    records = []
    collection = [r for r in results if r[0] == "<collection>" or r[0] == ""]
    real = [r for r in results if r not in collection]
    if not real and (collection or not results):
        err = collection[0][2] if collection else note
        err = ("collection: " + err) if collection else ("file: " + err)
        real = [(k, "fail", err) for k in fs.tests]
    for tid, outcome, err in real:
        base = tid.split("[")[0]
        known = base in fs.tests or base.split("::")[0] in fs.toplevel
        ctx = fs.context(base) if known else ""
        cls, reason = classify(ctx, tid, outcome, err)
        records.append({"file": str(rel), "test": tid, "outcome": outcome, "class": cls,
                        "reason": reason, "error": err})
    return records


# ----------------------------------------------------------------------------- reporting

def cluster_key(reason: str) -> str:
    """A failure message with its numbers, quoted values and object addresses blurred."""
    r = re.sub(r"0x[0-9a-f]+", "0x..", reason)
    r = re.sub(r"Mismatched elements:.*", "Mismatched elements", r)
    r = re.sub(r"\d+(\.\d+)?", "N", r)
    return r[:160]


def _rate(c, digits=0) -> str:
    ins = c["pass"] + c["fail"]
    return f"{100 * c['pass'] / ins:.{digits}f}% ({c['pass']}/{ins})" if ins else "-"


def table(records: list[dict], notes: dict, baseline: list[dict] | None = None) -> list[str]:
    """The per-file table; ``baseline`` (records of an earlier run) adds its in-scope pass
    rate per file, as ``before``."""
    by_file, before = collections.OrderedDict(), {}
    for r in records:
        by_file.setdefault(r["file"], []).append(r)
    for r in baseline or []:
        before.setdefault(r["file"], collections.Counter())[r["class"]] += 1
    extra = " before |" if baseline is not None else ""
    lines = [f"| file | pass | fail | in-scope pass rate |{extra} skip | out of scope | pending "
             "| time |", "|---|---:|---:|---:|" + ("---:|" if extra else "") + "---:|---:|---:|---|"]
    tot, tot_before = collections.Counter(), collections.Counter()
    for f in notes:
        c = collections.Counter(r["class"] for r in by_file.get(f, []))
        tot.update(c)
        b = ""
        if baseline is not None:
            tot_before.update(before.get(f, {}))
            b = f" {_rate(before.get(f, collections.Counter()))} |"
        lines.append(f"| {f} | {c['pass']} | {c['fail']} | {_rate(c)} |{b} {c['skip']} | "
                     f"{c['out']} | {c['pending']} | {notes[f]} |")
    b = f" **{_rate(tot_before, 1)}** |" if baseline is not None else ""
    lines.append(f"| **all** | **{tot['pass']}** | **{tot['fail']}** | **{_rate(tot, 1)}** |{b} "
                 f"{tot['skip']} | {tot['out']} | {tot['pending']} | |")
    return lines


def clusters(records: list[dict], top: int = 25) -> list[str]:
    c = collections.Counter(cluster_key(r["reason"]) for r in records if r["class"] == "fail")
    lines = ["| count | first error (numbers blurred) |", "|---:|---|"]
    for k, n in c.most_common(top):
        lines.append(f"| {n} | `{k.replace('|', '/').replace('`', chr(39))}` |")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path, help="folder of TVM test files (not in this repo)")
    ap.add_argument("-k", dest="only", action="append", default=[],
                    help="only files whose relative path contains this (repeatable)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per file")
    ap.add_argument("--test-timeout", type=int, default=60, help="seconds per test")
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--json", type=Path, help="write per-test records here")
    ap.add_argument("--keep", action="store_true", help="keep the rewritten copy")
    ap.add_argument("--baseline-label", default="the baseline",
                    help="what --baseline measured (for RESULTS.md)")
    ap.add_argument("--baseline", type=Path,
                    help="per-test records (--json) of an earlier run: adds its rates as 'before'")
    ap.add_argument("--tepad-root", type=Path, default=ROOT,
                    help="folder holding the tepad package to test (default: this checkout; "
                         "e.g. a `git archive` of another branch, to compare)")
    a = ap.parse_args(argv)

    src = a.folder.resolve()
    files = sorted(p.relative_to(src) for p in src.rglob("test_*.py"))
    if a.only:
        files = [f for f in files if any(o in str(f) for o in a.only)]
    work = Path(tempfile.mkdtemp(prefix="tvm_suite_"))
    records, notes = [], collections.OrderedDict()
    try:
        prepare(src, work)
        for rel in files:
            results, note = run_file(work, rel, a.timeout, a.test_timeout,
                                     a.tepad_root.resolve())
            recs = evaluate(src, rel, results, note)
            records += recs
            notes[str(rel)] = note
            c = collections.Counter(r["class"] for r in recs)
            print(f"{rel}: pass {c['pass']} fail {c['fail']} skip {c['skip']} "
                  f"out {c['out']} pending {c['pending']} ({note})", flush=True)
    finally:
        if a.keep:
            print("rewritten copy kept in", work)
        else:
            shutil.rmtree(work, ignore_errors=True)

    baseline = json.loads(a.baseline.read_text()) if a.baseline else None
    tab, clu = table(records, notes, baseline), clusters(records)
    print("\n".join(["", *tab, "", "Failures by first error:", *clu]))
    if a.json:
        a.json.write_text(json.dumps(records, indent=1))
    if not a.no_write:
        cmd = "python benchmarks/tvm_suite.py " + " ".join(
            [str(a.folder)] + [f"-k {o}" for o in a.only])
        text = "\n".join([
            SECTION, "", BEGIN, "",
            "TVM v0.18.0's own test files, run on tepad with only their imports rewritten "
            f"(`{cmd}`; CUDA tests with `TEPAD_CUDA=emulate`). *In-scope pass rate* = "
            "pass / (pass + fail); *out of scope* needs TVMScript parsing, relay/relax, "
            "tir.Schedule, meta_schedule, rpc or a GPU API other than emulated CUDA; "
            "*pending* needs a feature still being built (none today); *skip* was skipped by "
            "the test itself."
            + (f" *before*: the same files on `{a.baseline_label}`." if baseline else ""), "",
            *tab, "", "Most common first errors of the in-scope failures:", "", *clu, "", END])
        write_section(a.out, text, SECTION, BEGIN, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
