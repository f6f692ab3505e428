"""remove_overcompute_through_branching alone: skip computing padding cells that a later
padding nest overwrites."""
import numpy as np

import tepad
from tepad import tir
from tepad.lower.passes import remove_overcompute_through_branching as rotb
from tepad.tir import stmt as S

from lower_helpers import func, loops, nodes, rand

F0 = tir.const(0.0)


def overcompute(between=None, also_write_c=False):
    """B (4, 4) holds A (14,) * 2 in [i // 4, i % 4]; the compute covers the whole box (reading
    A clamped), then the padding nest writes 0 to B[3, 2:4]."""
    A = tir.decl_buffer((14,), "float32", "A")
    B = tir.decl_buffer((4, 4), "float32", "B")
    C = tir.decl_buffer((16,), "float32", "C")
    io, ii, po, pi = (tir.Var(n) for n in ("io", "ii", "po", "pi"))
    st = tir.BufferStore(B, A[tir.min(io * 4 + ii, 13)] * 2.0, [io, ii])
    if also_write_c:
        st = tir.seq(st, tir.BufferStore(C, F0, [io * 4 + ii]))
    comp = loops([(io, 4), (ii, 4)], st)
    pad = loops([(po, 4), (pi, 4)], tir.IfThenElse(tir.all(po == 3, pi >= 2),
                                                   tir.BufferStore(B, F0, [po, pi])))
    parts = [comp] + ([between(B, C)] if between else []) + [pad]
    return func([A, B, C], tir.seq(*parts))


def run(f):
    a = rand((14,))
    b = np.full((4, 4), 9.0, "float32")
    c = np.zeros(16, "float32")
    tepad.build(f)(a, b, c)
    return a, b, c


def test_compute_gets_the_negated_padding_guard():
    f = overcompute()
    assert len(nodes(f, S.IfThenElse)) == 1
    g = rotb(f)
    comp = g.body.seq[0]
    guard = comp.body.body
    assert isinstance(guard, S.IfThenElse)
    assert str(guard.condition) == "io != 3 or ii < 2"
    assert tir.structural_equal(g.body.seq[1], f.body.seq[1])      # padding nest unchanged
    a, b, _ = run(g)
    ref = np.zeros(16, "float32")
    ref[:14] = a * 2.0
    np.testing.assert_allclose(b.reshape(-1), ref, rtol=1e-6)
    np.testing.assert_array_equal(run(f)[1].reshape(-1)[14:], [0.0, 0.0])


def test_compute_writing_another_buffer_is_left_alone():
    f = overcompute(also_write_c=True)
    assert rotb(f) is f


def test_a_read_of_the_buffer_in_between_blocks_it():
    i = tir.Var("i")
    f = overcompute(between=lambda B, C: loops([(i, 4)], tir.BufferStore(C, B[3, i], [i])))
    assert rotb(f) is f


def test_nothing_to_do_returns_same_object():
    A = tir.decl_buffer((8,), "float32", "A")
    i = tir.Var("i")
    f = func([A], loops([(i, 8)], tir.BufferStore(A, A[i] * 2.0, [i])))
    assert rotb(f) is f
