"""Intrinsic lowering rules a program registers (tvm.ir.register_intrin_lowering /
register_op_attr, TVM 0.6-0.7's register_intrin_rule and tvm.intrin.rule.* global functions):
applied for the target kind being built, on the CPU and through the GPU emulator."""
import numpy as np
import pytest

import tepad
from tepad import te
from tepad.errors import TepadError
from tepad.target.intrin import reset_op_attr


@pytest.fixture
def forget():
    """Registered (op, key) pairs to drop after the test (the registry is process-wide)."""
    keys = []
    yield keys
    for op, key in keys:
        reset_op_attr(op, key)


def _unary(fcompute, target="llvm", n=8):
    a = te.placeholder((n,), name="a")
    b = te.compute((n,), lambda i: fcompute(a[i]), name="b")
    s = te.create_schedule(b.op)
    if target == "cuda":
        bx, tx = s[b].split(b.op.axis[0], factor=4)
        s[b].bind(bx, te.thread_axis("blockIdx.x"))
        s[b].bind(tx, te.thread_axis("threadIdx.x"))
        f = tepad.build(s, [a, b], "cuda", emulate=True)
    else:
        f = tepad.build(s, [a, b], target)
    x = np.linspace(0.5, 4.0, n).astype("float32")
    out = np.zeros(n, "float32")
    f(x, out)
    return x, out


def test_rule_replaces_a_builtin_on_its_target_only(forget):
    forget.append(("tir.exp", "llvm.FLowerIntrinsic"))
    seen = []

    def triple(call):
        seen.append(call.op.name)
        return call.args[0] * 3.0

    tepad.ir.register_intrin_lowering("tir.exp", target="llvm", f=triple, level=99)
    x, out = _unary(te.exp)
    np.testing.assert_allclose(out, x * 3.0, rtol=1e-6)
    assert seen and set(seen) == {"tir.exp"}
    reset_op_attr("tir.exp", "llvm.FLowerIntrinsic")
    x, out = _unary(te.exp)                      # the rule gone, exp is exp again
    np.testing.assert_allclose(out, np.exp(x), rtol=1e-5)


def test_new_intrinsic_through_op_attr_and_rule(forget):
    op = "tir.tepad_test_logp"
    forget += [(op, "TCallEffectKind"), (op, "llvm.FLowerIntrinsic"),
               (op, "cuda.FLowerIntrinsic")]
    tepad.ir.register_op_attr(op, "TCallEffectKind", tepad.tir.CallEffectKind.Pure)

    def to_log(call):
        return tepad.tir.call_pure_extern(call.dtype, "logf", call.args[0] + 1.0)

    tepad.ir.register_intrin_lowering(op, target="llvm", f=to_log)
    x, out = _unary(lambda v: tepad.tir.call_intrin("float32", op, v))
    np.testing.assert_allclose(out, np.log1p(x), rtol=1e-5)
    # CUDA: the rule returns CUDA's fast intrinsic; the emulator runs libm's expf for it
    tepad.ir.register_intrin_lowering(
        op, target="cuda", f=lambda c: tepad.tir.call_pure_extern(c.dtype, "__expf", c.args[0]))
    x, out = _unary(lambda v: tepad.tir.call_intrin("float32", op, v), target="cuda")
    np.testing.assert_allclose(out, np.exp(x), rtol=1e-5)


def test_default_rule_and_rule_returning_the_call(forget):
    op = "tir.tepad_test_neg"
    forget.append((op, "default.FLowerIntrinsic"))
    tepad.ir.register_intrin_lowering(op, target="default", f=lambda c: -c.args[0])
    x, out = _unary(lambda v: tepad.tir.call_intrin("float32", op, v))
    np.testing.assert_array_equal(out, -x)
    forget.append(("tir.exp", "default.FLowerIntrinsic"))
    tepad.ir.register_intrin_lowering("tir.exp", target="default", f=lambda c: c)
    x, out = _unary(te.exp)                      # unchanged call: tepad's own exp
    np.testing.assert_allclose(out, np.exp(x), rtol=1e-5)


def test_tvm06_rule_spellings(forget):
    op = "tir.tepad_test_sq"
    forget += [(op, "llvm.FLowerIntrinsic")]
    names = []

    def square(call):
        names.append(call.name)                  # 0.6's Call.name: no "tir." prefix
        return call.args[0] * call.args[0]

    tepad.target.register_intrin_rule("llvm", "tepad_test_sq", square)
    with pytest.raises(TepadError, match="already registered"):
        tepad.target.register_intrin_rule("llvm", "tepad_test_sq", square)
    x, out = _unary(lambda v: tepad.tir.call_intrin("float32", "tepad_test_sq", v))
    np.testing.assert_allclose(out, x * x, rtol=1e-6)
    assert names and set(names) == {"tepad_test_sq"}
    # a global function named tvm.intrin.rule.<kind>.<op> is such a rule (0.6), overriding
    tepad.register_func("tvm.intrin.rule.llvm.tepad_test_sq", lambda c: c.args[0] + 1.0,
                        override=True)
    x, out = _unary(lambda v: tepad.tir.call_intrin("float32", "tepad_test_sq", v))
    np.testing.assert_allclose(out, x + 1.0, rtol=1e-6)


def test_levels_and_mistakes(forget):
    op = "tir.tepad_test_lvl"
    forget.append((op, "k"))
    tepad.ir.register_op_attr(op, "k", "low", level=5)
    tepad.ir.register_op_attr(op, "k", "high", level=20)
    tepad.ir.register_op_attr(op, "k", "ignored", level=7)
    from tepad.target.intrin import get_op_attr
    assert get_op_attr(op, "k") == "high"
    with pytest.raises(TepadError, match="level 20"):
        tepad.ir.register_op_attr(op, "k", "again", level=20)
    with pytest.raises(TepadError, match="target kind"):
        tepad.ir.register_intrin_lowering(op, target="", f=lambda c: c)
    forget.append(("tir.tepad_test_bad", "llvm.FLowerIntrinsic"))
    tepad.ir.register_intrin_lowering("tir.tepad_test_bad", target="llvm",
                                      f=lambda c: tepad.tir.const(1, "int32"))
    with pytest.raises(TepadError, match="int32 expression for a float32 call"):
        _unary(lambda v: tepad.tir.call_intrin("float32", "tir.tepad_test_bad", v))


def test_device_math_names_run_on_the_emulator():
    for name, ref in [("__expf", np.exp), ("__nv_logf", np.log), ("__nv_fast_sinf", np.sin),
                      ("sqrtf", np.sqrt)]:
        x, out = _unary(lambda v: tepad.tir.call_pure_extern("float32", name, v),
                        target="cuda")
        np.testing.assert_allclose(out, ref(x), rtol=1e-5, err_msg=name)
