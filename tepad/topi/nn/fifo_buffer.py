"""``topi.nn.fifo_buffer``: a sliding buffer along one axis (streaming convolutions)."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute
from ...tir import op as tirop
from ..utils import get_const_tuple


def fifo_buffer(data, buffer, axis):
    """``buffer`` shifted along ``axis`` by ``data``'s extent there, ``data`` appended at
    the end: ``concatenate([buffer, data], axis)`` without its first ``data.shape[axis]``
    entries. The result has ``buffer``'s shape; the other extents must agree."""
    for nm, t in (("data", data), ("buffer", buffer)):
        if not isinstance(t, Tensor):
            raise TepadError(f"topi.nn.fifo_buffer: {nm} must be a te.Tensor, got {t!r}")
    n = len(buffer.shape)
    if len(data.shape) != n or not isinstance(axis, int) or not -n <= axis < n:
        raise TepadError(f"topi.nn.fifo_buffer: data and buffer need the same number of "
                         f"dimensions and axis {axis!r} one of them")
    ax = axis % n
    ds, bs = get_const_tuple(data.shape), get_const_tuple(buffer.shape)
    if any(a != b for k, (a, b) in enumerate(zip(ds, bs)) if k != ax) or ds[ax] > bs[ax]:
        raise TepadError(f"topi.nn.fifo_buffer: data {list(ds)} does not fit buffer "
                         f"{list(bs)} along axis {ax}")
    keep = bs[ax] - ds[ax]                       # buffer entries that stay, shifted forward

    def body(*i):
        j = i[ax]
        old = buffer[i[:ax] + (tirop.min(j + ds[ax], bs[ax] - 1),) + i[ax + 1:]]
        new = data[i[:ax] + (tirop.max(j - keep, 0),) + i[ax + 1:]]
        return tirop.if_then_else(j < keep, old, new)
    return compute(buffer.shape, body, name="new_buffer", tag="injective")


__all__ = ["fifo_buffer"]
