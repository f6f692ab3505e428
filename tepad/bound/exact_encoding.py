"""Exact bounds, the encoding: tepad expressions and ISL sets and piecewise affine
functions, one ISL name per tepad Var (``Names``), and back to tir (see ``tepad.bound.exact``)."""
from __future__ import annotations

from __future__ import annotations

import logging

from ..arith.isl_bridge import (dim_type as dt, isl, params_to_dims, pw_aff_to_expr_ast,
                                set_to_cond_ast)
from ..arith.isl_bridge import Names as IslNames
from ..tir.functor import post_order_visit

log = logging.getLogger("tepad.bound.exact")

#: a root min with more pieces than this (after trying the interval min) is relaxed to the
#: minimum of its pieces' affine forms (a valid lower bound everywhere, and a short tir
#: ``min``); a region predicate of more than PREDICATE_MAX_NODES tir nodes is dropped (the
#: stage computes its box). Both keep lowering from simplifying enumerations of ISL pieces
#: (fuzz seed 6001, case 2648: a 12,000-character realize bound, 40 s in Simplify).
MAX_MIN_PIECES = 3


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
