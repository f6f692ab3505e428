#!/usr/bin/env python3
"""One command for a machine with an NVIDIA GPU: what tepad sees, whether its CUDA path works,
and how fast it is, in one summary file, within about 8 minutes.

    python benchmarks/gpu_check.py [--out DIR] [--budget-s 470]     (or benchmarks/gpu_check.sh)

1. prints the environment: Python, the GPU (name, compute capability, memory), the driver's
   CUDA version, cuda-bindings, llvmlite and its LLVM, where libdevice and ptxas were found,
   islpy, torch;
2. runs the tests that need a GPU (``requires_gpu``: tests/gpu/test_cuda_runtime_gpu.py, the
   TE tutorials' CUDA parts in tests/gpu/test_cuda_tutorials_gpu.py) and the runtime API tests;
3. runs benchmarks/bench_gpu.py (beside torch when torch is installed and sees the GPU);
4. writes DIR/gpu_check_summary.md (default DIR: ./gpu_check_out) with all of it.

Each step runs in a subprocess with a share of the time budget; a step that runs out is
reported as such and the next one still runs. On a machine without an NVIDIA GPU it says so,
writes the summary and exits 0. It needs no network: see docs/cuda.md for installing the
dependencies (islpy ...) from wheels copied to the machine.
"""
from __future__ import annotations

import argparse
import importlib
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# tepad's dependencies, and what its test suite's conftest imports
NEEDED = ("numpy", "llvmlite", "networkx", "islpy", "pytest", "hypothesis")
GPU_TESTS = ("tests/gpu/test_cuda_runtime_gpu.py", "tests/gpu/test_cuda_tutorials_gpu.py",
             "tests/runtime/test_tvm_runtime_api.py", "tests/gpu/test_cuda_module_files.py",
             "tests/gpu/test_cuda_launch_checks.py")


def _version(name: str) -> str:
    try:
        mod = importlib.import_module(name)
    except Exception as err:  # noqa: BLE001 - a report
        return f"missing ({type(err).__name__}: {err})"
    return str(getattr(mod, "__version__", "installed"))


def missing_dependencies() -> list[str]:
    return [n for n in NEEDED if _version(n).startswith("missing")]


def nvidia_smi() -> str | None:
    """``nvidia-smi``'s one-line view of each GPU, or None when it is not there."""
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return None
    try:
        r = subprocess.run([exe, "--query-gpu=name,driver_version,memory.total,compute_cap",
                            "--format=csv,noheader"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"nvidia-smi failed: {err}"
    return (r.stdout or r.stderr).strip()


def gpu_present() -> tuple[bool, str]:
    """``(whether tepad's CUDA driver sees a GPU, why not / what it sees)``."""
    from tepad.runtime.cuda_driver import CudaBindingsDriver
    d = CudaBindingsDriver()
    if d.available(0):
        return True, d.unavailable_reason()
    return False, d.unavailable_reason()


def environment() -> list[tuple[str, str]]:
    from tepad.codegen.nvptx_target import toolchain_report
    rows = [("python", sys.version.split()[0]), ("platform", platform.platform()),
            ("cpu", f"{platform.machine()}, {os.cpu_count()} CPUs")]
    smi = nvidia_smi()
    rows.append(("nvidia-smi", smi if smi is not None else "not on PATH"))
    present, why = gpu_present()
    rows.append(("CUDA driver (tepad)", why))
    if present:
        from tepad.runtime.cuda_driver import CudaBindingsDriver
        try:
            for k, v in CudaBindingsDriver().describe(0).items():
                rows.append((f"cuda(0) {k}", str(v)))
        except Exception as err:  # noqa: BLE001 - a report
            rows.append(("cuda(0)", f"describe failed: {err}"))
    tc = toolchain_report()
    rows += [("llvmlite", tc["llvmlite"]), ("LLVM", tc["llvm"]),
             ("NVPTX back end", "yes" if tc["nvptx_backend"] else "NO")]
    for key in ("libdevice", "ptxas"):
        path, how = tc[key]
        rows.append((key, f"{path} ({how})" if path else how))
    ptxas = tc["ptxas"][0]
    if ptxas:
        try:
            out = subprocess.run([ptxas, "--version"], capture_output=True, text=True,
                                 timeout=30).stdout.strip().splitlines()
            rows.append(("ptxas version", out[-1] if out else "?"))
        except (OSError, subprocess.TimeoutExpired) as err:
            rows.append(("ptxas version", f"failed: {err}"))
    try:
        from cuda import bindings
        rows.append(("cuda-bindings", getattr(bindings, "__version__", "installed")))
    except Exception:  # noqa: BLE001
        rows.append(("cuda-bindings", "missing (pip install 'cuda-bindings>=12.6,<13')"))
    for name in ("numpy", "networkx", "islpy", "pytest", "hypothesis", "torch"):
        rows.append((name, _version(name)))
    try:
        import torch
        rows.append(("torch sees the GPU", str(torch.cuda.is_available())))
    except Exception:  # noqa: BLE001
        pass
    return rows


def bench_workloads() -> list[str]:
    """The workload names of benchmarks/bench_gpu.py (W1, W2, ...)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("bench_gpu", ROOT / "benchmarks" /
                                                  "bench_gpu.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return [w[0] for w in mod.WORKLOADS]


def run_step(name: str, cmd: list[str], timeout_s: float, env=None) -> dict:
    """Run ``cmd`` from the repository root; its tail of output, status and time (not run
    when less than 5 s are left)."""
    t = time.time()
    if timeout_s < 5:
        return {"name": name, "cmd": " ".join(cmd), "status": "SKIPPED (no time left)",
                "seconds": 0.0, "tail": ""}
    try:
        r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                           timeout=timeout_s, env=env)
        status = "passed" if r.returncode == 0 else f"FAILED (exit {r.returncode})"
        out = (r.stdout + r.stderr)
    except subprocess.TimeoutExpired as err:
        status = f"TIMED OUT after {timeout_s:.0f} s"
        out = ((err.stdout or b"").decode(errors="replace") if isinstance(err.stdout, bytes)
               else (err.stdout or ""))
    tail = "\n".join(out.strip().splitlines()[-40:])
    return {"name": name, "cmd": " ".join(cmd), "status": status,
            "seconds": round(time.time() - t, 1), "tail": tail}


def summary(env_rows, steps, note) -> str:
    lines = ["# tepad GPU check", "", note, "", "## Environment", "", "| | |", "|---|---|"]
    lines += [f"| {k} | {str(v).replace('|', '/')} |" for k, v in env_rows]
    for s in steps:
        lines += ["", f"## {s['name']}: {s['status']} ({s['seconds']} s)", "",
                  f"`{s['cmd']}`", "", "```", s["tail"], "```"]
    return "\n".join(lines) + "\n"


def main(argv=None, present=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="gpu_check_out", help="folder for the summary")
    ap.add_argument("--budget-s", type=float, default=470,
                    help="seconds for everything (default 470: inside 8 minutes)")
    a = ap.parse_args(argv)
    start = time.time()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    missing = missing_dependencies()
    if missing:
        note = (f"tepad's dependencies {', '.join(missing)} are missing: install them from "
                "wheels (docs/cuda.md, 'A GPU machine without network'); nothing was run.")
        print(note)
        (out / "gpu_check_summary.md").write_text(summary([], [], note))
        return 1
    env_rows = environment()
    for k, v in env_rows:
        print(f"{k:22s} {v}")
    have, why = present if present is not None else gpu_present()
    if not have:
        smi = dict(env_rows).get("nvidia-smi", "not on PATH")
        if smi and smi != "not on PATH" and "failed" not in smi:
            # the machine has a GPU that tepad cannot use: that is a failure to report
            note = (f"nvidia-smi sees {smi!r} but tepad cannot use it ({why}); install "
                    "cuda-bindings (docs/cuda.md) and run again.")
            print(note)
            (out / "gpu_check_summary.md").write_text(summary(env_rows, [], note))
            return 1
        note = (f"No NVIDIA GPU here ({why}): the environment is reported, no GPU test or "
                "benchmark was run.")
        print(note)
        (out / "gpu_check_summary.md").write_text(summary(env_rows, [], note))
        return 0
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("TEPAD_CUDA", None)
    steps = []
    left = a.budget_s - (time.time() - start)
    steps.append(run_step("GPU tests", [sys.executable, "-m", "pytest", "-q", "-rs",
                                        "-p", "no:cacheprovider", *GPU_TESTS],
                          left * 0.45, env))
    print(f"GPU tests: {steps[-1]['status']}")
    (out / "gpu_check_summary.md").write_text(summary(env_rows, steps, "(in progress)"))
    # one bench_gpu.py run per workload, each with its share of what is left, so that one
    # slow workload cannot take the others' time
    names = bench_workloads()
    for k, name in enumerate(names):
        left = a.budget_s - (time.time() - start) - 20      # 20 s kept for the last step
        steps.append(run_step(f"bench_gpu.py {name}",
                              [sys.executable, "benchmarks/bench_gpu.py", "--only", name,
                               "--reps", "3", "--out",
                               str((out / f"RESULTS_gpu_{name}.md").resolve())],
                              left / (len(names) - k), env))
        print(f"bench_gpu {name}: {steps[-1]['status']}")
        (out / "gpu_check_summary.md").write_text(summary(env_rows, steps, "(in progress)"))
    left = a.budget_s - (time.time() - start)
    steps.append(run_step("host overhead per call", [sys.executable,
                                                     "benchmarks/bench_cuda_overhead.py",
                                                     "--calls", "5000"], left, env))
    ok = all(s["status"] == "passed" for s in steps)
    note = f"GPU check {'passed' if ok else 'had failures'} in {time.time() - start:.0f} s."
    (out / "gpu_check_summary.md").write_text(summary(env_rows, steps, note))
    print(note, f"Summary: {out / 'gpu_check_summary.md'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
