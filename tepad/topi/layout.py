"""``topi.layout_transform``: data moved between two TVM layouts of the same primal axes
("NCHW" -> "NCHW16c"); the layout strings are parsed by ``topi.layout_parse``."""
from __future__ import annotations

from ..errors import TepadError
from ..tensor import Tensor, compute
from ..tir import op as tirop
from ..tir.expr import const, floordiv, floormod
from .layout_parse import layout_permutation, parse_layout
from .utils import get_const_tuple

def layout_transform(array, src_layout, dst_layout, schedule_rule="None"):
    """``array`` (in ``src_layout``) rearranged into ``dst_layout`` (same primal axes;
    splits may differ, e.g. "NCHW" -> "NCHW16c"). A primal extent that a new split does not
    divide is padded with zeros."""
    if not isinstance(array, Tensor):
        raise TepadError(f"topi.layout_transform: array must be a te.Tensor, got {array!r}")
    src, dst = parse_layout(src_layout), parse_layout(dst_layout)
    if len(src) != len(array.shape):
        raise TepadError(f"topi.layout_transform: {array.name} has {len(array.shape)} "
                         f"dimensions, layout {src_layout!r} {len(src)}")
    if sorted(t[0] for t in src if t[1] is None) != sorted(t[0] for t in dst if t[1] is None):
        raise TepadError(f"topi.layout_transform: {src_layout!r} and {dst_layout!r} do not "
                         "have the same primal axes")
    shape = get_const_tuple(array.shape)
    sub_src = {ltr.upper(): f for ltr, f in src if f}
    sub_dst = {ltr.upper(): f for ltr, f in dst if f}
    primal = {}
    for (ltr, f), ext in zip(src, shape):
        if f is None:
            primal[ltr] = ext * sub_src.get(ltr, 1)
    out_shape = []
    for ltr, f in dst:
        if f is not None:
            out_shape.append(f)
        else:
            out_shape.append(-(-primal[ltr] // sub_dst.get(ltr, 1)))

    def body(*i):
        value = {}
        for (ltr, f), j in zip(dst, i):
            if f is None:
                value[ltr] = value.get(ltr, 0) + j * sub_dst.get(ltr, 1)
            else:
                value[ltr.upper()] = value.get(ltr.upper(), 0) + j
        src_idx, inside = [], []
        for ltr, f in src:
            p = value[ltr.upper()]
            if f is None:
                s = sub_src.get(ltr)
                src_idx.append(floordiv(p, s) if s else p)
                inside.append(p < primal[ltr])
            else:
                src_idx.append(floormod(p, f))
        ok = tirop.all(*inside)
        safe = tuple(tirop.if_then_else(ok, x, const(0, "int32")) for x in src_idx)
        return tirop.if_then_else(ok, array[safe], const(0, array.dtype))
    return compute(tuple(out_shape), body, name="T_layout_trans", tag="injective")


__all__ = ["parse_layout", "layout_permutation", "layout_transform"]
