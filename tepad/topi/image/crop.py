"""``topi.image.crop_and_resize`` (TensorFlow's op): for each box ``(y1, x1, y2, x2)``
(fractions of the image, read from the ``boxes`` tensor at run time) of image
``box_indices[b]``, a ``crop_size`` sampling of that box: output pixel (y, x) reads the
image at ``y1 * (H - 1) + y * (y2 - y1) * (H - 1) / (crop_h - 1)`` (the box centre when
``crop_h`` is 1), likewise for x; a point outside the image gives ``extrapolation_value``."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute
from ...tir import op as tirop
from ...tir.expr import const
from ..utils import get_const_tuple


def _coord(lo, hi, i, size, out):
    ext = const(float(size - 1), "float32")
    if out > 1:
        return lo * ext + i.astype("float32") * ((hi - lo) * ext / const(float(out - 1), "float32"))
    return const(0.5, "float32") * (lo + hi) * ext


def crop_and_resize(data: Tensor, boxes: Tensor, box_indices: Tensor, crop_size,
                    layout="NCHW", method="bilinear", extrapolation_value=None,
                    out_dtype=None) -> Tensor:
    """``data`` (NCHW or NHWC), ``boxes`` (B, 4) float, ``box_indices`` (B,) int ->
    (B, C, crop_h, crop_w) (or NHWC). ``method`` "bilinear" or "nearest_neighbor" (round
    to nearest); ``extrapolation_value`` default 0."""
    name = "topi.image.crop_and_resize"
    if not isinstance(data, Tensor) or len(data.shape) != 4:
        raise TepadError(f"{name}: data must be a 4-d te.Tensor, got {data!r}")
    if layout not in ("NCHW", "NHWC"):
        raise TepadError(f"{name}: layout must be 'NCHW' or 'NHWC', got {layout!r}")
    method = {"linear": "bilinear", "nearest": "nearest_neighbor"}.get(method, method)
    if method not in ("bilinear", "nearest_neighbor"):
        raise TepadError(f"{name}: method must be 'bilinear' or 'nearest_neighbor', got "
                         f"{method!r}")
    if len(boxes.shape) != 2 or get_const_tuple(boxes.shape)[1] != 4 or \
            len(box_indices.shape) != 1:
        raise TepadError(f"{name}: boxes must be (B, 4) and box_indices (B,), got "
                         f"{list(boxes.shape)} and {list(box_indices.shape)}")
    ch, cw = (int(s) for s in crop_size)
    hx, wx = layout.index("H"), layout.index("W")
    cx = layout.index("C")
    h, w = get_const_tuple((data.shape[hx], data.shape[wx]))
    out_dtype = out_dtype or data.dtype
    ext = const(float(extrapolation_value or 0.0), "float32")
    shape = [boxes.shape[0], 0, 0, 0]
    shape[cx], shape[hx], shape[wx] = data.shape[cx], ch, cw

    def body(*idx):
        b = idx[0]
        img = box_indices[b]
        y1, x1 = boxes[b, 0].astype("float32"), boxes[b, 1].astype("float32")
        y2, x2 = boxes[b, 2].astype("float32"), boxes[b, 3].astype("float32")
        iy = _coord(y1, y2, idx[hx], h, ch)
        ix = _coord(x1, x2, idx[wx], w, cw)

        def px(yy, xx):
            src = [img, 0, 0, 0]
            src[cx] = idx[cx]
            src[hx] = tirop.min(tirop.max(yy, 0), h - 1)
            src[wx] = tirop.min(tirop.max(xx, 0), w - 1)
            return data[tuple(src)].astype("float32")
        if method == "nearest_neighbor":
            val = px(tirop.round(iy).astype("int32"), tirop.round(ix).astype("int32"))
        else:
            y0, x0 = tirop.floor(iy), tirop.floor(ix)
            fy, fx = iy - y0, ix - x0
            y0i, x0i = y0.astype("int32"), x0.astype("int32")
            y1i, x1i = tirop.ceil(iy).astype("int32"), tirop.ceil(ix).astype("int32")
            top = px(y0i, x0i) + (px(y0i, x1i) - px(y0i, x0i)) * fx
            bot = px(y1i, x0i) + (px(y1i, x1i) - px(y1i, x0i)) * fx
            val = top + (bot - top) * fy
        outside = tirop.any(iy < 0, iy > float(h - 1), ix < 0, ix > float(w - 1))
        return tirop.if_then_else(outside, ext, val).astype(out_dtype)

    return compute(tuple(shape), body, name="crop_and_resize", tag="injective")


__all__ = ["crop_and_resize"]
