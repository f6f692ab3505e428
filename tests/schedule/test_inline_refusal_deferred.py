"""``compute_inline`` of a reduction or of a multi-output stage: accepted by the call and
refused when the schedule is lowered, as TVM does (its InjectInline fails inside build), so
a program that wraps ``build`` in ``try`` (FlexTensor's legacy test_compute_inline.py) sees
the error there; a later compute_root / compute_at replaces the refused inlining."""
import numpy as np
import pytest

import tepad
from tepad import TepadError, te


def _reduction():
    A = te.placeholder((6, 5), name="A")
    k = te.reduce_axis((0, 5), name="k")
    R = te.compute((6,), lambda i: te.sum(A[i, k], axis=k), name="R")
    O = te.compute((6,), lambda i: R[i] * 2.0, name="O")
    return A, R, O


def _check(s, A, O):
    a = np.random.default_rng(0).uniform(-1, 1, (6, 5)).astype("float32")
    f = tepad.build(s, [A, O], "llvm")
    o = tepad.nd.array(np.zeros(6, "float32"))
    f(tepad.nd.array(a), o)
    np.testing.assert_allclose(o.numpy(), a.sum(1) * 2.0, rtol=1e-5)


def test_inline_reduction_fails_in_build():
    A, R, O = _reduction()
    s = te.create_schedule(O.op)
    s[R].compute_inline()
    with pytest.raises(TepadError, match="R is a reduction and cannot be inlined"):
        tepad.build(s, [A, O], "llvm")


def test_compute_root_replaces_refused_inline():
    A, R, O = _reduction()
    s = te.create_schedule(O.op)
    s[R].compute_inline()
    s[R].compute_root()
    _check(s, A, O)
    s2 = te.create_schedule(O.op)
    s2[R].compute_inline()
    s2[R].compute_at(s2[O], O.op.axis[0])
    _check(s2, A, O)


def test_inline_multi_output_fails_in_lower():
    A = te.placeholder((4,), name="A")
    P, Q = te.compute((4,), lambda i: [A[i] + 1.0, A[i] * 2.0], name="PQ")
    O = te.compute((4,), lambda i: P[i] + Q[i], name="O")
    s = te.create_schedule(O.op)
    s[P].compute_inline()
    with pytest.raises(TepadError, match="PQ has several outputs and cannot be inlined"):
        tepad.lower(s, [A, O])


def test_inline_output_still_refused_at_once():
    A, R, O = _reduction()
    s = te.create_schedule(O.op)
    with pytest.raises(TepadError, match="O is an output"):
        s[O].compute_inline()
