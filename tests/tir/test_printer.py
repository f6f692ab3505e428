"""The TVMScript-like printer: exact text for small functions, unique naming."""
from tepad import tir
from tepad.tir import (Allocate, AttrStmt, BufferStore, Evaluate, For, ForKind, IfThenElse,
                       LetStmt, PrimFunc, Var, decl_buffer, seq)


def _scale_func():
    n = Var("n")
    A = decl_buffer((n, 4), "float32", "A")
    B = decl_buffer((n, 4), "float32", "B")
    i, j = Var("i"), Var("j")
    body = For(i, 0, n, ForKind.SERIAL,
               For(j, 0, 4, ForKind.VECTORIZED,
                   BufferStore(B, A[i, j] * 2.0 + 1.0, [i, j])))
    return PrimFunc([A.data, B.data, n], body, {A.data: A, B.data: B},
                    {"global_symbol": "scale"})


def test_small_primfunc_exact_text():
    assert str(_scale_func()) == (
        "@T.prim_func\n"
        "def scale(A: T.Buffer((n, 4), 'float32'), B: T.Buffer((n, 4), 'float32'), "
        "n: T.int32):\n"
        "    for i in range(n):\n"
        "        for j in T.vectorized(4):\n"
        "            B[i, j] = A[i, j] * T.float32(2.0) + T.float32(1.0)")
    f = _scale_func()
    assert f.script() == str(f) == repr(f)


def test_primfunc_with_attrs_if_let_and_allocate():
    n = Var("n")
    A = decl_buffer((n,), "int32", "A")
    tmp = Var("tmp", "handle")
    T_ = decl_buffer((8,), "int32", "tmp", data=tmp)
    i, x = Var("i"), Var("x")
    body = Allocate(tmp, "int32", [8], True, For(
        i, 1, n - 2, ForKind.PARALLEL,
        LetStmt(x, i * 2, IfThenElse(
            x < 8,
            BufferStore(T_, A[i] // 2, [x]),
            BufferStore(A, tir.truncdiv(A[i - 1], 3) + T_[0], [i])))),
        annotations={"scope": "local"})
    f = PrimFunc([A.data, n], body, {A.data: A}, {"global_symbol": "k", "tir.noalias": True})
    assert f.script() == (
        "@T.prim_func\n"
        "def k(A: T.Buffer((n,), 'int32'), n: T.int32):\n"
        "    T.func_attr({'tir.noalias': True})\n"
        "    tmp = T.allocate([8], 'int32', 'local')\n"
        "    for i in T.parallel(1, 1 + (n - 2)):\n"
        "        x: T.int32 = i * 2\n"
        "        if x < 8:\n"
        "            tmp[x] = A[i] // 2\n"
        "        else:\n"
        "            A[i] = T.truncdiv(A[i - 1], 3) + tmp[0]")


def test_unique_names_for_distinct_vars_with_one_name():
    B = decl_buffer((4, 2), "float32", "B")
    i1, i2 = Var("i"), Var("i")
    s = seq(For(i1, 0, 4, "serial", BufferStore(B, 0.0, [i1, 0])),
            For(i2, 0, 4, "serial", BufferStore(B, tir.Cast("float32", i2), [i2, 1])))
    assert s.script() == (
        "for i in range(4):\n"
        "    B[i, 0] = T.float32(0.0)\n"
        "for i_1 in range(4):\n"
        "    B[i_1, 1] = T.Cast('float32', i_1)")


def test_unique_names_avoid_existing_suffixes():
    a, b, c = Var("i"), Var("i_1"), Var("i")
    text = tir.to_script(tir.Evaluate(a + b + c))
    assert text == "T.evaluate(i + i_1 + i_2)"


def test_flattened_buffer_prints_under_its_storage_name():
    n = Var("n")
    A = decl_buffer((n, 4), "float32", "A")
    Af = A.get_flattened_buffer()
    i = Var("i")
    f = PrimFunc([A.data, n], For(i, 0, n * 4, "serial",
                                  BufferStore(Af, Af[i] + 1.0, [i])), {A.data: A})
    assert f.script().splitlines()[-1] == "        A[i] = A[i] + T.float32(1.0)"


def test_expression_precedence_and_forms():
    x, y = Var("x"), Var("y")
    p = tir.to_script
    assert p((x + y) * 2) == "(x + y) * 2"
    assert p(x - (y - 1)) == "x - (y - 1)"
    assert p(x - y - 1) == "x - y - 1"
    assert p((x + 1) // (y % 3)) == "(x + 1) // (y % 3)"
    assert p(tir.min(x, y) + tir.max(x, 0)) == "T.min(x, y) + T.max(x, 0)"
    assert p((x < 3) & ((y > 1) | (x == y))) == "x < 3 and (y > 1 or x == y)"
    assert p(~(x < 3)) == "not x < 3"
    assert p(tir.const(2, "int64")) == "T.int64(2)"
    assert p(tir.const(True)) == "True"
    assert p(tir.if_then_else(x == 0, 1.0, 2.0)) == \
        "T.if_then_else(x == 0, T.float32(1.0), T.float32(2.0))"
    assert p(tir.Select(x < y, x, y)) == "T.Select(x < y, x, y)"
    assert p(tir.exp(tir.Var("f", "float32"))) == "T.exp(f)"
    assert p(tir.undef("float32")) == "T.undef('float32')"
    assert p(tir.Range(2, 10)) == "T.Range(2, 10)"
    assert repr(x + 1) == "x + 1"


def test_repr_does_not_rename():
    # repr of a single expression keeps source names even for distinct vars
    a, b = Var("i"), Var("i")
    assert repr(a + b) == "i + i"


def test_attr_and_evaluate():
    x = Var("x")
    s = AttrStmt(x, "pragma_unroll", 1, Evaluate(tir.call_intrin("int32", "tir.noop", x)))
    assert s.script() == "with T.attr(x, 'pragma_unroll', 1):\n    T.evaluate(T.noop(x))"
