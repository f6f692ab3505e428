"""TVM's ``topi.x86.conv2d_avx_1x1``: the fallback config of a 1x1 x86 convolution.

``_fallback_schedule(cfg, wkl)`` sets ``tile_ic`` / ``tile_oc`` as the direct convolution's
config does, and a 2-D register tile of ``tile_oh`` rows (an ``OtherOptionEntity``) by
``tile_ow`` columns: the widest column count dividing the output width, with the most rows
dividing the output height, whose product stays below 32 (the accumulators' registers).
``conv2d_avx_common.schedule_conv2d_nchw_config`` applies it to ``nn.conv2d_nchw``."""
from __future__ import annotations

from ...autotvm.task.space import OtherOptionEntity, SplitEntity
from ...errors import TepadError
from .fallback_config import channel_blocks, out_height, out_width, simd_32bit_lanes

#: rows x columns of the register tile stay below this
_TILE_LIMIT = 32


def _fallback_schedule(cfg, wkl):
    """Fill ``cfg`` with the default knobs for the 1x1 conv2d workload ``wkl``."""
    if (wkl.kernel_h, wkl.kernel_w) != (1, 1):
        raise TepadError(f"conv2d_avx_1x1._fallback_schedule: the workload has a "
                         f"{wkl.kernel_h}x{wkl.kernel_w} kernel; it is for 1x1 kernels "
                         "(use conv2d_avx_common._fallback_schedule)")
    ic_bn, oc_bn = channel_blocks(wkl, simd_32bit_lanes())
    oh, ow = out_height(wkl), out_width(wkl)
    best = None
    for ow_factor in range(ow, 0, -1):
        if ow % ow_factor:
            continue
        for oh_factor in range(oh, 0, -1):
            if oh % oh_factor == 0 and ow_factor * oh_factor < _TILE_LIMIT:
                best = (oh_factor, ow_factor)
                break
        if best is not None:
            break
    oh_factor, ow_factor = best          # (1, 1) always qualifies
    cfg["tile_ic"] = SplitEntity([wkl.in_filter // ic_bn, ic_bn])
    cfg["tile_oc"] = SplitEntity([wkl.out_filter // oc_bn, oc_bn])
    cfg["tile_oh"] = OtherOptionEntity(oh_factor)
    cfg["tile_ow"] = SplitEntity([ow // ow_factor, ow_factor])


__all__ = ["_fallback_schedule"]
