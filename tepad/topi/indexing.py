"""Index-driven operators of TVM's ``topi.transform`` (reexported as ``topi.*``):
``gather_nd``, ``adv_index``, ``one_hot``, ``unravel_index``, ``sparse_to_dense``,
``matrix_set_diag``, ``trilu``, ``invert_permutation``, ``meshgrid``, ``expand_like``.

Each is one compute stage tagged ``injective`` (``invert_permutation`` is a reduction
over the permutation). Index tensors of any integer dtype are read as int32; indices out of
range are the caller's responsibility, as in TVM, unless a docstring says otherwise."""
from __future__ import annotations

from ..errors import TepadError
from ..tensor import Tensor, compute, reduce_axis
from ..tensor import operation as te_op
from ..tir import op as tirop
from ..tir.expr import IntImm, const, convert, floordiv, floormod
from .math import _to
from .utils import get_const_int, get_const_tuple

INJ = "injective"


def _tensor(x, what, arg="data"):
    if not isinstance(x, Tensor):
        raise TepadError(f"topi.{what}: {arg} must be a te.Tensor, got {type(x).__name__} "
                         f"{x!r}")


def _i32(v):
    return v if v.dtype == "int32" else v.astype("int32")


def _is_one(e):
    return isinstance(e, IntImm) and e.value == 1 or e == 1


def gather_nd(a, indices, batch_dims=0):
    """``out[y..., rest...] = a[indices[0, y...], ..., indices[M-1, y...], rest...]``:
    ``indices`` has shape (M, Y...) with M <= ndim(a); the result has shape
    ``Y... + a.shape[batch_dims + M:]``. ``batch_dims`` leading axes of ``a`` pair with
    the leading Y axes."""
    _tensor(a, "gather_nd", "a")
    _tensor(indices, "gather_nd", "indices")
    m = get_const_int(indices.shape[0])
    ishape = tuple(indices.shape[1:])
    if m + batch_dims > len(a.shape):
        raise TepadError(f"topi.gather_nd: {indices.name} indexes {m} axes after {batch_dims} "
                         f"batch axes but {a.name} has only {len(a.shape)}")
    shape = ishape + tuple(a.shape[batch_dims + m:])

    def body(*i):
        y, rest = i[:len(ishape)], i[len(ishape):]
        src = tuple(y[:batch_dims]) + tuple(_i32(indices[(k,) + tuple(y)]) for k in range(m))
        return a[src + tuple(rest)]
    return compute(shape, body, name="T_gather_nd", tag=INJ)


def _broadcast_shapes(shapes, what):
    n = max(len(s) for s in shapes)
    out = []
    for k in range(n):
        ext = IntImm(1, "int32")
        for s in shapes:
            e = s[k - n + len(s)] if k - n + len(s) >= 0 else IntImm(1, "int32")
            if _is_one(ext):
                ext = e
            elif not _is_one(e) and get_const_tuple([e]) != get_const_tuple([ext]):
                raise TepadError(f"topi.{what}: index shapes {[list(s) for s in shapes]} do "
                                 "not broadcast")
        out.append(ext)
    return out


def adv_index(data, indices):
    """numpy's advanced indexing ``data[indices[0], indices[1], ...]``: the index tensors
    broadcast together to shape B; the result has shape ``B + data.shape[len(indices):]``."""
    _tensor(data, "adv_index")
    indices = list(indices)
    if not indices or len(indices) > len(data.shape):
        raise TepadError(f"topi.adv_index: needs 1 to {len(data.shape)} index tensors for "
                         f"{data.name}, got {len(indices)}")
    for t in indices:
        _tensor(t, "adv_index", "an index")
    bshape = _broadcast_shapes([tuple(t.shape) for t in indices], "adv_index")
    nb = len(bshape)
    shape = tuple(bshape) + tuple(data.shape[len(indices):])

    def body(*i):
        b, rest = i[:nb], i[nb:]
        src = []
        for t in indices:
            lead = b[nb - len(t.shape):]
            src.append(_i32(t[tuple(0 if _is_one(e) else j for j, e in zip(lead, t.shape))]))
        return data[tuple(src) + tuple(rest)]
    return compute(shape, body, name="advanced_index", tag=INJ)


def one_hot(indices, on_value, off_value, depth, axis, dtype):
    """A tensor of ``dtype`` with a new axis of extent ``depth`` at ``axis`` (-1: last):
    ``on_value`` where the new axis' index equals ``indices``' value, else ``off_value``."""
    _tensor(indices, "one_hot", "indices")
    depth = get_const_int(depth)
    n = len(indices.shape)
    ax = n if axis == -1 else axis
    if not isinstance(ax, int) or not 0 <= ax <= n:
        raise TepadError(f"topi.one_hot: axis {axis} is out of range for {n + 1} dimensions")
    on, off = _to(convert(on_value), dtype), _to(convert(off_value), dtype)
    shape = tuple(indices.shape[:ax]) + (depth,) + tuple(indices.shape[ax:])

    def body(*i):
        idx = i[:ax] + i[ax + 1:]
        return tirop.if_then_else(_i32(indices[idx]) == i[ax], on, off)
    return compute(shape, body, name="T_one_hot", tag=INJ)


def unravel_index(indices, shape):
    """numpy's ``unravel_index``: coordinates of flat ``indices`` (a tensor; a 0-d or 1-d
    one) in an array of ``shape`` (a 1-d int tensor read at run time). Result shape
    ``(len(shape),) + indices.shape``, dtype of ``shape``."""
    _tensor(indices, "unravel_index", "indices")
    _tensor(shape, "unravel_index", "shape")
    if len(shape.shape) != 1:
        raise TepadError(f"topi.unravel_index: shape {shape.name} must be 1-d")
    ndim = get_const_int(shape.shape[0])
    dtype = shape.dtype

    def body(j, *i):
        flat = indices[i].astype(dtype)
        out = const(0, dtype)
        for k in range(ndim - 1, -1, -1):   # coordinate k: (flat // prod(shape[k+1:])) % shape[k]
            coord = flat
            for q in range(k + 1, ndim):
                coord = floordiv(coord, shape[q])
            coord = floormod(coord, shape[k])
            out = tirop.if_then_else(j == k, coord, out)
        return out
    return compute((ndim,) + tuple(indices.shape), body, name="T_unravel_index", tag=INJ)


def sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value=0):
    """A dense tensor of ``output_shape`` holding ``sparse_values`` (a scalar or one per
    index) at ``sparse_indices`` (0-d: one index of a 1-d result; 1-d: indices of a 1-d
    result; 2-d (N, ndim): N coordinates) and ``default_value`` (a number or a 0-d tensor)
    elsewhere. Indices are read at run time; where one repeats, the last wins."""
    _tensor(sparse_indices, "sparse_to_dense", "sparse_indices")
    _tensor(sparse_values, "sparse_to_dense", "sparse_values")
    ishape = get_const_tuple(sparse_indices.shape)
    if len(ishape) > 2 or len(sparse_values.shape) > 1:
        raise TepadError("topi.sparse_to_dense: sparse_indices must be 0-d, 1-d or 2-d and "
                         "sparse_values 0-d or 1-d")
    dtype = sparse_values.dtype
    count = 1 if not ishape else ishape[0]
    shape = tuple(int(get_const_int(s)) for s in output_shape)
    if len(ishape) < 2 and len(shape) != 1:
        raise TepadError(f"topi.sparse_to_dense: {len(ishape)}-d sparse_indices need a 1-d "
                         f"output_shape, got {list(shape)}")
    if default_value is None:
        default_value = 0

    def value(k):
        return sparse_values[()] if not sparse_values.shape else sparse_values[k]

    def hit(k, i):
        if not ishape:
            return _i32(sparse_indices[()]) == i[0]
        if len(ishape) == 1:
            return _i32(sparse_indices[k]) == i[0]
        return tirop.all(*[_i32(sparse_indices[k, d]) == i[d] for d in range(len(shape))])

    def body(*i):
        dv = default_value[()] if isinstance(default_value, Tensor) else \
            _to(convert(default_value), dtype)
        out = dv
        for k in range(count):
            out = tirop.if_then_else(hit(k, i), value(k), out)
        return out
    return compute(shape, body, name="T_sparse_to_dense", tag=INJ)


def matrix_set_diag(data, diagonal, k=0, align="RIGHT_LEFT"):
    """``data`` with diagonals ``k`` (an int, or ``(lo, hi)`` for a band) of its last two
    axes replaced by ``diagonal``. For a band, ``diagonal[..., d, :]`` is diagonal ``hi - d``
    and ``align`` ("LEFT_RIGHT", "LEFT_LEFT", "RIGHT_LEFT", "RIGHT_RIGHT": superdiagonals
    then subdiagonals) says which end of a short diagonal the padded row is aligned to."""
    _tensor(data, "matrix_set_diag")
    _tensor(diagonal, "matrix_set_diag", "diagonal")
    if align not in ("LEFT_RIGHT", "LEFT_LEFT", "RIGHT_LEFT", "RIGHT_RIGHT"):
        raise TepadError(f"topi.matrix_set_diag: align must be LEFT_RIGHT, LEFT_LEFT, "
                         f"RIGHT_LEFT or RIGHT_RIGHT, got {align!r}")
    lo, hi = (k, k) if isinstance(k, int) else (int(k[0]), int(k[1]))
    rows, cols = get_const_tuple(data.shape[-2:])
    max_len = get_const_int(diagonal.shape[-1])
    nd = len(data.shape)
    sup, sub = align.split("_")

    def body(*i):
        lead, r, c = i[:nd - 2], i[nd - 2], i[nd - 1]
        d = c - r
        if lo == hi:
            src = tuple(lead) + (tirop.min(r, c),)
        else:   # a short diagonal sits at the right end of its row when its side says RIGHT
            diag_len = tirop.min(rows + tirop.min(d, 0), cols - tirop.max(d, 0))
            pad_right = tirop.if_then_else(d >= 0, const(sup == "RIGHT", "bool"),
                                           const(sub == "RIGHT", "bool"))
            offset = tirop.if_then_else(pad_right, max_len - diag_len, const(0, "int32"))
            src = tuple(lead) + (hi - d, tirop.min(r, c) + offset)
        return tirop.if_then_else(tirop.all(d >= lo, d <= hi), diagonal[src], data[i])
    return compute(data.shape, body, name="T_matrix_set_diag", tag=INJ)


def trilu(data, k, upper):
    """The upper (``upper`` true: ``j - i >= k``) or lower (``j - i <= k``) triangle of the
    last two axes of ``data``, zeros elsewhere (numpy's triu / tril); ``k`` may be an
    expression."""
    _tensor(data, "trilu")
    if len(data.shape) < 2:
        raise TepadError(f"topi.trilu: {data.name} needs at least 2 dimensions")
    kk = _i32(convert(k))
    upper = bool(upper.value) if isinstance(upper, IntImm) else bool(upper)
    zero = const(0, data.dtype)

    def body(*i):
        r, c = i[-2], i[-1]
        keep = (c - r >= kk) if upper else (c - r <= kk)
        return tirop.if_then_else(keep, data[i], zero)
    return compute(data.shape, body, name="T_trilu", tag=INJ)


def invert_permutation(data):
    """The inverse of the 1-d permutation ``data``: ``out[data[i]] = i``."""
    _tensor(data, "invert_permutation")
    if len(data.shape) != 1:
        raise TepadError(f"topi.invert_permutation: {data.name} must be 1-d")
    n = data.shape[0]
    r = reduce_axis((0, n), name="r")
    return compute((n,), lambda j: te_op.sum(
        tirop.if_then_else(_i32(data[r]) == j, r.var.astype(data.dtype),
                           const(0, data.dtype)), axis=r),
        name="T_invert_permutation", tag="invert_permutation")


def meshgrid(a_tuple, indexing):
    """numpy's ``meshgrid`` of 1-d tensors: ``indexing`` "ij" (matrix) or "xy" (cartesian:
    the first two output axes swapped). Returns a list of tensors."""
    if indexing not in ("ij", "xy"):
        raise TepadError(f"topi.meshgrid: indexing must be 'ij' or 'xy', got {indexing!r}")
    xs = list(a_tuple)
    for x in xs:
        _tensor(x, "meshgrid", "an input")
    shape = [x.shape[0] for x in xs]
    if indexing == "xy" and len(xs) >= 2:
        shape[0], shape[1] = shape[1], shape[0]
    outs = []
    for n, x in enumerate(xs):
        pos = n if indexing == "ij" or len(xs) < 2 or n > 1 else 1 - n
        outs.append(compute(tuple(shape), lambda *i, x=x, pos=pos: x[i[pos]],
                            name="T_meshgrid", tag=INJ))
    return outs


def expand_like(a, shape_like, axis):
    """``a`` broadcast to ``shape_like``'s shape by inserting the axes ``axis`` (ints,
    negative ones counting from the end of the result); a 1-element 1-d ``a`` may fill any
    shape."""
    _tensor(a, "expand_like", "a")
    _tensor(shape_like, "expand_like", "shape_like")
    out_n = len(shape_like.shape)
    axis = list(axis)
    if len(axis) + len(a.shape) != out_n:
        if len(a.shape) == 1 and len(axis) == out_n:
            return compute(shape_like.shape, lambda *i: a[0], name="T_expand_like", tag=INJ)
        raise TepadError(f"topi.expand_like: {a.name} has {len(a.shape)} dimensions and "
                         f"{len(axis)} axes are inserted, but {shape_like.name} has {out_n}")
    new = set()
    for x in axis:
        if not -out_n <= x < out_n:
            raise TepadError(f"topi.expand_like: axis {x} is out of range for {out_n} "
                             "dimensions")
        new.add(x % out_n)
    return compute(shape_like.shape, lambda *i: a[tuple(j for q, j in enumerate(i)
                                                        if q not in new)],
                   name="T_expand_like", tag="broadcast")


__all__ = ["gather_nd", "adv_index", "one_hot", "unravel_index", "sparse_to_dense",
           "matrix_set_diag", "trilu", "invert_permutation", "meshgrid", "expand_like"]
