"""Slicing operators of TVM's ``topi.transform`` whose bounds are read at run time or vary
per row (reexported as ``topi.*``): ``strided_slice`` with tensor bounds,
``dynamic_strided_slice``, ``strided_set``, ``reverse_sequence``, ``sequence_mask``,
``sliding_window``.

Run-time bounds follow numpy's slicing: a negative bound counts from the end, bounds are
clamped into the axis. A sliced result whose extent depends on run-time values has a
symbolic extent (a ``te.var``) that the output array passed to the built function fixes;
``dynamic_strided_slice`` takes the extents as ``output_shape``."""
from __future__ import annotations

from ..errors import TepadError
from ..tensor import Tensor, compute
from ..tensor import var as te_var
from ..tir import op as tirop
from ..tir.expr import const, convert
from .math import _to
from .utils import get_const_int, get_const_tuple

INJ = "injective"


def _tensor(x, what, arg="a"):
    if not isinstance(x, Tensor):
        raise TepadError(f"topi.{what}: {arg} must be a te.Tensor, got {type(x).__name__} "
                         f"{x!r}")


def _int_vector(t, n, what, arg, default):
    """``n`` int32 expressions: ``t``'s entries (a 1-d tensor, read at run time, or a list),
    ``default(k)`` past its end."""
    if t is None:
        return [default(k) for k in range(n)]
    if isinstance(t, Tensor):
        if len(t.shape) != 1:
            raise TepadError(f"topi.{what}: {arg} {t.name} must be a 1-d tensor")
        m = get_const_int(t.shape[0])
        return [t[k].astype("int32") if k < m else default(k) for k in range(n)]
    vals = list(t)
    return [convert(vals[k]).astype("int32") if k < len(vals) and vals[k] is not None
            else default(k) for k in range(n)]


def _canonical_begin(b, stride, dim):
    """numpy's start for a run-time begin ``b``: negatives count from the end, clamped to
    [0, dim] (stride > 0) or [-1, dim - 1] (stride < 0)."""
    b = tirop.if_then_else(b < 0, b + dim, b)
    return tirop.if_then_else(stride > 0, tirop.min(tirop.max(b, 0), dim),
                              tirop.min(tirop.max(b, -1), dim - 1))


def _run_time_slice(a, begin, end, strides, output_shape, what):
    shape = tuple(a.shape)
    n = len(shape)
    strides_e = _int_vector(strides, n, what, "strides", lambda k: const(1, "int32"))
    begin_e = _int_vector(begin, n, what, "begin",
                          lambda k: tirop.if_then_else(strides_e[k] > 0, const(0, "int32"),
                                                       shape[k] - 1))
    starts = [_canonical_begin(b, st, dim) for b, st, dim in zip(begin_e, strides_e, shape)]
    if output_shape is None:
        output_shape = [te_var(f"{what}_extent{k}") for k in range(n)]
    out_shape = tuple(output_shape)
    if len(out_shape) != n:
        raise TepadError(f"topi.{what}: output_shape {list(out_shape)} needs {n} extents")
    return compute(out_shape, lambda *i: a[tuple(s + j * st for s, j, st in
                                                  zip(starts, i, strides_e))],
                   name="T_strided_slice_dynamic", tag=INJ)


def dynamic_strided_slice(a, begin, end, strides, output_shape):
    """``a[begin:end:strides]`` with bounds read at run time (1-d int tensors or lists) and
    the result's extents given as ``output_shape`` (ints or expressions): element ``i`` of
    axis k reads ``a`` at ``begin'[k] + i * strides[k]``, ``begin'`` being numpy's
    canonical start. ``end`` is implied by ``output_shape``."""
    _tensor(a, "dynamic_strided_slice")
    return _run_time_slice(a, begin, end, strides, output_shape, "dynamic_strided_slice")


def strided_slice_run_time(a, begin, end, strides):
    """``strided_slice`` with tensor bounds: as ``dynamic_strided_slice`` with one symbolic
    extent per axis (fixed by the output array given to the built function)."""
    _tensor(a, "strided_slice")
    return _run_time_slice(a, begin, end, strides, None, "strided_slice")


def strided_set(a, v, begin, end, strides=None):
    """``a`` with ``a[begin:end:strides] = v``: ``begin`` / ``end`` / ``strides`` are 1-d
    int32 tensors read at run time (shorter than ndim: the remaining axes whole, stride 1);
    ``v`` has the slice's shape."""
    _tensor(a, "strided_set")
    _tensor(v, "strided_set", "v")
    for t, nm in ((begin, "begin"), (end, "end"), (strides, "strides")):
        if t is None and nm == "strides":
            continue
        _tensor(t, "strided_set", nm)
        if len(t.shape) != 1 or t.dtype != "int32":
            raise TepadError(f"topi.strided_set: {nm} {t.name} must be a 1-d int32 tensor, "
                             f"got {list(t.shape)} {t.dtype}")
    shape = tuple(a.shape)
    n = len(shape)
    st = _int_vector(strides, n, "strided_set", "strides", lambda k: const(1, "int32"))
    b = _int_vector(begin, n, "strided_set", "begin",
                    lambda k: tirop.if_then_else(st[k] > 0, const(0, "int32"), shape[k] - 1))
    e = _int_vector(end, n, "strided_set", "end",
                    lambda k: tirop.if_then_else(st[k] > 0, shape[k] + 0, const(-1, "int32")
                                                 - shape[k]))
    starts = [_canonical_begin(bk, sk, dim) for bk, sk, dim in zip(b, st, shape)]
    stops = []
    for ek, sk, dim in zip(e, st, shape):
        ek = tirop.if_then_else(ek < 0, ek + dim, ek)
        stops.append(tirop.if_then_else(sk > 0, tirop.min(tirop.max(ek, 0), dim),
                                         tirop.min(tirop.max(ek, -1), dim - 1)))

    def body(*i):
        inside, src = [], []
        for j, s0, s1, sk in zip(i, starts, stops, st):
            off = j - s0
            in_range = tirop.if_then_else(sk > 0, tirop.all(j >= s0, j < s1),
                                          tirop.all(j <= s0, j > s1))
            inside.append(tirop.all(in_range, tirop.floormod(off, sk) == 0))
            src.append(tirop.floordiv(off, sk))
        hit = tirop.all(*inside)
        safe = tuple(tirop.if_then_else(hit, x, const(0, "int32")) for x in src)
        return tirop.if_then_else(hit, v[safe], a[i])
    return compute(shape, body, name="strided_set", tag=INJ + ",strided_set")


def reverse_sequence(a, seq_lengths, seq_axis=1, batch_axis=0):
    """For each index ``b`` of ``batch_axis``, the first ``seq_lengths[b]`` elements along
    ``seq_axis`` reversed (lengths clamped to [1, extent]); the rest unchanged."""
    _tensor(a, "reverse_sequence")
    _tensor(seq_lengths, "reverse_sequence", "seq_lengths")
    n = len(a.shape)
    sa, ba = seq_axis % n if -n <= seq_axis < n else None, \
        batch_axis % n if -n <= batch_axis < n else None
    if sa is None or ba is None or sa == ba:
        raise TepadError(f"topi.reverse_sequence: seq_axis {seq_axis} and batch_axis "
                         f"{batch_axis} must be two different axes of {n}")
    nb, ns = get_const_tuple([a.shape[ba], seq_lengths.shape[0]])
    if nb != ns:
        raise TepadError("For reverse_sequnece seq_lengths size should match with dimension "
                         f"of batch axis, but got dimension of batch_axis = {nb}, and "
                         f"seq_length size = {ns}")
    ext = a.shape[sa]

    def body(*i):
        length = tirop.min(tirop.max(seq_lengths[i[ba]].astype("int32"), 1), ext)
        j = i[sa]
        src = list(i)
        src[sa] = tirop.if_then_else(j < length, length - 1 - j, j)
        return a[tuple(src)]
    return compute(a.shape, body, name="T_reverse_sequence", tag=INJ)


def sequence_mask(data, valid_length, mask_value=0, axis=0):
    """``data`` with the positions at or past ``valid_length[b]`` along ``axis`` (0: data is
    (length, batch, ...), 1: (batch, length, ...)) set to ``mask_value``."""
    _tensor(data, "sequence_mask", "data")
    _tensor(valid_length, "sequence_mask", "valid_length")
    if axis not in (0, 1):
        raise TepadError(f"topi.sequence_mask: axis must be 0 or 1, got {axis!r}")
    mv = _to(convert(mask_value), data.dtype)

    def body(*i):
        pos, b = i[axis], i[1 - axis]
        return tirop.if_then_else(pos < valid_length[b].astype("int32"), data[i], mv)
    return compute(data.shape, body, name="T_sequence_mask", tag=INJ)


def sliding_window(data, axis, window_shape, strides):
    """Windows of ``window_shape`` over the axes from ``axis`` on, stepped by ``strides``:
    shape ``data.shape[:axis] + (count_0, ...) + window_shape`` where ``count_k = (n_k -
    w_k) // s_k + 1``."""
    _tensor(data, "sliding_window", "data")
    n = len(data.shape)
    ax = axis % n if isinstance(axis, int) and -n <= axis < n else None
    win, steps = [int(w) for w in window_shape], [int(s) for s in strides]
    if ax is None or len(win) != n - ax or len(steps) != n - ax:
        raise TepadError(f"topi.sliding_window: axis {axis} with window {win} and strides "
                         f"{steps} does not fit {n} dimensions")
    dims = get_const_tuple(data.shape[ax:])
    counts = [(d - w) // s + 1 for d, w, s in zip(dims, win, steps)]
    if any(c <= 0 for c in counts):
        raise TepadError(f"topi.sliding_window: window {win} is larger than {list(dims)}")
    shape = tuple(data.shape[:ax]) + tuple(counts) + tuple(win)
    m = n - ax

    def body(*i):
        lead, where, inner = i[:ax], i[ax:ax + m], i[ax + m:]
        return data[tuple(lead) + tuple(w * s + q for w, s, q in zip(where, steps, inner))]
    return compute(shape, body, name="T_sliding_window", tag=INJ)


__all__ = ["dynamic_strided_slice", "strided_set", "reverse_sequence", "sequence_mask",
           "sliding_window"]
