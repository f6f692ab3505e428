"""Dataflow rewrites of a schedule: inlining, cache_read, cache_write.

Each rewrite builds new operations (definitions are immutable) and re-points stages to them;
``Stage.origin_op`` keeps the user's operation so ``s[C]`` and buffer names keep working.
"""
from __future__ import annotations

from ..errors import TepadError
from ..tir.expr import ProducerLoad, Range, Var, cast
from ..tir.functor import Mutator, collect_vars, substitute
from ..tir.itervar import IterVar
from ..tir.reduce import CommReducer, Reduce
from ..tensor.scan import ScanOp
from ..tensor.tensor import ComputeOp, Tensor
from .stage import AttachType, Stage


class _ReplaceLoads(Mutator):
    """Replace ProducerLoads of tensors in ``vmap`` (tensor -> tensor or callable(indices))."""

    def __init__(self, vmap):
        self.vmap = vmap

    def visit_ProducerLoad(self, e):
        idx = self.visit(e.indices)
        rep = self.vmap.get(e.producer)
        if rep is None:
            return e if idx is e.indices else ProducerLoad(e.producer, idx)
        seen = 0
        while isinstance(rep, Tensor) and rep in self.vmap and seen < 64:
            rep = self.vmap[rep]        # an op rebuilt again later: follow to the newest
            seen += 1
        if isinstance(rep, Tensor):
            return ProducerLoad(rep, idx)
        return rep(idx)


def _rebuild(op, vmap):
    """``op`` with its loads rewritten by ``vmap``, or ``op`` itself if nothing changed."""
    if isinstance(op, ScanOp):
        return _rebuild_scan(op, vmap)
    m = _ReplaceLoads(vmap)
    body = [m.visit(b) for b in op.body]
    if all(a is b for a, b in zip(body, op.body)):
        return op
    return ComputeOp(op.name, op.tag, op.attrs, op.axis, body)


def _newest(t, vmap):
    seen = 0
    while t in vmap and seen < 64:
        t = vmap[t]
        seen += 1
        if not isinstance(t, Tensor):
            return None
    return t


def _rebuild_scan(op: ScanOp, vmap) -> ScanOp:
    """The scan over the newest versions of its init/update/inputs tensors (same axes)."""
    parts = []
    for ts in (op.init, op.update, op.inputs):
        new = []
        for t in ts:
            n = _newest(t, vmap)
            if n is None:
                raise TepadError(f"scan {op.name}: {t.name} was inlined, but the scan stores "
                                 "it as its state; an init or update cannot be inlined")
            new.append(n)
        parts.append(new)
    if all(a is b or a == b for old, new in zip((op.init, op.update, op.inputs), parts)
           for a, b in zip(old, new)):
        return op
    return op.replace_inputs(*parts)


def replace_dataflow(s, vmap: dict, start: int = 0):
    """Rebuild every stage (from ``start``) whose op reads a tensor in ``vmap``; the rebuilt
    op's outputs join ``vmap`` so consumers further down follow."""
    for st in s.stages[start:]:
        if not isinstance(st.op, (ComputeOp, ScanOp)):
            continue
        new = _rebuild(st.op, vmap)
        if new is not st.op:
            for k in range(st.op.num_outputs):
                vmap[st.op.output(k)] = new.output(k)
            s._replace_op(st, new)


def inline_stages(s):
    """Substitute every stage marked compute_inline into its consumers (producers first)."""
    for idx, st in enumerate(s.stages):
        if st.attach_type != AttachType.Inline:
            continue
        op = st.op
        body, axis = op.body[0], op.axis

        def expand(indices, body=body, axis=axis):
            return substitute(body, {iv.var: cast(iv.var.dtype, i)
                                     for iv, i in zip(axis, indices)})

        # one pass in stage (topological) order: each later stage is rebuilt once, reading
        # the newest version of everything rebuilt before it
        vmap = {op.output(0): expand}
        for other in s.stages[idx + 1:]:
            if isinstance(other.op, (ComputeOp, ScanOp)):
                new = _rebuild(other.op, vmap)
                if new is not other.op:
                    for k in range(other.op.num_outputs):
                        vmap[other.op.output(k)] = new.output(k)
                    s._replace_op(other, new)
        st.attach_type = AttachType.InlinedAlready


def _stage_index(s, st):
    for k, x in enumerate(s.stages):
        if x is st:
            return k
    raise TepadError(f"stage {st.name} is not in the schedule")


def cache_read(s, tensor: Tensor, scope: str, readers) -> Tensor:
    if not isinstance(tensor, Tensor):
        raise TepadError(f"cache_read expects a Tensor, got {tensor!r}")
    producer_stage = s[tensor]
    cur = producer_stage.op.output(tensor.value_index)
    if not isinstance(readers, (list, tuple)):
        readers = [readers]
    if not readers:
        raise TepadError(f"cache_read({tensor.name}): readers must name at least one consumer")
    name = f"{tensor.name}.{scope}"
    axis = [IterVar(Range.from_min_extent(0, d), Var(f"ax{k}", d.dtype))
            for k, d in enumerate(cur.shape)]
    cache_op = ComputeOp(name, "", None, axis, [ProducerLoad(cur, [iv.var for iv in axis])])
    cache = cache_op.output(0)
    reader_stages = []
    for r in readers:
        rst = s[r]
        if not isinstance(rst.op, ComputeOp) or cur not in rst.op.input_tensors:
            raise TepadError(f"cache_read({tensor.name}): {rst.name} does not read "
                             f"{tensor.name}; readers must be consumers of it")
        if rst not in reader_stages:
            reader_stages.append(rst)
    # producers first, so a reader that reads another reader sees its rebuilt version
    reader_stages.sort(key=lambda st: _stage_index(s, st))
    vmap = {cur: cache}
    for rst in reader_stages:
        new = _rebuild(rst.op, vmap)
        for k in range(rst.op.num_outputs):
            vmap[rst.op.output(k)] = new.output(k)
        s._replace_op(rst, new)
    del vmap[cur]
    pos = _stage_index(s, producer_stage) + 1
    st = Stage(cache_op, s)
    st.scope = scope
    s._insert_stage(st, pos)
    replace_dataflow(s, vmap, pos + 1)
    return cache


def _substitute_body(body, vsub: dict):
    """``body`` with the Vars of ``vsub`` replaced everywhere they can occur: in a Reduce that
    includes its combiner's result and identity (a user reducer may read a data-parallel
    variable) and its reduce axes' domains (``te.reduce_axis((0, n))`` over a data axis ``n``).

    Reduce axes whose domain changes get fresh IterVars (their Vars renamed in the source and
    the condition), so no IterVar is shared between the old and the new operation with
    different domains. Anything not using a Var of ``vsub`` is returned as is.
    """
    if not isinstance(body, Reduce):
        return substitute(body, vsub)
    keys = set(vsub)
    comb = body.combiner
    if any(keys & collect_vars(x) for x in comb.result + comb.identity_element):
        comb = CommReducer(comb.lhs, comb.rhs,
                           [substitute(x, vsub) for x in comb.result],
                           [substitute(x, vsub) for x in comb.identity_element], comb.name)
    full = dict(vsub)
    axes = []
    for iv in body.axis:
        dom = iv.dom
        if dom is not None and keys & (collect_vars(dom.min) | collect_vars(dom.extent)):
            new_iv = IterVar(Range.from_min_extent(substitute(dom.min, vsub),
                                                   substitute(dom.extent, vsub)),
                             Var(iv.var.name, iv.var.dtype), iv.iter_type, iv.thread_tag)
            full[iv.var] = new_iv.var
            axes.append(new_iv)
        else:
            axes.append(iv)
    return Reduce(comb, [substitute(x, full) for x in body.source], axes,
                  substitute(body.condition, full), body.value_index,
                  [substitute(x, full) for x in body.init])


def cache_write(s, tensor: Tensor, scope: str) -> Tensor:
    st = s[tensor]
    op = st.op
    if not isinstance(op, ComputeOp):
        raise TepadError(f"cache_write({tensor.name}): {tensor.name} is not a compute stage")
    if op.num_outputs != 1:
        raise TepadError(f"cache_write({tensor.name}): operations with several outputs are "
                         "not supported")
    if st.relations:
        raise TepadError(f"cache_write({tensor.name}) must come before split/fuse/tile on "
                         f"stage {st.name} (its loops are reset by the rewrite)")
    new_axis = [IterVar(iv.dom, Var(iv.name + ".c", iv.var.dtype), iv.iter_type)
                for iv in op.axis]
    vsub = {old.var: new.var for old, new in zip(op.axis, new_axis)}
    cache_op = ComputeOp(f"{op.name}.{scope}", op.tag, op.attrs, new_axis,
                         [_substitute_body(b, vsub) for b in op.body])
    cache = cache_op.output(0)
    copy_op = ComputeOp(op.name, op.tag, op.attrs, op.axis,
                        [ProducerLoad(cache, [iv.var for iv in op.axis])])
    old_out = op.output(0)
    s._replace_op(st, copy_op)
    st.all_iter_vars = list(copy_op.root_iter_vars)
    st.leaf_iter_vars = list(copy_op.root_iter_vars)
    st.relations = []
    st.iter_var_attrs = {}
    pos = _stage_index(s, st)
    cst = Stage(cache_op, s)
    cst.scope = scope
    s._insert_stage(cst, pos)
    replace_dataflow(s, {old_out: copy_op.output(0)}, pos + 2)
    return cache
