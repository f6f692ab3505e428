"""``PrimExpr <op> Tensor`` and ``number <op> Tensor``: elementwise tensors by topi's
broadcasting operators (TVM's ExprOp defers to the tensor's reflected operator)."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tepad
from tepad import te, tir

ROOT = Path(__file__).resolve().parents[2]


def _run(out, inputs, *scalars):
    s = te.create_schedule(out.op)
    f = tepad.build(s, [*inputs, *scalars[::2], out])
    arrays = [np.random.RandomState(k).uniform(1, 2, size=[int(d) for d in t.shape])
              .astype(t.dtype) for k, t in enumerate(inputs)]
    res = np.zeros([int(d) for d in out.shape], out.dtype)
    f(*arrays, *scalars[1::2], res)
    return arrays, res


def test_number_times_tensor():
    A = te.placeholder((3, 4), "float32", name="A")
    B = 2.0 * A
    # a tensor with a scalar is an elementwise stage in TVM's tags (two tensors: broadcast)
    assert isinstance(B, te.Tensor) and B.op.tag == "elemwise"
    (a,), b = _run(B, [A])
    np.testing.assert_allclose(b, 2.0 * a, rtol=1e-6)


@pytest.mark.parametrize("op,ref", [
    (lambda x, A: x + A, lambda x, a: x + a),
    (lambda x, A: x - A, lambda x, a: x - a),
    (lambda x, A: x * A, lambda x, a: x * a),
    (lambda x, A: x / A, lambda x, a: x / a),
])
def test_expr_op_tensor(op, ref):
    A = te.placeholder((5,), "float32", name="A")
    x = te.var("x", "float32")
    B = op(x, A)
    assert isinstance(B, te.Tensor)
    (a,), b = _run(B, [A], x, np.float32(3.0))
    np.testing.assert_allclose(b, ref(np.float32(3.0), a), rtol=1e-6)


def test_const_expr_and_broadcast_with_tensor_on_the_right():
    A = te.placeholder((2, 3), "float32", name="A")
    C = te.placeholder((3,), "float32", name="C")
    B = tir.const(0.5, "float32") * A + C
    (a, c), b = _run(B, [A, C])
    np.testing.assert_allclose(b, 0.5 * a + c, rtol=1e-6)


def test_expressions_without_tensors_are_unchanged():
    x = te.var("x")
    assert isinstance(x + 1, tir.PrimExpr) and isinstance(2 * x, tir.PrimExpr)
    assert isinstance(x * te.var("y"), tir.PrimExpr)


def test_operators_work_without_importing_topi_first():
    code = ("import sys; sys.path.insert(0, %r)\nfrom tepad import te\n"
            "A = te.placeholder((4,), name='A')\nB = 2.0 * A\nprint(B.op.name)" % str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "T_multiply"
