"""Shared pieces of the x86 convolution configs (TVM's ``_fallback_schedule`` functions):
the target's 32-bit vector lanes and the block sizes chosen from them, and the schedule that
applies a config's ``tile_*`` / ``unroll_kw`` knobs."""
from __future__ import annotations

from ...errors import TepadError
from ...target import as_target
from ..schedule_utils import divisor_at_most

#: the widest register tile of output columns a fallback config picks (TVM's choice: the
#: tile and its accumulators stay within 32 vector registers)
MAX_REG_N = 31


def simd_32bit_lanes() -> int:
    """32-bit lanes of one vector register of the current target (the host's without one):
    16 with AVX-512, 8 with AVX2, 4 with SSE or NEON."""
    return as_target(None).vector_lanes("float32")


def out_width(wkl) -> int:
    """The output width of the convolution ``wkl`` describes."""
    dilated = (wkl.kernel_w - 1) * wkl.dilation_w + 1
    return (wkl.width + wkl.padl + wkl.padr - dilated) // wkl.stride_w + 1


def out_height(wkl) -> int:
    """The output height of the convolution ``wkl`` describes."""
    dilated = (wkl.kernel_h - 1) * wkl.dilation_h + 1
    return (wkl.height + wkl.padt + wkl.padb - dilated) // wkl.stride_h + 1


def channel_blocks(wkl, lanes: int, ic_cap: int | None = None):
    """``(ic_bn, oc_bn)``: the output-channel block, the largest divisor of out_filter not
    above ``lanes``; the input-channel block, the largest divisor of in_filter not above
    ``ic_cap`` (default: the output block)."""
    oc_bn = divisor_at_most(wkl.out_filter, lanes)
    ic_bn = divisor_at_most(wkl.in_filter, oc_bn if ic_cap is None else ic_cap)
    return ic_bn, oc_bn


def require_knobs(cfg, names, who):
    """A TepadError naming the knobs ``cfg`` lacks (a config made for another template)."""
    missing = [n for n in names if n not in getattr(cfg, "_entity_map", {})]
    if missing:
        raise TepadError(f"{who}: the config has no knob {', '.join(map(repr, missing))}; "
                         f"fill it with _fallback_schedule(cfg, workload) or tune the template")


__all__ = ["simd_32bit_lanes", "out_width", "out_height", "channel_blocks", "require_knobs",
           "MAX_REG_N"]
