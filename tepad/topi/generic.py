"""Default CPU schedules for topi's operators (TVM's ``topi.generic`` / ``topi.x86``).

Each takes the output tensor(s) and returns a Schedule: stages TVM marks injective (pads,
elementwise) are inlined into their consumers, and each output's outer loop runs in
parallel with its innermost loop vectorized when that loop is long enough to pay: split by
the lanes of one vector register of the current target (``with Target(...)``, else the host;
16 fp32 lanes with AVX-512, 8 with AVX2)."""
from __future__ import annotations

from ..schedule import create_schedule
from ..tensor import ComputeOp, Tensor
from ..target import as_target
from ..tir.expr import IntImm

_MIN_PARALLEL = 2      # outer extents below this stay serial


def _outs(outs):
    return [outs] if isinstance(outs, Tensor) else list(outs)


def _inline_injective(s, outs):
    out_ops = {t.op for t in outs}
    for st in s.stages:
        op = st.op
        if isinstance(op, ComputeOp) and op not in out_ops and not op.reduce_axis and \
                ("injective" in op.tag or "elemwise" in op.tag or "broadcast" in op.tag):
            st.compute_inline()


def _parallel_vectorize(s, t):
    st = s[t]
    axes = list(t.op.axis)
    if not axes:
        return
    if len(axes) > 1:
        outer = st.fuse(*axes[:-1])
        inner = axes[-1]
    else:
        outer, inner = None, axes[0]
    ext = inner.dom.extent
    lanes = as_target(None).vector_lanes(t.dtype)   # one vector register of the target
    if isinstance(ext, IntImm) and ext.value >= lanes and not t.op.reduce_axis:
        _, vi = st.split(inner, factor=lanes)
        st.vectorize(vi)
    if outer is not None:
        st.parallel(outer)


def schedule_injective(outs):
    """Elementwise / broadcast outputs: fused outer loops in parallel, inner loop vectorized."""
    outs = _outs(outs)
    s = create_schedule([t.op for t in outs])
    _inline_injective(s, outs)
    for t in outs:
        _parallel_vectorize(s, t)
    return s


def schedule_reduce(outs):
    """Reductions: producers inlined where injective, outputs parallel over their outer
    loops."""
    return schedule_injective(outs)


def schedule_pool(outs, layout="NCHW"):
    """Pooling: the pad stage inlined, outer loops in parallel."""
    return schedule_injective(outs)


def default_schedule(outs):
    """The plain schedule: every stage at the root, nothing annotated."""
    return create_schedule([t.op for t in _outs(outs)])


schedule_elemwise = schedule_injective
schedule_broadcast = schedule_injective
schedule_dense = schedule_reduce
schedule_conv2d_nchw = schedule_reduce
schedule_softmax = default_schedule

__all__ = ["schedule_injective", "schedule_reduce", "schedule_pool", "default_schedule",
           "schedule_elemwise", "schedule_broadcast", "schedule_dense",
           "schedule_conv2d_nchw", "schedule_softmax"]
