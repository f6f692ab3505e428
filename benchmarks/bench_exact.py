"""Exact (ISL) InferBound vs interval InferBound: cost and exactness.

* InferBound time, interval vs exact, for a tiled conv2d with compute_at and for a chain of 50
  stages each computed at its consumer's outer tile loop.
* Exactness: overcompute ratio (elements computed / elements needed, over the intermediate
  stages) and allocated bytes, interval vs exact, for a 3x3 blur, a conv2d whose tiles do not
  divide the output, and the disjoint two-consumer case.

``exactness_markdown()`` returns both tables as markdown (used by benchmarks/run.py for
RESULTS.md); ``python benchmarks/bench_exact.py`` prints them.
"""
from __future__ import annotations

import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from tepad import te  # noqa: E402
from tepad.bound import explain, infer_bound  # noqa: E402


# --- workloads ----------------------------------------------------------------------------------

def conv2d(n_out=16, c_in=8, h=30, w=30, tile=(4, 4), k_tile=8):
    """Padded-input conv2d (3x3) with a tiled output and the input stage at the tile loop."""
    A = te.placeholder((c_in, h + 2, w + 2), name="A")
    W = te.placeholder((n_out, c_in, 3, 3), name="W")
    P = te.compute((c_in, h + 2, w + 2), lambda c, y, x: A[c, y, x] * 2, name="Pre")
    rc = te.reduce_axis((0, c_in), name="rc")
    ry = te.reduce_axis((0, 3), name="ry")
    rx = te.reduce_axis((0, 3), name="rx")
    Cv = te.compute((n_out, h, w), lambda k, y, x: te.sum(
        P[rc, y + ry, x + rx] * W[k, rc, ry, rx], axis=[rc, ry, rx]), name="Conv")
    s = te.create_schedule(Cv.op)
    k, y, x = Cv.op.axis
    ko, ki = s[Cv].split(k, factor=k_tile)
    yo, xo, yi, xi = s[Cv].tile(y, x, *tile)
    s[Cv].reorder(ko, yo, xo, ki, yi, xi)
    s[P].compute_at(s[Cv], xo)
    return s, [A, W, Cv]


def chain(n=50, size=64, tile=8):
    A = te.placeholder((size + n,), name="A")
    t = A
    stages = []
    for k in range(n):
        src = t
        t = te.compute((size + n - k - 1,), lambda i, src=src: src[i] + src[i + 1], name=f"S{k}")
        stages.append(t)
    s = te.create_schedule(t.op)
    for k in range(n - 1, 0, -1):
        cons, prod = stages[k], stages[k - 1]
        xo, xi = s[cons].split(cons.op.axis[0], factor=tile)
        s[prod].compute_at(s[cons], xo)
    return s, [A, t]


def blur(h=30, w=30, tile=(8, 8)):
    A = te.placeholder((h + 2, w + 2), name="A")
    Bx = te.compute((h + 2, w), lambda y, x: (A[y, x] + A[y, x + 1] + A[y, x + 2]) / 3, name="Bx")
    By = te.compute((h, w), lambda y, x: (Bx[y, x] + Bx[y + 1, x] + Bx[y + 2, x]) / 3, name="By")
    s = te.create_schedule(By.op)
    yo, xo, yi, xi = s[By].tile(By.op.axis[0], By.op.axis[1], *tile)
    s[Bx].compute_at(s[By], xo)
    return s, [A, By]


def disjoint():
    A = te.placeholder((4, 4), name="A")
    T = te.compute((4, 4), lambda i, j: A[i, j] * 2, name="T")
    C1 = te.compute((2, 2), lambda i, j: T[i, j], name="C1")
    C2 = te.compute((2, 2), lambda i, j: T[i + 2, j + 2], name="C2")
    D = te.compute((2, 2), lambda i, j: C1[i, j] + C2[i, j], name="D")
    return te.create_schedule(D.op), [A, D]


# --- measurements -------------------------------------------------------------------------------

def _median_ms(fn, repeat=5):
    fn()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e3


def timing_rows(repeat=5):
    rows = []
    for name, (s, _) in (("conv2d 16x8x30x30, 3x3, tiles 8x4x4, input at tile",
                          conv2d()),
                         ("chain of 50 stencil stages, each at its consumer's tile (8)",
                          chain())):
        s2 = s.copy().normalize()
        # the 50-stage chain takes ~1-2 s per InferBound: median of 3 (conv: of ``repeat``)
        r = repeat if "conv" in name else 3
        ti = _median_ms(lambda: infer_bound(s2), r)
        te_ = _median_ms(lambda: infer_bound(s2, exact=True), r)
        rows.append((name, ti, te_))
    return rows


def exactness_rows():
    rows = []
    cases = (("blur 3x3 (30x30, tiles 8x8, Bx at tile)", blur()),
             ("conv2d 16x8x30x30, tiles 8x4x4 (do not divide 30)", conv2d(tile=(4, 4))),
             ("conv2d 16x8x30x30, tiles 8x7x7 (do not divide 30)", conv2d(tile=(7, 7))),
             ("disjoint consumers T[0:2,0:2], T[2:4,2:4]", disjoint()))
    for name, (s, _) in cases:
        rep = explain(s)
        inter = [st for st in rep.stages if not st.is_output]
        need = sum(st.needed for st in inter)
        ci = sum(st.computed_interval for st in inter)
        ce = sum(st.computed_exact for st in inter)
        bi = sum(st.bytes_interval for st in inter)
        be = sum(st.bytes_exact for st in inter)
        rows.append((name, need, ci, ce, ci / need, ce / need, bi, be, rep))
    return rows


def exactness_markdown() -> str:
    out = ["### Exact (ISL) vs interval InferBound", "",
           "InferBound time (ms; conv: median of 5, chain: median of 3, after a warm-up):", "",
           "| workload | interval | exact | exact / interval |", "|---|---|---|---|"]
    for name, ti, te_ in timing_rows():
        out.append(f"| {name} | {ti:.1f} | {te_:.1f} | {te_ / ti:.1f}x |")
    out += ["", "Exactness over the intermediate (non-output) stages: elements computed "
            "(store executions over the whole run, counted with ISL), elements needed (union "
            "of what consumers read), overcompute = computed / needed; bytes = buffer sizes "
            "(largest realize over the attach loop).", "",
            "| workload | needed | computed (interval) | computed (exact) | overcompute "
            "(interval) | overcompute (exact) | bytes (interval) | bytes (exact) |",
            "|---|---|---|---|---|---|---|---|"]
    rows = exactness_rows()
    for name, need, ci, ce, ri, re_, bi, be, _ in rows:
        out.append(f"| {name} | {need} | {ci} | {ce} | {ri:.2f} | {re_:.2f} | {bi} | {be} |")
    return "\n".join(out)


if __name__ == "__main__":
    print(exactness_markdown())
    print()
    for name, *_, rep in exactness_rows():
        print(f"== {name}")
        print(rep)
        print()
