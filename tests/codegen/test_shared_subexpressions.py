"""A subexpression object used more than once in one expression (an inlined stage read by
several neighbours, as in grid_sample's stencils) is emitted once per statement: the LLVM
IR grows with the number of distinct nodes, not with the number of paths to them."""
import numpy as np

import tepad
from tepad import te, tir


def _nested(depth):
    """``e_{k+1} = (e_k + 1) * (e_k - 1) * 0.5``: each level uses the level below twice, so
    the expression has 2**depth paths but a few nodes per level."""
    A = te.placeholder((64,), "float32", name="A")

    def body(i):
        e = A[i]
        for _ in range(depth):
            e = (e + tir.const(1.0, "float32")) * (e - tir.const(1.0, "float32")) * \
                tir.const(0.5, "float32")
        return e
    B = te.compute((64,), body, name="B")
    return A, B


def _reference(a, depth):
    e = a.astype("float32")
    for _ in range(depth):
        e = ((e + np.float32(1)) * (e - np.float32(1)) * np.float32(0.5)).astype("float32")
    return e


def _count(ll, op):
    return sum(1 for line in ll.splitlines() if f"= {op} " in line)


def test_shared_nodes_are_emitted_once():
    depth = 10
    A, B = _nested(depth)
    mod = tepad.build(te.create_schedule(B.op), [A, B])
    # one fadd, one fsub and two fmul per level (2**10 paths would give thousands)
    assert _count(mod.unoptimized_ll, "fsub") == depth
    assert _count(mod.unoptimized_ll, "fadd") == depth
    a = np.random.default_rng(0).random(64, dtype="float32")
    b = np.zeros(64, "float32")
    mod(a, b)
    np.testing.assert_allclose(b, _reference(a, depth), rtol=1e-5, atol=1e-6)


def test_shared_loads_in_branches_stay_correct():
    """A load shared by both arms of a lane-wise ``if_then_else`` and by its condition:
    each arm gets its own value under its own lane mask, and the result matches numpy."""
    A = te.placeholder((64,), "float32", name="A")
    I = te.placeholder((64,), "int32", name="I")

    def body(i):
        x = A[I[i]]                       # one node, used three times
        return te.if_then_else(x > tir.const(0.5, "float32"), x * tir.const(2.0, "float32"),
                               x - tir.const(1.0, "float32"))
    B = te.compute((64,), body, name="B")
    s = te.create_schedule(B.op)
    _, xi = s[B].split(B.op.axis[0], factor=16)
    s[B].vectorize(xi)
    mod = tepad.build(s, [A, I, B])
    rng = np.random.default_rng(1)
    a = rng.random(64, dtype="float32")
    idx = rng.integers(0, 64, 64, dtype="int32")
    b = np.zeros(64, "float32")
    mod(a, idx, b)
    x = a[idx]
    np.testing.assert_allclose(b, np.where(x > 0.5, x * 2, x - 1), rtol=1e-6)
