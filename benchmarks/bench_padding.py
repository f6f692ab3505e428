"""RFC 0077 padding: what the overcompute passes buy (its benchmark).

* row summation of a (16384, 14) fp32 matrix stored as ``[i, j // 4, j % 4]`` (16 per row) with
  ``pad_value=0``: the branchy kernel tests ``j < 14`` in its inner loop; after
  ``remove_branching_through_overcompute`` it sums all 16 cells;
* the padded conv1d ``B = conv1d(A, F, padding=2)`` with ``A`` and ``B`` stored as
  ``[(i + 2) // 8, (i + 2) % 8]``, ``pad_value=0``, before and after the same pass.

Each against numpy on the logical arrays; median of ``RUNS`` runs. ``padding_markdown()`` gives
the section for RESULTS.md; run as a script to print it.
"""
from __future__ import annotations

import time

import numpy as np

import tepad
from tepad import te, tir
from tepad.layout import from_physical, to_physical
from tepad.lower.passes.remove_branching_through_overcompute import \
    remove_branching_through_overcompute

RUNS = 20
ROWS = 16384
CONV_N = 1 << 20


def _median(fn, runs=RUNS):
    fn()
    ts = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts))


def _guards(func):
    found = []
    tir.post_order_visit(func.body, lambda n: found.append(n)
                         if isinstance(n, tir.IfThenElse) else None)
    return len(found)


def row_summation(rows=ROWS):
    lay = lambda i, j: [i, j // 4, j % 4]   # noqa: E731
    A = te.placeholder((rows, 14), "float32", name="A")
    j = te.reduce_axis((0, 14), name="j")
    B = te.compute((rows,), lambda i: te.sum(A[i, j], axis=j), name="B")
    s = te.create_schedule(B.op)
    s[A].transform_layout(lay, pad_value=0.0)
    io, ii = s[B].split(B.op.axis[0], factor=1024)
    s[B].parallel(io)
    jo, ji = s[B].split(j, factor=4)
    s[B].unroll(ji)
    f = tepad.lower(s, [A, B], flatten=False)["main"]
    a = np.random.default_rng(0).random((rows, 14), dtype="float32")
    ap = to_physical(a, lay, 0.0)
    return f, [ap], (rows,), lambda: a.sum(axis=1), a.sum(axis=1)


def padded_conv1d(n=CONV_N):
    lay = lambda i: [(i + 2) // 8, (i + 2) % 8]   # noqa: E731
    A = te.placeholder((n,), "float32", name="A")
    F = te.placeholder((3,), "float32", name="F")
    fi = te.reduce_axis((0, 3), name="fi")
    m = n + 2
    B = te.compute((m,), lambda b: te.sum(
        te.if_then_else(tir.all(b - fi + 2 >= 0, b - fi + 2 < n), A[b - fi + 2] * F[fi],
                        te.const(0.0)), axis=fi), name="B")
    s = te.create_schedule(B.op)
    s[A].transform_layout(lay, pad_value=0.0)
    o, i = s[B].transform_layout(lay, pad_value=0.0)
    oo, oi = s[B].split(o, nparts=2)
    s[B].parallel(oo)
    f = tepad.lower(s, [A, F, B], flatten=False)["main"]
    rng = np.random.default_rng(1)
    a = rng.random(n, dtype="float32")
    w = rng.random(3, dtype="float32")
    full = np.convolve(a, w, mode="full").astype("float32")     # full[k] = sum_f a[k-f] w[f]
    ref = np.concatenate([full[2:], np.zeros(2, "float32")])    # B[b] = full[b + 2]
    out_shape = tuple(int(d) for d in f.buffer_map[f.params[2]].shape)
    return f, [to_physical(a, lay, 0.0), w], out_shape, \
        (lambda: np.convolve(a, w, mode="full")), (ref, lay, m)


def _run(name, make):
    f, ins, out_shape, np_fn, ref = make()
    rows = []
    for variant, func in (("branchy", f), ("branch-free", remove_branching_through_overcompute(f))):
        mod = tepad.build(func)
        out = np.zeros(out_shape, "float32")
        mod(*ins, out)
        if isinstance(ref, tuple):
            r, lay, m = ref
            got = from_physical(out, lay, (m,))
        else:
            r, got = ref, out
        ok = bool(np.allclose(got, r, rtol=1e-4, atol=1e-4))
        t = _median(lambda: mod(*ins, out))
        rows.append((name, variant, _guards(func), t, ok))
    rows.append((name, "numpy", 0, _median(np_fn), True))
    return rows


def padding_markdown() -> str:
    rows = _run(f"row summation ({ROWS} x 14 -> 16, pad 0)", row_summation) + \
        _run(f"padded conv1d (n = {CONV_N}, [(i+2)//8, (i+2)%8], pad 0)", padded_conv1d)
    lines = ["## RFC 0077 padding: branchy vs branch-free", "",
             "`remove_branching_through_overcompute` applied to `tepad.lower(..., flatten=False)`'s output; "
             f"median of {RUNS} runs; IfThenElse = guard statements left in the lowered IR.", "",
             "| kernel | variant | IfThenElse | time (ms) | vs numpy | vs branchy | correct |",
             "|---|---|---:|---:|---:|---:|---|"]
    for k in range(0, len(rows), 3):
        group = rows[k:k + 3]
        t_np, t_br = group[2][3], group[0][3]
        for name, variant, guards, t, ok in group:
            lines.append(f"| {name} | {variant} | {guards if variant != 'numpy' else '-'} | "
                         f"{t * 1e3:.3f} | {t_np / t:.2f}x | {t_br / t:.2f}x | "
                         f"{'yes' if ok else 'NO'} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(padding_markdown())
