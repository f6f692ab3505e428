"""Bugs the schedule fuzzer found (python -m tepad.fuzz), each as its shrunk reproducer.

A failing test here is a bug outside tests/ and tepad/fuzz (see the docstring for the fix)."""
import numpy as np

import tepad
from tepad import te, tir
from tepad.testing import reference


def test_cache_read_for_two_readers_where_one_reads_the_other():
    """seed 2, case 120. cache_read(A, readers=[T0, T1]) where T1 also reads T0: T1 is rebuilt
    for the cache, then replace_dataflow rebuilds it again (old T0 -> new T0), but T2 keeps
    pointing at the first rebuild of T1, which is no stage of the schedule. lower() then
    refuses a legal schedule: "tensor T1 is read or written but neither computed here nor
    passed in args". Fix (tepad/schedule/dataflow.py): when a reader is replaced twice, chain
    the replacement map (TVM's ReplaceDataFlow composes vmap entries), or rebuild the readers
    in topological order with the cumulative map."""
    A = te.placeholder((3, 3), "int32", name="A")
    T0 = te.compute((3, 3), lambda i, j: A[j, i], name="T0")
    k = te.reduce_axis((0, 3), name="k")
    T1 = te.compute((3, 3), lambda i, j: te.sum(A[i, k] * T0[k, j], axis=k), name="T1")
    T2 = te.compute((3, 3), lambda i, j: T1[i, j] + 1, name="T2")
    s = te.create_schedule([T2.op])
    s.cache_read(A, "shared", [T0, T1])
    mod = tepad.build(s, [A, T2], bounds_check=True)
    a = np.arange(9, dtype="int32").reshape(3, 3)
    out = np.zeros((3, 3), "int32")
    mod(a, out)
    np.testing.assert_array_equal(out, reference(T2, {A: a}))
