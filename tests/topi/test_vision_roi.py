"""topi.vision's ROI align / ROI pooling against topi.testing's numpy references, on the
plain, x86, generic and emulated CUDA schedules (the adaptive sample grid makes the
reduction extents depend on the ROIs read at run time)."""
import numpy as np
import pytest

from tepad import te, topi
from tepad.errors import TepadError

from topi_helpers import RNG, placeholder, run

ROIS = np.array([[0, 1, 1, 6, 5], [1, 0.5, 2.2, 7.5, 7.9], [0, -2, 3, 3, 12],
                 [1, 4, 4, 4.2, 4.1]], "float32")


@pytest.mark.parametrize("sample_ratio", [2, -1])
@pytest.mark.parametrize("mode", ["avg", "max"])
@pytest.mark.parametrize("kind, target", [(None, "llvm"), ("x86", "llvm"), ("cuda", "cuda")])
def test_roi_align(sample_ratio, mode, kind, target):
    a = RNG.random((2, 3, 8, 8)).astype("float32")
    A, R = placeholder(a, "A"), placeholder(ROIS, "R")
    sched = getattr(topi, kind).schedule_roi_align if kind else None
    out = topi.vision.roi_align_nchw(A, R, (3, 2), 0.9, mode, sample_ratio)
    ref = topi.testing.roi_align_nchw_python(a, ROIS, (3, 2), 0.9, sample_ratio, mode)
    np.testing.assert_allclose(run(out, [A, R], [a, ROIS], sched, target), ref, rtol=1e-5,
                               atol=1e-6)


def test_roi_align_nhwc():
    a = RNG.random((2, 8, 8, 3)).astype("float32")
    A, R = placeholder(a, "A"), placeholder(ROIS, "R")
    out = topi.vision.roi_align_nhwc(A, R, 3, 0.9, "avg", -1)
    ref = topi.testing.roi_align_nhwc_python(a, ROIS, 3, 0.9, -1)
    np.testing.assert_allclose(run(out, [A, R], [a, ROIS], topi.generic.schedule_roi_align),
                               ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind, target", [(None, "llvm"), ("x86", "llvm"), ("cuda", "cuda")])
def test_roi_pool(kind, target):
    a = RNG.random((2, 3, 8, 8)).astype("float32")
    A, R = placeholder(a, "A"), placeholder(ROIS, "R")
    sched = getattr(topi, kind).schedule_roi_pool if kind else None
    out = topi.vision.rcnn.roi_pool_nchw(A, R, 3, 0.9)
    ref = topi.testing.roi_pool_nchw_python(a, ROIS, 3, 0.9)
    np.testing.assert_array_equal(run(out, [A, R], [a, ROIS], sched, target), ref)


def test_roi_align_errors():
    A, R = te.placeholder((1, 2, 4, 4), name="A"), te.placeholder((1, 5), name="R")
    with pytest.raises(TepadError, match="'avg'"):
        topi.vision.roi_align_nchw(A, R, 2, 1.0, "mean")
    with pytest.raises(TepadError, match="rois must be a 2-d"):
        topi.vision.roi_align_nchw(A, A, 2, 1.0, "avg")
