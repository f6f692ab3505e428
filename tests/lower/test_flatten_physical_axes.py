"""flatten_physical_axes alone: one index per access (row-major over the axis groups)."""
import numpy as np

import tepad
from tepad import te, tir
from tepad.lower.passes import flatten_physical_axes, storage_flatten
from tepad.lower.pipeline import BUILD, run_pipeline
from tepad.tir import expr as E
from tepad.tir import stmt as S

from lower_helpers import accesses, func, loops, nodes, rand


def separated_func():
    """B (4 x 8) stored as [j // 4, i, SEP, j % 4]: before flatten_physical_axes accesses have
    2 indices."""
    A = te.placeholder((4, 8), "float32", name="A")
    B = te.compute((4, 8), lambda i, j: A[i, j] * 2.0, name="B")
    s = te.create_schedule(B.op)
    s[B].transform_layout(lambda i, j: [j // 4, i, te.AXIS_SEPARATOR, j % 4])
    return run_pipeline(tepad.lower(s, [A, B])["main"], (BUILD,), stop_before="flatten_physical_axes")


def test_two_index_accesses_become_one_row_major_index():
    f = separated_func()
    (store,) = nodes(f, S.BufferStore)
    assert store.buffer.name == "B" and len(store.indices) == 2     # the pass has work to do
    g = flatten_physical_axes(f)
    assert all(len(a.indices) == 1 for a in accesses(g))
    (new,) = nodes(g, S.BufferStore)
    assert new.buffer.data is store.buffer.data                      # same memory
    assert [int(x) for x in new.buffer.shape] == [32]
    # the flat index is group0 * extent(group1) + group1: evaluate it on every iteration
    (ax0, ax1, ax2) = [l.loop_var for l in nodes(g, S.For)][::-1]
    ana = tepad.arith.Analyzer()
    seen = set()
    for a0 in range(2):
        for a1 in range(4):
            for a2 in range(4):
                vm = {ax0: tir.const(a0), ax1: tir.const(a1), ax2: tir.const(a2)}
                flat = int(ana.simplify(tir.substitute(new.indices[0], vm)))
                assert flat == (a0 * 4 + a1) * 4 + a2
                seen.add(flat)
    assert seen == set(range(32))
    # the declaration in buffer_map keeps its physical 3-d shape and separators
    bdecl = [b for b in g.buffer_map.values() if b.name == "B"][0]
    assert [int(x) for x in bdecl.shape] == [2, 4, 4] and bdecl.axis_separators == (2,)


def test_numerics_match_numpy_layout():
    g = flatten_physical_axes(separated_func())
    a = rand((4, 8))
    b = np.zeros((2, 4, 4), "float32")
    tepad.build(g)(a, b)
    ref = (a * 2.0).reshape(4, 2, 4).transpose(1, 0, 2)   # B[j // 4, i, j % 4] = 2 A[i, j]
    np.testing.assert_array_equal(b, ref)


def test_internal_buffer_with_separator():
    """A realized (internal) buffer with axis separators: storage_flatten gives a 2-d Allocate
    and 2-index accesses; the pass makes every access flat and the kernel computes the same."""
    A = tir.decl_buffer((4, 6), "float32", "A")
    B = tir.decl_buffer((4, 6), "float32", "B")
    T = tir.Buffer((4, 6), "float32", "T", axis_separators=[1])
    i, j = tir.Var("i"), tir.Var("j")
    body = tir.BufferRealize(T, [tir.Range(0, 4), tir.Range(0, 6)], tir.const(True), tir.seq(
        loops([(i, 4), (j, 6)], tir.BufferStore(T, A[i, j] + 1.0, [i, j])),
        loops([(i, 4), (j, 6)], tir.BufferStore(B, T[3 - i, 5 - j] * 2.0, [i, j]))))
    f = storage_flatten(func([A, B], body))
    assert any(len(a.indices) == 2 for a in accesses(f))
    g = flatten_physical_axes(f)
    assert all(len(a.indices) == 1 for a in accesses(g))
    a = rand((4, 6))
    b = np.zeros((4, 6), "float32")
    tepad.build(g)(a, b)
    np.testing.assert_allclose(b, (a[::-1, ::-1] + 1.0) * 2.0, rtol=1e-6)


def test_function_without_separators_is_returned_as_is():
    A = te.placeholder((4, 8), "float32", name="A")
    B = te.compute((4, 8), lambda i, j: A[i, j] + 1.0, name="B")
    f = run_pipeline(tepad.lower(te.create_schedule(B.op), [A, B])["main"], (BUILD,),
                     stop_before="flatten_physical_axes")
    assert all(len(a.indices) == 1 for a in accesses(f))
    assert flatten_physical_axes(f) is f


def test_idempotent():
    g = flatten_physical_axes(separated_func())
    assert flatten_physical_axes(g) is g


def test_index_nested_in_an_index_is_flattened_too():
    """A load used as an index of another access is flattened as well (one index everywhere)."""
    A = tir.Buffer((2, 4), "int32", "A", axis_separators=[1])
    B = tir.decl_buffer((8,), "float32", "B")
    C = tir.decl_buffer((8,), "float32", "C")
    i = tir.Var("i")
    body = loops([(i, 8)], tir.BufferStore(C, B[A[i // 4, i % 4]], [i]))
    g = flatten_physical_axes(func([A, B, C], body))
    assert all(len(a.indices) == 1 for a in accesses(g))
    perm = np.array([3, 1, 4, 0, 7, 2, 6, 5], "int32")
    b = rand((8,))
    c = np.zeros(8, "float32")
    tepad.build(g)(perm.reshape(2, 4), b, c)
    np.testing.assert_array_equal(c, b[perm])
