"""``topi.nn.upsampling``: scaling the H and W axes by factors, through ``image.resize2d``."""
from __future__ import annotations

from ...errors import TepadError
from ..image.resize import resize2d, resize3d
from ..utils import nchw_pack_layout
from .utils import const_extents


def upsampling(data, scale_h, scale_w, layout="NCHW", method="nearest_neighbor",
               align_corners=False, output_shape=None):
    """``data`` (layout "NCHW", "NHWC" or packed "NCHW<i>n<j>c", a 6-d (N, C, H, W, n, c)
    tensor) resized to ``round(H * scale_h) x round(W * scale_w)`` with ``method``
    ("nearest_neighbor", "bilinear" / "linear" or "bicubic"), coordinates "align_corners"
    when ``align_corners`` else "asymmetric" (TVM's mapping)."""
    if layout not in ("NCHW", "NHWC") and not nchw_pack_layout(layout):
        raise TepadError(f"upsampling: layout {layout!r}; use 'NCHW', 'NHWC' or a packed "
                         "'NCHW<i>n<j>c'")
    if nchw_pack_layout(layout):
        if len(data.shape) != 6:
            raise TepadError(f"upsampling: the packed layout {layout!r} needs a 6-d "
                             f"(N, C, H, W, n, c) tensor, got {list(data.shape)}")
        layout = "NCHWnc"      # the inner batch and channel blocks are just more images
    hx, wx = layout.index("H"), layout.index("W")
    H, W = const_extents((data.shape[hx], data.shape[wx]), "upsampling", ("H", "W"))
    size = (int(round(H * scale_h)), int(round(W * scale_w)))
    mode = "align_corners" if align_corners else "asymmetric"
    return resize2d(data, None, size, layout=layout, method=method,
                    coordinate_transformation_mode=mode, output_shape=output_shape)


def upsampling3d(data, scale_d, scale_h, scale_w, layout="NCDHW", method="nearest_neighbor",
                 coordinate_transformation_mode="half_pixel", output_shape=None):
    """``data`` resized to ``round(D * scale_d) x round(H * scale_h) x round(W * scale_w)``
    over the D, H, W axes of ``layout`` ("NCDHW" or "NDHWC") by ``image.resize3d``;
    ``method`` "nearest_neighbor", "trilinear" or "tricubic"."""
    if layout not in ("NCDHW", "NDHWC"):
        raise TepadError(f"upsampling3d: layout {layout!r}; use 'NCDHW' or 'NDHWC'")
    axes = [layout.index(c) for c in "DHW"]
    dims = const_extents([data.shape[a] for a in axes], "upsampling3d", ("D", "H", "W"))
    size = tuple(int(round(n * s)) for n, s in zip(dims, (scale_d, scale_h, scale_w)))
    return resize3d(data, [0.0] * 6, size, layout=layout, method=method,
                    coordinate_transformation_mode=coordinate_transformation_mode)


__all__ = ["upsampling", "upsampling3d"]
