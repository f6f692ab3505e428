"""topi.einsum with symbolic extents: a letter labelling axes of two different shape
variables broadcasts at run time as numpy does (an axis whose extent is 1 reads index 0)."""
import numpy as np
import pytest

import tepad
from tepad import te, topi


def _build_matmul(shape_a, shape_b):
    A = te.placeholder(shape_a, name="A")
    B = te.placeholder(shape_b, name="B")
    C = topi.einsum("ij,jk->ik", A, B)
    s = te.create_schedule(C.op)
    return C, tepad.build(s, [A, B, C], "llvm")


@pytest.mark.parametrize("k, k2", [(3, 1), (1, 3), (3, 3)])
def test_symbolic_contracted_axis_broadcasts_at_run_time(k, k2):
    K, K2, N = te.var("K"), te.var("K2"), te.var("N")
    C, f = _build_matmul((2, K), (K2, N))
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (2, k)).astype("float32")
    b = rng.uniform(-1, 1, (k2, 4)).astype("float32")
    # numpy's broadcast of the contracted axis, spelled out: a length-1 side repeats
    kk = max(k, k2)
    a_full = np.broadcast_to(a, (2, kk))
    b_full = np.broadcast_to(b, (kk, 4))
    want = (a_full[:, :, None] * b_full[None, :, :]).sum(axis=1)
    out = np.zeros((2, 4), "float32")
    f(a, b, out)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_symbolic_extent_is_max_and_indices_select():
    K, K2 = te.var("K"), te.var("K2")
    A = te.placeholder((2, K), name="A")
    B = te.placeholder((K2, 5), name="B")
    C = topi.einsum("ij,jk->ik", A, B)
    red = C.op.reduce_axis[0]
    assert "max" in str(red.dom.extent).lower()
    # the same shape variable on both sides reads the index directly, with no select
    D = topi.einsum("ij,jk->ik", A, te.placeholder((K, 5), name="E"))
    assert "select" not in str(D.op.body[0]).lower()
    assert str(D.op.reduce_axis[0].dom.extent) == "K"


def test_symbolic_free_axis_broadcasts():
    N, M = te.var("N"), te.var("M")
    A = te.placeholder((N, 3), name="A")
    B = te.placeholder((M, 3), name="B")
    C = topi.einsum("ij,ij->i", A, B)
    f = tepad.build(te.create_schedule(C.op), [A, B, C], "llvm")
    a = np.arange(12, dtype="float32").reshape(4, 3)
    b = np.array([[1.0, -2.0, 0.5]], dtype="float32")
    out = np.zeros(4, "float32")
    f(a, b, out)
    np.testing.assert_allclose(out, np.einsum("ij,ij->i", a, b), rtol=1e-6)
