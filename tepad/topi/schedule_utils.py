"""Helpers the per-target schedules share: the output list, inlining injective stages, and
constant extents."""
from __future__ import annotations

from ..errors import TepadError
from ..schedule import AttachType, create_schedule
from ..tensor import ComputeOp, Tensor
from ..tir.expr import IntImm
from .tag import is_injective


def as_outs(outs) -> list:
    """``outs`` (a Tensor or a list of them) as a list; anything else is a TepadError."""
    outs = [outs] if isinstance(outs, Tensor) else list(outs)
    if not outs or not all(isinstance(t, Tensor) for t in outs):
        raise TepadError(f"a topi schedule takes a te.Tensor or a list of them, got {outs!r}")
    return outs


def inline_injective(s, outs, keep=()):
    """Inline every injective compute stage that is not an output (nor in ``keep``: tags
    or stage names that stay at the root)."""
    out_ops = {t.op for t in outs}
    for st in list(s.stages):
        op = st.op
        if isinstance(op, ComputeOp) and op not in out_ops and not op.reduce_axis and \
                is_injective(op.tag) and not any(k in op.tag or k == op.name for k in keep):
            st.compute_inline()


def reorg_schedule(outs):
    """``(schedule, outs)`` for topi.vision.reorg: injective stages inlined and its gather
    stage (tag ``reorg_output``) inlined into the reshape; the caller schedules ``outs``."""
    outs = as_outs(outs)
    s = create_schedule([t.op for t in outs])
    inline_injective(s, outs)
    for st in list(s.stages):
        if st.op.tag == "reorg_output" and st.op not in {t.op for t in outs}:
            st.compute_inline()
    return s, outs


def extent(iv):
    """The constant extent of an iteration variable, or None."""
    e = iv.dom.extent
    return e.value if isinstance(e, IntImm) else None


def divisor_at_most(n, cap):
    """The largest divisor of ``n`` not above ``cap`` (at least 1)."""
    for d in range(min(n, cap), 0, -1):
        if n % d == 0:
            return d
    return 1


def compute_stages(s):
    """The compute stages of ``s`` that are not inlined, producers first."""
    return [st for st in s.stages if isinstance(st.op, ComputeOp) and
            st.attach_type not in (AttachType.Inline, AttachType.InlinedAlready)]


__all__ = ["as_outs", "inline_injective", "extent", "divisor_at_most", "compute_stages"]
