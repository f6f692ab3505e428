"""Bitserial dense (TVM's ``topi.nn.bitserial_dense``): ``data @ weight.T`` of low-bit
unsigned matrices by bit planes and popcounts (``unipolar`` as in ``bitserial_conv2d``:
a weight plane's clear bits count -1)."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from ...tir.expr import floordiv, floormod
from .bitserial_util import binary_op_multiplier, bitpack, default_tile, popcount_as
from .utils import const_extents


def _packed(data, weight, data_bits, weight_bits, pack_dtype, what):
    for t, nm in ((data, "data"), (weight, "weight")):
        if not isinstance(t, Tensor):
            raise TepadError(f"{what}: {nm} must be a te.Tensor, got {t!r}")
    if len(data.shape) != 2 or len(weight.shape) not in (2, 3):
        raise TepadError(f"{what}: data is 2-d, weight 2-d (out, in) or 3-d packed "
                         f"(out, weight_bits, in / w); got {len(data.shape)}-d and "
                         f"{len(weight.shape)}-d")
    dq = bitpack(data, data_bits, pack_axis=1, bit_axis=1, pack_type=pack_dtype)
    wq = weight if len(weight.shape) == 3 else \
        bitpack(weight, weight_bits, pack_axis=1, bit_axis=1, pack_type=pack_dtype)
    return dq, wq


def _product(w, d, shift, out_dtype, unipolar):
    pos = popcount_as(w & d, out_dtype)
    if unipolar:
        pos = pos - popcount_as(~w & d, out_dtype)
    return pos << shift.astype(out_dtype)


def bitserial_dense(data, weight, data_bits, weight_bits, pack_dtype="uint32",
                    out_dtype="int16", unipolar=True):
    """data (Y, K) and weight (X, K) of unsigned values below ``2**data_bits`` /
    ``2**weight_bits`` (K a multiple of the word width of ``pack_dtype``; or weight packed
    already, (X, weight_bits, K / w)). Output (Y, X) of ``out_dtype`` tagged
    ``bitserial_dense_unipolar`` or ``bitserial_dense``."""
    dq, wq = _packed(data, weight, data_bits, weight_bits, pack_dtype, "bitserial_dense")
    y, db, k = dq.shape
    x, wb, _ = wq.shape
    rk, rdb, rwb = reduce_axis((0, k), "k"), reduce_axis((0, db), "db"), reduce_axis((0, wb), "wb")
    return compute((y, x), lambda i, j: te_op.sum(_product(
        wq[j, rwb, rk], dq[i, rdb, rk], rdb + rwb, out_dtype, unipolar), axis=[rwb, rdb, rk]),
        name="tensor", tag="bitserial_dense_unipolar" if unipolar else "bitserial_dense")


def bitserial_dense_default(cfg, data, weight, data_bits, weight_bits, pack_dtype="uint32",
                            out_dtype="int16", unipolar=True):
    """``bitserial_dense`` with the weight rows tiled (TVM 0.6's CPU compute): ``cfg`` (an
    AutoTVM config or None) gets the knobs ``tile_k`` / ``tile_y`` / ``tile_x``,
    ``reorder_0``, ``ann_reduce`` and ``ann_spatial``; a ``weight_vec`` stage
    (X / VX, WB, VX, K) holds VX = ``tile_x``'s inner extent rows together."""
    dq, wq = _packed(data, weight, data_bits, weight_bits, pack_dtype,
                     "bitserial_dense_default")
    y, db, k = const_extents(dq.shape, "bitserial_dense_default", ("Y", "DB", "K"))
    x, wb, _ = const_extents(wq.shape, "bitserial_dense_default", ("X", "WB", "K"))
    if cfg is None:
        vx = default_tile(x, 8)
    else:
        ax_x, ax_y = cfg.axis(x), cfg.axis(y)
        ax_db, ax_wb, ax_k = cfg.reduce_axis(db), cfg.reduce_axis(wb), cfg.reduce_axis(k)
        cfg.define_split("tile_k", ax_k, num_outputs=2)
        cfg.define_split("tile_y", ax_y, num_outputs=2)
        cfg.define_split("tile_x", ax_x, num_outputs=2)
        # the split parts as axes of their own, for the reorder and annotate knobs
        yo, yi, xo, xi, ko, ki = (cfg.axis(e) for e in (y, y, x, x, k, k))
        cfg.define_reorder("reorder_0", [yo, xo, ko, yi, ax_wb, ax_db, ki, xi],
                           policy="candidate",
                           candidate=[[yo, xo, ko, yi, ax_wb, ax_db, ki, xi],
                                      [yo, xo, yi, ko, ax_wb, ax_db, ki, xi]])
        cfg.define_annotate("ann_reduce", [ax_db, ax_wb], policy="try_unroll")
        cfg.define_annotate("ann_spatial", [yi, xi], policy="try_unroll_vec")
        cfg.add_flop(2 * y * x * k * binary_op_multiplier(pack_dtype))
        if getattr(cfg, "is_fallback", False):
            cfg.fallback_split("tile_x", [-1, 8])
        vx = cfg["tile_x"].size[-1]
    weight_vec = compute((x // vx, wb, vx, k), lambda xo, b, v, kk: wq[xo * vx + v, b, kk],
                         name="weight_vec")
    rk, rdb, rwb = reduce_axis((0, k), "k"), reduce_axis((0, db), "db"), reduce_axis((0, wb), "wb")
    return compute((y, x), lambda i, j: te_op.sum(_product(
        weight_vec[floordiv(j, vx), rwb, floormod(j, vx), rk], dq[i, rdb, rk], rdb + rwb,
        out_dtype, unipolar), axis=[rwb, rdb, rk]),
        name="tensor", tag="bitserial_dense_unipolar" if unipolar else "bitserial_dense")


__all__ = ["bitserial_dense", "bitserial_dense_default"]
