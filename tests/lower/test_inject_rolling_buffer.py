"""inject_rolling_buffer alone: a rolling_buffer stage's realize becomes a circular window."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.errors import TepadError
from tepad.lower.passes import inject_rolling_buffer
from tepad.lower.pipeline import schedule_to_primfunc, run_passes
from tepad.tir import expr as E
from tepad.tir import stmt as S

from lower_helpers import nodes, rand


def chain(rolling=True, factor=4):
    """B[i] = A[i] + A[i+1] + A[i+2] (3-tap), C[i] = B[i] + B[i+1] + B[i+2]; C split by
    ``factor``, B computed per tile: consecutive tiles need overlapping windows of B."""
    A = te.placeholder((18,), "int32", name="A")
    B = te.compute((16,), lambda i: A[i] + A[i + 1] + A[i + 2], name="B")
    C = te.compute((14,), lambda i: B[i] + B[i + 1] + B[i + 2], name="C")
    s = te.create_schedule(C.op)
    co, ci = s[C].split(C.op.axis[0], factor=factor)
    s[B].compute_at(s[C], co)
    if rolling:
        s[B].rolling_buffer()
    return schedule_to_primfunc(s, [A, C])


def b_realize(f):
    (r,) = [r for r in nodes(f, S.BufferRealize) if r.buffer.name == "B"]
    return r


def test_window_is_folded_and_hoisted_above_the_rolling_loop():
    f = chain()
    r0 = b_realize(f)
    assert int(r0.bounds[0].extent) == 6 and not isinstance(r0.bounds[0].min, E.IntImm)
    assert isinstance(f.body, S.For)                      # realize inside the tile loop
    g = inject_rolling_buffer(f)
    r = b_realize(g)
    assert [(int(x.min), int(x.extent)) for x in r.bounds] == [(0, 6)]
    assert g.body is r                                   # hoisted above the tile loop
    assert "rolling_buffer_scope" not in g.script()
    for acc in nodes(g, E.BufferLoad) + nodes(g, S.BufferStore):
        if acc.buffer is r.buffer:
            assert isinstance(acc.indices[0], E.FloorMod) and int(acc.indices[0].b) == 6


def test_producer_skips_what_the_previous_tile_computed():
    g = inject_rolling_buffer(chain())
    guards = [s for s in nodes(g, S.IfThenElse)
              if any(st.buffer.name == "B" for st in nodes(s, S.BufferStore))]
    assert guards
    assert "< 1 or" in str(guards[0].condition) and ">= 2" in str(guards[0].condition)


def test_numerics_against_numpy():
    g = inject_rolling_buffer(chain())
    a = np.arange(18, dtype="int32") ** 2 % 23
    c = np.zeros(14, "int32")
    rest = [p.fn for p in tepad.lower.pipeline.PIPELINE
            if p.phase == "lower" and p.fn is not inject_rolling_buffer]
    tepad.build(run_passes(g, passes=rest))(a, c)
    b = a[:16] + a[1:17] + a[2:18]
    np.testing.assert_array_equal(c, b[:14] + b[1:15] + b[2:16])


def test_without_rolling_attribute_the_function_is_returned_as_is():
    f = chain(rolling=False)
    assert inject_rolling_buffer(f) is f


def test_rolling_loop_that_is_parallel_is_refused():
    A = te.placeholder((18,), "int32", name="A")
    B = te.compute((16,), lambda i: A[i] + A[i + 1] + A[i + 2], name="B")
    C = te.compute((14,), lambda i: B[i] + B[i + 1] + B[i + 2], name="C")
    s = te.create_schedule(C.op)
    co, ci = s[C].split(C.op.axis[0], factor=4)
    s[C].parallel(co)
    s[B].compute_at(s[C], co)
    s[B].rolling_buffer()
    f = schedule_to_primfunc(s, [A, C])
    with pytest.raises(TepadError, match="B"):
        inject_rolling_buffer(f)
