"""The worked examples of TVM's "InferBound Pass" write-up (developer docs), Ex.1 - Ex.5 and beyond."""
import pytest

from tepad import te, tir
from tepad.bound import attach_paths, infer_bound
from tepad.lower.schedule_ops import schedule_ops


def ext(bmap, iv):
    return int(bmap[iv].extent)


def c_and_d(shape_d=(5, 16), fd=None):
    C = te.compute((5, 16), lambda i, j: te.const(5, "int32"), name="C")
    if fd is None:
        D = te.compute(shape_d, lambda i, j: C[i, j] * 2, name="D")
    else:
        D = te.compute(shape_d, fd(C), name="D")
    return C, D


def test_ex1_no_attach_needs_everything():
    C, D = c_and_d()
    s = te.create_schedule(D.op)
    b = infer_bound(s)
    assert [ext(b, iv) for iv in C.op.axis] == [5, 16]
    assert attach_paths(s)[C.op] == []


def test_ex2_compute_at_inner_axis_needs_one_element():
    C, D = c_and_d()
    s = te.create_schedule(D.op)
    s[C].compute_at(s[D], D.op.axis[1])
    b = infer_bound(s)
    assert [ext(b, iv) for iv in C.op.axis] == [1, 1]
    assert tir.structural_equal(b[C.op.axis[0]].min, D.op.axis[0].var)
    assert tir.structural_equal(b[C.op.axis[1]].min, D.op.axis[1].var)
    assert attach_paths(s)[C.op] == [D.op.axis[1], D.op.axis[0]]


def test_ex3_compute_at_outer_axis_needs_a_row():
    C, D = c_and_d()
    s = te.create_schedule(D.op)
    s[C].compute_at(s[D], D.op.axis[0])
    b = infer_bound(s)
    assert [ext(b, iv) for iv in C.op.axis] == [1, 16]
    assert attach_paths(s)[C.op] == [D.op.axis[0]]


def _find(stmt, cls, pred=lambda n: True):
    out = []
    tir.post_order_visit(stmt, lambda n: out.append(n) if isinstance(n, cls) and pred(n)
                         else None)
    return out


def test_ex4_attach_path_includes_unused_loop_and_realize_region():
    C = te.compute((5, 16), lambda i, j: te.const(5, "int32"), name="C")
    D = te.compute((4, 5, 16), lambda di, dj, dk: C[dj, dk] * 2, name="D")
    s = te.create_schedule(D.op)
    s[C].compute_at(s[D], D.op.axis[2])
    di, dj, dk = D.op.axis
    assert attach_paths(s)[C.op] == [dk, dj, di]
    b = infer_bound(s)
    stmt = schedule_ops(s, b)
    realize_c = _find(stmt, tir.ProducerRealize, lambda n: n.producer.op is C.op)
    assert len(realize_c) == 1
    (rj, rk) = realize_c[0].bounds
    assert tir.structural_equal(rj.min, dj.var) and int(rj.extent) == 1
    assert tir.structural_equal(rk.min, dk.var) and int(rk.extent) == 1
    realize_d = _find(stmt, tir.ProducerRealize, lambda n: n.producer.op is D.op)[0]
    assert [(int(r.min), int(r.extent)) for r in realize_d.bounds] == [(0, 4), (0, 5), (0, 16)]
    # C's realize sits inside D's innermost loop (dk)
    loops = _find(stmt, tir.For, lambda n: n.loop_var is dk.var)
    assert _find(loops[0].body, tir.ProducerRealize, lambda n: n.producer.op is C.op)


def test_ex5_compute_at_after_split():
    C, D = c_and_d()
    s = te.create_schedule(D.op)
    d_o, d_i = s[D].split(D.op.axis[1], factor=8)
    s[C].compute_at(s[D], d_i)
    assert attach_paths(s)[C.op] == [d_i, d_o, D.op.axis[0]]
    b = infer_bound(s)
    assert [ext(b, iv) for iv in C.op.axis] == [1, 1]
    assert ext(b, d_o) == 2 and ext(b, d_i) == 8
    assert tir.structural_equal(b[C.op.axis[1]].min, d_o.var * 8 + d_i.var)


def test_chained_attach_paths():
    C = te.compute((5, 16), lambda i, j: te.const(5, "int32"), name="C")
    D = te.compute((5, 16), lambda di, dj: C[di, dj] * 2, name="D")
    E = te.compute((5, 16), lambda ei, ej: D[ei, ej] * 4, name="E")
    s = te.create_schedule(E.op)
    s[C].compute_at(s[D], D.op.axis[1])
    s[D].compute_at(s[E], E.op.axis[1])
    di, dj = D.op.axis
    ei, ej = E.op.axis
    paths = attach_paths(s)
    assert paths[C.op] == [dj, di, ej, ei]
    assert paths[D.op] == [ej, ei]
    b = infer_bound(s)
    assert [ext(b, iv) for iv in D.op.axis] == [1, 1]
    assert [ext(b, iv) for iv in C.op.axis] == [1, 1]


def test_relax_over_consumer_attach_path():
    """C at root, D attached in E: C must cover all of D's iterations over E's loops."""
    C = te.compute((5, 16), lambda i, j: te.const(5, "int32"), name="C")
    D = te.compute((5, 16), lambda di, dj: C[di, dj] * 2, name="D")
    E = te.compute((5, 16), lambda ei, ej: D[ei, ej] + 4, name="E")
    s = te.create_schedule(E.op)
    s[D].compute_at(s[E], E.op.axis[1])
    b = infer_bound(s)
    assert [ext(b, iv) for iv in C.op.axis] == [5, 16]
    assert [int(b[iv].min) for iv in C.op.axis] == [0, 0]


def test_gather_bound_unions_per_dimension():
    """Two consumers need T[0:2, 0:2] and T[2:4, 2:4]: interval mode computes T[0:4, 0:4]."""
    A = te.placeholder((4, 4), name="A")
    T = te.compute((4, 4), lambda i, j: A[i, j] + 1, name="T")
    P = te.compute((2, 2), lambda i, j: T[i, j], name="P")
    Q = te.compute((2, 2), lambda i, j: T[i + 2, j + 2], name="Q")
    R = te.compute((2, 2), lambda i, j: P[i, j] + Q[i, j], name="R")
    s = te.create_schedule(R.op)
    b = infer_bound(s)
    assert [(int(b[iv].min), ext(b, iv)) for iv in T.op.axis] == [(0, 4), (0, 4)]


def test_non_divisible_split_extents_and_guard():
    A = te.placeholder((10,), name="A")
    B = te.compute((10,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=4)
    b = infer_bound(s)
    assert ext(b, xo) == 3 and ext(b, xi) == 4
    stmt = schedule_ops(s.copy().normalize(), infer_bound(s.copy().normalize()))
    ifs = _find(stmt, tir.IfThenElse)
    assert len(ifs) == 1
    assert "< 10" in str(ifs[0].condition)


def test_divisible_split_has_no_guard():
    A = te.placeholder((16,), name="A")
    B = te.compute((16,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    s[B].split(B.op.axis[0], factor=4)
    s = s.normalize()
    stmt = schedule_ops(s, infer_bound(s))
    assert _find(stmt, tir.IfThenElse) == []


def test_split_factor_larger_than_extent_is_tightened():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=32)
    b = infer_bound(s)
    assert ext(b, xi) == 8 and ext(b, xo) == 1


def test_fuse_then_split_bounds():
    A = te.placeholder((4, 8), name="A")
    B = te.compute((4, 8), lambda i, j: A[i, j] + 1.0, name="B")
    s = te.create_schedule(B.op)
    f = s[B].fuse(*B.op.axis)
    fo, fi = s[B].split(f, factor=8)
    b = infer_bound(s)
    assert ext(b, f) == 32 and ext(b, fo) == 4 and ext(b, fi) == 8


def test_stencil_compute_at_region():
    """conv1d-like B[i] = A[i] + A[i+1] + A[i+2] with A computed at B's axis: 3 elements."""
    X = te.placeholder((18,), name="X")
    A = te.compute((18,), lambda i: X[i] * 2.0, name="A")
    B = te.compute((16,), lambda i: A[i] + A[i + 1] + A[i + 2], name="B")
    s = te.create_schedule(B.op)
    s[A].compute_at(s[B], B.op.axis[0])
    b = infer_bound(s)
    assert ext(b, A.op.axis[0]) == 3


def test_te_schedule_inferbound_alias_returns_dict():
    C, D = c_and_d()
    s = te.create_schedule(D.op)
    b = te.schedule.InferBound(s)
    assert isinstance(b, dict)
    assert all(isinstance(v, tir.Range) for v in b.values())
