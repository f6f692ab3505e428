"""TVM's ``topi.searchsorted`` module: ``searchsorted`` (the TE operator, see ``topi.scan``)
and ``binary_search``, the IRBuilder routine that extern kernels use to search one sorted
row."""
from __future__ import annotations

from ..errors import TepadError
from ..tir.expr import const
from ..tir.ir_builder import IRBuilder
from .scan import searchsorted


def binary_search(ib, sequence_offset, search_range, sorted_sequence, value, right,
                  out_dtype):
    """Emit into ``ib`` (an IRBuilder) a binary search of ``value`` in the sorted row
    ``sorted_sequence[sequence_offset : sequence_offset + search_range]`` (a buffer pointer
    indexed flat) and return the insertion index, an expression of ``out_dtype`` read from a
    local variable: the number of row elements ``< value`` (``right``: ``<= value``)."""
    if not isinstance(ib, IRBuilder):
        raise TepadError(f"topi.binary_search: ib must be an IRBuilder (tir.ir_builder.create()"
                         f"), got {ib!r}")
    lo = ib.allocate(out_dtype, (1,), name="lo", scope="local")
    hi = ib.allocate(out_dtype, (1,), name="hi", scope="local")
    lo[0] = const(0, out_dtype)
    hi[0] = const(search_range, out_dtype) if isinstance(search_range, int) \
        else search_range.astype(out_dtype)
    with ib.while_loop(lo[0] < hi[0]):
        mid = lo[0] + ((hi[0] - lo[0]) >> const(1, out_dtype))
        current = sorted_sequence[sequence_offset + mid]
        goes_right = (current <= value) if right else (current < value)
        with ib.if_scope(goes_right):
            lo[0] = mid + const(1, out_dtype)
        with ib.else_scope():
            hi[0] = mid
    return lo[0]


__all__ = ["binary_search", "searchsorted"]
