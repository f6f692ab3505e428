"""Data layouts as TVM writes them ("NCHW", "NCHW16c", "OIHW16i8o"): an upper-case letter
is a primal axis, digits followed by the same letter in lower case split that axis (the
lower-case axis of extent 16 inside the upper-case one). ``layout_transform`` moves data
between two layouts of the same primal axes; ``parse_layout`` and ``layout_shape`` are the
helpers (``topi.utils.get_shape`` uses ``parse_layout``)."""
from __future__ import annotations

import re

from ..errors import TepadError
from ..tensor import Tensor, compute
from ..tir import op as tirop
from ..tir.expr import const, floordiv, floormod
from .utils import get_const_tuple

_TOKEN = re.compile(r"(\d*)([A-Za-z])")


def parse_layout(layout: str) -> list:
    """``layout`` as ``[(letter, factor)]``: ``factor`` None for a primal (upper-case) axis,
    the int split factor for a sub-axis ("16c" -> ("c", 16)). A malformed layout (a digit
    before an upper-case letter, a sub-axis without a factor or without its primal axis, an
    axis twice) is a TepadError."""
    if not isinstance(layout, str):
        raise TepadError(f"layout must be a string such as 'NCHW16c', got {layout!r}")
    toks, pos = [], 0
    for m in _TOKEN.finditer(layout):
        if m.start() != pos:
            break
        pos = m.end()
        digits, letter = m.groups()
        if letter.isupper() != (digits == ""):
            raise TepadError(f"layout {layout!r}: {m.group(0)!r} is not an axis (upper-case "
                             "letters are axes, '<factor><lower-case letter>' sub-axes)")
        toks.append((letter, int(digits) if digits else None))
    letters = [t[0] for t in toks]
    if pos != len(layout) or len(set(letters)) != len(letters) or any(
            f is not None and ltr.upper() not in letters for ltr, f in toks):
        raise TepadError(f"layout {layout!r} is malformed (each axis once; a sub-axis needs "
                         "its upper-case axis)")
    return toks


def _token_names(layout):
    return [f"{f}{ltr}" if f else ltr for ltr, f in parse_layout(layout)]


def shape_in_layout(src_shape, src_layout: str, dst_layout: str) -> tuple:
    """``src_shape`` (in ``src_layout``) reordered to ``dst_layout``: both must name the
    same axes and sub-axes."""
    src, dst = _token_names(src_layout), _token_names(dst_layout)
    if sorted(src) != sorted(dst) or len(src) != len(src_shape):
        raise TepadError(f"get_shape: cannot map {src_layout!r} {list(src_shape)} to "
                         f"{dst_layout!r} (the two layouts must have the same axes, one "
                         "extent per axis)")
    return tuple(get_const_tuple([src_shape[src.index(t)]])[0] for t in dst)


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


__all__ = ["parse_layout", "shape_in_layout", "layout_transform"]
