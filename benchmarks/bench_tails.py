"""Vector tails: what the partial last tile of a vectorized loop costs.

A split that does not divide leaves a guarded last tile; the vectorizer runs each vector
piece whose guard holds on all lanes as plain vector code and the piece where it does not as
``vectorize_loop.TAILS`` says: "scalar" (a guarded scalar loop, what tepad did before),
"masked" (masked loads and stores) or "halves" (plain vectors of half the width, a quarter
... then at most 3 scalar lanes). ``split(..., tail="shift")`` avoids the partial tile.

* W3, the two-stage blur 4096^2 -> 4094^2 (``examples/blur.py``: 4094 = 15 x 256 + 254),
  each mode, for the host target and for an AVX2 target (``llvm -mcpu=haswell
  -mattr=-avx512f``, which this host can run), beside Halide's classic schedule (vec 8 and
  16) when ``import halide`` works;
* fused elementwise ``max(A*B+1, 0)`` on 4096 x 2047: the example's schedule (whole rows
  vectorized), rows split by 64 with each tail mode, and ``tail="shift"``; 4096 x 2048 as the
  no-tail reference;
* a one-stage 3-point stencil along rows (4094 x 4094, columns split by 256), each tail mode,
  host and AVX2 targets.

All kernels of a table are timed in interleaved rounds in one process (the host's speed drifts
and other processes come and go: interleaving exposes every variant to the same conditions);
figures are the median and the minimum over all rounds. ``tails_markdown()`` gives the
section for RESULTS.md; run as a script to print it.
"""
from __future__ import annotations

import importlib.util
import os
import statistics
import time
from pathlib import Path

import numpy as np

import tepad
from tepad import codegen, te, tir
from tepad.target import Target

# the module (``tepad.lower.passes.vectorize_loop`` as an attribute is the pass function)
vl = importlib.import_module("tepad.lower.passes.vectorize_loop")

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
AVX2 = "llvm -mcpu=haswell -mattr=-avx512f"
ROUNDS = 12
PER_ROUND = 5
MODES = ("scalar", "masked", "halves")     # vectorize_loop.TAILS


def _example(name):
    spec = importlib.util.spec_from_file_location(f"tepad_example_{name}", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _build(make, tails="scalar", target=None):
    """Build ``make()``'s schedule fresh (compile cache off), with ``vectorize_loop.TAILS``
    set to ``tails``."""
    old = vl.TAILS
    vl.TAILS = tails
    try:
        with Target(target or "llvm"):
            s, args = make()
            with codegen.cache_disabled():
                return tepad.build(s, args, target=target)
    finally:
        vl.TAILS = old


# CLOCK: "wall" (time.perf_counter) or "cpu" (time.process_time: the CPU time of the whole
# process, which on a shared host leaves out the time the kernel's threads waited for a core;
# meaningful with one thread, TEPAD_NUM_THREADS=1 HL_NUM_THREADS=1, where nothing spins)
CLOCK = os.environ.get("TEPAD_BENCH_CLOCK", "wall")


def _interleaved(fns: dict, rounds=ROUNDS, per_round=PER_ROUND) -> dict:
    """``{name: (median s, min s)}`` timing each callable ``per_round`` times per round."""
    clock = time.process_time if CLOCK == "cpu" else time.perf_counter
    for f in fns.values():
        f()
    ts = {k: [] for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            for _ in range(per_round):
                t0 = clock()
                f()
                ts[k].append(clock() - t0)
    return {k: (statistics.median(v), min(v)) for k, v in ts.items()}


def _halide_blur(a, out, lanes):
    """Halide's classic blur schedule (256x32 tiles, rows of tiles parallel, blur_x at the
    tile), as ``benchmarks/peers/bench_halide.py`` writes it; None without halide."""
    if importlib.util.find_spec("halide") is None:
        return None
    import halide as hl
    n = a.shape[0]
    f32 = hl.Float(32)
    inp = hl.ImageParam(f32, 2, "inp")
    x, y, xi, yi = hl.Var("x"), hl.Var("y"), hl.Var("xi"), hl.Var("yi")
    third = hl.f32(1.0 / 3.0)
    bx, by = hl.Func("blur_x"), hl.Func("blur_y")
    bx[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) * third
    by[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) * third
    by.tile(x, y, xi, yi, 256, 32).vectorize(xi, lanes).parallel(y)
    bx.compute_at(by, x).vectorize(x, lanes)
    inp.dim(0).set_bounds(0, n).set_stride(1)
    inp.dim(1).set_bounds(0, n).set_stride(n)
    by.bound(x, 0, n - 2).bound(y, 0, n - 2)
    fn = by.compile_to_callable([inp], hl.get_jit_target_from_environment())
    bufs = (hl.Buffer(a), hl.Buffer(out))
    return lambda: fn(*bufs)


def _ew_split(n, m, tail):
    A = te.placeholder((n, m), "float32", name="A")
    B = te.placeholder((n, m), "float32", name="B")
    C = te.compute((n, m), lambda i, j: tir.max(A[i, j] * B[i, j] + 1.0, 0.0), name="C")
    s = te.create_schedule(C.op)
    io, _ = s[C].split(C.op.axis[0], factor=16)
    s[C].parallel(io)
    _, ji = s[C].split(C.op.axis[1], factor=64, tail=tail)
    s[C].vectorize(ji)
    return s, [A, B, C]


def blur_rows(n=4096):
    blur = _example("blur")
    a = np.random.default_rng(0).random((n, n), dtype="float32")
    bx = (a[:, :-2] + a[:, 1:-1] + a[:, 2:]) * np.float32(1 / 3)
    ref = (bx[:-2] + bx[1:-1] + bx[2:]) * np.float32(1 / 3)
    fns, outs = {}, {}

    def add(name, mod):
        o = np.zeros((n - 2, n - 2), "float32")
        outs[name] = o
        fns[name] = lambda: mod(a, o)

    targets = [("", None)] + ([(", AVX2 target", AVX2)] if Target("llvm").has_feature("avx2")
                              else [])
    for tname, tgt in targets:
        for mode in MODES:
            add(f"tepad{tname}, {mode} tail", _build(lambda: blur.schedule(n=n), mode, tgt))
    for lanes in (8, 16):
        o = np.zeros((n - 2, n - 2), "float32")
        f = _halide_blur(a, o, lanes)
        if f is not None:
            outs[f"Halide classic, vec {lanes}"], fns[f"Halide classic, vec {lanes}"] = o, f
    res = _interleaved(fns)
    for k, f in fns.items():
        np.testing.assert_allclose(outs[k], ref, rtol=1e-5, atol=1e-6, err_msg=k)
    return res


def elementwise_rows(n=4096, m=2047):
    ew = _example("elementwise")
    rng = np.random.default_rng(0)
    fns, refs = {}, {}
    for cols in (m, m + 1):
        a = rng.random((n, cols), dtype="float32") - 0.5
        b = rng.random((n, cols), dtype="float32")
        refs[cols] = (a, b, np.maximum(a * b + 1, 0))
    variants = [(f"example schedule, {n}x{m + 1} (no tail)", m + 1, lambda: ew.schedule(n, m + 1),
                 "scalar"),
                (f"example schedule, {n}x{m}", m, lambda: ew.schedule(n, m), "scalar")]
    variants += [(f"split 64, {mode} tail, {n}x{m}", m, lambda: _ew_split(n, m, "guard"), mode)
                 for mode in MODES]
    variants.append((f"split 64, tail='shift', {n}x{m}", m, lambda: _ew_split(n, m, "shift"),
                     "scalar"))
    outs = {}
    for name, cols, make, mode in variants:
        mod = _build(make, mode)
        a, b, _ = refs[cols]
        o = outs[name] = np.zeros((n, cols), "float32")
        fns[name] = (lambda mod=mod, a=a, b=b, o=o: mod(a, b, o))
    res = _interleaved(fns)
    for name, cols, *_ in variants:
        np.testing.assert_allclose(outs[name], refs[cols][2], rtol=1e-6, err_msg=name)
    return res


def stencil_rows(n=4094, f=256):
    """A one-stage 3-point stencil along rows, columns split by ``f`` (a partial tile per
    row), each tail mode, host and AVX2 targets."""
    a = np.random.default_rng(0).random((n, n + 2), dtype="float32")
    ref = (a[:, :-2] + a[:, 1:-1] + a[:, 2:]) * np.float32(0.3)

    def make():
        A = te.placeholder((n, n + 2), "float32", name="A")
        C = te.compute((n, n), lambda i, j: (A[i, j] + A[i, j + 1] + A[i, j + 2]) * 0.3,
                       name="C")
        s = te.create_schedule(C.op)
        _, ji = s[C].split(C.op.axis[1], factor=f)
        s[C].vectorize(ji)
        return s, [A, C]

    fns, outs = {}, {}
    targets = [("", None)] + ([(", AVX2 target", AVX2)] if Target("llvm").has_feature("avx2")
                              else [])
    for tname, tgt in targets:
        for mode in MODES:
            mod = _build(make, mode, tgt)
            o = outs[f"{mode} tail{tname}"] = np.zeros((n, n), "float32")
            fns[f"{mode} tail{tname}"] = (lambda mod=mod, o=o: mod(a, o))
    res = _interleaved(fns)
    for k in fns:
        np.testing.assert_allclose(outs[k], ref, rtol=1e-5, err_msg=k)
    return res


def _table(res, ref_key):
    ref = res[ref_key][0]
    lines = ["| kernel | median ms | min ms | vs " + ref_key + " |", "|---|---|---|---|"]
    for k, (med, mn) in res.items():
        lines.append(f"| {k} | {med * 1e3:.2f} | {mn * 1e3:.2f} | {ref / med:.2f}x |")
    return "\n".join(lines)


def tails_markdown() -> str:
    threads = os.environ.get("TEPAD_NUM_THREADS", str(os.cpu_count()))
    blur = blur_rows()
    ew = elementwise_rows()
    st = stencil_rows()
    return "\n".join([
        "## Vector tails",
        "",
        f"`benchmarks/bench_tails.py`: interleaved rounds in one process ({ROUNDS} x "
        f"{PER_ROUND} runs per kernel), {threads} threads, "
        f"{'CPU time of the process' if CLOCK == 'cpu' else 'wall-clock time'}. The partial "
        "vector of a guarded vectorized loop as `vectorize_loop.TAILS` says: 'scalar' (a "
        "guarded scalar loop, as before), 'masked' (masked loads/stores, one mask per "
        "16 lanes), 'halves' (plain vectors of 32, 16, 8, 4 lanes, then <= 3 scalar).",
        "",
        "### W3 blur 4096^2 -> 4094^2 (examples/blur.py; 4094 = 15 x 256 + 254)",
        "",
        _table(blur, "tepad, scalar tail"),
        "",
        "### Elementwise max(A*B+1, 0) with 2047 columns",
        "",
        _table(ew, "split 64, scalar tail, 4096x2047"),
        "",
        "### One-stage 3-point stencil along rows, 4094 x 4094, columns split by 256",
        "",
        _table(st, "scalar tail"),
    ])


if __name__ == "__main__":
    print(tails_markdown())
