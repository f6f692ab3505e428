"""Parallel loops on the CPU: a reduction axis marked parallel lowers (TVM's lower shows it)
and is refused when built; the race check leaves data-parallel and rfactored loops alone."""
import numpy as np
import pytest

import tepad
from tepad import te
from tepad.errors import TepadError


def _rowsum(rows=6, cols=40):
    a = te.placeholder((rows, cols), name="a")
    k = te.reduce_axis((0, cols), name="k")
    r = te.compute((rows,), lambda i: te.sum(a[i, k], axis=k), name="r")
    return a, r, k


def _run(s, args, shape):
    f = tepad.build(s, args, "llvm")
    x = np.random.default_rng(3).random(shape).astype("float32")
    out = np.zeros(shape[0], "float32")
    f(x, out)
    return x, out


def test_parallel_reduction_axis_lowers_but_does_not_build():
    a, r, k = _rowsum()
    s = te.create_schedule(r.op)
    s[r].parallel(k)
    text = str(tepad.lower(s, [a, r], simple_mode=True))
    assert "T.parallel" in text
    with pytest.raises(TepadError, match=r"parallel loop k updates r\[i\] in every iteration"):
        tepad.build(s, [a, r], "llvm")


def test_split_reduction_with_parallel_outer_part_is_refused():
    a, r, k = _rowsum()
    s = te.create_schedule(r.op)
    ko, _ = s[r].split(k, factor=8)
    s[r].parallel(ko)
    with pytest.raises(TepadError, match="parallel loop k.outer"):
        tepad.build(s, [a, r], "llvm")


def test_data_parallel_and_rfactored_loops_build():
    a, r, k = _rowsum()
    s = te.create_schedule(r.op)
    s[r].parallel(r.op.axis[0])
    x, out = _run(s, [a, r], (6, 40))
    np.testing.assert_allclose(out, x.sum(axis=1), rtol=1e-5)

    a, r, k = _rowsum()
    s = te.create_schedule(r.op)
    _, ki = s[r].split(k, factor=8)
    rf = s.rfactor(r, ki)
    s[rf].parallel(rf.op.axis[0])          # each thread owns one partial sum
    x, out = _run(s, [a, r], (6, 40))
    np.testing.assert_allclose(out, x.sum(axis=1), rtol=1e-5)


def test_local_accumulator_inside_parallel_loop_builds():
    a, r, k = _rowsum(rows=16)
    s = te.create_schedule(r.op)
    rl = s.cache_write(r, "local")
    io, ii = s[r].split(r.op.axis[0], factor=4)
    s[r].parallel(io)
    s[rl].compute_at(s[r], io)             # accumulator allocated per parallel iteration
    x, out = _run(s, [a, r], (16, 40))
    np.testing.assert_allclose(out, x.sum(axis=1), rtol=1e-5)
