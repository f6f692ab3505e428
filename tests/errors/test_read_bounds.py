"""Definitions that read a tensor outside its declared shape (tepad/bound/read_check.py).

Constant shapes: lower refuses them with a witness point. Symbolic shapes: refused when every
size binding reads out of bounds, otherwise checked on the bound sizes before native code runs.
Guards that really guard (te.if_then_else, a reduction's where=) are respected.
"""
import numpy as np
import pytest

import tepad
from tepad import TepadError, te


def _arr(n, dtype="float32"):
    return np.arange(n, dtype=dtype)


def test_placeholder_read_past_the_end_is_refused():
    A = te.placeholder((10,), name="A")
    B = te.compute((10,), lambda i: A[i + 3], name="B")
    s = te.create_schedule(B.op)
    with pytest.raises(TepadError, match=r"stage 'B' reads A\[i \+ 3\] outside the shape "
                                         r"\(10,\) of 'A', e.g. at i = 7"):
        tepad.lower(s, [A, B])
    with pytest.raises(TepadError, match="outside the shape"):
        tepad.build(s, [A, B])


def test_computed_tensor_read_outside_is_refused():
    A = te.placeholder((10,), name="A")
    T = te.compute((10,), lambda i: A[i] * 2, name="T")
    C = te.compute((10,), lambda i: T[i - 1], name="C")
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match=r"stage 'C' reads T\[i - 1\] .* at i = 0"):
        tepad.lower(s, [A, C])


def test_two_dimensional_witness_names_every_axis():
    A = te.placeholder((4, 6), name="A")
    B = te.compute((4, 6), lambda i, j: A[j % 4, i + j], name="B")
    s = te.create_schedule(B.op)
    with pytest.raises(TepadError, match=r"e.g. at i = 1, j = 5"):
        tepad.lower(s, [A, B])


def test_if_then_else_guard_is_respected_and_correct():
    A = te.placeholder((10,), name="A")
    B = te.compute((12,), lambda i: te.if_then_else(tepad.tir.all(i >= 1, i <= 10),
                                                    A[i - 1], 0.0), name="B")
    s = te.create_schedule(B.op)
    mod = tepad.build(s, [A, B])
    a, b = _arr(10), np.zeros(12, "float32")
    mod(a, b)
    np.testing.assert_array_equal(b, np.pad(a, 1))


def test_false_branch_of_if_then_else_is_checked_under_the_negated_guard():
    A = te.placeholder((10,), name="A")
    B = te.compute((10,), lambda i: te.if_then_else(i < 9, A[i], A[i + 1]), name="B")
    s = te.create_schedule(B.op)
    with pytest.raises(TepadError, match=r"reads A\[i \+ 1\] .* at i = 9"):
        tepad.lower(s, [A, B])


def test_reduction_where_guards_the_source():
    A = te.placeholder((8,), name="A")
    k = te.reduce_axis((0, 10), name="k")
    R = te.compute((1,), lambda i: te.sum(A[k], axis=k, where=k < 8), name="R")
    mod = tepad.build(te.create_schedule(R.op), [A, R])
    a, r = _arr(8), np.zeros(1, "float32")
    mod(a, r)
    assert r[0] == a.sum()
    k2 = te.reduce_axis((0, 10), name="k2")
    R2 = te.compute((1,), lambda i: te.sum(A[k2], axis=k2), name="R2")
    with pytest.raises(TepadError, match=r"stage 'R2' reads A\[k2\] .* at i = 0, k2 = 8"):
        tepad.lower(te.create_schedule(R2.op), [A, R2])


def test_symbolic_shape_out_of_bounds_for_every_size_is_refused():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i + 1], name="B")
    with pytest.raises(TepadError, match="for every size binding, e.g. n = 1 at i = 0"):
        tepad.lower(te.create_schedule(B.op), [A, B])


def test_symbolic_shape_in_bounds_for_all_sizes_passes():
    n = te.var("n")
    A = te.placeholder((n + 2,), name="A")
    B = te.compute((n,), lambda i: A[i] + A[i + 2], name="B")
    f = tepad.lower(te.create_schedule(B.op), [A, B])["main"]
    assert not f.attrs.get("tepad.read_preconditions")


def test_symbolic_sizes_that_read_out_of_bounds_are_refused_before_running():
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((m,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    f = tepad.lower(s, [A, B])["main"]
    assert len(f.attrs["tepad.read_preconditions"]) == 1
    mod = tepad.build(s, [A, B])
    b = np.zeros(3, "float32")
    mod(_arr(5), b)                       # m = 5 >= n = 3: fine
    np.testing.assert_array_equal(b, _arr(3) * 2)
    b5 = np.full(5, -1, "float32")
    with pytest.raises(TepadError, match=r"with m = 3, n = 5: stage .B. reads A\[i\] outside the shape \(m,\) of .A., e.g. at i = 3; the kernel was not run"):
        mod(_arr(3), b5)
    assert (b5 == -1).all()               # nothing ran
    mod(_arr(4), np.zeros(4, "float32"))  # an allowed binding after a refused one


def test_gather_index_is_not_checked_statically():
    A = te.placeholder((10,), name="A")
    I = te.placeholder((4,), dtype="int32", name="I")
    B = te.compute((4,), lambda i: A[I[i]], name="B")
    f = tepad.lower(te.create_schedule(B.op), [A, I, B])["main"]
    assert not f.attrs.get("tepad.read_preconditions")


def test_inlined_stage_reads_are_checked_too():
    A = te.placeholder((8,), name="A")
    T = te.compute((8,), lambda i: A[i + 1], name="T")
    C = te.compute((4,), lambda i: T[i], name="C")
    s = te.create_schedule(C.op)
    s[T].compute_inline()
    with pytest.raises(TepadError, match=r"reads A\[i \+ 1\] .* at i = 7"):
        tepad.lower(s, [A, C])
