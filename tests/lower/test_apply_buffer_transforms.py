"""apply_buffer_transforms alone, on what to_primfunc hands it (schedule_to_primfunc)."""
import numpy as np

import tepad
from tepad import te, tir
from tepad.layout import to_physical
from tepad.lower.passes import apply_buffer_transforms
from tepad.lower.pipeline import schedule_to_primfunc
from tepad.tir import stmt as S

from lower_helpers import accesses, calls, fors, nodes, rand

MAP = lambda i: [i // 4, i % 4]      # noqa: E731   (14,) -> (4, 4): cells 14, 15 are padding


def double(pad_a="none", pad_b="none"):
    A = te.placeholder((14,), "float32", name="A")
    B = te.compute((14,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    if pad_a != "none":
        s[A].transform_layout(MAP, pad_value=pad_a)
    if pad_b != "none":
        s[B].transform_layout(MAP, pad_value=pad_b)
    return schedule_to_primfunc(s, [A, B])


def test_accesses_and_declarations_become_physical():
    f = double(pad_a=None, pad_b=None)
    assert "layout_transform_map" in f.attrs
    g = apply_buffer_transforms(f)
    for b in g.buffer_map.values():
        assert [int(x) for x in b.shape] == [4, 4]
    assert all(len(a.indices) == 2 for a in accesses(g))
    assert not any(k.startswith("layout_") for k in g.attrs)
    lay = {p.name: v for p, v in g.attrs["arg_layouts"].items()}
    assert [int(x) for x in lay["A"]["logical_shape"]] == [14]
    # pad None: nothing written to the padding, nothing assumed
    assert not calls(g, "tir.assume") and len(nodes(g, S.BufferStore)) == 1


def test_output_padding_is_written_after_the_compute():
    g = apply_buffer_transforms(double(pad_b=0.0))
    comp, pad = g.body.seq
    (ps,) = nodes(pad, S.BufferStore)
    assert float(ps.value.value) == 0.0
    (guard,) = nodes(pad, S.IfThenElse)
    # the guard is exactly the padding predicate: true on 2 of the 16 cells
    lv = [l.loop_var for l in fors(pad)][::-1]
    ana = tepad.arith.Analyzer()
    hits = [(o, i) for o in range(4) for i in range(4)
            if int(ana.simplify(tir.substitute(guard.condition,
                                               {lv[0]: tir.const(o), lv[1]: tir.const(i)})))]
    assert hits == [(3, 2), (3, 3)]
    a = rand((14,))
    b = np.full((4, 4), 5.0, "float32")
    tepad.build(g)(a, b)
    ref = np.zeros(16, "float32")
    ref[:14] = a * 2.0
    np.testing.assert_allclose(b.reshape(-1), ref, rtol=1e-6)


def test_input_padding_becomes_an_assume_nest():
    g = apply_buffer_transforms(double(pad_a=0.0))
    first = g.body.seq[0]
    assert [int(l.extent) for l in fors(first)][::-1] == [4, 4]
    (asm,) = calls(g, "tir.assume")
    assert "A[" in str(asm.args[0]) and "0.0" in str(asm.args[0])
    assert not [s for s in nodes(g, S.BufferStore) if s.buffer.name == "A"]


def test_undef_pad_value_stores_undef():
    g = apply_buffer_transforms(double(pad_b=tir.undef("float32")))
    assert len(calls(g, "tir.undef")) == 1


def test_axis_separators_recorded_on_the_new_buffer():
    A = te.placeholder((4, 8), "float32", name="A")
    B = te.compute((4, 8), lambda i, j: A[i, j] + 1.0, name="B")
    s = te.create_schedule(B.op)
    s[B].transform_layout(lambda i, j: [j // 4, i, te.AXIS_SEPARATOR, j % 4])
    g = apply_buffer_transforms(schedule_to_primfunc(s, [A, B]))
    bb = [b for b in g.buffer_map.values() if b.name == "B"][0]
    assert bb.axis_separators == (2,) and [int(x) for x in bb.shape] == [2, 4, 4]


def test_second_run_and_untransformed_function_are_unchanged():
    g = apply_buffer_transforms(double(pad_b=0.0))
    assert apply_buffer_transforms(g) is g
    f = double()
    assert apply_buffer_transforms(f) is f


def test_input_numerics_with_physical_array():
    g = apply_buffer_transforms(double(pad_a=0.0))
    from tepad.lower.passes import remove_assume
    a = rand((14,))
    b = np.zeros(14, "float32")
    tepad.build(remove_assume(g))(to_physical(a, MAP, 0.0), b)
    np.testing.assert_allclose(b, a * 2.0, rtol=1e-6)
