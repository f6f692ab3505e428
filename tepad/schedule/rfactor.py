"""Schedule.rfactor: factor a reduction over one of its (split) reduce loops (TVM's rfactor).

``B[i] = sum(A[i, k], k)`` with ``k`` split into ``ko, ki`` and ``rfactor(B, ki)`` becomes

    B.rf[ki, i] = sum(A[i, ko * f + ki], ko)      (ki: a data-parallel axis: parallelizable)
    B[i]        = sum(B.rf[ki.v, i], ki.v)

The factored loop is an axis of the new stage at position ``factor_axis``; the reduce loops
derived from the same root reduce axes become the new stage's reduce axes (their domains from
the split), the others stay as they were. The original stage keeps its Stage object (``s[B]``)
but its operation is the reduction over the factored axis, with fresh loops.
"""
from __future__ import annotations

from ..arith import Analyzer
from ..errors import TepadError
from ..tir import op as tirop
from ..tir.expr import IntImm, ProducerLoad, Range, Var
from ..tir.functor import collect_vars, substitute
from ..tir.itervar import IterVar, IterVarType
from ..tir.reduce import Reduce
from ..tensor.tensor import ComputeOp, Tensor
from .dataflow import replace_dataflow, substitute_body
from .index_flow import pass_down_domain, pass_up_index, relation_bound_checks
from .relations import Fuse, Rebase, Split
from .stage import AttachType, Stage


def _touched(stage, axis):
    """The IterVars related to ``axis`` through the stage's relations (up and down)."""
    touched = {axis}
    changed = True
    while changed:
        changed = False
        for rel in stage.relations:
            ins, outs = rel.inputs(), rel.outputs()
            if any(x in touched for x in ins + outs) and \
                    not all(x in touched for x in ins + outs):
                if isinstance(rel, (Split, Fuse, Rebase)):
                    touched.update(ins + outs)
                    changed = True
    return touched


def rfactor(s, tensor: Tensor, axis: IterVar, factor_axis: int = 0):
    """Factor ``tensor``'s reduction over leaf ``axis``; returns the factored tensors (one per
    output of the reduction), whose axis ``factor_axis`` is ``axis``."""
    if not isinstance(tensor, Tensor):
        raise TepadError(f"rfactor expects a Tensor, got {tensor!r}")
    st = s[tensor]
    op = st.op
    where = f"rfactor({tensor.name}, {getattr(axis, 'name', axis)})"
    if not isinstance(op, ComputeOp) or not op.reduce_axis:
        raise TepadError(f"{where}: {st.name} is not a reduction (rfactor factors a te.sum / "
                         "te.max / comm_reducer compute)")
    if st.layout_transforms:
        raise TepadError(f"{where}: rfactor must come before transform_layout on stage "
                         f"{st.name} (the rewrite replaces the stage's loops)")
    if not isinstance(axis, IterVar) or not any(x is axis for x in st.leaf_iter_vars):
        raise TepadError(f"{where}: the axis must be a leaf loop of stage {st.name}; its leaf "
                         f"loops are {[iv.name for iv in st.leaf_iter_vars]}")
    if axis.iter_type != IterVarType.CommReduce:
        raise TepadError(f"{where}: {axis.name} is not a reduction loop of {st.name}; rfactor "
                         "factors a reduce axis (or a part of a split reduce axis)")
    touched = _touched(st, axis)
    for iv in op.axis:
        if iv in touched:
            raise TepadError(f"{where}: {axis.name} was fused with the data axis {iv.name}; "
                             "rfactor needs a loop derived from reduce axes only")
    ndim = len(op.axis)
    pos = factor_axis if factor_axis >= 0 else ndim + 1 + factor_axis
    if not 0 <= pos <= ndim:
        raise TepadError(f"{where}: factor_axis={factor_axis} is out of range; the factored "
                         f"tensor has {ndim + 1} axes (valid: {-(ndim + 1)} .. {ndim})")

    ana = Analyzer()
    dom = {}
    for iv in op.reduce_axis:
        ana.bind(iv.var, iv.dom)
        if iv in touched:
            dom[iv] = iv.dom
    pass_down_domain(st, dom, ana, "rfactor")
    value = {}
    for iv in st.leaf_iter_vars:
        if iv in touched:
            r = dom[iv]
            value[iv] = r.min if isinstance(r.extent, IntImm) and r.extent.value == 1 else iv.var
    pass_up_index(st, dom, value, ana)
    touched_roots = [iv for iv in op.reduce_axis if iv in touched]
    # every split on the way from the leaves to the roots that does not divide needs its guard
    preds = relation_bound_checks(st, dom, value, ana)

    data_vars = {iv.var for iv in op.axis}
    for iv in touched_roots:
        if data_vars & (collect_vars(iv.dom.min) | collect_vars(iv.dom.extent)):
            raise TepadError(f"{where}: the domain of reduce axis {iv.name} depends on a data "
                             f"axis of {st.name} ({iv.dom.min} .. {iv.dom.min} + "
                             f"{iv.dom.extent}); the factored axis needs a domain of its own")
    fdom = dom[axis]
    if not (isinstance(fdom.min, IntImm) and fdom.min.value == 0):
        raise TepadError(f"{where}: the factored loop must start at 0, but {axis.name} starts "
                         f"at {fdom.min}; split the reduce axis and factor a part of it")
    red = op.body[tensor.value_index]
    fiv = IterVar(fdom, axis.var, IterVarType.DataPar)
    f_axis = list(op.axis[:pos]) + [fiv] + list(op.axis[pos:])
    f_reduce = [iv for iv in op.reduce_axis if iv not in touched]
    copies = {iv: IterVar(dom[iv], iv.var, iv.iter_type, iv.thread_tag)
              for iv in st.leaf_iter_vars if iv in touched and iv is not axis}
    f_reduce += list(copies.values())
    vsub = {iv.var: value[iv] for iv in touched_roots}
    cond = red.condition
    if preds:
        cond = tirop.all(*preds, cond) if not _is_true(cond) else tirop.all(*preds)
    cond = substitute(cond, vsub)
    sources = [substitute(x, vsub) for x in red.source]
    comb = red.combiner
    if f_reduce:
        if not _is_true(cond):
            cond = tirop.likely(cond)
        f_body = [Reduce(comb, sources, f_reduce, cond, k) for k in range(len(sources))]
    elif _is_true(cond):
        f_body = sources
    else:
        # nothing left to reduce: the value where the condition holds, else the identity
        f_body = [tirop.if_then_else(cond, x, comb.identity(k))
                  for k, x in enumerate(sources)]
    f_op = ComputeOp(op.name + ".rf", op.tag, op.attrs, f_axis, f_body)

    # the original stage: a reduction of the factored tensor over the factored axis, on
    # fresh axes (the combiner and init may read the data axes: renamed with them)
    kv = IterVar(Range.from_min_extent(fdom.min, fdom.extent), Var(axis.name + ".v",
                                                                   axis.var.dtype),
                 IterVarType.CommReduce)
    new_axis = [IterVar(iv.dom, Var(iv.name, iv.var.dtype), iv.iter_type) for iv in op.axis]
    idx = [iv.var for iv in op.axis]
    idx = idx[:pos] + [kv.var] + idx[pos:]
    loads = [ProducerLoad(f_op.output(k), idx) for k in range(f_op.num_outputs)]
    rename = {a.var: b.var for a, b in zip(op.axis, new_axis)}
    first = substitute_body(Reduce(comb, loads, [kv], None, 0, red.init), rename)
    repl = ComputeOp(op.name, op.tag, op.attrs, new_axis,
                     [Reduce(first.combiner, first.source, first.axis, None, k, first.init)
                      for k in range(len(loads))])

    moved = dict(copies)
    moved.update({iv: iv for iv in list(op.axis) + f_reduce})
    moved[axis] = fiv
    attached = _attached_at(s, st, moved, where)

    old_outs = [op.output(k) for k in range(op.num_outputs)]
    k0 = next(k for k, x in enumerate(s.stages) if x is st)
    fst = Stage(f_op, s)
    s._insert_stage(fst, k0)
    s._replace_op(st, repl)
    st.all_iter_vars = list(repl.root_iter_vars)
    st.leaf_iter_vars = list(repl.root_iter_vars)
    st.relations = []
    st.iter_var_attrs = {}
    st._layout_axes = list(repl.axis)
    for other, iv in attached:
        other.attach_stage, other.attach_ivar = fst, iv
    replace_dataflow(s, {t: repl.output(t.value_index) for t in old_outs}, k0 + 2)
    outs = [f_op.output(k) for k in range(f_op.num_outputs)]
    return outs[0] if len(outs) == 1 else outs


def _attached_at(s, st, moved, where):
    """The stages computed at a loop of ``st``, with the loop of the factored stage they move
    to (they produce what ``st`` read, which the factored stage reads now)."""
    out = []
    for other in s.stages:
        if other.attach_type != AttachType.Scope or other.attach_stage is not st:
            continue
        iv = moved.get(other.attach_ivar)
        if iv is None:
            raise TepadError(f"{where}: stage {other.name} is computed at loop "
                             f"{other.attach_ivar.name} of {st.name}, which rfactor replaces; "
                             f"call compute_at after rfactor")
        out.append((other, iv))
    return out


def _is_true(e):
    return isinstance(e, IntImm) and e.value == 1


__all__ = ["rfactor"]
