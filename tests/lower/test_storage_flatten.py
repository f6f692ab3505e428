"""storage_flatten alone: realizes -> Allocate, N-d accesses -> one index per axis group."""
import numpy as np

import tepad
from tepad import te, tir
from tepad.lower.passes import storage_flatten
from tepad.tir import stmt as S

from lower_helpers import accesses, func, loops, nodes, rand


def pair_compute_at():
    """B = 2A computed at C's row loop: realize B[i:i+1, 0:8] inside the loop."""
    A = te.placeholder((8, 8), "float32", name="A")
    B = te.compute((8, 8), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((8, 8), lambda i, j: B[i, j] + 1.0, name="C")
    s = te.create_schedule(C.op)
    s[B].compute_at(s[C], C.op.axis[0])
    return tepad.lower(s, [A, C], flatten=False)["main"]


def test_realize_becomes_allocate_of_region_size_and_indices_are_shifted():
    f = pair_compute_at()
    (r,) = nodes(f, S.BufferRealize)
    assert [int(x.extent) for x in r.bounds] == [1, 8]
    g = storage_flatten(f)
    assert not nodes(g, S.BufferRealize)
    (al,) = nodes(g, S.Allocate)
    assert [int(x) for x in al.extents] == [8]          # the region, not the tensor (64)
    assert all(len(a.indices) == 1 for a in accesses(g))
    # B's indices are relative to the region origin: no loop var of the row loop left in them
    row = nodes(f, S.For)[-1].loop_var
    for a in accesses(g):
        if a.buffer.name == "B":
            assert row not in tir.collect_vars(tepad.arith.Analyzer().simplify(a.indices[0]))


def test_argument_buffers_keep_nd_declaration():
    f = pair_compute_at()
    g = storage_flatten(f)
    assert g.buffer_map == f.buffer_map
    flat_views = {a.buffer for a in accesses(g) if a.buffer.name in ("A", "C")}
    decl = {b.data: b for b in g.buffer_map.values()}
    for v in flat_views:
        assert len(v.shape) == 1 and int(v.shape[0]) == 64 and v.data in decl


def test_numerics():
    g = storage_flatten(pair_compute_at())
    a = rand((8, 8))
    c = np.zeros((8, 8), "float32")
    tepad.build(g)(a, c)
    np.testing.assert_allclose(c, a * 2.0 + 1.0, rtol=1e-6)


def test_axis_separators_keep_one_index_per_group():
    A = tir.decl_buffer((2, 3, 4), "float32", "A")
    A2 = tir.Buffer((2, 3, 4), "float32", "A2", data=A.data, axis_separators=[1])
    B = tir.decl_buffer((2, 3, 4), "float32", "B")
    i, j, k = tir.Var("i"), tir.Var("j"), tir.Var("k")
    body = loops([(i, 2), (j, 3), (k, 4)], tir.BufferStore(B, A2[i, j, k] + 1.0, [i, j, k]))
    f = tir.PrimFunc([A.data, B.data], body, {A.data: A2, B.data: B}, {"global_symbol": "main"})
    g = storage_flatten(f)
    (ld,) = nodes(g, tir.BufferLoad)
    (st,) = nodes(g, S.BufferStore)
    assert len(ld.indices) == 2 and len(st.indices) == 1
    assert str(ld.indices[0]) == "i" and str(st.indices[0]).replace(" ", "") in (
        "(i*3+j)*4+k", "i*12+j*4+k")
    assert [int(x) for x in ld.buffer.shape] == [2, 12]


def test_symbolic_region_allocation_is_clamped():
    """An extent that is a formula is clamped at 0 in the allocation (never negative)."""
    A = tir.decl_buffer((16,), "float32", "A")
    T = tir.decl_buffer((16,), "float32", "T")
    n, i = tir.Var("n"), tir.Var("i")
    body = tir.BufferRealize(T, [tir.Range.from_min_extent(0, n - 4)], tir.const(True),
                             loops([(i, n - 4)], tir.BufferStore(T, A[i], [i])))
    g = storage_flatten(func([A], body))
    (al,) = nodes(g, S.Allocate)
    assert "max" in str(al.extents[0])
