"""GPU schedules (TVM's ``topi.cuda``): thread-bound loops for CUDA targets, checked on the
CPU through the emulator (``TEPAD_CUDA=emulate``, docs/gpu.md).

The thread counts come from the current target (``with Target("cuda")``: its
``max_num_threads``; 1024 for CUDA when none is set). Injective producers are inlined; each
remaining stage becomes its own kernel:

* spatial stages: all axes fused, split into blocks of ``max_num_threads`` threads
  (``blockIdx.x`` / ``threadIdx.x``), each thread one element;
* reductions: the output elements spread over blocks (one element per block, ``blockIdx.x``)
  and the fused reduction axes over a warp of threads (``threadIdx.x``): a cross-thread
  reduction through shared memory; a reduction to a scalar uses one block of
  ``max_num_threads`` threads."""
from __future__ import annotations

from ...schedule import create_schedule
from ...target import Target
from ...tensor import thread_axis
from ..schedule_utils import as_outs, compute_stages, inline_injective, reorg_schedule


def _target():
    t = Target.current()
    return t if t is not None and t.is_gpu else Target("cuda")


def _max_threads() -> int:
    return _target().max_num_threads


def _bind_spatial(s, t, num_thread=None):
    """All of ``t``'s axes fused and split over blocks and threads."""
    st = s[t]
    axes = list(t.op.axis)
    fused = st.fuse(*axes) if axes else st.fuse()
    bx, tx = st.split(fused, factor=num_thread or _max_threads())
    st.bind(bx, thread_axis("blockIdx.x"))
    st.bind(tx, thread_axis("threadIdx.x"))


def _bind_reduction(s, t):
    """Cross-thread reduction: output elements over blocks, reduction over threads."""
    st = s[t]
    axes, raxes = list(t.op.axis), list(t.op.reduce_axis)
    warp = _target().thread_warp_size
    num_thread = warp if axes else _max_threads()
    r = st.fuse(*raxes) if len(raxes) > 1 else raxes[0]
    _, ri = st.split(r, factor=num_thread)
    st.bind(ri, thread_axis("threadIdx.x"))
    if axes:
        st.bind(st.fuse(*axes) if len(axes) > 1 else axes[0], thread_axis("blockIdx.x"))


def schedule_injective_from_existing(sch, out):
    """Bind the injective output ``out`` of the schedule ``sch`` to blocks and threads."""
    _bind_spatial(sch, out)
    return sch


def schedule_injective(outs):
    """Elementwise / broadcast / injective outputs: fused, one element per thread."""
    outs = as_outs(outs)
    s = create_schedule([t.op for t in outs])
    inline_injective(s, outs)
    for t in outs:
        _bind_spatial(s, t)
    return s


schedule_elemwise = schedule_injective


def schedule_argwhere(outs):
    """topi.argwhere: its extern walk binds its own single GPU thread."""
    outs = as_outs(outs)
    return create_schedule([t.op for t in outs])


def schedule_reorg(outs):
    """topi.vision.reorg: its gather stage (tag ``reorg_output``) inlined into the reshape,
    which is then scheduled as an injective output."""
    s, outs = reorg_schedule(outs)
    for t in outs:
        _bind_spatial(s, t)
    return s


schedule_broadcast = schedule_injective
schedule_concatenate = schedule_injective


def _schedule_stages(outs, cross_thread=True):
    outs = as_outs(outs)
    s = create_schedule([t.op for t in outs])
    inline_injective(s, outs)
    for st in compute_stages(s):
        t = st.op.output(0)
        if st.op.reduce_axis and cross_thread:
            _bind_reduction(s, t)
        else:
            _bind_spatial(s, t)
    return s


def schedule_reduce(outs):
    """Reductions: each output element reduced by a warp of threads (see module doc)."""
    return _schedule_stages(outs, cross_thread=True)


def schedule_softmax(outs):
    """softmax / log_softmax: the row maxima and sums reduced across threads, the
    elementwise stages one element per thread."""
    return _schedule_stages(outs, cross_thread=True)


def _schedule_direct(outs):
    """Windowed reductions (convolutions, pooling, matmuls): one output element per thread,
    its reduction serial in the thread."""
    return _schedule_stages(outs, cross_thread=False)




def schedule_pool(outs, layout="NCHW"):
    """Pooling (``layout`` is accepted as TVM's signature has it; the binding does not
    depend on it): one output element per thread."""
    return _schedule_direct(outs)


def schedule_adaptive_pool(outs, layout="NCHW"):
    """Adaptive and global pooling: one output element per thread."""
    return _schedule_direct(outs)


schedule_pool_grad = _schedule_direct
schedule_unique = _schedule_direct     # topi.unique: one counting reduction per thread
schedule_scan = _schedule_direct
schedule_sort = schedule_argsort = schedule_topk = _schedule_direct   # topi.sort: counting ranks
schedule_conv2d_nchw = _schedule_direct
schedule_conv1d_ncw = schedule_conv1d_nwc = _schedule_direct
schedule_conv1d_transpose_ncw = _schedule_direct
schedule_conv3d_ncdhw = _schedule_direct
schedule_correlation_nchw = _schedule_direct
schedule_group_conv2d_nchw = schedule_group_conv2d_nhwc = _schedule_direct
schedule_group_conv1d_ncw = schedule_group_conv1d_nwc = _schedule_direct
schedule_conv2d_nhwc = _schedule_direct
schedule_conv2d_hwcn = _schedule_direct
schedule_depthwise_conv2d_nchw = _schedule_direct
schedule_depthwise_conv2d_nhwc = _schedule_direct
schedule_conv2d_transpose_nchw = _schedule_direct
schedule_dense = _schedule_direct
schedule_dense_small_batch = _schedule_direct
schedule_dense_large_batch = _schedule_direct
schedule_matmul = _schedule_direct
schedule_batch_matmul = _schedule_direct
schedule_lrn = _schedule_direct
schedule_batch_norm = _schedule_direct

schedule_roi_align = schedule_roi_pool = _schedule_direct   # one output bin per thread
# TVM has no CUDA bitserial / binary schedules; these bind one output element per thread
schedule_bitserial_conv2d_nchw = schedule_bitserial_conv2d_nhwc = _schedule_direct
schedule_bitserial_dense = schedule_binarize_pack = schedule_binary_dense = _schedule_direct

__all__ = ["schedule_injective", "schedule_injective_from_existing", "schedule_elemwise",
           "schedule_broadcast", "schedule_concatenate", "schedule_reduce", "schedule_softmax",
           "schedule_pool", "schedule_pool_grad", "schedule_unique", "schedule_scan",
           "schedule_sort", "schedule_argsort", "schedule_topk",
           "schedule_adaptive_pool", "schedule_conv2d_nchw", "schedule_conv1d_ncw",
           "schedule_conv1d_nwc", "schedule_group_conv1d_ncw", "schedule_group_conv1d_nwc",
           "schedule_conv1d_transpose_ncw", "schedule_conv3d_ncdhw", "schedule_correlation_nchw", "schedule_group_conv2d_nchw",
           "schedule_group_conv2d_nhwc",
           "schedule_conv2d_nhwc", "schedule_conv2d_hwcn", "schedule_depthwise_conv2d_nchw",
           "schedule_depthwise_conv2d_nhwc", "schedule_conv2d_transpose_nchw",
           "schedule_dense", "schedule_dense_small_batch", "schedule_dense_large_batch",
           "schedule_matmul", "schedule_batch_matmul", "schedule_lrn", "schedule_batch_norm",
           "schedule_reorg", "schedule_argwhere", "schedule_roi_align", "schedule_roi_pool", "schedule_bitserial_conv2d_nchw",
           "schedule_bitserial_conv2d_nhwc", "schedule_bitserial_dense",
           "schedule_binarize_pack", "schedule_binary_dense"]
