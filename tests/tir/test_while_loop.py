"""``tir.While`` and ``IRBuilder.while_loop``: the statement, its printout, the verifier, and
compiled code run against numpy."""
import numpy as np
import pytest

import tepad
from tepad import te, tir


def _collatz_steps(A):
    """Per element of int32 ``A``: the number of Collatz steps to reach 1."""
    def body(ins, outs):
        ib = tir.ir_builder.create()
        a, out = ib.buffer_ptr(ins[0]), ib.buffer_ptr(outs[0])
        n = ib.allocate("int32", (1,), name="n", scope="local")
        steps = ib.allocate("int32", (1,), name="steps", scope="local")
        with ib.for_range(0, A.shape[0], name="i") as i:
            n[0] = a[i]
            steps[0] = 0
            with ib.while_loop(n[0] > 1):
                with ib.if_scope(n[0] % 2 == 0):
                    n[0] = n[0] // 2
                with ib.else_scope():
                    n[0] = n[0] * 3 + 1
                steps[0] = steps[0] + 1
            out[i] = steps[0]
        return ib.get()
    return te.extern(A.shape, [A], body, dtype="int32", name="collatz")


def _collatz_ref(v):
    k = 0
    while v > 1:
        v = v // 2 if v % 2 == 0 else 3 * v + 1
        k += 1
    return k


def test_while_loop_builds_a_while_statement():
    ib = tir.ir_builder.create()
    n = ib.allocate("int32", (1,), name="n")
    n[0] = 0
    with ib.while_loop(n[0] < 10):
        n[0] = n[0] + 1
    stmt = ib.get()
    loop = stmt.body.seq[1]
    assert isinstance(loop, tir.While)
    assert isinstance(loop.body, tir.BufferStore)
    text = tir.to_script(stmt)
    assert "while n[0] < 10:" in text


def test_while_condition_must_be_bool():
    with pytest.raises(tepad.TepadError, match="While condition must be a scalar bool"):
        tir.While(te.var("x"), tir.Evaluate(0))
    with pytest.raises(tepad.TepadError, match="While body must be a Stmt"):
        tir.While(te.var("x") < 1, 3)


def test_collatz_runs_as_numpy_says():
    A = te.placeholder((16,), "int32", name="A")
    B = _collatz_steps(A)
    s = te.create_schedule(B.op)
    low = tepad.lower(s, [A, B])
    assert "while" in str(low)
    assert tir.verify(low["main"]) == []
    f = tepad.build(s, [A, B])
    a = np.arange(1, 17, dtype="int32") * 7
    b = np.zeros(16, "int32")
    f(a, b)
    np.testing.assert_array_equal(b, [_collatz_ref(int(v)) for v in a])


def test_while_loop_under_a_parallel_loop():
    A = te.placeholder((64,), "int32", name="A")

    def body(ins, outs):
        ib = tir.ir_builder.create()
        a, out = ib.buffer_ptr(ins[0]), ib.buffer_ptr(outs[0])
        with ib.for_range(0, 64, name="i", kind="parallel") as i:
            k = ib.allocate("int32", (1,), name="k", scope="local")
            k[0] = 0
            # the smallest k with k * k >= a[i]
            with ib.while_loop(k[0] * k[0] < a[i]):
                k[0] = k[0] + 1
            out[i] = k[0]
        return ib.get()
    B = te.extern(A.shape, [A], body, dtype="int32", name="isqrt")
    f = tepad.build(te.create_schedule(B.op), [A, B])
    a = np.random.RandomState(0).randint(0, 500, 64).astype("int32")
    b = np.zeros(64, "int32")
    f(a, b)
    np.testing.assert_array_equal(b, np.ceil(np.sqrt(a)).astype("int32"))
