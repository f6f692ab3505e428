"""``topi.nn.pad``: constant padding of a tensor (a ``PadInput`` / ``pad_temp`` stage)."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute
from ...tir import op as tirop
from ...tir.expr import IntImm, PrimExpr, const, floordiv, floormod
from .utils import ints as _ints


def pad(data: Tensor, pad_before, pad_after=None, pad_value=0.0, name="PadInput",
        attrs=None) -> Tensor:
    """``data`` with ``pad_before[k]`` / ``pad_after[k]`` elements of ``pad_value`` added on
    each side of axis k (``pad_after`` defaults to ``pad_before``); ``attrs`` are the
    stage's attributes."""
    n = len(data.shape)
    before = _ints(pad_before, n, "pad: pad_before")
    after = _ints(pad_after if pad_after is not None else pad_before, n, "pad: pad_after")
    shape = [s + b + a for s, b, a in zip(data.shape, before, after)]
    fill = pad_value if isinstance(pad_value, PrimExpr) else const(pad_value, data.dtype)

    def body(*idx):
        conds, src = [], []
        for i, s, b, a in zip(idx, data.shape, before, after):
            if b:
                conds.append(i >= b)
            if a or not isinstance(s, IntImm):
                conds.append(i < s + b)
            src.append(i - b if b else i)
        if not conds:
            return data[tuple(src)]
        return tirop.if_then_else(tirop.all(*conds), data[tuple(src)], fill)
    return compute(tuple(shape), body, name=name, tag="injective,pad", attrs=attrs)


def mirror_pad(data: Tensor, pad_before, pad_after=None, mode="SYMMETRIC",
               name="MirrorPadInput") -> Tensor:
    """``data`` padded by mirroring its borders: ``"SYMMETRIC"`` repeats the edge element
    (``[a b c]`` padded by 2 before: ``b a | a b c``), ``"REFLECT"`` does not (``c b | a b
    c``). Pads are at most the extent (SYMMETRIC) or extent - 1 (REFLECT); ``pad_after``
    defaults to ``pad_before``."""
    if mode not in ("SYMMETRIC", "REFLECT"):
        raise TepadError(f"mirror_pad: mode is 'SYMMETRIC' or 'REFLECT', got {mode!r}")
    n = len(data.shape)
    before = _ints(pad_before, n, "mirror_pad: pad_before")
    after = _ints(pad_after if pad_after else pad_before, n, "mirror_pad: pad_after")
    sym = int(mode == "SYMMETRIC")
    for k, (s, b, a) in enumerate(zip(data.shape, before, after)):
        if isinstance(s, IntImm) and max(b, a) > s.value - 1 + sym:
            raise TepadError(f"mirror_pad: axis {k} of {data.name} has {s.value} elements; "
                             f"{mode} padding takes at most {s.value - 1 + sym}, got "
                             f"{max(b, a)}")
    shape = [s + b + a for s, b, a in zip(data.shape, before, after)]

    def body(*idx):
        src = []
        for i, s, b, a in zip(idx, data.shape, before, after):
            if not (b or a):
                src.append(i)
                continue
            j = i - b
            j = tirop.if_then_else(j < 0, -j - sym, j)
            src.append(tirop.if_then_else(j >= s, 2 * (s - 1) - j + sym, j))
        return data[tuple(src)]
    return compute(tuple(shape), body, name=name, tag="injective,pad")



def dilate(data: Tensor, strides, dilation_value=0.0, name="DilatedInput") -> Tensor:
    """``data`` with ``strides[k] - 1`` cells of ``dilation_value`` between neighbours along
    each axis k (extent ``(n - 1) * stride + 1``)."""
    n = len(data.shape)
    st = _ints(strides, n, "dilate: strides")
    shape = [(s - 1) * k + 1 for s, k in zip(data.shape, st)]
    fill = dilation_value if isinstance(dilation_value, PrimExpr) else \
        const(dilation_value, data.dtype)

    def body(*idx):
        conds = [floormod(i, k) == 0 for i, k in zip(idx, st) if k > 1]
        src = tuple(floordiv(i, k) if k > 1 else i for i, k in zip(idx, st))
        if not conds:
            return data[src]
        return tirop.if_then_else(tirop.all(*conds), data[src], fill)
    return compute(tuple(shape), body, name=name, tag="injective,dilate")


__all__ = ["pad", "mirror_pad", "dilate"]
