"""``topi.vision.reorg``: YOLO v2's passthrough layer as TVM defines it. The (N, C, H, W)
input is read as if its memory were (N, C / s^2, H * s, W * s); element (b, k, j, i) of a
stage of the input's shape gathers from row ``j * s + (k // c') // s``, column ``i * s +
(k // c') % s``, channel ``k % c'`` of that view (``c' = C / s^2``); the result is that stage
reshaped to (N, C * s^2, H / s, W / s)."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute
from ...tir.expr import floordiv, floormod
from ..transform import reshape
from ..utils import get_const_tuple


def reorg(data: Tensor, stride: int) -> Tensor:
    """Stage ``tensor`` (tag ``reorg_output``, the input's shape) and its reshape to
    (N, C * stride^2, H / stride, W / stride). C must divide by stride^2 and H, W by
    stride."""
    if not isinstance(data, Tensor) or len(data.shape) != 4:
        raise TepadError(f"topi.vision.reorg: data must be a 4-d te.Tensor, got {data!r}")
    s = int(stride)
    n, c, h, w = get_const_tuple(data.shape)
    if s < 1 or c % (s * s) or h % s or w % s:
        raise TepadError(f"topi.vision.reorg: stride {s} must divide H={h} and W={w} and its "
                         f"square must divide C={c}")
    cq = c // (s * s)

    def body(b, k, j, i):
        off = floordiv(k, cq)
        flat = (i * s + floormod(off, s)) + w * s * (
            (j * s + floordiv(off, s)) + h * s * (floormod(k, cq) + cq * b))
        return data[floordiv(flat, c * h * w), floormod(floordiv(flat, h * w), c),
                    floormod(floordiv(flat, w), h), floormod(flat, w)]

    out = compute((n, c, h, w), body, name="tensor", tag="reorg_output")
    return reshape(out, (n, c * s * s, h // s, w // s))
