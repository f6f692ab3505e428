"""Exact bounds, deep attach chains: outer sub-expressions of the consumers' ranges and
predicates abbreviated by fresh ISL parameters (``Abstraction``; see ``tepad.bound.exact``)."""
from __future__ import annotations

from __future__ import annotations

import logging
import re

from ..arith.isl_bridge import NotAffine, dim_type as dt, isl, params_to_dims
from ..tir.expr import ProducerLoad, Var
from ..tir.functor import post_order_visit

log = logging.getLogger("tepad.bound.exact")


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
