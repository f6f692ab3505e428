"""schedule_ops alone: the TE-level loop nest of a normalized schedule and its bound map."""
import pytest

from tepad import te, tir
from tepad.bound import infer_bound
from tepad.errors import TepadError
from tepad.lower import schedule_ops
from tepad.tir import stmt as S
from tepad.tir.stmt import ForKind

from lower_helpers import nodes


def ops(s):
    s2 = s.copy().normalize()
    return schedule_ops(s2, infer_bound(s2))


def loop_list(stmt):
    """(name, extent, kind) of every For, outermost first (marker-free nest)."""
    out = []
    tir.post_order_visit(stmt, lambda n: out.append(n) if isinstance(n, S.For) else None)
    return [(l.loop_var.name, int(l.extent), l.kind) for l in reversed(out)]


def pair():
    A = te.placeholder((8, 6), "float32", name="A")
    B = te.compute((8, 6), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((8, 6), lambda i, j: B[i, j] + 1.0, name="C")
    return A, B, C, te.create_schedule(C.op)


def test_one_nest_per_stage_with_leaf_loops_and_realizes():
    A, B, C, s = pair()
    st = ops(s)
    assert not nodes(st, S.BufferStore) and not nodes(st, tir.BufferLoad)   # TE level
    stores = nodes(st, S.ProducerStore)
    assert sorted(x.producer.op.name for x in stores) == ["B", "C"]
    realized = sorted(r.producer.op.name for r in nodes(st, S.ProducerRealize))
    assert realized == ["B", "C"]
    assert sorted(e for _, e, _ in loop_list(st)) == [6, 6, 8, 8]


def test_split_reorder_and_annotations_become_loop_kinds():
    A = te.placeholder((8, 16), "float32", name="A")
    B = te.compute((8, 16), lambda i, j: A[i, j] + 1.0, name="B")
    s = te.create_schedule(B.op)
    jo, ji = s[B].split(B.op.axis[1], factor=4)
    s[B].reorder(jo, B.op.axis[0], ji)
    s[B].parallel(jo)
    s[B].vectorize(ji)
    st = ops(s)
    got = loop_list(st)
    assert [(e, k) for _, e, k in got] == [(4, ForKind.PARALLEL), (8, ForKind.SERIAL),
                                          (4, ForKind.VECTORIZED)]
    assert not nodes(st, S.IfThenElse)               # 4 divides 16: no guard


def test_non_dividing_split_gets_a_likely_guard():
    A = te.placeholder((10,), "float32", name="A")
    B = te.compute((10,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    s[B].split(B.op.axis[0], factor=4)
    st = ops(s)
    assert [e for _, e, _ in loop_list(st)] == [3, 4]
    (g,) = nodes(st, S.IfThenElse)
    assert "likely" in str(g.condition) and "< 10" in str(g.condition)


def test_compute_at_injects_the_producer_inside_the_consumer_loop():
    A, B, C, s = pair()
    s[B].compute_at(s[C], C.op.axis[0])
    st = ops(s)
    (rb,) = [r for r in nodes(st, S.ProducerRealize) if r.producer.op.name == "B"]
    assert [int(b.extent) for b in rb.bounds] == [1, 6]
    outer = [l for l in nodes(st, S.For) if rb in nodes(l, S.ProducerRealize)]
    assert len(outer) == 1 and int(outer[0].extent) == 8


def test_unnormalized_inline_is_refused():
    A, B, C, s = pair()
    s[B].compute_inline()
    with pytest.raises(TepadError, match="normalize"):
        schedule_ops(s, infer_bound(s.copy().normalize()))
