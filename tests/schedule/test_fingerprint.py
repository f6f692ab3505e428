"""The schedule owns its fingerprint, and ``tepad.build`` keys its cache on it: after any
primitive changes a schedule that was built, the next build is a new Module, never the stale
one, and it computes the right thing."""
import numpy as np
import pytest

import tepad
from tepad import te, tir


def chain():
    A = te.placeholder((16, 16), "float32", name="A")
    B = te.compute((16, 16), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((16, 16), lambda i, j: B[i, j] + 1.0, name="C")
    return A, B, C


def rowsum():
    A = te.placeholder((16, 16), "float32", name="A")
    k = te.reduce_axis((0, 16), name="k")
    S = te.compute((16,), lambda i: te.sum(A[i, k], axis=k), name="S")
    return A, S


def stencil():
    A = te.placeholder((18, 16), "float32", name="A")
    B = te.compute((17, 16), lambda i, j: A[i, j] + A[i + 1, j], name="B")
    C = te.compute((16, 16), lambda i, j: B[i, j] + B[i + 1, j], name="C")
    return A, B, C


def _split(s, A, B, C):
    s[C].split(C.op.axis[1], factor=4)


def _fuse(s, A, B, C):
    s[C].fuse(*C.op.axis)


def _reorder(s, A, B, C):
    s[C].reorder(C.op.axis[1], C.op.axis[0])


def _tile(s, A, B, C):
    s[C].tile(*C.op.axis, 4, 4)


def _compute_at(s, A, B, C):
    s[B].compute_at(s[C], C.op.axis[0])


def _compute_inline(s, A, B, C):
    s[B].compute_inline()


def _compute_root(s, A, B, C):
    s[B].compute_root()


def _vectorize(s, A, B, C):
    s[C].vectorize(C.op.axis[1])


def _unroll(s, A, B, C):
    s[C].unroll(s[C].split(C.op.axis[1], factor=4)[1])


def _parallel(s, A, B, C):
    s[C].parallel(C.op.axis[0])


def _cache_read(s, A, B, C):
    s.cache_read(A, "local", [B])


def _cache_write(s, A, B, C):
    s.cache_write(C, "local")


def _transform_layout(s, A, B, C):
    s[B].transform_layout(lambda i, j: [j, i])


def _set_scope(s, A, B, C):
    s[B].set_scope("local")


PRIMITIVES = [_split, _fuse, _reorder, _tile, _compute_at, _compute_inline, _compute_root,
              _vectorize, _unroll, _parallel, _cache_read, _cache_write, _transform_layout,
              _set_scope]


@pytest.mark.parametrize("primitive", PRIMITIVES, ids=lambda f: f.__name__[1:])
def test_each_primitive_after_a_build_gives_a_new_module(primitive):
    A, B, C = chain()
    s = te.create_schedule(C.op)
    if primitive is _compute_root:                  # something for compute_root to undo
        s[B].compute_at(s[C], C.op.axis[0])
    before = s.fingerprint()
    m1 = tepad.build(s, [A, C])
    assert tepad.build(s, [A, C]) is m1            # unchanged schedule: the cached module
    primitive(s, A, B, C)
    assert s.fingerprint() != before
    m2 = tepad.build(s, [A, C])
    assert m2 is not m1
    a = np.random.default_rng(0).random((16, 16), dtype="float32")
    c = np.empty_like(a)
    m2(a, c)
    np.testing.assert_allclose(c, a * 2.0 + 1.0, rtol=1e-6)


def test_rfactor_free_primitives_on_reductions():
    A, S = rowsum()
    s = te.create_schedule(S.op)
    m1 = tepad.build(s, [A, S])
    s[S].split(S.op.reduce_axis[0], factor=4)
    m2 = tepad.build(s, [A, S])
    assert m2 is not m1
    a = np.random.default_rng(1).random((16, 16), dtype="float32")
    out = np.empty(16, "float32")
    m2(a, out)
    np.testing.assert_allclose(out, a.sum(axis=1), rtol=1e-5)


def test_rolling_buffer_after_a_build_gives_a_new_module():
    A, B, C = stencil()
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], io)
    m1 = tepad.build(s, [A, C])
    s[B].rolling_buffer()
    m2 = tepad.build(s, [A, C])
    assert m2 is not m1
    a = np.random.default_rng(2).random((18, 16), dtype="float32")
    c = np.empty((16, 16), "float32")
    m2(a, c)
    b = a[:-1] + a[1:]
    np.testing.assert_allclose(c, b[:-1] + b[1:], rtol=1e-6)


def test_pad_value_is_part_of_the_fingerprint():
    A = te.placeholder((14,), "int32", name="A")
    B = te.compute((14,), lambda i: A[i] * 2, name="B")
    s = te.create_schedule(B.op)
    s[B].transform_layout(lambda i: [i // 4, i % 4], pad_value=0)
    f1 = s.fingerprint()
    s2 = te.create_schedule(B.op)
    s2[B].transform_layout(lambda i: [i // 4, i % 4], pad_value=tir.undef("int32"))
    assert s2.fingerprint() != f1


def test_a_stage_field_added_later_is_in_the_fingerprint():
    """The fingerprint reads every Stage attribute: nobody has to remember to add one."""
    A, B, C = chain()
    s = te.create_schedule(C.op)
    before = s.fingerprint()
    s[C].some_future_annotation = ("pragma", 4)
    assert s.fingerprint() != before
    s[C].some_future_annotation = ("pragma", 8)
    assert s.fingerprint() != before


class _FakeTensor:
    def __init__(self, op):
        self.op = op


class _FakeOp:
    """Just enough of an Operation for the stage-ordering graph."""

    def __init__(self, name):
        self.name, self.input_tensors = name, []


def test_stage_order_is_post_dfs_and_a_cycle_names_the_stages():
    from tepad.errors import TepadError
    from tepad.schedule.schedule import _post_dfs_order
    a, b, c, d = (_FakeOp(n) for n in "abcd")
    b.input_tensors = [_FakeTensor(a)]
    c.input_tensors = [_FakeTensor(b), _FakeTensor(a)]
    d.input_tensors = [_FakeTensor(a)]
    assert [op.name for op in _post_dfs_order([c, d])] == ["a", "b", "c", "d"]
    a.input_tensors = [_FakeTensor(c)]            # a reads c: a -> b -> c -> a
    with pytest.raises(TepadError, match=r"read each other in a cycle \((a reads c, c reads a|c reads a, a reads c)\)"):
        _post_dfs_order([c])


def test_read_graph_is_the_networkx_dataflow():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    g = tepad.schedule.read_graph(s)
    assert set(g.edges) == {(A.op, B.op), (B.op, C.op)}
    assert [st.op for st in s.stages] == [A.op, B.op, C.op]


def test_te_schedule_graph_helpers_and_relation_classes():
    A, B, C = chain()
    D = te.compute((16, 16), lambda i, j: C[j, i] * 3.0, name="D")
    g = te.schedule.CreateReadGraph([D.op])
    assert g[D.op] == [C] and g[B.op] == [A] and g[A.op] == []
    assert [op.name for op in te.schedule.PostDFSOrder([D.op], g)] == ["A", "B", "C", "D"]
    s = te.create_schedule(D.op)
    te.schedule.AutoInlineElemWise(s)
    kinds = {st.op.name: st.attach_type.name for st in s.stages}
    assert kinds["B"] == "Inline" and kinds["C"] == "Inline"   # D reads C transposed: C is
    # still elementwise itself (it reads B at its own axes); D is the output
    s2 = te.create_schedule(D.op)
    xo, xi = s2[D].split(D.op.axis[0], factor=4)
    s2[D].fuse(xo, xi)
    rels = s2[D].relations
    assert isinstance(rels[0], te.schedule.Split) and isinstance(rels[1], te.schedule.Fuse)
    s2[D].unroll(D.op.axis[1])
    assert s2[D].iter_var_attrs[D.op.axis[1]].iter_type == te.IterVar.Unrolled
    a = np.random.default_rng(3).random((16, 16), dtype="float32")
    d = np.empty_like(a)
    tepad.build(s, [A, D])(a, d)
    np.testing.assert_allclose(d, (a * 2.0 + 1.0).T * 3.0, rtol=1e-6)
