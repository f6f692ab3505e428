"""LowerIntrin (tir.transform.LowerIntrin): math calls -> LLVM intrinsics, floor division by
a positive constant -> C division where the dividend is provably non-negative; numerics
unchanged after building the lowered function."""
import numpy as np

import tepad
from tepad import te, tir
from tepad.lower.passes import lower_intrin

from lower_helpers import calls, nodes

RNG = np.random.default_rng(5)


def test_math_calls_become_llvm_intrinsics():
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: te.exp(A[i]) + te.sqrt(A[i]) + tir.erf(A[i]), name="B")
    s = te.create_schedule(B.op)
    _, ii = s[B].split(B.op.axis[0], factor=8)
    s[B].vectorize(ii)
    f = tepad.lower(s, [A, B])["main"]
    g = lower_intrin(f)
    names = sorted(c.args[0].value for c in calls(g, "tir.call_llvm_pure_intrin"))
    assert names == ["llvm.exp", "llvm.sqrt"]
    assert not calls(g, "tir.exp") and not calls(g, "tir.sqrt")
    assert len(calls(g, "tir.erf")) == 1            # no LLVM intrinsic: codegen calls libm
    a = RNG.random(64).astype("float32") + 0.1
    b = np.zeros_like(a)
    tepad.build(g)(a, b)
    from math import erf
    want = np.exp(a) + np.sqrt(a) + np.array([erf(x) for x in a], "float32")
    np.testing.assert_allclose(b, want, rtol=1e-5)


def test_floor_division_lowered_with_and_without_proof():
    A = te.placeholder((40,), name="A", dtype="int32")
    n = te.var("n")
    B = te.compute((40,), lambda i: A[i] // 8 + A[i] % 8 + (i + n) // 4, name="B",)
    C = te.compute((40,), lambda i: (i * 3) // 8 + (i * 3) % 8, name="C")
    s = te.create_schedule([B.op, C.op])
    f = tepad.lower(s, [A, B, C, n])["main"]
    g = lower_intrin(f)
    assert not nodes(g, tir.FloorDiv) and not nodes(g, tir.FloorMod)
    store_c = [x for x in nodes(g, tir.BufferStore) if x.buffer.name == "C"][0]
    assert not nodes(store_c, tir.Select)           # i*3 >= 0: plain C division
    store_b = [x for x in nodes(g, tir.BufferStore) if x.buffer.name == "B"][0]
    assert nodes(store_b, tir.Select)               # A[i] may be negative: sign-corrected
    a = RNG.integers(-100, 100, 40).astype("int32")
    b, c = np.zeros(40, "int32"), np.zeros(40, "int32")
    for nv in (-13, 0, 7):
        tepad.build(g)(a, b, c, nv)
        i = np.arange(40)
        np.testing.assert_array_equal(b, a // 8 + a % 8 + (i + nv) // 4)
        np.testing.assert_array_equal(c, (i * 3) // 8 + (i * 3) % 8)


def test_other_targets_unchanged_and_pass_object():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: te.exp(A[i]), name="B")
    mod = tepad.lower(te.create_schedule(B.op), [A, B])
    assert lower_intrin(mod["main"], target="cuda") is mod["main"]
    out = tir.transform.LowerIntrin()(mod)
    assert calls(out["main"], "tir.call_llvm_pure_intrin")
