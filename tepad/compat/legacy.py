"""TVM's older calls whose arguments differ from today's, adapted to tepad's: the 0.6
``tvm.make`` constructors of ``For`` (an int ``for_type`` and a ``device_api``) and ``Call``
(a ``call_type``), and the ``tvm.ir_pass`` functions that map cleanly onto tepad
(``Simplify``, ``CanonicalSimplify``, ``Equal``, ``Substitute``, ``PostOrderVisit``,
``IRTransform``, ``ExprUseVar``)."""
from __future__ import annotations

from ..arith import simplify
from ..errors import TepadError
from ..tir.expr import Call as _Call, Range
from ..tir.functor import ir_transform, post_order_visit, substitute, uses_var
from ..tir.stmt import For as _For, ForKind
from ..tir.structural import structural_equal

# TVM 0.6's ForType codes
_FOR_TYPES = {0: ForKind.SERIAL, 1: ForKind.PARALLEL, 2: ForKind.VECTORIZED,
              3: ForKind.UNROLLED}


def make_for(loop_var, min_value, extent, for_type, device_api, body):
    """0.6's ``make.For(loop_var, min, extent, for_type, device_api, body)``: ``for_type``
    0 serial, 1 parallel, 2 vectorized, 3 unrolled (or a ``ForKind``); ``device_api`` is
    ignored (0 in every CPU program)."""
    kind = _FOR_TYPES.get(for_type, for_type) if isinstance(for_type, int) else for_type
    try:
        kind = ForKind(kind)
    except ValueError:
        raise TepadError(f"make.For: for_type {for_type!r} is not 0 (serial), 1 (parallel), "
                         "2 (vectorized) or 3 (unrolled)") from None
    return _For(loop_var, min_value, extent, kind, body)


def make_call(dtype, name, args, call_type=None, func=None, value_index=0):
    """0.6's ``make.Call(dtype, name, args, call_type, func, value_index)``: a call of the
    intrinsic or extern function ``name`` (``call_type`` / ``func`` / ``value_index`` name
    what tepad's ``tir.Call`` does not need)."""
    if func is not None:
        raise TepadError("make.Call with a func (a Halide call of a tensor) is not "
                         "supported; index the tensor instead (A[i])")
    return _Call(dtype, name, list(args))


def range_by_min_extent(min_value, extent) -> Range:
    """0.6's ``make.range_by_min_extent`` / ``Range.make_by_min_extent``."""
    return Range.from_min_extent(min_value, extent)


def Simplify(node):  # noqa: N802 - TVM name
    """0.6's ``ir_pass.Simplify(expr_or_stmt)``: tepad's simplifier (``tepad.arith``)."""
    return simplify(node)


CanonicalSimplify = Simplify


def Equal(a, b) -> bool:  # noqa: N802 - TVM name
    """0.6's ``ir_pass.Equal``: deep equality, variables compared by identity."""
    return structural_equal(a, b)


def Substitute(node, vmap):  # noqa: N802 - TVM name
    """0.6's ``ir_pass.Substitute(node, {var: expr})``."""
    return substitute(node, dict(vmap))


def PostOrderVisit(node, fvisit):  # noqa: N802 - TVM name
    """0.6's ``ir_pass.PostOrderVisit(node, f)``: ``f`` on every node, children first."""
    post_order_visit(node, fvisit)


def IRTransform(stmt, preorder, postorder, only_enable=None):  # noqa: N802 - TVM name
    """0.6's ``ir_pass.IRTransform(stmt, preorder, postorder, only_enable)``: ``preorder`` /
    ``postorder`` (either may be None) see the nodes whose class name is in ``only_enable``
    (every node when None) and return a replacement or None."""
    allowed = None if only_enable is None else {str(n).split(".")[-1] for n in only_enable}

    def wrap(f):
        if f is None:
            return None
        return lambda n: f(n) if allowed is None or type(n).__name__ in allowed else None
    post = wrap(postorder) or (lambda n: None)
    return ir_transform(stmt, post, wrap(preorder))


def ExprUseVar(expr, var) -> bool:  # noqa: N802 - TVM name
    """0.6's ``ir_pass.ExprUseVar(expr, var)`` (a Var or a list of Vars)."""
    return uses_var(expr, var if isinstance(var, (list, tuple, set)) else [var])


__all__ = ["make_for", "make_call", "range_by_min_extent", "Simplify", "CanonicalSimplify",
           "Equal", "Substitute", "PostOrderVisit", "IRTransform", "ExprUseVar"]
