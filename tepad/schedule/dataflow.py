"""Dataflow rewrites of a schedule: inlining, cache_read, cache_write.

Each rewrite builds new operations (definitions are immutable) and re-points stages to them;
``Stage.origin_op`` keeps the user's operation so ``s[C]`` and buffer names keep working.
"""
from __future__ import annotations

from ..errors import TepadError
from ..arith import Analyzer
from ..tir import op as tirop
from ..tir.expr import ProducerLoad, Range, Var, cast, const
from ..tir.functor import Mutator, collect_vars, substitute
from ..tir.itervar import IterVar, IterVarType
from ..tir.storage_scope import split_storage_scope
from ..tir.reduce import CommReducer, Reduce
from ..tensor.scan import ScanOp
from ..tensor.tensor import ComputeOp, Tensor
from ..tensor.tensor_intrin import TensorComputeOp
from .index_flow import (pass_down_domain, pass_down_index, pass_up_index,
                         relation_bound_checks)
from .relations import Transform
from .stage import AttachType, Stage
from .tensorize import rebuild_tensor_compute, tensor_compute_cache_write

_READERS = (ComputeOp, TensorComputeOp)


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
    if isinstance(op, TensorComputeOp):
        return rebuild_tensor_compute(op, vmap)
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
    """The scan over the newest versions of its init/update/inputs tensors (same axes).

    ``inputs`` only bound the scan's body (TVM's ScanGetBody), so an input that was inlined
    is dropped: init and update now read what it computed. An inlined init or update has
    nothing to store (``compute_inline`` refuses them)."""
    parts = []
    for what, ts in (("init", op.init), ("update", op.update), ("inputs", op.inputs)):
        new = []
        for t in ts:
            n = _newest(t, vmap)
            if n is None:
                if what == "inputs":
                    continue
                raise TepadError(f"scan {op.name}: {t.name} is its {what} and was inlined; "
                                 "the scan stores its init and update as its state, so they "
                                 "cannot be inlined (inline the stages they read instead)")
            new.append(n)
        parts.append(new)
    if all(len(old) == len(new) and all(a is b or a == b for a, b in zip(old, new))
           for old, new in zip((op.init, op.update, op.inputs), parts)):
        return op
    return op.replace_inputs(*parts)


def replace_dataflow(s, vmap: dict, start: int = 0):
    """Rebuild every stage (from ``start``) whose op reads a tensor in ``vmap``; the rebuilt
    op's outputs join ``vmap`` so consumers further down follow."""
    for st in s.stages[start:]:
        if not isinstance(st.op, _READERS + (ScanOp,)):
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
            if isinstance(other.op, _READERS + (ScanOp,)):
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
    split_storage_scope(scope, f"cache_read({tensor.name})")
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
        if not isinstance(rst.op, _READERS) or cur not in rst.op.input_tensors:
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


def substitute_body(body, vsub: dict):
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


def cache_write(s, tensors, scope: str):
    """Compute ``tensors`` (one tensor, or the list of all outputs of one compute) into a cache
    stage in ``scope`` and copy them to the original tensors (TVM's cache_write).

    The cache's axes are the stage's current data-parallel loops in their order (TVM's
    relayout: after ``split``/``reorder`` the cache is stored in loop order), its reduce axes
    the original ones; the original stage becomes the copy, with fresh loops (the loops of its
    ``transform_layout``, which stays with the tensor). Annotations of the loops (parallel,
    vectorize, ...) and stages computed at them move to the cache stage.
    Returns the cache tensor (a list for a list).
    """
    split_storage_scope(scope, "cache_write")
    single = isinstance(tensors, Tensor)
    tlist = [tensors] if single else list(tensors) if isinstance(tensors, (list, tuple)) \
        else None
    if not tlist or not all(isinstance(t, Tensor) for t in tlist):
        raise TepadError(f"cache_write expects a Tensor or a list of the outputs of one "
                         f"compute, got {tensors!r}")
    tensor = tlist[0]
    st = s[tensor]
    op = st.op
    if not isinstance(op, _READERS):
        raise TepadError(f"cache_write({tensor.name}): {tensor.name} is not a compute stage")
    if isinstance(op, TensorComputeOp):
        return _cache_write_tensor_compute(s, st, tensor, scope)
    for t in tlist[1:]:
        if s[t] is not st:
            raise TepadError(f"cache_write: {tensor.name} and {t.name} are outputs of different "
                             "computes; a list must hold the outputs of one compute")
    if len(tlist) != op.num_outputs:
        names = ", ".join(op.output(k).name for k in range(op.num_outputs))
        raise TepadError(f"cache_write({tensor.name}): {st.name} has {op.num_outputs} outputs, "
                         f"which are cached together; pass all of them: "
                         f"s.cache_write([{names}], {scope!r})")
    cache_op, leaf_map = _relayout_cache(st, op, scope, tensor.name)
    # reduce axes whose domain reads a data axis were renamed in the cache
    leaf_map.update(zip(op.reduce_axis, cache_op.reduce_axis))
    args = _cache_indices(st, op, [iv for iv in leaf_map if iv not in op.reduce_axis])
    copy_op = ComputeOp(op.name, op.tag, op.attrs, op.axis,
                        [ProducerLoad(cache_op.output(k), args) for k in range(op.num_outputs)])
    old_outs = [op.output(k) for k in range(op.num_outputs)]
    old_attrs = st.iter_var_attrs
    s._replace_op(st, copy_op)
    # a transform_layout stays with the tensor (its storage), and its loops with the copy
    layouts = [r for r in st.relations if isinstance(r, Transform)]
    st.all_iter_vars = list(copy_op.root_iter_vars) + [tv for r in layouts
                                                       for tv in r.transformed_vars]
    st.leaf_iter_vars = list(layouts[-1].transformed_vars if layouts else
                             copy_op.root_iter_vars)
    st.relations = layouts
    st.iter_var_attrs = {}
    pos = _stage_index(s, st)
    cst = Stage(cache_op, s)
    cst.scope = scope
    for iv, attr in old_attrs.items():
        new = leaf_map.get(iv)
        if new is not None:
            cst.iter_var_attrs[new] = attr.copy()
    s._insert_stage(cst, pos)
    _move_attachments(s, st, cst, leaf_map)
    replace_dataflow(s, {t: copy_op.output(t.value_index) for t in old_outs}, pos + 2)
    caches = [cache_op.output(t.value_index) for t in tlist]
    return caches[0] if single else caches


def _cache_write_tensor_compute(s, st, tensor, scope):
    """cache_write of a TensorComputeOp stage: the intrinsic call moves to the cache, the
    stage copies (before any split/fuse/tile: its loops are the op's own)."""
    op = st.op
    if op.num_outputs != 1:
        raise TepadError(f"cache_write({tensor.name}): a tensor intrinsic with several "
                         "outputs cannot be cached")
    if st.relations:
        raise TepadError(f"cache_write({tensor.name}) of a tensor-intrinsic stage must come "
                         f"before split/fuse/tile on stage {st.name}")
    cache_op, copy_op = tensor_compute_cache_write(op, scope)
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
    return cache_op.output(0)


def _relayout_cache(st, op, scope, tname):
    """The cache operation: one axis per data-parallel leaf of ``st`` (domain from the
    relations), the body with the root axes rewritten in those axes and guarded where a split
    leaves a tail. Returns it and {old leaf: new axis}."""
    ana = Analyzer()
    dom = {}
    for iv in op.axis:
        dom[iv] = iv.dom
        ana.bind(iv.var, iv.dom)
    pass_down_domain(st, dom, ana, f"cache_write({tname})")
    reduce = set(op.reduce_axis)
    leaf_map, value = {}, {}
    for iv in st.leaf_iter_vars:
        if iv in reduce:
            continue
        if iv.iter_type != IterVarType.DataPar or iv not in dom:
            raise TepadError(f"cache_write({tname}): loop {iv.name} of stage {st.name} derives "
                             "from a reduce axis (split or fused); cache_write can follow "
                             "split/fuse/reorder of the data axes only: call it before "
                             "splitting the reduce axes")
        new = IterVar(dom[iv], Var(iv.name + ".c", iv.var.dtype), IterVarType.DataPar)
        leaf_map[iv] = new
        value[iv] = new.var
    pass_up_index(st, dom, value, ana)
    for iv in leaf_map.values():
        ana.bind(iv.var, iv.dom)
    preds = relation_bound_checks(st, dom, value, ana)
    vsub = {iv.var: value[iv] for iv in op.axis}
    first = substitute_body(op.body[0], vsub)
    bodies = []
    for k, b in enumerate(op.body):
        if isinstance(first, Reduce):
            b = first if k == 0 else Reduce(first.combiner, first.source, first.axis,
                                            first.condition, b.value_index,
                                            [substitute(x, vsub) for x in b.init])
            if preds:
                b = Reduce(b.combiner, b.source, b.axis, tirop.all(*preds, b.condition),
                           b.value_index, b.init)
        else:
            b = first if k == 0 else substitute(b, vsub)
            if preds:
                b = tirop.if_then_else(tirop.all(*preds), b, const(0, b.dtype))
        bodies.append(b)
    cache_op = ComputeOp(f"{op.name}.{scope}", op.tag, op.attrs, list(leaf_map.values()),
                         bodies)
    return cache_op, leaf_map


def _cache_indices(st, op, leaf_map):
    """Where element ``op.axis`` of the original tensor lives in the cache."""
    ana = Analyzer()
    dom = {}
    for iv in op.axis:
        dom[iv] = iv.dom
        ana.bind(iv.var, iv.dom)
    pass_down_domain(st, dom, ana, "cache_write")
    value = {iv: iv.var for iv in op.axis}
    pass_down_index(st, dom, value, ana)
    return [value[iv] for iv in leaf_map]


def _move_attachments(s, st, cst, leaf_map):
    """Stages computed at a loop of ``st`` are computed at the same loop of the cache."""
    for other in s.stages:
        if other.attach_type != AttachType.Scope or other.attach_stage is not st:
            continue
        iv = other.attach_ivar
        new = leaf_map.get(iv)
        if new is None:
            raise TepadError(f"cache_write({st.name}): stage {other.name} is computed at loop "
                             f"{iv.name} of {st.name}, which the cache cannot keep; call "
                             "compute_at after cache_write")
        other.attach_stage, other.attach_ivar = cst, new
