"""rolling_buffer along a region that moves with two loops: a producer computed at
the inner loop of a split axis (region min y.outer*8 + y.inner) rolls along the combined
iteration order, the realize hoisted above y.outer (TVM refuses this)."""
import numpy as np
import pytest

import tepad
from tepad import TepadError, te
from tepad.lower.passes.inject_rolling_buffer import inject_rolling_buffer
from tepad.lower.pipeline import schedule_to_primfunc
from tepad.tir.expr import FloorMod
from tepad.tir.functor import post_order_visit
from tepad.tir.stmt import BufferRealize, BufferStore, For


def blur(n, taps=3, dtype="float32"):
    A = te.placeholder((n + taps - 1, n), dtype, name="A")
    Bx = te.compute((n + taps - 1, n), lambda y, x: A[y, x] * 2, name="Bx")
    By = te.compute((n, n), lambda y, x: sum(Bx[y + t, x] for t in range(taps)), name="By")
    return A, Bx, By


def want(a, taps):
    n = a.shape[0] - taps + 1
    return sum(a[t:t + n] * 2 for t in range(taps))


def nodes(f, cls):
    out = []
    post_order_visit(f.body, lambda n: out.append(n) if isinstance(n, cls) else None)
    return out


@pytest.mark.parametrize("n,factor,taps", [(16, 8, 3), (20, 8, 3), (12, 4, 5), (9, 2, 2)])
def test_split_axis_rolls_across_the_outer_loop(n, factor, taps):
    A, Bx, By = blur(n, taps)
    s = te.create_schedule(By.op)
    yo, yi = s[By].split(By.op.axis[0], factor=factor)
    s[Bx].compute_at(s[By], yi)
    s[Bx].rolling_buffer()
    f = inject_rolling_buffer(schedule_to_primfunc(s, [A, By]))
    (r,) = [x for x in nodes(f, BufferRealize) if x.buffer.name == "Bx"]
    assert [int(b.extent) for b in r.bounds] == [taps, n]          # a window of taps rows
    # hoisted above both loops: the realize encloses the y.outer loop
    assert "y.outer" in {x.loop_var.name for x in nodes(r, For)}
    stores = [x for x in nodes(f, BufferStore) if x.buffer.name == "Bx"]
    assert all(isinstance(x.indices[0], FloorMod) for x in stores)
    a = np.random.default_rng(n).random((n + taps - 1, n), dtype="float32")
    b = np.zeros((n, n), "float32")
    tepad.build(s, [A, By])(a, b)
    np.testing.assert_allclose(b, want(a, taps), rtol=1e-5)


def test_each_row_is_computed_once():
    """The skip guard: across y.outer the window slides by one row, as inside y.inner."""
    n, taps = 16, 3
    A, Bx, By = blur(n, taps, "int32")
    s = te.create_schedule(By.op)
    yo, yi = s[By].split(By.op.axis[0], factor=4)
    s[Bx].compute_at(s[By], yi)
    s[Bx].rolling_buffer()
    text = tepad.lower(s, [A, By], flatten=False)["main"].script()
    assert "y_inner < 1 and y_outer < 1 or y >= 2" in text
    a = np.arange((n + 2) * n, dtype="int32").reshape(n + 2, n)
    b = np.zeros((n, n), "int32")
    tepad.build(s, [A, By])(a, b)
    np.testing.assert_array_equal(b, want(a, taps))


def test_loops_that_are_not_adjacent_are_refused():
    """yo, xo, yi (a 2-D tile): re-running the yi loop for every xo moves the window back."""
    A, Bx, By = blur(16)
    s = te.create_schedule(By.op)
    yo, xo, yi, xi = s[By].tile(By.op.axis[0], By.op.axis[1], 8, 8)
    s[Bx].compute_at(s[By], yi)
    s[Bx].rolling_buffer()
    with pytest.raises(TepadError, match="composite min; rollable only"):
        tepad.lower(s, [A, By])


def test_exact_bounds_roll_the_same_way():
    n, taps = 20, 3
    A, Bx, By = blur(n, taps)
    s = te.create_schedule(By.op)
    yo, yi = s[By].split(By.op.axis[0], factor=8)
    s[Bx].compute_at(s[By], yi)
    s[Bx].rolling_buffer()
    a = np.random.default_rng(5).random((n + taps - 1, n), dtype="float32")
    b = np.zeros((n, n), "float32")
    tepad.build(s, [A, By], exact_bounds=True, bounds_check=True)(a, b)
    np.testing.assert_allclose(b, want(a, taps), rtol=1e-5)


def test_the_fuzzer_draws_rolling_at_the_inner_loop_of_a_split():
    from tepad.fuzz.rolling import rolling_applicable
    A, Bx, By = blur(16)
    s = te.create_schedule(By.op)
    s[By].split(By.op.axis[0], factor=8)
    s[Bx].compute_at(s[By], s[By].leaf_iter_vars[1])
    assert rolling_applicable(s, s[Bx])
    s = te.create_schedule(By.op)
    yo, xo, yi, xi = s[By].tile(By.op.axis[0], By.op.axis[1], 8, 8)
    s[Bx].compute_at(s[By], yi)
    assert not rolling_applicable(s, s[Bx])        # yo and yi are not adjacent
