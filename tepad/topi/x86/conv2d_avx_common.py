"""TVM's ``topi.x86.conv2d_avx_common``: the fallback config of a direct (k x k) x86
convolution and the schedule that applies such a config to ``nn.conv2d_nchw``.

``_fallback_schedule(cfg, wkl)`` fills ``cfg`` (an AutoTVM config) for the ``Workload`` of
``nn.conv2d._get_workload``: ``tile_oc`` / ``tile_ic`` split the output / input channels into
blocks of at most one vector register of 32-bit lanes (the input block no wider than the
output block), ``tile_ow`` splits the output width into a register tile of its largest
divisor up to 31 columns, ``unroll_kw`` is False. ``schedule_conv2d_nchw_config(cfg, outs)``
builds the schedule those knobs describe."""
from __future__ import annotations

from ...autotvm.task.space import OtherOptionEntity, SplitEntity
from ..schedule_utils import divisor_at_most
from .fallback_config import (MAX_REG_N, channel_blocks, out_width, require_knobs,
                              simd_32bit_lanes)
from .schedules import schedule_tagged


def _fallback_schedule(cfg, wkl):
    """Fill ``cfg`` with the default knobs for conv2d workload ``wkl`` (see the module
    doc); the target's lanes come from the current target (the host's without one)."""
    ic_bn, oc_bn = channel_blocks(wkl, simd_32bit_lanes())
    ow = out_width(wkl)
    reg_n = divisor_at_most(ow, MAX_REG_N)
    cfg["tile_ic"] = SplitEntity([wkl.in_filter // ic_bn, ic_bn])
    cfg["tile_oc"] = SplitEntity([wkl.out_filter // oc_bn, oc_bn])
    cfg["tile_ow"] = SplitEntity([ow // reg_n, reg_n])
    cfg["unroll_kw"] = OtherOptionEntity(False)


def apply_conv_config(s, cfg, conv):
    """Apply ``cfg``'s knobs to the NCHW convolution stage ``conv`` (axes n, oc, oh, ow;
    reductions rc, ry, rx): channel blocks and the width tile innermost, the output tile
    vectorized along the width, ``unroll_kw`` unrolling the kernel-width loop, and the
    batch, channel-block and row loops fused and parallel. A ``tile_oh`` knob (the 1x1
    configs') splits the rows too."""
    require_knobs(cfg, ("tile_ic", "tile_oc", "tile_ow"), "x86 conv2d schedule")
    st = s[conv]
    n, oc, oh, ow = st.op.axis
    rc, ry, rx = st.op.reduce_axis
    oc_o, oc_i = cfg["tile_oc"].apply(s, conv, oc)
    ow_o, ow_i = cfg["tile_ow"].apply(s, conv, ow)
    ic_o, ic_i = cfg["tile_ic"].apply(s, conv, rc)
    oh_factor = getattr(cfg._entity_map.get("tile_oh"), "val", None)
    if isinstance(oh_factor, int) and oh_factor > 1:
        oh_o, oh_i = st.split(oh, factor=oh_factor)
        st.reorder(n, oc_o, oh_o, ow_o, ic_o, ry, rx, ic_i, oc_i, oh_i, ow_i)
        rows = oh_o
    else:
        st.reorder(n, oc_o, oh, ow_o, ic_o, ry, rx, ic_i, oc_i, ow_i)
        rows = oh
    unroll_kw = cfg._entity_map.get("unroll_kw")
    if unroll_kw is not None and unroll_kw.val:
        st.unroll(rx)
    st.vectorize(ow_i)
    st.parallel(st.fuse(n, oc_o, rows))


def schedule_conv2d_nchw_config(cfg, outs):
    """A schedule of ``nn.conv2d_nchw`` outputs (with an elementwise epilogue such as bias
    and relu) following ``cfg``: the convolution as ``apply_conv_config`` says, its padded
    input computed once at the root, other stages parallel and vectorized."""
    return schedule_tagged(outs, "conv2d_nchw",
                           lambda s, op: apply_conv_config(s, cfg, op.output(0)))


__all__ = ["_fallback_schedule", "apply_conv_config", "schedule_conv2d_nchw_config"]
