"""rolling_buffer where the consumer's loops (and the rolling producer's own loops) come from
nested splits that do not divide, or whose factor exceeds the piece they split: the producer
is computed at the outer, middle or inner piece and rolls along it; every non-dividing split
on the way to the root keeps its guard, so no row is skipped as "already computed" by an
iteration that ran past its tile. Numerics against numpy (bounds-checked code) in both
bound modes."""
import numpy as np
import pytest

import tepad
from tepad import TepadError, te

RNG = np.random.default_rng(17)

CASES = [(5, 2, "factor", 1, False), (5, 3, "factor", 2, True), (5, 7, "factor", 0, True),
         (4, 3, "nparts", 1, True), (5, 7, "nparts", 2, False), (4, 7, "factor", 1, True)]


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("f1,f2,how,at,split_producer", CASES)
def test_rolling_producer_under_nested_splits(exact, f1, f2, how, at, split_producer):
    A = te.placeholder((14, 4), name="A")
    B = te.compute((13, 4), lambda i, j: A[i, j] + A[i + 1, j], name="B")
    C = te.compute((12, 4), lambda i, j: B[i, j] + B[i + 1, j], name="C")
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=f1)
    iio, iii = s[C].split(ii, **{how: f2})
    s[B].compute_at(s[C], [io, iio, iii][at])
    s[B].rolling_buffer()
    if split_producer:
        bo, bi = s[B].split(s[B].op.axis[0], factor=3)
        s[B].split(bi, factor=2)
    try:
        f = tepad.build(tepad.lower(s, [A, C], exact_bounds=exact), bounds_check=True)
    except TepadError as err:       # a window that does not roll is refused, never wrong
        assert "B" in str(err)
        return
    a = RNG.random((14, 4), dtype=np.float32)
    c = np.zeros((12, 4), "float32")
    f(a, c)
    b = a[:-1] + a[1:]
    np.testing.assert_allclose(c, b[:-1] + b[1:], rtol=1e-6)
