"""TVM's ``topi.utils`` helpers (also importable under the old name ``topi.util``):
constant extraction from shapes, ``simplify``, ``traverse_inline``."""
from __future__ import annotations

import numpy as np

from ..arith import simplify as _simplify
from ..errors import TepadError
from ..target import Target
from ..tensor import ComputeOp, Tensor, compute
from ..tir.expr import (FloatImm, IntImm, Or, PrimExpr, Select, SizeVar, Var, const, convert,
                        floordiv, floormod)
from ..tir.op import abs as _abs, all as _all, if_then_else
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


def prod(x):
    """The product of the extents ``x`` (ints or expressions)."""
    out = 1
    for e in x:
        out = out * e
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


class InvalidShapeError(TepadError, ValueError):
    """A shape a topi template cannot handle (e.g. a Winograd template given a kernel that is
    not 3x3). A ``TepadError`` and, as in TVM, a ``ValueError``."""


def ncw_pack_layout(layout_info: str) -> bool:
    """Whether ``layout_info`` names a packed NCW layout with inner n and c blocks
    ("NCW4n4c")."""
    return layout_info[:3] == "NCW" and "c" in layout_info and "n" in layout_info


def ncw_xc_layout(layout_info: str) -> bool:
    """Whether ``layout_info`` names a channel-blocked NCW layout ("NCW16c")."""
    return layout_info[:3] == "NCW" and "c" in layout_info and layout_info[3:-1].isnumeric()


def get_float_tuple(in_tuple) -> tuple:
    """Each element of ``in_tuple`` (numbers or constant expressions) as a float."""
    return tuple(get_const_float(e) for e in in_tuple)


def _table(values: np.ndarray, idx):
    """A Select chain giving ``values[idx]`` (each index taken modulo its extent), element
    0 when no entry matches, in ``values``' dtype."""
    dtype = str(values.dtype)
    now = const(0, dtype)
    for pos in np.ndindex(values.shape):
        conds = [floormod(i, n) == p for i, n, p in zip(idx, values.shape, pos)]
        now = Select(_all(*conds) if len(conds) > 1 else conds[0],
                     const(values[pos].item(), dtype), now)
    return now


def const_vector(vector, name: str = "const_vector"):
    """A compute stage holding the constant 1-d array ``vector`` (a numpy array or a list;
    dtype kept) as a chain of selects, so it needs no input buffer."""
    vector = np.asarray(vector)
    if vector.ndim != 1:
        raise TepadError(f"const_vector: {name} must be 1-d, got shape {vector.shape}")
    return compute(vector.shape, lambda i: _table(vector, (i,)), name=name)


def const_matrix(matrix, name: str = "const_matrix", attrs=None):
    """A compute stage holding the constant 2-d array ``matrix`` as a chain of selects (the
    Winograd transform matrices); ``attrs`` default to TVM's ``{"const_matrix": True,
    "schedule_rule": "None"}``."""
    matrix = np.asarray(matrix)
    if matrix.ndim != 2:
        raise TepadError(f"const_matrix: {name} must be 2-d, got shape {matrix.shape}")
    if attrs is None:
        attrs = {"const_matrix": True, "schedule_rule": "None"}
    return compute(matrix.shape, lambda i, j: _table(matrix, (i, j)), name=name, attrs=attrs)


def get_max_power2_factor(n: int, max_value=None) -> int:
    """The largest power of two dividing ``n``, capped at ``max_value`` when given."""
    n = int(n)
    x = 1
    while n != 0 and n % 2 == 0:
        if max_value is not None and max_value < x * 2:
            break
        x *= 2
        n //= 2
    return x


def ravel_index(indices, shape):
    """The row-major flat position of the coordinates ``indices`` in an array of ``shape``
    (ints or expressions)."""
    idx = None
    for k, (extent, i) in enumerate(zip(shape, indices)):
        idx = i if k == 0 else idx * extent + i
    return idx


def unravel_index(idx, shape) -> list:
    """The coordinates of the flat position ``idx`` in an array of ``shape`` (row-major; the
    leading coordinate is not reduced modulo its extent, as in TVM)."""
    out = []
    for k, extent in enumerate(reversed(shape)):
        if isinstance(extent, int) and extent == 0:
            out.append(0)
        elif k == len(shape) - 1:
            out.append(idx)
        else:
            out.append(floormod(idx, extent))
            idx = floordiv(idx, extent)
    return out[::-1]


def within_index(b, e, s, i):
    """Whether position ``i`` is selected by the slice ``b:e:s`` (a bool expression)."""
    b, e, s, i = (convert(x) for x in (b, e, s, i))
    before = Select(s < 0, i <= e, i < b)
    after = Select(s < 0, i > b, i >= e)
    step = if_then_else(s < 0, floormod((i - e) + floormod(e, _abs(s)) + 1, _abs(s)),
                        floormod(i - b, s))
    return Select(Or(before, after), const(False, "bool"), step == 0)


def make_idx(b, e, s, z, i):
    """The position within the slice ``b:e:s`` (of an axis of extent ``z``) of the full-array
    position ``i``; 88 when ``i`` is not in the slice (TVM's marker value)."""
    b, e, s, z, i = (convert(x) for x in (b, e, s, z, i))
    before = Select(s < 0, i <= e, i < b)
    after = Select(s < 0, i > b, i >= e)
    b = Select(z < b, z - 1, b)
    pos = if_then_else(s < 0, floordiv(b - i, _abs(s)), floordiv(i - b, s))
    return if_then_else(Or(before, after), const(88, pos.dtype), pos)


def is_empty_shape(shape) -> bool:
    """Whether some extent of ``shape`` is the constant 0."""
    return any(equal_const_int(x, 0) for x in shape)


def is_dynamic_shape(shape) -> bool:
    """Whether some extent of ``shape`` is symbolic (a variable, not a constant)."""
    return any(isinstance(x, (Var, SizeVar)) for x in shape)


def ceil_div(a, b):
    """``a / b`` rounded up (ints or expressions; for positive ``b``)."""
    if isinstance(a, int) and isinstance(b, int):
        return -(-a // b)
    return floordiv(a + (b - 1), b)


def swap(arr, axis: int) -> list:
    """``arr`` (a list) with its elements ``axis`` and last exchanged."""
    arr = list(arr)
    return arr[:axis] + [arr[-1]] + arr[axis + 1:-1] + [arr[axis]]


def is_target(names) -> bool:
    """Whether the current target (``with Target(...)``; a TepadError without one) has one of
    ``names`` (a key or a list of keys: "cpu", "cuda", "gpu", ...) among its keys."""
    tgt = Target.current()
    if tgt is None:
        raise TepadError("topi.utils.is_target: no current target (call it inside "
                         "`with tvm.target.Target(...)`)")
    names = [names] if isinstance(names, str) else names
    return any(n in tgt.keys for n in names)


__all__ = ["get_const_int", "get_const_float", "get_const_tuple", "equal_const_int",
           "simplify", "prod", "traverse_inline", "get_shape", "nchw_pack_layout",
           "nchw_xc_layout", "InvalidShapeError", "ncw_pack_layout", "ncw_xc_layout",
           "get_float_tuple", "const_vector", "const_matrix", "get_max_power2_factor",
           "ravel_index", "unravel_index", "within_index", "make_idx", "is_empty_shape",
           "is_dynamic_shape", "ceil_div", "swap", "is_target"]
