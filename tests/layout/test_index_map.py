"""IndexMap: shapes, padding predicates, inverses, injectivity (RFC 0039 / 0077 examples)."""
import itertools

import pytest

from tepad import tir
from tepad.errors import TepadError
from tepad.schedule import AXIS_SEPARATOR
from tepad.arith.index_map import IndexMap
from tepad.layout import _eval


def ints(xs):
    return [int(x) for x in xs]


def pad_points(m, shape):
    pred = m.padding_predicate(shape)
    fs = ints(m.map_shape(shape))
    fv = m.final_vars()
    out = []
    for pt in itertools.product(*[range(s) for s in fs]):
        if bool(_eval(pred, dict(zip(fv, pt)))):
            out.append(pt)
    return out


def test_split_14_by_4():
    m, seps = IndexMap.from_func(lambda i: [i // 4, i % 4], 1)
    assert seps == []
    assert str(m) == "lambda i: [i // 4, i % 4]"
    assert ints(m.map_shape([14])) == [4, 4]
    assert pad_points(m, [14]) == [(3, 2), (3, 3)]
    io, ii = m.final_vars()
    assert m.final_vars()[0] is io
    assert str(m.padding_predicate([14])) == "io == 3 and ii >= 2"
    inv = m.inverse([14])
    assert inv.initial_indices == [io, ii]
    assert str(inv.final_indices[0]) in ("io * 4 + ii", "ii + io * 4")
    assert m.is_injective([14])


def test_no_padding():
    m, _ = IndexMap.from_func(lambda i: [i // 8, i % 8], 1)
    assert ints(m.map_shape([16])) == [2, 8]
    assert pad_points(m, [16]) == []
    assert not m.has_padding([16])
    assert ints(m.map_shape([14])) == [2, 8]
    assert pad_points(m, [14]) == [(1, 6), (1, 7)]


def test_offset_padding():
    m, _ = IndexMap.from_func(lambda i: [(i + 2) // 8, (i + 2) % 8], 1)
    assert ints(m.map_shape([16])) == [3, 8]
    pts = pad_points(m, [16])
    assert pts == [(0, 0), (0, 1)] + [(2, k) for k in range(2, 8)]
    inv = m.inverse([16])
    a, b = m.final_vars()
    # the clean affine inverse 8*a + b - 2
    for x, y in [(0, 2), (1, 0), (2, 1)]:
        assert int(_eval(inv.final_indices[0], {a: x, b: y})) == 8 * x + y - 2
    assert "Select" not in str(inv)


def test_nhwc_to_nchwc():
    m, seps = IndexMap.from_func(lambda n, h, w, c: [n, c // 4, h, w, c % 4], 4)
    assert ints(m.map_shape([2, 3, 5, 6])) == [2, 2, 3, 5, 4]
    n, co, h, w, ci = m.final_vars()
    inv = m.inverse([2, 3, 5, 6])
    assert [str(x) for x in inv.final_indices[:3]] == ["n", "h", "w"]
    assert int(_eval(inv.final_indices[3], {co: 1, ci: 1})) == 5
    assert len(pad_points(m, [2, 3, 5, 6])) == 2 * 3 * 5 * 2
    assert ints(m.map_shape([1, 2, 2, 8])) == [1, 2, 2, 2, 4]
    assert pad_points(m, [1, 2, 2, 8]) == []


def test_symbolic_nchwc():
    N, C = tir.Var("N"), tir.Var("C")
    m, _ = IndexMap.from_func(lambda n, h, w, c: [n, c // 4, h, w, c % 4], 4)
    shape = m.map_shape([N, 3, 3, C])
    assert str(shape[0]) == "N"
    assert int(_eval(shape[1], {C: 6})) == 2
    pred = m.padding_predicate([N, 3, 3, C])
    n, co, h, w, ci = m.final_vars()
    assert bool(_eval(pred, {C: 6, co: 1, ci: 2}))
    assert not bool(_eval(pred, {C: 6, co: 1, ci: 1}))
    inv = m.inverse([N, 3, 3, C])
    assert int(_eval(inv.final_indices[3], {co: 2, ci: 3})) == 11


def test_axis_separators_texture():
    m, seps = IndexMap.from_func(lambda n, h, w, c: [n, c // 4, h, AXIS_SEPARATOR, w, c % 4], 4)
    assert seps == [3]
    assert m.ndim_out == 5
    assert ints(m.map_shape([16, 64, 64, 128])) == [16, 32, 64, 64, 4]
    m2, seps2 = IndexMap.from_func(lambda a, b, c, d: [a, AXIS_SEPARATOR, b, c,
                                                        AXIS_SEPARATOR, d], 4)
    assert seps2 == [1, 3]


def test_varargs_and_kwonly():
    m, _ = IndexMap.from_func(lambda *idx, c: [*idx, c // 4, c % 4], 3)
    assert m.ndim_in == 3 and m.ndim_out == 4
    assert m.initial_indices[-1].name == "c"
    assert ints(m.map_shape([2, 3, 8])) == [2, 3, 2, 4]
    m1, _ = IndexMap.from_func(lambda i: i + 1, 1)
    assert m1.ndim_out == 1 and ints(m1.map_shape([4])) == [5]
    with pytest.raises(TepadError):
        IndexMap.from_func(lambda i, j: [i, j], 3)


def test_non_injective_rejected():
    m, _ = IndexMap.from_func(lambda i, j: [i + j], 2)
    assert not m.is_injective([4, 4])
    with pytest.raises(TepadError, match="not injective"):
        m.inverse([4, 4])
    m2, _ = IndexMap.from_func(lambda i: [i % 2], 1)
    assert not m2.is_injective([4])


def test_map_indices_and_ranges():
    m, _ = IndexMap.from_func(lambda i: [i // 4, i % 4], 1)
    io, ii = tir.Var("io"), tir.Var("ii")
    from tepad.arith import Analyzer
    ana = Analyzer()
    ana.bind(ii, tir.Range(0, 4))
    assert [str(x) for x in m.map_indices([io * 4 + ii], ana)] == ["io", "ii"]
    r = m.map_ranges([tir.Range(4, 12)])
    assert [(int(x.min), int(x.extent)) for x in r] == [(1, 2), (0, 4)]


def test_three_level_split():
    m, _ = IndexMap.from_func(lambda i: [i // 32, (i // 4) % 8, i % 4], 1)
    assert ints(m.map_shape([116])) == [4, 8, 4]
    pts = pad_points(m, [116])
    assert len(pts) == 128 - 116 and all(p[0] == 3 for p in pts)
    inv = m.inverse([116])
    a, b, c = m.final_vars()
    assert int(_eval(inv.final_indices[0], {a: 3, b: 4, c: 3})) == 115
