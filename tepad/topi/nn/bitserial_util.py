"""Bit packing for the bitserial operators (TVM's ``topi.nn.bitserial_util``)."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute
from ...tir import op as tirop
from ...tir.expr import IntImm, const

_WIDTHS = {"uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64}


def binary_op_multiplier(pack_dtype: str) -> int:
    """The number of bits one word of ``pack_dtype`` (``"uint8"`` ... ``"uint64"``) holds."""
    if pack_dtype not in _WIDTHS:
        raise TepadError(f"bitserial: pack_dtype must be one of {sorted(_WIDTHS)}, got "
                         f"{pack_dtype!r}")
    return _WIDTHS[pack_dtype]


def bitpack(data: Tensor, bits: int, pack_axis: int, bit_axis: int, pack_type: str,
            name="QuantizeInput") -> Tensor:
    """Bit-plane packing of the small unsigned integers in ``data``.

    Axis ``pack_axis`` of ``data`` (extent a multiple of the word width ``w`` of
    ``pack_type``) shrinks by ``w``; a new axis of extent ``bits`` is inserted at position
    ``bit_axis`` of the result. Element ``[.., b, .., q, ..]`` is the word whose bit
    ``w - 1 - j`` is bit ``b`` of ``data[.., q * w + j, ..]`` (the first element of a group
    lands in the most significant bit, as TVM packs). Stage ``name``, tag ``bitpack``."""
    width = binary_op_multiplier(pack_type)
    n = len(data.shape)
    if not 0 <= pack_axis < n or not 0 <= bit_axis <= n:
        raise TepadError(f"bitpack: pack_axis {pack_axis} / bit_axis {bit_axis} out of range "
                         f"for {data.name} ({n} dims)")
    ext = data.shape[pack_axis]
    if not isinstance(ext, IntImm) or ext.value % width:
        raise TepadError(f"bitpack: axis {pack_axis} of {data.name} ({ext}) must be a constant "
                         f"multiple of {width}, the bits of a {pack_type} word")
    if not isinstance(bits, int) or bits < 1:
        raise TepadError(f"bitpack: bits must be a positive int, got {bits!r}")
    shape = list(data.shape)
    shape[pack_axis] = ext.value // width
    shape.insert(bit_axis, bits)
    src_pack = pack_axis + 1 if bit_axis <= pack_axis else pack_axis

    def body(*idx):
        b = idx[bit_axis].astype(pack_type)
        rest = [i for k, i in enumerate(idx) if k != bit_axis]
        word = const(0, pack_type)
        for j in range(width):
            at = list(rest)
            at[pack_axis] = idx[src_pack] * width + j
            bit = (data[tuple(at)].astype(pack_type) >> b) & const(1, pack_type)
            word = word | (bit << const(width - 1 - j, pack_type))
        return word
    return compute(tuple(shape), body, name=name, tag="bitpack")


def default_tile(extent: int, cap: int) -> int:
    """The largest divisor of ``extent`` that is at most ``cap``."""
    return max(d for d in range(1, min(extent, cap) + 1) if extent % d == 0)


def popcount_as(x, dtype):
    """``popcount(x)`` widened to ``dtype``."""
    return tirop.popcount(x).astype(dtype)


__all__ = ["bitpack", "binary_op_multiplier"]
