"""Bitserial 2-d convolution (TVM's ``topi.nn.bitserial_conv2d``): low-bit unsigned
activations and weights are split into bit planes packed into words (``bitpack``); the
product of two planes is a popcount of their ``and``, shifted by the planes' bit weights.

* ``unipolar=False``: the weights are unsigned ints, the result the ordinary convolution.
* ``unipolar=True``: a weight plane's set bits count +1 and its clear bits -1 (the +1/-1
  weights of a binary network), i.e. ``popcount(a & w) - popcount(a & ~w)`` per plane.

``bitserial_conv2d_nchw`` / ``_nhwc`` are the plain reductions; ``spatial_pack_nchw`` /
``_nhwc`` (a config first, as TVM 0.6 named them) are the tiled forms the CPU schedules use:
output channels and rows / columns split into register tiles (``tile_co`` / ``tile_oh`` /
``tile_ow`` of the config), the packed input and weights laid out per tile."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from ...target.generic_func import generic_func
from ...tir.expr import floordiv as indexdiv
from ...tir.expr import floormod as indexmod
from .bitserial_util import binary_op_multiplier, bitpack, default_tile, popcount_as
from .pad import pad
from .utils import const_extents, get_pad_tuple, ints


def _strides(stride):
    return tuple(ints(stride, 2, "bitserial_conv2d: stride"))


def _pads(padding, kh, kw):
    if isinstance(padding, (list, tuple)) and len(padding) == 4:
        return tuple(ints(padding, 4, "bitserial_conv2d: padding"))
    return get_pad_tuple(padding, (kh, kw))


def _plane_product(a, w, shift, out_dtype, unipolar):
    pos = popcount_as(a & w, out_dtype)
    if unipolar:
        pos = pos - popcount_as(a & ~w, out_dtype)
    return pos << shift.astype(out_dtype)


def _check(data, kernel, what):
    for t, nm in ((data, "data"), (kernel, "kernel")):
        if not isinstance(t, Tensor):
            raise TepadError(f"{what}: {nm} must be a te.Tensor, got {t!r}")
    if len(data.shape) != 4 or len(kernel.shape) not in (4, 5):
        raise TepadError(f"{what}: data is 4-d and kernel 4-d (or 5-d, packed already); got "
                         f"{len(data.shape)}-d and {len(kernel.shape)}-d")


def bitserial_conv2d_nchw(data, kernel, stride, padding, activation_bits, weight_bits,
                          pack_dtype="uint32", out_dtype="int16", unipolar=True):
    """NCHW bitserial convolution: data (N, C, H, W), kernel (F, C, KH, KW) of unsigned
    values below ``2**activation_bits`` / ``2**weight_bits`` (or kernel packed already:
    (F, C / w, KH, KW, weight_bits)); C a multiple of the word width of ``pack_dtype``.
    ``padding``: an int, 2 or 4 ints. Output (N, F, OH, OW) of ``out_dtype``, stage
    ``Conv2dOutput`` tagged ``bitserial_conv2d_nchw``."""
    _check(data, kernel, "bitserial_conv2d_nchw")
    data_q = bitpack(data, activation_bits, pack_axis=1, bit_axis=2, pack_type=pack_dtype)
    kernel_q = kernel if len(kernel.shape) == 5 else \
        bitpack(kernel, weight_bits, pack_axis=1, bit_axis=4, pack_type=pack_dtype)
    n, ci, ab, h, w = data_q.shape
    f, _, kh, kw, wb = kernel_q.shape
    khv, kwv = const_extents((kh, kw), "bitserial_conv2d_nchw", ("KH", "KW"))
    sh, sw = _strides(stride)
    top, left, bottom, right = _pads(padding, khv, kwv)
    padded = pad(data_q, [0, 0, 0, top, left], [0, 0, 0, bottom, right], name="pad_temp")
    oh = (h - khv + top + bottom) // sh + 1
    ow = (w - kwv + left + right) // sw + 1
    rc, ry, rx = (reduce_axis((0, e), name=nm) for e, nm in ((ci, "rc"), (kh, "ry"), (kw, "rx")))
    b1, b2 = reduce_axis((0, ab), name="b1"), reduce_axis((0, wb), name="b2")
    return compute((n, f, oh, ow), lambda nn, ff, yy, xx: te_op.sum(_plane_product(
        padded[nn, rc, b1, yy * sh + ry, xx * sw + rx], kernel_q[ff, rc, ry, rx, b2], b1 + b2,
        out_dtype, unipolar), axis=[rc, ry, rx, b2, b1]),
        name="Conv2dOutput", tag="bitserial_conv2d_nchw")


def bitserial_conv2d_nhwc(data, kernel, stride, padding, activation_bits, weight_bits,
                          pack_dtype="uint32", out_dtype="int16", unipolar=True):
    """NHWC bitserial convolution: data (N, H, W, C), kernel (KH, KW, C, F) (or packed:
    (KH, KW, C / w, F, weight_bits)); otherwise as ``bitserial_conv2d_nchw``. Output
    (N, OH, OW, F), stage ``Conv2dOutput`` tagged ``bitserial_conv2d_nhwc``."""
    _check(data, kernel, "bitserial_conv2d_nhwc")
    data_q = bitpack(data, activation_bits, pack_axis=3, bit_axis=4, pack_type=pack_dtype)
    kernel_q = kernel if len(kernel.shape) == 5 else \
        bitpack(kernel, weight_bits, pack_axis=2, bit_axis=4, pack_type=pack_dtype)
    n, h, w, ci, ab = data_q.shape
    kh, kw, _, f, wb = kernel_q.shape
    khv, kwv = const_extents((kh, kw), "bitserial_conv2d_nhwc", ("KH", "KW"))
    sh, sw = _strides(stride)
    top, left, bottom, right = _pads(padding, khv, kwv)
    padded = pad(data_q, [0, top, left, 0, 0], [0, bottom, right, 0, 0], name="PaddedInput")
    oh = (h - khv + top + bottom) // sh + 1
    ow = (w - kwv + left + right) // sw + 1
    rc, ry, rx = (reduce_axis((0, e), name=nm) for e, nm in ((ci, "rc"), (kh, "ry"), (kw, "rx")))
    b1, b2 = reduce_axis((0, ab), name="b1"), reduce_axis((0, wb), name="b2")
    return compute((n, oh, ow, f), lambda nn, yy, xx, ff: te_op.sum(_plane_product(
        padded[nn, yy * sh + ry, xx * sw + rx, rc, b1], kernel_q[ry, rx, rc, ff, b2], b1 + b2,
        out_dtype, unipolar), axis=[rc, ry, rx, b2, b1]),
        name="Conv2dOutput", tag="bitserial_conv2d_nhwc")


def _tiles(cfg, co, oh, ow, reduce_axes, pack_dtype, flop):
    """Define (or read) the config's tile knobs; returns (VC, VH, VW)."""
    if cfg is None:
        return default_tile(co, 8), default_tile(oh, 2), default_tile(ow, 8)
    small = dict(num_outputs=2, filter=lambda x: max(x.size[1:]) <= 16)
    cfg.define_split("tile_co", cfg.axis(co), **small)
    cfg.define_split("tile_oh", cfg.axis(oh), **small)
    cfg.define_split("tile_ow", cfg.axis(ow), **small)
    ib, kb, kh, kw = reduce_axes
    cfg.define_annotate("ann_reduce", [cfg.reduce_axis(ib), cfg.reduce_axis(kb),
                                       cfg.reduce_axis(kh), cfg.reduce_axis(kw)],
                        policy="try_unroll")
    cfg.add_flop(flop * binary_op_multiplier(pack_dtype))
    if getattr(cfg, "is_fallback", False):
        cfg.fallback_split("tile_co", [-1, 8])
        cfg.fallback_split("tile_oh", [-1, 2])
        cfg.fallback_split("tile_ow", [-1, 8])
    return (cfg["tile_co"].size[-1], cfg["tile_oh"].size[-1], cfg["tile_ow"].size[-1])


def _spatial_geometry(where, cfg, data_dims, kernel_dims, stride, padding, pack_dtype):
    """The spatial packs' shared geometry (batch 1): ``(strides, pads, output size, register
    tiles)`` of packed data ``(n, h, w, ci, ib)`` and kernel ``(co, kh, kw, kb)``."""
    n, h, w, ci, ib = data_dims
    co, kh, kw, kb = kernel_dims
    if n != 1:
        raise TepadError(f"{where}: batch must be 1, got {n}")
    sh, sw = _strides(stride)
    top, left, bottom, right = _pads(padding, kh, kw)
    oh = (h + top + bottom - kh) // sh + 1
    ow = (w + left + right - kw) // sw + 1
    tiles = _tiles(cfg, co, oh, ow, (ib, kb, kh, kw), pack_dtype,
                   2 * n * oh * ow * co * ci * kh * kw)
    return (sh, sw), (top, left, bottom, right), (oh, ow), tiles


def spatial_pack_nchw(cfg, data, kernel, stride, padding, in_bits, weight_bits,
                      pack_dtype="uint32", out_dtype="int16", unipolar=True):
    """``bitserial_conv2d_nchw`` computed in register tiles (batch 1; kernel 4-d). ``cfg``
    (an AutoTVM config, or None for fixed tiles) gets the knobs ``tile_co`` / ``tile_oh``
    / ``tile_ow`` (tiles of at most 16) and ``ann_reduce``. Stages ``data_vec``,
    ``kernel_vec``, ``conv_out`` (N, CO/VC, OH/VH, OW/VW, VH, VW, VC) and the output
    ``conv_vec`` tagged ``spatial_bitserial_conv_nchw``."""
    _check(data, kernel, "spatial_pack_nchw")
    if len(kernel.shape) != 4:
        raise TepadError("spatial_pack_nchw: the kernel is the 4-d (F, C, KH, KW) one")
    data_q = bitpack(data, in_bits, pack_axis=1, bit_axis=0, pack_type=pack_dtype)
    kernel_q = bitpack(kernel, weight_bits, pack_axis=1, bit_axis=0, pack_type=pack_dtype)
    ib, n, ci, h, w = const_extents(data_q.shape, "spatial_pack_nchw", "BNCHW")
    kb, co, _, kh, kw = const_extents(kernel_q.shape, "spatial_pack_nchw", "BFCHW")
    (sh, sw), (top, left, bottom, right), (oh, ow), (vc, vh, vw) = _spatial_geometry(
        "spatial_pack_nchw", cfg, (n, h, w, ci, ib), (co, kh, kw, kb), stride, padding, pack_dtype)
    padded = data_q if not any((top, left, bottom, right)) else \
        pad(data_q, [0, 0, 0, top, left], [0, 0, 0, bottom, right], name="data_pad")
    data_vec = compute((n, oh // vh, ow // vw, ci, vh * sh + kh - 1, vw * sw + kw - 1, ib),
                       lambda b, y, x, c, dy, dx, bit: padded[bit, b, c, y * vh * sh + dy,
                                                              x * vw * sw + dx],
                       name="data_vec")
    kernel_vec = compute((co // vc, ci, kh, kw, kb, vc),
                         lambda o, c, dy, dx, bit, v: kernel_q[bit, o * vc + v, c, dy, dx],
                         name="kernel_vec")
    rc, dh, dw = reduce_axis((0, ci), "ci"), reduce_axis((0, kh), "dh"), reduce_axis((0, kw), "dw")
    b1, b2 = reduce_axis((0, ib), "ib"), reduce_axis((0, kb), "kb")
    conv = compute((n, co // vc, oh // vh, ow // vw, vh, vw, vc),
                   lambda b, o, y, x, yi, xi, v: te_op.sum(_plane_product(
                       data_vec[b, y, x, rc, yi * sh + dh, xi * sw + dw, b1],
                       kernel_vec[o, rc, dh, dw, b2, v], b1 + b2, out_dtype, unipolar),
                       axis=[rc, dh, dw, b1, b2]), name="conv_out")
    return compute((n, co, oh, ow), lambda b, o, y, x: conv[
        b, indexdiv(o, vc), indexdiv(y, vh), indexdiv(x, vw), indexmod(y, vh),
        indexmod(x, vw), indexmod(o, vc)], name="conv_vec", tag="spatial_bitserial_conv_nchw")


def spatial_pack_nhwc(cfg, data, kernel, stride, padding, in_bits, weight_bits,
                      pack_dtype="uint32", out_dtype="int16", unipolar=True):
    """``bitserial_conv2d_nhwc`` in register tiles (batch 1; kernel 4-d (KH, KW, C, F));
    knobs as ``spatial_pack_nchw``. Stages ``data_vec``, ``kernel_vec``, ``conv_out``
    (N, OH/VH, OW/VW, CO/VC, VH, VW, VC) and the output ``conv`` tagged
    ``spatial_bitserial_conv_nhwc``."""
    _check(data, kernel, "spatial_pack_nhwc")
    if len(kernel.shape) != 4:
        raise TepadError("spatial_pack_nhwc: the kernel is the 4-d (KH, KW, C, F) one")
    data_q = bitpack(data, in_bits, pack_axis=3, bit_axis=4, pack_type=pack_dtype)
    kernel_q = bitpack(kernel, weight_bits, pack_axis=2, bit_axis=4, pack_type=pack_dtype)
    n, h, w, ci, ib = const_extents(data_q.shape, "spatial_pack_nhwc", "NHWCB")
    kh, kw, _, co, kb = const_extents(kernel_q.shape, "spatial_pack_nhwc", "HWCFB")
    (sh, sw), (top, left, bottom, right), (oh, ow), (vc, vh, vw) = _spatial_geometry(
        "spatial_pack_nhwc", cfg, (n, h, w, ci, ib), (co, kh, kw, kb), stride, padding, pack_dtype)
    padded = data_q if not any((top, left, bottom, right)) else \
        pad(data_q, [0, top, left, 0, 0], [0, bottom, right, 0, 0], name="data_pad")
    data_vec = compute((n, oh // vh, ow // vw, vh * sh + kh - 1, vw * sw + kw - 1, ci, ib),
                       lambda b, y, x, dy, dx, c, bit: padded[b, y * vh * sh + dy,
                                                              x * vw * sw + dx, c, bit],
                       name="data_vec")
    kernel_vec = compute((co // vc, kh, kw, kb, vc, ci),
                         lambda o, dy, dx, bit, v, c: kernel_q[dy, dx, c, o * vc + v, bit],
                         name="kernel_vec")
    rc, dh, dw = reduce_axis((0, ci), "ci"), reduce_axis((0, kh), "dh"), reduce_axis((0, kw), "dw")
    b1, b2 = reduce_axis((0, ib), "ib"), reduce_axis((0, kb), "kb")
    conv = compute((n, oh // vh, ow // vw, co // vc, vh, vw, vc),
                   lambda b, y, x, o, yi, xi, v: te_op.sum(_plane_product(
                       data_vec[b, y, x, yi * sh + dh, xi * sw + dw, rc, b1],
                       kernel_vec[o, dh, dw, b2, v, rc], b1 + b2, out_dtype, unipolar),
                       axis=[dh, dw, rc, b1, b2]), name="conv_out")
    return compute((n, oh, ow, co), lambda b, y, x, o: conv[
        b, indexdiv(y, vh), indexdiv(x, vw), indexdiv(o, vc), indexmod(y, vh),
        indexmod(x, vw), indexmod(o, vc)], name="conv", tag="spatial_bitserial_conv_nhwc")


@generic_func
def bitserial_conv2d_legalize(attrs, inputs, types):
    """Relay's legalization hook for bitserial conv2d (a ``tvm.target.generic_func``): a
    target may register a rewrite; the default returns None (no change), as in TVM."""
    return None


__all__ = ["bitserial_conv2d_legalize", "bitserial_conv2d_nchw", "bitserial_conv2d_nhwc", "spatial_pack_nchw",
           "spatial_pack_nhwc"]
