"""A stage listed in ``te.scan(..., inputs=[X])`` may be inlined: ``inputs`` only bounds the
scan's body (TVM's ScanGetBody), so inlining X rewrites init and update, and the scan no
longer lists it. Numerics against numpy in both bound modes."""
import numpy as np
import pytest

import tepad
from tepad import TepadError, te


def _scan_through_x(name="R"):
    A = te.placeholder((4, 3), name="A")
    X = te.compute((4, 3), lambda t, i: A[t, i] * 2.0, name="X")
    S = te.placeholder((4, 3), name="S")
    init = te.compute((1, 3), lambda t, i: X[t, i], name="init")
    update = te.compute((4, 3), lambda t, i: S[t - 1, i] + X[t, i], name="update")
    R = te.scan(init, update, S, inputs=[X], name=name)
    return A, X, init, update, R


@pytest.mark.parametrize("exact", [False, True])
def test_inlined_scan_input_matches_numpy(exact):
    A, X, init, update, R = _scan_through_x()
    s = te.create_schedule(R.op)
    s[X].compute_inline()
    f = tepad.build(tepad.lower(s, [A, R], exact_bounds=exact), bounds_check=True)
    a = np.random.default_rng(2).random((4, 3)).astype("float32")
    r = np.zeros((4, 3), "float32")
    f(a, r)
    np.testing.assert_allclose(r, np.cumsum(2 * a, axis=0), rtol=1e-6)


def test_the_inlined_input_leaves_the_scan_and_is_not_realized():
    A, X, init, update, R = _scan_through_x()
    s = te.create_schedule(R.op)
    s[X].compute_inline()
    text = str(tepad.lower(s, [A, R]))
    assert "X" not in text.replace("max", "")     # no buffer, no realize of X


@pytest.mark.parametrize("exact", [False, True])
def test_scan_input_with_a_split_update_and_inlined_input(exact):
    A = te.placeholder((5, 7), name="A")
    X = te.compute((5, 7), lambda t, i: A[t, i] + 1.0, name="X")
    S = te.placeholder((5, 7), name="S")
    init = te.compute((1, 7), lambda t, i: X[t, i], name="init")
    update = te.compute((5, 7), lambda t, i: te.max(S[t - 1, i], X[t, i]), name="update")
    R = te.scan(init, update, S, inputs=[X], name="R")
    s = te.create_schedule(R.op)
    s[X].compute_inline()
    io, ii = s[update].split(update.op.axis[1], factor=3)
    f = tepad.build(tepad.lower(s, [A, R], exact_bounds=exact), bounds_check=True)
    a = np.random.default_rng(3).standard_normal((5, 7)).astype("float32")
    r = np.zeros((5, 7), "float32")
    f(a, r)
    np.testing.assert_allclose(r, np.maximum.accumulate(a + 1, axis=0), rtol=1e-6)


def test_init_and_update_still_cannot_be_inlined():
    A, X, init, update, R = _scan_through_x()
    s = te.create_schedule(R.op)
    for t in (init, update):
        with pytest.raises(TepadError, match="init or update of scan R"):
            s[t].compute_inline()
