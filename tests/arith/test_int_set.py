"""IntSet evaluation, union/intersect, cover_range and constant bounds."""
from tepad import tir
from tepad.arith import (Analyzer, IntSet, ConstIntBound, eval_set, union, intersect,
                         POS_INF, NEG_INF)

i, j, x, n = (tir.Var(s) for s in ("i", "j", "x", "n"))
io, ii = tir.Var("io"), tir.Var("ii")


def R(lo, hi):
    return tir.Range(lo, hi)


def txt(s):
    return repr(s)


def test_split_relations():
    assert txt(eval_set(io * 4 + ii, {io: R(0, 4), ii: R(0, 4)})) == "IntSet[0, 15]"
    s = eval_set(io * 4 + ii, {ii: R(0, 4)})
    assert txt(s) == "IntSet[io * 4, io * 4 + 3]"
    assert not s.is_single_point()
    assert txt(eval_set((io * 4 + ii) // 4, {ii: R(0, 4)})) == "IntSet[io, io]"
    assert txt(eval_set((io * 4 + ii) % 4, {ii: R(0, 4)})) == "IntSet[0, 3]"


def test_points_stay_points():
    s = eval_set(i + 1, {})
    assert s.is_single_point() and str(s.point_value()) == "i + 1"
    s = eval_set(i * j, {})
    assert s.is_single_point()
    s = eval_set(tir.const(7), {})
    assert s.is_single_point() and s.point_value().value == 7


def test_arith_rules():
    d = {i: R(0, 8), j: R(2, 5)}
    cases = [
        (i + j, "IntSet[2, 11]"), (i - j, "IntSet[-4, 5]"), (i * 3, "IntSet[0, 21]"),
        (i * -2, "IntSet[-14, 0]"), (i * j, "IntSet[NEG_INF, POS_INF]"),
        (i // 2, "IntSet[0, 3]"), (i % 4, "IntSet[0, 3]"), (j % 8, "IntSet[2, 4]"),
        (tir.truncdiv(i, 3), "IntSet[0, 2]"), (tir.truncmod(i, 3), "IntSet[0, 2]"),
        (tir.min(i, j), "IntSet[0, 4]"), (tir.max(i, j), "IntSet[2, 7]"),
        (tir.select(x < 0, i, j + 10), "IntSet[0, 14]"),
        (tir.if_then_else(x < 0, i, j + 10), "IntSet[0, 14]"),
        (tir.Cast("int64", i), "IntSet[T.int64(0), T.int64(7)]"),
        (i * x, "IntSet[NEG_INF, POS_INF]"),
        ((i - 4) % 3, "IntSet[0, 2]"),
        (tir.truncmod(i - 4, 3), "IntSet[-2, 2]"),
    ]
    for e, want in cases:
        assert txt(eval_set(e, d)) == want, (e, eval_set(e, d))


def test_loads_are_everything():
    buf = tir.decl_buffer((16,), "int32", name="B")
    s = eval_set(tir.BufferLoad(buf, [i]), {i: R(0, 16)})
    assert s.is_everything()


def test_symbolic_multiplier_sign():
    ana = Analyzer()
    ana.bind(n, R(1, 100))
    s = ana.int_set(i * n, {i: R(0, 4)})
    assert txt(s) == "IntSet[0, n * 3]"


def test_infinite_endpoints():
    s = eval_set(x + 1, {x: IntSet.interval(0, POS_INF)})
    assert txt(s) == "IntSet[1, POS_INF]"
    assert s.has_lower_bound() and not s.has_upper_bound()
    s = eval_set(0 - x, {x: IntSet.interval(0, POS_INF)})
    assert s.min() is NEG_INF and str(s.max()) == "0"
    s = eval_set(x * -3, {x: IntSet.interval(NEG_INF, 2)})
    assert str(s.min()) == "-6" and s.max() is POS_INF
    assert eval_set(x // 4, {x: IntSet.everything()}).is_everything()
    assert txt(eval_set(x % 4, {x: IntSet.everything()})) == "IntSet[0, 3]"


def test_union_intersect():
    assert txt(union([IntSet.interval(0, 3), IntSet.interval(2, 5)])) == "IntSet[0, 5]"
    assert txt(union([IntSet.interval(x, x + 3), IntSet.interval(x + 1, x + 4)])) == \
        "IntSet[x, x + 4]"
    assert txt(union([IntSet.interval(x, x + 3), IntSet.interval(n, n + 1)])) == \
        "IntSet[T.min(x, n), T.max(x + 3, n + 1)]"
    assert txt(union([IntSet.nothing(), IntSet.single_point(i)])) == "IntSet[i, i]"
    assert union([IntSet.interval(0, 3), IntSet.everything()]).is_everything()
    assert union([]).is_nothing()
    assert txt(intersect([IntSet.interval(0, 10), IntSet.interval(5, 20)])) == "IntSet[5, 10]"
    assert intersect([IntSet.interval(0, 3), IntSet.interval(5, 20)]).is_nothing()
    assert txt(intersect([IntSet.interval(x, x + 8), IntSet.interval(x + 2, x + 20)])) == \
        "IntSet[x + 2, x + 8]"


def test_constructors_and_cover_range():
    s = IntSet.from_range(R(2, 10))
    assert txt(s) == "IntSet[2, 9]"
    r = s.cover_range(R(0, 100))
    assert str(r.min) == "2" and str(r.extent) == "8"
    s = IntSet.from_min_extent(io * 4, 4)
    assert txt(s) == "IntSet[io * 4, io * 4 + 3]"
    r = s.cover_range(R(0, 1))
    assert str(r.min) == "io * 4" and str(r.extent) == "4"
    p = IntSet.single_point(i)
    r = p.cover_range(R(0, 8))
    assert r.min is i and str(r.extent) == "1"
    full = R(0, n)
    assert IntSet.everything().cover_range(full) is full
    assert IntSet.interval(0, POS_INF).cover_range(full) is full
    assert IntSet.nothing().is_nothing() and not IntSet.nothing().has_lower_bound()
    assert IntSet.interval(5, 3).is_nothing()
    assert IntSet.everything().is_everything()
    s = IntSet.interval(tir.const(0, "int64"), 7)
    assert s.max().dtype == "int64"


def test_itervar_keys():
    iv = tir.IterVar(R(0, 4), "ii")
    s = eval_set(io * 4 + iv.var, {iv: iv.dom})
    assert txt(s) == "IntSet[io * 4, io * 4 + 3]"


def test_const_int_bound():
    ana = Analyzer()
    ana.bind(i, R(0, 16))
    ana.bind(j, R(-3, 4))
    cb = ana.const_int_bound
    assert cb(i * 4 + 3) == ConstIntBound(3, 63)
    assert cb(i - j) == ConstIntBound(-3, 18)
    assert cb(i * j) == ConstIntBound(-45, 45)
    assert cb(i // 4) == ConstIntBound(0, 3)
    assert cb(j // 2) == ConstIntBound(-2, 1)
    assert cb(x % 8) == ConstIntBound(0, 7)
    assert cb(i % 32) == ConstIntBound(0, 15)
    assert cb(tir.truncmod(j, 3)) == ConstIntBound(-2, 2)
    assert cb(tir.truncdiv(j, 2)) == ConstIntBound(-1, 1)
    assert cb(tir.min(i, j)) == ConstIntBound(-3, 3)
    assert cb(tir.max(i, 20)) == ConstIntBound(20, 20)
    assert cb(tir.select(x > 0, i, j)) == ConstIntBound(-3, 15)
    assert cb(tir.Cast("int64", i)) == ConstIntBound(0, 15)
    assert cb(tir.Cast("int8", i * 100)) == ConstIntBound(-128, 127)
    b = cb(x)
    assert b.min_value is NEG_INF and b.max_value is POS_INF
    b = cb(x + 1)
    assert b.min_value is NEG_INF and b.max_value is POS_INF
    b = cb(tir.SizeVar("m"))
    assert b.min_value == 0 and b.max_value is POS_INF
    big = tir.Var("big")
    ana.update(big, ConstIntBound(0, 2 ** 30))
    assert cb(big * 4).max_value is POS_INF        # overflows int32
    assert cb(big * 4).min_value == 0
    ana.update(big, ConstIntBound(10, 20))             # intersected
    assert cb(big) == ConstIntBound(10, 20)
    assert cb(x - x) == ConstIntBound(0, 0)          # through the simplifier
    assert 5 < POS_INF and NEG_INF < -10 ** 30 and not (POS_INF < 3)
