"""Expression construction: operators, constant folding, dtypes, TVM's `==` semantics."""
import numpy as np
import pytest

import tepad
from tepad import tir
from tepad.tir import (Add, Cast, EQ, FloatImm, FloorDiv, FloorMod, IntImm, IterVar, Max, Min,
                       Mul, NE, Range, Select, Sub, Var, const, structural_equal,
                       structural_hash)


# --- construction and folding ----------------------------------------------------------------

def test_python_operators_build_nodes():
    x, y = Var("x"), Var("y")
    e = (x + 1) * y - 3
    assert isinstance(e, Sub) and isinstance(e.a, Mul) and isinstance(e.a.a, Add)
    assert e.a.a.a is x and e.a.b is y
    assert isinstance(x // y, FloorDiv) and isinstance(x % y, FloorMod)
    assert isinstance(tir.min(x, y), Min) and isinstance(tir.max(x, y), Max)
    assert isinstance(2 - x, Sub) and e.a.a.b.value == 1


def test_constant_folding():
    assert isinstance(const(3) + 4, IntImm) and (const(3) + 4).value == 7
    assert (const(7) // 2).value == 3
    assert (const(-7) // 2).value == -4          # floor semantics
    assert (const(-7) % 2).value == 1
    assert tir.truncdiv(const(-7), 2).value == -3  # truncating
    assert tir.truncmod(const(-7), 2).value == -1
    assert tir.min(const(2), 5).value == 2 and tir.max(const(2), 5).value == 5
    assert (const(1.5) * 2.0).value == 3.0
    assert (-const(4)).value == -4


def test_identity_simplifications():
    x = Var("x")
    assert (x + 0) is x and (0 + x) is x and (x - 0) is x
    assert (x * 1) is x and (1 * x) is x
    assert isinstance(x * 0, IntImm) and (x * 0).value == 0
    assert (x // 1) is x
    assert (x % 1).value == 0
    f = Var("f", "float32")
    assert isinstance(f * 0.0, Mul)              # 0.0 * NaN is not 0: not folded


def test_division_by_constant_zero_raises():
    x = Var("x")
    with pytest.raises(tepad.TepadError):
        x // 0
    with pytest.raises(tepad.TepadError):
        x % 0


def test_overflowing_fold_is_not_folded():
    big = const(2**31 - 1)
    e = big + 1
    assert isinstance(e, Add)                   # would overflow int32: left as an Add


def test_true_division_on_ints_raises():
    x = Var("x")
    with pytest.raises(tepad.TepadError, match="//"):
        x / 2
    with pytest.raises(tepad.TepadError):
        2 / x
    f = Var("f", "float32")
    assert (f / 2.0).dtype == "float32"
    assert (const(3.0) / 2.0).value == 1.5


# --- dtypes ------------------------------------------------------------------------------------

def test_python_const_dtype():
    assert const(1).dtype == "int32"
    assert const(2**40).dtype == "int64"
    assert const(1.0).dtype == "float32"
    assert const(True).dtype == "bool"
    assert const(np.int64(3)).dtype == "int64"
    assert const(np.float64(3)).dtype == "float64"
    with pytest.raises(tepad.TepadError):
        IntImm(2**31, "int32")


def test_int_plus_python_float_promotes_to_float():
    x = Var("x")
    e = x + 1.5
    assert e.dtype == "float32"
    assert isinstance(e.a, Cast) and e.a.value is x
    assert isinstance(e.b, FloatImm) and e.b.value == 1.5


def test_python_int_takes_the_expression_dtype():
    x64 = Var("x", "int64")
    assert (x64 + 1).dtype == "int64"
    assert (x64 + 1).b.dtype == "int64"
    f16 = Var("h", "float16")
    assert (f16 * 2).dtype == "float16"


def test_int32_vs_int64_widens():
    x, y = Var("x", "int32"), Var("y", "int64")
    e = x + y
    assert e.dtype == "int64"
    assert isinstance(e.a, Cast) and e.a.dtype == "int64" and e.b is y
    assert (y * x).dtype == "int64"
    assert (x < y).dtype == "bool"


def test_float_widths():
    h, f = Var("h", "float16"), Var("f", "float32")
    assert (h + f).dtype == "float32"
    assert (Var("i") + f).dtype == "float32"


def test_binary_node_rejects_mismatched_dtypes():
    with pytest.raises(tepad.TepadError):
        Add(Var("x", "int32"), Var("y", "int64"))


def test_cast_folds_constants():
    assert tir.cast("float32", const(3)).value == 3.0
    assert tir.cast("int32", const(3.7)).value == 3
    x = Var("x")
    assert tir.cast("int32", x) is x
    assert isinstance(tir.cast("float32", x), Cast)


def test_logical_ops_need_bool():
    x = Var("x")
    c = (x < 3) & (x > 0)
    assert c.dtype == "bool"
    assert ((x < 3) | (x > 5)).dtype == "bool"
    assert (~(x < 3)).dtype == "bool"
    with pytest.raises(tepad.TepadError):
        x & (x < 3)
    assert tir.all().value == 1 and tir.any().value == 0
    assert tir.all(x < 3, True) is not None


def test_if_then_else_and_select():
    x = Var("x")
    e = tir.if_then_else(x < 0, 0, x)
    assert tir.is_call(e, "tir.if_then_else") and e.dtype == "int32"
    assert tir.if_then_else(const(True), x, 0) is x   # constant condition folds
    s = tir.select(x < 0, 1.0, 2.0)
    assert isinstance(s, Select) and s.dtype == "float32"
    with pytest.raises(tepad.TepadError):
        tir.if_then_else(x, 1, 2)


def test_math_calls_cast_ints_to_float():
    x = Var("x")
    e = tir.exp(x)
    assert e.dtype == "float32" and isinstance(e.args[0], Cast)
    assert tir.abs(Var("f", "float32")).op == "tir.fabs"
    assert isinstance(tir.abs(x), Select)
    assert tir.max_value("int8").value == 127 and tir.min_value("int32").value == -2**31
    assert tir.max_value("float32").value == float(np.finfo(np.float32).max)


def test_bool_of_expression_raises():
    x = Var("x")
    with pytest.raises(tepad.TepadError):
        if x < 3:
            pass


# --- == semantics ----------------------------------------------------------------------------

def test_eq_builds_condition_usable_in_if_then_else():
    x = Var("x")
    c = x == 0
    assert isinstance(c, EQ) and c.dtype == "bool"
    e = tir.if_then_else(c, 1.0, 2.0)
    assert e.args[0] is c
    assert isinstance(x != 0, NE)


def test_eq_bool_is_structural():
    x, y = Var("x"), Var("y")
    assert bool(x == x)
    assert not bool(x == Var("x"))                 # different vars, same name
    assert bool((x + 1) == (x + 1))
    assert not bool((x + 1) == (y + 1))
    assert bool((x + 1) != (x + 2))
    assert not bool((x + 1) != (x + 1))


def test_expr_in_list_and_dict_keys():
    x = Var("x")
    assert (x + 1) in [x + 2, x + 1]
    assert (x + 3) not in [x + 2, x + 1]
    d = {x * 2: "a", x + 1: "b"}
    assert d[x + 1] == "b" and d[x * 2] == "a"
    assert hash(x + 1) == hash(x + 1)


def test_constants_compare_and_convert():
    assert bool(const(3) == 3)
    assert (const(3) == 4).value == 0             # folded to a bool constant
    assert int(const(5)) == 5 and float(const(2.5)) == 2.5
    assert [10, 20, 30][const(1)] == 20           # __index__


def test_eq_with_unrelated_object_is_false():
    x = Var("x")
    assert (x == "x") is False
    assert x != None  # noqa: E711


# --- Var and IterVar ---------------------------------------------------------------------------

def test_var_identity():
    a, b = Var("i"), Var("i")
    assert a is not b
    assert hash(a) != hash(b)
    assert len({a, b}) == 2
    assert {a: 1}.get(b) is None
    assert a.dtype == "int32" and Var("n", "int64").dtype == "int64"


def test_itervar_arithmetic():
    i = IterVar((0, 10), "i")
    assert i.name == "i" and int(i.dom.extent) == 10 and i.dom.extent.value == 10
    e = i * 4 + 1
    assert isinstance(e, Add) and e.a.a is i.var
    assert (2 + i).b is i.var and (10 - i).b is i.var
    assert isinstance(i // 2, FloorDiv) and isinstance(i % 2, FloorMod)
    assert (i < 5).a is i.var
    assert structural_equal(-i, -i.var)


def test_itervar_identity_and_conditions():
    i, j = IterVar((0, 10), "i"), IterVar((0, 10), "i")
    assert i == i and i != j and not (i == j)
    assert len({i, j}) == 2
    assert i in [i] and i not in [j]
    # against expressions and numbers, == builds a condition (as TVM's IterVar does)
    c = i == 0
    assert isinstance(c, EQ) and c.a is i.var
    e = tir.if_then_else(i == 0, 1, 2)
    assert tir.is_call(e, "tir.if_then_else")
    assert isinstance(i != 3, NE)


def test_range():
    r = Range(2, 10)
    assert r.min.value == 2 and r.extent.value == 8
    assert Range(5).min.value == 0 and Range(5).extent.value == 5
    r2 = Range.from_min_extent(2, 8)
    assert r == r2 and hash(r) == hash(r2)
    n = Var("n")
    assert Range(0, n).extent is n


# --- structural equality and hashing -------------------------------------------------------------

def test_structural_equal_map_free_vars():
    x, y = Var("x"), Var("y")
    assert not structural_equal(x + 1, y + 1)
    assert structural_equal(x + 1, y + 1, map_free_vars=True)
    # the mapping must be consistent
    assert not structural_equal(x + x, x + y, map_free_vars=True)
    assert structural_equal(x * y + x, y * x + y, map_free_vars=True)
    # dtypes must agree
    assert not structural_equal(x, Var("z", "int64"), map_free_vars=True)
    assert not structural_equal(x + 1, x + 2)
    assert not structural_equal(x + 1, x - 1)


def test_structural_hash():
    x = Var("x")
    assert structural_hash(x + 1) == structural_hash(x + 1)
    assert structural_hash(x + 1) != structural_hash(x + 2)
    assert structural_hash(const(1)) != structural_hash(const(1, "int64"))


def test_assert_structural_equal_message():
    x = Var("x")
    with pytest.raises(AssertionError, match="left"):
        tir.assert_structural_equal(x + 1, x + 2)
    tir.assert_structural_equal(x + 1, Var("y") + 1)
