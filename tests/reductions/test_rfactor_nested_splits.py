"""rfactor of a loop from nested splits that do not divide (or whose factor exceeds the
piece they split): the factored stage must guard every such split on the path from the
factored loop to the root, not only the root (TVM's PassUpBoundCheck in Rfactor). Without
the inner guard the inner piece runs past its parent into the next tile and an element is
summed twice. Numerics against numpy in both bound modes."""
import numpy as np
import pytest

import tepad
from tepad import te

RNG = np.random.default_rng(31)
MODES = [False, True]


def _run(s, args, inputs, exact):
    f = tepad.build(tepad.lower(s, args, exact_bounds=exact), bounds_check=True)
    arrays = list(inputs) + [np.zeros([int(x) for x in args[-1].shape], args[-1].dtype)]
    f(*arrays)
    return arrays[-1]


@pytest.mark.parametrize("exact", MODES)
def test_inner_piece_of_a_nested_split_factor_larger_than_its_extent(exact):
    A = te.placeholder((4,), name="A")
    k = te.reduce_axis((0, 4), name="k")
    B = te.compute((1,), lambda i: te.sum(A[k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(k, factor=2)
    kio, kii = s[B].split(ki, factor=3)       # 3 > the extent 2 of ki
    s.rfactor(B, kii)
    a = np.array([1, 10, 100, 1000], "float32")
    b = _run(s, [A, B], [a], exact)
    assert b[0] == 1111.0


def test_the_factored_stage_guards_the_inner_split():
    A = te.placeholder((4,), name="A")
    k = te.reduce_axis((0, 4), name="k")
    B = te.compute((1,), lambda i: te.sum(A[k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(k, factor=2)
    kio, kii = s[B].split(ki, factor=3)
    BF = s.rfactor(B, kii)
    cond = BF.op.body[0].condition
    # k.inner = k.inner.outer * 3 + k.inner.inner must stay below 2 (k.inner.outer has one
    # iteration, so the guard reads k.inner.inner < 2)
    assert "k.inner.inner < 2" in str(cond).replace("_", "."), cond


@pytest.mark.parametrize("exact", MODES)
@pytest.mark.parametrize("outer,inner,how", [(4, 3, "factor"), (5, 2, "nparts"),
                                            (3, 16, "factor"), (4, 3, "nparts")])
@pytest.mark.parametrize("pick", ["inner", "outer"])
def test_nested_splits_of_a_reduce_axis_each_piece(exact, outer, inner, how, pick):
    A = te.placeholder((3, 11), name="A")
    k = te.reduce_axis((0, 11), name="k")
    B = te.compute((3,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(k, factor=outer)
    kio, kii = s[B].split(ki, **{how: inner})
    BF = s.rfactor(B, kii if pick == "inner" else kio, factor_axis=1)
    s[BF].compute_at(s[B], s[B].op.axis[0])
    a = RNG.random((3, 11)).astype("float32")
    np.testing.assert_allclose(_run(s, [A, B], [a], exact), a.sum(1), rtol=1e-5)


@pytest.mark.parametrize("exact", MODES)
def test_nested_split_of_the_outer_piece_and_an_integer_count(exact):
    """Exactly once per element: an int32 count of the ones makes a double count visible."""
    A = te.placeholder((2, 13), "int32", name="A")
    k = te.reduce_axis((0, 13), name="k")
    B = te.compute((2,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(k, factor=3)           # ko: 5 (13 = 4 * 3 + 1)
    koo, koi = s[B].split(ko, factor=2)        # 3 x 2 = 6 > 5
    kio, kii = s[B].split(ki, nparts=2)        # 2 x 2 = 4 > 3
    s.rfactor(B, koi)
    a = np.ones((2, 13), "int32")
    np.testing.assert_array_equal(_run(s, [A, B], [a], exact), [13, 13])
