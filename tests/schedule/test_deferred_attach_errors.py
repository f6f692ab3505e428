"""A compute_at that can never lower (an output, the stage itself, a cycle) is accepted by
``compute_at`` and refused when the schedule is bounded or lowered, as in TVM; a later
compute_at / compute_root / compute_inline replaces the refused attachment."""
import numpy as np
import pytest

import tepad
from tepad import TepadError, te


def _three():
    A = te.compute((16, 16), lambda i, j: (i + j).astype("float32"), name="A")
    B = te.compute((16, 16), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((16, 16), lambda i, j: B[i, j] + 1.0, name="C")
    return A, B, C


def test_output_at_itself_fails_when_lowered():
    A, B, C = _three()
    s = te.create_schedule(C.op)
    s[C].compute_at(s[C], C.op.axis[0])
    with pytest.raises(RuntimeError, match="stage C is an output"):
        tepad.lower(s, [C])
    with pytest.raises(TepadError, match="stage C is an output"):
        te.schedule.InferBound(s)


def test_cycle_through_an_output_fails_when_lowered():
    A, B, C = _three()
    s = te.create_schedule(C.op)
    s[A].compute_at(s[C], C.op.axis[0])
    s[C].compute_at(s[A], A.op.axis[0])
    with pytest.raises(TepadError, match="invalid schedule: stage C is an output"):
        tepad.lower(s, [C])


def test_refused_attachment_is_replaced_by_a_valid_one():
    A, B, C = _three()
    s = te.create_schedule(C.op)
    s[B].compute_at(s[B], B.op.axis[0])       # refused, remembered
    s[B].compute_at(s[C], C.op.axis[0])       # replaces it
    f = tepad.build(s, [C])
    c = tepad.nd.empty((16, 16), "float32")
    f(c)
    i, j = np.indices((16, 16))
    np.testing.assert_allclose(c.numpy(), (i + j) * 2.0 + 1.0)


def test_compute_root_clears_a_refused_attachment():
    A, B, C = _three()
    s = te.create_schedule(C.op)
    s[A].compute_at(s[B], B.op.axis[0])
    s[B].compute_at(s[A], A.op.axis[0])       # a cycle: refused
    s[B].compute_root()
    assert "for" in str(tepad.lower(s, [C]))
