"""tvm.tir.transform pass objects with TVM's arguments, the small passes (SkipAssert,
RewriteUnsafeSelect, Filter) and the passes whose work tepad's later stages do (identity,
with the reason recorded)."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.lower.passes.tvm_pass_objects import IDENTITY

from lower_helpers import calls, nodes

RNG = np.random.default_rng(4)


def _vec_mod():
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    _, ii = s[B].split(B.op.axis[0], factor=8)
    s[B].vectorize(ii)
    return tepad.lower(s, [A, B])


def test_tvm_arguments_accepted():
    mod = _vec_mod()
    T = tir.transform
    on = T.VectorizeLoop(True)(mod)
    assert nodes(on["main"], tir.Ramp)
    off = T.VectorizeLoop(False)(mod)
    assert not nodes(off["main"], tir.Ramp)
    assert all(f.kind == tir.ForKind.SERIAL for f in nodes(off["main"], tir.For))
    for p in (T.HoistIfThenElse(), T.HoistIfThenElse("basic"), T.UnrollLoop(),
              T.StorageFlatten(64), T.ThreadSync("shared"), T.Simplify()):
        out = p(mod)
        a = RNG.random(64).astype("float32")
        b = np.zeros_like(a)
        tepad.build(out)(a, b)
        np.testing.assert_allclose(b, a + 1.0)
    with pytest.raises(tepad.TepadError, match="variant"):
        T.HoistIfThenElse("fancy")


def test_unroll_loop_object_reads_the_config():
    A = te.placeholder((4, 4), name="A")
    B = te.compute((4, 4), lambda i, j: A[i, j] * 2.0, name="B")
    mod = tepad.lower(te.create_schedule(B.op), [A, B])
    with tepad.transform.PassContext(config={"tir.UnrollLoop": {"auto_max_step": 64}}):
        out = tir.transform.UnrollLoop()(mod)
    assert not nodes(out["main"], tir.For)             # 16 iterations: unrolled
    assert nodes(tir.transform.UnrollLoop()(mod)["main"], tir.For)


def test_skip_assert():
    body = tir.AssertStmt(tir.const(False), tir.StringImm("never"), tir.Evaluate(0))
    f = tir.PrimFunc([], body)
    g = tir.transform.SkipAssert()(f)
    assert not nodes(g, tir.AssertStmt)


def test_rewrite_unsafe_select():
    A = te.placeholder((10,), name="A")
    B = te.compute((10,), lambda i: tir.select(i < 9, A[tir.min(i + 1, 9)], 0.0) +
                   tir.select(i > 4, 1.0, 2.0), name="B")
    mod = tepad.lower(te.create_schedule(B.op), [A, B])
    out = tir.transform.RewriteUnsafeSelect()(mod)
    assert len(calls(out["main"], "tir.if_then_else")) == 1
    assert len(nodes(out["main"], tir.Select)) == 1     # the arms without loads stay
    a = RNG.random(10).astype("float32")
    b = np.zeros_like(a)
    tepad.build(out)(a, b)
    i = np.arange(10)
    np.testing.assert_allclose(b, np.where(i < 9, a[np.minimum(i + 1, 9)], 0.0) +
                               np.where(i > 4, 1.0, 2.0))


def test_filter_and_identity_passes():
    mod = _vec_mod()
    two = tepad.ir.IRModule({"main": mod["main"], "other": mod["main"].with_attr(
        "global_symbol", "other")})
    kept = tir.transform.Filter(lambda f: f.name == "other")(two)
    assert list(dict(kept.items())) == ["other"]
    for name in IDENTITY:
        assert getattr(tir.transform, name)()(mod) is mod, name
    assert tir.transform.NarrowDataType(32)(mod) is mod
    assert tir.transform.MakePackedAPI()(mod) is mod
