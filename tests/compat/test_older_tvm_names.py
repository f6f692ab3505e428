"""Programs written against TVM 0.6-0.8 names (``tvm.placeholder``, ``tvm.context``,
``asnumpy``, ``tvm.make``, ``tvm.ir_pass``, ``import topi``, ...) run after
``import tepad as tvm``: each old name warns once with a DeprecationWarning naming the new
spelling, then behaves as it."""
import importlib
import sys
import warnings

import numpy as np
import pytest

import tepad as tvm
from tepad import errors, te, tir


@pytest.fixture
def fresh_warnings(monkeypatch):
    """Every old name warns again in this test (the once-per-process memory emptied)."""
    monkeypatch.setattr(errors, "_WARNED", set())


def _deprecations(record):
    return [str(w.message) for w in record if issubclass(w.category, DeprecationWarning)]


def test_a_tvm_06_vector_add_runs_and_warns_once_per_name(fresh_warnings):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        n = tvm.var("n")
        A = tvm.placeholder((n,), name="A")
        B = tvm.placeholder((n,), name="B")
        C = tvm.compute(A.shape, lambda i: A[i] + B[i] * 2.0, name="C")
        s = tvm.create_schedule(C.op)
        xo, xi = s[C].split(C.op.axis[0], factor=4)
        f = tvm.build(s, [A, B, C], "llvm", name="vadd")
        ctx = tvm.context("llvm", 0)
        a_np = np.random.rand(13).astype("float32")
        b_np = np.random.rand(13).astype("float32")
        a = tvm.nd.array(a_np, ctx)
        b = tvm.nd.array(b_np, ctx=ctx)
        c = tvm.nd.array(np.zeros(13, "float32"), ctx=ctx)
        f(a, b, c)
        out = c.asnumpy()
        again = tvm.placeholder((4,), name="D")      # a second use: no second warning
    np.testing.assert_allclose(out, a_np + b_np * 2.0, rtol=1e-6)
    msgs = _deprecations(rec)
    for old, new in [("tvm.var", "tvm.te.var"), ("tvm.placeholder", "tvm.te.placeholder"),
                     ("tvm.compute", "tvm.te.compute"),
                     ("tvm.create_schedule", "tvm.te.create_schedule"),
                     ("tvm.context", "tvm.device"), ("NDArray.asnumpy()", "NDArray.numpy()")]:
        hits = [m for m in msgs if m.startswith(old + " ")]
        assert len(hits) == 1 and new in hits[0], (old, msgs)
    assert sum("ctx= keyword of tvm.nd.array" in m for m in msgs) == 1
    assert again.shape[0].value == 4


def test_old_reduction_and_intrinsic_names():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        n, m = 6, 5
        A = tvm.placeholder((n, m), name="A")
        k = tvm.reduce_axis((0, m), name="k")
        S = tvm.compute((n,), lambda i: tvm.sum(tvm.exp(A[i, k]), axis=k), name="S")
        M = tvm.compute((n,), lambda i: tvm.max(A[i, k], axis=k), name="M")
        R = tvm.compute((n,), lambda i: tvm.if_then_else(S[i] > M[i], tvm.sqrt(S[i]),
                                                         tvm.const(0.0, "float32")), name="R")
        s = tvm.create_schedule(R.op)
        f = tvm.build(s, [A, R])
    a = np.random.rand(n, m).astype("float32")
    r = np.zeros(n, "float32")
    f(a, r)
    ref = np.sqrt(np.exp(a.astype("float64")).sum(1))
    np.testing.assert_allclose(r, ref, rtol=1e-5)


def test_old_modules_api_expr_stmt_make_ir_pass_intrin(fresh_warnings):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        x = tvm.api.var("x")
        assert isinstance(x, tvm.expr.Var)
        e = tvm.make.Add(x, tvm.api.const(0))
        assert isinstance(e, tvm.expr.Add)
        assert tvm.ir_pass.Equal(tvm.ir_pass.Simplify(e), x)
        assert tvm.ir_pass.Equal(tvm.ir_pass.Substitute(x + 1, {x: tvm.api.const(2)}),
                                 tir.Add(tir.const(2), 1))
        assert tvm.ir_pass.ExprUseVar(x * 3, x)
        assert isinstance(tvm.intrin.exp(tvm.api.const(1.0)), tir.Call)
        i = tvm.api.var("i")
        loop = tvm.make.For(i, 0, 8, 1, 0, tvm.make.Evaluate(tvm.api.const(0)))
        assert isinstance(loop, tvm.stmt.For) and loop.kind == tir.ForKind.PARALLEL
        call = tvm.make.Call("float32", "expf", [tvm.api.const(1.0)], 1, None, 0)
        assert isinstance(call, tir.Call) and call.op == "expf"
        assert tvm.stmt.Provide is tir.ProducerStore
        seen = []
        tvm.ir_pass.PostOrderVisit(loop, lambda node: seen.append(type(node).__name__))
        assert seen[-1] == "For"
    msgs = _deprecations(rec)
    assert any(m.startswith("tvm.make.For ") and "tvm.tir.For" in m for m in msgs)
    assert any(m.startswith("tvm.ir_pass.Simplify ") for m in msgs)


def test_from_import_of_an_old_module():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        tvm.api                                            # made on first use
        from tepad.api import placeholder
    assert placeholder is te.placeholder


def test_an_unknown_old_name_says_what_the_module_holds():
    with pytest.raises(AttributeError, match="tvm.ir_pass.MakeAPI: .*holds"):
        tvm.ir_pass.MakeAPI
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        tvm.no_such_name


def test_old_device_and_target_names(fresh_warnings):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        assert tvm.gpu(0) == tvm.cuda(0)
        assert tvm.ctx("cpu", 0) == tvm.cpu(0)
        assert tvm.cl(0) == tvm.opencl(0)
        t = tvm.target.create("llvm -mcpu=skylake")
        assert isinstance(t, tvm.target.Target) and t.mcpu == "skylake"
        assert tvm.nd.empty((3,), "float32", ctx=tvm.cpu(0)).shape == (3,)
        assert tvm.nd.array(np.ones(2)).ctx == tvm.cpu(0)
    msgs = _deprecations(rec)
    assert any(m.startswith("tvm.gpu ") and "tvm.cuda" in m for m in msgs)
    assert any(m.startswith("tvm.target.create ") for m in msgs)
    assert tvm.target.llvm("-mcpu=znver3").mcpu == "znver3"
    assert tvm.target.cuda(arch="sm_80").arch == "sm_80"


def test_ctx_and_device_together_is_an_error():
    with pytest.raises(tvm.TepadError, match="given twice"):
        tvm.nd.array(np.ones(2), tvm.cpu(0), ctx=tvm.cpu(0))


def test_old_schedule_and_tensor_modules():
    A = te.placeholder((4,), name="A")
    assert isinstance(A, tvm.tensor.Tensor)
    assert isinstance(tvm.schedule.create_schedule(A.op), te.Schedule)


def test_import_topi_is_tepad_topi(fresh_warnings):
    for name in [k for k in sys.modules if k == "topi" or k.startswith("topi.")]:
        sys.modules.pop(name)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        topi = importlib.import_module("topi")
        nn = importlib.import_module("topi.nn")
    import tepad.topi
    assert topi is tepad.topi and nn is tepad.topi.nn
    assert any(m.startswith("import topi ") for m in _deprecations(rec))
    A = te.placeholder((3, 4), name="A")
    B = te.placeholder((3, 4), name="B")
    C = topi.add(A, B)
    f = tvm.build(te.create_schedule(C.op), [A, B, C])
    a, b = np.random.rand(3, 4).astype("float32"), np.random.rand(3, 4).astype("float32")
    c = np.zeros((3, 4), "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, a + b, rtol=1e-6)


def test_build_config_with_a_06_statement_pass():
    seen = []

    def mul_to_add(stmt):
        """A 0.6 lower pass: Stmt -> Stmt (every float multiplication becomes an addition)."""
        tvm.ir_pass.PostOrderVisit(stmt, lambda n: seen.append(type(n).__name__))
        return tvm.ir_pass.IRTransform(
            stmt, None, lambda op: tir.Add(op.a, op.b) if op.dtype == "float32" else None,
            ["Mul"])

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        A = te.placeholder((8,), name="A")
        B = te.compute((8,), lambda i: A[i] * 3.0, name="B")
        s = te.create_schedule(B.op)
        with tvm.build_config(add_lower_pass=[(1, mul_to_add)], auto_unroll_max_step=4,
                              unroll_explicit=True, data_alignment=64):
            f = tvm.build(s, [A, B])
    assert "For" in seen
    a = np.random.rand(8).astype("float32")
    b = np.zeros(8, "float32")
    f(a, b)
    np.testing.assert_allclose(b, a + 3.0, rtol=1e-6)


def test_build_config_unknown_option():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(tvm.TepadError, match="unknown option 'no_such'"):
            tvm.build_config(no_such=1)


def test_build_config_bound_checkers():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        ctx = tvm.build_config(instrument_bound_checkers=True)
    assert ctx.config["tir.instrument_bound_checkers"] is True


def test_unnamed_autotvm_template_of_tvm_06():
    from tepad import autotvm
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)

        @autotvm.template
        def compat_unnamed_scale(n):
            A = te.placeholder((n,), name="A")
            B = te.compute((n,), lambda i: A[i] * 4.0, name="B")
            s = te.create_schedule(B.op)
            cfg = autotvm.get_config()
            cfg.define_knob("factor", [2, 4])
            s[B].split(B.op.axis[0], factor=cfg["factor"].val)
            return s, [A, B]
    task = autotvm.task.create(compat_unnamed_scale, args=(8,), target="llvm")
    assert task.name == "compat_unnamed_scale" and len(task.config_space) == 2
    with tvm.target.Target("llvm"):
        s, args = compat_unnamed_scale(8)
    f = tvm.build(s, args)
    a = np.random.rand(8).astype("float32")
    b = np.zeros(8, "float32")
    f(a, b)
    np.testing.assert_allclose(b, a * 4.0, rtol=1e-6)


def test_make_call_with_a_06_call_type():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        x = tvm.api.const(2.0)
        c = tvm.make.Call("float32", "sqrtf", [x], tvm.expr.Call.PureExtern, None, 0)
    assert isinstance(c, tir.Call) and c.op == "sqrtf" and c.args[0] is x


def test_schedule_module_of_tvm_06_holds_buffer_and_itervar(fresh_warnings):
    with pytest.warns(DeprecationWarning, match="tvm.schedule.Buffer .*tvm.tir.Buffer"):
        assert tvm.schedule.Buffer is tir.Buffer
    with pytest.warns(DeprecationWarning, match="tvm.schedule.IterVar"):
        assert tvm.schedule.IterVar is tir.IterVar
    A = te.placeholder((4, 4), name="A")
    B = te.compute((4, 4), lambda i, j: A[i, j] + 1.0, name="B")
    assert isinstance(B.op.axis[0], tvm.schedule.IterVar)


def test_current_target_of_tvm_06():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert tvm.target.current_target() is None
        with tvm.target.create("llvm"):
            assert tvm.target.current_target().kind.name == "llvm"


def test_06_for_type_codes_and_dtype_names(fresh_warnings):
    """0.6's ``tvm.stmt.For.Vectorized`` (the for_type codes make.For takes) and
    ``tvm.float32`` (the dtype string) in a program that splits and vectorizes a loop."""
    assert (tvm.stmt.For.Serial, tvm.stmt.For.Parallel, tvm.stmt.For.Vectorized,
            tvm.stmt.For.Unrolled) == (0, 1, 2, 3)
    assert (tvm.float32, tvm.int32, tvm.int8, tvm.handle) == ("float32", "int32", "int8",
                                                             "handle")
    bias = tvm.var("bias", dtype=tvm.float32)
    assert bias.dtype == "float32" and tvm.api.float32 == "float32"
    i, body = tvm.var("i"), tvm.make.Evaluate(tvm.api.const(0))
    loop = tvm.make.For(i, 0, 8, tvm.stmt.For.Vectorized, 0, body)
    assert loop.kind == tir.ForKind.VECTORIZED
    loop = tvm.make.For(i, 0, 8, tvm.stmt.For.Unrolled, 0, body)
    assert loop.kind == tir.ForKind.UNROLLED
    A = tvm.placeholder((16,), name="A", dtype=tvm.float32)
    B = tvm.compute((16,), lambda k: A[k] + bias, name="B")
    f = tvm.build(tvm.create_schedule(B.op), [A, B, bias])
    a = np.arange(16, dtype="float32")
    b = tvm.nd.empty((16,), "float32")
    f(tvm.nd.array(a), b, 2.5)
    np.testing.assert_allclose(b.numpy(), a + 2.5)


def test_build_config_auto_unroll_min_depth_is_accepted():
    # an option of TVM's first releases (FlexTensor's legacy test_reduce_map.py passes it)
    A = tvm.te.placeholder((8,), name="A")
    B = tvm.te.compute((8,), lambda i: A[i] * 2.0, name="B")
    s = tvm.te.create_schedule(B.op)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with tvm.build_config(auto_unroll_max_step=16, auto_unroll_min_depth=2):
            f = tvm.build(s, [A, B], "llvm")
    a = np.arange(8, dtype="float32")
    b = np.zeros(8, "float32")
    f(a, b)
    np.testing.assert_allclose(b, a * 2.0)
