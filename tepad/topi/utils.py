"""TVM's ``topi.utils`` helpers (also importable under the old name ``topi.util``):
constant extraction from shapes, ``simplify``, ``traverse_inline``."""
from __future__ import annotations

from ..arith import simplify as _simplify
from ..errors import TepadError
from ..tensor import ComputeOp, Tensor
from ..tir.expr import FloatImm, IntImm, PrimExpr, convert
from .layout_parse import layout_permutation
from .tag import is_injective


def get_const_int(expr) -> int:
    """``expr`` (an int or an expression that simplifies to an integer constant) as an int."""
    if isinstance(expr, int):
        return expr
    if isinstance(expr, PrimExpr):
        e = _simplify(expr)
        if isinstance(e, IntImm):
            return int(e.value)
    raise TepadError(f"get_const_int: {expr!r} is not a constant integer")


def get_const_float(expr) -> float:
    """``expr`` (a number or a constant expression) as a float."""
    if isinstance(expr, (int, float)):
        return float(expr)
    if isinstance(expr, PrimExpr):
        e = _simplify(expr)
        if isinstance(e, (IntImm, FloatImm)):
            return float(e.value)
    raise TepadError(f"get_const_float: {expr!r} is not a constant number")


def get_const_tuple(in_tuple) -> tuple:
    """The extents of a shape as ints; an extent that is not constant (a ``te.var``) stays an
    expression, as in TVM."""
    out = []
    for e in in_tuple:
        if isinstance(e, int):
            out.append(e)
            continue
        s = _simplify(convert(e))
        out.append(int(s.value) if isinstance(s, IntImm) else s)
    return tuple(out)


def equal_const_int(expr, value) -> bool:
    """Whether ``expr`` is the integer constant ``value``."""
    try:
        return get_const_int(expr) == value
    except TepadError:
        return False


def simplify(expr):
    """``expr`` simplified (ints pass through)."""
    return expr if isinstance(expr, (int, float)) else _simplify(convert(expr))


def prod(xs):
    """The product of the extents ``xs`` (ints or expressions)."""
    out = 1
    for x in xs:
        out = out * x
    return out


def traverse_inline(s, final_op, callback):
    """Walk the dataflow from ``final_op`` (an Operation or a Tensor) toward the inputs,
    inlining every injective compute stage that is not an output, and call ``callback(op)``
    once for each compute operation reached (TVM's ``topi.utils.traverse_inline``)."""
    if isinstance(final_op, Tensor):
        final_op = final_op.op
    visited = set()
    outputs = set(getattr(s, "outputs", [])) | {final_op}

    def visit(op):
        if op in visited:
            return
        visited.add(op)
        if isinstance(op, ComputeOp):
            if is_injective(op.tag) and op not in outputs and not op.reduce_axis:
                s[op].compute_inline()
            for t in op.input_tensors:
                if isinstance(t.op, ComputeOp):
                    visit(t.op)
            callback(op)
    visit(final_op)


def get_shape(src_shape, src_layout: str, dst_layout: str) -> tuple:
    """``src_shape`` (in ``src_layout``, e.g. "NCHW" or "NCHW16c") reordered to
    ``dst_layout`` (the same axes and sub-axes in another order, e.g. "NC16cWH")."""
    perm = layout_permutation(src_layout, dst_layout)
    if len(perm) != len(src_shape):
        raise TepadError(f"get_shape: {src_layout!r} has {len(perm)} axes but the shape "
                         f"{list(src_shape)} has {len(src_shape)}")
    return tuple(get_const_int(src_shape[k]) for k in perm)


def nchw_pack_layout(layout_info: str) -> bool:
    """Whether ``layout_info`` names a packed NCHW layout with inner n and c blocks
    ("NCHW4n4c")."""
    return layout_info[:4] == "NCHW" and "c" in layout_info and "n" in layout_info


def nchw_xc_layout(layout_info: str) -> bool:
    """Whether ``layout_info`` names a channel-blocked NCHW layout ("NCHW16c")."""
    return layout_info[:4] == "NCHW" and "c" in layout_info and layout_info[4:-1].isnumeric()


__all__ = ["get_const_int", "get_const_float", "get_const_tuple", "equal_const_int",
           "simplify", "prod", "traverse_inline", "get_shape", "nchw_pack_layout",
           "nchw_xc_layout"]
