"""to_primfunc alone: TE-level statement -> PrimFunc over Buffers."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.bound import infer_bound
from tepad.errors import TepadError
from tepad.lower.schedule_ops import schedule_ops
from tepad.lower.to_primfunc import to_primfunc
from tepad.tir import stmt as S

from lower_helpers import nodes, rand


def pair(layout=False):
    A = te.placeholder((8, 6), "float32", name="A")
    B = te.compute((8, 6), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((8, 6), lambda i, j: B[i, j] + 1.0, name="C")
    s = te.create_schedule(C.op).normalize()
    return A, B, C, s, schedule_ops(s, infer_bound(s))


def test_params_buffers_and_realizes():
    A, B, C, s, st = pair()
    f = to_primfunc(st, [A, C], ["A", "C"], name="kern")
    assert f.name == "kern"
    assert [p.name for p in f.params] == ["A", "C"]
    bufs = [f.buffer_map[p] for p in f.params]
    assert [b.name for b in bufs] == ["A", "C"]
    assert all([int(x) for x in b.shape] == [8, 6] for b in bufs)
    # no TE-level node is left
    for cls in (S.ProducerStore, S.ProducerRealize, tir.ProducerLoad):
        assert not nodes(f, cls)
    # the argument C is not realized (the caller owns it), the intermediate B is
    assert [r.buffer.name for r in nodes(f, S.BufferRealize)] == ["B"]
    # every access of an argument uses the very Buffer of buffer_map
    for acc in nodes(f, S.BufferStore) + nodes(f, tir.BufferLoad):
        if acc.buffer.name in ("A", "C"):
            assert acc.buffer in bufs


def test_result_builds_and_computes():
    A, B, C, s, st = pair()
    f = to_primfunc(st, [A, C], ["A", "C"])
    a = rand((8, 6))
    c = np.zeros((8, 6), "float32")
    tepad.build(tepad.lower.pipeline.run_passes(f))(a, c)
    np.testing.assert_allclose(c, a * 2.0 + 1.0, rtol=1e-6)


def test_layouts_become_attributes_for_apply_buffer_transforms():
    A, B, C, s, st = pair()
    maps = ["map-sentinel"]
    f = to_primfunc(st, [A, C], ["A", "C"], layouts={C: (maps, [1], 0.0)})
    (cbuf,) = [b for b in f.buffer_map.values() if b.name == "C"]
    assert f.attrs["layout_transform_map"] == {cbuf: maps}
    assert f.attrs["layout_axis_separators"] == {cbuf: [1]}
    assert f.attrs["layout_pad_value"] == {cbuf: 0.0}
    g = to_primfunc(st, [A, C], ["A", "C"])
    assert "layout_transform_map" not in g.attrs


def test_duplicate_names_are_made_unique():
    A, B, C, s, st = pair()
    f = to_primfunc(st, [A, C], ["X", "X"])
    assert [f.buffer_map[p].name for p in f.params] == ["X", "X_1"]


def test_errors():
    A, B, C, s, st = pair()
    with pytest.raises(TepadError, match="twice"):
        to_primfunc(st, [A, A, C], ["A", "A2", "C"])
    with pytest.raises(TepadError, match="tensor A is read"):   # A neither realized nor passed
        to_primfunc(st, [C], ["C"])
    # an output left out of the arguments just becomes an internal realize
    f = to_primfunc(st, [A], ["A"])
    assert sorted(r.buffer.name for r in nodes(f, S.BufferRealize)) == ["B", "C"]
