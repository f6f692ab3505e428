"""``topi.nn.conv1d_transpose_ncw``: the transposed (fractionally strided) 1-D convolution."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from ...tir import op as tirop
from ...tir.expr import const, floordiv, floormod
from .utils import const_extents, get_pad_tuple1d, ints


def conv1d_transpose_ncw(data: Tensor, kernel: Tensor, stride, padding, out_dtype=None,
                         output_padding=(0,)):
    """The gradient of ``conv1d_ncw`` with respect to its input: NCW ``data``, ``kernel``
    (in_channel, num_filter, K). Output (N, num_filter, out_w) with ``out_w = (W - 1) *
    stride - pad_left - pad_right + K + output_padding``; ``padding`` an int, (left, right),
    "SAME" or "VALID".

    As TVM computes it: ``data`` dilated by the stride and padded by ``K - 1 - pad`` (plus
    ``output_padding`` on the right) is one injective stage ``data_pad``, convolved with the
    flipped kernel (stage ``conv1d_transpose_ncw``)."""
    name = "conv1d_transpose_ncw"
    for t, what in ((data, "data"), (kernel, "kernel")):
        if not isinstance(t, Tensor) or len(t.shape) != 3:
            raise TepadError(f"{name}: {what} must be a 3-d te.Tensor, got {t!r}")
    out_dtype = out_dtype or data.dtype
    n, c, w = data.shape
    kc, o, k = kernel.shape
    C, W, KC, K = const_extents((c, w, kc, k), name, ("C", "W", "KC", "K"))
    if C != KC:
        raise TepadError(f"{name}: {data.name} has {C} channels but {kernel.name} expects "
                         f"{KC} input channels")
    (s,) = ints(stride, 1, f"{name}: stride")
    (op,) = ints(output_padding, 1, f"{name}: output_padding")
    if s < 1 or not 0 <= op < s:
        raise TepadError(f"{name}: stride must be >= 1 and output_padding in [0, stride); "
                         f"got {s}, {op}")
    pl, pr = get_pad_tuple1d(padding, (K,))
    bl, br = K - 1 - pl, K - 1 - pr + op
    if min(bl, br) < 0 or min(pl, pr) < 0:
        raise TepadError(f"{name}: padding {padding!r} must be in [0, K - 1] (K = {K})")
    dil = (W - 1) * s + 1
    pw = dil + bl + br
    zero = const(0, data.dtype)

    def padded(b, ch, x):
        xx = x - bl
        ok = tirop.all(xx >= 0, xx < dil, floormod(xx, s) == 0)
        return tirop.if_then_else(ok, data[b, ch, floordiv(xx, s)], zero)
    data_pad = compute((n, c, pw), padded, name="data_pad", tag="injective,pad")
    dc = reduce_axis((0, c), name="dc")
    dw = reduce_axis((0, k), name="dw")
    return compute(
        (n, o, pw - K + 1),
        lambda b, ch, x: te_op.sum(
            data_pad[b, dc, x + dw].astype(out_dtype) *
            kernel[dc, ch, K - 1 - dw].astype(out_dtype), axis=[dc, dw]),
        name=name, tag=name)


__all__ = ["conv1d_transpose_ncw"]
