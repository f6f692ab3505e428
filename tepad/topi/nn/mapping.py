"""Per-channel affine maps (TVM's ``topi.nn.scale_shift_*``): ``Input * Scale + Shift``
with ``Scale`` and ``Shift`` indexed by the channel axis of the layout. One broadcast stage
``ScaleShift`` (tag ``broadcast``), inlined into their consumers by the schedules."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute
from ..tag import BROADCAST


def _check(name, data, scale, shift, ndim, pndim):
    if not isinstance(data, Tensor) or len(data.shape) != ndim:
        raise TepadError(f"{name}: Input must be a {ndim}-d te.Tensor, got {data!r}")
    for t, what in ((scale, "Scale"), (shift, "Shift")):
        if not isinstance(t, Tensor) or len(t.shape) != pndim:
            raise TepadError(f"{name}: {what} must be a {pndim}-d te.Tensor, got {t!r}")


def scale_shift_nchw(Input, Scale, Shift):
    """NCHW ``Input``; ``Scale``, ``Shift`` of shape (C,)."""
    _check("scale_shift_nchw", Input, Scale, Shift, 4, 1)
    return compute(Input.shape, lambda b, c, i, j: Input[b, c, i, j] * Scale[c] + Shift[c],
                   name="ScaleShift", tag=BROADCAST)


def scale_shift_nhwc(Input, Scale, Shift):
    """NHWC ``Input``; ``Scale``, ``Shift`` of shape (C,)."""
    _check("scale_shift_nhwc", Input, Scale, Shift, 4, 1)
    return compute(Input.shape, lambda b, i, j, c: Input[b, i, j, c] * Scale[c] + Shift[c],
                   name="ScaleShift", tag=BROADCAST)


def scale_shift_nchwc(Input, Scale, Shift):
    """NCHWc ``Input`` (N, C/cb, H, W, cb); ``Scale``, ``Shift`` of shape (C/cb, cb)."""
    _check("scale_shift_nchwc", Input, Scale, Shift, 5, 2)
    return compute(Input.shape,
                   lambda b, cc, i, j, cb: Input[b, cc, i, j, cb] * Scale[cc, cb] +
                   Shift[cc, cb], name="ScaleShift", tag=BROADCAST)


__all__ = ["scale_shift_nchw", "scale_shift_nhwc", "scale_shift_nchwc"]
