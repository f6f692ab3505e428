"""``topi.nn.space_to_batch_nd`` / ``batch_to_space_nd`` (TensorFlow's ops): the M spatial
axes after the batch axis are cut into blocks of ``block_shape``; block offset ``(k1, ...,
kM)`` (row-major) becomes batch group ``k``, so output batch ``k * N + n``. Each is one
injective stage (the padding or the crop is folded into its index arithmetic)."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute
from ...tir import op as tirop
from ...tir.expr import const, floordiv, floormod
from ..utils import get_const_tuple


def _setup(name, data, block_shape, before, after, what):
    if not isinstance(data, Tensor):
        raise TepadError(f"topi.nn.{name}: data must be a te.Tensor, got {data!r}")
    blocks = [int(b) for b in block_shape]
    m = len(blocks)
    before, after = [int(b) for b in before], [int(a) for a in after]
    if m < 1 or m >= len(data.shape) or len(before) != m or len(after) != m:
        raise TepadError(f"topi.nn.{name}: block_shape and the {what} lists need one entry "
                         f"per spatial axis (1 to {len(data.shape) - 1}); got "
                         f"{blocks}, {before}, {after} for a {len(data.shape)}-d input")
    if any(b < 1 for b in blocks) or any(p < 0 for p in before + after):
        raise TepadError(f"topi.nn.{name}: blocks must be >= 1 and {what} >= 0, got "
                         f"{blocks}, {before}, {after}")
    return get_const_tuple(data.shape), blocks, before, after


def _offsets(k, blocks):
    """Row-major digits of the block index ``k`` over ``blocks``."""
    digits = []
    for b in reversed(blocks):
        digits.append(floormod(k, b))
        k = floordiv(k, b)
    return digits[::-1]


def space_to_batch_nd(data: Tensor, block_shape, pad_before, pad_after, pad_value=0.0):
    """(N, D1..DM, rest) -> (N * prod(block), (D1 + pads) / b1, ..., rest); padded elements
    read ``pad_value``. Each padded extent must divide by its block."""
    shape, blocks, before, after = _setup("space_to_batch_nd", data, block_shape, pad_before,
                                          pad_after, "padding")
    n, m = shape[0], len(blocks)
    out = [n]
    for i, b in enumerate(blocks):
        full = shape[i + 1] + before[i] + after[i]
        if full % b:
            raise TepadError(f"topi.nn.space_to_batch_nd: axis {i + 1} padded to {full} does "
                             f"not divide by its block {b}")
        out.append(full // b)
    out[0] = n * _prod(blocks)
    out += list(shape[m + 1:])
    fill = const(pad_value, data.dtype)

    def body(*idx):
        ks = _offsets(floordiv(idx[0], n), blocks)
        src, conds = [floormod(idx[0], n)], []
        for i, b in enumerate(blocks):
            pos = idx[i + 1] * b + ks[i]
            if before[i] or after[i]:
                conds += [pos >= before[i], pos < before[i] + shape[i + 1]]
            src.append(pos - before[i])
        src += list(idx[m + 1:])
        if not conds:
            return data[tuple(src)]
        return tirop.if_then_else(tirop.all(*conds), data[tuple(src)], fill)

    return compute(out, body, name="space_to_batch_nd", tag="injective")


def batch_to_space_nd(data: Tensor, block_shape, crop_begin_list, crop_end_list):
    """(N * prod(block), d1..dM, rest) -> (N, d1 * b1 - crops, ..., rest): the inverse of
    ``space_to_batch_nd`` followed by a crop."""
    shape, blocks, begin, end = _setup("batch_to_space_nd", data, block_shape, crop_begin_list,
                                       crop_end_list, "crop")
    m, total = len(blocks), _prod(blocks)
    if shape[0] % total:
        raise TepadError(f"topi.nn.batch_to_space_nd: batch {shape[0]} does not divide by the "
                         f"block product {total}")
    n = shape[0] // total
    out = [n]
    for i, b in enumerate(blocks):
        ext = shape[i + 1] * b - begin[i] - end[i]
        if ext <= 0:
            raise TepadError(f"topi.nn.batch_to_space_nd: crops {begin[i]} + {end[i]} leave "
                             f"nothing of axis {i + 1} ({shape[i + 1] * b} long)")
        out.append(ext)
    out += list(shape[m + 1:])

    def body(*idx):
        k, src = 0, [None]
        for i, b in enumerate(blocks):
            pos = idx[i + 1] + begin[i]
            k = k * b + floormod(pos, b)
            src.append(floordiv(pos, b))
        src[0] = k * n + idx[0]
        src += list(idx[m + 1:])
        return data[tuple(src)]

    return compute(out, body, name="batch_to_space_nd", tag="injective")


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


__all__ = ["space_to_batch_nd", "batch_to_space_nd"]
