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
  ``NonAffine``, i.e. an interval fallback for the producer (recorded in ``exact_fallbacks``).
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

import itertools
import logging
import re

import islpy as isl

from ..arith import Analyzer, IntSet, union
from ..errors import TepadError
from ..schedule.relations import Fuse, Rebase, Singleton, Split, Transform
from ..schedule.stage import AttachType
from ..tensor.tensor import PlaceholderOp
from ..tir import op as tirop
from ..tir.expr import (EQ, GE, GT, LE, LT, NE, Add, And, Call, Cast, FloorDiv, FloorMod,
                        IntImm, Max, Min, Mul, Not, Or, ProducerLoad, Range, Sub, Var, cast,
                        floordiv, floormod, logical_and, logical_not, logical_or)
from ..tir.functor import collect_vars, post_order_visit, substitute
from .message_passing import pass_down_domain

log = logging.getLogger("tepad.bound.exact")

dt = isl.dim_type
CTX = isl.DEFAULT_CONTEXT
CTX.set_ast_build_detect_min_max(1)

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
#: from this attach depth on (number of loops enclosing the producer), sub-expressions of the
#: consumers' ranges and predicates that only involve enclosing loop vars are abbreviated by
#: fresh ISL parameters (``Abstraction``): keeps deep compute_at chains linear
ABSTRACT_DEPTH = 3


_SEL = itertools.count()


class NonAffine(Exception):
    """A tir expression that ISL cannot represent (not quasi-affine)."""


# ---------------------------------------------------------------------------------------------
# names and conversions
# ---------------------------------------------------------------------------------------------

class Names:
    """Unique ISL identifiers for tepad Vars (Vars compare by identity)."""

    def __init__(self):
        self.by_id = {}
        self.vars = {}
        #: ISL name -> tir expression it abbreviates (see ``Abstraction``)
        self.exprs = {}
        #: id(tir expression) -> (expression, lo, hi): known constant range of an expression
        #: exact mode produced (a root min, a predicate bound), lo/hi None when unknown
        self.ranges = {}

    def name(self, var) -> str:
        n = self.by_id.get(id(var))
        if n is None:
            base = re.sub(r"\W", "_", var.name) or "v"
            if not base[0].isalpha():
                base = "v" + base
            n = f"{base}_{len(self.by_id)}"
            self.by_id[id(var)] = n
            self.vars[n] = var
        return n


def _const(e):
    if isinstance(e, IntImm):
        return e.value
    if isinstance(e, Cast):
        return _const(e.value)
    return None


def _is_ite(e):
    return isinstance(e, Call) and e.op == "tir.if_then_else" and len(e.args) == 3


class ToIsl:
    """tir expression / condition -> ISL syntax; records the names it used."""

    def __init__(self, names: Names, env=None, abstraction=None):
        self.names = names
        self.env = env or {}
        self.used = set()
        self.aux = []          # (name, definition) of if_then_else values
        self.abstraction = abstraction

    def wrap(self, formula: str) -> str:
        """``formula`` with the if_then_else helper names existentially quantified."""
        if not self.aux:
            return formula
        names = ", ".join(n for n, _ in self.aux)
        defs = " and ".join(d for _, d in self.aux)
        return f"exists ({names} : {defs} and {formula})"

    def expr(self, e) -> str:
        if isinstance(e, IntImm):
            return f"({e.value})" if e.value < 0 else str(e.value)
        if self.abstraction is not None and not isinstance(e, Var):
            n = self.abstraction.name_of(e)
            if n is not None:
                self.used.add(n)
                return n
        if isinstance(e, Var):
            if e in self.env:
                return str(int(self.env[e]))
            n = self.names.name(e)
            self.used.add(n)
            return n
        if isinstance(e, Cast):
            return self.expr(e.value)
        if isinstance(e, Add):
            return f"({self.expr(e.a)} + {self.expr(e.b)})"
        if isinstance(e, Sub):
            return f"({self.expr(e.a)} - {self.expr(e.b)})"
        if isinstance(e, Mul):
            ca, cb = _const(e.a), _const(e.b)
            if ca is not None and cb is not None:
                return self.expr(IntImm(ca * cb, "int64"))
            if ca is not None:
                return f"({ca}*({self.expr(e.b)}))"
            if cb is not None:
                return f"({cb}*({self.expr(e.a)}))"
            for x, y in ((e.a, e.b), (e.b, e.a)):       # x * ite(c, p, q) -> ite(c, x*p, x*q)
                if _is_ite(y):
                    c, p, q = y.args
                    return self.expr(Call(e.dtype, "tir.if_then_else", [c, x * p, x * q]))
            raise NonAffine(f"product of two non-constants: {e!r}")
        if isinstance(e, (FloorDiv, FloorMod)):
            c = _const(e.b)
            if c is None and _is_ite(e.b):
                cnd, p, q = e.b.args
                f = floordiv if isinstance(e, FloorDiv) else floormod
                return self.expr(Call(e.dtype, "tir.if_then_else", [cnd, f(e.a, p), f(e.a, q)]))
            if c is None or c <= 0:
                raise NonAffine(f"{type(e).__name__} by a non-constant or non-positive: {e!r}")
            a = self.expr(e.a)
            return f"floor(({a})/{c})" if isinstance(e, FloorDiv) else f"(({a}) mod {c})"
        if isinstance(e, (Min, Max)):
            f = "min" if isinstance(e, Min) else "max"
            return f"{f}({self.expr(e.a)}, {self.expr(e.b)})"
        if isinstance(e, Call) and e.op == "tir.if_then_else" and len(e.args) == 3:
            cnd = self.cond(e.args[0])
            a, b = self.expr(e.args[1]), self.expr(e.args[2])
            n = f"sel_{next(_SEL)}"
            self.aux.append((n, f"(({cnd} and {n} = {a}) or ((not {cnd}) and {n} = {b}))"))
            return n
        raise NonAffine(f"not quasi-affine: {type(e).__name__} {e!r}")

    def cond(self, c) -> str:
        if isinstance(c, IntImm):
            return "true" if c.value else "false"
        if isinstance(c, And):
            return f"({self.cond(c.a)} and {self.cond(c.b)})"
        if isinstance(c, Or):
            return f"({self.cond(c.a)} or {self.cond(c.b)})"
        if isinstance(c, Not):
            return f"(not {self.cond(c.a)})"
        ops = {LT: "<", LE: "<=", GT: ">", GE: ">=", EQ: "=", NE: "!="}
        for cls, sym in ops.items():
            if type(c) is cls:
                return f"({self.expr(c.a)} {sym} {self.expr(c.b)})"
        if isinstance(c, Call) and c.op in ("tir.likely", "likely") and c.args:
            return self.cond(c.args[0])
        raise NonAffine(f"condition not representable: {c!r}")


def params_set(constraints, names_used, extra=(), conv=None) -> isl.Set:
    """Parameter-only set ``[names] -> { : c1 and c2 ... }`` (``conv``: the ToIsl whose
    if_then_else helpers the constraints use)."""
    ps = sorted(set(names_used) | set(extra))
    body = " and ".join(constraints) if constraints else "true"
    if conv is not None:
        body = conv.wrap(body)
    return isl.Set(f"[{', '.join(ps)}] -> {{ : {body} }}")


_OP = isl.ast_expr_op_type


def ast_to_tir(e, names: Names, dtype="int32"):
    """isl AstExpr -> tir expression (variables looked up by their ISL name)."""
    t = e.get_type()
    if t == isl.ast_expr_type.int:
        return IntImm(e.get_val().to_python(), dtype)
    if t == isl.ast_expr_type.id:
        n = e.get_id().get_name()
        v = names.vars.get(n)
        if v is None:
            v = names.exprs.get(n)
        if v is None:
            raise TepadError(f"exact bounds: unknown ISL name {n}")
        return v if v.dtype == dtype else cast(dtype, v)
    op = e.get_op_type()
    args = [ast_to_tir(e.get_op_arg(k), names, dtype) for k in range(e.get_op_n_arg())]
    if op == _OP.minus:
        return IntImm(0, dtype) - args[0]
    if op in (_OP.select, _OP.cond):
        return tirop.if_then_else(args[0], args[1], args[2])
    binary = {
        _OP.add: lambda a, b: a + b, _OP.sub: lambda a, b: a - b, _OP.mul: lambda a, b: a * b,
        _OP.div: floordiv, _OP.fdiv_q: floordiv, _OP.pdiv_q: floordiv,
        _OP.pdiv_r: floormod, _OP.zdiv_r: floormod,
        _OP.min: tirop.min, _OP.max: tirop.max,
        _OP.le: lambda a, b: a <= b, _OP.lt: lambda a, b: a < b,
        _OP.ge: lambda a, b: a >= b, _OP.gt: lambda a, b: a > b,
        _OP.eq: lambda a, b: EQ(a, b),
        _OP.and_: logical_and, _OP.and_then: logical_and,
        _OP.or_: logical_or, _OP.or_else: logical_or,
    }
    if op in binary:
        out = args[0]
        for a in args[1:]:
            out = binary[op](out, a)
        return out
    raise NonAffine(f"ISL AST operator {op} not supported")


def _to_tir_pw(pa, ctx_set, names, dtype):
    build = isl.AstBuild.from_context(ctx_set)
    return ast_to_tir(build.expr_from_pw_aff(pa.gist_params(ctx_set)), names, dtype)


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


def _tir_size(e) -> int:
    n = [0]
    post_order_visit(e, lambda _: n.__setitem__(0, n[0] + 1))
    return n[0]


def _to_tir_set(st, ctx_set, names):
    """Parameter-only set -> tir condition, simplified under ``ctx_set``."""
    st = st.gist(ctx_set)
    build = isl.AstBuild.from_context(ctx_set)
    out = ast_to_tir(build.expr_from_set(st), names)
    if isinstance(out, IntImm):
        out = IntImm(out.value, "bool")
    return out


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


def project_params_except(st: isl.Set, keep) -> isl.Set:
    for k in reversed(range(st.dim(dt.param))):
        if st.get_dim_name(dt.param, k) not in keep:
            st = st.project_out(dt.param, k, 1)
    return st


def params_to_dims(st: isl.Set) -> isl.Set:
    """Move every parameter into the set dims (for counting)."""
    n = st.dim(dt.param)
    return st.move_dims(dt.set, 0, dt.param, 0, n) if n else st


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
            c = ToIsl(ex.names, ex.env)
            text = c.wrap(f"val_ = {c.expr(e)}")
        except NonAffine:
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

def _loads_of(op, tensors):
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
        for st in s.stages:
            for iv in st.all_iter_vars:
                self.iter_names.add(self.names.name(iv.var))
        self.shape_vars = set()
        for st in s.stages:
            for k in range(st.op.num_outputs):
                for d in st.op.output(k).shape:
                    if isinstance(d, Var):
                        self.shape_vars.add(self.names.name(d))

    def conv(self, abstraction=None):
        return ToIsl(self.names, self.env, abstraction)

    def abstraction(self, apath, stages):
        """The (shared) ``Abstraction`` for producers enclosed by the loops ``apath`` whose
        consumers (and the stages between them and the attach point) are ``stages``."""
        outer = frozenset(self.names.name(iv.var) for iv in apath)
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
        rmap, c = self.rmap, self.conv(abstraction)
        cons = []
        op = stage.op
        nm = lambda iv: c.expr(iv.var)   # noqa: E731

        leaves = {id(iv) for iv in stage.leaf_iter_vars}

        def in_range(x, r, iv=None):
            # loops_only: only loops bound their vars. A non-leaf range (the inner part of a
            # tile that is split again by nparts) would, once the inner loops are projected
            # away, also drop outer iterations whose inner loops are empty -- and a stage
            # attached at the outer loop still runs there (fuzz seed 4001, case 585).
            if loops_only and iv is not None and id(iv) not in leaves:
                return
            lo = c.expr(r.min)
            cons.append(f"{lo} <= {x} < {lo} + {c.expr(r.extent)}")
        for iv in op.root_iter_vars:
            if loops_only:
                break
            in_range(nm(iv), rmap[iv])
            if iv.dom is not None and iv not in op.reduce_axis:
                in_range(nm(iv), iv.dom)
        if loops_only:
            for iv in stage.leaf_iter_vars:
                in_range(nm(iv), rmap[iv])
            # (exact split tails shorten inner loops by bounding the split's parent, which
            # is not a loop: like any non-leaf range it is left out, see in_range)
        for rel in stage.relations:
            if isinstance(rel, Split):
                ri, rp = rmap[rel.inner], rmap[rel.parent]
                prod = c.expr(_tmul(rel.outer.var, ri.extent))
                cons.append(f"{nm(rel.parent)} = {c.expr(rp.min)} + "
                            f"{prod} + {nm(rel.inner)} - {c.expr(ri.min)}")
                in_range(nm(rel.inner), ri, rel.inner)
                in_range(nm(rel.outer), rmap[rel.outer], rel.outer)
            elif isinstance(rel, Fuse):
                ro, ri = rmap[rel.outer], rmap[rel.inner]
                prod = c.expr(_tmul(rel.outer.var - ro.min, ri.extent))
                cons.append(f"{nm(rel.fused)} = {prod} + {nm(rel.inner)} - {c.expr(ri.min)}")
                in_range(nm(rel.inner), ri, rel.inner)
                in_range(nm(rel.fused), rmap[rel.fused], rel.fused)
            elif isinstance(rel, Rebase):
                cons.append(f"{nm(rel.rebased)} = {nm(rel.parent)} - {c.expr(rmap[rel.parent].min)}")
            elif isinstance(rel, Singleton):
                cons.append(f"{nm(rel.iter)} = 0")
            elif isinstance(rel, Transform):
                # the loops iterate the physical box; a point executes iff it is the image
                # t = f(orig) of a logical point (orig: root ranges above, so t lies in the
                # box): padding points have no preimage, ScheduleOps guards them out.
                # loops_only: the loops run (and the stages attached inside them) at padding
                # points and past a non-divisible split of t too, so no constraint at all
                if not loops_only:
                    cons.extend(self._transform_constraints(stage, rel, c))
            else:
                raise NonAffine(f"stage {stage.name}: relation {rel!r} has no exact encoding")
        for p in (() if loops_only else getattr(rmap, "predicates", {}).get(op, ())):
            cons.append(c.cond(p))
        try:
            st = params_set(cons, c.used, conv=c)
        except isl.Error as e:
            raise NonAffine(f"ISL rejected the domain of {stage.name}: {e}") from e
        self._own[key] = st
        return st

    def _transform_constraints(self, stage, rel, c):
        """``t_k = f_k(orig)`` for a layout ``Transform`` (ISL text, names recorded in ``c``);
        NonAffine when the IndexMap is not quasi-affine (the caller falls back to intervals)."""
        imap = rel.index_map
        vsub = {v: ov.var for v, ov in zip(imap.initial_indices, rel.original_vars)}
        out = []
        for tv, f in zip(rel.transformed_vars, imap.final_indices):
            f = substitute(f, vsub)
            try:
                out.append(f"{c.expr(tv.var)} = {c.expr(f)}")
                continue
            except NonAffine:
                pass
            # e.g. Selects of exact symbolic shapes: the IndexMap's own ISL conversion
            from ..arith.index_map import _NotAffine, isl_constraint
            if self.env:
                f = substitute(f, {v: IntImm(int(x), v.dtype) for v, x in self.env.items()})
            names = {v: self.names.name(v) for v in collect_vars(f) | {tv.var}}
            try:
                out.append(isl_constraint(tv.var, "=", f, names))
            except _NotAffine as e:
                raise NonAffine(f"stage {stage.name}: layout map {imap} is not quasi-affine "
                                f"({e}): no exact encoding of its loops") from None
            c.used |= set(names.values())
        return out

    def chain(self, consumer, stop):
        """Stages from ``consumer`` up to the one owning loop ``stop`` (or to the root)."""
        out, x = [consumer], consumer
        while True:
            if stop is not None and any(iv is stop for iv in x.leaf_iter_vars):
                return out
            if x.attach_type != AttachType.Scope:
                if stop is not None:
                    raise NonAffine(f"attach loop {stop.name} does not enclose {consumer.name}")
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
            except (NonAffine, KeyError):
                pass
        for n in self.shape_vars:
            if self.names.vars[n] not in self.env:
                cons.append(f"{n} >= 1")
                used.add(n)
        try:
            return params_set(cons, used)
        except isl.Error:
            return isl.Set("{ : }")


def _tmul(x, e):
    """``x * e`` as a tir Mul node (no folding: ToIsl handles constants and if_then_else)."""
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
    keep = {ex.names.name(iv.var) for iv in apath} | ex.shape_vars
    onames = [ex.names.name(iv.var) for iv in op.axis]
    region = None
    stop = apath[0] if apath else None
    for c in consumers:
        dom = None
        for x in ex.chain(c, stop):
            o = ex.own(x, loops_only=x is not c, abstraction=abstraction)
            dom = o if dom is None else dom & o
        pieces = []
        used = set()
        for ld in _loads_of(c.op, outs):
            cons = []
            for k, idx in enumerate(ld.indices):
                cv = ex.conv(abstraction)
                try:
                    cons.append(cv.wrap(f"{onames[k]} = {cv.expr(idx)}"))
                    used |= cv.used
                except NonAffine as e:
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


# ---------------------------------------------------------------------------------------------
# InferBound, exact mode
# ---------------------------------------------------------------------------------------------

def infer_bound_exact(s):
    """Exact-mode InferBound: a ``BoundMap`` with exact root ranges, region predicates and
    ``exact_tails``. ``bmap.exact_fallbacks`` lists where intervals were used instead."""
    from .infer_bound import BoundMap, _Context, _consumer_request, finalize_ranges, \
        infer_bound, infer_root_bound
    ctx = _Context(s)
    if ctx.bind_map:
        bm = infer_bound(s)
        bm.exact_fallbacks = [Fallback("*", None, None,
                                       "thread-bound loops: interval mode used for everything")]
        log.debug("exact bounds: thread binding present, using interval mode")
        return bm
    rmap = BoundMap()
    rmap.exact_tails = True
    rmap.exact_fallbacks = []
    rmap.exact_regions = {}
    ana = Analyzer()
    ex = Exact(s, rmap)
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
                _exact_root_bound(ex, ctx, stage, rmap, ana)
            except (NonAffine, isl.Error) as e:
                if _DEBUG_RAISE:
                    raise
                msg = f"exact region failed ({e}); interval InferBound for the whole stage"
                log.debug("exact bounds: stage %s: %s", stage.name, msg)
                rmap.exact_fallbacks.append(Fallback(stage.name, None, None, msg))
                rmap.predicates.pop(op, None)
                infer_root_bound(ctx, stage, rmap, ana)
        for iv in op.root_iter_vars:
            ana.bind(iv.var, rmap[iv])
        pass_down_domain(stage, rmap, ana)
    return finalize_ranges(rmap, ana)


def _exact_root_bound(ex, ctx, stage, rmap, ana, interval=None):
    from .infer_bound import BoundMap, _consumer_request, infer_root_bound
    op = stage.op
    apath = ctx.paths[id(stage)]
    outs = [op.output(k) for k in range(op.num_outputs)]
    consumers = []
    for t in outs:
        for c in ctx.feed.get(t, []):
            if c not in consumers:
                consumers.append(c)
    fallbacks = rmap.exact_fallbacks
    onames = [ex.names.name(iv.var) for iv in op.axis]
    iv_cache = {}

    def fallback_dim(consumer, k):
        """Interval request of ``consumer`` on dim ``k`` as an ISL constraint (or None)."""
        if consumer not in iv_cache:
            tmap = {t: [[] for _ in op.axis] for t in outs}
            _consumer_request(ctx, stage, consumer, rmap, ana, tmap)
            iv_cache[consumer] = tmap
        sets = [x for t in outs for x in iv_cache[consumer][t][k]]
        u = union(sets) if sets else None
        c = ex.conv()
        try:
            if u is not None and u.has_lower_bound() and u.has_upper_bound():
                return c.wrap(f"{c.expr(u.min())} <= {onames[k]} <= {c.expr(u.max())}"), c.used
            shp = op.output(0).shape[k]
            return c.wrap(f"0 <= {onames[k]} < {c.expr(shp)}"), c.used
        except NonAffine:
            return None

    absn = None
    if len(apath) >= ABSTRACT_DEPTH:
        stop = apath[0] if apath else None
        try:
            chain = [x for c in consumers for x in ex.chain(c, stop)]
        except NonAffine:
            chain = None
        if chain is not None:
            absn = ex.abstraction(apath, chain)
    region = request_region(ex, stage, consumers, apath, fallback_dim, fallbacks, absn)
    # No intersection with the interval-mode box here: that box is expressed in the interval
    # mode's consumer loops, which can start elsewhere than exact mode's (a consumer whose
    # region exact mode shrank), so intersecting could drop points that are needed. The region
    # is a union of exact images of what the consumers execute, hence never looser anyway.
    if absn is None:
        ctx_set = ex.context(apath)
    else:
        # only the loop vars and abbreviations the region really depends on
        present = {region.get_dim_name(dt.param, k) for k in range(region.dim(dt.param))}
        ctx_set = ex.context([iv for iv in apath if ex.names.name(iv.var) in present])
        ab = sorted(present & set(absn.bounds))
        if ab:
            ctx_set = (ctx_set & params_set(absn.context_constraints(ab), ab)).coalesce()
    rmap.exact_regions[op] = region
    if region.is_empty():
        for iv in op.axis:
            rmap[iv] = Range.from_min_extent(iv.dom.min, IntImm(0, iv.var.dtype))
        for iv in op.reduce_axis:
            rmap[iv] = iv.dom
        return
    # Fuse and nparts-split multiply by an extent: keep those extents constant (the largest
    # over the attach iterations, offset exact) so the loop structure stays affine; the
    # region predicate then removes the padding.
    tile = any(isinstance(r, Fuse) or (isinstance(r, Split) and r.factor is None)
               for r in stage.relations)
    sp = region.get_space()
    ls = isl.LocalSpace.from_space(sp)
    box = isl.Set.universe(sp)
    padded = False
    imap = None
    exact_bounds = []
    for d, iv in enumerate(op.axis):
        lo, hi = region.dim_min(d), region.dim_max(d)
        exact_bounds.append((lo, hi))
        dtype = iv.var.dtype
        v = isl.PwAff.var_on_domain(ls, dt.set, d)
        multi_lo = lo.gist_params(ctx_set).n_piece() > 1
        if multi_lo or \
                _plus(hi - lo, 1).gist_params(ctx_set).n_piece() > MAX_EXTENT_PIECES:
            # piecewise bounds (boundary tiles) would multiply from hop to hop: hand the
            # producer a tile instead -- the interval lower bound (affine) when the exact
            # lower bound is piecewise and the exact region lies above it, and the largest
            # exact extent over the attach iterations
            if multi_lo and absn is None:
                if imap is None:
                    imap = BoundMap(rmap)
                    infer_root_bound(ctx, stage, imap, ana)
                try:
                    lo_i = _pw_of(ex, imap[iv].min)
                    if lo_i.n_piece() == 1 and region.is_subset(
                            box_set_ge(sp, ls, d, lo_i)):
                        lo = lo_i
                except (NonAffine, isl.Error):
                    pass
            if lo.gist_params(ctx_set).n_piece() > MAX_MIN_PIECES:
                lo = _min_of_pieces(lo.gist_params(ctx_set), ctx_set)
            tile_d = True
        else:
            tile_d = tile
        ext = _plus(hi - lo, 1)
        box = box & v.ge_set(lo.insert_domain(sp))
        const_ext = None
        if tile_d:
            mv = ext.intersect_params(ctx_set).max_val()
            if mv.is_int():
                const_ext = mv.to_python()
        if const_ext is not None:
            padded = padded or tile
            box = box & v.le_set(_plus(lo, const_ext - 1).insert_domain(sp))
            ext_t = IntImm(const_ext, dtype)
        else:
            box = box & v.le_set(hi.insert_domain(sp))
            ext_t = _to_tir_pw(ext, ctx_set, ex.names, dtype)
        lo_t = _to_tir_pw(lo, ctx_set, ex.names, dtype)
        if absn is not None:
            record_range(ex.names, lo_t, lo, ctx_set)
        rmap[iv] = Range.from_min_extent(lo_t, ext_t)
    for iv in op.reduce_axis:
        rmap[iv] = iv.dom
    box = box.coalesce()
    # ScheduleOps never stores outside the tensor's shape: that part of the box is no waste
    cs = ex.conv()
    try:
        dcons = [cs.wrap(f"{cs.expr(iv.dom.min)} <= {onames[k]} < "
                         f"{cs.expr(iv.dom.min + iv.dom.extent)}") for k, iv in enumerate(op.axis)]
        box = (box & isl.Set(f"[{', '.join(sorted(cs.used))}] -> {{ [{', '.join(onames)}] : "
                             f"{' and '.join(dcons)} }}")).coalesce()
    except (NonAffine, isl.Error):
        pass
    waste = (box - region).coalesce()
    if waste.is_empty():
        return
    if not padded and not _worth_predicating(ex, box, waste, ctx_set):
        return
    if absn is not None:
        pred = _box_predicate(ex, op, region, box, ctx_set)
        if pred is not None:
            rmap.predicates[op] = [pred]
            return
    # the region as a condition over the root vars (and attach/shape vars)
    nd = region.dim(dt.set)
    rp = region.move_dims(dt.param, region.dim(dt.param), dt.set, 0, nd)
    for k, n in enumerate(onames):
        rp = rp.set_dim_name(dt.param, rp.dim(dt.param) - nd + k, n)
    bp = box.move_dims(dt.param, box.dim(dt.param), dt.set, 0, nd)
    for k, n in enumerate(onames):
        bp = bp.set_dim_name(dt.param, bp.dim(dt.param) - nd + k, n)
    known = bp.params().intersect_params(ctx_set).coalesce()
    pred = _to_tir_set(rp.params().compute_divs().coalesce(), known, ex.names)
    if _tir_size(pred) > PREDICATE_MAX_NODES:
        log.debug("exact bounds: stage %s: region predicate too large, computing the box",
                  stage.name)
        return
    if not (isinstance(pred, IntImm) and pred.value):
        rmap.predicates[op] = [pred]


def _box_predicate(ex, op, region, box, ctx_set):
    """The region as ``lo_d <= x_d <= hi_d`` conditions, ``lo_d``/``hi_d`` the ``max``/``min``
    of the region's own bounds on ``x_d`` that the stored box does not already imply (None
    when the region is not a single such box). Each side is one tir expression, so a consumer
    further down a chain abbreviates it by one parameter."""
    if region.n_basic_set() != 1:
        return None
    bs = region.get_basic_sets()[0]
    nd = region.dim(dt.set)
    sp = region.get_space()
    ls = isl.LocalSpace.from_space(sp)
    keep = isl.Set.universe(sp)
    box = box.intersect_params(ctx_set)
    conds = []
    for d, iv in enumerate(op.axis):
        v = isl.PwAff.var_on_domain(ls, dt.set, d)
        lows, highs = [], []
        for c in bs.get_constraints():
            cf = c.get_coefficient_val(dt.set, d).to_python()
            if cf == 0:
                continue
            others = [k for k in range(nd) if k != d and
                      c.get_coefficient_val(dt.set, k).to_python() != 0]
            nd_div = c.dim(dt.div)
            if others or (nd_div and c.involves_dims(dt.div, 0, nd_div)):
                return None
            if c.is_equality():
                return None
            b = c.get_bound(dt.set, d)
            b = b.floor() if cf < 0 else b.ceil()
            pb = isl.PwAff.from_aff(b)
            st = v.le_set(pb) if cf < 0 else v.ge_set(pb)
            if (box - st).is_empty():
                continue                  # the box already implies it
            keep = keep & st
            (highs if cf < 0 else lows).append(b)
        dtype = iv.var.dtype
        for bounds, is_hi in ((lows, False), (highs, True)):
            if not bounds:
                continue
            pas = [isl.PwAff.from_aff(b.project_domain_on_params()) for b in bounds]
            es = [_to_tir_pw(pa, ctx_set, ex.names, dtype) for pa in pas]
            e, pa = es[0], pas[0]
            for e2, pa2 in zip(es[1:], pas[1:]):
                e = tirop.min(e, e2) if is_hi else tirop.max(e, e2)
                pa = pa.min(pa2) if is_hi else pa.max(pa2)
            record_range(ex.names, e, pa, ctx_set)
            conds.append(iv.var <= e if is_hi else iv.var >= e)
    if not conds or not (box & keep).is_subset(region):
        return None
    out = conds[0]
    for c in conds[1:]:
        out = logical_and(out, c)
    return out


def _plus(pa, k):
    """``pa + k`` without isl building ``k`` on pa's (possibly complex) domain."""
    return pa.add_constant_val(isl.Val.int_from_si(CTX, k)) if k else pa


def _pw_of(ex, e):
    """tir expression (in params) -> isl PwAff."""
    c = ex.conv()
    body = c.wrap(f"val_ = {c.expr(e)}")
    return isl.Set(f"[{', '.join(sorted(c.used))}] -> {{ [val_] : {body} }}").dim_max(0)


def box_set_ge(sp, ls, d, lo):
    v = isl.PwAff.var_on_domain(ls, dt.set, d)
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


__all__ = ["infer_bound_exact", "Exact", "Names", "ToIsl", "NonAffine", "Fallback",
           "ast_to_tir", "box_of", "PREDICATE_MIN_SAVING"]
