"""A stage computed deep inside a consumer that reads it through a division or modulo.

The consumer of a reshaped cache (rows ``n`` folded as ``(n % 128) // 2``) runs, at the
attach point, over one tile ``[128*a + 32*b, 128*a + 32*b + 31]``. The read index stays in
one period of the modulo only because of the terms of the tile's start, so the region the
producer must provide there is 16 rows, not the whole 64 of one period."""
import numpy as np
import pytest

import tepad
from tepad import te
from tepad.bound import infer_bound


def _folded_cache_schedule():
    A = te.placeholder((256, 256), name="A", dtype="float16")
    C = te.compute((256, 256), lambda n, m: A[n, m] * 2, name="C")
    s = te.create_schedule(C.op)
    n, m = C.op.axis
    _, _, ni, mi = s[C].tile(n, m, 128, 128)
    _, nii = s[C].split(ni, 2)
    s[C].fuse(nii, mi)
    cache = s.cache_write(C, "shared")        # cache[n//128, m//128, (n%128)//2, ...]
    n, m = s[C].op.axis
    _, _, ni, _ = s[C].tile(n, m, 128, 128)
    nio, _ = s[C].split(ni, 32)
    s[cache].compute_at(s[C], nio)
    return s, A, C, cache


@pytest.mark.parametrize("exact", [False, True])
def test_region_at_the_attach_point_is_one_tile(exact):
    s, _, _, cache = _folded_cache_schedule()
    bounds = infer_bound(s, exact=exact)
    rows = bounds[cache.op.axis[2]]
    assert int(rows.extent) == 16
    assert int(bounds[cache.op.axis[3]].extent) == 256


def test_folded_cache_computes_the_consumer():
    s, A, C, _ = _folded_cache_schedule()
    f = tepad.build(s, [A, C])
    a = np.random.default_rng(0).standard_normal((256, 256)).astype("float16")
    c = tepad.nd.empty((256, 256), "float16")
    f(tepad.nd.array(a), c)
    np.testing.assert_array_equal(c.numpy(), a * np.float16(2))
