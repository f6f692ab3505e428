#!/usr/bin/env python3
"""tepad benchmark runner: the examples' expert schedules vs numpy (and TVM / Halide if present).

    python benchmarks/run.py            full sizes; writes benchmarks/RESULTS.md
    python benchmarks/run.py --quick    small sizes, a few seconds; writes nothing unless --out
    options: --only W1,W3   --reps N   --out PATH   --no-peers   (--only W6: rolling section)

For each workload: tepad time (median of >= 10 runs after a warm-up), numpy time in the same
process, the ratio, GFLOP/s or GB/s, lower+build time (median over fresh builds with the compile
cache bypassed) and a cached rebuild, and a correctness check against numpy. TVM / Halide
columns appear only when ``import tvm`` / ``import halide`` work (the optional ``bench`` extra):
the peer scripts in ``benchmarks/peers/`` (``$TEPAD_PEER_BENCH`` may name another folder
with scripts of the same names) then run in a subprocess right after tepad's timing of the same
workload, and tepad is timed again after them; tepad's figure pools both passes, so it brackets
the peers' (this host's speed drifts by 10-20 % over minutes: comparing against peers timed
minutes later measures the drift).

OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE slow numpy's BLAS down; when set, this script re-executes
itself with both unset (for this command only) and says so in the report.
"""
from __future__ import annotations

import argparse
import importlib
import datetime
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
EXAMPLES = ROOT / "examples"
_BLAS_ENV = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")

if __name__ == "__main__" and any(v in os.environ for v in _BLAS_ENV):
    env = {k: v for k, v in os.environ.items() if k not in _BLAS_ENV}
    env["TEPAD_BENCH_UNSET_BLAS_ENV"] = ",".join(f"{v}={os.environ[v]}" for v in _BLAS_ENV
                                                 if v in os.environ)
    os.execve(sys.executable, [sys.executable, *sys.argv], env)

sys.path.insert(0, str(ROOT))
import numpy as np  # noqa: E402

import tepad  # noqa: E402
from tepad.runtime.timing import sample_times  # noqa: E402
from tepad.runtime.ndarray import aligned_empty  # noqa: E402
from tepad.tensor.tensor import PlaceholderOp  # noqa: E402


# ----------------------------------------------------------------------------- helpers
def load_example(name: str):
    """Import ``examples/<name>.py`` as a module (examples are scripts, not a package)."""
    path = EXAMPLES / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"tepad_example_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def median_time(fn, reps: int, warmup: int = 1) -> tuple[float, float]:
    """(median, min) seconds of ``fn()`` over ``reps`` runs, after an idle pause and a
    time-based warm-up (``tepad.runtime.timing``: why both are needed on this host)."""
    ts = sample_times(fn, reps, warmup)
    return statistics.median(ts), min(ts)


def call_args(args, inputs):
    """Arrays in kernel-argument order: copies of the inputs for placeholders, zeroed outputs
    for the rest, all starting on a 64-byte boundary as ``tepad.nd.array``'s and TVM's
    tensors do (numpy's large arrays start 16 bytes past one: every 64-byte vector access
    would straddle two cache lines, ~20 % of a 1024^3 matmul)."""
    it = iter(inputs)
    arrays, outs = [], []
    for t in args:
        if isinstance(t.op, PlaceholderOp):
            src = np.asarray(next(it))
            a = aligned_empty(src.shape, src.dtype)
            a[...] = src
            arrays.append(a)
        else:
            o = aligned_empty([int(d) for d in t.shape], t.dtype)
            o[...] = 0
            arrays.append(o)
            outs.append(o)
    return arrays, outs


def machine_busy(seconds: float = 0.5) -> float:
    """Whole-machine CPU busy fraction (0..1) over ``seconds`` (other processes included)."""
    try:
        def snap():
            with open("/proc/stat") as f:
                v = [int(x) for x in f.readline().split()[1:9]]
            return sum(v), v[3] + v[4]
        t0, i0 = snap()
        time.sleep(seconds)
        t1, i1 = snap()
        return 1.0 - (i1 - i0) / max(1, t1 - t0)
    except OSError:
        return float("nan")


def cpu_info() -> dict:
    import llvmlite.binding as llvm
    name = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    name = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    feats = llvm.get_host_cpu_features()
    keys = ["avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512vnni", "avx512bf16",
            "avx512fp16", "amx-tile"]
    return {"name": name, "llvm_cpu": llvm.get_host_cpu_name(), "cores": os.cpu_count(),
            "features": [k for k in keys if feats.get(k)]}


def blas_info() -> str:
    """Which BLAS numpy runs, and which kernel (threadpoolctl if installed, else OpenBLAS)."""
    a = np.ones((64, 64), np.float32)
    a @ a  # make sure the BLAS library is loaded
    try:
        import threadpoolctl
        rows = [f"{d.get('internal_api')} {d.get('version')} arch={d.get('architecture')} "
                f"threads={d.get('num_threads')}" for d in threadpoolctl.threadpool_info()
                if d.get("user_api") == "blas"]
        if rows:
            return "; ".join(rows) + " (threadpoolctl)"
    except ImportError:
        pass
    import ctypes
    libs = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                p = line.split()[-1]
                if "blas" in p.lower() and ".so" in p:
                    libs.add(p)
    except OSError:
        pass
    for p in sorted(libs):
        try:
            lib = ctypes.CDLL(p)
        except OSError:
            continue
        out = []
        for prefix in ("scipy_openblas_", "openblas_"):
            for suffix in ("64_", ""):
                fn = getattr(lib, f"{prefix}get_corename{suffix}", None)
                if fn is None:
                    continue
                fn.restype = ctypes.c_char_p
                out.append(f"kernel={fn().decode()}")
                cfg = getattr(lib, f"{prefix}get_config{suffix}")
                cfg.restype = ctypes.c_char_p
                out.append(cfg().decode().strip())
                nt = getattr(lib, f"{prefix}get_num_threads{suffix}", None)
                if nt is not None:
                    nt.restype = ctypes.c_int
                    out.append(f"threads={nt()}")
                return f"{Path(p).name}: " + ", ".join(out)
    try:
        cfg = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return f"{cfg.get('name')} {cfg.get('version')}"
    except Exception:  # noqa: BLE001
        return "unknown"


def _openblas():
    """The loaded OpenBLAS library (ctypes) and its symbol prefix/suffix, or None."""
    import ctypes
    try:
        with open("/proc/self/maps") as f:
            paths = sorted({ln.split()[-1] for ln in f if "openblas" in ln.lower() and ".so" in ln})
    except OSError:
        return None
    for p in paths:
        try:
            lib = ctypes.CDLL(p)
        except OSError:
            continue
        for prefix in ("scipy_openblas_", "openblas_"):
            for suffix in ("64_", ""):
                if hasattr(lib, f"{prefix}set_num_threads{suffix}"):
                    return lib, prefix, suffix
    return None


def blas_threads(n=None):
    """Get (and with ``n``, set) OpenBLAS's thread count; None when unavailable."""
    import ctypes
    found = _openblas()
    if found is None:
        return None
    lib, prefix, suffix = found
    get = getattr(lib, f"{prefix}get_num_threads{suffix}")
    get.restype = ctypes.c_int
    old = get()
    if n is not None:
        getattr(lib, f"{prefix}set_num_threads{suffix}")(ctypes.c_int(n))
    return old


# ----------------------------------------------------------------------------- numpy refs
def np_elementwise(a, b):
    return np.maximum(a * b + np.float32(1), np.float32(0))


def np_matmul(a, b):
    return a @ b


_THIRD = np.float32(1.0 / 3.0)


def np_blur(a):
    bx = (a[:, :-2] + a[:, 1:-1] + a[:, 2:]) * _THIRD
    return (bx[:-2] + bx[1:-1] + bx[2:]) * _THIRD


def np_conv2d(x, w):
    """im2col + one BLAS sgemm (stride 1, pad 1, NCHW, batch 1)."""
    _, c, h, wd = x.shape
    k = w.shape[0]
    xp = np.pad(x[0], ((0, 0), (1, 1), (1, 1)))
    cols = np.empty((c, 3, 3, h, wd), np.float32)
    for ry in range(3):
        for rx in range(3):
            cols[:, ry, rx] = xp[:, ry:ry + h, rx:rx + wd]
    return (w.reshape(k, c * 9) @ cols.reshape(c * 9, h * wd)).reshape(1, k, h, wd)


def np_rowsum(a):
    return a.sum(1)


# ----------------------------------------------------------------------------- workloads
@dataclass
class Workload:
    key: str
    title: str
    example: str
    full: dict
    quick: dict
    numpy_fn: object
    numpy_desc: str
    rate: object          # (kwargs) -> (amount, unit) with unit "GFLOP/s" or "GB/s"
    tol: float            # max |tepad - numpy| / max |numpy|
    peer_anchor: str = ""  # quiet-machine peer figures (benchmarks/peers/README.md)
    blas: bool = False     # numpy runs BLAS: also time it with OpenBLAS on one thread
    extra: dict = field(default_factory=dict)


WORKLOADS = [
    Workload("W1", "fused elementwise max(A*B+1, 0), 4096x4096 fp32", "elementwise",
             dict(n=4096), dict(n=512), np_elementwise, "np.maximum(A*B+1, 0)",
             lambda kw: (3 * kw["n"] ** 2 * 4, "GB/s"), 1e-6,
             "TVM 10.2 ms, Halide 10.6 ms (~19 GB/s); C triad 2 thr 19 GB/s"),
    Workload("W2", "matmul 1024^3 fp32", "matmul", dict(n=1024), dict(n=256), np_matmul,
             "A @ B (BLAS)", lambda kw: (2 * kw["n"] ** 3, "GFLOP/s"), 1e-5,
             "OpenBLAS 13.7 ms (157 GFLOP/s), Halide 13.4 ms, TVM 16.0 ms", blas=True),
    Workload("W3", "two-stage 3x3 blur 4096^2 -> 4094^2 (Bx at By's tile)", "blur",
             dict(n=4096), dict(n=514), np_blur, "slicing, 2 temporaries",
             lambda kw: ((kw["n"] ** 2 + (kw["n"] - 2) ** 2) * 4, "GB/s"), 1e-5,
             "Halide 8.7 ms, TVM 24.4 ms, numpy 105 ms"),
    Workload("W4", "conv2d NCHW 1x64x56x56, 64 filters 3x3, pad 1", "conv2d",
             dict(c=64, k=64, h=56, w=56), dict(c=16, k=16, h=28, w=28), np_conv2d,
             "im2col + BLAS sgemm",
             lambda kw: (2 * kw["k"] * kw["c"] * 9 * kw["h"] * kw["w"], "GFLOP/s"), 1e-5,
             "TVM 2.22 ms, Halide 2.26 ms, numpy im2col 3.99 ms", blas=True),
    Workload("W5", "row sums of (16384, 14) fp32", "rowsum", dict(rows=16384, cols=14),
             dict(rows=2048, cols=14), np_rowsum, "A.sum(1)",
             lambda kw: (kw["rows"] * kw["cols"] * 4 + kw["rows"] * 4, "GB/s"), 1e-5,
             "TVM 0.048 ms, Halide 0.104 ms, numpy 0.575 ms"),
]


def build_fresh(ex, kw):
    """schedule + lower + build with the compile cache bypassed; returns (module, s, args, t)."""
    from tepad import codegen
    t0 = time.perf_counter()
    s, args = ex.schedule(**kw)
    func = tepad.lower(s, args)
    with codegen.cache_disabled() if hasattr(codegen, "cache_disabled") else _null():
        mod = tepad.build(func)
    return mod, args, time.perf_counter() - t0


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def run_workload(w: Workload, quick: bool, reps: int, n_builds: int, progress) -> dict:
    kw = w.quick if quick else w.full
    ex = load_example(w.example)
    progress(f"{w.key} {w.example}: building")
    builds = []
    mod = args = None
    for _ in range(n_builds):
        mod, args, t = build_fresh(ex, kw)
        builds.append(t)
    # cached rebuild: same schedule again, cache on (first call fills the cache)
    s, a2 = ex.schedule(**kw)
    t0 = time.perf_counter()
    func = tepad.lower(s, a2)
    t_lower = time.perf_counter() - t0
    tepad.build(func)
    t0 = time.perf_counter()
    tepad.build(func)
    t_cached_build = time.perf_counter() - t0

    inputs = ex.inputs(**kw)
    arrays, outs = call_args(args, inputs)
    progress(f"{w.key} {w.example}: timing tepad")
    samples = sample_times(lambda: mod(*arrays), reps)
    t_med, t_min = statistics.median(samples), min(samples)
    progress(f"{w.key} {w.example}: timing numpy")
    ref = w.numpy_fn(*inputs)
    np_reps = reps if not quick else max(3, reps // 3)
    n_med, n_min = median_time(lambda: w.numpy_fn(*inputs), np_reps)
    n1 = None
    if w.blas:   # a shared host slows OpenBLAS's threads badly; also time it on one thread
        old = blas_threads(1)
        if old is not None:
            n1 = median_time(lambda: w.numpy_fn(*inputs), np_reps)[0]
            blas_threads(old)
    out = outs[0]
    scale = float(np.max(np.abs(ref))) or 1.0
    err = float(np.max(np.abs(out.astype(np.float64) - ref.reshape(out.shape)))) / scale
    amount, unit = w.rate(kw)
    rate = (lambda t: amount / t / 1e9)
    return dict(key=w.key, title=w.title + (f" [quick: {kw}]" if quick else ""), sizes=kw, tepad_ms=t_med * 1e3, tepad_min_ms=t_min * 1e3,
                numpy_ms=n_med * 1e3, numpy_min_ms=n_min * 1e3,
                numpy_1t_ms=None if n1 is None else n1 * 1e3, speedup=n_med / t_med,
                tepad_rate=rate(t_med), numpy_rate=rate(n_med), unit=unit,
                build_s=statistics.median(builds), builds=builds, lower_s=t_lower,
                cached_build_ms=t_cached_build * 1e3, rel_err=err, ok=err <= w.tol, tol=w.tol,
                numpy_desc=w.numpy_desc, peer_anchor=w.peer_anchor,
                schedule_doc=(ex.__doc__ or "").strip().splitlines()[0],
                _samples=samples, _amount=amount,
                _retime=lambda: sample_times(lambda: mod(*arrays), reps))


def pool_samples(r: dict, more: list) -> dict:
    """``r`` with tepad's figures over its samples plus ``more`` (taken after the peers ran,
    so that tepad's timing brackets theirs: this host's speed drifts by 10-20 % over minutes)."""
    samples = r["_samples"] + list(more)
    t = statistics.median(samples)
    return dict(r, _samples=samples, tepad_ms=t * 1e3, tepad_min_ms=min(samples) * 1e3,
                tepad_rate=r["_amount"] / t / 1e9, speedup=r["numpy_ms"] / 1e3 / t)


# ----------------------------------------------------------------------------- peers
def peer_dir() -> Path:
    """The folder of the peer scripts: ``benchmarks/peers`` (``$TEPAD_PEER_BENCH`` overrides)."""
    return Path(os.environ.get("TEPAD_PEER_BENCH") or HERE / "peers")


def peer_records(keys, progress) -> list[dict]:
    """Every record the peer scripts print for ``keys`` (one per peer, workload and schedule
    variant, with ``median_s``), for the peers whose module imports."""
    d = peer_dir()
    out = []
    for peer, module, script in (("tvm", "tvm", "bench_tvm.py"),
                                 ("halide", "halide", "bench_halide.py")):
        if importlib.util.find_spec(module) is None or not (d / script).exists():
            continue
        progress(f"peer {peer}: running {script} {' '.join(keys)}")
        env = dict(os.environ, TVM_NUM_THREADS=str(os.cpu_count()),
                   HL_NUM_THREADS=str(os.cpu_count()))
        try:
            r = subprocess.run([sys.executable, str(d / script), *keys], capture_output=True,
                               text=True, env=env, timeout=1800)
        except (subprocess.SubprocessError, OSError):
            continue
        for line in r.stdout.splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if rec.get("median_s") is not None and "workload" in rec:
                out.append(dict(rec, peer=peer))
    return out


def best_peers(records) -> dict:
    """{(workload, peer): (best median ms, variant)} over ``records``."""
    out = {}
    for rec in records:
        ms = rec["median_s"] * 1e3
        k = (rec["workload"], rec["peer"])
        if k not in out or ms < out[k][0]:
            out[k] = (ms, rec.get("variant", ""))
    return out


def triad_bandwidth(progress) -> dict | None:
    """The machine's STREAM-triad bandwidth, measured now: ``stream_triad.c`` from the peer
    folder built with gcc -O3 -march=native -fopenmp (skipped without gcc or the folder).
    {"threads": n, "gbps": median GB/s}, for the bandwidth-bound workloads' "% of triad"
    (measured within each one's timing window: this host's bandwidth swings 40-80 GB/s)."""
    import shutil
    import tempfile
    src = peer_dir() / "stream_triad.c"
    if not src.exists() or shutil.which("gcc") is None:
        return None
    progress("C STREAM triad (gcc)")
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "triad"
        try:
            subprocess.run(["gcc", "-O3", "-march=native", "-fopenmp", str(src), "-o", str(exe)],
                           check=True, capture_output=True, timeout=120)
            threads = os.cpu_count()
            r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300,
                               env=dict(os.environ, OMP_NUM_THREADS=str(threads)))
        except (subprocess.SubprocessError, OSError):
            return None
    for line in r.stdout.splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if "triad" in rec.get("variant", "") and rec.get("gbps_median"):
            return {"threads": threads, "gbps": float(rec["gbps_median"])}
    return None


# ----------------------------------------------------------------------------- report
def fmt_ms(x):
    return f"{x:.3f}" if x < 1 else f"{x:.2f}" if x < 100 else f"{x:.0f}"


def table(results, peers) -> str:
    has_tvm = any(k[1] == "tvm" for k in peers)
    has_hl = any(k[1] == "halide" for k in peers)
    head = ["workload", "tepad ms", "numpy ms", "numpy/tepad", "tepad rate", "numpy rate"]
    if has_tvm:
        head.append("TVM ms")
    if has_hl:
        head.append("Halide ms")
    head += ["lower+build s", "cached build ms", "max rel err", "check"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        cells = [f"{r['key']} {r['title']}", fmt_ms(r["tepad_ms"]), fmt_ms(r["numpy_ms"]),
                 f"{r['speedup']:.2f}x", f"{r['tepad_rate']:.1f} {r['unit']}",
                 f"{r['numpy_rate']:.1f} {r['unit']}"]
        if has_tvm:
            p = peers.get((r["key"], "tvm"))
            cells.append(fmt_ms(p[0]) if p else "-")
        if has_hl:
            p = peers.get((r["key"], "halide"))
            cells.append(fmt_ms(p[0]) if p else "-")
        cells += [f"{r['build_s']:.3f}", f"{r['cached_build_ms']:.1f}", f"{r['rel_err']:.1e}",
                  "ok" if r["ok"] else "FAIL"]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def markdown(results, peers, info, quick, busy) -> str:
    lines = ["# tepad benchmark results", "",
             f"Generated by `python benchmarks/run.py{' --quick' if quick else ''}` on "
             f"{info['date']}.", "",
             "## Machine", "",
             "| item | value |", "|---|---|",
             f"| CPU | {info['cpu']['name']} (LLVM: `{info['cpu']['llvm_cpu']}`), "
             f"{info['cpu']['cores']} cores |",
             f"| features | {', '.join(info['cpu']['features'])} |",
             f"| numpy | {np.__version__}; BLAS: {info['blas']} |",
             f"| tepad threads | {info['threads']} (`TEPAD_NUM_THREADS`) |",
             f"| python / llvmlite | {platform.python_version()} / {info['llvmlite']} |",
             f"| machine busy before the run | {busy * 100:.0f}% of all cores "
             "(other processes; a shared host slows the parallel kernels) |"]
    if info.get("unset_env"):
        lines.append(f"| BLAS env | unset for this run: {info['unset_env']} |")
    lines += ["", "## Summary (median of repeated runs, same process for tepad and numpy)", "",
              table(results, peers), "",
              "Rates: GB/s counts compulsory traffic only; GFLOP/s counts 2 flops per MAC. "
              "lower+build is the median over fresh builds with the compile cache bypassed; "
              "cached build is `tepad.build` of the same PrimFunc again (compile-cache hit).", ""]
    for r in results:
        lines += [f"## {r['key']}: {r['title']}", "",
                  f"Schedule (examples/): {r['schedule_doc']}", "",
                  "| measure | value |", "|---|---|",
                  f"| sizes | {r['sizes']} |",
                  f"| tepad median / min | {fmt_ms(r['tepad_ms'])} / {fmt_ms(r['tepad_min_ms'])} ms "
                  f"({r['tepad_rate']:.1f} {r['unit']}) |",
                  f"| numpy ({r['numpy_desc']}) median / min | {fmt_ms(r['numpy_ms'])} / "
                  f"{fmt_ms(r['numpy_min_ms'])} ms ({r['numpy_rate']:.1f} {r['unit']}) |",
                  f"| numpy / tepad | {r['speedup']:.2f}x |"]
        if r.get("numpy_1t_ms"):
            lines.append(f"| numpy with OpenBLAS on 1 thread (same run) | {fmt_ms(r['numpy_1t_ms'])} ms "
                         f"({r['numpy_rate'] * r['numpy_ms'] / r['numpy_1t_ms']:.1f} {r['unit']}); "
                         f"numpy(1 thr) / tepad {r['numpy_1t_ms'] / r['tepad_ms']:.2f}x |")
        for peer in ("tvm", "halide"):
            p = peers.get((r["key"], peer))
            if p:
                lines.append(f"| {peer} (best variant: {p[1]}) | {fmt_ms(p[0])} ms "
                             f"(tepad {p[0] / r['tepad_ms']:.2f}x as fast) |")
        if r.get("triad"):
            tr = r["triad"]
            lines.append(f"| machine STREAM triad (C, {tr['threads']} threads, between tepad's "
                         f"two timing passes) | "
                         f"{tr['gbps']:.1f} GB/s; tepad at {r['tepad_rate'] / tr['gbps'] * 100:.0f}% "
                         f"of it |")
        lines += [f"| peers on the research host (benchmarks/peers/README.md: another "
                  f"machine, not this run) | "
                  f"{r['peer_anchor']} |",
                  f"| lower+build (fresh, median of {len(r['builds'])}) | {r['build_s']:.3f} s "
                  f"(lower alone {r['lower_s'] * 1e3:.0f} ms) |",
                  f"| cached rebuild (build of the same PrimFunc) | {r['cached_build_ms']:.1f} ms |",
                  f"| max abs error / max abs numpy | {r['rel_err']:.1e} (tolerance "
                  f"{r['tol']:.0e}): {'ok' if r['ok'] else 'FAIL'} |", ""]
    return "\n".join(lines)


def optional_section(module: str, function: str, title: str, **kw) -> str | None:
    """``benchmarks/<module>.py``'s ``<function>(**kw)``: a markdown section of RESULTS.md;
    None when the module is missing, a note under ``title`` when it fails (the optional
    sections never stop a run)."""
    try:
        sys.path.insert(0, str(HERE))
        fn = getattr(importlib.import_module(module), function)
    except (ImportError, AttributeError):
        return None
    try:
        return fn(**kw)
    except Exception as err:  # noqa: BLE001 - optional section
        return f"## {title}\n\n({module}.{function}() failed: {err!r})"


def exactness_section() -> str | None:
    """``benchmarks/bench_exact.py``: exact vs interval InferBound (optional, and slow on a
    busy machine)."""
    return optional_section("bench_exact", "exactness_markdown", "Exactness")


def padding_section() -> str | None:
    """``benchmarks/bench_padding.py``: RFC 0077 row summation / conv1d, branchy vs branch-free."""
    return optional_section("bench_padding", "padding_markdown", "RFC 0077 padding")


def tails_section() -> str | None:
    """``benchmarks/bench_tails.py``: W3, a 2047-column elementwise kernel and a one-stage
    stencil with the partial vector run scalar, masked or as halves, or shifted inward
   ."""
    return optional_section("bench_tails", "tails_markdown", "Vector tails")


def topi_section() -> str | None:
    """``benchmarks/bench_topi.py``: topi operators with their x86 schedules vs numpy."""
    return optional_section("bench_topi", "topi_markdown", "topi operators (x86 schedules)")


def rolling_section(run_peers=None) -> str | None:
    """``benchmarks/bench_rolling.py``'s ``rolling_markdown()``: the rolling-buffer pool chain;
    ``run_peers()`` (the peers' W6 records) runs between two timing passes of tepad's variants."""
    return optional_section("bench_rolling", "rolling_markdown", "Rolling buffer",
                            run_peers=run_peers)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, a few seconds")
    ap.add_argument("--only", default="", help="comma-separated workload keys (W1..W5; W6 = the "
                    "rolling-buffer section)")
    ap.add_argument("--reps", type=int, default=None, help="timed runs per kernel (>= 10 full)")
    ap.add_argument("--builds", type=int, default=None, help="fresh builds timed per kernel")
    ap.add_argument("--out", default=None, help="markdown report path (full runs: "
                    "benchmarks/RESULTS.md)")
    ap.add_argument("--no-peers", action="store_true", help="skip TVM / Halide even if present")
    ap.add_argument("--no-exact", action="store_true",
                    help="skip the exactness section of benchmarks/bench_exact.py")
    a = ap.parse_args(argv)
    reps = a.reps or (5 if a.quick else 15)
    n_builds = a.builds or (1 if a.quick else 3)
    keys = [k.strip() for k in a.only.split(",") if k.strip()]
    todo = [w for w in WORKLOADS if not keys or w.key in keys]

    with_rolling = not a.quick and (not keys or "W6" in keys)   # W6: the rolling section
    out = a.out or (None if a.quick else str(HERE / "RESULTS.md"))
    steps = len(todo) + (0 if not out else (0 if a.quick else 1) + with_rolling
                         + (not a.no_exact))
    done = [0]

    def progress(msg, advance=False):
        """A timestamped line behind a bar of the run's steps (workloads, then sections)."""
        done[0] += bool(advance)
        width = 20
        fill = round(width * done[0] / max(1, steps))
        print(f"[bench {time.strftime('%H:%M:%S')}] [{'#' * fill}{'.' * (width - fill)}] "
              f"{done[0]}/{steps} {msg}", flush=True)

    import llvmlite
    from tepad.codegen import default_num_threads
    busy = machine_busy()
    info = dict(date=datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), cpu=cpu_info(),
                blas=blas_info(), threads=default_num_threads(), llvmlite=llvmlite.__version__,
                unset_env=os.environ.get("TEPAD_BENCH_UNSET_BLAS_ENV", ""))
    progress(f"{info['cpu']['name']} ({info['cpu']['llvm_cpu']}), {info['cpu']['cores']} cores; "
             f"numpy BLAS: {info['blas']}; machine busy {busy * 100:.0f}%")
    if info["unset_env"]:
        progress(f"unset for this run: {info['unset_env']}")
    use_peers = not (a.no_peers or a.quick)
    results, records = [], []
    for w in todo:
        r = run_workload(w, a.quick, reps, n_builds, progress)
        bracketed = False
        if use_peers:   # the peers right after tepad, then tepad again: one bracketed window
            recs = peer_records([w.key], progress)
            records += recs
            bracketed = bool(recs)
        if not a.quick and r["unit"] == "GB/s":    # the machine's bandwidth in the same window
            r["triad"] = triad_bandwidth(progress)
            bracketed = bracketed or r["triad"] is not None
        if bracketed:
            progress(f"{w.key} {w.example}: timing tepad again")
            r = pool_samples(r, r["_retime"]())
        results.append(r)
        progress(f"{w.key}: tepad {fmt_ms(r['tepad_ms'])} ms, numpy {fmt_ms(r['numpy_ms'])} ms "
                 f"({r['speedup']:.2f}x), {r['tepad_rate']:.1f} {r['unit']}, build "
                 f"{r['build_s']:.3f} s, {'ok' if r['ok'] else 'MISMATCH'}", advance=True)
    peers = best_peers(records)
    print()
    print(table(results, peers))
    if out:
        text = markdown(results, peers, info, a.quick, busy) + "\n"
        Path(out).write_text(text)   # tables first: the exactness section can take minutes
        progress(f"wrote {out}")
        if not a.quick:
            progress("padding section (benchmarks/bench_padding.py)")
            extra = padding_section()
            if extra:
                text = text + "\n" + extra + "\n"
                Path(out).write_text(text)
            progress("vector-tails section (benchmarks/bench_tails.py)")
            extra = tails_section()
            if extra:
                text = text + "\n" + extra + "\n"
                Path(out).write_text(text)
            progress("topi section (benchmarks/bench_topi.py)")
            extra = topi_section()
            if extra:
                text = text + "\n" + extra + "\n"
                Path(out).write_text(text)
            progress("padding section done", advance=True)
        if with_rolling:
            progress("rolling-buffer section (benchmarks/bench_rolling.py)")
            extra = rolling_section(
                (lambda: peer_records(["W6"], progress)) if use_peers else None)
            if extra:
                text = text + "\n" + extra + "\n"
                Path(out).write_text(text)
                progress(f"added the rolling-buffer section to {out}", advance=True)
        if not a.no_exact:
            progress("exactness section (benchmarks/bench_exact.py)")
            extra = exactness_section()
            if extra:
                Path(out).write_text(text + "\n" + extra + "\n")
                progress(f"added the exactness section to {out}", advance=True)
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
