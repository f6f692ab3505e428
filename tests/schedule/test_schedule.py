"""Schedule data model: stages, relations, attach info, dataflow rewrites, read graph."""
import networkx as nx
import pytest

import tepad
from tepad import TepadError, te
from tepad.schedule import AttachType, Fuse, Rebase, Split, read_graph


def chain():
    A = te.placeholder((8, 8), name="A")
    B = te.compute((8, 8), lambda i, j: A[i, j] + 1.0, name="B")
    C = te.compute((8, 8), lambda i, j: B[i, j] * 2.0, name="C")
    return A, B, C


def test_stages_are_producers_first_and_outputs_marked():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    assert [st.name for st in s.stages] == ["A", "B", "C"]
    assert s[C].is_output and not s[B].is_output
    assert s[C.op] is s[C]


def test_split_fuse_relations_and_leaves():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    io, ii = s[C].split(i, factor=4)
    f = s[C].fuse(ii, j)
    rels = s[C].relations
    assert isinstance(rels[0], Split) and rels[0].parent is i and rels[0].outer is io
    assert isinstance(rels[1], Fuse) and rels[1].fused is f
    assert s[C].leaf_iter_vars == [io, f]
    assert f.name == "i.inner.j.fused"
    assert set(map(id, s[C].all_iter_vars)) == set(map(id, [i, j, io, ii, f]))


def test_split_nparts_and_tile_and_reorder():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    xo, yo, xi, yi = s[C].tile(i, j, 2, 4)
    assert s[C].leaf_iter_vars == [xo, yo, xi, yi]
    s[C].reorder(yi, xo)
    assert s[C].leaf_iter_vars == [yi, yo, xi, xo]
    o, inner = s[B].split(B.op.axis[0], nparts=3)
    assert s[B].relations[0].nparts is not None


def test_compute_at_records_attachment_and_root_resets():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    s[B].compute_at(s[C], C.op.axis[1])
    assert s[B].attach_type == AttachType.Scope
    assert s[B].attach_stage is s[C] and s[B].attach_ivar is C.op.axis[1]
    s[B].compute_root()
    assert s[B].attach_type == AttachType.GroupRoot


def test_normalize_rebases_roots_and_legalizes_attach():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    s[B].compute_at(s[C], C.op.axis[0])
    s[C].split(C.op.axis[0], factor=2)          # after compute_at: attach moves to inner
    s2 = s.copy().normalize()
    rebases = [r for r in s2[B].relations if isinstance(r, Rebase)]
    assert len(rebases) == 2
    assert s2[B].attach_ivar is s2[C].relations[0].inner
    # the original schedule is untouched by lowering
    tepad.lower(s, [A, C])
    assert not any(isinstance(r, Rebase) for r in s[B].relations)


def test_inline_rewrites_consumers():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    s[B].compute_inline()
    sn = s.normalize()
    assert sn[B].attach_type == AttachType.InlinedAlready
    assert [t.name for t in sn[C].op.input_tensors] == ["A"]
    assert sn[C].origin_op is C.op


def test_normalize_returns_a_copy_as_tvm_does():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    s[B].compute_inline()
    sn = s.normalize()
    assert sn is not s
    # the schedule normalized is untouched: B is still only marked, C still reads B
    assert s[B].attach_type == AttachType.Inline
    assert [t.name for t in s[C].op.input_tensors] == ["B"]
    assert sn.normalize()[C].op is sn[C].op


def test_read_graph_edges():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    g = read_graph(s)
    assert isinstance(g, nx.DiGraph)
    assert list(nx.topological_sort(g)) == [A.op, B.op, C.op]
    assert g.has_edge(A.op, B.op) and g.has_edge(B.op, C.op)


def test_cache_read_inserts_stage_after_producer():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    AA = s.cache_read(A, "local", [B])
    assert [st.name for st in s.stages] == ["A", "A.local", "B", "C"]
    assert AA in s[B].op.input_tensors
    with pytest.raises(TepadError, match="does not read A"):
        s.cache_read(A, "shared", [C])


def test_rolling_buffer_refused_on_output_placeholder_and_root():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match="output"):
        s[C].rolling_buffer()
    with pytest.raises(TepadError, match="placeholder"):
        s[A].rolling_buffer()
    s[B].rolling_buffer()
    with pytest.raises(TepadError, match="compute_at"):
        tepad.lower(s, [A, C])


def test_stage_str_shows_relations_and_attachment():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], s[C].leaf_iter_vars[0])
    text = str(s)
    assert "split(i -> i.outer, i.inner, factor=4)" in text
    assert "compute_at C.i.outer" in text
