"""topi.testing.poolnd_python (the numpy reference TVM's pooling tests compare against),
checked against windows taken with numpy's sliding_window_view on an explicitly padded
input, and timed: it gathers per kernel offset, not per output cell."""
import time

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

from tepad.topi import testing as tt


def _windows(x, kernel, strides, dilation, pb, pa, fill):
    """(N, C, *out, *kernel) windows of NC... input ``x`` padded with ``fill``."""
    nd = len(kernel)
    pad = [(0, 0), (0, 0)] + list(zip(pb, pa))
    xp = np.pad(x, pad, constant_values=fill)
    ek = [(k - 1) * d + 1 for k, d in zip(kernel, dilation)]
    w = sliding_window_view(xp, ek, axis=tuple(range(2, 2 + nd)))
    sl = (slice(None), slice(None)) + tuple(slice(None, None, s) for s in strides) + \
        tuple(slice(None, None, d) for d in dilation)
    return w[sl]


@pytest.mark.parametrize("kernel, strides, dilation, pb, pa", [
    ((2, 2), (2, 2), (1, 1), (0, 0), (0, 0)),
    ((3, 3), (1, 2), (1, 1), (1, 1), (1, 2)),
    ((2, 3), (1, 1), (2, 1), (1, 0), (0, 1)),
    ((3,), (2,), (1,), (1,), (1,)),
    ((2, 2, 2), (1, 2, 1), (1, 1, 2), (1, 0, 1), (0, 1, 1)),
])
def test_pool_reference_matches_sliding_windows(kernel, strides, dilation, pb, pa):
    nd = len(kernel)
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 3) + (7,) * nd).astype("float32")
    axes = tuple(range(-nd, 0))
    got = tt.poolnd_python(x, kernel, strides, dilation, pb, pa, "max",
                           count_include_pad=False)
    want = _windows(x, kernel, strides, dilation, pb, pa, -np.inf).max(axis=axes)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    got = tt.poolnd_python(x, kernel, strides, dilation, pb, pa, "avg", count_include_pad=True)
    want = _windows(x, kernel, strides, dilation, pb, pa, 0.0).sum(axis=axes) / np.prod(kernel)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    got = tt.poolnd_python(x, kernel, strides, dilation, pb, pa, "avg",
                           count_include_pad=False)
    ones = _windows(np.ones_like(x), kernel, strides, dilation, pb, pa, 0.0).sum(axis=axes)
    want = _windows(x, kernel, strides, dilation, pb, pa, 0.0).sum(axis=axes) / ones
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_pool_reference_channels_last_and_ceil_mode():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(1, 5, 5, 2)).astype("float32")          # NHWC
    got = tt.poolnd_python(x, (2, 2), (2, 2), (1, 1), (0, 0), (0, 0), "max",
                           ceil_mode=True, layout="NHWC")
    assert got.shape == (1, 3, 3, 2)
    # ceil mode adds a last, partial window per axis: here the lone last row / column
    want = np.empty((1, 3, 3, 2), "float32")
    for i in range(3):
        for j in range(3):
            want[0, i, j] = x[0, 2 * i:2 * i + 2, 2 * j:2 * j + 2].max(axis=(0, 1))
    np.testing.assert_allclose(got, want)


def test_pool_reference_is_fast_on_a_tvm_test_size():
    x = np.random.default_rng(5).normal(size=(1, 16, 32, 32, 32)).astype("float32")
    t0 = time.perf_counter()
    out = tt.poolnd_python(x, (3, 3, 3), (1, 1, 1), (1, 1, 1), (1, 1, 1), (1, 1, 1), "avg")
    assert out.shape == (1, 16, 32, 32, 32)
    # 0.23 s here; the per-output-cell loop it replaced took 5.1 s (a shared 2-core host)
    assert time.perf_counter() - t0 < 3.0
