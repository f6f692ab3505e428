"""te.placeholder / te.compute / reductions: the TVM front-end calls."""
from __future__ import annotations

import inspect
import weakref

from ..errors import TepadError
from ..tir import dtype as dt
from ..tir import op as tirop
from ..tir.expr import (PrimExpr, Range, Select, Var, SizeVar, convert, const as _const,
                        IntImm)
from ..tir.functor import post_order_visit
from ..tir.itervar import IterVar, IterVarType
from ..tir.reduce import CommReducer, Reduce, check_no_nested_reduce
from ..tir.structural import structural_equal
from .tag import current_tag
from .tensor import ComputeOp, PlaceholderOp, Tensor
from .tensor_intrin import TensorIntrinCall, make_tensor_compute


def var(name="v", dtype="int32") -> Var:
    """A new scalar variable (a symbolic size when it appears in a shape)."""
    return Var(name, dt.canonical(dtype))


def size_var(name="n", dtype="int32") -> Var:
    """A new variable known to be non-negative (for symbolic shapes)."""
    return SizeVar(name, dt.canonical(dtype))


def const(value, dtype=None) -> PrimExpr:
    """A constant; ``dtype`` defaults to int32 for ints, float32 for floats, bool for bools."""
    return _const(value, dt.canonical(dtype) if dtype is not None else None)


def _shape(shape, what, integral_floats=False):
    """Shape entries as integer expressions. ``integral_floats``: a Python float with an
    integer value (``N / bn`` in Python 3) counts as that int, as TVM's ``te.compute`` takes
    it; a fractional one is refused (TVM would truncate it silently)."""
    if isinstance(shape, (int, float, PrimExpr)) or hasattr(shape, "as_expr"):
        shape = (shape,)
    out = []
    for k, s in enumerate(shape):
        if integral_floats and isinstance(s, float) and s.is_integer():
            s = int(s)
        e = convert(s)
        if not dt.is_int(e.dtype):
            raise TepadError(f"{what}: shape entry {k} must be an integer, got {s!r}")
        if isinstance(e, IntImm) and e.value < 0:
            raise TepadError(f"{what}: shape entry {k} is negative ({e.value})")
        out.append(e)
    return tuple(out)


def placeholder(shape, dtype="float32", name="placeholder") -> Tensor:
    """An input tensor of the given shape (ints or symbolic vars)."""
    return PlaceholderOp(name, _shape(shape, f"placeholder {name}"), dt.canonical(dtype)).output(0)


def compute(shape, fcompute, name="compute", tag="", attrs=None):
    """A tensor whose element at the index vars is ``fcompute(*vars)``.

    Var names come from the lambda's parameter names (``i0, i1, ...`` for ``*indices``).
    Returns a Tensor, or a list of Tensors when ``fcompute`` returns a list/tuple.
    """
    shape = _shape(shape, f"compute {name}", integral_floats=True)
    tag = tag or current_tag()
    if not callable(fcompute):
        raise TepadError(f"compute {name}: fcompute must be callable, got {fcompute!r}")
    names = _arg_names(fcompute, len(shape), name, allow_fewer=True)
    axis = [IterVar(Range.from_min_extent(IntImm(0, s.dtype), s), Var(n, s.dtype))
            for n, s in zip(names, shape)]
    body = fcompute(*[iv.var for iv in axis])
    if isinstance(body, TensorIntrinCall):
        op = make_tensor_compute(name, tag, attrs, shape, axis, body)
        outs = [op.output(k) for k in range(op.num_outputs)]
        return outs[0] if len(outs) == 1 else outs
    if len(names) < len(shape):
        _arg_names(fcompute, len(shape), name)     # raises: too few index arguments
    bodies = list(body) if isinstance(body, (list, tuple)) else [body]
    if not bodies:
        raise TepadError(f"compute {name}: fcompute returned an empty list")
    bodies = [convert(b) for b in bodies]
    reduces = [isinstance(b, Reduce) for b in bodies]
    if any(reduces) and not all(reduces):
        raise TepadError(f"compute {name}: either all outputs are reductions or none is")
    for b in bodies:
        if isinstance(b, Reduce):
            for s in b.source:
                check_no_nested_reduce(s, f"compute {name}")
        else:
            check_no_nested_reduce(b, f"compute {name}")
    if len(bodies) > 1 and any(reduces):
        _check_same_reduction(bodies, name)
    for b in bodies:
        _check_reduce_axes_reduced(b, name)
    op = ComputeOp(name, tag, attrs, axis, bodies)
    outs = [op.output(k) for k in range(op.num_outputs)]
    return outs if isinstance(body, (list, tuple)) else outs[0]


def _check_same_reduction(bodies, name):
    """The Reduce bodies of one compute must be the values of one tuple reduction: the same
    combiner, sources, axes and condition, value indices 0, 1, ... in order."""
    first = bodies[0]
    for k, b in enumerate(bodies):
        same = b.combiner is first.combiner and len(b.source) == len(bodies) and \
            b.value_index == k and len(b.axis) == len(first.axis) and \
            all(x is y for x, y in zip(b.axis, first.axis)) and \
            all(structural_equal(x, y) for x, y in zip(b.source, first.source)) and \
            structural_equal(b.condition, first.condition)
        if not same:
            raise TepadError(
                f"compute {name}: the outputs of a compute may be reductions only when they "
                "are the values of one tuple reduction (reducer((a, b), axis=k)), in order; "
                "write one compute per reduction otherwise")


# the vars of every te.reduce_axis still alive, by id (weak: forgotten with the axis)
_REDUCE_VARS: "weakref.WeakValueDictionary[int, Var]" = weakref.WeakValueDictionary()


def _reduce_vars_in(e):
    """The vars of ``te.reduce_axis`` axes that occur in ``e``, in first-use order."""
    found = []

    def f(n):
        if isinstance(n, Var) and _REDUCE_VARS.get(id(n)) is n and \
                not any(x is n for x in found):
            found.append(n)
    post_order_visit(e, f)
    return found


def _check_reduce_axes_reduced(body, name):
    """Refuse a ``te.reduce_axis`` that occurs in ``body`` outside a reduction over it.

    Guarantees: every reduce-axis var in a non-reduction body, and every one in a reduction's
    source/condition that is not among that reduction's axes, raises a TepadError naming the
    compute and the axis (otherwise the var stays free and the build fails much later).
    """
    if isinstance(body, Reduce):
        reduced = {id(iv.var) for iv in body.axis}
        stray = [v for e in (*body.source, body.condition, *body.init)
                 for v in _reduce_vars_in(e) if id(v) not in reduced]
        if stray:
            v = stray[0]
            red = body.combiner.name
            over = "[" + ", ".join(iv.name for iv in body.axis) + "]"
            raise TepadError(
                f"compute {name}: reduce axis {v.name} is used inside {red}(..., axis={over}) "
                f"but not reduced by it; a reduce_axis must be reduced: add it to the axes, "
                f"{red}(..., axis=[{', '.join([iv.name for iv in body.axis] + [v.name])}])")
        return
    stray = _reduce_vars_in(body)
    if stray:
        v = stray[0]
        raise TepadError(
            f"compute {name}: reduce axis {v.name} is used outside a reduction; a reduce_axis "
            f"must be reduced: wrap the expression that uses it, e.g. te.sum(..., "
            f"axis={v.name}) (or te.max / te.min / a te.comm_reducer)")


def _arg_names(fcompute, ndim, name, allow_fewer=False):
    try:
        sig = inspect.signature(fcompute)
    except (TypeError, ValueError):
        return [f"i{k}" for k in range(ndim)]
    params = list(sig.parameters.values())
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        fixed = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        return fixed + [f"i{k}" for k in range(len(fixed), ndim)]
    required = [p for p in params if p.default is p.empty and
                p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(required) != ndim and not (allow_fewer and len(required) < ndim):
        raise TepadError(
            f"compute {name}: fcompute takes {len(required)} index arguments but the shape has "
            f"{ndim} dimensions")
    return [p.name for p in required]


def reduce_axis(dom, name="rv", thread_tag="") -> IterVar:
    """A reduction axis over ``lo <= k < hi`` given as ``(lo, hi)`` or a Range."""
    if isinstance(dom, (tuple, list)):
        if len(dom) != 2:
            raise TepadError(f"reduce_axis {name}: expected (lo, hi), got {dom!r}")
        dom = Range(dom[0], dom[1])
    elif not isinstance(dom, Range):
        dom = Range(0, dom)
    iv = IterVar(dom, Var(name, dom.extent.dtype), IterVarType.CommReduce, thread_tag)
    _REDUCE_VARS[id(iv.var)] = iv.var
    return iv


def thread_axis(dom=None, tag="", name=""):
    """A thread IterVar for ``Stage.bind``: ``te.thread_axis("threadIdx.x")`` or
    ``te.thread_axis((0, n), "threadIdx.x")``."""
    if isinstance(dom, str):
        tag, dom = dom, None
    return IterVar(dom, Var(name or tag, "int32"), IterVarType.ThreadIndex, tag)


def comm_reducer(fcombine, fidentity, name="reduce"):
    """A user reducer: ``fcombine(x, y)`` and ``fidentity(dtype)``; returns a callable like
    ``te.sum(expr, axis, where=None, init=None)``.

    A tuple reducer (TVM's argmax) combines several values together: ``fcombine(x, y)`` gets
    two tuples and returns a tuple, ``fidentity(t0, t1, ...)`` gets one dtype per value, and
    ``reducer((e0, e1), axis=k)`` returns one Reduce per value (a multi-output compute body).
    Called on plain expressions instead of axes (``reducer(a, b)``), it applies ``fcombine``.
    """

    def reduce_directly(*args):
        args = [a for a in args if a is not None]
        res = args[0]
        for x in args[1:]:
            res = fcombine(res, x)
        return res

    def reducer(expr, axis=None, where=None, init=None, *args):
        if axis is None and args:
            raise TepadError(f"{name}: call as {name}(expr, axis)")
        if axis is None:
            raise TepadError(f"{name} needs reduction axes: {name}(expr, axis=k)")
        if not isinstance(axis, (IterVar, list, tuple)):
            return reduce_directly(expr, axis, where, init, *args)
        if args:
            raise TepadError(f"{name}(expr, axis, where, init) takes no further arguments")
        axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
        for a in axes:
            if not isinstance(a, IterVar) or a.iter_type != IterVarType.CommReduce:
                raise TepadError(f"{name}: axis {a!r} is not a reduce_axis")
        if isinstance(expr, (list, tuple)):
            return _make_tuple_reduce(name, fcombine, fidentity, expr, axes, where, init)
        expr = convert(expr)
        d = expr.dtype
        lhs, rhs = Var("x", d), Var("y", d)
        result = convert(fcombine(lhs, rhs))
        if result.dtype != d:
            result = tirop.cast(d, result)
        ident = convert(fidentity(d))
        if ident.dtype != d:
            ident = tirop.cast(d, ident)
        combiner = CommReducer([lhs], [rhs], [result], [ident], name)
        inits = () if init is None else (tirop.cast(d, convert(init)),)
        if not axes:
            return _reduce_over_nothing(combiner, [expr], where, inits)[0]
        return Reduce(combiner, [expr], axes, where, 0, inits)

    reducer.__name__ = name
    reducer.__doc__ = (f"Reduction ``{name}(expr, axis, where=None, init=None)``: combines "
                       "``expr`` over every point of the reduce axes ``axis`` (a reduce_axis "
                       "or a list of them) where ``where`` holds, starting from the identity "
                       "(or ``init``). Only at the top of a compute body. A tuple ``expr`` "
                       "gives one Reduce per value; two expressions instead of an axis "
                       "combine them directly.")
    return reducer


def _make_tuple_reduce(name, fcombine, fidentity, exprs, axes, where, init):
    """One Reduce per value of a tuple reduction, all sharing one CommReducer."""
    exprs = [convert(e) for e in exprs]
    if not exprs:
        raise TepadError(f"{name}: reducing an empty tuple")
    dtypes = [e.dtype for e in exprs]
    lhs = [Var(f"x_{k}", d) for k, d in enumerate(dtypes)]
    rhs = [Var(f"y_{k}", d) for k, d in enumerate(dtypes)]
    results = fcombine(tuple(lhs), tuple(rhs))
    idents = fidentity(*dtypes)
    results = list(results) if isinstance(results, (list, tuple)) else [results]
    idents = list(idents) if isinstance(idents, (list, tuple)) else [idents]
    for what, got in (("fcombine", results), ("fidentity", idents)):
        if len(got) != len(exprs):
            raise TepadError(f"{name}: {what} returned {len(got)} values for a reduction of "
                             f"{len(exprs)} values; it must return one value per tuple entry")
    results = [_as_dtype(convert(r), d) for r, d in zip(results, dtypes)]
    idents = [_as_dtype(convert(i), d) for i, d in zip(idents, dtypes)]
    combiner = CommReducer(lhs, rhs, results, idents, name)
    inits = ()
    if init is not None:
        init = list(init) if isinstance(init, (list, tuple)) else [init]
        if len(init) != len(exprs):
            raise TepadError(f"{name}: init has {len(init)} values for a reduction of "
                             f"{len(exprs)} values")
        inits = tuple(_as_dtype(convert(i), d) for i, d in zip(init, dtypes))
    if not axes:
        return _reduce_over_nothing(combiner, exprs, where, inits)
    return tuple(Reduce(combiner, exprs, axes, where, k, inits) for k in range(len(exprs)))


def _reduce_over_nothing(combiner, exprs, where, inits) -> tuple:
    """A reduction over no axes (``axis=[]``: numpy's ``sum(a, axis=())``) combines the
    source once into the start value, as TVM's lowering of an init then one update does:
    ``combine(init or identity, source)`` where ``where`` holds, else the start value."""
    start = list(inits) if inits else [combiner.identity(k) for k in range(len(exprs))]
    combined = combiner.combine_all(start, exprs)
    if where is None:
        return tuple(combined)
    cond = convert(where)
    return tuple(Select(cond, c, s) for c, s in zip(combined, start))


def _as_dtype(e, d):
    return e if e.dtype == d else tirop.cast(d, e)


sum = comm_reducer(lambda x, y: x + y, lambda d: _const(0, d), name="sum")  # noqa: A001
_max_red = comm_reducer(lambda x, y: tirop.max(x, y), lambda d: tirop.min_value(d), name="max")
_min_red = comm_reducer(lambda x, y: tirop.min(x, y), lambda d: tirop.max_value(d), name="min")


def _is_axis(a):
    # an empty list is no axes (a reduction over nothing), not a second operand
    return isinstance(a, IterVar) or (isinstance(a, (list, tuple)) and
                                      all(isinstance(x, IterVar) for x in a))


def max(expr, axis=None, where=None, init=None):  # noqa: A001
    """Reduction ``te.max(expr, axis=k)`` or, with two expressions, the binary maximum."""
    if axis is not None and not _is_axis(axis):
        return tirop.max(expr, axis)
    return _max_red(expr, axis, where, init)


def min(expr, axis=None, where=None, init=None):  # noqa: A001
    """Reduction ``te.min(expr, axis=k)`` or, with two expressions, the binary minimum."""
    if axis is not None and not _is_axis(axis):
        return tirop.min(expr, axis)
    return _min_red(expr, axis, where, init)
