"""``topi.nn.depth_to_space`` / ``space_to_depth``: blocks of ``block_size`` x
``block_size`` pixels moved between the channel axis and the spatial axes (NCHW or NHWC).
Channel ``c`` of a block holds offset ``(c // C) = bh * block + bw`` ("DCR", the default)
or ``(c % (block * block))`` ("CDR", depth_to_space only; ONNX calls it "CRD")."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute
from ...tir.expr import floordiv, floormod
from ..utils import get_const_tuple


def _layout(data, layout, what):
    if not isinstance(data, Tensor) or len(data.shape) != 4:
        raise TepadError(f"topi.nn.{what}: data must be a 4-d te.Tensor, got {data!r}")
    if layout not in ("NCHW", "NHWC"):
        raise TepadError(f"topi.nn.{what}: layout must be 'NCHW' or 'NHWC', got {layout!r}")
    return (1, 2, 3) if layout == "NCHW" else (3, 1, 2)


def depth_to_space(data, block_size, layout="NCHW", mode="DCR"):
    """Channels C * b * b become C channels over a b-times larger H x W."""
    cx, hx, wx = _layout(data, layout, "depth_to_space")
    if mode not in ("DCR", "CDR", "CRD"):
        raise TepadError(f"topi.nn.depth_to_space: mode must be 'DCR' or 'CDR', got {mode!r}")
    b = int(block_size)
    channels = get_const_tuple([data.shape[cx]])[0]
    if b <= 0 or channels % (b * b):
        raise TepadError(f"topi.nn.depth_to_space: {channels} channels do not split into "
                         f"{b}x{b} blocks")
    out_c = channels // (b * b)
    shape = list(data.shape)
    shape[cx], shape[hx], shape[wx] = out_c, data.shape[hx] * b, data.shape[wx] * b

    def body(*i):
        c, h, w = i[cx], i[hx], i[wx]
        offset = floormod(h, b) * b + floormod(w, b)
        src = list(i)
        src[cx] = offset * out_c + c if mode == "DCR" else c * (b * b) + offset
        src[hx], src[wx] = floordiv(h, b), floordiv(w, b)
        return data[tuple(src)]
    return compute(tuple(shape), body, name="depth_to_space", tag="injective")


def space_to_depth(data, block_size, layout="NCHW"):
    """Each b x b block of H x W becomes b * b times the channels (DCR order)."""
    cx, hx, wx = _layout(data, layout, "space_to_depth")
    b = int(block_size)
    c_in, h_in, w_in = get_const_tuple([data.shape[cx], data.shape[hx], data.shape[wx]])
    if b <= 0 or h_in % b or w_in % b:
        raise TepadError(f"topi.nn.space_to_depth: H x W {h_in}x{w_in} does not split into "
                         f"{b}x{b} blocks")
    shape = list(data.shape)
    shape[cx], shape[hx], shape[wx] = c_in * b * b, h_in // b, w_in // b

    def body(*i):
        c, h, w = i[cx], i[hx], i[wx]
        offset = floordiv(c, c_in)
        src = list(i)
        src[cx] = floormod(c, c_in)
        src[hx], src[wx] = h * b + floordiv(offset, b), w * b + floormod(offset, b)
        return data[tuple(src)]
    return compute(tuple(shape), body, name="space_to_depth", tag="injective")


__all__ = ["depth_to_space", "space_to_depth"]
