"""Randomized differential tests: rfactor, cache_write after loop transforms and tuple
reductions, built and run, against ``tepad.testing.reference`` (no schedule)."""
import numpy as np
from hypothesis import given, settings, strategies as st

import tepad
from tepad import te, tir
from tepad.testing import reference

REDUCERS = ["sum", "max", "min", "argmax"]


def _argmax():
    def fcombine(x, y):
        keep = x[1] >= y[1]
        return tir.Select(keep, x[0], y[0]), tir.Select(keep, x[1], y[1])
    return te.comm_reducer(fcombine, lambda t0, t1: (tir.const(-1, t0), te.min_value(t1)),
                           name="argmax")


def _reduction(kind, rows, cols, cond):
    A = te.placeholder((rows, cols), name="A", dtype="int32")
    k = te.reduce_axis((0, cols), "k")
    where = (k % 3 != 1) if cond else None
    if kind == "argmax":
        outs = te.compute((rows,), lambda i: _argmax()((k.var, A[i, k]), axis=k, where=where),
                          name="R")
    else:
        red = {"sum": te.sum, "max": te.max, "min": te.min}[kind]
        outs = [te.compute((rows,), lambda i: red(A[i, k], axis=k, where=where), name="R")]
    return A, outs, k


def _run(s, A, outs, rows, cols, seed):
    f = tepad.build(s, [A] + outs, bounds_check=True)
    a = np.random.default_rng(seed).integers(-50, 50, (rows, cols)).astype("int32")
    got = [np.zeros(rows, o.dtype) for o in outs]
    f(a, *got)
    want = reference(outs, {A: a})
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


@settings(max_examples=20)
@given(kind=st.sampled_from(REDUCERS), rows=st.integers(1, 9), cols=st.integers(1, 19),
       factor=st.integers(1, 6), nparts=st.booleans(), outer=st.booleans(),
       factor_axis=st.sampled_from([0, 1, -1]), cond=st.booleans(),
       annotate=st.sampled_from(["none", "parallel", "vectorize", "compute_at"]),
       seed=st.integers(0, 2 ** 16))
def test_rfactor_matches_reference(kind, rows, cols, factor, nparts, outer, factor_axis, cond,
                                   annotate, seed):
    A, outs, k = _reduction(kind, rows, cols, cond)
    s = te.create_schedule(outs[0].op)
    ko, ki = s[outs[0]].split(k, nparts=factor) if nparts else \
        s[outs[0]].split(k, factor=factor)
    BF = s.rfactor(outs[0], ko if outer else ki, factor_axis)
    bf = BF[0] if isinstance(BF, list) else BF
    fpos = 0 if factor_axis == 0 else 1
    if annotate == "parallel":
        s[bf].parallel(bf.op.axis[fpos])
    elif annotate == "vectorize":
        s[bf].vectorize(bf.op.axis[-1])
    elif annotate == "compute_at":
        s[bf].compute_at(s[outs[0]], s[outs[0]].op.reduce_axis[0])
    _run(s, A, outs, rows, cols, seed)


@settings(max_examples=20)
@given(kind=st.sampled_from(REDUCERS + ["elementwise"]), rows=st.integers(1, 11),
       cols=st.integers(1, 9), f1=st.integers(1, 5), f2=st.integers(1, 4),
       reorder=st.booleans(), fuse=st.booleans(), attach=st.booleans(),
       seed=st.integers(0, 2 ** 16))
def test_cache_write_after_split_matches_reference(kind, rows, cols, f1, f2, reorder, fuse,
                                                   attach, seed):
    if kind == "elementwise":
        A = te.placeholder((rows, cols), name="A", dtype="int32")
        outs = [te.compute((rows,), lambda i: A[i, 0] * 3 - A[i, cols - 1], name="R")]
    else:
        A, outs, k = _reduction(kind, rows, cols, cond=False)
    R = outs[0]
    s = te.create_schedule(R.op)
    io, ii = s[R].split(R.op.axis[0], factor=f1)
    io2, io1 = s[R].split(io, nparts=f2)
    if reorder:
        s[R].reorder(io1, io2)
        first, second = io1, io2
    else:
        first, second = io2, io1
    if fuse:
        s[R].fuse(first, second)
    caches = s.cache_write(outs if len(outs) > 1 else R, "local")
    cache = caches[0] if isinstance(caches, list) else caches
    if attach:
        xo, xi = s[R].split(s[R].op.axis[0], factor=2)
        s[cache].compute_at(s[R], xo)
    _run(s, A, outs, rows, cols, seed)
