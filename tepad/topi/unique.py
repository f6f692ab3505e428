"""``topi.unique``: the distinct elements of a 1-d tensor, as TVM returns them (outputs of
the input's length, the first ``num_unique`` entries meaningful).

Written as counting reductions over all pairs of elements (each O(n^2) work, no sort or
scan): an element is a *first occurrence* when no earlier element equals it; its *rank* is
the number of distinct smaller values (sorted) or of first occurrences before its own
(unsorted, the order of appearance). Every output stage is then a gather by rank."""
from __future__ import annotations

from ..errors import TepadError
from ..tensor import Tensor, compute, reduce_axis
from ..tensor import operation as te_op
from ..tir import op as tirop
from ..tir.expr import const


def _count(n, pred, name):
    """``sum_j pred(i, j)`` as an int32 stage of extent ``n``."""
    def body(i):
        j = reduce_axis((0, n), name="j")
        return te_op.sum(tirop.if_then_else(pred(i, j), const(1, "int32"), const(0, "int32")),
                         axis=j)
    return compute((n,), body, name=name, tag="unique_count")


def unique(data, is_sorted=True, return_counts=False):
    """The distinct values of 1-d ``data``: ``[unique, indices, inverse_indices, num_unique]``
    (+ ``counts`` with ``return_counts``). ``unique[r]`` is the r-th distinct value (in
    increasing order when ``is_sorted``, else in order of first appearance),
    ``indices[r]`` its first position in ``data``, ``counts[r]`` how often it occurs;
    ``inverse_indices[i]`` is the r of ``data[i]``; ``num_unique`` (shape (1,)) says how many
    entries of ``unique`` / ``indices`` / ``counts`` are valid (the rest are 0)."""
    if not isinstance(data, Tensor) or len(data.shape) != 1:
        raise TepadError(f"topi.unique: data must be a 1-d te.Tensor, got {data!r}")
    n = data.shape[0]
    dup_before = _count(n, lambda i, j: tirop.all(j < i, data[j] == data[i]),
                        "unique_dup_before")
    if is_sorted:
        rank = _count(n, lambda i, j: tirop.all(dup_before[j] == 0, data[j] < data[i]),
                      "unique_rank")
    else:
        def first_body(i):
            j = reduce_axis((0, n), name="j")
            return te_op.min(tirop.if_then_else(data[j] == data[i], j.var, n), axis=j)
        first = compute((n,), first_body, name="unique_first", tag="unique_count")
        # the order of appearance: first occurrences before data[i]'s own first occurrence
        rank = _count(n, lambda i, j: tirop.all(dup_before[j] == 0, j < first[i]),
                      "unique_rank")

    def gather(value, dtype, name):
        def body(r):
            i = reduce_axis((0, n), name="i")
            hit = tirop.all(dup_before[i] == 0, rank[i] == r)
            return te_op.sum(tirop.if_then_else(hit, value(i), const(0, dtype)), axis=i)
        return compute((n,), body, name=name, tag="unique_gather")

    uniq = gather(lambda i: data[i], data.dtype, "unique_values")
    indices = gather(lambda i: i.var, "int32", "unique_indices")
    inverse = compute((n,), lambda i: rank[i], name="unique_inverse_indices", tag="injective")
    def num_body(_):
        k = reduce_axis((0, n), name="k")
        return te_op.sum(tirop.if_then_else(dup_before[k] == 0, const(1, "int32"),
                                            const(0, "int32")), axis=k)
    num = compute((1,), num_body, name="unique_num", tag="unique_count")
    outs = [uniq, indices, inverse, num]
    if return_counts:
        outs.append(_count(n, lambda r, i: rank[i] == r, "unique_counts"))
    return outs


__all__ = ["unique"]
