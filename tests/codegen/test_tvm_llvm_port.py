"""The behaviour TVM's test_target_codegen_llvm.py (and te_tensor's extern tests) checks, in
tepad's style: scalar and pointer arguments, several functions in one build, extern calls and
LLVM intrinsics, ir_builder, te.extern, call_packed, Shuffle, integer division semantics."""
import ctypes
import re

import llvmlite.binding as llvm
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.target.codegen import (llvm_get_intrinsic_name, llvm_lookup_intrinsic_id,
                                  llvm_version_major)

# ctypes callbacks registered as LLVM symbols must outlive every kernel that may call them
_KEEP_ALIVE = []


# ---------------------------------------------------------------- arguments
def test_scalar_var_argument_binds_a_size_and_is_checked():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 3.0, name="B")
    s = te.create_schedule(B.op)
    f = tepad.build(s, [A, B, n])
    a = np.random.rand(7).astype("float32")
    b = np.zeros(7, "float32")
    f(a, b, 7)
    np.testing.assert_allclose(b, a * 3.0, rtol=1e-6)
    with pytest.raises(tepad.TepadError, match="n = 6"):
        f(a, b, 6)
    with pytest.raises(TypeError, match="expected an int"):
        f(a, b, 7.5)


def test_float_scalar_argument():
    x = te.var("x", "float32")
    A = te.placeholder((5,), name="A")
    B = te.compute((5,), lambda i: A[i] * x + 1.0, name="B")
    f = tepad.build(te.create_schedule(B.op), [A, x, B])
    a = np.arange(5, dtype="float32")
    b = np.zeros(5, "float32")
    f(a, 2.5, b)
    np.testing.assert_allclose(b, a * 2.5 + 1.0)


def test_placeholder_the_schedule_does_not_read_is_still_an_argument():
    A = te.placeholder((4,), name="A")
    B = te.compute((3,), lambda i: tir.const(2.0) + i.astype("float32"), name="B")
    f = tepad.build(te.create_schedule(B.op), [A, B])
    assert [p.name for p in f.arg_info] == ["A", "B"]
    b = np.zeros(3, "float32")
    f(np.zeros(4, "float32"), b)
    np.testing.assert_allclose(b, [2.0, 3.0, 4.0])
    with pytest.raises(tepad.TepadError, match="argument 0 'A'"):
        f(np.zeros(5, "float32"), b)


# ---------------------------------------------------------------- several functions
def _add_schedule():
    A = te.placeholder((64,), name="A")
    B = te.placeholder((64,), name="B")
    C = te.compute(A.shape, lambda i: A[i] + B[i], name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=4)
    s[C].parallel(xo)
    s[C].vectorize(xi)
    return s, [A, B, C]


def test_build_list_of_lowered_modules_gives_each_function_by_name():
    s, args = _add_schedule()
    m = tepad.build([tepad.lower(s, args, name="fadd2"), tepad.lower(s, args, name="fadd1")])
    a, b = np.random.rand(64).astype("float32"), np.random.rand(64).astype("float32")
    for fname in ("fadd1", "fadd2"):
        c = np.zeros(64, "float32")
        m[fname](a, b, c)
        np.testing.assert_allclose(c, a + b)
    assert m.get_source().find("@fadd1") < m.get_source().find("@fadd2")
    with pytest.raises(AttributeError, match="fadd3"):
        m["fadd3"]


def test_module_functions_are_ordered_by_name_and_unloaded_externs_are_reported():
    def caller(name, callee):
        ib = tir.ir_builder.create()
        v = te.var("v", dtype="float32")
        ib.emit(tir.call_extern("float32", callee, v))
        return tir.PrimFunc([v], ib.get()).with_attr("global_symbol", name)

    mod = tepad.IRModule({"Sammy": caller("Sammy", "tepad_test_no_such_fn"),
                          "Danny": caller("Danny", "tepad_test_no_such_fn2")})
    built = tepad.build(mod, None, target="llvm")
    names = re.findall(r"^define[^@]*@\"?([A-Za-z][A-Za-z0-9_]*)", built.get_source("ll"),
                       re.MULTILINE)
    assert names == ["Danny", "Sammy"]
    with pytest.raises(tepad.TepadError, match="tepad_test_no_such_fn2"):
        built["Danny"](1.0)


# ---------------------------------------------------------------- expressions
def test_equal_method_and_float_alias():
    A = te.placeholder((32,), name="A", dtype="int32")
    C = te.compute((32,), lambda i: A[i].equal(1).astype("float"), name="C")
    assert C.dtype == "float32"
    f = tepad.build(te.create_schedule(C.op), [A, C])
    a = np.random.randint(0, 3, size=32).astype("int32")
    c = np.zeros(32, "float32")
    f(a, c)
    np.testing.assert_array_equal(c, (a == 1).astype("float32"))


@pytest.mark.parametrize("dtype", ["int32", "int8", "uint8", "uint32"])
@pytest.mark.parametrize("floor", [False, True])
def test_integer_division_by_every_divisor_never_traps(dtype, floor):
    info = np.iinfo(dtype)
    lo = max(info.min, -12)
    a_np = np.arange(lo, 13).astype(dtype)
    b_np = np.arange(lo, 13).astype(dtype)
    if info.min < 0:            # the dividend that overflows on -1
        a_np = np.concatenate([a_np, np.array([info.min], dtype)])
    A = te.placeholder(a_np.shape, name="A", dtype=dtype)
    B = te.placeholder(b_np.shape, name="B", dtype=dtype)
    div = te.floordiv if floor else tir.truncdiv
    mod = te.floormod if floor else tir.truncmod
    D, M = te.compute((a_np.size, b_np.size),
                      lambda i, j: (div(A[i], B[j]), mod(A[i], B[j])), name="DM")
    f = tepad.build(te.create_schedule([D.op, M.op]), [A, B, D, M])
    d = np.zeros((a_np.size, b_np.size), dtype)
    m = np.zeros_like(d)
    f(a_np, b_np, d, m)
    for i, x in enumerate(a_np.tolist()):
        for j, y in enumerate(b_np.tolist()):
            if y == 0:
                want_d, want_m = 0, x
            elif floor:
                want_d, want_m = x // y, x % y
            else:
                want_d = abs(x) // abs(y) * (1 if (x >= 0) == (y >= 0) else -1)
                want_m = x - want_d * y
            want_d = np.array(want_d).astype(dtype)       # x / -1 wraps for the minimum
            assert d[i, j] == want_d and m[i, j] == np.array(want_m).astype(dtype), (x, y)


def test_fp_math_reciprocal_and_sigmoid_saturate():
    A = te.placeholder((16,), name="A")
    B = te.compute((16,), lambda i: te.div(1.0, 1e37 * A[i]), name="B")
    C = te.compute((16,), lambda i: te.sigmoid(A[i]), name="C")
    f = tepad.build(te.create_schedule([B.op, C.op]), [A, B, C])
    b, c = np.ones(16, "float32"), np.ones(16, "float32")
    f(np.full(16, -1000, "float32"), b, c)
    np.testing.assert_allclose(b, np.zeros(16), atol=1e-30)
    np.testing.assert_allclose(c, np.zeros(16), atol=1e-30)
    assert tir.div(7, 2).value == 3 and tir.div(-7, 2).value == -3


# ---------------------------------------------------------------- extern calls, intrinsics
def test_call_pure_extern_resolves_libm_and_added_symbols():
    proto = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_float, ctypes.c_float)
    my_add = proto(lambda x, y: x + y)
    _KEEP_ALIVE.append(my_add)
    llvm.add_symbol("tepad_test_my_add", ctypes.cast(my_add, ctypes.c_void_p).value)
    A = te.placeholder((10,), name="A")
    B = te.compute((10,), lambda i: tir.call_pure_extern("float32", "tepad_test_my_add",
                                                         A[i], 1.0), name="B")
    C = te.compute((10,), lambda i: tir.call_pure_extern("float32", "sqrtf", A[i]), name="C")
    f = tepad.build(te.create_schedule([B.op, C.op]), [A, B, C])
    a = np.random.rand(10).astype("float32")
    b, c = np.zeros(10, "float32"), np.zeros(10, "float32")
    f(a, b, c)
    np.testing.assert_allclose(b, a + 1.0, rtol=1e-6)
    np.testing.assert_allclose(c, np.sqrt(a), rtol=1e-6)


def test_llvm_intrinsic_ids_round_trip_and_call_by_id():
    k = llvm_lookup_intrinsic_id("llvm.ctpop")
    assert k > 0 and llvm_get_intrinsic_name(k) == "llvm.ctpop"
    assert llvm_lookup_intrinsic_id("ctpop") == 0
    assert llvm_version_major() >= 14
    A = te.placeholder((8,), name="A", dtype="int32")
    B = te.compute((8,), lambda i: tir.call_llvm_pure_intrin("int32", k, 1, A[i]), name="B")
    f = tepad.build(te.create_schedule(B.op), [A, B])
    a = np.array([0, 1, 3, 7, 255, -1, 1 << 20, 6], "int32")
    b = np.zeros(8, "int32")
    f(a, b)
    np.testing.assert_array_equal(b, [bin(x & 0xFFFFFFFF).count("1") for x in a.tolist()])


def test_overloaded_intrinsic_in_an_extern_stage():
    def ctlz(ins, outs):
        ib = tir.ir_builder.create()
        v = tir.call_llvm_pure_intrin("int32", "llvm.ctlz", tir.const(2, "uint32"),
                                      ins[0].vload((0, 0)), tir.const(0, "int1"))
        ib.emit(outs[0].vstore((0, 0), v))
        return ib.get()

    A = te.placeholder((1, 1), dtype="int32", name="A")
    C = te.extern((1, 1), [A], ctlz, name="C", dtype="int32")
    f = tepad.build(te.create_schedule(C.op), [A, C])
    c = np.zeros((1, 1), "int32")
    f(np.array([[256]], "int32"), c)
    assert c[0, 0] == 23


def test_prefetch_and_pointer_parameters():
    ib = tir.ir_builder.create()
    A = ib.pointer("float32", name="A")
    args = [tir.call_intrin("handle", "tir.address_of", A[0]), 0, 3, 1]
    ib.emit(tir.Evaluate(tir.Call("int32", "tir.prefetch", args)))
    mod = tepad.IRModule.from_expr(tir.PrimFunc([A], ib.get()).with_attr("global_symbol",
                                                                         "prefetch"))
    f = tepad.build(mod, None, "llvm")
    assert f.arg_info[0].kind == "pointer"
    assert "llvm.prefetch" in f.unoptimized_ll
    f(np.zeros(4, "float32"))


def test_vector_intrinsic_through_a_pointer():
    ib = tir.ir_builder.create()
    A = ib.pointer("uint8x8", name="A")
    x = tir.call_llvm_pure_intrin("uint8x8", "llvm.ctpop.v8i8", tir.const(1, "uint32"),
                                  A[tir.const(0, "int32")])
    A[1] = x
    f = tepad.build(tir.PrimFunc([A], ib.get()))
    a = np.array([0, 1, 3, 7, 15, 31, 63, 255] + [0] * 8, "uint8")
    f(a)
    np.testing.assert_array_equal(a[8:], [0, 1, 2, 3, 4, 5, 6, 8])


# ---------------------------------------------------------------- ir_builder and te.extern
def test_ir_builder_scopes_in_an_extern_between_computes():
    n = 16
    X = te.placeholder((n,), name="X")
    Y = te.compute((n,), lambda i: X[i] * 2, name="Y")

    def body(ins, outs):
        ib = tir.ir_builder.create()
        xp, op = ib.buffer_ptr(ins[0]), ib.buffer_ptr(outs[0])
        t = ib.allocate("float32", (1,), name="t")
        t[0] = 0.5
        with ib.for_range(0, n, name="i", kind="parallel") as i:
            k = ib.let("k", n - 1 - i)
            with ib.if_scope(i % 2 == 0):
                op[i] = xp[i] + t[0]
            with ib.else_scope():
                op[i] = xp[k]
        return ib.get()

    Z = te.extern((n,), [Y], body, name="Z")
    W = te.compute((n,), lambda i: Z[i] + 100, name="W")
    s = te.create_schedule(W.op)
    f = tepad.build(s, [X, W])
    x = np.random.rand(n).astype("float32")
    w = np.zeros(n, "float32")
    f(x, w)
    y = x * 2
    np.testing.assert_allclose(w, np.where(np.arange(n) % 2 == 0, y + 0.5, y[::-1]) + 100,
                               rtol=1e-6)
    # the extern reads its input whole: bounds give Y's full extent
    assert tepad.lower(s, [X, W], exact_bounds=True, flatten=False).script().count("Y[0:16]") == 1


def test_extern_with_two_outputs():
    m = te.size_var("m")
    A = te.placeholder((m,), name="A")
    B = te.compute((m,), lambda i: A[i] * 10, name="B")

    def body(ins, outs):
        ib = tir.ir_builder.create()
        a, b = ib.buffer_ptr(ins[0]), ib.buffer_ptr(ins[1])
        o0, o1 = ib.buffer_ptr(outs[0]), ib.buffer_ptr(outs[1])
        with ib.for_range(0, m, name="i") as i:
            o0[i] = a[i] + b[i]
            o1[i] = b[i] - a[i]
        return ib.get()

    res = te.extern([A.shape, A.shape], [A, B], body, name="E")
    assert len(res) == 2 and res[1].value_index == 1 and res[0].op is res[1].op
    C = te.compute((m,), lambda i: res[0][i] * res[1][i], name="C")
    f = tepad.build(te.create_schedule(C.op), [A, C])
    a = np.random.rand(9).astype("float32")
    c = np.zeros(9, "float32")
    f(a, c)
    np.testing.assert_allclose(c, (a + 10 * a) * (10 * a - a), rtol=1e-5)


def test_extern_refuses_a_non_statement_and_infers_its_dtype():
    A = te.placeholder((3,), name="A", dtype="int8")
    with pytest.raises(tepad.TepadError, match="must return a statement"):
        te.extern((3,), [A], lambda ins, outs: 42 if False else "x")
    B = te.extern((3,), [A], lambda ins, outs: tir.call_packed("tepad.test.noop", ins[0]))
    assert B.dtype == "int8"
    with pytest.raises(tepad.TepadError, match="dtype"):
        te.extern((3,), [], lambda ins, outs: tir.call_packed("x"))


# ---------------------------------------------------------------- call_packed
def test_call_packed_passes_arrays_scalars_and_pointers():
    seen = {}

    @tepad.register_func("tepad.test.scale", override=True)
    def scale(x, s, out, n, ptr):
        seen.update(n=n, ptr=ptr.value, s=s)
        out.copyfrom(x.numpy() * s.numpy())

    assert tepad.get_global_func("tepad.test.scale") is scale
    m = te.size_var("m")
    A = te.placeholder((m,), name="A")
    S = te.placeholder((), name="S")
    C = te.extern((m,), [A, S], lambda ins, outs: tir.call_packed(
        "tepad.test.scale", ins[0], ins[1], outs[0], m, ins[0].data), name="C")
    f = tepad.build(te.create_schedule(C.op), [A, S, C])
    a = np.random.rand(6).astype("float32")
    sc = np.array(3.0, "float32")
    c = np.zeros(6, "float32")
    f(a, sc, c)
    np.testing.assert_allclose(c, a * 3.0, rtol=1e-6)
    assert seen["n"] == 6 and seen["ptr"] == a.ctypes.data


def test_call_packed_exception_is_raised_by_the_module():
    @tepad.register_func("tepad.test.fail", override=True)
    def fail(x):
        raise KeyError("from the packed function")

    A = te.placeholder((2,), name="A")
    B = te.extern((2,), [A], lambda ins, outs: tir.call_packed("tepad.test.fail", outs[0]))
    f = tepad.build(te.create_schedule(B.op), [A, B])
    with pytest.raises(KeyError, match="from the packed function"):
        f(np.zeros(2, "float32"), np.zeros(2, "float32"))
    with pytest.raises(tepad.TepadError, match="already registered"):
        tepad.register_func("tepad.test.fail", fail)
    assert tepad.get_global_func("tepad.test.none", allow_missing=True) is None
    C = te.extern((2,), [A], lambda ins, outs: tir.call_packed("tepad.test.none", outs[0]))
    g = tepad.build(te.create_schedule(C.op), [A, C])
    with pytest.raises(tepad.TepadError, match="no global function 'tepad.test.none'"):
        g(np.zeros(2, "float32"), np.zeros(2, "float32"))


# ---------------------------------------------------------------- Shuffle, vector lanes
def test_shuffle_reverses_lanes_in_a_user_pass():
    a = te.placeholder((8,), "int32", name="a")
    b = te.placeholder((8,), "int32", name="b")
    c = te.compute((8,), lambda x: a[x] + b[7 - x], name="c")
    s = te.create_schedule(c.op)

    def vectorize(f, *_):
        def rewrite(loop):
            store = loop.body
            idx = tir.Ramp(tir.const(0, "int32"), tir.const(1, "int32"), 8)
            rev = tir.Shuffle([idx], [tir.const(i, "int32") for i in range(7, -1, -1)])
            value = tir.BufferLoad(store.value.a.buffer, [idx]) + \
                tir.BufferLoad(store.value.b.buffer, [rev])
            return tir.BufferStore(store.buffer, value, [idx])
        return f.with_body(tir.stmt_functor.ir_transform(f.body, None, rewrite, ["tir.For"]))

    p = tir.transform.prim_func_pass(vectorize, opt_level=0, name="my_vectorize")
    with tepad.transform.PassContext(config={"tir.add_lower_pass": [(1, p)]}):
        f = tepad.build(s, [a, b, c])
    assert "shufflevector" in f.unoptimized_ll
    out = np.zeros(8, "int32")
    f(np.arange(1, 9, dtype="int32"), np.arange(8, 0, -1, dtype="int32"), out)
    np.testing.assert_array_equal(out, np.arange(1, 9) * 2)


def test_shuffle_concat_of_scalars_into_a_vector_buffer():
    x, y = tir.Var("x", "int32"), tir.Var("y", "int32")
    z = tir.decl_buffer((1,), "int32x2", name="z")
    sh = tir.Shuffle.concat([x, y])
    assert sh.dtype == "int32x2"
    f = tepad.build(tir.PrimFunc([x, y, z], z.vstore(0, tir.Shuffle([x, y], [1, 0]))))
    out = np.zeros((1, 2), "int32")
    f(5, 9, out)
    np.testing.assert_array_equal(out, [[9, 5]])
    with pytest.raises(tepad.TepadError, match="lane"):
        tir.Shuffle([x, y], [2])


# ---------------------------------------------------------------- bfloat16, vector elements
def _to_bf16(x):
    bits = x.astype("float32").view("uint32")
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype("uint16")


def _from_bf16(u):
    return (u.astype("uint32") << 16).view("float32")


@pytest.mark.parametrize("vectorize", [False, True])
def test_bfloat16_adds_in_float32_and_rounds_each_result(vectorize):
    A = te.placeholder((32,), dtype="bfloat16", name="A")
    B = te.placeholder((32,), dtype="bfloat16", name="B")
    d = te.compute((32,), lambda x: A[x] * B[x] + A[x], name="d")
    s = te.create_schedule(d.op)
    if vectorize:
        s[d].vectorize(d.op.axis[0])
    f = tepad.build(s, [A, B, d])
    rng = np.random.default_rng(3)
    a, b = _to_bf16(rng.random(32) * 10), _to_bf16(rng.random(32))
    out = tepad.nd.empty((32,), "bfloat16")
    assert out.dtype == "uint16"
    f(a, b, out)
    prod = _from_bf16(_to_bf16(_from_bf16(a) * _from_bf16(b)))
    np.testing.assert_array_equal(out.numpy(), _to_bf16(prod + _from_bf16(a)))
    with pytest.raises(TypeError, match="uint16"):
        f(a.astype("float32"), b, out)


def test_vector_element_tensors():
    A = te.placeholder((16,), name="A", dtype="float32x2")
    B = te.compute((16,), lambda i: A[i], name="B")
    C = te.compute((16,), lambda i: B[i] + tir.const(1, A.dtype), name="C")
    assert tir.const(1, "float32x2").dtype == "float32x2"
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], nparts=2)
    s[C].parallel(xo)
    s[C].vectorize(xi)
    s[B].compute_at(s[C], xo)
    f = tepad.build(s, [A, C])
    a = tepad.nd.empty((16,), A.dtype).copyfrom(np.random.rand(16, 2))
    c = tepad.nd.empty((16,), C.dtype)
    assert c.shape == (16, 2)
    f(a, c)
    np.testing.assert_allclose(c.numpy(), a.numpy() + 1)
    with pytest.raises(tepad.TepadError, match="shape"):
        f(np.zeros(16, "float32"), c)


def test_user_intrinsic_llvm_rejects_is_a_user_error():
    ib = tir.ir_builder.create()
    A = ib.pointer("uint8", name="A")
    ib.emit(tir.call_llvm_intrin("", "llvm.va_start", tir.const(1, "uint32"),
                                 A.asobject().data))
    with pytest.raises(tepad.TepadError, match="llvm.va_start"):
        tepad.build(tir.PrimFunc([A], ib.get()))


def test_call_packed_from_a_parallel_loop():
    calls = []

    @tepad.register_func("tepad.test.row", override=True)
    def row(i, out):
        calls.append(i)
        if i == 5:
            raise IndexError("row 5")

    n = 8

    def body(ins, outs):
        ib = tir.ir_builder.create()
        with ib.for_range(0, n, name="i", kind="parallel") as i:
            ib.emit(tir.call_packed("tepad.test.row", i, outs[0]))
        return ib.get()

    A = te.placeholder((n,), name="A")
    B = te.extern((n,), [A], body, name="B")
    f = tepad.build(te.create_schedule(B.op), [A, B])
    with pytest.raises(IndexError, match="row 5"):
        f(np.zeros(n, "float32"), np.zeros(n, "float32"))
    assert 5 in calls


def test_kernel_calling_a_symbol_loaded_after_the_first_build_is_rebuilt():
    name = "tepad_test_late_symbol"
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: tir.call_pure_extern("float32", name, A[i]), name="B")
    s = te.create_schedule(B.op)
    f = tepad.build(s, [A, B])
    assert name in f.get_source()
    with pytest.raises(tepad.TepadError, match=name):
        f(np.zeros(4, "float32"), np.zeros(4, "float32"))
    proto = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_float)
    twice = proto(lambda x: 2 * x)
    _KEEP_ALIVE.append(twice)
    llvm.add_symbol(name, ctypes.cast(twice, ctypes.c_void_p).value)
    f = tepad.build(s, [A, B])
    b = np.zeros(4, "float32")
    f(np.arange(4, dtype="float32"), b)
    np.testing.assert_allclose(b, [0, 2, 4, 6])


@pytest.mark.parametrize("as_pointer", [False, True])
def test_call_packed_writes_an_intermediate_tensor(as_pointer):
    @tepad.register_func("tepad.test.double_into", override=True)
    def double_into(x, y, n=None):
        if as_pointer:       # raw pointers: view them with the size passed along
            src = np.ctypeslib.as_array(ctypes.cast(x, ctypes.POINTER(ctypes.c_float)), (n,))
            dst = np.ctypeslib.as_array(ctypes.cast(y, ctypes.POINTER(ctypes.c_float)), (n,))
            dst[:] = src * 2
        else:
            y.copyfrom(x.numpy() * 2)

    m = te.size_var("m")
    A = te.placeholder((m,), name="A")

    def call(ins, outs):
        if as_pointer:
            return tir.call_packed("tepad.test.double_into", ins[0].data, outs[0].data, m)
        return tir.call_packed("tepad.test.double_into", ins[0], outs[0])

    B = te.extern((m,), [A], call, name="B")
    C = te.compute((m,), lambda i: B[i] + 1, name="C")
    f = tepad.build(te.create_schedule(C.op), [A, C])
    a = np.random.rand(5).astype("float32")
    c = np.zeros(5, "float32")
    f(a, c)
    np.testing.assert_allclose(c, a * 2 + 1, rtol=1e-6)


def test_atomic_add_from_a_parallel_extern_loop():
    def count(ins, outs):
        ib = tir.ir_builder.create()
        a = ib.buffer_ptr(ins[0])
        old = ib.allocate("int32", (1,), name="old", scope="local")
        with ib.for_range(0, 100, name="i", kind="parallel") as i:
            old[0] = tir.call_intrin("int32", "tir.atomic_add",
                                     tir.call_intrin("handle", "tir.address_of", a[0]),
                                     tir.const(1, "int32"))
        return ib.get()

    A = te.placeholder((100,), dtype="int32", name="A")
    C = te.extern((100,), [A], count, name="C", dtype="int32")
    f = tepad.build(te.create_schedule(C.op), [A, C])
    assert f.arg_info[0].is_output      # written through its address
    a = np.zeros(100, "int32")
    f(a, np.zeros(100, "int32"))
    assert a[0] == 100 and not a[1:].any()
    ro = np.zeros(100, "int32")
    ro.flags.writeable = False
    with pytest.raises(tepad.TepadError, match="read-only"):
        f(ro, np.zeros(100, "int32"))
