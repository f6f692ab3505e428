"""Reads outside a tensor's declared shape, found on the definitions themselves.

A compute definition such as ``B[i] = A[i + 3]`` over ``i < 10`` with ``A`` of shape ``(10,)``
reads past the end of ``A``. Left alone, that is an out-of-bounds read of an input array (or a
read of memory nobody wrote, for a computed tensor), whatever the schedule. ``check_reads``
finds such reads exactly with ISL, before any code is generated:

* the set of domain points (data axes, and reduction axes for a reduction's source) where a
  read happens is built from the axis ranges and the guards on the way to the read: the
  condition of ``te.if_then_else`` (whose branches are evaluated lazily) and a reduction's
  ``where=``. ``Select``/``and``/``or`` evaluate both sides, so they guard nothing;
* a read is out of bounds at a point where some index is ``< 0`` or ``>= `` its extent.

Constant shapes: any such point is a ``TepadError`` naming the stage, the read, and a witness.
Symbolic shapes: when every size binding that gives the stage a non-empty domain reads out of
bounds, that is a ``TepadError`` too; when only some bindings do (say ``A`` of shape ``(m,)``
read at ``i < n``), the result is a ``ReadPrecondition`` that the runtime checks on the bound
sizes before native code runs.

The stages of a ``te.scan``'s body are checked at the time steps the scan computes them at
(``scan_bound.scan_time_ranges``), so ``update[t] = state[t - 1] + ...`` over ``t >= 1`` passes.

Reads the analysis cannot describe (an index or a guard that is not quasi-affine in the axes
and size variables, e.g. ``A[B[i]]``) are not checked here; ``build(bounds_check=True)``
guards them at run time.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..arith import Analyzer
from ..arith.isl_bridge import IslWriter, NotAffine, dim_type, isl
from ..errors import TepadError
from ..tir import expr as E
from ..tir.functor import post_order_visit, substitute
from ..tir.reduce import Reduce
from .scan_bound import scan_time_ranges
from ..tensor.tensor_intrin import TensorComputeOp
from .tensor_compute import check_region_reads


@dataclass(repr=False)
class ReadPrecondition:
    """A read that leaves its tensor for some size bindings only.

    ``bad`` is the ISL set of out-of-bounds read points over ``axes`` (names), with ``params``
    (tir Vars, in order) as ISL parameters; ``what`` names the stage and the read."""
    params: tuple
    axes: tuple
    bad: str
    what: str
    derived: tuple = ()

    @property
    def inputs(self) -> set:
        """The size Vars a caller binds: the parameters, a derived one through its
        expression's variables."""
        stand_ins = {v for v, _ in self.derived}
        out = {p for p in self.params if p not in stand_ins}
        for _, e in self.derived:
            out.update(_free_vars([e], set()))
        return out

    def __repr__(self):
        when = str(isl.Set(self.bad).params())
        when = when[when.index(":") + 1:when.rindex("}")].strip() if ":" in when else when
        for k, p in enumerate(self.params):
            when = re.sub(rf"\bp{k}\b", p.name, when)
        return f"read_check({self.what!r}, when={when!r})"

    def witness(self, values: dict) -> str | None:
        """``None`` when binding ``{var: int}`` reads in bounds; else the first bad point.
        ``values`` binds :attr:`inputs`; the derived parameters are computed from them."""
        if self.derived:
            values = dict(values)
            for v, e in self.derived:
                values[v] = _evaluate(e, values)
        s = isl.Set(self.bad)
        for k, v in enumerate(self.params):
            s = s.fix_val(dim_type.param, k, isl.Val.int_from_si(s.get_ctx(), values[v]))
        if s.is_empty():
            return None
        pt = s.lexmin().sample_point()
        return _fmt_point((a, pt.get_coordinate_val(dim_type.set, k).to_python())
                          for k, a in enumerate(self.axes))


class _Reads:
    """Every ProducerLoad of one body, with the guards under which it is evaluated."""

    def __init__(self):
        self.found = []          # (load, guards, reduce_axes)

    def walk(self, e, guards, raxes):
        if isinstance(e, E.ProducerLoad):
            self.found.append((e, guards, raxes))
            for i in e.indices:
                self.walk(i, guards, raxes)
        elif isinstance(e, Reduce):
            for i in e.init:
                self.walk(i, guards, ())
            inner = tuple(e.axis)
            self.walk(e.condition, guards, inner)
            for src in e.source:
                self.walk(src, guards + (e.condition,), inner)
        elif isinstance(e, E.Call) and e.op == "tir.if_then_else":
            c, t, f = e.args
            self.walk(c, guards, raxes)
            self.walk(t, guards + (c,), raxes)
            self.walk(f, guards + (E.Not(c),), raxes)
        elif isinstance(e, E.PrimExpr):
            for name in e._fields:
                v = getattr(e, name)
                for x in (v if isinstance(v, tuple) else (v,)):
                    if isinstance(x, E.PrimExpr):
                        self.walk(x, guards, raxes)


def _evaluate(e, values: dict) -> int:
    got = Analyzer().simplify(substitute(e, {v: E.IntImm(int(x), v.dtype)
                                             for v, x in values.items()}))
    if not isinstance(got, E.IntImm):
        raise TepadError(f"read check: the size {e} does not evaluate to an integer with "
                         f"{values}")
    return got.value


class _SizeStandIns:
    """An ``IslWriter`` abstraction: a size expression that is not quasi-affine (``n // x``
    of two size variables) becomes an ISL parameter of its own, computed from the sizes at
    run time. Expressions of the loop variables, or reading tensors, are never stood in
    for (those reads stay unchecked)."""

    def __init__(self, names: dict, loop_vars, first: int):
        self.names = names
        self.first = first         # the ISL name of the n-th stand-in is p{first + n}
        self.loop_vars = set(loop_vars)
        self.derived = {}          # structural key -> (Var, expr)

    def name_of(self, e):
        if isinstance(e, (E.IntImm, E.Var)) or not E.dt.is_int(e.dtype):
            return None
        free, loads = [], []
        post_order_visit(e, lambda n: free.append(n) if isinstance(n, E.Var) else
                         loads.append(n) if isinstance(n, (E.ProducerLoad, E.BufferLoad,
                                                           E.Call)) else None)
        if loads or any(v in self.loop_vars or v not in self.names for v in free):
            return None
        try:
            IslWriter(self.names).expr(e)
            return None
        except NotAffine:
            pass
        key = str(e)
        if key not in self.derived:
            v = E.Var(f"({key})", e.dtype)
            self.names[v] = f"p{self.first + len(self.derived)}"
            self.derived[key] = (v, e)
        return self.names[self.derived[key][0]]


def _free_vars(exprs, bound) -> list:
    out = []
    for e in exprs:
        post_order_visit(e, lambda n: out.append(n)
                         if isinstance(n, E.Var) and n not in bound and n not in out else None)
    return out


def _fmt_point(names_vals) -> str:
    return ", ".join(f"{n} = {v}" for n, v in names_vals)


def _check_read(op, load, guards, raxes, arg_shapes, time=None, broadcast=False):
    """None, a ReadPrecondition, or raise TepadError for one read of ``op``; ``time``
    (min, extent) replaces the range of axis 0 (the steps a scan computes ``op`` at).
    ``broadcast``: the tensor is an ``auto_broadcast`` argument, whose symbolic dimensions
    of size 1 are read at index 0 whatever the index."""
    axes = list(op.axis) + list(raxes)
    loop_vars = [iv.var for iv in axes]
    shape = list(load.producer.shape)
    ranges = [(iv.dom.min, iv.dom.extent) for iv in axes]
    if time is not None:
        ranges[0] = time
    exprs = list(load.indices) + shape + [x for r in ranges for x in r] + list(guards)
    params = _free_vars(exprs + [d for s in arg_shapes for d in s], set(loop_vars))
    names = {v: f"v{k}" for k, v in enumerate(loop_vars)}
    names.update({p: f"p{k}" for k, p in enumerate(params)})
    stand_ins = _SizeStandIns(names, loop_vars, len(params))
    w = IslWriter(names, abstraction=stand_ins)
    try:
        dom = [w.constraint(m, "<=", v) + " and " + w.constraint(v, "<", E.add(m, x))
               for v, (m, x) in zip(loop_vars, ranges)]
        ctx = [w.constraint(d, ">=", E.IntImm(0, d.dtype)) for s in arg_shapes for d in s]
        conds = [w.cond(g) for g in guards]
    except NotAffine:
        return None                       # a guard or range ISL cannot describe: not checked
    outside = []
    for idx, ext in zip(load.indices, shape):
        try:
            out = f"({w.expr(idx)} < 0 or {w.constraint(idx, '>=', ext)})"
            if broadcast and not isinstance(ext, E.IntImm):
                one = E.IntImm(1, ext.dtype)
                out = (f"({out} and ({w.constraint(ext, '<', one)} or "
                       f"{w.constraint(ext, '>', one)}))")
            outside.append(out)
        except NotAffine:
            continue
    if not outside:
        return None
    derived = tuple(stand_ins.derived.values())
    params = params + [v for v, _ in derived]
    head = f"[{', '.join(names[p] for p in params)}] -> " if params else ""
    vars_ = ", ".join(names[v] for v in loop_vars)
    base = " and ".join(dom + ctx) or "true"
    where = " and ".join([base] + conds)
    bad = isl.Set(f"{head}{{ [{vars_}] : {w.wrap(where + ' and (' + ' or '.join(outside) + ')')} }}")
    if bad.is_empty():
        return None
    read = f"{load.producer.name}[{', '.join(str(i) for i in load.indices)}]"
    shp = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    pt = bad.lexmin().sample_point()
    coord = [(v.name, pt.get_coordinate_val(dim_type.set, k).to_python())
             for k, v in enumerate(loop_vars)]
    sizes = [(p.name, pt.get_coordinate_val(dim_type.param, k).to_python())
             for k, p in enumerate(params)]
    what = (f"stage '{op.name}' reads {read} outside the shape {shp} of "
            f"'{load.producer.name}'")
    if not params:
        raise TepadError(f"{what}, e.g. at {_fmt_point(coord)}. Every index must stay within "
                         f"the tensor's shape; pad the input, shrink the stage's shape, or "
                         f"guard the read with te.if_then_else")
    live = isl.Set(f"{head}{{ [{vars_}] : {w.wrap(base)} }}").params()
    if live.is_subset(bad.params()):
        raise TepadError(f"{what} for every size binding, e.g. {_fmt_point(sizes)} at "
                         f"{_fmt_point(coord)}. Every index must stay within the tensor's "
                         f"shape; pad the input, shrink the stage's shape, or guard the read "
                         f"with te.if_then_else")
    return ReadPrecondition(tuple(params), tuple(v.name for v in loop_vars), str(bad), what,
                            derived)


def check_reads(ops, arg_shapes=(), broadcast=()) -> list:
    """Check every read of every compute op in ``ops``.

    Raises ``TepadError`` for a read that leaves its tensor's declared shape for every size
    binding; returns the ``ReadPrecondition``s of reads that do so only for some bindings.
    ``arg_shapes`` (shape tuples of the kernel's arguments) restrict bindings to sizes >= 0.
    ``broadcast``: tensors passed as ``auto_broadcast`` buffers (a symbolic dimension of
    size 1 is read at index 0, so reading past it is no error).
    """
    pre = []
    steps = scan_time_ranges(ops)
    for op in ops:
        if isinstance(op, TensorComputeOp):
            check_region_reads(op)
            continue
        if not isinstance(getattr(op, "body", None), (list, tuple)) or \
                not hasattr(op, "axis"):
            continue
        reads = _Reads()
        for b in op.body:
            reads.walk(b, (), ())
        seen = set()
        for load, guards, raxes in reads.found:
            key = (load.producer, tuple(load.indices), guards)
            if key in seen:
                continue
            seen.add(key)
            p = _check_read(op, load, guards, raxes, arg_shapes, steps.get(op),
                            load.producer in broadcast)
            if p is not None:
                pre.append(p)
    return pre


__all__ = ["check_reads", "ReadPrecondition"]
