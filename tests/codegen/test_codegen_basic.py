"""Scalar codegen: arithmetic, integer division semantics, casts, guarded loads, allocations."""
import numpy as np
import pytest

from tepad import tir
from tepad.runtime import build_module
from codegen_helpers import make_func, loop

I32 = "int32"


def _elementwise(dtype, op, n=37):
    A = tir.Buffer((n,), dtype, "A")
    B = tir.Buffer((n,), dtype, "B")
    C = tir.Buffer((n,), dtype, "C")
    f = make_func([A, B, C], lambda a, b, c: loop(n, lambda i: tir.BufferStore(c, op(a[i], b[i]), [i])))
    return build_module(f)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int8", "int64", "uint8"])
def test_elementwise_add_mul(dtype):
    mod = _elementwise(dtype, lambda x, y: x * y + x - y)
    rng = np.random.default_rng(0)
    if dtype.startswith("float"):
        a, b = rng.standard_normal(37).astype(dtype), rng.standard_normal(37).astype(dtype)
    else:
        info = np.iinfo(dtype)
        a = rng.integers(max(info.min, -100), min(info.max, 100), 37).astype(dtype)
        b = rng.integers(max(info.min, -100), min(info.max, 100), 37).astype(dtype)
    c = np.zeros(37, dtype)
    mod(a, b, c)
    with np.errstate(over="ignore"):
        want = a * b + a - b
    if dtype.startswith("float"):
        np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5)
    else:
        np.testing.assert_array_equal(c, want)


def test_min_max_float_int():
    for dtype in ["float32", "int32", "uint8"]:
        mod = _elementwise(dtype, lambda x, y: tir.max(x, y) - tir.min(x, y))
        a = np.array(np.arange(37) % 7, dtype)
        b = np.array((np.arange(37) * 3) % 11, dtype)
        c = np.zeros(37, dtype)
        mod(a, b, c)
        np.testing.assert_array_equal(c, np.maximum(a, b) - np.minimum(a, b))


def test_floordiv_floormod_negative_operands():
    vals = np.array([-7, -6, -1, 0, 1, 5, 6, 7, -13, 13, 2**31 - 1, -2**31 + 1], I32)
    divs = np.array([3, -3, 2, -2, 5, -5, 1, -1, 4, -4, 7, -7], I32)
    n = len(vals)
    for op, ref in [(tir.floordiv, lambda x, y: x // y), (tir.floormod, lambda x, y: x % y),
                    (tir.truncdiv, lambda x, y: np.trunc(x / y).astype(I32)),
                    (tir.truncmod, lambda x, y: np.fmod(x, y))]:
        A, B, C = (tir.Buffer((n,), I32, nm) for nm in "ABC")
        f = make_func([A, B, C], lambda a, b, c: loop(n, lambda i: tir.BufferStore(c, op(a[i], b[i]), [i])))
        c = np.zeros(n, I32)
        build_module(f)(vals, divs, c)
        want = np.array([ref(int(x), int(y)) if op in (tir.floordiv, tir.floormod) else
                         (int(x / y) if op is tir.truncdiv else int(np.fmod(x, y)))
                         for x, y in zip(vals, divs)], I32)
        np.testing.assert_array_equal(c, want, err_msg=op.__name__)


def test_floordiv_by_constant():
    n = 40
    A, C = tir.Buffer((n,), I32, "A"), tir.Buffer((n,), I32, "C")
    f = make_func([A, C], lambda a, c: loop(n, lambda i: tir.BufferStore(
        c, tir.floordiv(a[i], 4) * 100 + tir.floormod(a[i], 4), [i])))
    a = np.arange(-20, 20, dtype=I32)
    c = np.zeros(n, I32)
    build_module(f)(a, c)
    np.testing.assert_array_equal(c, (a // 4) * 100 + a % 4)


@pytest.mark.parametrize("src,dst", [("float32", "int32"), ("int32", "float32"), ("int8", "int32"),
                                     ("uint8", "int32"), ("int32", "int8"), ("float64", "float32"),
                                     ("float32", "float64"), ("int32", "bool"), ("float32", "bool"),
                                     ("bool", "int32"), ("int64", "int16"), ("uint8", "float32")])
def test_casts(src, dst):
    n = 16
    A, C = tir.Buffer((n,), src, "A"), tir.Buffer((n,), dst, "C")
    f = make_func([A, C], lambda a, c: loop(n, lambda i: tir.BufferStore(c, tir.cast(dst, a[i]), [i])))
    if src == "bool":
        a = np.arange(n) % 3 == 0
    elif src.startswith("float"):
        a = np.linspace(-7.5, 7.5, n).astype(src)
    elif src.startswith("uint"):
        a = np.arange(200, 200 + n).astype(src)
    else:
        a = np.arange(-8, 8).astype(src) * (37 if src in ("int32", "int64") else 1)
    c = np.zeros(n, dst)
    build_module(f)(a, c)
    with np.errstate(invalid="ignore"):
        want = a.astype(dst) if dst != "bool" else a != 0
    np.testing.assert_array_equal(c, want)


def test_compare_select_logic():
    n = 20
    A, B, C = tir.Buffer((n,), "float32", "A"), tir.Buffer((n,), "int32", "B"), tir.Buffer((n,), "bool", "C")
    f = make_func([A, B, C], lambda a, b, c: loop(n, lambda i: tir.BufferStore(
        c, tir.any(tir.all(a[i] > 0.5, b[i] <= 3), tir.logical_not(b[i] != 7) if hasattr(tir, "logical_not")
                   else tir.Not(b[i] != 7)), [i])))
    a = np.linspace(0, 1, n).astype("float32")
    b = (np.arange(n) % 9).astype("int32")
    c = np.zeros(n, bool)
    build_module(f)(a, b, c)
    np.testing.assert_array_equal(c, ((a > 0.5) & (b <= 3)) | (b == 7))


def test_if_then_else_guards_out_of_range_load():
    """The guarded load must not run: A has n elements, the loop reads A[i - 4] for i < n + 8."""
    n = tir.Var("n")
    A, C = tir.Buffer((n,), "float32", "A"), tir.Buffer((n + 8,), "float32", "C")
    f = make_func([A, C], lambda a, c: loop(n + 8, lambda i: tir.BufferStore(
        c, tir.if_then_else(tir.all(i >= 4, i < n + 4), a[i - 4], tir.const(-1.0)), [i])))
    mod = build_module(f)
    for size in [1, 5, 100]:
        a = np.arange(size, dtype="float32") + 1
        c = np.zeros(size + 8, "float32")
        mod(a, c)
        want = np.concatenate([[-1] * 4, a, [-1] * 4]).astype("float32")
        np.testing.assert_array_equal(c, want)


def test_math_intrinsics():
    n = 33
    A, C = tir.Buffer((n,), "float32", "A"), tir.Buffer((n,), "float32", "C")
    cases = [(tir.exp, np.exp), (tir.log, np.log), (tir.sqrt, np.sqrt), (tir.tanh, np.tanh),
             (tir.sigmoid, lambda x: 1 / (1 + np.exp(-x))), (tir.floor, np.floor),
             (tir.ceil, np.ceil), (tir.round, np.round), (tir.abs, np.abs), (tir.sin, np.sin),
             (tir.cos, np.cos), (lambda x: tir.power(x, tir.const(1.5)), lambda x: x ** 1.5)]
    a = np.linspace(0.1, 4.5, n).astype("float32")
    for op, ref in cases:
        f = make_func([A, C], lambda a_, c_: loop(n, lambda i: tir.BufferStore(c_, op(a_[i]), [i])))
        c = np.zeros(n, "float32")
        build_module(f)(a, c)
        np.testing.assert_allclose(c, ref(a), rtol=2e-6, atol=1e-6)


def test_two_d_buffer_and_let():
    A2 = tir.Buffer((4, 8), "float32", "A")
    B2 = tir.Buffer((4, 8), "float32", "B")

    def body(a, b):
        def inner(i):
            j = tir.Var("j")
            t = tir.Var("t", "float32")
            return tir.For(j, 0, 8, tir.ForKind.SERIAL, tir.LetStmt(
                t, a[i * 8 + j] * 2.0, tir.BufferStore(b, tir.Let(tir.Var("u", "float32"), t, t) + t, [i * 8 + j])))
        return loop(4, inner)
    a = np.random.rand(4, 8).astype("float32")
    b = np.zeros((4, 8), "float32")
    build_module(make_func([A2, B2], body))(a, b)
    np.testing.assert_allclose(b, a * 4, rtol=1e-6)


def _alloc_func(n_tmp):
    n = n_tmp
    A, C = tir.Buffer((n,), "float32", "A"), tir.Buffer((n,), "float32", "C")
    tmp_var = tir.Var("tmp", "handle")
    T = tir.Buffer((n,), "float32", "tmp", data=tmp_var)

    def body(a, c):
        fill = loop(n, lambda i: tir.BufferStore(T, a[i] * 3.0, [i]))
        use = loop(n, lambda i: tir.BufferStore(c, T[n - 1 - i] + 1.0, [i]), name="j")
        return tir.Allocate(tmp_var, "float32", [n], tir.const(True), tir.seq(fill, use))
    return make_func([A, C], body)


@pytest.mark.parametrize("n", [64, 300_000])
def test_allocate_stack_and_heap(n):
    mod = build_module(_alloc_func(n))
    if n <= 1000:
        assert "alloca" in mod.unoptimized_ll
    else:
        assert "aligned_alloc" in mod.unoptimized_ll and "@\"free\"" in mod.unoptimized_ll
    a = np.random.rand(n).astype("float32")
    c = np.zeros(n, "float32")
    mod(a, c)
    np.testing.assert_allclose(c, a[::-1] * 3 + 1, rtol=1e-6)


def test_symbolic_allocation_on_heap():
    n = tir.Var("n")
    A, C = tir.Buffer((n,), "float32", "A"), tir.Buffer((n,), "float32", "C")
    tv = tir.Var("tmp", "handle")
    T = tir.Buffer((n,), "float32", "tmp", data=tv)
    f = make_func([A, C], lambda a, c: tir.Allocate(tv, "float32", [n], tir.const(True), tir.seq(
        loop(n, lambda i: tir.BufferStore(T, a[i] + 1.0, [i])),
        loop(n, lambda i: tir.BufferStore(c, T[i] * T[i], [i]), name="j"))))
    mod = build_module(f)
    for size in [0, 3, 1000]:
        a = np.random.rand(size).astype("float32")
        c = np.zeros(size, "float32")
        mod(a, c)
        np.testing.assert_allclose(c, (a + 1) ** 2, rtol=1e-6)


def test_if_statement_and_nonzero_loop_min():
    n = 30
    A, C = tir.Buffer((n,), "int32", "A"), tir.Buffer((n,), "int32", "C")
    f = make_func([A, C], lambda a, c: loop(n - 5, lambda i: tir.IfThenElse(
        tir.floormod(i, 2) == 0, tir.BufferStore(c, a[i] * 2, [i]), tir.BufferStore(c, a[i] - 1, [i])),
        start=5))
    a = np.arange(n, dtype="int32")
    c = np.full(n, -99, "int32")
    build_module(f)(a, c)
    want = np.where(np.arange(n) % 2 == 0, a * 2, a - 1)
    want[:5] = -99
    np.testing.assert_array_equal(c, want)


def test_kernel_keeps_name_and_ll():
    mod = _elementwise("float32", lambda x, y: x + y)
    assert '@"main"' in mod.ll or "@main(" in mod.ll
    assert mod.get_source() == mod.ll
    n = 64
    A, C = tir.Buffer((n,), "float32", "A"), tir.Buffer((n,), "float32", "C")
    f = make_func([A, C], lambda a, c: loop(n, lambda i: tir.BufferStore(c, a[i], [i])), name="my_kernel")
    mod = build_module(f)
    assert "my_kernel" in mod.ll
    assert [a.name for a in mod.arg_info] == ["A", "C"]
    assert mod.arg_info[0].dtype == "float32"


def test_static_buffer_arguments_promise_their_size():
    """Module checks every array's shape before the call, so a constant-shape argument is
    ``nonnull dereferenceable(<bytes>)``; a symbolic one promises nothing beyond noalias."""
    import re
    import tepad
    from tepad import te
    A = te.placeholder((8, 4), "float32", name="A")
    B = te.compute((8, 4), lambda i, j: A[i, j] + 1.0, name="B")
    mod = tepad.build(te.create_schedule(B.op), [A, B])
    define = next(l for l in mod.unoptimized_ll.splitlines() if l.startswith("define"))
    assert len(re.findall(r"noalias nonnull dereferenceable\(128\)", define)) == 2, define
    n = te.var("n")
    C = te.placeholder((n,), "int8", name="C")
    D = te.compute((n,), lambda i: C[i] + tir.const(1, "int8"), name="D")
    mod = tepad.build(te.create_schedule(D.op), [C, D])
    define = next(l for l in mod.unoptimized_ll.splitlines() if l.startswith("define"))
    assert "dereferenceable" not in define and "nonnull" not in define
    c = np.arange(5, dtype="int8")
    d = np.zeros(5, "int8")
    mod(c, d)
    np.testing.assert_array_equal(d, c + 1)
