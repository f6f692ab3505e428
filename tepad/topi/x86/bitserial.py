"""CPU bitserial and binary operators (TVM's ``topi.x86`` bitserial_conv2d,
bitserial_dense and binarize_pack / binary_dense schedules).

``bitserial_conv2d_nchw`` / ``_nhwc`` and ``bitserial_dense`` here are AutoTVM computes
(tasks ``bitserial_conv2d_nchw.x86`` ...) taking their config from the dispatch context:
the tiled forms of ``nn.spatial_pack_*`` / ``nn.bitserial_dense_default`` (the fallback
config: output-channel and column tiles of up to 8, row tiles of up to 2). Their schedules
compute each packing stage once at the root, inline the padding, and run every other stage
with its leading axes fused in parallel and its innermost (tile) axis vectorized, the
reductions outside it."""
from __future__ import annotations

from ...autotvm.task.topi_integration import register_topi_compute, register_topi_schedule
from ...schedule import create_schedule
from ..nn.bitserial_conv2d import spatial_pack_nchw, spatial_pack_nhwc
from ..nn.bitserial_dense import bitserial_dense_default
from ..schedule_utils import as_outs, compute_stages, inline_injective
from .schedules import parallel_vectorize


def _schedule_stages(outs):
    outs = as_outs(outs)
    s = create_schedule([t.op for t in outs])
    inline_injective(s, outs)
    for st in compute_stages(s):
        parallel_vectorize(s, st.op.output(0))
    return s


@register_topi_compute("bitserial_conv2d_nchw.x86")
def bitserial_conv2d_nchw(cfg, data, kernel, stride, padding, in_bits, weight_bits,
                          pack_dtype="uint32", out_dtype="int16", unipolar=True):
    """``nn.spatial_pack_nchw`` with the dispatch context's config (called without it)."""
    return spatial_pack_nchw(cfg, data, kernel, stride, padding, in_bits, weight_bits,
                                    pack_dtype, out_dtype, unipolar)


@register_topi_compute("bitserial_conv2d_nhwc.x86")
def bitserial_conv2d_nhwc(cfg, data, kernel, stride, padding, in_bits, weight_bits,
                          pack_dtype="uint32", out_dtype="int16", unipolar=True):
    """``nn.spatial_pack_nhwc`` with the dispatch context's config (called without it)."""
    return spatial_pack_nhwc(cfg, data, kernel, stride, padding, in_bits, weight_bits,
                                    pack_dtype, out_dtype, unipolar)


@register_topi_compute("bitserial_dense.x86")
def bitserial_dense(cfg, data, weight, data_bits, weight_bits, pack_dtype="uint32",
                    out_dtype="int16", unipolar=True):
    """``nn.bitserial_dense_default`` with the dispatch context's config."""
    return bitserial_dense_default(cfg, data, weight, data_bits, weight_bits,
                                           pack_dtype, out_dtype, unipolar)


@register_topi_schedule("bitserial_conv2d_nchw.x86")
def schedule_bitserial_conv2d_nchw(cfg, outs):
    """Schedule of a bitserial NCHW convolution (either compute; see the module doc)."""
    return _schedule_stages(outs)


@register_topi_schedule("bitserial_conv2d_nhwc.x86")
def schedule_bitserial_conv2d_nhwc(cfg, outs):
    """Schedule of a bitserial NHWC convolution (either compute; see the module doc)."""
    return _schedule_stages(outs)


@register_topi_schedule("bitserial_dense.x86")
def schedule_bitserial_dense(cfg, outs):
    """Schedule of a bitserial dense (either compute; see the module doc)."""
    return _schedule_stages(outs)


def schedule_binarize_pack(outs):
    """``nn.binarize_pack``: leading axes parallel, the packed words vectorized."""
    return _schedule_stages(outs)


def schedule_binary_dense(outs):
    """``nn.binary_dense``: the popcount reduction vectorized across output columns and the
    rows parallel; the float epilogue likewise."""
    return _schedule_stages(outs)


__all__ = ["bitserial_conv2d_nchw", "bitserial_conv2d_nhwc", "bitserial_dense",
           "schedule_bitserial_conv2d_nchw", "schedule_bitserial_conv2d_nhwc",
           "schedule_bitserial_dense", "schedule_binarize_pack", "schedule_binary_dense"]
