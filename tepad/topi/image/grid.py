"""``topi.image.affine_grid``: the sampling grid of a spatial transformer (Jaderberg et al.
2015): a uniform (H, W) grid over [-1, 1] (step ``(2 - 1e-7) / (size - 1)``, as TVM
steps it), mapped through each batch's 2 x 3 affine matrix."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute
from ...tir.expr import const


def affine_grid(data: Tensor, target_shape) -> Tensor:
    """``data`` (N, 2, 3) -> (N, 2, H, W): channel 0 the x, channel 1 the y source coordinate
    ``theta[n, d] @ (x, y, 1)`` of output pixel (i, j), with ``x = -1 + j * x_step``, ``y =
    -1 + i * y_step``. H and W must be > 1."""
    if not isinstance(data, Tensor) or len(data.shape) != 3:
        raise TepadError(f"topi.image.affine_grid: data must be a 3-d (N, 2, 3) te.Tensor, "
                         f"got {data!r}")
    shape = [int(s) for s in target_shape] if target_shape is not None else []
    if len(shape) != 2 or min(shape) <= 1:
        raise TepadError(f"topi.image.affine_grid: target_shape must be (H, W) with both > 1, "
                         f"got {target_shape!r}")
    h, w = shape
    dtype = data.dtype
    y_step = const((2.0 - 1e-7) / (h - 1), dtype)
    x_step = const((2.0 - 1e-7) / (w - 1), dtype)
    start = const(-1.0, dtype)

    def body(n, d, i, j):
        y = start + i.astype(dtype) * y_step
        x = start + j.astype(dtype) * x_step
        return data[n, d, 0] * x + data[n, d, 1] * y + data[n, d, 2]

    return compute((data.shape[0], 2, h, w), body, name="affine_grid", tag="affine_grid")


__all__ = ["affine_grid"]
