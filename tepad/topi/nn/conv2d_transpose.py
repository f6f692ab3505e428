"""``topi.nn.conv2d_transpose_nchw``: the transposed (fractionally strided) 2-D convolution."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from ...tir import op as tirop
from ...tir.expr import const, floordiv, floormod
from .conv2d import _channels_match, _check
from .utils import const_extents, get_pad_tuple, ints


def conv2d_transpose_nchw(Input: Tensor, Filter: Tensor, strides, padding, out_dtype=None,
                          output_padding=(0, 0)):
    """The gradient of ``conv2d_nchw`` with respect to its input: NCHW ``Input``, ``Filter``
    (in_channel, num_filter, kh, kw) ("IOHW"). Output (N, num_filter, out_h, out_w) with
    ``out_h = (H - 1) * stride_h - pad_top - pad_bottom + kh + output_padding_h``.

    As TVM computes it: the input dilated by the strides and padded by ``kh - 1 - pad``
    (plus ``output_padding`` after) is one injective stage ``data_pad``, convolved with the
    flipped filter (stage ``conv2d_transpose_nchw``)."""
    _check("conv2d_transpose_nchw", Input, Filter)
    out_dtype = out_dtype or Input.dtype
    n, c, h, w = Input.shape
    fc, o, kh, kw = Filter.shape
    _channels_match("conv2d_transpose_nchw", Input, c, Filter, fc)
    H, W, KH, KW = const_extents((h, w, kh, kw), "conv2d_transpose_nchw", ("H", "W", "KH", "KW"))
    sh, sw = ints(strides, 2, "conv2d_transpose_nchw: strides")
    oph, opw = ints(output_padding, 2, "conv2d_transpose_nchw: output_padding")
    if oph >= sh or opw >= sw:
        raise TepadError(f"conv2d_transpose_nchw: output_padding {(oph, opw)} must be smaller "
                         f"than the strides {(sh, sw)}")
    pt, pl, pb, pr = get_pad_tuple(padding, (KH, KW))
    bt, bl = KH - 1 - pt, KW - 1 - pl
    bb, br = KH - 1 - pb + oph, KW - 1 - pr + opw
    if min(bt, bl, bb, br) < 0:
        raise TepadError(f"conv2d_transpose_nchw: padding {padding!r} exceeds kernel - 1")
    dil_h, dil_w = (H - 1) * sh + 1, (W - 1) * sw + 1
    ph, pw = dil_h + bt + bb, dil_w + bl + br
    zero = const(0, Input.dtype)

    def padded(b, ch, y, x):
        yy, xx = y - bt, x - bl
        ok = tirop.all(yy >= 0, yy < dil_h, xx >= 0, xx < dil_w,
                       floormod(yy, sh) == 0, floormod(xx, sw) == 0)
        return tirop.if_then_else(ok, Input[b, ch, floordiv(yy, sh), floordiv(xx, sw)], zero)
    data_pad = compute((n, c, ph, pw), padded, name="data_pad", tag="injective,pad")
    dc = reduce_axis((0, c), name="dc")
    dh = reduce_axis((0, kh), name="dh")
    dw = reduce_axis((0, kw), name="dw")
    return compute(
        (n, o, ph - KH + 1, pw - KW + 1),
        lambda b, ch, y, x: te_op.sum(
            data_pad[b, dc, y + dh, x + dw].astype(out_dtype) *
            Filter[dc, ch, KH - 1 - dh, KW - 1 - dw].astype(out_dtype), axis=[dc, dh, dw]),
        name="conv2d_transpose_nchw", tag="conv2d_transpose_nchw")


__all__ = ["conv2d_transpose_nchw"]
