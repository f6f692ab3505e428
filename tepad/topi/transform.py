"""Shape and data movement operators of TVM's ``topi.transform`` (reexported as ``topi.*``):
``expand_dims``, ``transpose``, ``reshape``, ``squeeze``, ``concatenate``, ``stack``,
``split``, ``take``, ``strided_slice``, ``flip``, ``repeat``, ``tile``, ``where``, ``full``,
``full_like``, ``arange``, ``gather``.

Every operator is one or more compute stages tagged ``injective`` (schedules inline them).
Extents that shape the result (axes, split points, slice bounds) must be constant ints; a
wrong one is a TepadError naming the operator and argument."""
from __future__ import annotations

import math as _math

from ..errors import TepadError
from ..tensor import Tensor, compute, reduce_axis
from ..tensor import operation as te_op
from ..tir import op as tirop
from ..tir.expr import IntImm, const, convert, floordiv, floormod
from .broadcast import _reader, broadcast_shape
from .math import _to
from .utils import get_const_int, get_const_tuple

INJ = "injective"


def _tensor(x, what):
    if not isinstance(x, Tensor):
        raise TepadError(f"topi.{what} takes a te.Tensor, got {type(x).__name__} {x!r}")


def _axis(axis, ndim, what, extra=0):
    """``axis`` normalized into ``[0, ndim + extra)``."""
    n = ndim + extra
    if not isinstance(axis, int) or not -n <= axis < n:
        raise TepadError(f"topi.{what}: axis {axis!r} is out of range for {ndim} dimensions")
    return axis % n


def _const_shape(x, what):
    shape = get_const_tuple(x.shape)
    if not all(isinstance(s, int) for s in shape):
        raise TepadError(f"topi.{what}: {x.name}'s shape {list(x.shape)} must be constant")
    return shape


def expand_dims(a, axis, num_newaxis=1):
    """``a`` with ``num_newaxis`` axes of extent 1 inserted at ``axis`` (which may be
    ``-ndim-1 .. ndim``)."""
    _tensor(a, "expand_dims")
    n = len(a.shape)
    ax = _axis(axis, n, "expand_dims", extra=1)
    shape = list(a.shape[:ax]) + [1] * num_newaxis + list(a.shape[ax:])
    return compute(tuple(shape), lambda *i: a[i[:ax] + i[ax + num_newaxis:]],
                   name="T_expand_dims", tag="broadcast")


def transpose(a, axes=None):
    """``a`` with its axes permuted (``axes`` None reverses them; negative axes allowed)."""
    _tensor(a, "transpose")
    n = len(a.shape)
    axes = list(range(n))[::-1] if axes is None else [_axis(x, n, "transpose") for x in axes]
    if sorted(axes) != list(range(n)):
        raise TepadError(f"topi.transpose: axes {axes} are not a permutation of 0..{n - 1}")
    shape = tuple(a.shape[x] for x in axes)

    def body(*i):
        src = [None] * n
        for out_k, in_k in enumerate(axes):
            src[in_k] = i[out_k]
        return a[tuple(src)]
    return compute(shape, body, name="T_transpose", tag=INJ)


def _unravel(flat, shape):
    idx = []
    for s in reversed(shape):
        idx.append(floormod(flat, s))
        flat = floordiv(flat, s)
    return tuple(reversed(idx))


def _ravel(idx, shape):
    flat = const(0, "int32")
    for i, s in zip(idx, shape):
        flat = flat * s + i
    return flat


def reshape(a, newshape):
    """``a`` in row-major order with shape ``newshape`` (one extent may be -1: inferred)."""
    _tensor(a, "reshape")
    old = get_const_tuple(a.shape)
    new = list(newshape)
    if new.count(-1) > 1:
        raise TepadError(f"topi.reshape: newshape {new} has more than one -1")
    if all(isinstance(s, int) for s in old) and all(isinstance(s, int) for s in new):
        total = _math.prod(old)
        if -1 in new:
            rest = _math.prod(s for s in new if s != -1)
            if rest == 0 or total % rest:
                raise TepadError(f"topi.reshape: cannot infer -1 in {new} for {a.name} "
                                 f"{list(old)}")
            new[new.index(-1)] = total // rest
        if _math.prod(new) != total:
            raise TepadError(f"topi.reshape: {a.name} has {total} elements {list(old)}; "
                             f"newshape {new} has {_math.prod(new)}")
    if any(isinstance(e, int) and e == 0 for e in list(old) + new):   # no elements to read
        return compute(tuple(new), lambda *i: a[(const(0, "int32"),) * len(old)],
                       name="T_reshape", tag=INJ)
    return compute(tuple(new), lambda *i: a[_unravel(_ravel(i, new), a.shape)],
                   name="T_reshape", tag=INJ)


def squeeze(a, axis=None):
    """``a`` without its extent-1 axes (all of them, or those in ``axis``: an int or list)."""
    _tensor(a, "squeeze")
    shape = get_const_tuple(a.shape)
    n = len(shape)
    if axis is None:
        drop = [k for k, s in enumerate(shape) if s == 1]
    else:
        drop = sorted({_axis(x, n, "squeeze") for x in ([axis] if isinstance(axis, int)
                                                        else axis)})
        for k in drop:
            if shape[k] != 1:
                raise TepadError(f"topi.squeeze: axis {k} of {a.name} has extent {shape[k]}, "
                                 "not 1")
    keep = [k for k in range(n) if k not in drop]

    def body(*i):
        src, it = [], iter(i)
        for k in range(n):
            src.append(next(it) if k in keep else const(0, "int32"))
        return a[tuple(src)]
    return compute(tuple(a.shape[k] for k in keep), body, name="T_squeeze", tag=INJ)


def concatenate(a_tuple, axis=0):
    """The tensors of ``a_tuple`` (same dtype, same extents except along ``axis``) joined
    along ``axis``."""
    xs = list(a_tuple)
    if not xs:
        raise TepadError("topi.concatenate takes a non-empty list of tensors")
    for x in xs:
        _tensor(x, "concatenate")
    n = len(xs[0].shape)
    ax = _axis(axis, n, "concatenate")
    first = get_const_tuple(xs[0].shape)
    for x in xs[1:]:
        other = get_const_tuple(x.shape)
        if len(x.shape) != n or x.dtype != xs[0].dtype or any(
                k != ax and isinstance(a, int) and isinstance(b, int) and a != b
                for k, (a, b) in enumerate(zip(first, other))):
            raise TepadError(f"topi.concatenate: {x.name} {list(x.shape)} {x.dtype} does not "
                             f"match {xs[0].name} {list(xs[0].shape)} {xs[0].dtype} (all "
                             f"extents but axis {ax} and the dtype must agree)")
    sizes = [get_const_int(x.shape[ax]) for x in xs]
    offsets = [sum(sizes[:k]) for k in range(len(xs))]
    shape = list(xs[0].shape)
    shape[ax] = sum(sizes)

    def body(*i):
        j = i[ax]

        def at(k):
            return xs[k][i[:ax] + (j - offsets[k],) + i[ax + 1:]]
        out = at(len(xs) - 1)
        for k in range(len(xs) - 2, -1, -1):
            out = tirop.if_then_else(j < offsets[k] + sizes[k], at(k), out)
        return out
    return compute(tuple(shape), body, name="T_concat", tag=INJ)


def stack(a, axis=0):
    """The tensors of ``a`` (one shape and dtype) stacked along a new axis ``axis``."""
    xs = list(a)
    if not xs:
        raise TepadError("topi.stack takes a non-empty list of tensors")
    return concatenate([expand_dims(x, axis) for x in xs], axis)


def split(ary, indices_or_sections, axis=0):
    """``ary`` cut along ``axis``: into ``indices_or_sections`` equal parts (an int that
    divides the extent), or at the sorted indices of a list. Returns a list of tensors."""
    _tensor(ary, "split")
    n = len(ary.shape)
    ax = _axis(axis, n, "split")
    size = get_const_int(ary.shape[ax])
    if isinstance(indices_or_sections, int):
        parts = indices_or_sections
        if parts <= 0 or size % parts:
            raise TepadError(f"topi.split: {size} elements along axis {ax} of {ary.name} do "
                             f"not split into {parts} equal parts")
        cuts = [size // parts * k for k in range(1, parts)]
    else:
        cuts = [int(c) for c in indices_or_sections]
        if cuts != sorted(cuts) or any(not 0 <= c <= size for c in cuts):
            raise TepadError(f"topi.split: indices {cuts} must be sorted and within 0..{size}")
    bounds = [0] + cuts + [size]
    outs = []
    for b, e in zip(bounds[:-1], bounds[1:]):
        shape = list(ary.shape)
        shape[ax] = e - b
        outs.append(compute(tuple(shape),
                            lambda *i, b=b: ary[i[:ax] + (i[ax] + b,) + i[ax + 1:]],
                            name="T_split", tag=INJ))
    return outs


def take(a, indices, axis=None, batch_dims=0, mode="clip"):
    """Elements of ``a`` at ``indices`` (an int tensor, or an int): along ``axis``, or of the
    flattened ``a`` when ``axis`` is None. ``mode``: "clip" clamps indices into range, "wrap"
    wraps them (numpy's mode="wrap"), "fast" trusts them. ``batch_dims`` leading axes of
    ``indices`` and ``a`` correspond one to one."""
    _tensor(a, "take")
    if mode not in ("clip", "wrap", "fast"):
        raise TepadError(f"topi.take: mode must be 'clip', 'wrap' or 'fast', got {mode!r}")
    if axis is None:
        if batch_dims:
            raise TepadError("topi.take: batch_dims needs an axis")
        a = reshape(a, [_math.prod(_const_shape(a, "take"))])
        axis = 0
    n = len(a.shape)
    ax = _axis(axis, n, "take")
    extent = a.shape[ax]
    scalar = not isinstance(indices, Tensor)
    ishape = () if scalar else tuple(indices.shape)
    nb = batch_dims % len(ishape) if ishape and batch_dims < 0 else batch_dims

    def fix(v):
        v = v if v.dtype == "int32" else v.astype("int32")
        if mode == "clip":
            return tirop.min(tirop.max(v, 0), extent - 1)
        if mode == "wrap":
            return floormod(v, extent)
        return v
    shape = tuple(a.shape[:ax]) + ishape[nb:] + tuple(a.shape[ax + 1:])

    def body(*i):
        lead = i[:ax]
        mid = i[ax:ax + len(ishape) - nb]
        tail = i[ax + len(ishape) - nb:]
        if scalar:
            pos = convert(indices)
        else:
            pos = indices[tuple(lead[:nb]) + tuple(mid)]
        return a[tuple(lead) + (fix(pos),) + tuple(tail)]
    return compute(shape, body, name="T_take", tag=INJ)


def strided_slice(a, begin, end, strides=None, axes=None, slice_mode="end"):
    """numpy's ``a[begin:end:strides]`` on the axes ``axes`` (default: the leading ones):
    negative bounds count from the end, out-of-range bounds are clamped, negative strides
    walk backward; a None bound is the axis' end (numpy's omitted bound).
    ``slice_mode="size"``: ``end`` holds sizes (-1: to the end), strides 1. ``begin``,
    ``end`` or ``strides`` given as 1-d int tensors are read at run time (see
    ``topi.slicing``)."""
    _tensor(a, "strided_slice")
    if any(isinstance(x, Tensor) for x in (begin, end, strides)):
        if axes is not None:
            raise TepadError("topi.strided_slice: axes cannot be given with tensor bounds")
        return strided_slice_run_time(a, begin, end, strides)
    shape = _const_shape(a, "strided_slice")
    n = len(shape)
    begin = [None if b is None else int(get_const_int(b)) for b in begin]
    end = [None if e is None else int(get_const_int(e)) for e in end]
    axes = list(range(len(begin))) if axes is None else [_axis(x, n, "strided_slice")
                                                          for x in axes]
    strides = [1] * len(axes) if strides is None else [int(get_const_int(s)) for s in strides]
    strides = strides + [1] * (len(axes) - len(strides))
    if len(begin) != len(axes) or len(end) != len(axes):
        raise TepadError(f"topi.strided_slice: begin {begin} and end {end} need one entry per "
                         f"sliced axis ({len(axes)})")
    if slice_mode not in ("end", "size"):
        raise TepadError(f"topi.strided_slice: slice_mode must be 'end' or 'size', got "
                         f"{slice_mode!r}")
    starts, steps, lens = [0] * n, [1] * n, list(shape)
    for b, e, st, ax in zip(begin, end, strides, axes):
        if st == 0:
            raise TepadError(f"topi.strided_slice: stride of axis {ax} is 0")
        if slice_mode == "size":
            b = 0 if b is None else (b + shape[ax] if b < 0 else b)
            e = shape[ax] if e is None or e < 0 else b + e
            st = 1
        rng = range(*slice(b, e, st).indices(shape[ax]))
        starts[ax], steps[ax], lens[ax] = (rng.start if len(rng) else 0), st, len(rng)
    return compute(tuple(lens),
                   lambda *i: a[tuple(s + j * st for s, j, st in zip(starts, i, steps))],
                   name="T_strided_slice", tag=INJ)


def flip(a, axis=0):
    """``a`` reversed along ``axis``."""
    _tensor(a, "flip")
    ax = _axis(axis, len(a.shape), "flip")
    last = a.shape[ax] - 1
    return compute(a.shape, lambda *i: a[i[:ax] + (last - i[ax],) + i[ax + 1:]],
                   name="T_reverse_sequence", tag=INJ)


reverse = flip


def repeat(a, repeats, axis):
    """Each element of ``a`` repeated ``repeats`` times along ``axis`` (numpy's repeat)."""
    _tensor(a, "repeat")
    if not isinstance(repeats, int) or repeats < 1:
        raise TepadError(f"topi.repeat: repeats must be a positive int, got {repeats!r}")
    ax = _axis(axis, len(a.shape), "repeat")
    shape = list(a.shape)
    shape[ax] = shape[ax] * repeats
    return compute(tuple(shape), lambda *i: a[i[:ax] + (floordiv(i[ax], repeats),) +
                                              i[ax + 1:]], name="T_repeat", tag=INJ)


def tile(a, reps):
    """``a`` tiled ``reps[k]`` times along each axis (numpy's tile: a shorter ``reps`` or a
    shorter ``a`` is padded with leading ones)."""
    _tensor(a, "tile")
    reps = [int(r) for r in reps]
    n = max(len(reps), len(a.shape))
    reps = [1] * (n - len(reps)) + reps
    lead = n - len(a.shape)
    ashape = [IntImm(1, "int32")] * lead + list(a.shape)
    shape = tuple(s * r for s, r in zip(ashape, reps))

    def body(*i):     # an axis of extent 0 has no elements to read: index 0 stands in
        return a[tuple(floormod(j, s) if not (isinstance(s, IntImm) and s.value == 0) else j
                       for j, s in zip(i[lead:], ashape[lead:]))]
    return compute(shape, body, name="T_tile", tag=INJ)


def where(condition, x, y):
    """``x`` where ``condition`` is true (nonzero) else ``y``, all three broadcast together;
    ``x`` / ``y`` may be scalars when the other is a tensor."""
    shape = broadcast_shape(condition, broadcast_shape(x, y, "topi.where"), "topi.where")
    dtype = x.dtype if isinstance(x, Tensor) else (y.dtype if isinstance(y, Tensor)
                                                   else convert(x).dtype)
    rc = _reader(condition, len(shape), condition.dtype if isinstance(condition, Tensor)
                 else "bool")
    rx, ry = _reader(x, len(shape), dtype), _reader(y, len(shape), dtype)

    def body(*i):
        c = rc(i)
        c = c if c.dtype == "bool" else c != const(0, c.dtype)
        return tirop.if_then_else(c, rx(i), ry(i))
    return compute(shape, body, name="T_where", tag="broadcast")


def full(shape, dtype, fill_value):
    """A tensor of ``shape`` and ``dtype`` holding ``fill_value`` everywhere."""
    v = _to(convert(fill_value), dtype)
    return compute(tuple(shape), lambda *i: v, name="T_full", tag="elemwise")


def full_like(x, fill_value):
    """A tensor with ``x``'s shape and dtype holding ``fill_value``."""
    _tensor(x, "full_like")
    return full(x.shape, x.dtype, fill_value)


def arange(start, stop=None, step=1, dtype="float32"):
    """``start, start + step, ...`` below ``stop`` (numpy's arange; constant bounds)."""
    if stop is None:
        start, stop = 0, start
    count = int(_math.ceil((float(stop) - float(start)) / float(step)))
    if count <= 0:
        raise TepadError(f"topi.arange({start}, {stop}, {step}) is empty")
    return compute((count,), lambda i: _to(convert(start), dtype) +
                   _to(i, dtype) * _to(convert(step), dtype), name="T_arange", tag=INJ)


def gather(data, axis, indices):
    """``out[i..] = data[i.. with indices[i..] on axis]`` (numpy's take_along_axis); out has
    ``indices``' shape. Indices are clamped into range."""
    _tensor(data, "gather")
    _tensor(indices, "gather")
    n = len(data.shape)
    ax = _axis(axis, n, "gather")
    if len(indices.shape) != n:
        raise TepadError(f"topi.gather: {indices.name} needs {n} dimensions like {data.name}")
    ext = data.shape[ax]

    def body(*i):
        v = indices[i]
        v = v if v.dtype == "int32" else v.astype("int32")
        v = tirop.min(tirop.max(v, 0), ext - 1)
        return data[i[:ax] + (v,) + i[ax + 1:]]
    return compute(indices.shape, body, name="T_gather", tag=INJ)


def matmul(a, b, transp_a=False, transp_b=False):
    """The matrix product of 2-d ``a`` and ``b`` (each transposed first when asked):
    ``topi.nn.matmul`` without bias."""
    return nn_matmul(a, b, None, None, transp_a, transp_b)


def tensordot(a, b, axes):
    """numpy's ``tensordot``: ``axes`` an int N (the last N axes of ``a`` against the first
    N of ``b``) or two lists of axes to contract pairwise. One reduction stage."""
    _tensor(a, "tensordot")
    _tensor(b, "tensordot")
    na, nb = len(a.shape), len(b.shape)
    if isinstance(axes, int):
        if not 0 <= axes <= min(na, nb):
            raise TepadError(f"topi.tensordot: cannot contract {axes} axes of {na}-d and "
                             f"{nb}-d tensors")
        ax_a, ax_b = list(range(na - axes, na)), list(range(axes))
    else:
        ax_a, ax_b = axes
        ax_a = [ax_a] if isinstance(ax_a, int) else list(ax_a)
        ax_b = [ax_b] if isinstance(ax_b, int) else list(ax_b)
        ax_a = [_axis(x, na, "tensordot") for x in ax_a]
        ax_b = [_axis(x, nb, "tensordot") for x in ax_b]
    if len(ax_a) != len(ax_b) or any(
            get_const_tuple([a.shape[p]]) != get_const_tuple([b.shape[q]])
            for p, q in zip(ax_a, ax_b)):
        raise TepadError(f"topi.tensordot: axes {ax_a} of {a.name} {list(a.shape)} and "
                         f"{ax_b} of {b.name} {list(b.shape)} must pair up with equal extents")
    free_a = [k for k in range(na) if k not in ax_a]
    free_b = [k for k in range(nb) if k not in ax_b]
    rs = [reduce_axis((0, a.shape[p]), name=f"k{j}") for j, p in enumerate(ax_a)]
    shape = tuple(a.shape[k] for k in free_a) + tuple(b.shape[k] for k in free_b)

    def body(*i):
        ia, ib = [None] * na, [None] * nb
        for k, j in zip(free_a, i[:len(free_a)]):
            ia[k] = j
        for k, j in zip(free_b, i[len(free_a):]):
            ib[k] = j
        for r, p, q in zip(rs, ax_a, ax_b):
            ia[p], ib[q] = r, r
        prod_ = a[tuple(ia)] * b[tuple(ib)]
        return te_op.sum(prod_, axis=rs) if rs else prod_
    return compute(shape, body, name="T_tensordot", tag="tensordot")


def shape(array, dtype="int32"):
    """``array``'s shape as a 1-d tensor of ``dtype``."""
    _tensor(array, "shape")
    dims = list(array.shape)

    def body(i):
        out = _to(convert(dims[-1]), dtype) if dims else const(0, dtype)
        for k in range(len(dims) - 2, -1, -1):
            out = tirop.if_then_else(i == k, _to(convert(dims[k]), dtype), out)
        return out
    return compute((len(dims),), body, name="T_shape", tag=INJ)


def ndarray_size(array, dtype="int32"):
    """The number of elements of ``array`` as a 0-d tensor of ``dtype``."""
    _tensor(array, "ndarray_size")
    total = const(1, "int32")
    for e in array.shape:
        total = total * e
    return compute((), lambda: _to(total, dtype), name="ndarray_size", tag=INJ)


from .indexing import (adv_index, expand_like, gather_nd, invert_permutation,  # noqa: E402
                       matrix_set_diag, meshgrid, one_hot, sparse_to_dense, trilu,
                       unravel_index)
from .layout import layout_transform  # noqa: E402
from .nn.dense import matmul as nn_matmul  # noqa: E402
from .slicing import (dynamic_strided_slice, reverse_sequence, sequence_mask,  # noqa: E402
                      sliding_window, strided_set, strided_slice_run_time)
from .math import _legalize_hook  # noqa: E402

take_legalize = _legalize_hook("take_legalize")

__all__ = ["expand_dims", "transpose", "reshape", "squeeze", "concatenate", "stack", "split",
           "take", "strided_slice", "flip", "reverse", "repeat", "tile", "where", "full",
           "full_like", "arange", "gather", "matmul", "tensordot", "shape", "ndarray_size",
           "adv_index", "expand_like", "gather_nd", "invert_permutation", "matrix_set_diag",
           "meshgrid", "one_hot", "sparse_to_dense", "trilu", "unravel_index",
           "layout_transform", "dynamic_strided_slice", "reverse_sequence", "sequence_mask",
           "sliding_window", "strided_set", "take_legalize"]
