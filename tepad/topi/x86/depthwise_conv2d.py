"""TVM's ``topi.x86.depthwise_conv2d``: the blocked (NCHWc) depthwise convolution as an
AutoTVM-configured compute and schedule, its fallback config, and the NCHW pair of the x86
strategy.

``depthwise_conv2d_NCHWc(...)`` asks the dispatch context for the config of its workload
(task ``depthwise_conv2d_NCHWc.x86``: a tuned one under ``apply_history_best``, else the
fallback), defines its knobs and, for a fallback, fills them with ``_fallback_schedule``.
``schedule_depthwise_conv2d_NCHWc`` reads that config again (the workload is kept in the
stage's ``attrs``): ``tile_ow``'s inner size is the register tile of output columns,
``unroll_kw`` unrolls the kernel-width loop, the output-channel block is vectorized."""
from __future__ import annotations

from ...autotvm.task.dispatcher import DispatchContext
from ...autotvm.task.space import OtherOptionEntity, SplitEntity
from ...autotvm.task.task import args_to_workload
from ...errors import TepadError
from ...target import Target
from ..nn import depthwise_conv2d as _nn_dw
from ..nn import depthwise_conv2d_nchw  # noqa: F401 - the compute of x86's NCHW strategy
from ..schedule_utils import divisor_at_most
from .fallback_config import (MAX_REG_N, channel_blocks, out_width, require_knobs,
                              simd_32bit_lanes)
from .schedules import schedule_depthwise_conv2d_nchw, schedule_tagged  # noqa: F401

TASK_NAME = "depthwise_conv2d_NCHWc.x86"


def _fallback_schedule(cfg, wkl):
    """Fill ``cfg`` with the default knobs for depthwise workload ``wkl``: channel blocks
    of at most one vector register of 32-bit lanes (the input block no wider than the
    output one), ``tile_ow`` a register tile of the largest divisor of the output width up
    to 31, ``unroll_kw`` False."""
    ic_bn, oc_bn = channel_blocks(wkl, simd_32bit_lanes())
    ow = out_width(wkl)
    reg_n = divisor_at_most(ow, MAX_REG_N)
    cfg["tile_ic"] = SplitEntity([wkl.in_filter // ic_bn, ic_bn])
    cfg["tile_oc"] = SplitEntity([wkl.out_filter // oc_bn, oc_bn])
    cfg["tile_ow"] = SplitEntity([ow // reg_n, reg_n])
    cfg["unroll_kw"] = OtherOptionEntity(False)


def _config(workload):
    return DispatchContext.current.query(Target.current(allow_none=True), workload)


def depthwise_conv2d_NCHWc(data, kernel, strides, padding, dilation, layout, out_layout,
                           out_dtype=None):
    """``nn.depthwise_conv2d_NCHWc`` with its AutoTVM config chosen (see the module doc)."""
    out_dtype = out_dtype or data.dtype
    out = _nn_dw.depthwise_conv2d_NCHWc(data, kernel, strides, padding, dilation, layout,
                                        out_layout, out_dtype)
    workload = args_to_workload([data, kernel, strides, padding, dilation, layout,
                                 out_layout, out_dtype], TASK_NAME)
    cfg = _config(workload)
    _, oc_chunk, _, ow, ob = (int(x) for x in out.shape)
    ic = int(data.shape[1]) * int(data.shape[4])
    cfg.define_split("tile_ic", ic, num_outputs=2)
    cfg.define_split("tile_oc", oc_chunk * ob, num_outputs=2)
    cfg.define_split("tile_ow", ow, num_outputs=2, filter=lambda y: y.size[-1] <= 64)
    cfg.define_knob("unroll_kw", [True, False])
    if getattr(cfg, "is_fallback", False):
        _fallback_schedule(cfg, _nn_dw._get_workload(data, kernel, strides, padding,
                                                      dilation, out_dtype, "NCHWc"))
    out.op.attrs["workload"] = workload
    return out


def _schedule_stage(s, cfg, conv):
    require_knobs(cfg, ("tile_ow", "unroll_kw"), "schedule_depthwise_conv2d_NCHWc")
    st = s[conv]
    n, oco, oh, ow, oci = st.op.axis
    di, dj = st.op.reduce_axis
    reg_n = cfg["tile_ow"].size[-1]
    ow_o, ow_i = st.split(ow, factor=reg_n)
    st.reorder(n, oco, oh, ow_o, di, dj, ow_i, oci)
    if cfg["unroll_kw"].val:
        st.unroll(dj)
    st.vectorize(oci)
    st.parallel(st.fuse(n, oco, oh))


def schedule_depthwise_conv2d_NCHWc(outs):
    """Schedule ``depthwise_conv2d_NCHWc`` outputs (and an inlined epilogue such as
    scale_shift_nchwc and relu) by the config the compute chose; the padded input is
    computed once at the root."""
    def apply(s, op):
        workload = op.attrs.get("workload") if op.attrs else None
        if workload is None:
            raise TepadError("schedule_depthwise_conv2d_NCHWc: stage "
                             f"{op.name} was not made by topi.x86.depthwise_conv2d_NCHWc "
                             "(it has no workload to look its config up by)")
        _schedule_stage(s, _config(workload), op.output(0))
    return schedule_tagged(outs, "depthwise_conv2d_NCHWc", apply)


__all__ = ["_fallback_schedule", "depthwise_conv2d_NCHWc", "schedule_depthwise_conv2d_NCHWc",
           "depthwise_conv2d_nchw", "schedule_depthwise_conv2d_nchw", "TASK_NAME"]
