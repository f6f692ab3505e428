"""``binds``: argument tensors passed as buffers the caller declared (TVM's
``schedule_to_module(s, [Ab, Bb], binds={A: Ab, B: Bb})``)."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.driver.build_module import schedule_to_module


def chain():
    m, n = te.size_var("m"), te.size_var("n")
    A = te.placeholder((m, n), name="A")
    A1 = te.compute((m, n), lambda i, j: A[i, j], name="A1")
    A2 = te.compute((m, n), lambda i, j: A1[i, j] + 3.0, name="A2")
    s = te.create_schedule(A2.op)
    xo, _ = s[A2].split(A2.op.axis[0], 8)
    s[A1].compute_at(s[A2], xo)
    return A, A2, s


def test_bound_buffers_are_the_arguments():
    A, A2, s = chain()
    Ab = tir.decl_buffer(A.shape, A.dtype, name="Ab")
    A2b = tir.decl_buffer(A2.shape, A2.dtype, name="A2b")
    mod = schedule_to_module(s, [Ab, A2b], binds={A: Ab, A2: A2b})
    f = mod["main"]
    assert [f.buffer_map[p] for p in f.params] == [Ab, A2b]
    flat = tir.transform.StorageFlatten(64)(mod)["main"]
    assert {b.name for b in flat.buffer_map.values()} == {"Ab", "A2b"}
    a = np.random.default_rng(0).random((10, 6), dtype="float32")
    out = np.zeros_like(a)
    tepad.build(tepad.lower(s, [Ab, A2b], binds={A: Ab, A2: A2b}))(a, out)
    np.testing.assert_allclose(out, a + 3.0, rtol=1e-6)


def test_binds_that_do_not_fit_are_refused():
    A, A2, s = chain()
    with pytest.raises(tepad.TepadError, match="does not match tensor A"):
        tepad.lower(s, [A, A2], binds={A: tir.decl_buffer((4, 4), "float32", name="X")})
    strided = tir.decl_buffer(A.shape, A.dtype, name="S", strides=[te.var("s0"), 1])
    with pytest.raises(tepad.TepadError, match="compact row-major buffers only"):
        tepad.lower(s, [A, A2], binds={A: strided})
    other = tir.decl_buffer(A.shape, A.dtype, name="O")
    with pytest.raises(tepad.TepadError, match="binds maps to no tensor"):
        tepad.lower(s, [other, A2], binds={})
