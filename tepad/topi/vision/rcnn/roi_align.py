"""ROI align (Mask R-CNN): each region of interest is divided into pooled_size bins and
each bin averages (or takes the max of) bilinear samples of the feature map on a regular
grid inside it -- no rounding of coordinates, unlike ``roi_pool``.

A region is ``rois[i] = (batch index, x0, y0, x1, y1)`` in input pixels before
``spatial_scale``; its sides are at least 1 pixel. The sample grid per bin is
``sample_ratio`` x ``sample_ratio``, or, when ``sample_ratio <= 0``, ``ceil(roi side /
pooled side)`` per side -- then the reduction's extent depends on the ROI read at run time.
A sample more than one pixel outside the map is 0; otherwise its coordinate is clamped
into the map."""
from __future__ import annotations

from ....errors import TepadError
from ....tensor import Tensor, compute, reduce_axis
from ....tensor import operation as te_op
from ....tir import op as tirop
from ....tir.expr import const


def _pair(pooled_size):
    if isinstance(pooled_size, int):
        return pooled_size, pooled_size
    p = tuple(int(v) for v in pooled_size)
    if len(p) != 2:
        raise TepadError(f"roi_align: pooled_size is an int or (height, width), got "
                         f"{pooled_size!r}")
    return p


def _mode(mode):
    if mode in (b"avg", "avg", 0):
        return True
    if mode in (b"max", "max", 1):
        return False
    raise TepadError(f"roi_align: mode is 'avg' (0) or 'max' (1), got {mode!r}")


def _roi_align(data, rois, pooled_size, spatial_scale, mode, sample_ratio, layout):
    what = f"roi_align_{layout.lower()}"
    for t, nm, nd in ((data, "data", 4), (rois, "rois", 2)):
        if not isinstance(t, Tensor) or len(t.shape) != nd:
            raise TepadError(f"{what}: {nm} must be a {nd}-d te.Tensor, got {t!r}")
    avg = _mode(mode)
    ph, pw = _pair(pooled_size)
    dtype = data.dtype
    if layout == "NCHW":
        _, channels, height, width = data.shape
    else:
        _, height, width, channels = data.shape

    def read(n, c, y, x):
        return data[n, c, y, x] if layout == "NCHW" else data[n, y, x, c]

    def f(v):
        return const(float(v), dtype)

    def bilinear(n, c, y, x):
        outside = tirop.any(y < f(-1.0), y > height.astype(dtype), x < f(-1.0),
                            x > width.astype(dtype))
        y = tirop.min(tirop.max(y, f(0.0)), (height - 1).astype(dtype))
        x = tirop.min(tirop.max(x, f(0.0)), (width - 1).astype(dtype))
        y0, x0 = tirop.floor(y).astype("int32"), tirop.floor(x).astype("int32")
        y1, x1 = tirop.min(y0 + 1, height - 1), tirop.min(x0 + 1, width - 1)
        wy, wx = y - y0.astype(dtype), x - x0.astype(dtype)
        val = (read(n, c, y0, x0) * (f(1.0) - wy) * (f(1.0) - wx) +
               read(n, c, y0, x1) * (f(1.0) - wy) * wx +
               read(n, c, y1, x0) * wy * (f(1.0) - wx) + read(n, c, y1, x1) * wy * wx)
        return tirop.if_then_else(outside, f(0.0), val)

    def sample(i, c, py, px):
        b = rois[i, 0].astype("int32")
        x0, y0 = rois[i, 1] * f(spatial_scale), rois[i, 2] * f(spatial_scale)
        x1, y1 = rois[i, 3] * f(spatial_scale), rois[i, 4] * f(spatial_scale)
        rh = tirop.max(y1 - y0, f(1.0))
        rw = tirop.max(x1 - x0, f(1.0))
        bh, bw = rh / f(ph), rw / f(pw)
        if sample_ratio > 0:
            gh = gw = const(int(sample_ratio), "int32")
        else:
            gh = tirop.ceil(rh / f(ph)).astype("int32")
            gw = tirop.ceil(rw / f(pw)).astype("int32")
        ry, rx = reduce_axis((0, gh), name="rh"), reduce_axis((0, gw), name="rw")
        y = y0 + py.astype(dtype) * bh + (ry.var.astype(dtype) + f(0.5)) * bh / gh.astype(dtype)
        x = x0 + px.astype(dtype) * bw + (rx.var.astype(dtype) + f(0.5)) * bw / gw.astype(dtype)
        v = bilinear(b, c, y, x)
        if avg:
            return te_op.sum(v / (gh * gw).astype(dtype), axis=[ry, rx])
        return te_op.max(v, axis=[ry, rx])

    nroi = rois.shape[0]
    if layout == "NCHW":
        return compute((nroi, channels, ph, pw), lambda i, c, y, x: sample(i, c, y, x),
                       name="roi_align", tag="pool,roi_align_nchw")
    return compute((nroi, ph, pw, channels), lambda i, y, x, c: sample(i, c, y, x),
                   name="roi_align", tag="pool,roi_align_nhwc")


def roi_align_nchw(data, rois, pooled_size, spatial_scale, mode, sample_ratio=-1):
    """ROI align of NCHW ``data`` (module doc); ``rois`` (R, 5); ``mode`` "avg" / "max"
    (or 0 / 1). Result (R, C, PH, PW), stage ``roi_align``."""
    return _roi_align(data, rois, pooled_size, spatial_scale, mode, sample_ratio, "NCHW")


def roi_align_nhwc(data, rois, pooled_size, spatial_scale, mode, sample_ratio=-1):
    """``roi_align_nchw`` for NHWC ``data``; result (R, PH, PW, C)."""
    return _roi_align(data, rois, pooled_size, spatial_scale, mode, sample_ratio, "NHWC")


__all__ = ["roi_align_nchw", "roi_align_nhwc"]
