"""``te.gradient``: reverse-mode automatic differentiation of te.compute definitions (TVM's
``te.gradient``, src/te/autodiff, with its own construction).

``gradient(output, inputs, head)`` returns, for each input ``X``, the tensor
``dX[p..., x...] = sum over out of head[p..., out...] * d output[out...] / d X[x...]``:
``head`` has shape ``prefix + output.shape`` (default: the identity of shape
``output.shape + output.shape``, so that ``dX`` is the full Jacobian); ``dX`` has shape
``prefix + X.shape``. A ``head`` of ones over ``output.shape`` gives the gradient of
``output.sum()``.

How: the ops between ``output`` and ``inputs`` are visited from the output back (chain
rule); the adjoint of each compute's output is known before its inputs are handled. For a
compute ``Y[i] = f(i)`` (or ``Y[i] = reduce_k f(i, k)``) and each distinct load
``X[g(i, k)]`` in ``f``, the contribution to ``dX`` is a new te.compute over
``prefix + X.shape`` that *gathers*: it solves ``g(i, k) = x`` for the iteration variables
that appear with coefficient +-1 in an affine index (the one with the largest extent first),
checks their ranges, and sums over the variables left free, with ``where=`` guards, so no
Jacobian tensor is built (a matmul's gradient is one O(n^3) reduction). An index that is not
invertible this way (``min(j + k, 9)``, ``i // 2``) becomes an equality condition over its
variables (correct, slower). ``df/dX[g]`` is the symbolic derivative of ``f`` with that load
as the variable (``tepad.tensor.derivative``).

Reductions: ``sum`` (with ``where`` and ``init``), ``max``/``min`` (the gradient flows to the
first extreme point, found by an argmax/argmin tuple reduction), ``prod`` (the product of the
other terms, a reduction per point). Other reducers, and ops other than te.compute on the
path (scan, extern, hybrid, tensor intrinsics), are a TepadError naming the op.
"""
from __future__ import annotations

from ..arith import Analyzer
from ..arith.affine import affine_terms
from ..errors import TepadError
from ..tir import dtype as dt
from ..tir import op as tirop
from ..tir.expr import (Add, Cast, FloatImm, IntImm, Max, Min, Mul, ProducerLoad, Range, Var,
                        const, convert, logical_not, select)
from ..tir.functor import post_order_visit, substitute
from ..tir.itervar import IterVar, IterVarType
from ..tir.reduce import Reduce
from ..tir.structural import structural_equal
from .derivative import depends, derivative, same_load
from .operation import comm_reducer, compute, sum as te_sum
from .tensor import ComputeOp, PlaceholderOp, Tensor


# --- gathering the adjoint of one load -------------------------------------------------------

def _extent_rank(iv):
    ext = iv.dom.extent
    return int(ext.value) if isinstance(ext, IntImm) else 1 << 30


def _solve(indices, xs, ivs, ana):
    """Express iteration variables through the gradient's indices ``xs``: ``(sol, conds)``,
    ``sol`` mapping solved Vars to expressions of ``xs`` and the unsolved Vars, ``conds`` the
    range and equality conditions under which ``indices == xs``."""
    unsolved = {iv.var: iv for iv in ivs}
    sol, conds = {}, []
    for g, x in zip(indices, xs):
        g = ana.simplify(substitute(g, sol)) if sol else g
        terms = affine_terms(g)
        cands = []
        if terms is not None:
            cands = [(v, c) for v, c in terms[0].items() if v in unsolved and c in (1, -1)]
        if not cands:
            conds.append(("eq", g, x))
            continue
        v, c = max(cands, key=lambda vc: _extent_rank(unsolved[vc[0]]))
        rest = const(terms[1], g.dtype)
        for w, k in terms[0].items():
            if w is not v:
                rest = rest + const(k, g.dtype) * w
        xv = x if x.dtype == g.dtype else Cast(g.dtype, x)
        val = ana.simplify(xv - rest if c == 1 else rest - xv)
        sol = {k: substitute(s, {v: val}) for k, s in sol.items()}
        sol[v] = val
        conds.append(("range", v, unsolved.pop(v)))
    out = []
    for kind, a, b in conds:
        if kind == "eq":
            g = substitute(a, sol)
            out.append(ana.simplify(g == (b if b.dtype == g.dtype else Cast(g.dtype, b))))
        else:
            val, dom = sol[a], b.dom
            lo = ana.simplify(val >= dom.min)
            hi = ana.simplify(val < dom.min + dom.extent)
            out.extend(c for c in (lo, hi) if not (isinstance(c, IntImm) and c.value))
    out = [c for c in out if not (isinstance(c, IntImm) and c.value)]
    return sol, out, list(unsolved.values())


def _flat_index(axes, vals=None):
    """Row-major position of ``vals`` (default: the axes' vars) among reduce ``axes``."""
    vals = vals if vals is not None else [iv.var for iv in axes]
    flat = IntImm(0, "int32")
    for iv, v in zip(axes, vals):
        flat = flat * iv.dom.extent + (v - iv.dom.min)
    return flat


def _reducer_kind(red: Reduce, op):
    comb = red.combiner
    if comb.size != 1:
        raise TepadError(f"te.gradient: compute {op.name} uses the tuple reducer "
                         f"{comb.name}; only sum, max, min and prod reductions are "
                         "differentiated")
    r = comb.result[0]
    for cls, kind in ((Add, "sum"), (Max, "max"), (Min, "min"), (Mul, "prod")):
        if isinstance(r, cls) and {id(r.a), id(r.b)} == {id(comb.lhs[0]), id(comb.rhs[0])}:
            return kind
    if isinstance(r, (Max, Min)):
        return "max" if isinstance(r, Max) else "min"
    raise TepadError(f"te.gradient: compute {op.name} uses the reducer {comb.name} "
                     f"(`{r!r}`); only sum, max, min and prod reductions are differentiated")


class _Differ:
    """One ``gradient`` call: the adjoints built so far and the helper tensors."""

    def __init__(self):
        self.extreme = {}        # op -> argmax/argmin tensor
        self.others = {}         # op -> product-of-the-others tensor

    # helper tensors for max/min/prod reductions
    def arg_extreme(self, op, red, kind):
        if op in self.extreme:
            return self.extreme[op]
        better = (lambda a, b: a > b) if kind == "max" else (lambda a, b: a < b)

        def combine(x, y):
            take_x = tirop.any(better(x[1], y[1]),
                               tirop.all(x[1] == y[1], x[0] < y[0]))
            return select(take_x, x[0], y[0]), select(take_x, x[1], y[1])

        def ident(t0, t1):
            return (IntImm(-1, t0), tirop.min_value(t1) if kind == "max"
                    else tirop.max_value(t1))
        argred = comm_reducer(combine, ident, name=f"arg{kind}")

        def body(*idx):
            axes = [IterVar(Range.from_min_extent(iv.dom.min, iv.dom.extent),
                            Var(iv.var.name + "_a", iv.var.dtype), IterVarType.CommReduce)
                    for iv in red.axis]
            vmap = {iv.var: v for iv, v in zip(op.axis, idx)}
            vmap.update({iv.var: a.var for iv, a in zip(red.axis, axes)})
            src = substitute(red.source[red.value_index], vmap)
            cond = substitute(red.condition, vmap)
            is_true = isinstance(cond, IntImm) and cond.value
            return list(argred((_flat_index(axes), src), axis=axes,
                               where=None if is_true else cond))
        shape = [iv.dom.extent for iv in op.axis]
        t = compute(shape, body, name=f"{op.name}.arg{kind}")[0]
        self.extreme[op] = t
        return t

    def others_product(self, op, red):
        if op in self.others:
            return self.others[op]

        def body(*idx):
            n = len(op.axis)
            data, pos = idx[:n], idx[n:]
            axes = [IterVar(Range.from_min_extent(iv.dom.min, iv.dom.extent),
                            Var(iv.var.name + "_o", iv.var.dtype), IterVarType.CommReduce)
                    for iv in red.axis]
            vmap = {iv.var: v for iv, v in zip(op.axis, data)}
            vmap.update({iv.var: a.var for iv, a in zip(red.axis, axes)})
            src = substitute(red.source[red.value_index], vmap)
            cond = substitute(red.condition, vmap)
            here = tirop.all(*[a.var - a.dom.min == p for a, p in zip(axes, pos)])
            term = select(tirop.any(here, logical_not(cond)), FloatImm(1.0, src.dtype), src)
            prod = comm_reducer(lambda x, y: x * y, lambda d: FloatImm(1.0, d), name="prod")
            return prod(term, axis=axes)
        shape = [iv.dom.extent for iv in op.axis] + [iv.dom.extent for iv in red.axis]
        t = compute(shape, body, name=f"{op.name}.others")
        self.others[op] = t
        return t

    def contribution(self, op, y: Tensor, adj: Tensor, x: Tensor, load: ProducerLoad):
        """The part of ``d x`` coming through ``load`` in the body of ``y``."""
        body = op.body[y.value_index]
        red = body if isinstance(body, Reduce) else None
        expr = red.source[red.value_index] if red is not None else body
        partial = derivative(expr, load)
        if partial is None:
            return None
        kind = _reducer_kind(red, op) if red is not None else None
        if red is not None and red.init:
            if any(depends(i, load) for i in red.init):
                raise TepadError(f"te.gradient: compute {op.name}: its reduction's init "
                                 "reads the input being differentiated")
        ivs = list(op.axis) + (list(red.axis) if red is not None else [])
        npre = len(adj.shape) - y.ndim
        shape = list(adj.shape[:npre]) + list(x.shape)

        def fcompute(*idx):
            ana = Analyzer()        # knows the ranges of this compute's indices
            for v, ext in zip(idx, shape):
                ana.bind(v, Range.from_min_extent(IntImm(0, v.dtype), ext))
            pre, xs = list(idx[:npre]), list(idx[npre:])
            sol, conds, free = _solve(load.indices, xs, ivs, ana)
            fresh = {iv.var: IterVar(Range.from_min_extent(iv.dom.min, iv.dom.extent),
                                     Var(iv.var.name + "_g", iv.var.dtype),
                                     IterVarType.CommReduce) for iv in free}
            to_fresh = {v: it.var for v, it in fresh.items()}
            vmap = {v: substitute(e, to_fresh) for v, e in sol.items()}
            vmap.update(to_fresh)

            def sub(e):
                return ana.simplify(substitute(e, vmap)) if not dt.is_float(e.dtype) \
                    else substitute(e, vmap)
            out_idx = [sub(iv.var) for iv in op.axis]
            term = adj[tuple(pre + out_idx)] * substitute(partial, vmap)
            if red is not None:
                cond = red.condition
                if not (isinstance(cond, IntImm) and cond.value):
                    conds.append(sub(cond))
                if kind in ("max", "min"):
                    arg = self.arg_extreme(op, red, kind)
                    first = sub(_flat_index(red.axis)) == arg[tuple(out_idx)]
                    # the extreme point is read only where the output point exists (the
                    # conditions so far), so that the read stays inside its tensor
                    conds.append(tirop.if_then_else(tirop.all(*conds), first,
                                                     IntImm(0, "bool")) if conds else first)
                elif kind == "prod":
                    others = self.others_product(op, red)
                    pos = [sub(iv.var - iv.dom.min) for iv in red.axis]
                    term = term * others[tuple(out_idx + pos)]
            conds = [substitute(c, to_fresh) for c in conds]
            zero = FloatImm(0.0, term.dtype)
            if fresh:
                return te_sum(term, axis=list(fresh.values()),
                              where=tirop.all(*conds) if conds else None)
            return tirop.if_then_else(tirop.all(*conds), term, zero) if conds else term
        return compute(shape, fcompute, name=f"{x.op.name}.grad.{op.name}")


def _sum_tensors(tensors, name):
    if len(tensors) == 1:
        return tensors[0]
    shape = tensors[0].shape

    def f(*idx):
        acc = tensors[0][idx]
        for t in tensors[1:]:
            acc = acc + t[idx]
        return acc
    return compute(shape, f, name=name)


def _identity(y: Tensor):
    n = y.ndim

    def f(*idx):
        if n == 0:
            return FloatImm(1.0, y.dtype)
        same = tirop.all(*[a == b for a, b in zip(idx[:n], idx[n:])])
        return select(same, FloatImm(1.0, y.dtype), FloatImm(0.0, y.dtype))
    return compute(list(y.shape) + list(y.shape), f, name=f"{y.op.name}.identity")


def _distinct_loads(expr, x: Tensor):
    loads = []

    def f(n):
        if isinstance(n, ProducerLoad) and n.producer == x and \
                not any(same_load(n, m) for m in loads):
            loads.append(n)
    post_order_visit(expr, f)
    return loads


def gradient(output, inputs, head=None):
    """Reverse-mode automatic differentiation (TVM's ``te.gradient``): the list of
    ``d output / d inputs[k]`` multiplied by ``head`` (see the module docstring for the
    shapes), in the order of ``inputs``. ``inputs`` may be one Tensor."""
    if not isinstance(output, Tensor):
        raise TepadError(f"te.gradient: output must be a te.Tensor, got {output!r}")
    inputs = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    for k, x in enumerate(inputs):
        if not isinstance(x, Tensor):
            raise TepadError(f"te.gradient: inputs[{k}] must be a te.Tensor, got {x!r}")
        if not dt.is_float(x.dtype):
            raise TepadError(f"te.gradient: input {x.name} has dtype {x.dtype}; only float "
                             "tensors are differentiated")
    if not dt.is_float(output.dtype):
        raise TepadError(f"te.gradient: output {output.name} has dtype {output.dtype}; only "
                         "float tensors are differentiated")
    if head is None:
        head = _identity(output)
    else:
        if not isinstance(head, Tensor):
            raise TepadError(f"te.gradient: head must be a te.Tensor, got {head!r}")
        tail = head.shape[len(head.shape) - output.ndim:] if output.ndim else ()
        if len(head.shape) < output.ndim or not all(
                structural_equal(convert(a), convert(b)) for a, b in zip(tail, output.shape)):
            raise TepadError(f"te.gradient: head {head.name} has shape {list(head.shape)}; it "
                             f"must end with the output's shape {list(output.shape)}")
    npre = len(head.shape) - output.ndim

    wanted = set(inputs)
    relevant = {}

    def is_relevant(t):
        if t in relevant:
            return relevant[t]
        r = t in wanted or (not isinstance(t.op, PlaceholderOp) and
                            any(is_relevant(i) for i in t.op.input_tensors))
        relevant[t] = r
        return r

    order, seen = [], set()

    def visit(op):
        if op in seen:
            return
        seen.add(op)
        for t in op.input_tensors:
            if is_relevant(t):
                visit(t.op)
        order.append(op)
    if is_relevant(output):
        visit(output.op)

    d = _Differ()
    contribs = {output: [head]}
    adjoints = {}
    for op in reversed(order):
        outs = [op.output(k) for k in range(op.num_outputs)]
        for y in outs:
            if y in contribs:
                adjoints[y] = _sum_tensors(contribs[y], f"{y.name}.grad")
        if isinstance(op, PlaceholderOp):
            continue
        if not isinstance(op, ComputeOp):
            raise TepadError(f"te.gradient: {type(op).__name__} {op.name} lies between the "
                             "output and the inputs; only te.compute ops are differentiated")
        for y in outs:
            adj = adjoints.get(y)
            if adj is None:
                continue
            body = op.body[y.value_index]
            expr = body.source[body.value_index] if isinstance(body, Reduce) else body
            for x in op.input_tensors:
                if not is_relevant(x):
                    continue
                for load in _distinct_loads(expr, x):
                    c = d.contribution(op, y, adj, x, load)
                    if c is not None:
                        contribs.setdefault(x, []).append(c)
    result = []
    for x in inputs:
        g = adjoints.get(x)
        if g is None and x in contribs:
            g = _sum_tensors(contribs[x], f"{x.name}.grad")
        if g is None:
            shape = list(head.shape[:npre]) + list(x.shape)
            g = compute(shape, lambda *i, _d=x.dtype: FloatImm(0.0, _d),
                        name=f"{x.op.name}.grad")
        result.append(g)
    return result


__all__ = ["gradient"]
