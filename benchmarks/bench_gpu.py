#!/usr/bin/env python3
"""GPU benchmarks: the schedules in examples/gpu/ on a CUDA device, beside torch.

    python benchmarks/bench_gpu.py             full sizes on a GPU; writes RESULTS.md's GPU section
    python benchmarks/bench_gpu.py --emulate   small sizes through the CPU emulator
                                               (TEPAD_CUDA=emulate): checks results, times nothing
    options: --only W1,W3   --reps N   --out PATH

Each workload is built with ``tepad.build(s, args, "cuda")``, checked against numpy, and timed
with ``time_evaluator`` (CUDA events; median of ``--reps`` repeats). torch columns appear when
``import torch`` works and sees the GPU: eager, ``torch.compile`` (inductor) for W1, cuBLAS
(TF32 off) for W2, cuDNN convolutions for W3 and the HWCN conv, ``sum`` for W5; each timed
with CUDA events in the same run.

Without a GPU (and without ``--emulate``) the script says so and exits 0: the figures in
RESULTS.md come from a run on a machine that has one.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))
from results_sections import write_section  # noqa: E402

import numpy as np  # noqa: E402

import tepad  # noqa: E402

SECTION = "## GPU"
BEGIN = "<!-- bench_gpu:begin -->"
END = "<!-- bench_gpu:end -->"

# name, example file, size keywords for the full run, what the figure measures, goal text
WORKLOADS = [
    ("W1", "elementwise", "max(A*B+1, 0) 8192^2 fp32", "bytes", "<= 0.32 ms"),
    ("W2", "matmul", "matmul 4096^3 fp32 (no TF32)", "flops", ">= 35 TFLOP/s"),
    ("W2s", "matmul_strips", "matmul 4096^3 fp32, column strips", "flops", ">= 35 TFLOP/s"),
    ("W3", "blur", "3x3 blur 8192^2 -> 8190^2", "bytes", "<= 0.5 ms"),
    ("W5", "rowsum", "row sums (1048576, 14)", "bytes", "<= 0.078 ms"),
    ("conv", "conv2d_hwcn", "HWCN 14x14x256x256, 512 filters 3x3", "flops", "<= 3 ms"),
]


def load_example(stem):
    path = ROOT / "examples" / "gpu" / f"{stem}.py"
    spec = importlib.util.spec_from_file_location(f"tepad_gpu_example_{stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _cuda_events_ms(fn, reps):
    import torch
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def torch_figures(name, arrays, reps):
    """{label: ms} for torch's versions of workload ``name`` on ``arrays`` (numpy inputs)."""
    try:
        import torch
    except ImportError:
        return {}
    if not torch.cuda.is_available():
        return {}
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    t = [torch.from_numpy(np.ascontiguousarray(a)).cuda() for a in arrays]
    out = {}
    if name == "W1":
        def f(a, b):
            return torch.clamp_min(a * b + 1.0, 0.0)
        out["torch eager"] = _cuda_events_ms(lambda: f(*t), reps)
        try:
            g = torch.compile(f)
            out["torch compile"] = _cuda_events_ms(lambda: g(*t), reps)
        except Exception as e:  # inductor needs a working triton; say so rather than fail
            print(f"  torch.compile unavailable: {type(e).__name__}: {e}")
    elif name in ("W2", "W2s"):
        out["cuBLAS"] = _cuda_events_ms(lambda: torch.mm(t[0], t[1]), reps)
    elif name == "W3":
        w = torch.full((1, 1, 3, 3), 1.0 / 9.0, device="cuda")
        x = t[0][None, None]
        out["cuDNN conv"] = _cuda_events_ms(lambda: torch.nn.functional.conv2d(x, w), reps)
    elif name == "W5":
        out["torch sum"] = _cuda_events_ms(lambda: t[0].sum(dim=1), reps)
    elif name == "conv":
        x = t[0].permute(3, 2, 0, 1).contiguous()      # HWCN -> NCHW
        w = t[1].permute(3, 2, 0, 1).contiguous()      # HWIO -> OIHW
        out["cuDNN conv"] = _cuda_events_ms(
            lambda: torch.nn.functional.conv2d(x, w, padding=1), reps)
    return out


def run_one(name, stem, emulate, reps):
    ex = load_example(stem)
    sizes = {} if emulate else dict(ex.FULL)
    s, args = ex.schedule(**sizes)
    t0 = time.perf_counter()
    mod = tepad.build(s, args, "cuda")
    build_s = time.perf_counter() - t0
    dev = tepad.cuda(0)
    host_in = ex.inputs(**sizes)
    expect = ex.reference(*host_in)
    ins = [tepad.nd.array(a, dev) for a in host_in]
    out = tepad.nd.empty(expect.shape, "float32", dev)
    mod(*ins, out)
    got = out.numpy()
    err = float(np.max(np.abs(got - expect)) / max(1.0, float(np.max(np.abs(expect)))))
    row = {"name": name, "build_s": build_s, "ok": err < 1e-3, "err": err}
    if emulate:
        return row
    timer = mod.time_evaluator(mod.entry_name, dev, number=10, repeat=reps)
    row["ms"] = float(np.median(timer(*ins, out).results)) * 1e3
    if hasattr(ex, "flops"):
        row["rate"] = f"{ex.flops(**sizes) / row['ms'] / 1e9:.1f} TFLOP/s"
    else:
        row["rate"] = f"{ex.bytes_moved(**sizes) / row['ms'] / 1e9:.2f} TB/s"
    row["torch"] = torch_figures(name, host_in, reps)
    return row


def markdown(rows, device_name, reps):
    lines = [SECTION, "", BEGIN, "",
             f"Device: {device_name}. Host CPU: {platform.processor() or platform.machine()}. "
             f"tepad schedules from examples/gpu/, timed with CUDA events (median of {reps} "
             "repeats of 10 launches); torch timed with CUDA events in the same run.", "",
             "| workload | tepad | rate | torch | goal | correct |", "|---|---:|---:|---|---|---|"]
    for r in rows:
        torch_txt = ", ".join(f"{k} {v:.3f} ms" for k, v in r.get("torch", {}).items()) or "—"
        lines.append(f"| {r['name']} {r['what']} | {r['ms']:.3f} ms | {r['rate']} | "
                     f"{torch_txt} | {r['goal']} | {'yes' if r['ok'] else 'NO'} |")
    lines += ["", END]
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--emulate", action="store_true",
                    help="run small sizes through the CPU emulator (checks results only)")
    ap.add_argument("--only", default=None, help="comma-separated workload names (W1,W2,...)")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    if a.emulate:
        os.environ["TEPAD_CUDA"] = "emulate"
    elif not tepad.cuda(0).exist:
        print("bench_gpu: no CUDA device here (run with --emulate to check the schedules "
              "through the CPU emulator); nothing measured")
        return 0
    only = set(a.only.split(",")) if a.only else None
    rows = []
    for name, stem, what, _, goal in WORKLOADS:
        if only and name not in only:
            continue
        r = run_one(name, stem, a.emulate, a.reps)
        r.update(what=what, goal=goal)
        rows.append(r)
        if a.emulate:
            print(f"{name:5s} {what:40s} build {r['build_s']:.2f} s  "
                  f"{'correct' if r['ok'] else 'WRONG'} (rel err {r['err']:.1e})")
        else:
            print(f"{name:5s} {what:40s} {r['ms']:.3f} ms  {r['rate']}  {r['torch']}")
    if a.emulate:
        return 0 if all(r["ok"] for r in rows) else 1
    text = markdown(rows, getattr(tepad.cuda(0), "device_name", "cuda"), a.reps)
    print()
    print(text)
    write_section(a.out or HERE / "RESULTS.md", text, SECTION, BEGIN, END)
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
