"""Region-predicate bounds shared through LetStmts (keeps deep exact-mode chains polynomial).

In exact mode a stage computed inside its consumer's loops can get a store predicate
``x <= min(...)`` whose bound is written over the predicate bound of a stage enclosing it
(``tepad.bound.exact`` abbreviates that bound by one ISL parameter and substitutes it back).
Down a chain of N such stages the k-th guard nests k ``min``s, each over O(k) loop vars: O(k^2)
nodes, which every Simplify run re-proves from scratch (a 50-stage chain spent ~40 s there).

``share_predicate_bounds`` binds every such bound -- a ``min``/``max`` sub-expression of a
stage's predicate, free of the stage's own root vars, that the predicate of a stage nested in
it repeats -- once, by a LetStmt around the stage's pipeline at its attach point, and writes
the predicates (and the values of inner lets) over the let vars. The guards say the same thing
at every point (a let var equals its value wherever it is visible); they just stay O(k) nodes.
"""
from __future__ import annotations

import copy

from ..bound.offset_lets import enclosing_stages
from ..tir.expr import Max, Min, Var
from ..tir.functor import ir_transform
from ..tir.structural import structural_equal


def _root_var_ids(stage):
    return {id(iv.var) for iv in stage.op.root_iter_vars}


def _uses(e, var_ids, memo):
    """Does ``e`` mention a var of ``var_ids``? (``memo``: id(node) -> answer, DAG-linear)."""
    r = memo.get(id(e))
    if r is None:
        if isinstance(e, Var):
            r = id(e) in var_ids
        else:
            r = any(_uses(v, var_ids, memo) for v in e.field_values()
                    if hasattr(v, "field_values"))
        memo[id(e)] = r
    return r


def _walk(conds, visit):
    """Call ``visit(node)`` on every node of ``conds`` once, outermost first; a node for which
    it returns True is not walked into."""
    seen = set()

    def walk(n):
        if id(n) in seen or not hasattr(n, "field_values"):
            return
        seen.add(id(n))
        if visit(n):
            return
        for v in n.field_values():
            if isinstance(v, (tuple, list)):
                for x in v:
                    walk(x)
            else:
                walk(v)

    for c in conds:
        walk(c)


def _candidates(stage, conds):
    """The maximal min/max sub-expressions of ``conds`` free of ``stage``'s root vars."""
    roots = _root_var_ids(stage)
    memo, out = {}, []

    def visit(n):
        if isinstance(n, (Min, Max)) and not _uses(n, roots, memo):
            out.append(n)
            return True
        return False

    _walk(conds, visit)
    return out


def _minmax_by_hash(conds):
    """``hash -> [node]`` of every min/max sub-expression of ``conds`` (each node once)."""
    table = {}

    def visit(n):
        if isinstance(n, (Min, Max)):
            table.setdefault(hash(n), []).append(n)
        return False

    _walk(conds, visit)
    return table


def _rewrite(e, table):
    """``e`` with every sub-expression structurally equal to a key of ``table`` (``hash ->
    [(expr, var)]``) replaced by its var, largest matches first."""
    if not table:
        return e
    memo = {}

    def pre(n):
        if not isinstance(n, (Min, Max)):
            return memo.get(id(n))
        r = memo.get(id(n))
        if r is not None:
            return r
        for x, v in table.get(hash(n), ()):
            if structural_equal(n, x):
                memo[id(n)] = v
                return v
        return None

    def post(n):
        return None

    return ir_transform(e, pre, post)


def share_predicate_bounds(s, rmap):
    """``(rmap2, keep)``: ``rmap2`` is ``rmap`` (a copy when anything changes) whose
    ``predicates`` refer to let vars and whose ``predicate_lets[op]`` lists the ``(var,
    value)`` pairs ScheduleOps binds around ``op``'s pipeline; ``keep`` holds the ids of those
    vars."""
    preds = getattr(rmap, "predicates", None) or {}
    stages = [st for st in s.stages if preds.get(st.op)]
    if len(stages) < 2:
        return rmap, set()
    inner = {}                  # op -> predicated stages nested in it
    for q in stages:
        for p in enclosing_stages(q):
            if preds.get(p.op):
                inner.setdefault(p.op, []).append(q)
    if not inner:
        return rmap, set()
    # the bounds of a stage that a nested stage's predicate repeats
    shared = {}                 # op -> [(candidate, var)]
    subexprs = {}
    for st in stages:
        if st.op not in inner:
            continue
        used = []
        for c in _candidates(st, preds[st.op]):
            h = hash(c)
            for q in inner[st.op]:
                if q.op not in subexprs:
                    subexprs[q.op] = _minmax_by_hash(preds[q.op])
                if any(structural_equal(c, x) for x in subexprs[q.op].get(h, ())):
                    used.append((c, Var(f"{st.op.name}.bound{len(used)}", c.dtype)))
                    break
        if used:
            shared[st.op] = used
    if not shared:
        return rmap, set()

    def table_of(ops):
        t = {}
        for op in ops:
            for c, v in shared.get(op, ()):
                t.setdefault(hash(c), []).append((c, v))
        return t

    new_preds = dict(preds)
    lets = {}
    for st in stages:
        outer_ops = [p.op for p in enclosing_stages(st)]
        t_outer = table_of(outer_ops)
        if st.op in shared:
            lets[st.op] = [(v, _rewrite(c, t_outer)) for c, v in shared[st.op]]
        t_all = table_of(outer_ops + [st.op])
        if t_all:
            new_preds[st.op] = [_rewrite(c, t_all) for c in preds[st.op]]
    rmap2 = copy.copy(rmap)
    rmap2.predicates = new_preds
    rmap2.predicate_lets = lets
    keep = {id(v) for pairs in lets.values() for v, _ in pairs}
    return rmap2, keep


__all__ = ["share_predicate_bounds"]
