"""ROI pooling (Fast R-CNN): the max of each of pooled_size bins of a region of interest,
the region's corners rounded to input pixels."""
from __future__ import annotations

from ....errors import TepadError
from ....tensor import Tensor, compute, reduce_axis
from ....tensor import operation as te_op
from ....tir import op as tirop
from ....tir.expr import const
from .roi_align import _pair


def roi_pool_nchw(data, rois, pooled_size, spatial_scale):
    """ROI max pooling of NCHW ``data`` for ``rois`` (R, 5: batch index, x0, y0, x1, y1):
    the corners times ``spatial_scale`` rounded to pixels (both ends included, sides at
    least 1), bin ``i`` of a side of b pixels covering ``[floor(i * b / P), ceil((i + 1) *
    b / P))`` clipped to the map; an empty bin is 0. Result (R, C, PH, PW), stage
    ``roi_pool`` (tag ``elemwise``) masking the empty bins of the max stage
    ``pool_tensor``, whose reduction extents depend on the ROIs read at run time)."""
    for t, nm, nd in ((data, "data", 4), (rois, "rois", 2)):
        if not isinstance(t, Tensor) or len(t.shape) != nd:
            raise TepadError(f"roi_pool_nchw: {nm} must be a {nd}-d te.Tensor, got {t!r}")
    ph, pw = _pair(pooled_size)
    dtype = data.dtype
    _, channels, height, width = data.shape

    def f(v):
        return const(float(v), dtype)

    def bounds(i, py, px):
        xs, ys, xe, ye = (tirop.round(rois[i, k] * f(spatial_scale)).astype("int32")
                          for k in (1, 2, 3, 4))
        bh = tirop.max(ye - ys + 1, 1).astype(dtype) / f(ph)
        bw = tirop.max(xe - xs + 1, 1).astype(dtype) / f(pw)

        def clip(v, hi):
            return tirop.min(tirop.max(v, 0), hi)
        return (clip(tirop.floor(py.astype(dtype) * bh).astype("int32") + ys, height),
                clip(tirop.ceil((py + 1).astype(dtype) * bh).astype("int32") + ys, height),
                clip(tirop.floor(px.astype(dtype) * bw).astype("int32") + xs, width),
                clip(tirop.ceil((px + 1).astype(dtype) * bw).astype("int32") + xs, width))

    def pool(i, c, py, px):
        h0, h1, w0, w1 = bounds(i, py, px)
        ry = reduce_axis((0, tirop.max(h1 - h0, 0)), name="rh")
        rx = reduce_axis((0, tirop.max(w1 - w0, 0)), name="rw")
        return te_op.max(data[rois[i, 0].astype("int32"), c, h0 + ry.var, w0 + rx.var],
                         axis=[ry, rx])

    shape = (rois.shape[0], channels, ph, pw)
    pooled = compute(shape, pool, name="pool_tensor", tag="pool,roi_pool_nchw")

    def masked(i, c, py, px):
        h0, h1, w0, w1 = bounds(i, py, px)
        return tirop.if_then_else(tirop.any(h1 <= h0, w1 <= w0), f(0.0), pooled[i, c, py, px])
    return compute(shape, masked, name="roi_pool", tag="elemwise")


__all__ = ["roi_pool_nchw"]
