"""IndexMap: a map from logical buffer indices to transformed (physical) indices.

``IndexMap([i], [i // 4, i % 4])`` maps element ``i`` of a logical buffer to position
``(i // 4, i % 4)`` of the transformed buffer (RFC 0039). Shapes, padding (RFC 0077), inverses
and injectivity are computed exactly with ISL (islpy) when every output index is quasi-affine
(``+ - *const // % by constants`` over the input indices and free symbolic vars such as shape
vars); other maps fall back to interval arithmetic where that is sound (``map_shape`` /
``map_ranges``) and raise ``TepadError`` where it is not (``inverse``, ``padding_predicate``,
``is_injective``).

Conventions:
- the transformed buffer's index ``k`` ranges over ``[0, max_k + 1)`` where ``max_k`` is the
  largest value output ``k`` takes on the logical domain (the minimal box anchored at 0);
  a map producing negative indices is an error;
- ``final_vars()`` are fresh Vars, one per output index, stable for one IndexMap object; the
  padding predicate and ``inverse`` are written over them;
- symbolic shapes: every free Var of a shape/map is an ISL parameter; shape parameters are
  assumed ``>= 1`` when simplifying (a buffer extent is positive).
"""
from __future__ import annotations

import inspect

from ..errors import TepadError
from ..tir import expr as E
from ..tir.buffer import AXIS_SEPARATOR
from ..tir.functor import Mutator, post_order_visit, substitute, collect_vars
from ..tir.printer import expr_to_str
from .analyzer import Analyzer

try:  # islpy is a hard dependency of exact mode; keep import errors readable
    import islpy as isl
    _DT = isl.dim_type
except Exception:  # pragma: no cover
    isl = None
    _DT = None


class _NotAffine(Exception):
    pass


# ----------------------------------------------------------------------------------------------
# tepad expr <-> ISL
# ----------------------------------------------------------------------------------------------

def _isl_str(e, names: dict) -> str:
    """Quasi-affine tepad expression -> ISL syntax; raise _NotAffine otherwise."""
    if isinstance(e, E.IntImm):
        return f"({int(e.value)})"
    if isinstance(e, E.Var):
        if e not in names:
            raise _NotAffine(e)
        return names[e]
    if isinstance(e, E.Cast) and E.dt.is_int(e.dtype) and E.dt.is_int(e.value.dtype):
        return _isl_str(e.value, names)
    if isinstance(e, E.Add):
        return f"({_isl_str(e.a, names)} + {_isl_str(e.b, names)})"
    if isinstance(e, E.Sub):
        return f"({_isl_str(e.a, names)} - {_isl_str(e.b, names)})"
    if isinstance(e, E.Mul):
        if isinstance(e.a, E.IntImm):
            return f"({int(e.a.value)} * {_isl_str(e.b, names)})"
        if isinstance(e.b, E.IntImm):
            return f"({int(e.b.value)} * {_isl_str(e.a, names)})"
        raise _NotAffine(e)
    if isinstance(e, (E.FloorDiv, E.FloorMod)) and isinstance(e.b, E.IntImm) and e.b.value > 0:
        a = _isl_str(e.a, names)
        c = int(e.b.value)
        return f"floor({a} / {c})" if isinstance(e, E.FloorDiv) else f"({a} mod {c})"
    if isinstance(e, (E.Div, E.Mod)) and isinstance(e.b, E.IntImm) and e.b.value > 0:
        # truncating division equals floor division on non-negative operands only
        raise _NotAffine(e)
    if isinstance(e, (E.Min, E.Max)):
        f = "min" if isinstance(e, E.Min) else "max"
        return f"{f}({_isl_str(e.a, names)}, {_isl_str(e.b, names)})"
    if isinstance(e, E.Select):
        # exact shapes of symbolic sizes carry selects such as Select(n == 1, 1, 2); when the
        # two values differ by a constant, b + (a - b) * [cond] is quasi-affine
        diff = _const_difference(e.true_value, e.false_value)
        if diff is None:
            raise _NotAffine(e)
        b = _isl_str(e.false_value, names)
        return f"({b} + {diff} * {_indicator(e.condition, names)})"
    raise _NotAffine(e)


def _first_select(e):
    found = []
    post_order_visit(e, lambda n: found.append(n) if isinstance(n, E.Select) else None)
    return found[0] if found else None


def _replace_node(e, old, new):
    """``e`` with the node ``old`` (by identity) replaced by ``new``."""

    class _R(Mutator):
        def visit(self, n):
            return new if n is old else super().visit(n)
    return _R().visit(e)


def _select_pieces(e, limit=16):
    """``[(conditions, expr)]``: ``e`` with every Select decided, one entry per combination of
    branches (conditions are tir booleans that hold for that entry)."""
    sel = _first_select(e)
    if sel is None:
        return [((), e)]
    out = []
    for cond, val in ((sel.condition, sel.true_value), (E.Not(sel.condition), sel.false_value)):
        for cs, x in _select_pieces(_replace_node(e, sel, val), limit):
            out.append(((cond,) + cs, x))
            if len(out) > limit:
                raise _NotAffine(e)
    return out


def isl_cond(c, names, negate=False) -> str:
    """A quasi-affine integer condition as ISL constraint text (negation pushed inwards);
    raise _NotAffine otherwise."""
    if isinstance(c, E.IntImm):
        return "1 = 1" if bool(c.value) != negate else "1 = 0"
    if isinstance(c, E.Not):
        return isl_cond(c.a, names, not negate)
    if isinstance(c, (E.And, E.Or)):
        conj = isinstance(c, E.And) != negate
        a, b = isl_cond(c.a, names, negate), isl_cond(c.b, names, negate)
        return f"(({a}) {'and' if conj else 'or'} ({b}))"
    if isinstance(c, E.Call) and c.op == "tir.likely":
        return isl_cond(c.args[0], names, negate)
    if isinstance(c, E.CmpOp) and E.dt.is_int(c.a.dtype):
        op = {E.LT: "<", E.LE: "<=", E.GT: ">", E.GE: ">=", E.EQ: "=", E.NE: "!="}[type(c)]
        if negate:
            op = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "=": "!=", "!=": "="}[op]
        return f"{_isl_str(c.a, names)} {op} {_isl_str(c.b, names)}"
    raise _NotAffine(c)


def isl_constraint(a, op: str, b, names) -> str:
    """ISL text for ``a op b`` (op in < <= = >= >); Selects in ``a``/``b`` (exact shapes of
    symbolic sizes) become one disjunct per combination of branches."""
    if _first_select(a) is None and _first_select(b) is None:
        return f"{_isl_str(a, names)} {op} {_isl_str(b, names)}"
    parts = []
    for ca, xa in _select_pieces(a):
        for cb, xb in _select_pieces(b):
            conds = [isl_cond(c, names) for c in ca + cb]
            parts.append("(" + " and ".join(conds + [f"{_isl_str(xa, names)} {op} "
                                                     f"{_isl_str(xb, names)}"]) + ")")
    return "(" + " or ".join(parts) + ")"


def _const_difference(a, b):
    """``a - b`` when it is a constant, else None."""
    d = Analyzer().simplify(E.sub(a, b))
    return int(d.value) if isinstance(d, E.IntImm) else None


def _indicator(c, names) -> str:
    """1 where the integer condition ``c`` holds, 0 elsewhere, as quasi-affine ISL text."""
    if isinstance(c, E.IntImm):
        return "1" if c.value else "0"
    if isinstance(c, E.Not):
        return f"(1 - {_indicator(c.a, names)})"
    if isinstance(c, (E.And, E.Or)):
        f = "min" if isinstance(c, E.And) else "max"
        return f"{f}({_indicator(c.a, names)}, {_indicator(c.b, names)})"
    if isinstance(c, E.CmpOp) and E.dt.is_int(c.a.dtype):
        a, b = _isl_str(c.a, names), _isl_str(c.b, names)

        def le(x, y):            # [x <= y] for integers
            return f"min(max({y} - {x} + 1, 0), 1)"
        if isinstance(c, E.LE):
            return le(a, b)
        if isinstance(c, E.LT):
            return le(f"({a} + 1)", b)
        if isinstance(c, E.GE):
            return le(b, a)
        if isinstance(c, E.GT):
            return le(f"({b} + 1)", a)
        eq = f"min({le(a, b)}, {le(b, a)})"
        return eq if isinstance(c, E.EQ) else f"(1 - {eq})"
    raise _NotAffine(c)


def _lin_to_expr(terms, const, dtype):
    """sum(c * x) + const as a tepad expression (positive terms first)."""
    out = None
    for c, x in sorted(terms, key=lambda t: t[0] < 0):
        if out is None:
            out = x if c == 1 else (E.mul(E.IntImm(c, dtype), x) if c != -1 else E.neg(x))
        elif c > 0:
            out = E.add(out, x if c == 1 else E.mul(E.IntImm(c, dtype), x))
        else:
            out = E.sub(out, x if c == -1 else E.mul(E.IntImm(-c, dtype), x))
    if out is None:
        return E.IntImm(const, dtype)
    if const > 0:
        return E.add(out, E.IntImm(const, dtype))
    if const < 0:
        return E.sub(out, E.IntImm(-const, dtype))
    return out


def _val(v) -> int:
    return int(v.to_python())


def _aff_to_expr(aff, dim_exprs, params, dtype):
    """isl Aff (quasi-affine, over set dims and params) -> tepad expression."""
    den = _val(aff.get_denominator_val())
    terms = []
    for kind, seq in ((_DT.param, params), (_DT.in_, dim_exprs)):
        for k in range(aff.dim(kind)):
            c = aff.get_coefficient_val(kind, k) * den
            c = _val(c)
            if c:
                x = _param_expr(aff, k, params) if kind == _DT.param else seq[k]
                terms.append((c, x))
    for k in range(aff.dim(_DT.div)):
        c = _val(aff.get_coefficient_val(_DT.div, k) * den)
        if c:
            q = aff.get_div(k)
            qd = q.get_denominator_val()
            inner = _aff_to_expr(q.scale_val(qd), dim_exprs, params, dtype)
            terms.append((c, E.floordiv(inner, E.IntImm(_val(qd), dtype))))
    cst = _val(aff.get_constant_val() * den)
    e = _lin_to_expr(terms, cst, dtype)
    return e if den == 1 else E.floordiv(e, E.IntImm(den, dtype))


def _param_expr(obj, k, params):
    name = obj.get_dim_name(_DT.param, k)
    return params[name]


def _bset_to_expr(bs, dim_exprs, params, dtype):
    conds = []
    nd = bs.dim(_DT.set)
    divs = []
    for k in range(bs.dim(_DT.div)):
        d = bs.get_div(k)               # rational aff over the set space
        dd = d.get_denominator_val()
        divs.append(E.floordiv(_aff_to_expr(d.scale_val(dd), dim_exprs, params, dtype),
                               E.IntImm(_val(dd), dtype)))
    for c in bs.get_constraints():
        terms = []
        for k in range(c.dim(_DT.param) if hasattr(c, "dim") else bs.dim(_DT.param)):
            v = _val(c.get_coefficient_val(_DT.param, k))
            if v:
                terms.append((v, params[bs.get_dim_name(_DT.param, k)]))
        for k in range(nd):
            v = _val(c.get_coefficient_val(_DT.set, k))
            if v:
                terms.append((v, dim_exprs[k]))
        for k in range(len(divs)):
            v = _val(c.get_coefficient_val(_DT.div, k))
            if v:
                terms.append((v, divs[k]))
        cst = _val(c.get_constant_val())
        conds.append(_constraint_expr(terms, cst, c.is_equality(), dtype))
    out = E.IntImm(1, "bool")
    for x in conds:
        out = E.logical_and(out, x)
    return out


def _constraint_expr(terms, cst, is_eq, dtype):
    """sum(c*x) + cst (== | >=) 0 written readably: positive side vs negative side."""
    pos = [(c, x) for c, x in terms if c > 0]
    neg = [(-c, x) for c, x in terms if c < 0]
    if not pos and neg:        # flip so that the left side has positive coefficients
        pos, neg, cst = neg, [], -cst
        lhs = _lin_to_expr(pos, 0, dtype)
        rhs = E.IntImm(-cst, dtype) if not neg else _lin_to_expr(neg, -cst, dtype)
        return E.EQ(lhs, rhs) if is_eq else E._cmp(E.LE, lhs, rhs)
    lhs = _lin_to_expr(pos, 0, dtype)
    rhs = _lin_to_expr(neg, -cst, dtype)
    return E._cmp(E.EQ, lhs, rhs) if is_eq else E._cmp(E.GE, lhs, rhs)


def _set_to_expr(s, dim_exprs, params, dtype):
    s = s.coalesce().compute_divs() if hasattr(s, "compute_divs") else s
    out = E.IntImm(0, "bool")
    for bs in s.get_basic_sets():
        out = E.logical_or(out, _bset_to_expr(bs, dim_exprs, params, dtype))
    return out


def _pw_to_expr(pa, dim_exprs, params, dtype):
    pieces = pa.get_pieces()
    if not pieces:
        raise TepadError("empty piecewise expression (the domain is empty)")
    out = None
    for st, aff in reversed(pieces):
        e = _aff_to_expr(aff, dim_exprs, params, dtype)
        if out is None:
            out = e
        else:
            out = E.select(_set_to_expr(st, dim_exprs, params, dtype), e, out)
    return out


_AST_BIN = None


def _ast_to_expr(e, params, dtype):
    OP = isl.ast_expr_op_type
    t = e.get_type()
    if t == isl.ast_expr_type.int:
        return E.IntImm(_val(e.get_val()), dtype)
    if t == isl.ast_expr_type.id:
        return params[e.get_id().get_name()]
    op = e.get_op_type()
    args = [_ast_to_expr(e.get_op_arg(k), params, dtype) for k in range(e.get_op_n_arg())]
    if op == OP.minus:
        return E.neg(args[0])
    if op in (OP.select, OP.cond):
        return E.select(*args)
    table = {OP.add: E.add, OP.sub: E.sub, OP.mul: E.mul, OP.div: E.floordiv,
             OP.fdiv_q: E.floordiv, OP.pdiv_q: E.floordiv, OP.pdiv_r: E.floormod,
             OP.zdiv_r: E.floormod, OP.min: E.min_expr, OP.max: E.max_expr,
             OP.le: lambda a, b: E._cmp(E.LE, a, b), OP.lt: lambda a, b: E._cmp(E.LT, a, b),
             OP.ge: lambda a, b: E._cmp(E.GE, a, b), OP.gt: lambda a, b: E._cmp(E.GT, a, b),
             OP.eq: lambda a, b: E._cmp(E.EQ, a, b), OP.and_: E.logical_and,
             OP.and_then: E.logical_and, OP.or_: E.logical_or, OP.or_else: E.logical_or}
    if op not in table:
        raise _NotAffine(f"isl op {op}")
    out = args[0]
    for a in args[1:]:
        out = table[op](out, a)
    return out


def _param_pw_to_expr(pa, ctx, params, dtype):
    """Piecewise affine over parameters only -> expression with min/max (isl AST build)."""
    if pa.n_piece() == 1:
        return _pw_to_expr(pa, [], params, dtype)
    try:
        isl.DEFAULT_CONTEXT.set_ast_build_detect_min_max(1)
        build = isl.AstBuild.from_context(ctx)
        return _ast_to_expr(build.expr_from_pw_aff(pa), params, dtype)
    except Exception:
        return _pw_to_expr(pa, [], params, dtype)


# ----------------------------------------------------------------------------------------------
# IndexMap
# ----------------------------------------------------------------------------------------------

class IndexMap:
    """``lambda *initial_indices: final_indices``; see the module docstring."""

    def __init__(self, initial_indices, final_indices):
        self.initial_indices = list(initial_indices)
        self.final_indices = [E.convert(x) for x in final_indices]
        for v in self.initial_indices:
            if not isinstance(v, E.Var):
                raise TepadError(f"IndexMap initial indices must be Vars, got {v!r}")
        self._final_vars = None

    # --- construction ------------------------------------------------------------------------
    @staticmethod
    def from_func(fn, ndim=None, index_dtype="int32"):
        """``(IndexMap, axis_separators)`` from a Python callable (TVM's from_func_with_separators).

        Positional params become Vars in order, ``*args`` expands to the remaining dimensions,
        keyword-only params are appended last. ``AXIS_SEPARATOR`` entries in the returned list
        become axis separators (positions counted in output indices).
        """
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):
            raise TepadError(f"layout mapping {fn!r} is not an inspectable callable") from None
        pos, kwonly, var_name = [], [], None
        for p in sig.parameters.values():
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                pos.append(p.name)
            elif p.kind == p.VAR_POSITIONAL:
                var_name = p.name
            elif p.kind == p.KEYWORD_ONLY:
                kwonly.append(p.name)
        if ndim is None:
            if var_name is not None:
                raise TepadError("IndexMap.from_func: a *args mapping needs ndim")
            ndim = len(pos) + len(kwonly)
        n_var = ndim - len(pos) - len(kwonly)
        if n_var < 0 or (n_var > 0 and var_name is None):
            raise TepadError(
                f"layout mapping takes {len(pos) + len(kwonly)} indices"
                f"{' (+ *args)' if var_name else ''} but the tensor has {ndim} dimensions")
        pos_vars = [E.Var(n, index_dtype) for n in pos]
        var_vars = [E.Var(f"{var_name}_{k}", index_dtype) for k in range(n_var)]
        kw_vars = {n: E.Var(n, index_dtype) for n in kwonly}
        out = fn(*pos_vars, *var_vars, **kw_vars)
        init = pos_vars + var_vars + list(kw_vars.values())
        if not isinstance(out, (list, tuple)):
            out = [out]
        finals, seps = [], []
        for x in out:
            if x is AXIS_SEPARATOR or (type(x).__name__ == type(AXIS_SEPARATOR).__name__
                                       and x == AXIS_SEPARATOR):
                seps.append(len(finals))
            else:
                try:
                    finals.append(E.convert(x))
                except TypeError:
                    raise TepadError(f"layout mapping returned {x!r}, which is not an index "
                                     "expression") from None
        for f in finals:
            if not E.dt.is_int(f.dtype):
                raise TepadError(f"layout mapping output {f!r} is not an integer expression")
        return IndexMap(init, finals), seps

    # --- basic API ---------------------------------------------------------------------------
    @property
    def ndim_in(self):
        return len(self.initial_indices)

    @property
    def ndim_out(self):
        return len(self.final_indices)

    def final_vars(self):
        """Fresh Vars (one per output index), the same objects on every call."""
        if self._final_vars is None:
            names = _default_final_names(self)
            dtype = self.final_indices[0].dtype if self.final_indices else "int32"
            self._final_vars = [E.Var(n, dtype) for n in names]
        return list(self._final_vars)

    def __str__(self):
        args = ", ".join(v.name for v in self.initial_indices)
        outs = ", ".join(expr_to_str(x) for x in self.final_indices)
        return f"lambda {args}: [{outs}]"

    __repr__ = __str__

    def _check_n(self, items, what):
        if len(items) != self.ndim_in:
            raise TepadError(f"index map `{self}` takes {self.ndim_in} indices, got {len(items)} "
                             f"{what}")

    def map_indices(self, indices, analyzer=None):
        """Final indices for the given logical indices (substituted, then simplified)."""
        self._check_n(indices, "indices")
        ana = analyzer if analyzer is not None else Analyzer()
        vmap = {}
        for v, x in zip(self.initial_indices, indices):
            x = E.convert(x)
            if x.dtype != v.dtype and E.dt.lanes(x.dtype) == 1:
                x = E.cast(v.dtype, x)
            vmap[v] = x
        return [ana.simplify(substitute(f, vmap)) for f in self.final_indices]

    def compose(self, other: "IndexMap") -> "IndexMap":
        """``other ∘ self``: apply self, then other."""
        if other.ndim_in != self.ndim_out:
            raise TepadError(f"cannot compose `{self}` ({self.ndim_out} outputs) with "
                             f"`{other}` ({other.ndim_in} inputs)")
        return IndexMap(self.initial_indices, other.map_indices(self.final_indices))

    # --- ISL helpers -------------------------------------------------------------------------
    def _isl_setup(self, shape_or_ranges):
        """Names and strings for the domain (list of (min, extent)) and the map."""
        if isl is None:
            raise _NotAffine("islpy is not available")
        names = {}
        for k, v in enumerate(self.initial_indices):
            names[v] = f"i{k}"
        params = {}
        free = set()
        for f in self.final_indices:
            free |= collect_vars(f)
        for mn, ext in shape_or_ranges:
            free |= collect_vars(mn) | collect_vars(ext)
        free -= set(self.initial_indices)
        for k, v in enumerate(sorted(free, key=lambda v: v.name)):
            pn = f"p{k}_{''.join(ch for ch in v.name if ch.isalnum())}"
            names[v] = pn
            params[pn] = v
        ins = ", ".join(f"i{k}" for k in range(self.ndim_in))
        outs = ", ".join(_isl_str(f, names) for f in self.final_indices)
        pstr = "[" + ", ".join(params) + "] -> " if params else ""
        cons = []
        ctx = []
        for k, (mn, ext) in enumerate(shape_or_ranges):
            iv = E.Var(f"i{k}", mn.dtype)
            nm = dict(names)
            nm[iv] = f"i{k}"
            cons.append(isl_constraint(mn, "<=", iv, nm))
            cons.append(isl_constraint(iv, "<", E.add(mn, ext), nm))
            if not isinstance(ext, E.IntImm):
                ctx.append(isl_constraint(ext, ">=", E.IntImm(1, ext.dtype), names))
        dom = isl.Set(f"{pstr}{{ L[{ins}] : {' and '.join(cons) or 'true'} }}")
        mp = isl.Map(f"{pstr}{{ L[{ins}] -> T[{outs}] }}")
        context = isl.Set(f"{pstr}{{ : {' and '.join(ctx) or 'true'} }}")
        for pn, v in params.items():
            if isinstance(v, E.SizeVar):
                context = context & isl.Set(f"{pstr}{{ : {pn} >= 0 }}")
        return dom, mp, context, params

    @staticmethod
    def _as_ranges(shape):
        out = []
        for s in shape:
            if isinstance(s, E.Range):
                out.append((s.min, s.extent))
            else:
                out.append((E.IntImm(0, E.convert(s).dtype), E.convert(s)))
        return out

    def _image(self, ranges):
        dom, mp, ctx, params = self._isl_setup(ranges)
        img = dom.apply(mp).coalesce()
        return dom, mp, ctx, params, img

    @staticmethod
    def _box_of(img):
        """{ T[o] : 0 <= o_k <= max over img of o_k } (per-dimension upper bounds from img)."""
        n = img.dim(_DT.set)
        box = None
        for k in range(n):
            o = ", ".join(f"o{j}" for j in range(n))
            q = ", ".join(f"q{j}" for j in range(n))
            rel = isl.Map(f"{{ T[{q}] -> T[{o}] : 0 <= o{k} <= q{k} }}")
            part = img.apply(rel)
            box = part if box is None else box & part
        return box.coalesce()

    # --- shapes ------------------------------------------------------------------------------
    def map_ranges(self, ranges, analyzer=None):
        """Ranges of the transformed indices for logical indices in ``ranges`` (exact box)."""
        ranges = [r if isinstance(r, E.Range) else E.Range.from_min_extent(*r) for r in ranges]
        self._check_n(ranges, "ranges")
        rr = [(r.min, r.extent) for r in ranges]
        dtype = ranges[0].extent.dtype if ranges else "int32"
        try:
            dom, mp, ctx, params, img = self._image(rr)
            out = []
            for k in range(self.ndim_out):
                lo = img.dim_min(k).gist_params(ctx).coalesce()
                hi = img.dim_max(k).gist_params(ctx).coalesce()
                lo_e = _param_pw_to_expr(lo, ctx, params, dtype)
                hi_e = _param_pw_to_expr(hi, ctx, params, dtype)
                ana = analyzer or Analyzer()
                out.append(E.Range.from_min_extent(
                    ana.simplify(lo_e), ana.simplify(E.add(E.sub(hi_e, lo_e), 1))))
            return out
        except _NotAffine:
            ana = analyzer or Analyzer()
            dom_map = {v: r for v, r in zip(self.initial_indices, ranges)}
            out = []
            for f in self.final_indices:
                s = ana.int_set(f, dom_map)
                if s.is_nothing() or not s.is_bounded() if hasattr(s, "is_bounded") else False:
                    raise TepadError(f"cannot bound output `{f}` of index map `{self}`")
                out.append(E.Range.from_min_extent(
                    ana.simplify(s.min_value),
                    ana.simplify(E.add(E.sub(s.max_value, s.min_value), 1))))
            return out

    def map_shape(self, shape, analyzer=None):
        """Shape of the transformed buffer: index k in ``[0, max_k + 1)``."""
        shape = [E.convert(s) for s in shape]
        self._check_n(shape, "dimensions")
        rngs = self.map_ranges([E.Range.from_min_extent(E.IntImm(0, s.dtype), s)
                                for s in shape], analyzer)
        ana = analyzer or Analyzer()
        out = []
        for k, r in enumerate(rngs):
            if ana.can_prove(r.min < 0):
                raise TepadError(f"index map `{self}` produces negative values for output {k} "
                                 f"on shape {list(shape)}: add an offset")
            out.append(ana.simplify(E.add(r.min, r.extent)))
        return out

    # --- padding / inverse / injectivity -----------------------------------------------------
    def _exact(self, shape, final_shape=None):
        shape = [E.convert(s) for s in shape]
        self._check_n(shape, "dimensions")
        try:
            dom, mp, ctx, params, img = self._image(self._as_ranges(shape))
        except _NotAffine as e:
            raise TepadError(f"index map `{self}` is not quasi-affine (`{e}`): cannot analyse "
                             "padding, injectivity or the inverse exactly") from None
        if final_shape is None:
            box = self._box_of(img)
        else:
            fs = [E.convert(x) for x in final_shape]
            n = self.ndim_out
            names = {v: k for k, v in params.items()}
            names = {v: k for k, v in names.items()}
            nm = {params[k]: k for k in params}
            try:
                ovs = [E.Var(f"o{k}", fs[k].dtype) for k in range(n)]
                nmo = dict(nm)
                nmo.update({v: f"o{k}" for k, v in enumerate(ovs)})
                cons = " and ".join(f"0 <= o{k} and " + isl_constraint(ovs[k], "<", fs[k], nmo)
                                    for k in range(n))
            except _NotAffine as e:
                raise TepadError(f"final shape {fs} is not affine") from None
            pstr = "[" + ", ".join(params) + "] -> " if params else ""
            box = isl.Set(f"{pstr}{{ T[{', '.join(f'o{k}' for k in range(n))}] : "
                          f"{cons or 'true'} }}")
        return dom, mp, ctx, params, img, box

    def padding_predicate(self, shape, final_shape=None):
        """Bool expr over ``final_vars()``: true exactly at padding points of the box.

        The box is ``map_shape(shape)`` (or ``final_shape`` when several maps were chained);
        the predicate is simplified relative to the box (the loops over the transformed shape
        provide the box bounds)."""
        dom, mp, ctx, params, img, box = self._exact(shape, final_shape)
        pad = (box - img).detect_equalities().coalesce()
        if pad.is_empty():
            return E.IntImm(0, "bool")
        pad = pad.gist(box).gist_params(ctx).coalesce()
        dtype = self.final_indices[0].dtype if self.final_indices else "int32"
        return Analyzer().simplify(_set_to_expr(pad, self.final_vars(), params, dtype))

    def has_padding(self, shape) -> bool:
        dom, mp, ctx, params, img, box = self._exact(shape)
        return not (box - img).intersect_params(ctx).is_empty()

    def is_injective(self, shape) -> bool:
        """True when distinct logical indices in ``shape`` map to distinct final indices."""
        dom, mp, ctx, params, img, box = self._exact(shape)
        return mp.intersect_domain(dom).intersect_params(ctx).is_injective()

    def inverse(self, shape) -> "IndexMap":
        """IndexMap from ``final_vars()`` back to the logical indices, valid on the image.

        The common split/reorder maps give the affine inverse (``io*4 + ii``); maps whose
        inverse is not affine give a piecewise expression (``select``)."""
        dom, mp, ctx, params, img, box = self._exact(shape)
        m = mp.intersect_domain(dom).intersect_params(ctx)
        if not m.is_injective():
            raise TepadError(f"index map `{self}` is not injective on shape {list(shape)}: "
                             "two logical elements would share one storage location")
        rev = m.reverse()
        fv = self.final_vars()
        dtype = fv[0].dtype if fv else "int32"
        outs = None
        # Prefer the inverse of the map itself (no domain): it stays right on padding points,
        # which it sends outside the logical shape, so a range check of the result finds them.
        # The image's affine hull can be degenerate (a shape of extent 1 fixes i = 0, and the
        # "inverse" would send the padding point (i + 1) % 2 == 0 to i = 0 as well).
        free = mp.reverse()
        if free.is_single_valued() and box.is_subset(free.domain()):
            pma = isl.PwMultiAff.from_map(free)
            if pma.n_piece() == 1:
                outs = [_pw_to_expr(pma.get_pw_aff(k), fv, params, dtype)
                        for k in range(self.ndim_in)]
        hull = isl.Map(rev.affine_hull())
        if outs is None and hull.is_single_valued() and hull.intersect_domain(img) == rev:
            pma = isl.PwMultiAff.from_map(hull)
            if pma.n_piece() == 1:
                outs = [_pw_to_expr(pma.get_pw_aff(k), fv, params, dtype)
                        for k in range(self.ndim_in)]
        if outs is None:
            pma = isl.PwMultiAff.from_map(rev)
            outs = []
            for k in range(self.ndim_in):
                pa = pma.get_pw_aff(k).gist(img).coalesce()
                outs.append(_pw_to_expr(pa, fv, params, dtype))
        ana = Analyzer()
        return IndexMap(fv, [ana.simplify(o) for o in outs])


def _default_final_names(m: IndexMap):
    """Readable names for the transformed axes: io/ii for a split of i, else axis<k>."""
    names = []
    for k, f in enumerate(m.final_indices):
        nm = None
        if isinstance(f, E.Var):
            nm = f.name
        elif isinstance(f, E.FloorDiv) and isinstance(f.a, E.Var):
            nm = f.a.name + "o"
        elif isinstance(f, E.FloorMod) and isinstance(f.a, E.Var):
            nm = f.a.name + "i"
        if nm is None or nm in names:
            nm = f"axis{k}"
        names.append(nm)
    return names


__all__ = ["IndexMap"]
