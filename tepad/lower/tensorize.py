"""Tensorize at lowering: which loops a tensor intrinsic replaces, on which regions, and the
check that it computes what they compute (TVM's MatchTensorizeBody / VerifyTensorizeBody).

``plan_tensorize(stage, rmap, ana)`` returns a ``TensorizePlan`` for a stage with a
tensorized loop (``Stage.tensorize``) or a ``TensorComputeOp`` stage, None otherwise.
ScheduleOps (``schedule_ops._build_tensorized``) builds the loops outside the tile and asks
the plan for the statements that replace the rest: the intrinsic's body / reduce_init /
reduce_update, each inside ``buffer_bind_scope`` attributes that bind the intrinsic's
buffers to the regions of the real tensors (resolved by ``bind_buffer.bind_buffer_scope``
when tensors become buffers).
"""
from __future__ import annotations

from ..arith import Analyzer, IntSet
from ..arith.int_set import union
from ..bound.message_passing import pass_up_domain
from ..errors import TepadError
from ..tensor.tensor_intrin import TensorComputeOp
from ..tir.expr import Call, IntImm, ProducerLoad, Range, Select, Var
from ..tir.functor import collect_vars, ir_transform, post_order_visit, substitute
from ..tir.itervar import IterVarType
from ..tir.printer import expr_to_str
from ..tir.reduce import Reduce
from ..tir.stmt import Allocate, AttrStmt, For, LetStmt
from ..tir.structural import structural_equal
from ..schedule.stage import AttachType
from .bind_buffer import BUFFER_BIND_SCOPE


def bind_attr(buffer, tensor, region, body):
    """``AttrStmt((buffer, tensor), "buffer_bind_scope", tvm_tuple(min0, ext0, ...), body)``:
    inside ``body``, ``buffer`` is the region of ``tensor`` (TVM's buffer binding)."""
    flat = [x for r in region for x in (r.min, r.extent)]
    return AttrStmt((buffer, tensor), BUFFER_BIND_SCOPE, Call("handle", "tir.tvm_tuple", flat),
                    body)


class TensorizePlan:
    """What replaces the loops of ``stage`` from leaf position ``tloc`` on.

    ``inputs``/``outputs``: ``(buffer, tensor, region)`` with regions written in the stage's
    leaf vars (tensorize) or root vars (TensorComputeOp); the statements it returns are
    rewritten with the ``vmap`` ScheduleOps gives (leaf and root vars -> loop values)."""

    def __init__(self, stage, intrin, tloc, inputs, outputs, scalar_map):
        self.stage, self.intrin, self.tloc = stage, intrin, tloc
        self.inputs, self.outputs, self.scalar_map = inputs, outputs, scalar_map

    @property
    def has_reset(self) -> bool:
        return self.intrin.reduce_init is not None

    def _bound(self, stmt, with_inputs, vmap):
        stmt = _fresh_locals(stmt)
        for buf, t, region in reversed(self.outputs):
            stmt = bind_attr(buf, t, region, stmt)
        if with_inputs:
            for buf, t, region in reversed(self.inputs):
                stmt = bind_attr(buf, t, region, stmt)
        stmt = substitute(stmt, self.scalar_map)
        return substitute(stmt, vmap)

    def body(self, vmap):
        """The intrinsic's body: computes the whole tile."""
        if self.intrin.body is None:
            raise TepadError(f"stage {self.stage.name}: the tensor intrinsic "
                             f"{self.intrin.name} has no body statement")
        return self._bound(self.intrin.body, True, vmap)

    def reset(self, vmap):
        """The intrinsic's reduce_init (reset the output tile); binds only the outputs."""
        return self._bound(self.intrin.reduce_init, False, vmap)

    def update(self, vmap):
        """The intrinsic's reduce_update (accumulate one tile into the output)."""
        if self.intrin.reduce_update is None:
            raise TepadError(
                f"stage {self.stage.name}: the reduction intrinsic {self.intrin.name} has no "
                "reduce_update statement, and the tile leaves reduce loops outside it (each "
                "call must then accumulate); fcompute must return (body, reset, update), or "
                "tensorize a loop outside every reduce loop")
        return self._bound(self.intrin.reduce_update, True, vmap)

    def inner_vars(self) -> set:
        """The vars of the leaves the intrinsic replaces (no loop binds them)."""
        return {iv.var for iv in self.stage.leaf_iter_vars[self.tloc:]}


def _fresh_locals(stmt):
    """``stmt`` with the vars it binds (loops, lets, allocations) renamed to fresh ones:
    every call of an intrinsic gets its own, so the IR stays in SSA form."""
    bound = []

    def visit(n):
        if isinstance(n, For):
            bound.append(n.loop_var)
        elif isinstance(n, LetStmt):
            bound.append(n.var)
        elif isinstance(n, Allocate):
            bound.append(n.buffer_var)
    post_order_visit(stmt, visit)
    return substitute(stmt, {v: Var(v.name, v.dtype) for v in bound})


def plan_tensorize(stage, rmap, ana: Analyzer):
    """The TensorizePlan of ``stage``, or None when nothing in it is tensorized."""
    found = [(k, iv) for k, iv in enumerate(stage.leaf_iter_vars)
             if getattr(stage.iter_var_attrs.get(iv), "tensor_intrin", None) is not None]
    if isinstance(stage.op, TensorComputeOp) and not found:
        return _tensor_compute_plan(stage)
    if not found:
        return None
    tloc, tiv = found[0]
    intrin = stage.iter_var_attrs[tiv].tensor_intrin
    _check_nothing_attached_inside(stage, tloc, tiv)
    if isinstance(stage.op, TensorComputeOp):
        return _composed_plan(stage, rmap, ana, tloc, tiv, intrin)
    out_dom = _tile_domain(stage, rmap, tloc, ana)
    in_region = _input_regions(stage.op, out_dom, ana)
    _match(stage, tiv, intrin, out_dom, in_region, ana)
    op = stage.op
    n_in = len(intrin.inputs)
    _check_rolling(stage, intrin, op.input_tensors)
    inputs = [(intrin.buffers[k], t, in_region[t]) for k, t in enumerate(op.input_tensors)]
    outputs = [(intrin.buffers[n_in + k], op.output(k), [out_dom[ax] for ax in op.axis])
               for k in range(op.num_outputs)]
    return TensorizePlan(stage, intrin, tloc, inputs, outputs, {})


def _tensor_compute_plan(stage):
    op = stage.op
    intrin = op.intrin
    n_in = len(intrin.inputs)
    inputs = [(intrin.buffers[k], t, reg)
              for k, (t, reg) in enumerate(zip(op.inputs, op.input_regions))]
    out_region = [Range.from_min_extent(ax.var, IntImm(1, ax.var.dtype))
                  if k < op.schedulable_ndim else ax.dom for k, ax in enumerate(op.axis)]
    outputs = [(intrin.buffers[n_in + k], op.output(k), out_region)
               for k in range(op.num_outputs)]
    smap = dict(zip(intrin.scalar_params, op.scalar_inputs))
    _check_rolling(stage, intrin, op.inputs)
    return TensorizePlan(stage, intrin, len(stage.leaf_iter_vars), inputs, outputs, smap)


def _composed_plan(stage, rmap, ana, tloc, tiv, big):
    """A stage calling a tensor intrinsic, tensorized with ``big``, an intrinsic whose op
    calls the same one over a block of calls: the tile's calls must be ``big``'s (same
    extents, the same regions relative to the tile's origin); ``big`` then gets the union
    of the tile's regions of each input, and the tile of the output."""
    op, iop = stage.op, big.op
    where = f"stage {stage.name}: tensorize({tiv.name}, {big.name})"
    out_dom = {iv: rmap.get(iv, iv.dom) for iv in op.axis}
    out_dom.update(_tile_domain(stage, rmap, tloc, ana))
    mine, theirs = op.axis[:op.schedulable_ndim], iop.axis[:iop.schedulable_ndim]
    lead = len(mine) - len(theirs)
    if lead < 0 or len(op.axis) - len(mine) != len(iop.axis) - len(theirs):
        raise TepadError(f"{where}: {big.name} computes {len(theirs)} block axes of "
                         f"{op.intrin.name} calls, {stage.name} has {len(mine)}")
    vmap = {}
    for iv in mine[:lead]:
        r = out_dom[iv]
        if not _is_one(ana, r.extent):
            raise TepadError(f"{where}: axis {iv.name} takes {expr_to_str(r.extent)} values in "
                             f"the tile, but {big.name} has no axis for it; move its loops "
                             f"outside {tiv.name}")
        vmap[iv.var] = r.min
    for iv, tv in zip(mine[lead:], theirs):
        r = out_dom[iv]
        if not ana.can_prove_equal(r.extent, tv.dom.extent):
            raise TepadError(f"{where}: axis {iv.name} takes {expr_to_str(r.extent)} values in "
                             f"the tile, {big.name}'s axis {tv.name} has extent "
                             f"{expr_to_str(tv.dom.extent)}")
        vmap[iv.var] = tv.var + r.min
    dom = {iv.var: IntSet.from_range(out_dom[iv]) for iv in mine}
    regions, real = {}, {}
    for k, (t, it) in enumerate(zip(op.inputs, iop.inputs)):
        if real.setdefault(it, t) != t or t.dtype != it.dtype or t.ndim != it.ndim:
            raise TepadError(f"{where}: input {k} ({t.name}) does not correspond to "
                             f"{big.name}'s input {it.name}")
        tile = []
        for d, (r, ir) in enumerate(zip(op.input_regions[k], iop.input_regions[k])):
            lo = ana.int_set(r.min, dom)
            hi = ana.int_set(r.min + r.extent - 1, dom)
            cov = union([lo, hi]).cover_range(Range.from_min_extent(
                IntImm(0, t.shape[d].dtype), t.shape[d]))
            tile.append(cov)
            rel = ana.simplify(substitute(r.min, vmap) - substitute(cov.min, vmap))
            if not (ana.can_prove_equal(rel, ir.min) and
                    ana.can_prove_equal(substitute(r.extent, vmap), ir.extent)):
                raise TepadError(f"{where}: the calls of the tile read {t.name} at "
                                 f"{expr_to_str(rel)} (+{expr_to_str(r.extent)}) from the "
                                 f"tile's origin, {big.name} reads {it.name} at "
                                 f"{expr_to_str(ir.min)} (+{expr_to_str(ir.extent)})")
        prev = regions.get(it)
        regions[it] = tile if prev is None else [
            union([IntSet.from_range(a), IntSet.from_range(b)]).cover_range(a)
            for a, b in zip(prev, tile)]
    n_in = len(big.inputs)
    inputs = [(big.buffers[k], real[it], [Range.from_min_extent(ana.simplify(r.min),
                                                                ana.simplify(r.extent))
                                           for r in regions[it]])
              for k, it in enumerate(big.inputs)]
    out_region = [out_dom[iv] for iv in op.axis]
    outputs = [(big.buffers[n_in + k], op.output(k), out_region)
               for k in range(op.num_outputs)]
    _check_rolling(stage, big, [real[it] for it in big.inputs])
    return TensorizePlan(stage, big, tloc, inputs, outputs, {})


def _uses_pointer(intrin, buf) -> bool:
    """Does the intrinsic use ``buf``'s data pointer, elem_offset or strides (not only its
    elements)?"""
    names = {buf.data, buf.elem_offset, *buf.strides}
    used = set()
    for st in (intrin.body, intrin.reduce_init, intrin.reduce_update):
        if st is not None:
            used |= collect_vars(st)
    return bool(names & used)


def _check_rolling(stage, intrin, inputs):
    """A rolling buffer's storage is laid out later (inject_rolling_buffer): a pointer into
    it cannot be bound here; element accesses can."""
    s = stage.schedule
    n_in = len(intrin.inputs)
    pairs = [(intrin.buffers[n_in], stage)]
    pairs += [(b, s.stage_map.get(t.op) if s is not None else None)
              for b, t in zip(intrin.buffers, inputs)]
    for buf, st in pairs:
        if st is not None and st.is_rolling and _uses_pointer(intrin, buf):
            raise TepadError(
                f"stage {stage.name}: the tensor intrinsic {intrin.name} gets a pointer "
                f"into {st.name}, a rolling buffer; an intrinsic may only load and store "
                "the elements of a rolling buffer (vload / vstore)")


def _check_nothing_attached_inside(stage, tloc, tiv):
    inner = {id(iv) for iv in stage.leaf_iter_vars[tloc:]}
    s = stage.schedule
    for other in (s.stages if s is not None else []):
        if other.attach_type == AttachType.Scope and other.attach_stage is stage and \
                id(other.attach_ivar) in inner:
            raise TepadError(
                f"stage {stage.name}: {other.name} is computed at {stage.name}."
                f"{other.attach_ivar.name}, inside the loops tensorized at {tiv.name}; "
                f"compute it at a loop outside {tiv.name} (or at root)")


def _tile_domain(stage, rmap, tloc, ana) -> dict:
    """``{root IterVar: Range}`` one tile covers: leaves before ``tloc`` at their loop var,
    leaves from ``tloc`` on over their whole range."""
    up = {}
    for k, iv in enumerate(stage.leaf_iter_vars):
        up[iv] = IntSet.single_point(iv.var) if k < tloc else IntSet.from_range(rmap[iv])
    pass_up_domain(stage, rmap, up, ana)
    out = {}
    for iv in stage.op.root_iter_vars:
        r = up[iv].cover_range(rmap[iv]) if iv in up else rmap[iv]
        out[iv] = Range.from_min_extent(ana.simplify(r.min), ana.simplify(r.extent))
    return out


def _input_regions(op, out_dom, ana) -> dict:
    """``{input tensor: [Range per dim]}``: what the tile reads (the union of every read's
    index set over the tile)."""
    dom = {iv.var: IntSet.from_range(r) for iv, r in out_dom.items()}
    sets = {t: [[] for _ in range(t.ndim)] for t in op.input_tensors}

    def visit(n):
        if isinstance(n, ProducerLoad) and n.producer in sets:
            for k, idx in enumerate(n.indices):
                sets[n.producer][k].append(ana.int_set(idx, dom))
    for b in op.body:
        post_order_visit(b, visit)
    out = {}
    for t, dims in sets.items():
        regs = []
        for k, ss in enumerate(dims):
            r = union(ss).cover_range(Range.from_min_extent(IntImm(0, t.shape[k].dtype),
                                                            t.shape[k]))
            regs.append(Range.from_min_extent(ana.simplify(r.min), ana.simplify(r.extent)))
        out[t] = regs
    return out


def _is_one(ana, e) -> bool:
    return ana.can_prove_equal(e, IntImm(1, e.dtype))


def _onto_intrinsic(stage, tiv, where, intrin, out_dom, in_region, ana):
    """``(rewrite, axis_remap)``: ``rewrite(e)`` is an expression of ``stage`` over the tile
    written on the intrinsic's axes and inputs (TVM's MatchTensorizeBody); ``axis_remap``
    maps the stage's reduce axes the intrinsic covers to the intrinsic's. A TepadError when
    the tile's axes or reads cannot be the intrinsic's (see ``_match``)."""
    op, iop = stage.op, intrin.op
    vmap, axis_remap = {}, {}
    for kind, mine, theirs in (("axis", op.axis, iop.axis),
                               ("reduce axis", op.reduce_axis, iop.reduce_axis)):
        start = len(mine) - len(theirs)
        if start < 0:
            raise TepadError(f"{where}: the intrinsic has {len(theirs)} {kind}es but "
                             f"{stage.name} has only {len(mine)}")
        for iv in mine[:start]:
            r = out_dom[iv]
            if not _is_one(ana, r.extent):
                raise TepadError(
                    f"{where}: {kind} {iv.name} takes {expr_to_str(r.extent)} values in the "
                    f"tile, but the intrinsic has no {kind} for it; move {iv.name}'s loops "
                    f"outside {tiv.name}")
            vmap[iv.var] = r.min
        for iv, tv in zip(mine[start:], theirs):
            r = out_dom[iv]
            if not ana.can_prove_equal(r.extent, tv.dom.extent):
                raise TepadError(
                    f"{where}: {kind} {iv.name} takes {expr_to_str(r.extent)} values in the "
                    f"tile, but the intrinsic's {kind} {tv.name} has extent "
                    f"{expr_to_str(tv.dom.extent)}")
            vmap[iv.var] = tv.var + r.min
            axis_remap[iv] = tv
    ins = op.input_tensors
    if len(ins) != len(intrin.inputs):
        raise TepadError(f"{where}: {stage.name} reads {len(ins)} tensor(s) "
                         f"({', '.join(t.name for t in ins)}), the intrinsic "
                         f"{len(intrin.inputs)}")
    remap = {}
    for t, it in zip(ins, intrin.inputs):
        if t.dtype != it.dtype or it.ndim > t.ndim:
            raise TepadError(f"{where}: input {t.name} ({t.dtype}, {t.ndim}-d) cannot bind "
                             f"the intrinsic's input {it.name} ({it.dtype}, {it.ndim}-d)")
        lead = t.ndim - it.ndim
        for k in range(lead):
            if not _is_one(ana, in_region[t][k].extent):
                raise TepadError(
                    f"{where}: the tile reads {expr_to_str(in_region[t][k].extent)} values "
                    f"along dimension {k} of {t.name}, but the intrinsic's input {it.name} "
                    f"has {it.ndim} dimension(s)")
        remap[t] = (it, lead, in_region[t])

    def rewrite(e):
        e = substitute(e, vmap)

        def post(n):
            if isinstance(n, ProducerLoad) and n.producer in remap:
                it, lead, region = remap[n.producer]
                idx = [ana.simplify(n.indices[k] - region[k].min)
                       for k in range(lead, len(n.indices))]
                return ProducerLoad(it, idx)
            return None
        return ana.simplify(ir_transform(e, postorder=post))

    rewrite.tile_values = vmap
    return rewrite, axis_remap


def _intrinsic_side(intrin, rewrite, ana):
    """``declared(e)``: an expression of the intrinsic's declaration, simplified, where a
    variable of the stage's own axes it mentions (an intrinsic built for one tile, closing
    over the stage's axis: ``xo * 16 + i < m``) takes its value at the tile."""
    own = {iv.var for iv in list(intrin.op.axis) + list(intrin.op.reduce_axis)}
    at_tile = {v: x for v, x in rewrite.tile_values.items() if v not in own}

    def declared(e):
        return ana.simplify(substitute(e, at_tile) if at_tile else e)
    return declared


def match_tensorize_body(stage, out_dom, in_region, intrin, ana=None) -> list:
    """The body of ``stage`` over the tile ``out_dom`` (``{root IterVar: Range}``, reading
    ``in_region``: ``{tensor: [Range]}``) written on ``intrin``'s axes and inputs, one
    expression per output; a reduction keeps its combiner, on the intrinsic's reduce axes
    (TVM's ``MatchTensorizeBody``, exposed as ``test.op.MatchTensorizeBody``)."""
    ana = ana or Analyzer()
    where = f"stage {stage.name}: match {intrin.name}"
    tensorized = [iv for iv in stage.leaf_iter_vars
                  if getattr(stage.iter_var_attrs.get(iv), "tensor_intrin", None) is not None]
    tiv = (tensorized or stage.leaf_iter_vars)[0]
    rewrite, axis_remap = _onto_intrinsic(stage, tiv, where, intrin, out_dom, in_region, ana)
    out = []
    for e in stage.op.body:
        if isinstance(e, Reduce):
            e = Reduce(e.combiner, [rewrite(x) for x in e.source],
                       [axis_remap[iv] for iv in e.axis if iv in axis_remap],
                       rewrite(e.condition), e.value_index, [rewrite(x) for x in e.init])
        else:
            e = rewrite(e)
        out.append(e)
    return out


def infer_tensorize_region(stage, rmap, ana=None):
    """``(out_dom, in_region)`` of the tile of ``stage`` tensorized at its tensorized leaf
    (``Stage.tensorize``), with bounds ``rmap``: ``{root IterVar: Range}`` one tile covers
    and ``{input tensor: [Range per dim]}`` it reads (TVM's ``InferTensorizeRegion``,
    exposed as ``test.op.InferTensorizeRegion``)."""
    ana = ana or Analyzer()
    found = [k for k, iv in enumerate(stage.leaf_iter_vars)
             if getattr(stage.iter_var_attrs.get(iv), "tensor_intrin", None) is not None]
    if not found:
        raise TepadError(f"stage {stage.name}: no loop of it is tensorized (Stage.tensorize)")
    for iv, r in rmap.items():
        if iv in stage.all_iter_vars:
            ana.bind(iv.var, r)
    out_dom = _tile_domain(stage, rmap, found[0], ana)
    return out_dom, _input_regions(stage.op, out_dom, ana)


def _match(stage, tiv, intrin, out_dom, in_region, ana):
    """Raise a TepadError unless ``intrin.op`` computes, on its own axes, what ``stage``
    computes over the tile (TVM's MatchTensorizeBody + VerifyTensorizeBody): the stage's
    axes and reduce axes past the intrinsic's count must have one point in the tile, the
    others the intrinsic's extents; every read, shifted to the tile's origin, must be the
    intrinsic's read of the matching input; the expressions must then be equal."""
    op, iop = stage.op, intrin.op
    where = f"stage {stage.name}: tensorize({tiv.name}, {intrin.name})"
    rewrite, _ = _onto_intrinsic(stage, tiv, where, intrin, out_dom, in_region, ana)
    declared = _intrinsic_side(intrin, rewrite, ana)
    for k, (mine, theirs) in enumerate(zip(op.body, iop.body)):
        if mine.dtype != theirs.dtype:
            raise TepadError(f"{where}: {stage.name} computes {mine.dtype}, the intrinsic "
                             f"{theirs.dtype}")
        if isinstance(mine, Reduce):
            _match_reduce(where, stage, mine, theirs, rewrite, declared, ana)
            continue
        lhs, rhs = rewrite(mine), declared(theirs)
        if not _same_value(lhs, rhs):
            raise TepadError(f"{where}: the compute does not match the intrinsic's "
                             f"declaration: {stage.name} computes {expr_to_str(lhs)} over the "
                             f"tile, {intrin.name} computes {expr_to_str(rhs)}")


def _selects_as_guards(e):
    """``e`` with every ``Select(c, a, b)`` written ``if_then_else(c, a, b)``: the same value
    (tepad's cache_write guards a partial tile with if_then_else where TVM writes a Select)."""
    def post(n):
        if isinstance(n, Select):
            return Call(n.dtype, "tir.if_then_else", [n.condition, n.true_value, n.false_value])
        return None
    return ir_transform(e, postorder=post)


def _same_value(a, b) -> bool:
    """Whether two expressions are the same computation, up to Select vs if_then_else."""
    return structural_equal(a, b) or structural_equal(_selects_as_guards(a),
                                                      _selects_as_guards(b))


def _match_reduce(where, stage, mine, theirs, rewrite, declared, ana):
    x, y = Var("x", mine.dtype), Var("y", mine.dtype)
    same = structural_equal(ana.simplify(mine.combiner.combine(x, y)),
                            ana.simplify(theirs.combiner.combine(x, y))) and \
        structural_equal(mine.combiner.identity(), theirs.combiner.identity())
    if not same:
        raise TepadError(f"{where}: {stage.name} reduces with {mine.combiner.name}, the "
                         f"intrinsic with {theirs.combiner.name}")
    for what, a, b in (("reduces", mine.source[0], theirs.source[0]),
                       ("reduces where", mine.condition, theirs.condition)):
        lhs, rhs = rewrite(a), declared(b)
        if not _same_value(lhs, rhs):
            raise TepadError(f"{where}: the compute does not match the intrinsic's "
                             f"declaration: {stage.name} {what} {expr_to_str(lhs)} over the "
                             f"tile, the intrinsic {what} {expr_to_str(rhs)}")
    if len(mine.init) != len(theirs.init) or not all(
            _same_value(rewrite(a), declared(b))
            for a, b in zip(mine.init, theirs.init)):
        raise TepadError(f"{where}: {stage.name} and the intrinsic start their reduction "
                         "from different init values")


def check_whole_tile(plan, preds):
    """The guards of the loops kept outside the tile; a guard on a replaced loop (a tile
    that runs past the tensor: a split that does not divide) is a TepadError."""
    inner = plan.inner_vars()
    keep = []
    for p in preds:
        if collect_vars(p) & inner:
            tiv = plan.stage.leaf_iter_vars[plan.tloc]
            raise TepadError(
                f"stage {plan.stage.name}: the tile tensorized at {tiv.name} is not whole "
                f"everywhere (it needs the guard {expr_to_str(p)}); split with a factor that "
                "divides the extent")
        keep.append(p)
    return keep


def first_iteration(stage, rmap, leaves, flag):
    """Conditions that hold on the first iteration of the reduce loops among ``leaves``."""
    return [iv.var == rmap[iv].min for iv in leaves if flag.get(iv, 0) & 2 and
            iv.iter_type != IterVarType.Opaque]


__all__ = ["plan_tensorize", "TensorizePlan", "BUFFER_BIND_SCOPE", "bind_attr",
           "check_whole_tile", "first_iteration"]
