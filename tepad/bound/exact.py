"""Exact regions with ISL (islpy): InferBound that computes nothing it does not need.

``infer_bound_exact(s)`` answers the same question as the interval InferBound -- "which region
of producer P do its consumers need, for one iteration of P's attach path?" -- with integer
sets instead of per-dimension intervals. It keeps the interval algorithm's structure: stages
are visited from outputs to inputs, a producer's root ranges come from its consumers'
requests, PassDownDomain derives the leaf ranges.

Encoding (one ISL context, every tepad Var gets a unique ISL name, see ``Names``):

* **What a stage executes** (``Exact.own``) is a parameter-only set over all of the stage's
  IterVars, built from the *BoundMap's own tir data*, i.e. from what ScheduleOps will emit:
  root vars in their bound ranges and in their declared domain, split
  ``p = pmin + f*o + i, 0 <= i < f``, fuse ``x = (o - omin)*E + (i - imin)``, rebase, the
  region predicates. Split tails are exact because the parent's range stays a constraint.
  A layout ``Transform`` (``transform_layout``: the loops iterate the physical indices) is
  ``t_k = f_k(orig)`` with the original vars in their ranges, so physical padding points have
  no preimage (ScheduleOps guards them); a non quasi-affine map makes ``own`` raise
  ``NotAffine``, i.e. an interval fallback for the producer (recorded in ``exact_fallbacks``).
  The loop-iteration domain of an enclosing stage (``loops_only``) leaves the Transform out:
  its loops, and the stages attached inside them, also run at padding points.
  Vars of enclosing loops (attach path) and shape vars appear as free names.
* **A consumer's request** on P: the conjunction of ``own`` of the consumer and of every stage
  between it and P's attach point (loops inside the attach point are relaxed = projected out),
  intersected with the access relation ``o_k = index_k`` of every load of P; then every name
  except P's attach-path loop vars and shape vars is projected out. floordiv/floormod by
  constants are native; a non quasi-affine index dimension falls back to the interval request
  of that dimension (logged, and recorded in ``bmap.exact_fallbacks`` / ``explain``).
* The region is the union over all loads and consumers; it is not intersected with the
  interval box (whose consumer loops may start elsewhere), and is never looser anyway. Its bounding box (``dim_min``/``dim_max``, piecewise affine in
  the attach vars and shape vars) becomes the root ranges through isl's AST expression builder
  (``min``/``max``/``floordiv`` tir expressions). When the region is not a box and the box
  wastes at least ``PREDICATE_MIN_SAVING`` of the work, the region itself, written as a
  condition over P's root vars, goes to ``bmap.predicates[P.op]`` (ScheduleOps guards the
  stores). ``bmap.exact_tails`` is set so non-divisible splits run shortened tail loops.

Producers get boxes (plus an optional predicate) rather than exact sets; the consumer's set is
rebuilt from the tir ranges, which keeps long chains linear in the number of stages. ISL
objects are cached per stage (``own``) and per (consumer, tensor) (access relations).

Deep attach chains (``ABSTRACT_DEPTH`` or more enclosing loops): a consumer's ranges and
predicates are tir expressions over *every* loop enclosing it, so without care the producer's
region would be parametric in all of them, and its piecewise bounds multiply from hop to hop
(a 50-stage chain took minutes). There, every sub-expression over loops further out than the
consumers (a root min such as ``8*io_1 + ... + 8*io_k``, a predicate bound) becomes one fresh
ISL parameter (``Abstraction``), bounded in the context by its constant range (recorded when
exact mode built the expression). The region is then exact as a function of those parameters
and of the consumers' own loop vars only, and converting back substitutes the expressions.
The region's predicate is written per dimension as ``x <= min(...)`` / ``x >= max(...)`` of the
region's own bounds that the stored tile does not imply (``_box_predicate``), so the next hop
abbreviates it by a single parameter again: a constant amount of ISL work per stage.
"""
from __future__ import annotations

import logging
import re

from ..arith import Analyzer, union
from ..arith.isl_bridge import IslWriter, NotAffine, dim_type as dt, isl, operation_budget, \
    params_set, params_to_dims, plus_constant, project_params_except, pw_aff_to_expr_ast, \
    set_to_cond_ast
from ..arith.isl_bridge import Names as IslNames
from ..errors import TepadError
from ..schedule.relations import Fuse, Rebase, Singleton, Split, Transform
from ..schedule.stage import AttachType
from ..tensor.extern import ExternOp
from ..tensor.tensor import PlaceholderOp
from ..tensor.tensor_intrin import TensorComputeOp
from ..tir import op as tirop
from ..tir.expr import IntImm, Mul, ProducerLoad, Range, Var, cast, logical_and
from ..tir.functor import post_order_visit, substitute
from .interval import (BoundContext, BoundMap, consumer_request, finalize_ranges,
                       infer_bound_interval, infer_root_bound, storage_rank, thread_rank)
from .message_passing import bind_thread_ranges, pass_down_domain
from .offset_lets import closed_stages, name_root_offsets

log = logging.getLogger("tepad.bound.exact")

#: a non-box region gets store predicates when the box would compute at least this fraction
#: more points than the region (concrete shapes); with symbolic shapes any waste counts.
PREDICATE_MIN_SAVING = 0.1
_DEBUG_RAISE = False
#: skip counting (and predicate anyway) above this many points in the context box
COUNT_LIMIT = 2_000_000
#: a root range whose extent has more pieces than this (or whose min has several) becomes
#: a tile: affine min + the largest extent (keeps chains of compute_at linear)
MAX_EXTENT_PIECES = 1
#: a root min with more pieces than this (after trying the interval min) is relaxed to the
#: minimum of its pieces' affine forms (a valid lower bound everywhere, and a short tir
#: ``min``); a region predicate of more than PREDICATE_MAX_NODES tir nodes is dropped (the
#: stage computes its box). Both keep lowering from simplifying enumerations of ISL pieces
#: (fuzz seed 6001, case 2648: a 12,000-character realize bound, 40 s in Simplify).
MAX_MIN_PIECES = 3
PREDICATE_MAX_NODES = 400
#: a requested region that is a union of more basic sets than this (after simplifying it in
#: its context) is bounded by interval InferBound instead: its piecewise bounds and predicate
#: cost ISL seconds (a 4-stage chain clamped in both dimensions, tiles 3 x 2 at each
#: consumer's inner tile loop: one region of 14 pieces over 10 parameters took 15 s, for a
#: predicate of 1,000 nodes that PREDICATE_MAX_NODES then dropped)
MAX_REGION_PIECES = 8
#: ISL's elementary operations one stage's exact bounds may take (``operation_budget``);
#: past it the stage gets interval bounds. Parametric bounds of regions with divisions over
#: many parameters can take ISL minutes (a 3-stage chain clamped in both dimensions, tiles
#: 3 x 2 at each consumer's inner tile loop: 30 s for one stage); ordinary stages use a few
#: thousandths of this.
STAGE_ISL_OPERATIONS = 2_000_000
#: from this attach depth on (number of loops enclosing the producer), sub-expressions of the
#: consumers' ranges and predicates that only involve enclosing loop vars are abbreviated by
#: fresh ISL parameters (``Abstraction``): keeps deep compute_at chains linear
ABSTRACT_DEPTH = 3


class Names(IslNames):
    """ISL names of one exact-mode run (see ``isl_bridge.Names``), plus ``ranges``:
    ``id(tir expression) -> (expression, lo, hi)``, the known constant range of an expression
    exact mode produced (a root min, a predicate bound), lo/hi None when unknown."""

    def __init__(self):
        super().__init__()
        self.ranges = {}


def _to_tir_pw(pa, ctx_set, names, dtype):
    """Parameter-only PwAff -> tir expression, equal to it under ``ctx_set``."""
    return pw_aff_to_expr_ast(pa.gist_params(ctx_set), ctx_set, names, dtype, "if_then_else")


def _min_of_pieces(pa, ctx_set):
    """A lower bound of ``pa`` with few pieces: the minimum of its pieces' distinct affine
    forms, each extended to every parameter value (at each point at most ``pa``'s value, since
    the point's own piece is a term); with more than MAX_MIN_PIECES distinct forms, the
    smallest value ``pa`` takes under ``ctx_set`` (a constant)."""
    forms = {}
    for _, aff in pa.get_pieces():
        forms.setdefault(str(aff), aff)
    if len(forms) <= MAX_MIN_PIECES:
        out = None
        for aff in forms.values():
            term = isl.PwAff.from_aff(aff)
            out = term if out is None else out.min(term)
        return out.coalesce()
    low = pa.intersect_params(ctx_set).min_val()
    if not low.is_int():
        return pa
    return isl.PwAff.val_on_domain(isl.Set.universe(pa.domain().get_space()), low)


def pw_max_val(pa, ctx_set):
    """The largest value of the parameter-only PwAff ``pa`` under ``ctx_set`` (an isl Val,
    infinity when unbounded). ``isl_pw_aff_max_val`` refuses pieces with integer divisions
    (a fused loop's region); the maximum is then taken over the graph ``{ [v] : v = pa }``."""
    pa = pa.intersect_params(ctx_set)
    try:
        return pa.max_val()
    except isl.Error:
        graph = params_to_dims(isl.Set.from_pw_aff(pa))
        return graph.dim_max_val(graph.dim(dt.set) - 1)


def _tir_size(e) -> int:
    n = [0]
    post_order_visit(e, lambda _: n.__setitem__(0, n[0] + 1))
    return n[0]


def _to_tir_set(st, ctx_set, names):
    """Parameter-only set -> tir condition, simplified under ``ctx_set``."""
    return set_to_cond_ast(st.gist(ctx_set), ctx_set, names, "if_then_else")


def box_of(r: isl.Set) -> isl.Set:
    """Per-dimension bounding box of ``r`` (pw-affine bounds), same space."""
    sp = r.get_space()
    ls = isl.LocalSpace.from_space(sp)
    box = isl.Set.universe(sp)
    for d in range(r.dim(dt.set)):
        v = isl.PwAff.var_on_domain(ls, dt.set, d)
        box = box & v.ge_set(r.dim_min(d).insert_domain(sp)) & \
            v.le_set(r.dim_max(d).insert_domain(sp))
    return box.coalesce()


# ---------------------------------------------------------------------------------------------
# abbreviating outer sub-expressions (deep attach chains)
# ---------------------------------------------------------------------------------------------

def _free_var_names(e, names, memo):
    """ISL names of the Vars in ``e`` (None if ``e`` loads a tensor)."""
    k = id(e)
    hit = memo.get(k)
    if hit is not None:
        return hit[1]
    out = set()
    bad = []

    def visit(n):
        if isinstance(n, Var):
            out.add(names.name(n))
        elif isinstance(n, ProducerLoad):
            bad.append(n)
    post_order_visit(e, visit)
    res = None if bad else frozenset(out)
    memo[k] = (e, res)
    return res


class Abstraction:
    """Fresh ISL parameters for tir sub-expressions over a producer's enclosing loop vars.

    A consumer's ranges and predicates are tir expressions over every loop enclosing it; down a
    chain of compute_at stages they mention more and more loop vars, and so would the producer's
    ISL region (parametric integer programming over all of them: super-linear, even exponential
    in the number of piecewise bounds). But a sub-expression ``e`` whose vars all enclose the
    producer is one value per attach iteration: replacing it by a parameter ``t`` gives a region
    ``R(t, p)`` with ``R(e(p), p)`` the exact region, so bounds computed over ``t`` and converted
    back with ``t := e`` are exact. What ISL no longer sees is how ``t`` relates to the other
    parameters; the constant range of ``t`` (recorded when exact mode built ``e``, or computed
    over the attach-path context) goes into the context instead.
    """

    def __init__(self, ex, outer, local, path_ivs):
        self.ex = ex
        self.outer = frozenset(outer)        # ISL names of the enclosing loop vars
        self.local = frozenset(local)        # ISL names of the consumers' own IterVars
        self.key = (self.outer, self.local)
        self.path_ivs = path_ivs
        self.by_key = {}                     # ISL text of e -> parameter name
        self.bounds = {}                     # parameter name -> (lo, hi) (ints or None)
        self._full_ctx = None

    def name_of(self, e):
        ex = self.ex
        fv = _free_var_names(e, ex.names, ex.free_memo)
        # only expressions over loops further out than the consumers (their own loop vars
        # stay visible: split/fuse relations tie them to the consumers' points)
        if not fv or not fv <= self.outer or fv & self.local:
            return None
        try:
            c = ex.conv()
            text = c.wrap(f"val_ = {c.expr(e)}")
        except NotAffine:
            return None
        text = re.sub(r"sel_\d+", lambda m, d={}: d.setdefault(m.group(0), f"sel_k{len(d)}"),
                      text)
        n = self.by_key.get(text)
        if n is not None:
            return n
        n = f"t_{len(ex.names.exprs)}"
        ex.names.exprs[n] = e
        self.by_key[text] = n
        known = ex.names.ranges.get(id(e))
        if known is not None and known[0] is e:
            self.bounds[n] = known[1:]
        else:
            self.bounds[n] = self._range(text, sorted(c.used))
        return n

    def _range(self, text, used):
        if self._full_ctx is None:
            self._full_ctx = self.ex.context(self.path_ivs)
        try:
            st = isl.Set(f"[{', '.join(used)}] -> {{ [val_] : {text} }}")
            st = params_to_dims(st.intersect_params(self._full_ctx))
            d = st.dim(dt.set) - 1
            lo, hi = st.dim_min_val(d), st.dim_max_val(d)
            return (lo.to_python() if lo.is_int() else None,
                    hi.to_python() if hi.is_int() else None)
        except isl.Error:
            return (None, None)

    def context_constraints(self, params):
        out = []
        for n in params:
            lo, hi = self.bounds.get(n, (None, None))
            if lo is not None:
                out.append(f"{n} >= {lo}")
            if hi is not None:
                out.append(f"{n} <= {hi}")
        return out


def record_range(names, e, pa, ctx_set):
    """Remember the constant range of tir ``e`` (converted from PwAff ``pa``) over ``ctx_set``."""
    try:
        p = pa.intersect_params(ctx_set)
        lo, hi = p.min_val(), p.max_val()
        names.ranges[id(e)] = (e, lo.to_python() if lo.is_int() else None,
                               hi.to_python() if hi.is_int() else None)
    except (isl.Error, ValueError):
        pass


# ---------------------------------------------------------------------------------------------
# the per-schedule state
# ---------------------------------------------------------------------------------------------

def loads_of(op, tensors):
    """Every ProducerLoad of one of ``tensors`` in ``op``'s body."""
    out = []

    def visit(n):
        if isinstance(n, ProducerLoad) and n.producer in tensors:
            out.append(n)
    for b in op.body:
        post_order_visit(b, visit)
    return out


class Fallback:
    """One place where exact mode used intervals instead of ISL."""

    def __init__(self, stage, consumer, dim, reason):
        self.stage, self.consumer, self.dim, self.reason = stage, consumer, dim, reason

    def __repr__(self):
        where = self.stage + (f" <- {self.consumer}" if self.consumer else "") + \
            (f" dim {self.dim}" if self.dim is not None else "")
        return f"Fallback({where}: {self.reason})"


class Exact:
    """ISL encodings of one schedule under one BoundMap; caches per stage."""

    def __init__(self, s, rmap, names=None, env=None):
        self.s = s
        self.rmap = rmap
        self.names = names or Names()
        self.env = env or {}
        self.iter_names = set()
        self._own = {}
        self.free_memo = {}
        self.abstractions = {}
        self.let_ranges = {}        # ISL name of an offset let variable -> (lo, hi)
        for st in s.stages:
            for iv in st.all_iter_vars:
                self.iter_names.add(self.names.name(iv.var))
        # thread bindings: leaf IterVar -> the thread IterVar it is bound to
        self.bind = {}
        for st in s.stages:
            for iv, attr in st.iter_var_attrs.items():
                if attr.bind_thread is not None:
                    self.bind[iv] = attr.bind_thread
        self.shape_vars = set()
        for st in s.stages:
            for k in range(st.op.num_outputs):
                for d in st.op.output(k).shape:
                    if isinstance(d, Var):
                        self.shape_vars.add(self.names.name(d))

    def conv(self, abstraction=None) -> IslWriter:
        """A fresh ISL writer over this run's names and ``env`` (Selects stay ``NotAffine``:
        a load with a Select index takes the interval fallback of its dimension)."""
        return IslWriter(self.names, self.env, abstraction, select_indicators=False)

    def add_let(self, var, lo, hi):
        """An offset let variable (``tepad.bound.offset_lets``) with its constant range: for
        the producers that see it (all inside its stage) it is one value per attach
        iteration, like an enclosing loop's."""
        self.let_ranges[self.names.name(var)] = (lo, hi)
        self.names.ranges[id(var)] = (var, lo, hi)

    def abstraction(self, apath, stages):
        """The (shared) ``Abstraction`` for producers enclosed by the loops ``apath`` whose
        consumers (and the stages between them and the attach point) are ``stages``."""
        outer = frozenset(self.names.name(iv.var) for iv in apath) | frozenset(self.let_ranges)
        local = frozenset(self.names.name(iv.var) for x in stages for iv in x.all_iter_vars)
        a = self.abstractions.get((outer, local))
        if a is None:
            a = self.abstractions[(outer, local)] = Abstraction(self, outer, local, apath)
        return a

    def invalidate(self, stage):
        for k in list(self._own):
            base = k[0] if isinstance(k, tuple) and isinstance(k[1], tuple) else k
            if base == id(stage) or base == ("loops", id(stage)):
                del self._own[k]

    def own(self, stage, loops_only=False, abstraction=None) -> isl.Set:
        """Parameter-only set of the points (all IterVars of ``stage``) ScheduleOps executes.

        With ``loops_only`` the set of loop iterations instead: no store guards (declared
        domain, split tails, region predicates). A stage that encloses others is entered
        once per loop iteration even where its own store is guarded off, so the stages
        attached inside it run there too."""
        key = ("loops", id(stage)) if loops_only else id(stage)
        if abstraction is not None:
            key = (key, abstraction.key)
        if key in self._own:
            return self._own[key]
        c = self.conv(abstraction)
        dom = _StageDomain(self, stage, c, loops_only)
        if loops_only:
            dom.add_leaf_ranges()
        else:
            dom.add_root_ranges()
        dom.add_relations()
        dom.add_thread_values()
        if not loops_only:
            for p in getattr(self.rmap, "predicates", {}).get(stage.op, ()):
                dom.cons.append(c.cond(p))
        try:
            st = params_set(dom.cons, c.used, writer=c)
        except isl.Error as e:
            raise NotAffine(f"ISL rejected the domain of {stage.name}: {e}") from e
        self._own[key] = st
        return st

    def _transform_constraints(self, stage, rel, c):
        """``t_k = f_k(orig)`` for a layout ``Transform`` (ISL text, names recorded in ``c``;
        Selects of exact symbolic shapes become one disjunct per branch); NotAffine when the
        IndexMap is not quasi-affine (the caller falls back to intervals)."""
        imap = rel.index_map
        vsub = {v: ov.var for v, ov in zip(imap.initial_indices, rel.original_vars)}
        if rel in getattr(self.rmap, "local_layouts", {}):
            # a stage computed at an inner loop: the map applies to its local region
            vsub = {v: ov.var - self.rmap[ov].min
                    for v, ov in zip(imap.initial_indices, rel.original_vars)}
        out = []
        for tv, f in zip(rel.transformed_vars, imap.final_indices):
            try:
                out.append(c.constraint(tv.var, "=", substitute(f, vsub)))
            except NotAffine as e:
                raise NotAffine(f"stage {stage.name}: layout map {imap} is not quasi-affine "
                                f"({e}): no exact encoding of its loops") from None
        return out

    def chain(self, consumer, stop):
        """Stages from ``consumer`` up to the one owning loop ``stop`` (or to the root)."""
        out, x = [consumer], consumer
        while True:
            if stop is not None and any(iv is stop for iv in x.leaf_iter_vars):
                return out
            if x.attach_type != AttachType.Scope:
                if stop is not None:
                    raise NotAffine(f"attach loop {stop.name} does not enclose {consumer.name}")
                return out
            x = x.attach_stage
            out.append(x)

    def context(self, path_ivs) -> isl.Set:
        """Known facts about attach-path vars (their ranges) and shape vars (>= 1)."""
        cons, used = [], set()
        for iv in path_ivs:
            c = self.conv()
            try:
                r = self.rmap[iv]
                lo = c.expr(r.min)
                cons.append(c.wrap(f"{lo} <= {c.expr(iv.var)} < {lo} + {c.expr(r.extent)}"))
                used |= c.used
            except (NotAffine, KeyError):
                pass
        for n in sorted(used & self.let_ranges.keys()):
            lo, hi = self.let_ranges[n]
            cons.append(f"{lo} <= {n} <= {hi}")
            used.add(n)
        for n in self.shape_vars:
            if self.names.vars[n] not in self.env:
                cons.append(f"{n} >= 1")
                used.add(n)
        try:
            return params_set(cons, used)
        except isl.Error:
            return isl.Set("{ : }")


class _StageDomain:
    """The ISL constraints of ``Exact.own`` for one stage, in the order ScheduleOps nests
    them: ranges (root ranges and declared domain, or with ``loops_only`` the leaf loops),
    then one constraint per schedule relation."""

    def __init__(self, ex, stage, writer, loops_only):
        self.ex, self.stage, self.c, self.loops_only = ex, stage, writer, loops_only
        self.rmap = ex.rmap
        self.leaves = {id(iv) for iv in stage.leaf_iter_vars}
        self.cons = []

    def nm(self, iv) -> str:
        return self.c.expr(iv.var)

    def in_range(self, x, r, iv=None):
        """``r.min <= x < r.min + r.extent``; with ``loops_only`` only for leaf loops."""
        # loops_only: only loops bound their vars. A non-leaf range (the inner part of a
        # tile that is split again by nparts) would, once the inner loops are projected
        # away, also drop outer iterations whose inner loops are empty -- and a stage
        # attached at the outer loop still runs there (fuzz seed 4001, case 585).
        if self.loops_only and iv is not None and id(iv) not in self.leaves:
            return
        lo = self.c.expr(r.min)
        self.cons.append(f"{lo} <= {x} < {lo} + {self.c.expr(r.extent)}")

    def add_root_ranges(self):
        """Root vars in their bound ranges and (data axes) in their declared domain."""
        op = self.stage.op
        for iv in op.root_iter_vars:
            self.in_range(self.nm(iv), self.rmap[iv])
            if iv.dom is not None and iv not in op.reduce_axis:
                self.in_range(self.nm(iv), iv.dom)

    def add_leaf_ranges(self):
        """Leaf loops in their ranges (exact split tails shorten inner loops by bounding the
        split's parent, which is not a loop: like any non-leaf range it is left out)."""
        for iv in self.stage.leaf_iter_vars:
            self.in_range(self.nm(iv), self.rmap[iv])

    def add_relations(self):
        """Split, fuse, rebase, singleton and layout relations, in schedule order."""
        c, nm, rmap = self.c, self.nm, self.rmap
        for rel in self.stage.relations:
            if isinstance(rel, Split):
                ri, rp = rmap[rel.inner], rmap[rel.parent]
                prod = c.expr(_tmul(rel.outer.var, ri.extent))
                self.cons.append(f"{nm(rel.parent)} = {c.expr(rp.min)} + "
                                 f"{prod} + {nm(rel.inner)} - {c.expr(ri.min)}")
                self.in_range(nm(rel.inner), ri, rel.inner)
                self.in_range(nm(rel.outer), rmap[rel.outer], rel.outer)
            elif isinstance(rel, Fuse):
                ro, ri = rmap[rel.outer], rmap[rel.inner]
                prod = c.expr(_tmul(rel.outer.var - ro.min, ri.extent))
                self.cons.append(f"{nm(rel.fused)} = {prod} + {nm(rel.inner)} - "
                                 f"{c.expr(ri.min)}")
                self.in_range(nm(rel.inner), ri, rel.inner)
                self.in_range(nm(rel.fused), rmap[rel.fused], rel.fused)
            elif isinstance(rel, Rebase):
                self.cons.append(f"{nm(rel.rebased)} = {nm(rel.parent)} - "
                                 f"{c.expr(rmap[rel.parent].min)}")
            elif isinstance(rel, Singleton):
                self.cons.append(f"{nm(rel.iter)} = 0")
            elif isinstance(rel, Transform):
                # the loops iterate the physical box; a point executes iff it is the image
                # t = f(orig) of a logical point (orig: root ranges above, so t lies in the
                # box): padding points have no preimage, ScheduleOps guards them out.
                # loops_only: the loops run (and the stages attached inside them) at padding
                # points and past a non-divisible split of t too, so no constraint at all
                if not self.loops_only:
                    self.cons.extend(self.ex._transform_constraints(self.stage, rel, c))
            else:
                raise NotAffine(f"stage {self.stage.name}: relation {rel!r} has no exact "
                                "encoding")

    def add_thread_values(self):
        """The value of each thread-bound leaf in the generated code (TVM's MakeLoopNest):
        the thread variable, so stages bound to the same thread axis share one ISL name; or
        the range's min for a thread private to the stage's storage (a ``local`` stage's
        ``threadIdx`` loop). A unit loop is its min already."""
        for iv in self.stage.leaf_iter_vars:
            b = self.ex.bind.get(iv)
            if b is None:
                continue
            r = self.rmap[iv]
            if isinstance(r.extent, IntImm) and r.extent.value == 1:
                continue
            if thread_value_is_var(self.stage.scope or "", b.thread_tag):
                self.cons.append(f"{self.nm(iv)} = {self.c.expr(b.var)}")
            else:
                self.cons.append(f"{self.nm(iv)} = {self.c.expr(r.min)}")


def thread_value_is_var(scope, tag) -> bool:
    """Whether a leaf of a stage stored in ``scope`` bound to thread ``tag`` takes the thread
    variable's value (else its range's min: each thread of that rank has its own copy)."""
    if tag.startswith("vthread") or tag == "cthread":
        return True
    if scope == "" or storage_rank(scope) <= thread_rank(tag):
        return True
    return scope == "warp" and tag == "threadIdx.x"


def _tmul(x, e):
    """``x * e`` as a tir Mul node (no folding: IslWriter handles constants and if_then_else)."""
    if e.dtype != x.dtype:
        e = cast(x.dtype, e)
    return Mul(x, e)


# ---------------------------------------------------------------------------------------------
# the request of all consumers on one producer
# ---------------------------------------------------------------------------------------------

def request_region(ex: Exact, stage, consumers, apath, fallback_dim, fallbacks,
                   abstraction=None):
    """Exact region of ``stage`` (set in ``[attach vars, shape vars] -> { [roots] }``; with an
    ``abstraction``, its parameters may also be abbreviations of outer sub-expressions)."""
    op = stage.op
    outs = {op.output(k) for k in range(op.num_outputs)}
    keep, relax_outer = _kept_names(ex, stage, apath)
    onames = [ex.names.name(iv.var) for iv in op.axis]
    region = None
    stop = apath[0] if apath else None
    for c in consumers:
        dom = None
        # a relaxed thread loop enclosing the producer: its loop (and the loops around it)
        # must bound the union, so the chain goes up to the root
        for x in ex.chain(c, None if relax_outer else stop):
            o = ex.own(x, loops_only=x is not c, abstraction=abstraction)
            dom = o if dom is None else dom & o
        pieces = []
        used = set()
        for ld in loads_of(c.op, outs):
            cons = []
            for k, idx in enumerate(ld.indices):
                cv = ex.conv(abstraction)
                try:
                    cons.append(cv.wrap(f"{onames[k]} = {cv.expr(idx)}"))
                    used |= cv.used
                except NotAffine as e:
                    fb = fallback_dim(c, k)
                    msg = f"index {idx!r} not quasi-affine ({e}); interval fallback for this dim"
                    log.debug("exact bounds: stage %s, consumer %s, dim %d: %s",
                              stage.name, c.name, k, msg)
                    fallbacks.append(Fallback(stage.name, c.name, k, msg))
                    if fb is not None:
                        cons.append(fb[0])
                        used |= fb[1]
            pieces.append("(" + (" and ".join(cons) if cons else "true") + ")")
        if not pieces:
            continue
        ps = sorted(used)
        acc = isl.Set(f"[{', '.join(ps)}] -> {{ [{', '.join(onames)}] : "
                      f"{' or '.join(pieces)} }}")
        if abstraction is not None:
            keep |= set(ex.names.exprs)         # abbreviations made while building ``dom``
        img = project_params_except(acc.intersect_params(dom), keep).coalesce()
        region = img if region is None else (region | img).coalesce()
    if region is None:
        region = isl.Set(f"{{ [{', '.join(onames)}] : false }}")
    return region


def _kept_names(ex, stage, apath):
    """``(keep, relax_outer)``: the ISL names the region of ``stage`` stays a function of --
    its unbound attach-path loop vars, the thread vars it is not relaxed over, the shape
    vars, the offset let vars -- and
    whether some attach-path loop is relaxed (a thread loop of a rank the stage's storage is
    shared by: a ``shared`` stage at a block loop covers every ``threadIdx`` of the block).

    The relaxation rule is interval mode's (``BoundContext.need_relax``, TVM's NeedRelax):
    a loop bound to a thread is relaxed by its tag and the stage's storage rank alone, wherever
    it is; an unbound loop is relaxed unless it encloses the stage."""
    ctx = ex.bound_ctx
    rank = ctx.storage_rank(stage)
    keep = set(ex.shape_vars)
    relax_outer = False
    for iv in apath:
        if iv not in ex.bind:
            keep.add(ex.names.name(iv.var))
        elif ctx.need_relax(iv, True, rank):
            relax_outer = True
        # a bound loop that is not relaxed is kept as its thread variable (below): the
        # generated code has no loop variable for it
    for iv, b in ex.bind.items():
        if not ctx.need_relax(iv, True, rank):
            keep.add(ex.names.name(b.var))
    # offset let vars (tepad.bound.offset_lets): any that a consumer's set mentions encloses
    # the stage, one value per attach iteration
    keep |= ex.let_ranges.keys()
    return keep, relax_outer


def _thread_context(ex, region):
    """``0 <= t < extent`` for the thread vars among ``region``'s parameters (the largest
    extent of a loop bound to that thread), as a parameter set."""
    present = {region.get_dim_name(dt.param, k) for k in range(region.dim(dt.param))}
    ext = {}
    for iv, b in ex.bind.items():
        n = ex.names.name(b.var)
        r = ex.rmap.get(iv)
        if n in present and r is not None and isinstance(r.extent, IntImm):
            ext[n] = max(ext.get(n, 0), r.extent.value)
    if not ext:
        return None
    return params_set([f"0 <= {n} < {e}" for n, e in sorted(ext.items())], sorted(ext))


# ---------------------------------------------------------------------------------------------
# InferBound, exact mode
# ---------------------------------------------------------------------------------------------

def infer_bound_exact(s, offset_lets: bool = False):
    """Exact-mode InferBound: a ``BoundMap`` with exact root ranges, region predicates and
    ``exact_tails``. ``bmap.exact_fallbacks`` lists where intervals were used instead.
    ``offset_lets``: as ``infer_bound_interval``'s (``tepad.bound.offset_lets``); the let
    variables are ISL parameters in their constant ranges, abbreviated like the enclosing
    loops' sub-expressions."""
    ctx = BoundContext(s)
    if any(isinstance(st.op, TensorComputeOp) for st in s.stages):
        bm = infer_bound_interval(s, offset_lets)
        bm.exact_fallbacks = [Fallback("*", None, None, "a TensorComputeOp reads regions, "
                                       "not elements: interval mode used for everything")]
        return bm
    if any(b.thread_tag == "pipeline" for b in ctx.bind_map.values()):
        bm = infer_bound_interval(s, offset_lets)
        bm.exact_fallbacks = [Fallback("*", None, None,
                                       "pipeline-bound loops: interval mode used for everything")]
        return bm
    if any(isinstance(st.op, ExternOp) for st in s.stages):
        bm = infer_bound_interval(s, offset_lets)    # extern ops read and write whole tensors
        bm.exact_fallbacks = [Fallback("*", None, None,
                                       "extern ops: interval mode used for everything")]
        return bm
    rmap = BoundMap()
    rmap.exact_tails = True
    rmap.exact_fallbacks = []
    rmap.exact_regions = {}
    ana = Analyzer()
    ex = Exact(s, rmap)
    ex.bound_ctx = ctx
    # a thread-bound loop's extent is a launch dimension, the same for every block: ScheduleOps
    # would make a shortened tail loop of it a serial loop, so with threads non-divisible
    # splits keep interval mode's guard (``own`` is sound either way: leaf loops in their
    # ranges, the split's parent range bounding the stores)
    rmap.exact_tails = not ex.bind
    eligible = closed_stages(s, ctx) if offset_lets else {}
    for stage in reversed(s.stages):
        if stage.attach_type == AttachType.InlinedAlready or isinstance(stage.op, PlaceholderOp):
            continue
        if stage.attach_type == AttachType.Inline:
            raise TepadError(f"stage {stage.name} is marked compute_inline; call "
                             "s.normalize() (tepad.lower does) before InferBound")
        op = stage.op
        if stage.is_output:
            for iv in op.root_iter_vars:
                rmap[iv] = iv.dom
        else:
            try:
                with operation_budget(STAGE_ISL_OPERATIONS):
                    _exact_root_bound(ex, ctx, stage, rmap, ana)
                msg = _gpu_shape_refused(ctx, stage, rmap) if ex.bind else None
            except (NotAffine, isl.Error) as e:
                if _DEBUG_RAISE:
                    raise
                msg = f"exact region failed ({e}); interval InferBound for the whole stage"
            if msg is not None:
                log.debug("exact bounds: stage %s: %s", stage.name, msg)
                rmap.exact_fallbacks.append(Fallback(stage.name, None, None, msg))
                rmap.predicates.pop(op, None)
                infer_root_bound(ctx, stage, rmap, ana)
        for v, _, lo, hi in name_root_offsets(stage, rmap, ana, eligible):
            ex.add_let(v, lo, hi)
        for iv in op.root_iter_vars:
            ana.bind(iv.var, rmap[iv])
        pass_down_domain(stage, rmap, ana)
        bind_thread_ranges(stage, rmap, ana)
    return finalize_ranges(rmap, ana)


def _gpu_shape_refused(ctx, stage, rmap):
    """Why GPU lowering would refuse ``stage``'s exact root ranges (then interval InferBound
    sizes it), or None. A ``shared``/``local`` tile (its scope, or the default scope of a
    stage attached under a thread-bound loop) is one allocation per block or thread, so its
    size must be a constant: an exact extent that moves with ``blockIdx`` (a tile clipped at
    the tensor's end) or with a serial loop cannot be allocated, while interval mode's
    constant, guarded tile can. A thread-bound leaf needs a positive launch extent, which an
    empty exact region (a stage nobody reads) does not give."""
    op = stage.op
    extents = [rmap[iv].extent for iv in op.axis if iv in rmap]
    scope = stage.scope or ""
    per_block = storage_rank(scope) > 0 or (
        not scope and any(iv in ctx.bind_map for iv in ctx.paths[id(stage)]))
    if per_block and not all(isinstance(e, IntImm) for e in extents):
        return (f"a {scope or 'block- or thread-local'} tile needs a constant size; exact "
                f"extents {[str(e) for e in extents]} are not: interval InferBound for the stage")
    bound_leaf = any(iv in ctx.bind_map for iv in stage.leaf_iter_vars)
    if bound_leaf and any(isinstance(e, IntImm) and e.value == 0 for e in extents):
        return "empty exact region under a thread binding: interval InferBound for the stage"
    return None


def _exact_root_bound(ex, ctx, stage, rmap, ana):
    """Root ranges of a non-output ``stage`` from the exact region its consumers request, and
    a store predicate when the ranges' box wastes enough work (see the module docstring)."""
    op = stage.op
    apath = ctx.paths[id(stage)]
    consumers = _consumers(ctx, op)
    intervals = _IntervalRequests(ex, ctx, stage, rmap, ana)
    # abbreviations of outer sub-expressions would keep relaxed thread loops as parameters
    absn = None if ex.bind else _abstraction_for(ex, apath, consumers)
    region = request_region(ex, stage, consumers, apath, intervals.constraint,
                            rmap.exact_fallbacks, absn)
    # No intersection with the interval-mode box here: that box is expressed in the interval
    # mode's consumer loops, which can start elsewhere than exact mode's (a consumer whose
    # region exact mode shrank), so intersecting could drop points that are needed. The region
    # is a union of exact images of what the consumers execute, hence never looser anyway.
    ctx_set = _region_context(ex, apath, region, absn)
    if region.n_basic_set() > MAX_REGION_PIECES:
        region = region.gist_params(ctx_set).coalesce()
        if region.n_basic_set() > MAX_REGION_PIECES:
            raise NotAffine(f"the exact region of {stage.name} is a union of "
                            f"{region.n_basic_set()} pieces (more than {MAX_REGION_PIECES}): "
                            "its bounds would cost more than they save")
    rmap.exact_regions[op] = region
    if region.is_empty():
        for iv in op.axis:
            rmap[iv] = Range.from_min_extent(iv.dom.min, IntImm(0, iv.var.dtype))
        for iv in op.reduce_axis:
            rmap[iv] = iv.dom
        return
    box, padded = _set_root_ranges(ex, ctx, stage, rmap, ana, region, ctx_set, absn)
    box = _clip_to_declared_shape(ex, op, box)
    waste = (box - region).coalesce()
    if waste.is_empty() or stage.is_rolling:
        # a rolling buffer computes its whole box (ScheduleOps drops region predicates: the
        # skip of what the previous iteration stored needs boxes), so no predicate either
        # here, where its producers' requests are taken from what it executes
        return
    if not padded and not _worth_predicating(ex, box, waste, ctx_set):
        return
    pred = _region_predicate(ex, stage, region, box, ctx_set, absn)
    if pred is not None:
        rmap.predicates[op] = [pred]


def _consumers(ctx, op) -> list:
    """The stages reading any output of ``op``, each once, in feed-graph order."""
    out = []
    for k in range(op.num_outputs):
        for c in ctx.feed.get(op.output(k), []):
            if c not in out:
                out.append(c)
    return out


class _IntervalRequests:
    """A consumer's interval-mode request on one dimension of ``stage``, as an ISL
    constraint: the per-dimension fallback of ``request_region`` for non quasi-affine
    indices. Each consumer's interval requests are computed once."""

    def __init__(self, ex, ctx, stage, rmap, ana):
        self.ex, self.ctx, self.stage, self.rmap, self.ana = ex, ctx, stage, rmap, ana
        op = stage.op
        self.outs = [op.output(k) for k in range(op.num_outputs)]
        self.onames = [ex.names.name(iv.var) for iv in op.axis]
        self.cache = {}

    def constraint(self, consumer, k):
        """``(ISL text, names used)`` bounding root dim ``k`` by ``consumer``'s interval
        request (by the tensor's shape when the request is unbounded), None when not even
        that is quasi-affine."""
        op = self.stage.op
        if consumer not in self.cache:
            tmap = {t: [[] for _ in op.axis] for t in self.outs}
            consumer_request(self.ctx, self.stage, consumer, self.rmap, self.ana, tmap)
            self.cache[consumer] = tmap
        sets = [x for t in self.outs for x in self.cache[consumer][t][k]]
        u = union(sets) if sets else None
        c = self.ex.conv()
        x = self.onames[k]
        try:
            if u is not None and u.has_lower_bound() and u.has_upper_bound():
                return c.wrap(f"{c.expr(u.min())} <= {x} <= {c.expr(u.max())}"), c.used
            return c.wrap(f"0 <= {x} < {c.expr(op.output(0).shape[k])}"), c.used
        except NotAffine:
            return None


def _abstraction_for(ex, apath, consumers):
    """The ``Abstraction`` for a producer at attach depth ``ABSTRACT_DEPTH`` or more (None
    above that depth, or when a consumer's chain to the attach point is broken)."""
    if len(apath) < ABSTRACT_DEPTH:
        return None
    stop = apath[0] if apath else None
    try:
        chain = [x for c in consumers for x in ex.chain(c, stop)]
    except NotAffine:
        return None
    return ex.abstraction(apath, chain)


def _region_context(ex, apath, region, absn) -> isl.Set:
    """What is known about the region's parameters: the attach-path loop ranges and shape
    vars >= 1; with an abstraction only the loops the region depends on, plus the constant
    ranges of the abbreviations it uses."""
    present = {region.get_dim_name(dt.param, k) for k in range(region.dim(dt.param))}
    lets = sorted(present & ex.let_ranges.keys())
    if lets:
        lets = params_set([f"{ex.let_ranges[n][0]} <= {n} <= {ex.let_ranges[n][1]}"
                           for n in lets], lets)
    if absn is None:
        ctx_set = ex.context(apath)
        tctx = _thread_context(ex, region) if ex.bind else None
        ctx_set = ctx_set if tctx is None else (ctx_set & tctx).coalesce()
        return (ctx_set & lets).coalesce() if lets else ctx_set
    ctx_set = ex.context([iv for iv in apath if ex.names.name(iv.var) in present])
    ab = sorted(present & set(absn.bounds))
    if ab:
        ctx_set = (ctx_set & params_set(absn.context_constraints(ab), ab)).coalesce()
    return (ctx_set & lets).coalesce() if lets else ctx_set


def _set_root_ranges(ex, ctx, stage, rmap, ana, region, ctx_set, absn):
    """``rmap`` ranges of ``stage``'s root vars from the region's bounding box; returns
    ``(box, padded)``: the box the ranges describe (as an ISL set in the region's space) and
    whether a tile made it larger than the bounding box on purpose.

    Fuse and nparts-split multiply by an extent: those extents stay constant (the largest over
    the attach iterations, offset exact) so the loop structure stays affine; the region
    predicate then removes the padding. Piecewise bounds become tiles too (see
    ``_tile_lower_bound``)."""
    op = stage.op
    tile = any(isinstance(r, Fuse) or (isinstance(r, Split) and r.factor is None)
               for r in stage.relations)
    sp = region.get_space()
    ls = isl.LocalSpace.from_space(sp)
    box = isl.Set.universe(sp)
    padded = False
    imap = []

    def interval_map():
        if not imap:
            imap.append(BoundMap(rmap))
            imap[0].local_layouts = getattr(rmap, "local_layouts", {})
            infer_root_bound(ctx, stage, imap[0], ana)
        return imap[0]

    for d, iv in enumerate(op.axis):
        lo, hi, const_ext, ext = _dim_bounds(ex, region, d, iv, ctx_set, absn, tile,
                                             interval_map)
        dtype = iv.var.dtype
        v = isl.PwAff.var_on_domain(ls, dt.set, d)
        box = box & v.ge_set(lo.insert_domain(sp)) & v.le_set(hi.insert_domain(sp))
        if const_ext is not None:
            padded = padded or tile
            ext_t = IntImm(const_ext, dtype)
        else:
            ext_t = _to_tir_pw(ext, ctx_set, ex.names, dtype)
        lo_t = _to_tir_pw(lo, ctx_set, ex.names, dtype)
        if absn is not None:
            record_range(ex.names, lo_t, lo, ctx_set)
        rmap[iv] = Range.from_min_extent(lo_t, ext_t)
    for iv in op.reduce_axis:
        rmap[iv] = iv.dom
    return box.coalesce(), padded


def _dim_bounds(ex, region, d, iv, ctx_set, absn, tile, interval_map):
    """``(lo, hi, const_ext, ext)`` of root dim ``d``: PwAff bounds in the region's
    parameters with ``lo <= x_d <= hi`` on the whole region. A dim with piecewise bounds, or
    any dim of a ``tile`` stage, gets a constant extent ``const_ext`` (the largest over
    ``ctx_set``) when there is one, ``hi = lo + const_ext - 1``; otherwise ``const_ext`` is
    None and ``hi`` the region's exact upper bound. ``ext``: the PwAff ``hi - lo + 1`` (each
    difference of piecewise bounds costs ISL a product of their pieces: it is made once)."""
    lo, hi = region.dim_min(d), region.dim_max(d)
    multi_lo = lo.gist_params(ctx_set).n_piece() > 1
    ext = None if multi_lo else plus_constant(hi - lo, 1)
    if multi_lo or ext.gist_params(ctx_set).n_piece() > MAX_EXTENT_PIECES:
        lo2 = _tile_lower_bound(ex, region, d, iv, lo, ctx_set, multi_lo and absn is None,
                                interval_map)
        if ext is None or lo2 is not lo:
            ext = plus_constant(hi - lo2, 1)
        lo = lo2
        tile = True
    if tile:
        mv = pw_max_val(ext, ctx_set)
        if mv.is_int():
            k = mv.to_python()
            return lo, plus_constant(lo, k - 1), k, ext
    return lo, hi, None, ext


def _tile_lower_bound(ex, region, d, iv, lo, ctx_set, try_interval, interval_map):
    """The lower bound of a tile on dim ``d`` whose exact bounds are piecewise (boundary
    tiles would multiply pieces from hop to hop): the interval lower bound when
    ``try_interval``, it is affine and the region lies above it; else ``lo``, relaxed to
    ``_min_of_pieces`` when it has more than MAX_MIN_PIECES pieces."""
    if try_interval:
        try:
            lo_i = _pw_of(ex, interval_map()[iv].min)
            if lo_i.n_piece() == 1 and region.is_subset(_ge_set(region.get_space(), d, lo_i)):
                lo = lo_i
        except (NotAffine, isl.Error):
            pass
    if lo.gist_params(ctx_set).n_piece() > MAX_MIN_PIECES:
        lo = _min_of_pieces(lo.gist_params(ctx_set), ctx_set)
    return lo


def _clip_to_declared_shape(ex, op, box) -> isl.Set:
    """``box`` within the tensor's declared domain: ScheduleOps never stores outside the
    shape, so that part of the box is no waste (``box`` unchanged when not expressible)."""
    cs = ex.conv()
    onames = [ex.names.name(iv.var) for iv in op.axis]
    try:
        dcons = [cs.wrap(f"{cs.expr(iv.dom.min)} <= {onames[k]} < "
                         f"{cs.expr(iv.dom.min + iv.dom.extent)}") for k, iv in enumerate(op.axis)]
        return (box & isl.Set(f"[{', '.join(sorted(cs.used))}] -> {{ [{', '.join(onames)}] : "
                              f"{' and '.join(dcons)} }}")).coalesce()
    except (NotAffine, isl.Error):
        return box


def _region_predicate(ex, stage, region, box, ctx_set, absn):
    """The store predicate of ``stage``: a tir condition over its root vars (and attach and
    shape vars) that holds exactly on the region, where the point lies in ``box``; None when
    it would be trivially true or too large to be worth simplifying."""
    op = stage.op
    if absn is not None:
        pred = _box_predicate(ex, op, region, box, ctx_set)
        if pred is not None:
            return pred
    onames = [ex.names.name(iv.var) for iv in op.axis]
    known = _dims_as_params(box, onames).params().intersect_params(ctx_set).coalesce()
    rp = _dims_as_params(region, onames)
    pred = _to_tir_set(rp.params().compute_divs().coalesce(), known, ex.names)
    if _tir_size(pred) > PREDICATE_MAX_NODES:
        log.debug("exact bounds: stage %s: region predicate too large, computing the box",
                  stage.name)
        return None
    if isinstance(pred, IntImm) and pred.value:
        return None
    return pred


def _dims_as_params(st, names) -> isl.Set:
    """``st`` with its set dims moved behind its parameters, named ``names``."""
    nd = st.dim(dt.set)
    out = st.move_dims(dt.param, st.dim(dt.param), dt.set, 0, nd)
    for k, n in enumerate(names):
        out = out.set_dim_name(dt.param, out.dim(dt.param) - nd + k, n)
    return out


def _box_predicate(ex, op, region, box, ctx_set):
    """The region as ``lo_d <= x_d <= hi_d`` conditions, ``lo_d``/``hi_d`` the ``max``/``min``
    of the region's own bounds on ``x_d`` that the stored box does not already imply (None
    when the region is not a single such box). Each side is one tir expression, so a consumer
    further down a chain abbreviates it by one parameter."""
    if region.n_basic_set() != 1:
        return None
    bs = region.get_basic_sets()[0]
    keep = isl.Set.universe(region.get_space())
    box = box.intersect_params(ctx_set)
    conds = []
    for d, iv in enumerate(op.axis):
        found = _new_dim_bounds(bs, region, d, box)
        if found is None:
            return None
        lows, highs, kept = found
        keep = keep & kept
        for bounds, is_hi in ((lows, False), (highs, True)):
            if bounds:
                e = _bound_expr(ex, bounds, is_hi, ctx_set, iv.var.dtype)
                conds.append(iv.var <= e if is_hi else iv.var >= e)
    if not conds or not (box & keep).is_subset(region):
        return None
    out = conds[0]
    for c in conds[1:]:
        out = logical_and(out, c)
    return out


def _new_dim_bounds(bs, region, d, box):
    """``(lows, highs, kept)``: the affine lower and upper bounds on set dim ``d`` among the
    constraints of the basic set ``bs`` that ``box`` does not already imply, and the set
    they cut out; None when a constraint on ``d`` involves another dim, a div, or is an
    equality (the region is then not a box of such bounds)."""
    nd = region.dim(dt.set)
    sp = region.get_space()
    v = isl.PwAff.var_on_domain(isl.LocalSpace.from_space(sp), dt.set, d)
    kept = isl.Set.universe(sp)
    lows, highs = [], []
    for c in bs.get_constraints():
        cf = c.get_coefficient_val(dt.set, d).to_python()
        if cf == 0:
            continue
        others = [k for k in range(nd) if k != d and
                  c.get_coefficient_val(dt.set, k).to_python() != 0]
        nd_div = c.dim(dt.div)
        if others or (nd_div and c.involves_dims(dt.div, 0, nd_div)) or c.is_equality():
            return None
        b = c.get_bound(dt.set, d)
        b = b.floor() if cf < 0 else b.ceil()
        pb = isl.PwAff.from_aff(b)
        st = v.le_set(pb) if cf < 0 else v.ge_set(pb)
        if (box - st).is_empty():
            continue                  # the box already implies it
        kept = kept & st
        (highs if cf < 0 else lows).append(b)
    return lows, highs, kept


def _bound_expr(ex, bounds, is_hi, ctx_set, dtype):
    """The ``min`` (``is_hi``) or ``max`` of the affine ``bounds`` as one tir expression, its
    constant range recorded for the next hop's abbreviation."""
    pas = [isl.PwAff.from_aff(b.project_domain_on_params()) for b in bounds]
    es = [_to_tir_pw(pa, ctx_set, ex.names, dtype) for pa in pas]
    e, pa = es[0], pas[0]
    for e2, pa2 in zip(es[1:], pas[1:]):
        e = tirop.min(e, e2) if is_hi else tirop.max(e, e2)
        pa = pa.min(pa2) if is_hi else pa.max(pa2)
    record_range(ex.names, e, pa, ctx_set)
    return e


def _pw_of(ex, e):
    """tir expression (in params) -> isl PwAff."""
    c = ex.conv()
    body = c.wrap(f"val_ = {c.expr(e)}")
    return isl.Set(f"[{', '.join(sorted(c.used))}] -> {{ [val_] : {body} }}").dim_max(0)


def _ge_set(sp, d, lo):
    """``{ x in sp : x_d >= lo }``."""
    v = isl.PwAff.var_on_domain(isl.LocalSpace.from_space(sp), dt.set, d)
    return v.ge_set(lo.insert_domain(sp))


def _worth_predicating(ex, box, waste, ctx_set):
    """Concrete shapes: does the box waste at least PREDICATE_MIN_SAVING of its points?"""
    free = {box.get_dim_name(dt.param, k) for k in range(box.dim(dt.param))}
    if free & (ex.shape_vars | set(ex.names.exprs)):
        return True          # symbolic (or abbreviated): cannot count, any waste counts
    try:
        if ctx_set.dim(dt.param) > 3:
            # deep attach paths: counting every attach iteration is exponential in the depth;
            # judge on one (sampled) attach iteration instead
            ctx_set = isl.Set.from_point(ctx_set.sample_point())
        b = params_to_dims(box.intersect_params(ctx_set).coalesce())
        w = params_to_dims(waste.intersect_params(ctx_set).coalesce())
        nb = b.count_val().to_python()
        nw = w.count_val().to_python()
    except (isl.Error, ValueError):
        return True
    if nb <= 0:
        return True
    return nw >= PREDICATE_MIN_SAVING * nb


__all__ = ["infer_bound_exact", "Exact", "Names", "Fallback", "request_region", "loads_of",
           "box_of", "PREDICATE_MIN_SAVING"]
