"""Exact bounds, the requests: the per-schedule ISL state (``Exact``: what each stage
executes, access relations) and the region all consumers request of one producer (see
``tepad.bound.exact``)."""
from __future__ import annotations

from __future__ import annotations

import logging

from ..arith import union
from ..arith.isl_bridge import (IslWriter, NotAffine, dim_type as dt, isl, params_set,
                                project_params_except)
from ..schedule.relations import Fuse, Rebase, Singleton, Split, Transform
from ..schedule.stage import AttachType
from ..tir.expr import IntImm, Mul, ProducerLoad, Var, cast
from ..tir.functor import post_order_visit, substitute
from .interval import consumer_request, storage_rank, thread_rank
from .exact_abstraction import Abstraction
from .exact_encoding import Names

log = logging.getLogger("tepad.bound.exact")


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
