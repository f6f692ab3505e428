#!/usr/bin/env python3
"""topi operators with their x86 schedules vs numpy: a short run on this CPU.

    python benchmarks/bench_topi.py            times the table below; writes RESULTS.md's
                                               "topi operators (x86 schedules)" section
    TEPAD_NUM_THREADS=1 python benchmarks/bench_topi.py   on a shared, overloaded host
    options: --reps N   --out PATH   --no-write   --target "llvm -mcpu=haswell"

Each row builds the topi definition with its ``topi.x86`` schedule for the target (the host
by default: the schedules read its vector lanes and registers), checks it against numpy and
times both in the same process (median of ``--reps`` runs after a warm-up, aligned arrays).
numpy's convolution is im2col + one BLAS sgemm, its dense is BLAS (on as many threads as
tepad's kernels); sparse_dense is compared with scipy's BSR product; the others are numpy
array expressions.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from numpy.lib.stride_tricks import sliding_window_view  # noqa: E402

import tepad  # noqa: E402
from tepad import te, topi  # noqa: E402
from tepad.codegen import default_num_threads  # noqa: E402
from tepad.target import Target  # noqa: E402
from tepad.topi.sparse.utils import random_bsr_matrix  # noqa: E402
from results_sections import write_section  # noqa: E402
from run import blas_threads, call_args, cpu_info, fmt_ms, median_time, np_conv2d  # noqa: E402

SECTION = "## topi operators (x86 schedules)"
BEGIN, END = "<!-- bench_topi:begin -->", "<!-- bench_topi:end -->"
RNG = np.random.default_rng(3)


def _np_depthwise(x, f):
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    h, w = x.shape[2:]
    out = np.zeros_like(x)
    for i in range(3):
        for j in range(3):
            out += xp[:, :, i:i + h, j:j + w] * f[None, :, 0, i, j, None, None]
    return out


def _np_softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _np_pool(x):
    return sliding_window_view(x, (3, 3), axis=(2, 3))[:, :, ::2, ::2].max(axis=(-2, -1))


def _np_sigmoid(x):
    return 1 / (1 + np.exp(-x))


def cases():
    """(name, build(), numpy function, flops or None) per row; build() returns
    (outputs, placeholders, input arrays, schedule)."""
    def conv():
        X = te.placeholder((1, 64, 56, 56), name="X")
        W = te.placeholder((64, 64, 3, 3), name="W")
        return (topi.nn.conv2d_nchw(X, W, 1, 1, 1), [X, W], topi.x86.schedule_conv2d_nchw)

    def winograd():
        X = te.placeholder((1, 64, 56, 56), name="X")
        W = te.placeholder((64, 64, 3, 3), name="W")
        return (topi.nn.conv2d_winograd_nchw(X, W, 1, 1, 1, "float32"), [X, W],
                topi.x86.schedule_conv2d_winograd)

    def depthwise():
        X = te.placeholder((1, 64, 56, 56), name="X")
        F = te.placeholder((64, 1, 3, 3), name="F")
        return (topi.nn.depthwise_conv2d_nchw(X, F, 1, 1, 1), [X, F],
                topi.x86.schedule_depthwise_conv2d_nchw)

    def softmax():
        X = te.placeholder((512, 1024), name="X")
        return topi.nn.softmax(X), [X], topi.x86.schedule_softmax

    def fast_softmax():
        X = te.placeholder((512, 1024), name="X")
        return topi.nn.fast_softmax(X), [X], topi.x86.schedule_softmax

    def pool():
        X = te.placeholder((1, 64, 112, 112), name="X")
        return (topi.nn.pool2d(X, (3, 3), (2, 2), (1, 1), (0, 0, 0, 0), "max"), [X],
                topi.x86.schedule_pool)

    def dense():
        D = te.placeholder((128, 1024), name="D")
        W = te.placeholder((1024, 1024), name="W")
        return topi.nn.dense(D, W), [D, W], topi.x86.schedule_dense

    def sigmoid():
        X = te.placeholder((2048, 2048), name="X")
        return topi.sigmoid(X), [X], topi.x86.schedule_injective

    def fast_exp():
        X = te.placeholder((2048, 2048), name="X")
        return topi.fast_exp(X), [X], topi.x86.schedule_injective

    def asinh():
        X = te.placeholder((2048, 2048), name="X")
        return topi.asinh(X), [X], topi.x86.schedule_injective

    scatter_idx = RNG.integers(0, 1024, (4096, 64)).astype("int32")

    def scatter_add():
        D = te.placeholder((1024, 64), name="D")
        Ix = te.placeholder((4096, 64), "int32", name="I")
        U = te.placeholder((4096, 64), name="U")
        return (topi.scatter_add(D, Ix, U, 0), [D, Ix, U], topi.generic.schedule_extern,
                {1: scatter_idx})

    def np_scatter_add(d, idx, u):
        out = d.copy()
        np.add.at(out, (idx, np.arange(64)[None, :]), u)
        return out

    def dense_pack():
        D = te.placeholder((128, 1024), name="D")
        W = te.placeholder((1024 // 16, 1024, 16), name="W")      # column blocks of 16
        return topi.nn.dense_pack(D, W), [D, W], topi.x86.schedule_dense_pack

    def np_dense_pack(d, w):
        return d @ w.transpose(0, 2, 1).reshape(-1, w.shape[1]).T

    def lstm():
        X = te.placeholder((16, 4, 64), name="X")
        Wi = te.placeholder((4 * 128, 64), name="Wi")
        Wh = te.placeholder((4 * 128, 128), name="Wh")
        return topi.nn.lstm(X, Wi, Wh)[0], [X, Wi, Wh], topi.x86.schedule_lstm

    def np_lstm(x, wi, wh):
        return topi.testing.lstm_python(x, wi, wh)[0]

    np.random.seed(5)
    bsr = random_bsr_matrix(512, 256, 16, 1, 0.6, "float32")

    def sparse_dense():
        X = te.placeholder((128, 256), name="X")
        ws = [te.placeholder(a.shape, str(a.dtype), name=n) for a, n in
              ((bsr.data, "W_data"), (bsr.indices, "W_indices"), (bsr.indptr, "W_indptr"))]
        fixed = {1: bsr.data, 2: bsr.indices, 3: bsr.indptr}
        return (topi.nn.relu(topi.nn.sparse_dense(X, *ws)), [X, *ws],
                topi.x86.schedule_sparse_dense, fixed)

    def np_sparse_dense(x, data, indices, indptr):
        w = sp.bsr_matrix((data, indices, indptr), shape=(512, 256))
        return np.maximum((w @ x.T).T, 0)

    return [
        ("sparse_dense relu(X 128x256 @ W^T), W 512x256 BSR 16x1 60 %", sparse_dense,
         np_sparse_dense, 2 * 128 * bsr.data.size, "scipy BSR @ dense"),
        ("conv2d_nchw 1x64x56x56, 64x3x3, pad 1", conv, lambda x, w: np_conv2d(x, w),
         2 * 64 * 64 * 9 * 56 * 56, "im2col + BLAS"),
        ("conv2d_winograd_nchw F(4x4,3x3) 1x64x56x56, 64x3x3, pad 1", winograd,
         lambda x, w: np_conv2d(x, w), 2 * 64 * 64 * 9 * 56 * 56, "im2col + BLAS"),
        ("depthwise_conv2d_nchw 1x64x56x56, 3x3, pad 1", depthwise, _np_depthwise,
         2 * 64 * 9 * 56 * 56, "9 shifted slices"),
        ("softmax 512x1024 (axis 1)", softmax, _np_softmax, None, "array expressions"),
        ("fast_softmax 512x1024 (axis 1)", fast_softmax, _np_softmax, None,
         "array expressions"),
        ("pool2d max 3x3 / 2, 1x64x112x112", pool, lambda x: _np_pool(x), None,
         "sliding_window_view max"),
        ("dense 128x1024 @ 1024x1024^T", dense, lambda d, w: d @ w.T, 2 * 128 * 1024 * 1024,
         "BLAS"),
        ("dense_pack 128x1024 @ (1024x1024 packed in 16-column blocks)^T", dense_pack,
         np_dense_pack, 2 * 128 * 1024 * 1024, "unpack + BLAS"),
        ("lstm seq 16, batch 4, 64 -> 128 (hidden states)", lstm, np_lstm,
         16 * 2 * 4 * 4 * 128 * (64 + 128), "topi.testing.lstm_python (BLAS per step)"),
        ("sigmoid 2048x2048", sigmoid, _np_sigmoid, None, "1 / (1 + exp(-x))"),
        ("fast_exp 2048x2048", fast_exp, np.exp, None, "np.exp"),
        ("asinh 2048x2048", asinh, np.arcsinh, None, "np.arcsinh"),
        ("scatter_add 1024x64 <- 4096x64 updates (axis 0)", scatter_add, np_scatter_add, None,
         "np.add.at"),
    ]


def run_case(name, build, ref, flops, np_desc, reps, target):
    with Target(target):
        out, inputs, sched, *fixed = build()
        s = sched(out)
    mod = tepad.build(s, inputs + [out], target=target)
    fixed = fixed[0] if fixed else {}       # inputs that are not random (sparse indices)
    arrays = [fixed[i] if i in fixed else
              RNG.standard_normal([int(d) for d in t.shape]).astype("float32")
              for i, t in enumerate(inputs)]
    args, (res,) = call_args(inputs + [out], arrays)
    want = ref(*arrays)
    mod(*args)
    err = float(np.abs(res - want).max() / max(1e-30, np.abs(want).max()))
    t_ms = median_time(lambda: mod(*args), reps)[0] * 1e3
    n_ms = median_time(lambda: ref(*arrays), reps)[0] * 1e3
    return dict(name=name, tepad_ms=t_ms, numpy_ms=n_ms, err=err, ok=err < 1e-4,
                rate=(f"{flops / t_ms / 1e6:.1f} GFLOP/s" if flops else ""), np_desc=np_desc)


def markdown(rows, info, target, reps) -> str:
    t = Target(target)
    lines = [SECTION, "", BEGIN, "",
             f"`python benchmarks/bench_topi.py` on {info['name']} (LLVM: "
             f"`{info['llvm_cpu']}`, {info['cores']} cores; features: "
             f"{', '.join(info['features']) or 'none listed'}). Target `{target}`: "
             f"{t.vector_bits}-bit vectors ({t.vector_lanes('float32')} fp32 lanes), "
             f"{t.vector_registers} vector registers, FMA {'yes' if t.has_fma else 'no'}; "
             f"tepad on {default_num_threads()} thread(s) (`TEPAD_NUM_THREADS`; on a host "
             "busier than its cores, parallel kernels wait on preempted threads: run with 1 "
             f"there; numpy's OpenBLAS gets the same number of threads). Median of {reps} runs each, tepad and numpy in the same process; the machine "
             "is shared, so figures drift by 10-20 %.", "",
             "| operator (topi.x86 schedule) | tepad ms | numpy ms | numpy / tepad | tepad rate "
             "| numpy does | max rel err |", "|---|---:|---:|---:|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['name']} | {fmt_ms(r['tepad_ms'])} | {fmt_ms(r['numpy_ms'])} | "
                     f"{r['numpy_ms'] / r['tepad_ms']:.2f}x | {r['rate'] or '-'} | "
                     f"{r['np_desc']} | {r['err']:.1e}{'' if r['ok'] else ' FAIL'} |")
    lines += ["", END]
    return "\n".join(lines)


def topi_markdown(reps=7, target="llvm") -> str:
    """The RESULTS.md section (for benchmarks/run.py)."""
    old = blas_threads(default_num_threads())
    try:
        rows = [run_case(*c, reps=reps, target=target) for c in cases()]
    finally:
        if old is not None:
            blas_threads(old)
    return markdown(rows, cpu_info(), target, reps)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--target", default="llvm")
    a = ap.parse_args(argv)
    blas_threads(default_num_threads())     # numpy's BLAS on as many threads as tepad
    rows = []
    for c in cases():
        r = run_case(*c, reps=a.reps, target=a.target)
        print(f"{r['name']:48s} tepad {fmt_ms(r['tepad_ms']):>7s} ms  numpy "
              f"{fmt_ms(r['numpy_ms']):>7s} ms  {r['numpy_ms'] / r['tepad_ms']:5.2f}x  "
              f"{r['rate']:16s} err {r['err']:.1e}", flush=True)
        rows.append(r)
    text = markdown(rows, cpu_info(), a.target, a.reps)
    print()
    print(text)
    if not a.no_write:
        write_section(a.out or HERE / "RESULTS.md", text, SECTION, BEGIN, END)
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
