"""topi.testing's numpy references for attention, l2_normalize, slice_axis, the older
pooling / resize entry points, upsampling3d, grid_sample_nchw and ROI align / pool: each
checked against an independent computation (hand loops, numpy, or tepad's topi op)."""
import numpy as np
import pytest

from tepad import topi
from tepad.errors import TepadError
from tepad.topi import testing as tt

from topi_helpers import placeholder, rand, run


def _softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("causal, window", [("none", None), ("TopLeft", None),
                                            ("BottomRight", 2)])
def test_attention_python(causal, window):
    b, s, skv, heads, kv_heads, d = 2, 3, 4, 4, 2, 5
    q, k, v = rand((b, s, heads, d)), rand((b, skv, kv_heads, d)), rand((b, skv, kv_heads, d))
    got = tt.attention_python(q, k, v, None, 0.5, causal, window, "BSNH")
    ref = np.zeros((b, s, heads, d))
    off = 0 if causal != "BottomRight" else skv - s
    for bb in range(b):
        for h in range(heads):
            kh = h // (heads // kv_heads)
            for i in range(s):
                js = [j for j in range(skv) if causal == "none" or
                      (j <= i + off and (not window or j >= i - window + 1))]
                sc = np.array([q[bb, i, h] @ k[bb, j, kh] * 0.5 for j in js])
                p = _softmax(sc)
                ref[bb, i, h] = sum(pj * v[bb, j, kh] for pj, j in zip(p, js))
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-7)
    bnsh = tt.attention_python(*(x.transpose(0, 2, 1, 3) for x in (q, k, v)), None, 0.5,
                               causal, window, "BNSH")
    np.testing.assert_allclose(bnsh.transpose(0, 2, 1, 3), got, rtol=1e-6)


def test_l2_normalize_and_slice_axis():
    a = rand((2, 3, 4))
    got = tt.l2_normalize_python(a, 1e-3, (1,))
    ref = a / np.sqrt(np.maximum((a ** 2).sum(axis=1, keepdims=True), 1e-3))
    np.testing.assert_allclose(got, ref, rtol=1e-6)
    np.testing.assert_array_equal(tt.slice_axis_python(a, -1, 1, -1), a[:, :, 1:3])
    np.testing.assert_array_equal(tt.slice_axis_python(a, 1, -2, 0), a[:, 1:, :])


def test_pool1d_pool3d_references_match_topi():
    x1 = rand((1, 2, 9))
    X1 = placeholder(x1, "X1")
    for kind in ("max", "avg"):
        ref = tt.pool1d_ncw_python(x1, (3,), (2,), (1, 1), (1, 2, 5), kind, False)
        got = run(topi.nn.pool1d(X1, (3,), (2,), (1,), (1, 1), kind, count_include_pad=False),
                  [X1], [x1])
        np.testing.assert_allclose(got, ref, rtol=1e-5)
    x3 = rand((1, 1, 4, 4, 4))
    ref = tt.pool3d_ncdhw_python(x3, (2, 2, 2), (2, 2, 2), (0,) * 6, (1, 1, 2, 2, 2), "max")
    np.testing.assert_allclose(ref, x3.reshape(1, 1, 2, 2, 2, 2, 2, 2).max(axis=(3, 5, 7)))
    with pytest.raises(TepadError, match="out_shape"):
        tt.pool1d_ncw_python(x1, (3,), (2,), (1, 1), (1, 2, 4), "max")


def test_resize_references_match_topi_image():
    x = rand((1, 2, 5))
    X = placeholder(x, "X")
    for method, mode in (("linear", "align_corners"), ("nearest_neighbor", "asymmetric")):
        ref = tt.resize1d_python(x, (2.0,), "NCW", method, mode)
        got = run(topi.image.resize1d(X, None, (10,), "NCW", method, mode,
                                      rounding_method="floor" if "nearest" in method else ""),
                  [X], [x])
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)
    img = rand((1, 2, 3, 4))
    ref = tt.bilinear_resize_python(img, (6, 8), "NCHW")
    # align_corners: the corners land on the corners, the middle of a 2x stretch halfway
    np.testing.assert_allclose(ref[..., 0, 0], img[..., 0, 0], rtol=1e-6)
    np.testing.assert_allclose(ref[..., -1, -1], img[..., -1, -1], rtol=1e-6)
    vol = rand((1, 1, 2, 3, 4))
    V = placeholder(vol, "V")
    ref = tt.trilinear_resize3d_python(vol, (4, 6, 8), "NCDHW", "half_pixel")
    got = run(topi.image.resize3d(V, None, (4, 6, 8), "NCDHW", "linear", "half_pixel"), [V],
              [vol])
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


def test_upsampling3d_and_grid_sample_references():
    vol = rand((1, 2, 2, 2, 3))
    V = placeholder(vol, "V")
    got = run(topi.nn.upsampling3d(V, 2, 2, 2, coordinate_transformation_mode="asymmetric"),
              [V], [vol])
    np.testing.assert_array_equal(got, tt.upsampling3d_python(vol, (2, 2, 2)))
    data = rand((1, 2, 4, 5))
    grid = rand((1, 2, 3, 3), lo=-1.2, hi=1.2)
    D, G = placeholder(data, "D"), placeholder(grid, "G")
    got = run(topi.image.grid_sample(D, G, "bilinear", "NCHW", "zeros", True), [D, G],
              [data, grid])
    np.testing.assert_allclose(got, tt.grid_sample_nchw_python(data, grid), rtol=1e-5,
                               atol=1e-6)


def test_roi_align_reference_by_hand():
    img = np.arange(16, dtype="float32").reshape(1, 1, 4, 4)     # value = 4 * y + x
    rois = np.array([[0, 0.0, 0.0, 2.0, 2.0]], "float32")
    # one bin over [0, 2) x [0, 2), 2 x 2 samples at 0.5 and 1.5: bilinear of a linear image
    got = tt.roi_align_nchw_python(img, rois, 1, 1.0, 2)
    np.testing.assert_allclose(got, [[[[4 * 1.0 + 1.0]]]])
    mx = tt.roi_align_nchw_python(img, rois, (1, 1), 1.0, 2, "max")
    np.testing.assert_allclose(mx, [[[[4 * 1.5 + 1.5]]]])
    nhwc = tt.roi_align_nhwc_python(img.transpose(0, 2, 3, 1), rois, 1, 1.0, 2)
    np.testing.assert_allclose(nhwc[..., 0], got[:, 0])


def test_roi_pool_reference_by_hand():
    img = np.arange(16, dtype="float32").reshape(1, 1, 4, 4)
    rois = np.array([[0, 0, 0, 3, 3], [0, 1, 1, 1, 1]], "float32")
    got = tt.roi_pool_nchw_python(img, rois, 2, 1.0)
    np.testing.assert_array_equal(got[0, 0], [[5, 7], [13, 15]])
    np.testing.assert_array_equal(got[1, 0], [[5, 5], [5, 5]])
