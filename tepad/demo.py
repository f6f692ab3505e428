"""The README's main job: define, schedule, lower, build and run real kernels.

For each kernel it prints the schedule, the InferBound table, the lowered IR, checks the result
against numpy and reports a median timing. The kernels are built for the host target
(``$TEPAD_HOST_TARGET`` may name a smaller CPU than this one, e.g. ``haswell``), and the
matmul's register block follows it (examples/matmul.py).
"""
from __future__ import annotations

import time

import numpy as np

from . import demo_matmul, te
from .bound import attach_paths, infer_bound
from .driver import build
from .lower import lower
from .runtime.timing import busy_note, sample_times
from .schedule.relations import Rebase
from .target import as_target, describe_host


def _times_ms(fn, repeat=7):
    """(median, minimum) milliseconds of ``repeat`` calls, and a note when the host was busy."""
    ts = sample_times(fn, repeat)
    return 1e3 * float(np.median(ts)), 1e3 * min(ts), busy_note(ts)


def iter_var_role(stage, iv) -> str:
    """What ``iv`` is in ``stage``'s IterVar relations: ``root`` (an axis of the op), ``leaf``
    (a loop of the lowered code), ``root+leaf``, ``inner`` (between the two, e.g. the
    parent of a split) or ``leaf (rebased X)`` (normalize()'s zero-based copy of root X);
    ``(reduce)`` is added for a reduction axis."""
    roots = set(stage.op.root_iter_vars)
    leaves = set(stage.leaf_iter_vars)
    rebased = {r.rebased: r.parent for r in stage.relations if isinstance(r, Rebase)}
    if iv in rebased:
        role = f"leaf (rebased {rebased[iv].name})" if iv in leaves else \
            f"inner (rebased {rebased[iv].name})"
    elif iv in roots:
        role = "root+leaf" if iv in leaves else "root"
    else:
        role = "leaf" if iv in leaves else "inner"
    return role + (" (reduce)" if iv.iter_type.name == "CommReduce" else "")


def bounds_table(s) -> str:
    """One line per IterVar: stage, axis, its role (root / inner / leaf), range, and the
    stage's attach path (innermost loop first)."""
    s = s.copy().normalize()
    bmap = infer_bound(s)
    paths = attach_paths(s)
    lines = [f"{'stage':<10} {'itervar':<12} {'role':<26} {'min':<18} {'extent':<8} "
             "attach path"]
    for st in s.stages:
        if not st.all_iter_vars:
            continue
        path = ", ".join(iv.name for iv in paths[st.op]) or "-"
        for iv in st.all_iter_vars:
            r = bmap.get(iv)
            if r is None:
                continue
            lines.append(f"{st.name:<10} {iv.name:<12} {iter_var_role(st, iv):<26} "
                         f"{r.min!r:<18} {r.extent!r:<8} {path}")
    return "\n".join(lines)


def blur_kernel(n=2048, tile=64):
    A = te.placeholder((n + 2, n + 2), "float32", name="A")
    Bx = te.compute((n + 2, n), lambda y, x: (A[y, x] + A[y, x + 1] + A[y, x + 2]) / 3.0,
                    name="Bx")
    By = te.compute((n, n), lambda y, x: (Bx[y, x] + Bx[y + 1, x] + Bx[y + 2, x]) / 3.0,
                    name="By")
    s = te.create_schedule(By.op)
    yo, xo, yi, xi = s[By].tile(By.op.axis[0], By.op.axis[1], tile, tile)
    s[By].parallel(yo)
    s[Bx].compute_at(s[By], xo)
    s[By].vectorize(xi)
    s[Bx].vectorize(s[Bx].op.axis[1])

    def ref(a):
        bx = (a[:, :-2] + a[:, 1:-1] + a[:, 2:]) / np.float32(3)
        return ((bx[:-2] + bx[1:-1] + bx[2:]) / np.float32(3)).astype("float32")

    inputs = [np.random.default_rng(0).random((n + 2, n + 2), dtype="float32")]
    return "two-stage 3x3 blur (tiled, Bx computed at By's tile)", s, [A, By], inputs, ref


def matmul_kernel(n=1024, target=None):
    """tepad.demo_matmul's schedule (examples/matmul.py) for ``target`` (default: the host, as
    ``$TEPAD_HOST_TARGET`` may set it): packed B, an accumulator tile whose register block
    fits the target's vector registers (8 x 2V with 32 registers; 4 x 3V and padded panels
    with 16), parallel row tiles."""
    ex = demo_matmul
    tgt = as_target(target)
    bn, rows = ex.widths(tgt)
    kb = ex.k_block(tgt)
    s, args = ex.schedule(n, target=tgt)
    rng = np.random.default_rng(1)
    inputs = [rng.random((n, n), dtype="float32"), rng.random((n, n), dtype="float32")]
    lanes = tgt.vector_lanes("float32")
    blocks = f", k blocks of {kb}" if kb and n % kb == 0 and kb < n else ""
    padded = " (zero-padded)" if n % bn else ""
    title = (f"matmul {n}^3 for {tgt.mcpu} ({lanes} fp32 lanes, {tgt.vector_registers} "
             f"vector registers): packed B{padded}, {-(-max(bn, 32) // rows) * rows}x{bn} "
             f"tiles, {rows}x{bn} register block ({rows * bn // lanes} accumulators){blocks}, "
             "parallel")
    return title, s, args, inputs, lambda a, b: a @ b


def main(argv=None):
    print("tepad demo: define -> schedule -> InferBound -> lower -> build -> run")
    print(f"host target: {describe_host()}\n")
    for make in (blur_kernel, matmul_kernel):
        title, s, args, inputs, ref = make()
        print("=" * 78)
        print(title)
        print("=" * 78)
        print("-- schedule --")
        print(s)
        print("-- InferBound --")
        print(bounds_table(s))
        t0 = time.perf_counter()
        func = lower(s, args, name="kernel")
        mod = build(func)
        t_build = time.perf_counter() - t0
        print("-- lowered IR --")
        print(func.script())
        out_t = args[-1]
        out = np.zeros([int(d) for d in out_t.shape], dtype=out_t.dtype)
        mod(*inputs, out)
        expect = ref(*inputs)
        err = float(np.max(np.abs(out - expect)))
        ok = np.allclose(out, expect, rtol=1e-4, atol=1e-3)
        t_tepad, min_tepad, busy_tepad = _times_ms(lambda: mod(*inputs, out))
        t_numpy, min_numpy, busy_numpy = _times_ms(lambda: ref(*inputs))
        print("-- result --")
        print(f"matches numpy: {ok} (max abs error {err:.2e})")
        print(f"lower+build {t_build * 1e3:.0f} ms | tepad {t_tepad:.2f} ms (min "
              f"{min_tepad:.2f}) | numpy {t_numpy:.2f} ms (min {min_numpy:.2f}) | speedup "
              f"x{t_numpy / t_tepad:.1f} (medians of 7){busy_tepad or busy_numpy}\n")
        if not ok:
            raise SystemExit(f"{title}: result differs from numpy")
    return 0
