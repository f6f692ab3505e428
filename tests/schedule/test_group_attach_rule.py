"""A stage inside a group may be computed at stages of that group only (TVM's rule); the
group as a whole attaches anywhere. The schedule still computes the right values."""
import numpy as np
import pytest

import tepad as tvm
from tepad import te


def _chain():
    A = te.placeholder((8, 6), name="A")
    B = te.compute((8, 6), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((8, 6), lambda i, j: B[i, j] + 1.0, name="C")
    D = te.compute((8, 6), lambda i, j: C[i, j] * C[i, j], name="D")
    E = te.compute((8, 6), lambda i, j: D[i, j] - 3.0, name="E")
    return A, B, C, D, E


def test_member_cannot_attach_outside_its_group():
    A, B, C, D, E = _chain()
    s = te.create_schedule(E.op)
    g = s.create_group(outputs=C, inputs=A)
    s[B].compute_at(s[C], C.op.axis[0])          # inside the group: fine
    with pytest.raises(tvm.TepadError, match="group"):
        s[B].compute_at(s[D], D.op.axis[0])      # D is not in the group
    assert s[B].attach_stage is s[C]


def test_group_attached_as_a_whole_computes_correctly():
    A, B, C, D, E = _chain()
    s = te.create_schedule(E.op)
    g = s.create_group(outputs=C, inputs=A)
    s[B].compute_at(s[C], C.op.axis[1])
    g.compute_at(s[E], E.op.axis[0])
    s[D].compute_at(s[E], E.op.axis[0])
    f = tvm.build(s, [A, E])
    a = np.random.default_rng(4).uniform(size=(8, 6)).astype("float32")
    e = tvm.nd.empty((8, 6), "float32")
    f(tvm.nd.array(a), e)
    np.testing.assert_allclose(e.numpy(), (a * 2 + 1) ** 2 - 3, rtol=1e-5, atol=1e-5)
