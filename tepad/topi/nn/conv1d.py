"""1-D convolutions (TVM's ``topi.nn.conv1d*``): ``conv1d_ncw`` (OIW filter), ``conv1d_nwc``
(WIO filter), their grouped forms ``group_conv1d_ncw`` / ``group_conv1d_nwc`` and the
generic ``conv1d`` choosing by ``layout``. Padding: an int, (left, right), "SAME" or "VALID"
(of the dilated kernel, as ``get_pad_tuple1d``); a padded input is its own ``pad_temp``
stage."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from .pad import pad
from .utils import const_extents, get_pad_tuple1d, ints


def _one(v, what):
    (x,) = ints(v, 1, what)
    return x


def _setup(name, data, kernel, stride, padding, dilation, groups, layout):
    for t, what in ((data, "data"), (kernel, "kernel")):
        if not isinstance(t, Tensor) or len(t.shape) != 3:
            raise TepadError(f"{name}: {what} must be a 3-d te.Tensor, got {t!r}")
    if layout == "NCW":
        n, c, w = data.shape
        o, ci, k = kernel.shape
        cx = 1
    else:
        n, w, c = data.shape
        k, ci, o = kernel.shape
        cx = 2
    C, W, K, O, CI = const_extents((c, w, k, o, ci), name, ("C", "W", "K", "O", "CI"))
    if not isinstance(groups, int) or groups < 1:
        raise TepadError(f"{name}: groups must be a positive int, got {groups!r}")
    if C % groups or O % groups:
        raise TepadError(f"{name}: {C} input and {O} output channels must both divide into "
                         f"{groups} groups")
    if CI * groups != C:
        raise TepadError(f"{name}: {kernel.name} has {CI} input channels per group but "
                         f"{data.name} has {C} channels in {groups} groups (expected {C // groups})")
    s = _one(stride, f"{name}: stride")
    d = _one(dilation, f"{name}: dilation")
    if s < 1 or d < 1:
        raise TepadError(f"{name}: stride and dilation must be >= 1, got {s}, {d}")
    ek = (K - 1) * d + 1
    pl, pr = get_pad_tuple1d(padding, (ek,))
    ow = (W + pl + pr - ek) // s + 1
    if ow <= 0:
        raise TepadError(f"{name}: a kernel of {K} (dilation {d}) does not fit the width {W} "
                         f"padded by {(pl, pr)}")
    src = data
    if pl or pr:
        before, after = [0, 0, 0], [0, 0, 0]
        before[3 - cx], after[3 - cx] = pl, pr
        src = pad(data, before, after, 0.0, name="pad_temp")
    return n, o, ow, K, CI, O // groups, s, d, src


def _conv1d(name, data, kernel, strides, padding, dilation, groups, out_dtype, layout, tag):
    out_dtype = out_dtype or data.dtype
    n, o, ow, K, CI, og, s, d, src = _setup(name, data, kernel, strides, padding, dilation,
                                           groups, layout)
    rc = reduce_axis((0, CI), name="rc")
    rw = reduce_axis((0, K), name="rw")

    def ic(f):
        return rc if groups == 1 else (f // og) * CI + rc

    if layout == "NCW":
        def body(b, f, x):
            return te_op.sum(src[b, ic(f), x * s + rw * d].astype(out_dtype) *
                             kernel[f, rc, rw].astype(out_dtype), axis=[rc, rw])
        shape = (n, o, ow)
    else:
        def body(b, x, f):
            return te_op.sum(src[b, x * s + rw * d, ic(f)].astype(out_dtype) *
                             kernel[rw, rc, f].astype(out_dtype), axis=[rc, rw])
        shape = (n, ow, o)
    return compute(shape, body, name=name, tag=tag)


def conv1d_ncw(data: Tensor, kernel: Tensor, strides=1, padding="VALID", dilation=1,
               out_dtype=None):
    """1-D convolution of NCW ``data`` with an OIW ``kernel``: stage ``conv1d_ncw`` (tag
    ``conv1d_ncw``), shape (N, O, out_w)."""
    return _conv1d("conv1d_ncw", data, kernel, strides, padding, dilation, 1, out_dtype,
                   "NCW", "conv1d_ncw")


def conv1d_nwc(data: Tensor, kernel: Tensor, strides=1, padding="VALID", dilation=1,
               out_dtype=None):
    """1-D convolution of NWC ``data`` with a WIO ``kernel``: stage ``conv1d_nwc`` (tag
    ``conv1d_nwc``), shape (N, out_w, O)."""
    return _conv1d("conv1d_nwc", data, kernel, strides, padding, dilation, 1, out_dtype,
                   "NWC", "conv1d_nwc")


def group_conv1d_ncw(data: Tensor, kernel: Tensor, strides=1, padding="VALID", dilation=1,
                     groups=1, out_dtype=None):
    """Grouped NCW convolution: ``kernel`` is (O, C // groups, K); output channel ``f``
    reads the input channels of group ``f // (O // groups)``. Stage ``group_conv1d_ncw``."""
    return _conv1d("group_conv1d_ncw", data, kernel, strides, padding, dilation, groups,
                   out_dtype, "NCW", "group_conv1d_ncw")


def group_conv1d_nwc(data: Tensor, kernel: Tensor, strides=1, padding="VALID", dilation=1,
                     groups=1, out_dtype=None):
    """Grouped NWC convolution: ``kernel`` is (K, C // groups, O). Stage
    ``group_conv1d_nwc``."""
    return _conv1d("group_conv1d_nwc", data, kernel, strides, padding, dilation, groups,
                   out_dtype, "NWC", "group_conv1d_nwc")


def conv1d(data: Tensor, kernel: Tensor, strides=1, padding="VALID", dilation=1,
           data_layout="NCW", kernel_layout="", out_dtype=None):
    """``conv1d_ncw`` or ``conv1d_nwc`` by ``data_layout`` ("NCW" or "NWC")."""
    if data_layout == "NCW":
        return conv1d_ncw(data, kernel, strides, padding, dilation, out_dtype)
    if data_layout == "NWC":
        return conv1d_nwc(data, kernel, strides, padding, dilation, out_dtype)
    raise TepadError(f"conv1d: data_layout must be 'NCW' or 'NWC', got {data_layout!r}")


__all__ = ["conv1d", "conv1d_ncw", "conv1d_nwc", "group_conv1d_ncw", "group_conv1d_nwc"]
