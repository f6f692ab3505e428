"""Gradients of the NHWC depthwise convolution (TVM's
``topi.nn.depthwise_conv2d_backward_input_nhwc`` / ``_backward_weight_nhwc``), for a
forward ``Out = depthwise_conv2d_nhwc(In, Filter, stride, padding, dilation=1)`` with
``Filter`` (KH, KW, C, multiplier) and output channel ``c * multiplier + m``."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from .conv2d import _padded
from .conv_transpose_nd import _dilate_pad
from .utils import get_pad_tuple, ints


def _shape4(v, what, name):
    try:
        s = [int(x) for x in v]
    except (TypeError, ValueError):
        s = None
    if s is None or len(s) != 4:
        raise TepadError(f"{name}: {what} must be 4 constant ints (N, H, W, C), got {v!r}")
    return s


def depthwise_conv2d_backward_input_nhwc(Filter: Tensor, Out_grad: Tensor, oshape, ishape,
                                         stride, padding):
    """d(loss)/d(In) from ``Out_grad`` (of shape ``oshape``): shape ``ishape``, stage
    ``depthwise_conv2d_backward_input_nhwc``. As TVM computes it: ``Out_grad`` dilated by
    the strides and padded by ``K - 1 - pad`` (stage ``padded_out_grad``), correlated with
    the flipped filter summing over the multiplier."""
    name = "depthwise_conv2d_backward_input_nhwc"
    for t, what in ((Filter, "Filter"), (Out_grad, "Out_grad")):
        if not isinstance(t, Tensor) or len(t.shape) != 4:
            raise TepadError(f"{name}: {what} must be a 4-d te.Tensor, got {t!r}")
    n, ih, iw, ic = _shape4(ishape, "ishape", name)
    _, oh, ow, oc = _shape4(oshape, "oshape", name)
    kh, kw, fc, m = [int(x) for x in Filter.shape]
    if fc != ic or oc != ic * m:
        raise TepadError(f"{name}: Filter (KH, KW, C, multiplier) = {(kh, kw, fc, m)} does not "
                         f"match {ic} input and {oc} output channels")
    sh, sw = ints(stride, 2, f"{name}: stride")
    pt, pl, _, _ = get_pad_tuple(padding, (kh, kw))
    # Out_grad moved to NCHW-like axis order for the shared dilate-and-pad stage
    before = [kh - 1 - pt, kw - 1 - pl]
    if min(before) < 0:
        raise TepadError(f"{name}: padding {padding!r} exceeds kernel - 1")
    sizes = [ih + kh - 1, iw + kw - 1]
    og_t = compute((n, oc, oh, ow), lambda b, c, y, x: Out_grad[b, y, x, c], name="out_grad_t",
                   tag="injective")
    padded = _dilate_pad(og_t, [sh, sw], before, sizes, name="padded_out_grad")
    dh = reduce_axis((0, kh), name="dh")
    dw = reduce_axis((0, kw), name="dw")
    dc = reduce_axis((0, m), name="dc")
    return compute(
        (n, ih, iw, ic),
        lambda b, h, w, c: te_op.sum(
            padded[b, c * m + dc, h + dh, w + dw] * Filter[kh - 1 - dh, kw - 1 - dw, c, dc],
            axis=[dh, dw, dc]),
        name=name, tag=name)


def depthwise_conv2d_backward_weight_nhwc(Input: Tensor, Out_grad: Tensor, oshape, fshape,
                                          stride, padding):
    """d(loss)/d(Filter) from ``Input`` and ``Out_grad``: shape ``fshape`` (KH, KW, C,
    multiplier), stage ``depthwise_conv2d_backward_weight_nhwc``, summing over the batch
    and the output positions."""
    name = "depthwise_conv2d_backward_weight_nhwc"
    for t, what in ((Input, "Input"), (Out_grad, "Out_grad")):
        if not isinstance(t, Tensor) or len(t.shape) != 4:
            raise TepadError(f"{name}: {what} must be a 4-d te.Tensor, got {t!r}")
    n, oh, ow, oc = _shape4(oshape, "oshape", name)
    kh, kw, fc, m = _shape4(fshape, "fshape", name)
    ic = int(Input.shape[3])
    if fc != ic or oc != ic * m:
        raise TepadError(f"{name}: fshape {fshape!r} does not match {ic} input and {oc} "
                         "output channels")
    sh, sw = ints(stride, 2, f"{name}: stride")
    pads = get_pad_tuple(padding, (kh, kw))
    src = _padded(Input, 1, 2, pads, "padded_in")
    db = reduce_axis((0, n), name="db")
    dh = reduce_axis((0, oh), name="dh")
    dw = reduce_axis((0, ow), name="dw")
    return compute(
        (kh, kw, ic, m),
        lambda fh, fw, c, k: te_op.sum(
            Out_grad[db, dh, dw, c * m + k] * src[db, fh + dh * sh, fw + dw * sw, c],
            axis=[db, dh, dw]),
        name=name, tag=name)


__all__ = ["depthwise_conv2d_backward_input_nhwc", "depthwise_conv2d_backward_weight_nhwc"]
