"""ScheduleOps: build the loop nest of every stage and place attached stages.

Stages are visited consumers first. A root stage wraps what was built so far:
``realize T { T's loop nest; <consumers> }``; a stage computed at ``C.i`` is injected at the start
of that loop's body (found through the ``loop_scope`` marker left on every loop); a scan and the
stages of its init and time step are built by ``scan_ops``. Loops come from
the stage's leaf IterVars and the bound map; root indices from PassUpIndex; guards only where a
split does not provably divide or a region reaches past the tensor's declared shape.
"""
from __future__ import annotations

import warnings

from ..arith import Analyzer, IntSet
from ..errors import InternalError, TepadError, TepadWarning
from ..schedule.relations import Fuse, Rebase, Singleton, Split, Transform
from ..schedule.stage import AttachType
from ..tensor.extern import ExternOp
from ..tensor.hybrid import HybridOp
from ..tensor.scan import ScanOp
from ..tensor.tensor import PlaceholderOp
from .extern_ops import extern_pipeline
from .predicate_lets import share_predicate_bounds
from ..tir import op as tirop
from ..tir.buffer import Buffer
from ..tir.expr import BufferLoad, Call, IntImm, PrimExpr, ProducerLoad, Var, convert
from ..tir.functor import Mutator, post_order_visit, substitute
from ..tir.itervar import IterVarType
from ..tir.reduce import Reduce
from ..tir.stmt import (Allocate, AttrStmt, BufferStore, Evaluate, For, ForKind, IfThenElse, LetStmt, ProducerRealize,
                        ProducerStore, seq)
from ..bound.message_passing import pass_down_domain, pass_up_index
from ..schedule.index_flow import relation_bound_checks
from .shift_tail import pass_up_index_shifted, shiftable
from .scan_ops import (alias_scan_state, inject_scan_step, make_scan_pipeline, scan_inits,
                       scan_step_owner)
from .tensorize import check_whole_tile, first_iteration, plan_tensorize
from .thread_binding import thread_nest_items, thread_var_ranges

LOOP_SCOPE = "loop_scope"

_KIND = {IterVarType.Vectorized: ForKind.VECTORIZED, IterVarType.Unrolled: ForKind.UNROLLED,
         IterVarType.Parallelized: ForKind.PARALLEL}


def _is_const(e, v):
    return isinstance(e, IntImm) and e.value == v


class _Nest:
    """Loop-nest builder: a list of wrappers (outermost first) applied around a body."""

    def __init__(self):
        self.items = []

    def wrap(self, body):
        for kind, *args in reversed(self.items):
            if kind == "for":
                var, mn, ext, fkind = args
                body = For(var, mn, ext, fkind, body)
            elif kind == "let":
                body = LetStmt(args[0], args[1], body)
            elif kind == "attr":
                body = AttrStmt(args[0], args[1], args[2], body)
            elif kind == "if":
                body = IfThenElse(args[0], body)
        return body


def _warn_symbolic_vectorize(stage, iv, extent):
    """vectorize() of a loop whose extent is not a constant: tepad keeps the loop scalar (a
    serial loop marked for LLVM's loop vectorizer, see vectorize_loop) where TVM refuses to
    build; say so, naming the stage and axis."""
    warnings.warn(
        f"stage {stage.name}: vectorize({iv.name}) of a loop whose extent {extent} is not a "
        "constant: the loop stays scalar (LLVM's loop vectorizer may still vectorize it; TVM "
        f"refuses to build it); split {iv.name} by a constant factor and vectorize the inner "
        "axis for vector code", TepadWarning, stacklevel=2)


def make_loop_nest(stage, rmap, begin=0, new_loop_var=False, skip=(), extents=None):
    """Loops for ``stage.leaf_iter_vars[begin:]`` and ``{IterVar: index expr}`` for all ivs.

    ``extents`` overrides the loop extent of some leaves (exact tails of non-divisible splits);
    such a loop is always emitted as a For, even when its extent may be 1.
    """
    nest = _Nest()
    value = {}
    renamed = {}
    for iv in stage.leaf_iter_vars[begin:]:
        if iv in skip:
            continue
        r = rmap[iv]
        _pragma_items(nest, stage, iv)
        if extents and iv in extents:
            var = Var(iv.name + ".init", iv.var.dtype) if new_loop_var else iv.var
            renamed[iv.var] = var
            attr = stage.iter_var_attrs.get(iv)
            kind = _KIND.get(attr.iter_type if attr is not None else None, ForKind.SERIAL)
            if kind == ForKind.VECTORIZED:
                kind = ForKind.SERIAL      # a variable extent cannot become one vector
            nest.items.append(("for", var, IntImm(0, r.extent.dtype),
                               substitute(extents[iv], renamed), kind))
            value[iv] = var
            if not new_loop_var:
                _prefetch_items(nest, stage, iv)
                nest.items.append(("attr", iv, LOOP_SCOPE, iv.var))
            continue
        attr = stage.iter_var_attrs.get(iv)
        if attr is not None and attr.bind_thread is not None:
            items, value[iv] = thread_nest_items(stage, iv, attr.bind_thread, r)
            nest.items.extend(items)
            if not new_loop_var:
                nest.items.append(("attr", iv, LOOP_SCOPE, iv.var))
            continue
        kind = _KIND.get(attr.iter_type if attr is not None else None, ForKind.SERIAL)
        if kind == ForKind.VECTORIZED and not isinstance(r.extent, IntImm) and not new_loop_var:
            _warn_symbolic_vectorize(stage, iv, r.extent)
        var = Var(iv.name + ".init", iv.var.dtype) if new_loop_var else iv.var
        renamed[iv.var] = var
        if _is_const(r.extent, 1):
            nest.items.append(("let", var, r.min))
        elif _is_const(r.min, 0):
            nest.items.append(("for", var, r.min, r.extent, kind))
        else:
            idx = Var(iv.name + ".idx", iv.var.dtype)
            nest.items.append(("for", idx, IntImm(0, r.extent.dtype), r.extent, kind))
            nest.items.append(("let", var, r.min + idx))
        value[iv] = var
        if not new_loop_var:
            _prefetch_items(nest, stage, iv)
            nest.items.append(("attr", iv, LOOP_SCOPE, iv.var))
    return nest, value


PRAGMA_PREFIX = "pragma_"
PREFETCH_SCOPE = "prefetch_scope"
BUFFER_DIM_ALIGN = "buffer_dim_align"


def _pragma_items(nest, stage, iv):
    """``AttrStmt(iv, "pragma_<type>", value)`` around the loop of ``iv``, one per pragma in
    the order given (TVM's MakeLoopNest); a pragma without a value gets 1."""
    attr = stage.iter_var_attrs.get(iv)
    if attr is None:
        return
    for key, val in zip(attr.pragma_keys, attr.pragma_values):
        nest.items.append(("attr", iv, PRAGMA_PREFIX + key.value,
                           IntImm(1, "int32") if val is None else val))


def _prefetch_items(nest, stage, iv):
    """``AttrStmt(tensor, "prefetch_scope", offset)`` just inside the loop of ``iv``;
    inject_prefetch turns it into a ``Prefetch`` of the region read ``offset`` iterations
    ahead."""
    attr = stage.iter_var_attrs.get(iv)
    if attr is None:
        return
    for t, off in zip(attr.prefetch_data, attr.prefetch_offset):
        nest.items.append(("attr", t, PREFETCH_SCOPE, off))


def _leaf_ranges(stage, rmap):
    out = {iv.var: IntSet.from_range(rmap[iv]) for iv in stage.leaf_iter_vars if iv in rmap}
    out.update((v, IntSet.from_range(r)) for v, r in thread_var_ranges(stage, rmap).items())
    return out


def exact_tail_extents(stage, rmap, ana):
    """Inner-loop extents ``min(f, P - outer*f)`` for splits that do not provably divide.

    Returns ``({inner IterVar: extent expr}, {Split relations now exact})``; only splits whose
    outer and inner are both leaves, outer first, are rewritten (others keep their guard).
    """
    out, exact = {}, set()
    pos = {id(iv): k for k, iv in enumerate(stage.leaf_iter_vars)}
    for rel in stage.relations:
        if not isinstance(rel, Split):
            continue
        p, ro, ri = rmap[rel.parent], rmap[rel.outer], rmap[rel.inner]
        if ana.can_prove_equal(p.extent, ro.extent * ri.extent):
            continue
        if id(rel.outer) not in pos or id(rel.inner) not in pos or \
                pos[id(rel.outer)] > pos[id(rel.inner)]:
            continue
        f = ri.extent
        out[rel.inner] = ana.simplify(tirop.min(f, p.extent - rel.outer.var * f))
        exact.add(rel)
    return out, exact


def make_bound_check(stage, rmap, value, ana, skip=(), exact_splits=()):
    """Conditions that keep the stage inside its region and inside the tensor's shape."""
    dom = _leaf_ranges(stage, rmap)
    preds = relation_bound_checks(stage, rmap, value, ana, skip=skip,
                                  exact_splits=exact_splits, var_ranges=dom)
    for iv in stage.op.root_iter_vars:
        if iv in skip or iv not in value:
            continue
        r = rmap[iv]
        if _same_range(ana, r, iv.dom):
            continue
        v = ana.simplify(value[iv] - iv.dom.min)
        s = ana.int_set(v, dom)
        if not (s.has_lower_bound() and ana.can_prove(s.min() >= 0)):
            preds.append(v >= 0)
        if not (s.has_upper_bound() and ana.can_prove(s.max() < iv.dom.extent)):
            preds.append(v < iv.dom.extent)
    return preds


def _same_range(ana, a, b):
    return ana.can_prove_equal(a.min, b.min) and ana.can_prove_equal(a.extent, b.extent)


def _guard(preds, body):
    if not preds:
        return body
    return IfThenElse(tirop.likely(tirop.all(*preds)), body)


def _reduce_flags(stage):
    """Bit 1: leaf derives from a data axis; bit 2: from a reduce axis."""
    flag = {iv: 1 for iv in stage.op.axis}
    flag.update({iv: 2 for iv in stage.op.reduce_axis})
    for rel in stage.relations:
        if isinstance(rel, Split):
            flag[rel.outer] = flag[rel.inner] = flag.get(rel.parent, 0)
        elif isinstance(rel, Fuse):
            flag[rel.fused] = flag.get(rel.outer, 0) | flag.get(rel.inner, 0)
        elif isinstance(rel, Rebase):
            flag[rel.rebased] = flag.get(rel.parent, 0)
        elif isinstance(rel, Singleton):
            flag[rel.iter] = 0
        elif isinstance(rel, Transform):
            f = 0
            for ov in rel.original_vars:
                f |= flag.get(ov, 0)
            for tv in rel.transformed_vars:
                flag[tv] = f
    return flag


def _region_predicates(stage, rmap, value):
    """Exact-mode conditions on the root vars, rewritten in terms of the loop values.

    A rolling buffer computes its region's bounding box instead: it skips what the previous
    iteration stored, which is only sound when every iteration stores a box."""
    if stage.is_rolling:
        return []
    conds = getattr(rmap, "predicates", {}).get(stage.op, ())
    vmap = {iv.var: value[iv] for iv in stage.op.root_iter_vars if iv in value}
    return [substitute(c, vmap) for c in conds]


def build_provide(stage, rmap, ana):
    """The loop nest computing ``stage``'s outputs over their regions."""
    plan = plan_tensorize(stage, rmap, ana)
    if plan is not None:
        return _build_tensorized(stage, rmap, ana, plan)
    op = stage.op
    tails, exact_splits = ({}, set())
    if getattr(rmap, "exact_tails", False):
        tails, exact_splits = exact_tail_extents(stage, rmap, ana)
    shifted = shiftable(stage, rmap)               # split(..., tail="shift")
    for rel in shifted:
        tails.pop(rel.inner, None)
    exact_splits = set(exact_splits) | set(shifted)
    nest, value = make_loop_nest(stage, rmap, extents=tails)
    pass_up_index_shifted(stage, rmap, value, ana, shifted)
    preds = make_bound_check(stage, rmap, value, ana, exact_splits=exact_splits)
    preds += _region_predicates(stage, rmap, value)
    if stage.store_predicate is not None:          # set_store_predicate
        preds.append(stage.store_predicate)
    axis_vars = [iv.var for iv in op.axis]
    vmap = {iv.var: value[iv] for iv in op.root_iter_vars if iv in value}
    if not op.reduce_axis:
        stores = [ProducerStore(op.output(k), op.body[k], axis_vars)
                  for k in range(op.num_outputs)]
        body = nest.wrap(_guard(preds, seq(*stores)))
        return substitute(body, vmap)

    red = op.body[0]
    flag = _reduce_flags(stage)
    leaves = stage.leaf_iter_vars
    if any(flag.get(iv, 0) & 2 and _thread_tag(stage, iv).startswith("threadIdx")
           for iv in leaves):
        return _cross_thread_reduction(stage, rmap, ana, nest, value, preds, vmap, flag)
    num_common = next((k for k, iv in enumerate(leaves) if flag.get(iv, 0) & 2), len(leaves))
    # init: loops over the data leaves that sit inside the first reduction loop
    init_skip = {iv for iv in leaves[num_common:] if flag.get(iv, 0) == 2}
    init_nest, init_value = make_loop_nest(stage, rmap, num_common, True, init_skip, tails)
    for iv in leaves[:num_common]:
        init_value[iv] = value[iv]
    for iv in init_skip:
        init_value[iv] = IntImm(0, iv.var.dtype)
    pass_up_index(stage, rmap, init_value, ana)
    red_leaf_set = set(init_skip)
    init_preds = make_bound_check(stage, rmap, init_value, ana,
                                  skip=red_leaf_set | set(op.reduce_axis),
                                  exact_splits=exact_splits)
    init_preds += _region_predicates(stage, rmap, init_value)
    outs = [op.output(k) for k in range(op.num_outputs)]
    init_store = seq(*[ProducerStore(t, _init_value(op.body[k]), axis_vars)
                       for k, t in enumerate(outs)])
    init_vmap = {iv.var: init_value[iv] for iv in op.axis if iv in init_value}
    init_stmt = substitute(init_nest.wrap(_guard(init_preds, init_store)), init_vmap)

    update = _update_stmt(red, outs, axis_vars)
    if not _is_const(red.condition, 1):
        update = IfThenElse(red.condition, update)
    update = _guard(preds, update)
    common = _Nest()
    common.items = []
    inner = _Nest()
    # split the main nest's wrappers into the common part and the reduction part
    split_at = _count_items_before(nest, leaves, num_common)
    common.items = nest.items[:split_at]
    inner.items = nest.items[split_at:]
    body = common.wrap(seq(init_stmt, inner.wrap(update)))
    return substitute(body, vmap)


def _thread_tag(stage, iv) -> str:
    attr = stage.iter_var_attrs.get(iv)
    t = attr.bind_thread if attr is not None else None
    return t.thread_tag if t is not None else ""


THREAD_ALLREDUCE = "tir.tvm_thread_allreduce"
REDUCE_SCOPE = "reduce_scope"


def _leaf_groups(nest, leaves) -> dict:
    """``{leaf IterVar: its nest items}`` (each leaf's items end at its loop_scope marker)."""
    out, cur = {}, []
    for item in nest.items:
        cur.append(item)
        if item[0] == "attr" and item[2] == LOOP_SCOPE:
            out[item[1]] = cur
            cur = []
    return out


def _cross_thread_reduction(stage, rmap, ana, nest, value, preds, vmap, flag):
    """TVM's MakeCrossThreadReduction: a reduction with a reduce leaf bound to ``threadIdx``.

    Every thread folds its share over the reduce leaves that are plain loops into a local
    ``normal_reduce_temp`` (when there are such leaves), then one ``tvm_thread_allreduce``
    call (under a ``reduce_scope`` attribute naming the combiner) combines the threads'
    values into the local ``reduce_temp``: arguments ``(uint32 number of values, values...,
    condition, result data vars..., reducing thread vars...)``; lower_thread_allreduce turns it
    into a shared-memory tree. The output is stored by the thread whose reducing thread
    indices are all 0 (and where the stage's store predicate and its data-axis bounds
    hold)."""
    op = stage.op
    leaves = stage.leaf_iter_vars
    red = op.body[0]
    size = op.num_outputs
    outs = [op.output(k) for k in range(size)]
    axis_vars = [iv.var for iv in op.axis]
    groups = _leaf_groups(nest, leaves)
    common, normal = _Nest(), _Nest()
    threads = []
    for iv in leaves:
        items = groups.get(iv, [])
        tag = _thread_tag(stage, iv)
        if flag.get(iv, 0) & 2 and not tag:
            normal.items.extend(items)
        else:
            common.items.extend(items)
            if flag.get(iv, 0) & 2:
                # bound to blockIdx: lowered as TVM lowers it (an allreduce over blocks,
                # which lower_thread_allreduce refuses to build)
                if not isinstance(rmap[iv].extent, IntImm):
                    raise TepadError(
                        f"stage {stage.name}: reduce axis {iv.name} is bound to {tag} with "
                        f"extent {rmap[iv].extent}; a reduction across threads needs a "
                        f"constant number of threads (split the axis by a constant factor "
                        f"and bind the inner part)")
                threads.append(stage.iter_var_attrs[iv].bind_thread.var)
    dtypes = [t.dtype for t in outs]
    sources = list(red.source)
    # the store predicate guards the store only (build_provide added it to preds)
    preds = [p for p in preds if p is not stage.store_predicate]
    if not _is_const(red.condition, 1):
        preds = preds + [red.condition]
    # what the data axes alone must satisfy (the store), without the checks of anything
    # derived from the reduce axes only (a nested split of a reduce axis has pieces between
    # its root and its leaves whose values use the reduce loops, which end before the store)
    red_leaves = {iv for iv in leaves if flag.get(iv, 0) == 2}
    data_value = dict(value)
    for iv in red_leaves:
        data_value[iv] = rmap[iv].min
    store_preds = make_bound_check(stage, rmap, data_value, ana,
                                   skip={iv for iv, f in flag.items() if f == 2})
    store_preds += [v.equal(0) for v in threads]
    if stage.store_predicate is not None:
        store_preds.append(stage.store_predicate)
    res = [Buffer([1], dt, f"reduce_temp{k}", scope="local") for k, dt in enumerate(dtypes)]
    cond = tirop.all(*preds) if preds else IntImm(1, "bool")
    body_parts = []
    normal_bufs = []
    if normal.items:
        normal_bufs = [Buffer([1], dt, f"normal_reduce_temp{k}", scope="local")
                       for k, dt in enumerate(dtypes)]
        init = seq(*[BufferStore(b, red.combiner.identity(k), [IntImm(0)])
                     for k, b in enumerate(normal_bufs)])
        olds = [BufferLoad(b, [IntImm(0)]) for b in normal_bufs]
        news = red.combiner.combine_all(olds, sources)
        if size == 1:
            upd = BufferStore(normal_bufs[0], news[0], [IntImm(0)])
        else:
            tmps = [Var(f"{b.name}.new", b.dtype) for b in normal_bufs]
            upd = seq(*[BufferStore(b, v, [IntImm(0)]) for b, v in zip(normal_bufs, tmps)])
            for v, e in reversed(list(zip(tmps, news))):
                upd = LetStmt(v, e, upd)
        upd = _guard(preds, upd)
        body_parts += [init, normal.wrap(upd)]
        values = [BufferLoad(b, [IntImm(0)]) for b in normal_bufs]
        cond = IntImm(1, "bool")
    else:
        values = sources
    args = [IntImm(size, "uint32")] + values + [cond] + [b.data for b in res] + threads
    call = Evaluate(Call("handle", THREAD_ALLREDUCE, args))
    body_parts.append(AttrStmt(red.combiner, REDUCE_SCOPE, IntImm(0, "int32"), call))
    stores = seq(*[ProducerStore(t, BufferLoad(b, [IntImm(0)]), axis_vars)
                   for t, b in zip(outs, res)])
    body_parts.append(_guard(store_preds, stores) if store_preds else stores)
    body = seq(*body_parts)
    for b in reversed(res + normal_bufs):
        body = Allocate(b.data, b.dtype, [1], IntImm(1, "bool"), body, {"scope": "local"})
    return substitute(common.wrap(body), vmap)


def _build_tensorized(stage, rmap, ana, plan):
    """The loops before leaf ``plan.tloc`` around the tensor intrinsic's statements (TVM's
    MakeTensorize): a reduction calls reduce_init in its own nest and reduce_update in the
    reduce loops, or, without reduce_init, the body at the first iteration of the reduce
    loops outside the tile and reduce_update at the others."""
    op, leaves, tloc = stage.op, stage.leaf_iter_vars, plan.tloc
    nest, value = make_loop_nest(stage, rmap)
    pass_up_index(stage, rmap, value, ana)
    preds = check_whole_tile(plan, make_bound_check(stage, rmap, value, ana) +
                             _region_predicates(stage, rmap, value))
    vmap = {iv.var: v for iv, v in value.items()}
    outer = _count_items_before(nest, leaves, tloc)
    if not op.reduce_axis:
        loops = _Nest()
        loops.items = nest.items[:outer]
        return loops.wrap(_guard(preds, plan.body(vmap)))
    flag = _reduce_flags(stage)
    num_common = next((k for k, iv in enumerate(leaves[:tloc]) if flag.get(iv, 0) & 2), tloc)
    split_at = _count_items_before(nest, leaves, num_common)
    common, update_loops = _Nest(), _Nest()
    common.items, update_loops.items = nest.items[:split_at], nest.items[split_at:outer]
    if plan.has_reset:
        inner = set(leaves[tloc:])
        init_skip = {iv for iv in leaves[num_common:tloc] if flag.get(iv, 0) == 2}
        init_nest, init_value = make_loop_nest(stage, rmap, num_common, True,
                                               init_skip | inner)
        for iv in leaves[:num_common]:
            init_value[iv] = value[iv]
        for iv in init_skip | inner:
            init_value[iv] = rmap[iv].min
        pass_up_index(stage, rmap, init_value, ana)
        init_preds = check_whole_tile(plan, make_bound_check(
            stage, rmap, init_value, ana, skip=init_skip | set(op.reduce_axis)) +
            _region_predicates(stage, rmap, init_value))
        reset = plan.reset({iv.var: v for iv, v in init_value.items()})
        init = init_nest.wrap(_guard(init_preds, reset))
        update = update_loops.wrap(_guard(preds, plan.update(vmap)))
        return common.wrap(seq(init, update))
    first = first_iteration(stage, rmap, leaves[num_common:tloc], flag)
    step = plan.body(vmap) if not first else \
        IfThenElse(tirop.all(*first), plan.body(vmap), plan.update(vmap))
    return common.wrap(update_loops.wrap(_guard(preds, step)))


def _init_value(red):
    """What output ``red.value_index`` starts from: its ``init=`` or the identity."""
    k = red.value_index
    return red.init[k] if red.init else red.combiner.identity(k)


def _update_stmt(red, outs, axis_vars):
    """``outs[k][axis] = combine(old values, source)[k]`` for every value of the reduction.

    With several values, each new value is bound to a temporary before any store, so every
    update reads the old values of all outputs (argmax's index update reads the old value)."""
    olds = [ProducerLoad(t, axis_vars) for t in outs]
    news = red.combiner.combine_all(olds, red.source)
    if len(outs) == 1:
        return ProducerStore(outs[0], news[0], axis_vars)
    tmps = [Var(f"{t.name}.new", t.dtype) for t in outs]
    body = seq(*[ProducerStore(t, v, axis_vars) for t, v in zip(outs, tmps)])
    for v, e in reversed(list(zip(tmps, news))):
        body = LetStmt(v, e, body)
    return body


def _count_items_before(nest, leaves, k):
    """Number of nest items produced for the first ``k`` leaves."""
    targets = set(id(iv) for iv in leaves[:k])
    seen = 0
    for idx, item in enumerate(nest.items):
        if item[0] == "attr" and item[2] == LOOP_SCOPE and id(item[1]) in targets:
            seen += 1
            if seen == k:
                return idx + 1
    return 0 if k == 0 else len(nest.items)


def build_realize(stage, rmap, body):
    """``realize`` of each output over its region; a storage_align'ed axis adds
    ``AttrStmt(tensor, "buffer_dim_align", tvm_tuple(dim, factor, offset))`` just inside
    (TVM puts it just outside; inside, the tensor already has its buffer in to_primfunc)."""
    op = stage.op
    bounds = [rmap[iv] for iv in op.axis]
    for k in reversed(range(op.num_outputs)):
        t = op.output(k)
        inner = body
        for dim, iv in enumerate(op.axis):
            a = stage.iter_var_attrs.get(iv)
            if a is not None and a.dim_align_factor:
                inner = AttrStmt(t, BUFFER_DIM_ALIGN,
                                 tirop.call_intrin("handle", "tir.tvm_tuple", dim,
                                                   a.dim_align_factor, a.dim_align_offset),
                                 inner)
        body = ProducerRealize(t, bounds, IntImm(1, "bool"), inner, stage.scope or "")
    return body


ROLLING_BUFFER_SCOPE = "rolling_buffer_scope"
DOUBLE_BUFFER_SCOPE = "double_buffer_scope"


def _hybrid_loops(stage, ana):
    """The body of a HybridOp stage whose axes were scheduled (split, fuse, reorder,
    annotated): its outer loop nest rebuilt from the stage's leaves (TVM's ApplyLoopShapes /
    ApplyLoopOrder / ApplyLoopAnnotations), the rest of the body inside; None when the
    schedule left the axes alone."""
    op = stage.op
    if not op.axis or (not stage.relations and not stage.iter_var_attrs):
        return None
    rmap = {iv: iv.dom for iv in op.axis}
    pass_down_domain(stage, rmap, ana)
    nest, value = make_loop_nest(stage, rmap)
    pass_up_index(stage, rmap, value, ana)
    body, kinds = op.body, {}
    for iv in op.axis:
        if not isinstance(body, For) or body.loop_var is not iv.var:
            raise InternalError(f"hybrid stage {stage.name}: axis {iv.name} is not the "
                                "loop nest of its body")
        kinds[iv.var] = body.kind
        body = body.body
    # an axis the schedule kept whole and did not annotate keeps the script's loop kind
    nest.items = [("for", it[1], it[2], it[3], kinds[it[1]])
                  if it[0] == "for" and it[1] in kinds and it[4] == ForKind.SERIAL else it
                  for it in nest.items]
    body = substitute(body, {iv.var: value[iv] for iv in op.axis})
    return nest.wrap(_guard(make_bound_check(stage, rmap, value, ana), body))


def make_pipeline(stage, rmap, consumer, ana):
    if isinstance(stage.op, ExternOp):
        body = _hybrid_loops(stage, ana) if isinstance(stage.op, HybridOp) else None
        return extern_pipeline(stage, consumer, body)
    producer = build_provide(stage, rmap, ana)
    if getattr(stage, "is_double_buffered", False):
        # TVM's MakePipeline: the producer alone is in the scope; inject_double_buffer
        # moves its writes one iteration of the enclosing loop ahead
        producer = AttrStmt(stage.op.output(0), DOUBLE_BUFFER_SCOPE, IntImm(1, "int32"),
                            producer)
    pipe = producer if consumer is None else seq(producer, consumer)
    if stage.is_rolling:
        if stage.attach_type != AttachType.Scope:
            raise TepadError(
                f"stage {stage.name}: rolling_buffer needs {stage.name} to be computed at a "
                "loop of its consumer (s[B].compute_at(s[C], axis)); it is computed at the root")
        pipe = AttrStmt(stage.op.output(0), ROLLING_BUFFER_SCOPE, IntImm(1, "bool"), pipe)
    body = build_realize(stage, rmap, pipe)
    for var, value in reversed(getattr(rmap, "predicate_lets", {}).get(stage.op, ())):
        body = LetStmt(var, value, body)
    # the stage's root offsets (tepad.bound.offset_lets), outermost: the predicate bounds and
    # the realize use them
    for var, value in reversed(getattr(rmap, "offset_lets", {}).get(stage.op, ())):
        body = LetStmt(var, value, body)
    return body


class _InjectAttach(Mutator):
    """Puts ``stage``'s pipeline at its attach point, the one loop_scope marker of its attach
    IterVar. The walk ends at that marker: a schedule of N stages attached in each other's
    loops would otherwise walk the whole nest once per stage (O(N^2) statements)."""

    def __init__(self, stage, rmap, ana):
        self.stage, self.rmap, self.ana = stage, rmap, ana
        self.found = 0

    def visit(self, node):
        if self.found or isinstance(node, PrimExpr):
            return node         # attach points are statements: expressions stay as they are
        return super().visit(node)

    def visit_AttrStmt(self, s):
        body = self.visit(s.body)
        if s.attr_key == LOOP_SCOPE and s.node is self.stage.attach_ivar:
            self.found += 1
            body = make_pipeline(self.stage, self.rmap, body, self.ana)
        if body is s.body:
            return s
        return AttrStmt(s.node, s.attr_key, s.value, body)


class _PostProc(Mutator):
    """Drop loop_scope markers and inline the LetStmts of trivial/offset loops (not those of
    ``keep``: shared predicate bounds)."""

    def __init__(self, keep=()):
        self.vmap = {}
        self.keep = keep

    def visit_AttrStmt(self, s):
        if s.attr_key == LOOP_SCOPE:
            return self.visit(s.body)
        return self.generic_visit(s)

    def visit_LetStmt(self, s):
        value = self.visit(s.value)
        if id(s.var) in self.keep or _reads_tensor(value):
            # a temporary of a tuple reduction: it must read before the stores that follow
            body = self.visit(s.body)
            return s if value is s.value and body is s.body else LetStmt(s.var, value, body)
        self.vmap[s.var] = value
        return self.visit(s.body)

    def visit_Var(self, v):
        return self.vmap.get(v, v)


def _reads_tensor(e):
    found = []
    post_order_visit(e, lambda n: found.append(n) if isinstance(n, ProducerLoad) else None)
    return bool(found)


def schedule_ops(s, rmap, keep_markers=False):
    """The TE-level loop nest (ProducerRealize/ProducerStore) of normalized schedule ``s``."""
    ana = Analyzer()
    for iv, r in rmap.items():
        ana.bind(iv.var, r)
    for lets in getattr(rmap, "offset_lets", {}).values():     # outer stages first
        for v, value in lets:
            b = ana.const_int_bound(value)
            ana.update(v, (b.min_value, b.max_value))
    rmap, keep = share_predicate_bounds(s, rmap)
    keep = keep | {id(v) for lets in getattr(rmap, "offset_lets", {}).values() for v, _ in lets}
    body = None
    inits = scan_inits(s)
    for stage in reversed(s.stages):
        if isinstance(stage.op, PlaceholderOp):
            continue
        if stage.attach_type == AttachType.Inline:
            raise TepadError(f"stage {stage.name} is marked compute_inline; call "
                             "s.normalize() before ScheduleOps")
        if stage.attach_type == AttachType.InlinedAlready:
            continue
        owner = scan_step_owner(stage, inits)
        if owner is not None:
            body = inject_scan_step(stage, owner, body, rmap, ana, make_pipeline)
        elif isinstance(stage.op, ScanOp):
            body = make_scan_pipeline(stage, rmap, body, ana)
        elif stage.attach_type == AttachType.GroupRoot:
            body = make_pipeline(stage, rmap, body, ana)
        elif stage.attach_type == AttachType.Scope:
            m = _InjectAttach(stage, rmap, ana)
            body = m.visit(body) if body is not None else None
            if m.found == 0:
                raise TepadError(
                    f"stage {stage.name}: did not find its attach point "
                    f"{stage.attach_stage.name}.{stage.attach_ivar.name} in the loop nest "
                    f"(is {stage.attach_stage.name} inlined or not computed?)")
        else:
            raise InternalError(f"unknown attach type {stage.attach_type}")
    if body is None:
        raise TepadError("the schedule computes nothing (no compute stages)")
    body = alias_scan_state(body, s)
    if keep_markers:
        return body
    return _PostProc(keep).visit(body)


__all__ = ["schedule_ops", "make_loop_nest", "make_bound_check", "build_provide", "Reduce",
           "convert"]
