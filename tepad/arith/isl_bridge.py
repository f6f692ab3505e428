"""The one bridge between tir expressions and ISL (islpy); no other tepad module imports islpy.

TIR -> ISL: ``IslWriter`` writes quasi-affine tir expressions and integer conditions as ISL
syntax (``+ - *const``, ``//`` and ``%`` by positive constants, ``min``/``max``,
``if_then_else`` through existentially quantified helper names, ``Select`` with branches that
differ by a constant). Anything else raises ``NotAffine``. Vars are named either by a fixed
``{Var: name}`` dict (an unknown Var is ``NotAffine``) or by a ``Names`` registry (every Var
gets a fresh unique name on first use).

ISL -> TIR: affs, piecewise affs and sets are read back structurally (``aff_to_expr``,
``pw_aff_to_expr``, ``set_to_cond``), or through isl's AST builder, which finds ``min``/
``max`` forms (``ast_to_expr``, ``pw_aff_to_expr_ast``, ``set_to_cond_ast``). ISL names are
resolved by a ``{name: expr}`` dict or a ``Names`` registry.

ISL objects themselves are used through the re-exported ``isl`` module (``isl.Set``,
``isl.PwAff``, ...), ``dim_type`` and ``CTX`` (the default context, shared by every caller).
"""
from __future__ import annotations

import contextlib

import itertools
import re

from .._lazy import lazy_attr, lazy_module
from ..errors import TepadError
from ..tir import expr as E
from ..tir import op as tirop
from ..tir.functor import Mutator, post_order_visit
from .analyzer import Analyzer



def _on_load(mod):
    """Runs once, when islpy is first used (``import tepad`` does not load it)."""
    # AST expressions of piecewise bounds use min/max instead of nested selects where they can
    mod.DEFAULT_CONTEXT.set_ast_build_detect_min_max(1)
    op = mod.ast_expr_op_type
    _BINARY.update({
        op.add: E.add, op.sub: E.sub, op.mul: E.mul,
        op.div: E.floordiv, op.fdiv_q: E.floordiv, op.pdiv_q: E.floordiv,
        op.pdiv_r: E.floormod, op.zdiv_r: E.floormod,
        op.min: E.min_expr, op.max: E.max_expr,
        op.le: lambda a, b: E._cmp(E.LE, a, b), op.lt: lambda a, b: E._cmp(E.LT, a, b),
        op.ge: lambda a, b: E._cmp(E.GE, a, b), op.gt: lambda a, b: E._cmp(E.GT, a, b),
        op.eq: lambda a, b: E._cmp(E.EQ, a, b),
        op.and_: E.logical_and, op.and_then: E.logical_and,
        op.or_: E.logical_or, op.or_else: E.logical_or,
    })


# islpy, imported on first use (``tepad._lazy``): ``import tepad`` stays cheap
isl = lazy_module("islpy", _on_load)
dim_type = lazy_attr(isl, "dim_type")
CTX = lazy_attr(isl, "DEFAULT_CONTEXT")


class NotAffine(Exception):
    """A tir expression or condition that ISL cannot represent (not quasi-affine)."""


@contextlib.contextmanager
def operation_budget(ops: int):
    """ISL calls inside the block may do at most about ``ops`` elementary operations (ISL's
    own count: ``isl_ctx_set_max_operations``); past it the call fails with ``isl.Error``,
    which the caller treats as "no exact answer". Blocks do not nest; the limit is lifted
    afterwards."""
    ctx = isl.DEFAULT_CONTEXT
    ctx.set_max_operations(ops)
    ctx.reset_operations()
    try:
        yield
    finally:
        ctx.set_max_operations(0)
        ctx.reset_operations()


# ---------------------------------------------------------------------------------------------
# names
# ---------------------------------------------------------------------------------------------

class Names:
    """Unique ISL identifiers for tir Vars (Vars are told apart by identity).

    ``name(v)`` is stable for one registry and never shared by two Vars; ``vars`` maps each
    name back to its Var. ``exprs`` maps further ISL names (parameters that abbreviate whole
    tir expressions) to the expression; ``resolve`` looks a name up in both."""

    def __init__(self):
        self.by_id = {}
        self.vars = {}
        self.exprs = {}

    def name(self, var) -> str:
        """The ISL name of ``var`` (made on first use: the Var's name, made ISL-safe, plus a
        counter)."""
        n = self.by_id.get(id(var))
        if n is None:
            base = re.sub(r"\W", "_", var.name) or "v"
            if not base[0].isalpha():
                base = "v" + base
            n = f"{base}_{len(self.by_id)}"
            self.by_id[id(var)] = n
            self.vars[n] = var
        return n

    def resolve(self, name: str):
        """The Var or abbreviated expression named ``name``, None when unknown."""
        v = self.vars.get(name)
        return v if v is not None else self.exprs.get(name)


def _resolver(names):
    """``name -> expr or None`` for a ``Names`` registry or a ``{name: expr}`` dict."""
    return names.resolve if isinstance(names, Names) else names.get


# ---------------------------------------------------------------------------------------------
# tir -> ISL
# ---------------------------------------------------------------------------------------------

_AUX = itertools.count()     # helper names of if_then_else values, unique per process


def _const(e):
    if isinstance(e, E.IntImm):
        return e.value
    if isinstance(e, E.Cast):
        return _const(e.value)
    return None


def _is_ite(e):
    return isinstance(e, E.Call) and e.op == "tir.if_then_else" and len(e.args) == 3


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
    branches (the conditions are tir booleans that hold for that entry)."""
    sel = _first_select(e)
    if sel is None:
        return [((), e)]
    out = []
    for cond, val in ((sel.condition, sel.true_value), (E.Not(sel.condition), sel.false_value)):
        for cs, x in _select_pieces(_replace_node(e, sel, val), limit):
            out.append(((cond,) + cs, x))
            if len(out) > limit:
                raise NotAffine(e)
    return out


def _const_difference(a, b):
    """``a - b`` when it is a constant, else None."""
    d = Analyzer().simplify(E.sub(a, b))
    return int(d.value) if isinstance(d, E.IntImm) else None


_CMP = {E.LT: "<", E.LE: "<=", E.GT: ">", E.GE: ">=", E.EQ: "=", E.NE: "!="}
_NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "=": "!=", "!=": "="}


class IslWriter:
    """tir expressions and conditions -> ISL syntax, for one ISL formula.

    ``names``: a ``Names`` registry (any Var gets a name) or a ``{Var: name}`` dict (a Var not
    in it raises ``NotAffine``). ``env``: ``{Var: int}`` values written as constants.
    ``abstraction``: an object whose ``name_of(expr)`` returns an ISL name standing for a
    whole (non-Var) sub-expression, or None to write it out. ``select_indicators``: write a
    ``Select`` whose branches differ by a constant as ``b + d * [cond]`` (otherwise a Select in
    ``expr`` is ``NotAffine``; ``constraint`` splits Selects into disjuncts either way).

    Every name written is added to ``used``. ``if_then_else`` values become helper names that
    ``wrap`` quantifies existentially: pass every formula built with this writer through
    ``wrap`` (or ``params_set(..., writer=...)``) before ISL parses it.
    """

    def __init__(self, names, env=None, abstraction=None, select_indicators=True):
        self.names = names
        self.env = env or {}
        self.abstraction = abstraction
        self.select_indicators = select_indicators
        self.used = set()
        self.aux = []          # (name, definition) of if_then_else values

    def wrap(self, formula: str) -> str:
        """``formula`` with the if_then_else helper names existentially quantified."""
        if not self.aux:
            return formula
        names = ", ".join(n for n, _ in self.aux)
        defs = " and ".join(d for _, d in self.aux)
        return f"exists ({names} : {defs} and {formula})"

    def _var(self, v) -> str:
        if isinstance(self.names, Names):
            n = self.names.name(v)
        else:
            n = self.names.get(v)
            if n is None:
                raise NotAffine(v)
        self.used.add(n)
        return n

    def expr(self, e) -> str:
        """ISL text of the integer expression ``e``; raise ``NotAffine`` when it is not
        quasi-affine."""
        if isinstance(e, E.IntImm):
            return f"({e.value})" if e.value < 0 else str(e.value)
        if self.abstraction is not None and not isinstance(e, E.Var):
            n = self.abstraction.name_of(e)
            if n is not None:
                self.used.add(n)
                return n
        if isinstance(e, E.Var):
            if e in self.env:
                return str(int(self.env[e]))
            return self._var(e)
        if isinstance(e, E.Cast) and E.dt.is_int(e.dtype) and E.dt.is_int(e.value.dtype):
            return self.expr(e.value)
        if isinstance(e, E.Add):
            return f"({self.expr(e.a)} + {self.expr(e.b)})"
        if isinstance(e, E.Sub):
            return f"({self.expr(e.a)} - {self.expr(e.b)})"
        if isinstance(e, E.Mul):
            return self._mul(e)
        if isinstance(e, (E.FloorDiv, E.FloorMod)):
            return self._floor_div_mod(e)
        if isinstance(e, (E.Min, E.Max)):
            f = "min" if isinstance(e, E.Min) else "max"
            return f"{f}({self.expr(e.a)}, {self.expr(e.b)})"
        if _is_ite(e):
            cnd = self.cond(e.args[0])
            a, b = self.expr(e.args[1]), self.expr(e.args[2])
            n = f"sel_{next(_AUX)}"
            self.aux.append((n, f"(({cnd} and {n} = {a}) or ((not {cnd}) and {n} = {b}))"))
            return n
        if isinstance(e, E.Select) and self.select_indicators:
            # b + (a - b) * [cond] is quasi-affine when a - b is a constant (exact shapes of
            # symbolic sizes carry selects such as Select(n == 1, 1, 2))
            diff = _const_difference(e.true_value, e.false_value)
            if diff is not None:
                b = self.expr(e.false_value)
                return f"({b} + {diff} * {self._indicator(e.condition)})"
        raise NotAffine(f"not quasi-affine: {type(e).__name__} {e!r}")

    def _mul(self, e) -> str:
        ca, cb = _const(e.a), _const(e.b)
        if ca is not None and cb is not None:
            return self.expr(E.IntImm(ca * cb, "int64"))
        if ca is not None:
            return f"({ca}*({self.expr(e.b)}))"
        if cb is not None:
            return f"({cb}*({self.expr(e.a)}))"
        for x, y in ((e.a, e.b), (e.b, e.a)):       # x * ite(c, p, q) -> ite(c, x*p, x*q)
            if _is_ite(y):
                c, p, q = y.args
                return self.expr(E.Call(e.dtype, "tir.if_then_else", [c, x * p, x * q]))
        raise NotAffine(f"product of two non-constants: {e!r}")

    def _floor_div_mod(self, e) -> str:
        c = _const(e.b)
        if c is None and _is_ite(e.b):               # a // ite(c, p, q) -> ite(c, a//p, a//q)
            cnd, p, q = e.b.args
            f = E.floordiv if isinstance(e, E.FloorDiv) else E.floormod
            return self.expr(E.Call(e.dtype, "tir.if_then_else", [cnd, f(e.a, p), f(e.a, q)]))
        if c is None or c <= 0:
            raise NotAffine(f"{type(e).__name__} by a non-constant or non-positive: {e!r}")
        a = self.expr(e.a)
        return f"floor(({a})/{c})" if isinstance(e, E.FloorDiv) else f"(({a}) mod {c})"

    def cond(self, c, negate=False) -> str:
        """ISL text of the integer condition ``c`` (of ``not c`` with ``negate``; negations
        are pushed down to the comparisons); raise ``NotAffine`` otherwise."""
        if isinstance(c, E.IntImm):
            return "true" if bool(c.value) != negate else "false"
        if isinstance(c, E.Not):
            return self.cond(c.a, not negate)
        if isinstance(c, (E.And, E.Or)):
            conj = isinstance(c, E.And) != negate
            a, b = self.cond(c.a, negate), self.cond(c.b, negate)
            return f"({a} {'and' if conj else 'or'} {b})"
        if isinstance(c, E.Call) and c.op in ("tir.likely", "likely") and c.args:
            return self.cond(c.args[0], negate)
        if isinstance(c, E.CmpOp) and E.dt.is_int(c.a.dtype):
            op = _CMP[type(c)]
            if negate:
                op = _NEGATED[op]
            return f"({self.expr(c.a)} {op} {self.expr(c.b)})"
        raise NotAffine(f"condition not representable: {c!r}")

    def constraint(self, a, op: str, b) -> str:
        """ISL text of ``a op b`` (op one of ``< <= = >= > !=``). Selects in ``a``/``b``
        become one disjunct per combination of branches (at most 16, else ``NotAffine``)."""
        if _first_select(a) is None and _first_select(b) is None:
            return f"{self.expr(a)} {op} {self.expr(b)}"
        parts = []
        for ca, xa in _select_pieces(a):
            for cb, xb in _select_pieces(b):
                conds = [self.cond(c) for c in ca + cb]
                parts.append("(" + " and ".join(conds + [f"{self.expr(xa)} {op} "
                                                         f"{self.expr(xb)}"]) + ")")
        return "(" + " or ".join(parts) + ")"

    def _indicator(self, c) -> str:
        """1 where the integer condition ``c`` holds, 0 elsewhere, as quasi-affine ISL text."""
        if isinstance(c, E.IntImm):
            return "1" if c.value else "0"
        if isinstance(c, E.Not):
            return f"(1 - {self._indicator(c.a)})"
        if isinstance(c, (E.And, E.Or)):
            f = "min" if isinstance(c, E.And) else "max"
            return f"{f}({self._indicator(c.a)}, {self._indicator(c.b)})"
        if isinstance(c, E.CmpOp) and E.dt.is_int(c.a.dtype):
            a, b = self.expr(c.a), self.expr(c.b)

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
        raise NotAffine(c)


def params_set(constraints, names_used, extra=(), writer=None) -> "isl.Set":
    """Parameter-only set ``[names] -> { : c1 and c2 ... }`` over the sorted union of
    ``names_used`` and ``extra`` (``writer``: the ``IslWriter`` whose if_then_else helpers
    the constraints use; they are quantified)."""
    ps = sorted(set(names_used) | set(extra))
    body = " and ".join(constraints) if constraints else "true"
    if writer is not None:
        body = writer.wrap(body)
    return isl.Set(f"[{', '.join(ps)}] -> {{ : {body} }}")


def project_params_except(st: "isl.Set", keep) -> "isl.Set":
    """``st`` with every parameter whose name is not in ``keep`` projected out."""
    for k in reversed(range(st.dim(dim_type.param))):
        if st.get_dim_name(dim_type.param, k) not in keep:
            st = st.project_out(dim_type.param, k, 1)
    return st


def params_to_dims(st: "isl.Set") -> "isl.Set":
    """``st`` with every parameter moved in front of the set dims (for counting points)."""
    n = st.dim(dim_type.param)
    return st.move_dims(dim_type.set, 0, dim_type.param, 0, n) if n else st


def plus_constant(pa: "isl.PwAff", k: int) -> "isl.PwAff":
    """``pa + k`` without isl building ``k`` on pa's (possibly complex) domain."""
    return pa.add_constant_val(isl.Val.int_from_si(isl.DEFAULT_CONTEXT, k)) if k else pa


# ---------------------------------------------------------------------------------------------
# ISL -> tir, structurally
# ---------------------------------------------------------------------------------------------

def _val(v) -> int:
    return int(v.to_python())


def _lin_to_expr(terms, const, dtype):
    """sum(c * x) + const as a tir expression (positive terms first)."""
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


def _param(obj, k, resolve):
    name = obj.get_dim_name(dim_type.param, k)
    v = resolve(name)
    if v is None:
        raise TepadError(f"ISL parameter {name} names no tir expression")
    return v


def aff_to_expr(aff, dims, names, dtype):
    """The quasi-affine ``isl.Aff`` (over set dims and parameters) as a tir expression equal to
    it everywhere: set dim ``k`` is ``dims[k]``, parameters are resolved through ``names`` (a
    ``Names`` registry or a ``{name: expr}`` dict); divisions become floordiv."""
    resolve = _resolver(names)
    den = _val(aff.get_denominator_val())
    terms = []
    for kind in (dim_type.param, dim_type.in_):
        for k in range(aff.dim(kind)):
            c = _val(aff.get_coefficient_val(kind, k) * den)
            if c:
                terms.append((c, _param(aff, k, resolve) if kind == dim_type.param else dims[k]))
    for k in range(aff.dim(dim_type.div)):
        c = _val(aff.get_coefficient_val(dim_type.div, k) * den)
        if c:
            q = aff.get_div(k)
            qd = q.get_denominator_val()
            inner = aff_to_expr(q.scale_val(qd), dims, names, dtype)
            terms.append((c, E.floordiv(inner, E.IntImm(_val(qd), dtype))))
    cst = _val(aff.get_constant_val() * den)
    e = _lin_to_expr(terms, cst, dtype)
    return e if den == 1 else E.floordiv(e, E.IntImm(den, dtype))


def _constraint_expr(terms, cst, is_eq, dtype):
    """sum(c*x) + cst (== | >=) 0 written readably: positive side vs negative side."""
    pos = [(c, x) for c, x in terms if c > 0]
    neg = [(-c, x) for c, x in terms if c < 0]
    if not pos and neg:        # flip so that the left side has positive coefficients
        pos, neg, cst = neg, [], -cst
        lhs = _lin_to_expr(pos, 0, dtype)
        rhs = E.IntImm(-cst, dtype)
        return E.EQ(lhs, rhs) if is_eq else E._cmp(E.LE, lhs, rhs)
    lhs = _lin_to_expr(pos, 0, dtype)
    rhs = _lin_to_expr(neg, -cst, dtype)
    return E._cmp(E.EQ, lhs, rhs) if is_eq else E._cmp(E.GE, lhs, rhs)


def _basic_set_to_cond(bs, dims, names, dtype):
    resolve = _resolver(names)
    divs = []
    for k in range(bs.dim(dim_type.div)):
        d = bs.get_div(k)               # rational aff over the set space
        dd = d.get_denominator_val()
        divs.append(E.floordiv(aff_to_expr(d.scale_val(dd), dims, names, dtype),
                               E.IntImm(_val(dd), dtype)))
    out = E.IntImm(1, "bool")
    for c in bs.get_constraints():
        terms = []
        for k in range(c.dim(dim_type.param)):
            v = _val(c.get_coefficient_val(dim_type.param, k))
            if v:
                terms.append((v, _param(bs, k, resolve)))
        for k in range(bs.dim(dim_type.set)):
            v = _val(c.get_coefficient_val(dim_type.set, k))
            if v:
                terms.append((v, dims[k]))
        for k in range(len(divs)):
            v = _val(c.get_coefficient_val(dim_type.div, k))
            if v:
                terms.append((v, divs[k]))
        cst = _val(c.get_constant_val())
        out = E.logical_and(out, _constraint_expr(terms, cst, c.is_equality(), dtype))
    return out


def set_to_cond(s, dims, names, dtype):
    """The ``isl.Set`` as a tir condition that holds exactly at its points: a disjunction of
    its (coalesced) basic sets' constraints; set dim ``k`` is ``dims[k]``, parameters are
    resolved through ``names``."""
    s = s.coalesce().compute_divs()
    out = E.IntImm(0, "bool")
    for bs in s.get_basic_sets():
        out = E.logical_or(out, _basic_set_to_cond(bs, dims, names, dtype))
    return out


def pw_aff_to_expr(pa, dims, names, dtype):
    """The ``isl.PwAff`` as a tir expression equal to it on its domain: nested ``Select``s
    over its pieces (the last piece needs no condition). Raise ``TepadError`` when the domain
    is empty."""
    pieces = pa.get_pieces()
    if not pieces:
        raise TepadError("empty piecewise expression (the domain is empty)")
    out = None
    for st, aff in reversed(pieces):
        e = aff_to_expr(aff, dims, names, dtype)
        out = e if out is None else E.select(set_to_cond(st, dims, names, dtype), e, out)
    return out


# ---------------------------------------------------------------------------------------------
# ISL -> tir, through isl's AST builder
# ---------------------------------------------------------------------------------------------

_OP = lazy_attr(isl, "ast_expr_op_type")
_BINARY = {}      # ISL AST operator -> tir constructor, filled when islpy is loaded
_CONDITIONAL = {"select": E.select, "if_then_else": tirop.if_then_else}


def ast_to_expr(e, names, dtype="int32", conditional="select"):
    """The ``isl.AstExpr`` as an equal tir expression: ISL names resolved through ``names``
    (cast to ``dtype`` when their dtype differs; an unknown name is a ``TepadError``), ISL's
    divisions as floordiv/floormod, its conditional operator as ``Select`` or, with
    ``conditional="if_then_else"``, as ``tir.if_then_else``. An operator without a tir
    counterpart raises ``NotAffine``."""
    resolve = _resolver(names)
    t = e.get_type()
    if t == isl.ast_expr_type.int:
        return E.IntImm(_val(e.get_val()), dtype)
    if t == isl.ast_expr_type.id:
        n = e.get_id().get_name()
        v = resolve(n)
        if v is None:
            raise TepadError(f"ISL name {n} names no tir expression")
        return v if v.dtype == dtype else E.cast(dtype, v)
    op = e.get_op_type()
    args = [ast_to_expr(e.get_op_arg(k), names, dtype, conditional)
            for k in range(e.get_op_n_arg())]
    if op == _OP.minus:
        return E.neg(args[0])
    if op in (_OP.select, _OP.cond):
        return _CONDITIONAL[conditional](*args)
    if op not in _BINARY:
        raise NotAffine(f"ISL AST operator {op} not supported")
    out = args[0]
    for a in args[1:]:
        out = _BINARY[op](out, a)
    return out


def pw_aff_to_expr_ast(pa, context, names, dtype, conditional="select"):
    """The parameter-only ``isl.PwAff`` as a tir expression equal to it wherever the
    parameters satisfy ``context``, built by isl's AST builder (``min``/``max`` where the
    pieces allow)."""
    build = isl.AstBuild.from_context(context)
    return ast_to_expr(build.expr_from_pw_aff(pa), names, dtype, conditional)


def set_to_cond_ast(st, context, names, conditional="select"):
    """The parameter-only ``isl.Set`` as a tir condition equivalent to it wherever the
    parameters satisfy ``context`` (a constant condition is a bool ``IntImm``)."""
    build = isl.AstBuild.from_context(context)
    out = ast_to_expr(build.expr_from_set(st), names, "int32", conditional)
    if isinstance(out, E.IntImm):
        out = E.IntImm(out.value, "bool")
    return out


__all__ = ["isl", "dim_type", "CTX", "NotAffine", "Names", "IslWriter", "params_set",
           "project_params_except", "params_to_dims", "plus_constant", "aff_to_expr",
           "set_to_cond", "pw_aff_to_expr", "ast_to_expr", "pw_aff_to_expr_ast",
           "set_to_cond_ast"]
