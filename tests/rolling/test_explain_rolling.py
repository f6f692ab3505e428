"""``tepad.bound.explain`` (and ``tepad bounds``) count what a rolling buffer's kernel computes:
each element once along the rolling loops, and the folded buffer's size. The counts are
checked against the lowered kernel itself, walked loop by loop here."""
import sys
from pathlib import Path

import numpy as np
import pytest

import tepad
from tepad import te
from tepad.bound import explain
from tepad.tir.expr import BufferLoad
from tepad.tir.functor import post_order_visit
from tepad.tir.stmt import (AttrStmt, BufferRealize, BufferStore, For, IfThenElse, LetStmt,
                            SeqStmt)
from tepad.viz.evaluate import evaluate

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def maxpool_rolling():
    sys.path.insert(0, str(EXAMPLES))
    try:
        import maxpool_rolling as m
    finally:
        sys.path.pop(0)
    return m


def init_stores(stmt, name, env=None):
    """How many times the lowered body runs a store to ``name`` that does not read ``name``
    (a reduction's initialization: one per element computed)."""
    env = dict(env or {})
    if isinstance(stmt, SeqStmt):
        return sum(init_stores(x, name, env) for x in stmt.seq)
    if isinstance(stmt, For):
        lo, n = int(evaluate(stmt.min, env)), int(evaluate(stmt.extent, env))
        return sum(init_stores(stmt.body, name, {**env, stmt.loop_var: v})
                   for v in range(lo, lo + n))
    if isinstance(stmt, IfThenElse):
        if bool(evaluate(stmt.condition, env)):
            return init_stores(stmt.then_case, name, env)
        return init_stores(stmt.else_case, name, env) if stmt.else_case is not None else 0
    if isinstance(stmt, LetStmt):
        return init_stores(stmt.body, name, {**env, stmt.var: evaluate(stmt.value, env)})
    if isinstance(stmt, (AttrStmt, BufferRealize)):
        return init_stores(stmt.body, name, env)
    if isinstance(stmt, BufferStore) and stmt.buffer.name == name:
        reads = []
        post_order_visit(stmt.value, lambda n: reads.append(n)
                         if isinstance(n, BufferLoad) and n.buffer.name == name else None)
        return 0 if reads else 1
    return 0


def realized_elements(func, name):
    sizes = []
    post_order_visit(func.body, lambda n: sizes.append(
        int(np.prod([int(b.extent) for b in n.bounds])))
        if isinstance(n, BufferRealize) and n.buffer.name == name else None)
    (size,) = sizes
    return size


@pytest.mark.parametrize("size,tile", [(12, 4), (20, 4), (14, 3)])
def test_maxpool_rolling_counts_match_the_rolled_kernel(size, tile):
    m = maxpool_rolling()
    s, args = m.schedule(size, tile)
    func = tepad.lower(s, args, flatten=False)["main"]
    computed = init_stores(func.body, "B")
    b = size - 2
    assert computed == b * b                           # every element of B once
    rep = explain(s)
    assert rep["B"].computed_interval == rep["B"].computed_exact == computed
    assert rep["B"].needed == b * b
    assert rep["B"].bytes_exact == realized_elements(func, "B")     # int8: one byte each
    # without rolling_buffer the tiles' windows overlap and are computed again
    s2, args2 = m.without_rolling(size, tile)
    assert explain(s2)["B"].computed_exact == init_stores(
        tepad.lower(s2, args2, flatten=False)["main"].body, "B") > computed


def test_rolling_along_the_inner_loop_of_a_split():
    n, taps = 20, 3
    A = te.placeholder((n + taps - 1, n), "float32", name="A")
    Bx = te.compute((n + taps - 1, n), lambda y, x: A[y, x] * 2.0, name="Bx")
    r = te.reduce_axis((0, taps), name="r")
    By = te.compute((n, n), lambda y, x: te.sum(Bx[y + r, x], axis=r), name="By")
    s = te.create_schedule(By.op)
    yo, yi = s[By].split(By.op.axis[0], factor=8)
    s[Bx].compute_at(s[By], yi)
    s[Bx].rolling_buffer()
    func = tepad.lower(s, [A, By], flatten=False)["main"]
    rep = explain(s)
    assert rep["Bx"].computed_exact == init_stores(func.body, "Bx") == (n + taps - 1) * n
    assert rep["Bx"].bytes_exact == 4 * realized_elements(func, "Bx")


def test_tepad_bounds_shows_the_rolled_counts(capsys):
    from tepad.cli import main
    assert main(["bounds", str(EXAMPLES / "maxpool_rolling.py")]) == 0
    out = capsys.readouterr().out
    row = [line.split() for line in out.splitlines() if line.startswith("B ")][-1]
    assert row[:4] == ["B", "100", "100", "100"]


def test_rolling_inside_parallel_strips_recomputes_each_strips_first_window():
    """Strips run in parallel, each with its own rolling buffer: the first tile of every
    strip computes its whole window again (2 rows of overlap per strip after the first)."""
    m = maxpool_rolling()
    size, strip, tile = 36, 16, 4
    A = te.placeholder((size, size), "int8", name="A")
    B = m.maxpool(A, "B")
    C = m.maxpool(B, "C")
    s = te.create_schedule(C.op)
    ys, yr = s[C].split(C.op.axis[0], factor=strip)
    yo, yi = s[C].split(yr, factor=tile)
    s[C].parallel(ys)
    s[B].compute_at(s[C], yo)
    s[B].rolling_buffer()
    func = tepad.lower(s, [A, C], flatten=False)["main"]
    computed = init_stores(func.body, "B")
    b = size - 2
    strips = -(-(size - 4) // strip)
    assert computed == (b + 2 * (strips - 1)) * b
    rep = explain(s)
    assert rep["B"].computed_interval == rep["B"].computed_exact == computed
    assert rep["B"].bytes_exact == realized_elements(func, "B")
    a = np.random.default_rng(3).integers(-128, 128, (size, size)).astype("int8")
    c = np.zeros((size - 4, size - 4), "int8")
    tepad.build(s, [A, C])(a, c)
    from numpy.lib.stride_tricks import sliding_window_view as win
    want = win(win(a, (3, 3)).max(axis=(2, 3)), (3, 3)).max(axis=(2, 3))
    np.testing.assert_array_equal(c, want)
