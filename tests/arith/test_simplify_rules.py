"""Simplifier rules with literal expected results (compared through the printed text)."""
import pytest

from tepad import tir
from tepad.arith import Analyzer, simplify

i, j, k, x, y, n = (tir.Var(s) for s in ("i", "j", "k", "x", "y", "n"))
io, ii = tir.Var("io"), tir.Var("ii")


def S(e, **ranges):
    ana = Analyzer()
    for name, (lo, hi) in ranges.items():
        ana.bind(globals()[name], tir.Range(lo, hi))
    return str(ana.simplify(e))


@pytest.mark.parametrize("expr, want", [
    (lambda: i * 4 + j - j + 2 * i, "i * 6"),
    (lambda: (i + 3) - 3, "i"),
    (lambda: 4 + i, "i + 4"),
    (lambda: io * 4 + 4 - 1, "io * 4 + 3"),
    (lambda: n - io * 4 - n, "0 - io * 4"),
    (lambda: -io * 4 + n, "n - io * 4"),
    (lambda: (i + 1) * 3 - 3, "i * 3"),
    (lambda: i * j - j * 1 * i, "0"),
    (lambda: j * i + i * j, "i * j * 2"),
    (lambda: (i * 2) * (j * 3), "i * j * 6"),
    (lambda: tir.const(3) * 4 + 2, "14"),
])
def test_linear_canonical_form(expr, want):
    assert S(expr()) == want


def test_divmod_with_bounds():
    assert S((i * 8 + j) // 8, j=(0, 8)) == "i"
    assert S((i * 8 + j) % 8, j=(0, 8)) == "j"
    assert S((io * 4 + ii) // 4, ii=(0, 4)) == "io"
    assert S((io * 4 + ii) % 4, ii=(0, 4)) == "ii"
    # without the bound on j only the divisible part moves out
    assert S((i * 8 + j) // 8) == "i + j // 8"
    assert S((i * 8 + j) % 8) == "j % 8"


@pytest.mark.parametrize("expr, want", [
    (lambda: (x + 12) // 4, "x // 4 + 3"),
    (lambda: (x + 4 * y) // 4, "y + x // 4"),
    (lambda: tir.floormod(x * 4, 4), "0"),
    (lambda: tir.floormod(x * 8 + 3, 4), "3"),
    (lambda: (x // 4) // 2, "x // 8"),
    (lambda: (x % 16) % 4, "x % 4"),
    (lambda: (x % 4) % 16, "x % 4"),
    (lambda: (x * 2) // 4, "x // 2"),
    (lambda: (x * 2 + 1) // 4, "x // 2"),
    (lambda: (x * 2) % 4, "x % 2 * 2"),
    (lambda: (x * 6 + 2) % 4, "(x * 6 + 2) % 4"),
    (lambda: (x // 16) * 16 + x % 16, "x"),
    (lambda: (x // 16) * 32 + (x % 16) * 2, "x * 2"),
    (lambda: tir.floordiv(tir.const(-7), 2), "-4"),
    (lambda: tir.floormod(tir.const(-7), 2), "1"),
    (lambda: tir.truncdiv(tir.const(-7), 2), "-3"),
    (lambda: tir.truncmod(tir.const(-7), 2), "-1"),
])
def test_divmod_rules(expr, want):
    assert S(expr()) == want


def test_trunc_div_nonneg_uses_floor_rules():
    assert S(tir.truncdiv(i * 8 + j, 8), i=(0, 10), j=(0, 8)) == "i"
    assert S(tir.truncmod(i * 8 + j, 8), i=(0, 10), j=(0, 8)) == "j"
    # sign unknown: stays truncating
    assert S(tir.truncdiv(x, 8)) == "T.truncdiv(x, 8)"


def test_symbolic_divisor():
    ana = Analyzer()
    ana.bind(k, tir.Range(0, n))
    assert str(ana.simplify(k // n)) == "0"
    assert str(ana.simplify(k % n)) == "k"
    assert str(ana.simplify(x // n)) == "x // n"


@pytest.mark.parametrize("expr, want, ranges", [
    (lambda: tir.min(x, x + 1), "x", {}),
    (lambda: tir.max(x, x + 1), "x + 1", {}),
    (lambda: tir.max(x * 4, x * 4 + 3), "x * 4 + 3", {}),
    (lambda: tir.min(n - io * 4, 4), "T.min(n - io * 4, 4)", {}),
    (lambda: tir.min(i, 16), "i", {"i": (0, 16)}),
    (lambda: tir.max(i, 16), "16", {"i": (0, 16)}),
    (lambda: tir.min(4, x), "T.min(x, 4)", {}),
    (lambda: tir.min(tir.min(x, 8), 4), "T.min(x, 4)", {}),
    (lambda: tir.max(tir.max(x, 2), 5), "T.max(x, 5)", {}),
    (lambda: tir.min(tir.min(x, y), x), "T.min(x, y)", {}),
    (lambda: tir.min(x, y), "T.min(x, y)", {}),
])
def test_min_max(expr, want, ranges):
    assert S(expr(), **ranges) == want


@pytest.mark.parametrize("expr, want", [
    (lambda: i < 16, "True"),
    (lambda: i < 15, "i < 15"),
    (lambda: i >= 0, "True"),
    (lambda: i > 15, "False"),
    (lambda: i == 20, "False"),
    (lambda: i != 20, "True"),
    (lambda: i * 4 + j < i * 4 + 8, "j < 8"),
    (lambda: tir.all(i < 16, j < 3), "j < 3"),
    (lambda: tir.any(i < 16, j < 3), "True"),
    (lambda: tir.all(j < 3, i >= 16), "False"),
    (lambda: ~(j < 3), "j >= 3"),
    (lambda: ~~(j < 3), "j < 3"),
    (lambda: tir.all(j < 3, j < 3), "j < 3"),
    (lambda: tir.all(j < 3, j >= 3), "False"),
    (lambda: tir.select(i < 16, j, k), "j"),
    (lambda: tir.select(i > 20, j, k), "k"),
    (lambda: tir.select(j < 3, k, k), "k"),
    (lambda: tir.if_then_else(i < 16, j, k), "j"),
    (lambda: tir.select(j < 3, tir.min(j, 5), j), "j"),
    (lambda: tir.if_then_else(j < 3, tir.select(j < 3, 1, 2), 0), "T.if_then_else(j < 3, 1, 0)"),
])
def test_conditions(expr, want):
    assert S(expr(), i=(0, 16)) == want


def test_cast_and_dtypes():
    a = tir.Var("a", "int64")
    assert str(simplify(tir.Cast("int64", tir.const(3)))) == "T.int64(3)"
    e = simplify(a * 2 + tir.const(4, "int64") - a)
    assert e.dtype == "int64" and str(e) == "a + T.int64(4)"
    c = simplify(tir.Cast("int32", tir.Cast("int64", i)))
    assert str(c) == "i"
    # narrowing then widening is not an identity
    c2 = simplify(tir.Cast("int64", tir.Cast("int32", a)))
    assert str(c2) == "T.Cast('int64', T.Cast('int32', a))"
    m = simplify(tir.Cast("int64", i) * 4 + tir.const(1, "int64"))
    assert m.dtype == "int64"


def test_floats_only_fold_constants():
    f = tir.Var("f", "float32")
    assert str(simplify(tir.const(1.5) * 2.0 + f)) == "T.float32(3.0) + f"
    e = (f + tir.const(1.0)) - tir.const(1.0)
    assert str(simplify(e)) == str(e)


def test_let_inlines_simple_values():
    v = tir.Var("v")
    assert str(simplify(tir.Let(v, tir.const(3), v + i - 3))) == "i"


def test_constraint_scope():
    ana = Analyzer()
    ana.bind(io, tir.Range(0, (n + 3) // 4))
    ana.bind(i, tir.Range(0, 4))
    assert not ana.can_prove(io * 4 + i < n)
    with ana.constraint_scope(i < n - 4 * io):
        assert ana.can_prove(io * 4 + i < n)
        assert str(ana.simplify(tir.min(n - io * 4, i + 1))) == "i + 1"
        assert ana.can_prove(i < n - 4 * io)
    assert not ana.can_prove(io * 4 + i < n)
    assert ana.can_prove(io * 4 < n)          # from io < ceil(n / 4)
    with ana.constraint_scope(x >= 5):
        assert ana.const_int_bound(x).min_value == 5
        assert ana.can_prove(x * 2 > 9)
    assert not ana.can_prove(x * 2 > 9)
    with ana.constraint_scope(tir.all(x < 10, x % 2 == 0)):
        assert ana.can_prove(x % 2 == 0)
        assert str(ana.simplify(tir.min(x, 9))) == "x"


def test_symbolic_loop_range_proofs():
    ana = Analyzer()
    ana.bind(k, tir.Range(0, n))
    assert ana.can_prove(k < n)
    assert ana.can_prove(k <= n - 1)
    assert not ana.can_prove(k < n - 1)
    assert str(ana.simplify(tir.min(k, n))) == "k"
    assert str(ana.simplify(tir.max(k + 1, n))) == "n"


def test_can_prove_equal_and_determinism():
    ana = Analyzer()
    assert ana.can_prove_equal(i * 4 + j, j + 2 * i + 2 * i)
    assert not ana.can_prove_equal(i * 4 + j, j + i * 3)
    e = ((i * 12 + j * 3 + 7) // 3 + (x % 16) % 8) * 2 - tir.min(i, i + 2)
    assert str(simplify(e)) == str(simplify(e)) == "i * 7 + j * 2 + x % 8 * 2 + 4"


def test_bind_expression_substitutes():
    ana = Analyzer()
    ana.bind(x, i * 4 + 1)
    assert str(ana.simplify(x - i * 4)) == "1"


def test_idempotent_on_examples():
    for e in [(i * 8 + j) // 8, tir.min(n - io * 4, 4), (x // 16) * 16 + x % 3,
              tir.select(x < y, x * 2, y + 1)]:
        once = simplify(e)
        assert tir.structural_equal(simplify(once), once)
