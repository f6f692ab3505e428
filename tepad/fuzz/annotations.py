"""Per-stage annotations that change no value: pragma, prefetch, storage_align, a store
predicate that holds everywhere, axis separators and double_buffer (drawn through a ``ScheduleDrawer``
``d``). Each keeps the schedule legal.

pragma types drawn: ``auto_unroll_max_step`` (a small step budget, so unrolling stays
cheap), ``unroll_explicit``, TVM's parallel pragmas (accepted, no effect in tepad) and an
unknown one (kept in the IR, ignored). ``debug_skip_region`` is never drawn: it drops the
loop's stores, so the result would differ from the oracle by design.
"""
from __future__ import annotations

from .attach_points import scan_related

PRAGMAS = [("auto_unroll_max_step", [4, 16, 64]), ("unroll_explicit", [0, 1]),
           ("parallel_launch_point", None), ("parallel_stride_pattern", None),
           ("parallel_barrier_when_finish", None), ("fuzz_marker", [3])]


def maybe_pragma(d, st):
    """Sometimes one pragma on a leaf of ``st``."""
    src = d.src
    if not st.leaf_iter_vars or not src.flag(d.cfg.pragma_percent):
        return
    iv = src.pick(st.leaf_iter_vars)
    kind, values = src.pick(PRAGMAS)
    value = "" if values is None else f", {src.pick(values)}"
    d.case.run(f"{d.stage_expr(st)}.pragma({d.iv(st, iv)}, {kind!r}{value})")


def maybe_prefetch(d, s, st):
    """Sometimes prefetch, at a leaf of ``st``, a placeholder it reads (one without a layout:
    an argument buffer is in scope everywhere)."""
    src = d.src
    if not st.leaf_iter_vars or not src.flag(d.cfg.prefetch_percent):
        return
    inputs = [t for t in st.op.input_tensors
              if type(t.op).__name__ == "PlaceholderOp" and id(t.op) in d.tnames and
              not s[t].layout_transforms]
    if not inputs:
        return
    t = src.pick(inputs)
    iv = src.pick(st.leaf_iter_vars)
    d.case.run(f"{d.stage_expr(st)}.prefetch({d.tnames[id(t.op)]}, {d.iv(st, iv)}, "
               f"{src.int(0, 3)})")


def maybe_storage_align(d, st):
    """Sometimes storage_align on a root axis of a stage without a layout."""
    src = d.src
    if st.layout_transforms or not st.op.axis or not src.flag(d.cfg.align_percent):
        return
    k = src.int(0, len(st.op.axis) - 1)
    factor = src.pick([2, 3, 4, 8, 16])
    offset = src.int(0, factor - 1)
    d.case.run(f"{d.stage_expr(st)}.storage_align({d.stage_expr(st)}.op.axis[{k}], "
               f"{factor}, {offset})")


def maybe_store_predicate(d, st):
    """Sometimes set_store_predicate with ``axis < extent`` on a root axis: true at every
    point, so the values stay the oracle's, while the guard is in the generated code."""
    src = d.src
    if type(st.op).__name__ != "ComputeOp" or not st.op.axis or \
            not src.flag(d.cfg.store_predicate_percent):
        return
    k = src.int(0, len(st.op.axis) - 1)
    se = d.stage_expr(st)
    d.case.run(f"{se}.set_store_predicate({se}.op.axis[{k}].var < {se}.op.axis[{k}].dom.extent)")


def maybe_axis_separators(d, st):
    """Sometimes set_axis_separators on a stage of two or more dims without a layout (the
    identity layout with a separator: the runner's physical arrays follow it)."""
    src = d.src
    if st.layout_transforms or type(st.op).__name__ != "ComputeOp" or \
            st.op.num_outputs != 1 or len(st.op.axis) < 2 or scan_related(st) or \
            not src.flag(d.cfg.separator_percent):
        return              # (a scan's stages share its state buffer: no layouts)
    d.case.run(f"{d.stage_expr(st)}.set_axis_separators([{src.int(1, len(st.op.axis) - 1)}])")


def maybe_double_buffer(d, st):
    """Sometimes double_buffer on an intermediate compute stage (inject_double_buffer doubles
    it when it is computed at a serial loop whose earlier stages it does not read, and
    leaves it single-buffered otherwise)."""
    if st.is_output or type(st.op).__name__ != "ComputeOp" or \
            not d.src.flag(d.cfg.double_buffer_percent):
        return
    d.case.run(f"{d.stage_expr(st)}.double_buffer()")


__all__ = ["maybe_pragma", "maybe_prefetch", "maybe_storage_align", "maybe_store_predicate",
           "maybe_axis_separators", "maybe_double_buffer", "PRAGMAS"]
