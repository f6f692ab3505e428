"""Pooling of ``topi.nn``: ``pool1d`` / ``pool2d`` (max or avg windows over the spatial axes
of a layout string such as "NCW", "NCHW", "NHWC"), ``global_pool`` and ``adaptive_pool``.
A pooled result is a ``tensor`` stage reading a padded input ``pad_temp``, as in TVM."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from ...tir import op as tirop
from ...tir.expr import const
from ..layout_parse import parse_layout
from .pad import pad
from .utils import const_extents, ints


# the pool kinds by the codes TVM's C++ pooling took
POOL_TYPE_CODE = {"avg": 0, "max": 1}

def _spatial(layout, data, what, names):
    if not isinstance(data, Tensor):
        raise TepadError(f"{what}: data must be a te.Tensor, got {data!r}")
    toks = parse_layout(layout)
    letters = [ltr for ltr, _ in toks]
    if any(f is not None and ltr.upper() in names for ltr, f in toks):
        raise TepadError(f"{what}: Unsupported layout {layout} (a pooled axis {names} is "
                         "split; only other axes, e.g. the C of NCHW16c, may be)")
    if len(toks) != len(data.shape):
        raise TepadError(f"{what}: layout {layout!r} has {len(toks)} axes but {data.name} "
                         f"has {len(data.shape)} dimensions")
    try:
        return [letters.index(c) for c in names]
    except ValueError:
        raise TepadError(f"{what}: layout {layout!r} lacks one of the axes {names}") from None


def _poolnd(what, data, kernel, stride, dilation, before, after, pool_type, ceil_mode,
            layout, count_include_pad, names):
    if pool_type not in ("max", "avg"):
        raise TepadError(f"{what}: pool_type must be 'max' or 'avg', got {pool_type!r}")
    d = len(names)
    axes = _spatial(layout, data, what, names)
    ks = ints(kernel, d, f"{what}: kernel")
    ss = ints(stride, d, f"{what}: stride")
    ds = ints(dilation, d, f"{what}: dilation")
    sizes = const_extents([data.shape[a] for a in axes], what, names)
    before, after = list(before), list(after)
    eks = [(k - 1) * dl + 1 for k, dl in zip(ks, ds)]
    if ceil_mode:
        after = [a + s - 1 for a, s in zip(after, ss)]
    outs = [(n + b + a - ek) // s + 1 for n, b, a, ek, s in zip(sizes, before, after, eks, ss)]
    if any(o <= 0 for o in outs):
        raise TepadError(f"{what}: a {'x'.join(map(str, ks))} window does not fit "
                         f"{data.name}'s {'x'.join(map(str, sizes))} (padding {before}, "
                         f"{after})")
    padded = data
    if any(before) or any(after):
        pb, pa = [0] * len(data.shape), [0] * len(data.shape)
        for a, b, e in zip(axes, before, after):
            pb[a], pa[a] = b, e
        fill = tirop.min_value(data.dtype) if pool_type == "max" else const(0, data.dtype)
        padded = pad(data, pb, pa, pad_value=fill, name="pad_temp")
    out_shape = list(data.shape)
    for a, o in zip(axes, outs):
        out_shape[a] = o
    rvs = [reduce_axis((0, k), name=f"rv{j}") for j, k in enumerate(ks)]

    def window(idx):
        src = list(idx)
        for a, r, s, dl in zip(axes, rvs, ss, ds):
            src[a] = idx[a] * s + r * dl
        return padded[tuple(src)]

    if pool_type == "max":
        return compute(tuple(out_shape), lambda *idx: te_op.max(window(idx), axis=rvs),
                       name="tensor", tag="pool_max")
    total = compute(tuple(out_shape), lambda *idx: te_op.sum(window(idx), axis=rvs),
                    name="tensor", tag="pool_sum")
    area = 1
    for k in ks:
        area *= k

    def average(*idx):
        if count_include_pad:
            return total[idx] / const(area, data.dtype)
        count = const(1, "int32")
        for a, s, b, ek, dl, n in zip(axes, ss, before, eks, ds, sizes):
            start = idx[a] * s - b
            lo = tirop.max(start, 0)
            hi = tirop.min(start + ek, n)
            # first window cell at or after lo: start + ceil((lo - start) / dl) * dl
            first = start + (lo - start + dl - 1) // dl * dl
            count = count * tirop.max((hi - first + dl - 1) // dl, 0)
        return total[idx] / tirop.max(count, 1).astype(data.dtype)
    return compute(tuple(out_shape), average, name="tensor", tag="elemwise")


def pool2d(data: Tensor, kernel, stride, dilation, padding, pool_type, ceil_mode=False,
           layout="NCHW", count_include_pad=True) -> Tensor:
    """2-D max or average pooling over the H and W axes of ``layout``.

    ``padding`` is (top, left, bottom, right); padded cells hold the reduction's identity for
    max and 0 for avg. ``ceil_mode`` rounds the output size up (the last window may hang
    over the bottom/right edge). Average pooling divides by the window size
    (``count_include_pad``) or by the number of real input cells in the window."""
    pt, pl, pb, pr = ints(padding, 4, "pool2d: padding")
    return _poolnd("pool2d", data, kernel, stride, dilation, (pt, pl), (pb, pr), pool_type,
                   ceil_mode, layout, count_include_pad, ("H", "W"))


def pool(data: Tensor, kernel, stride, padding, pool_type, ceil_mode=False, layout="NCHW",
         count_include_pad=True) -> Tensor:
    """TVM 0.6's name for 2-D pooling (no dilation argument): ``pool2d`` with dilation 1."""
    return pool2d(data, kernel, stride, (1, 1), padding, pool_type, ceil_mode, layout,
                  count_include_pad)


def pool1d(data: Tensor, kernel, stride, dilation, padding, pool_type, ceil_mode=False,
           layout="NCW", count_include_pad=True) -> Tensor:
    """1-D pooling over the W axis of ``layout`` ("NCW" or "NWC"); ``padding`` is
    (left, right); otherwise as ``pool2d``."""
    pl, pr = ints(padding, 2, "pool1d: padding")
    return _poolnd("pool1d", data, kernel, stride, dilation, (pl,), (pr,), pool_type,
                   ceil_mode, layout, count_include_pad, ("W",))


def pool3d(data: Tensor, kernel, stride, dilation, padding, pool_type, ceil_mode=False,
           layout="NCDHW", count_include_pad=True) -> Tensor:
    """3-D pooling over the D, H and W axes of ``layout`` ("NCDHW" or "NDHWC");
    ``padding`` is (front, top, left, back, bottom, right); otherwise as ``pool2d``."""
    p = ints(padding, 6, "pool3d: padding")
    return _poolnd("pool3d", data, kernel, stride, dilation, p[:3], p[3:], pool_type,
                   ceil_mode, layout, count_include_pad, ("D", "H", "W"))


def global_pool(data: Tensor, pool_type, layout="NCHW") -> Tensor:
    """Max or average over the whole H x W plane: H and W of the result are 1."""
    if pool_type not in ("max", "avg"):
        raise TepadError(f"global_pool: pool_type must be 'max' or 'avg', got {pool_type!r}")
    hx, wx = _spatial(layout, data, "global_pool", ("H", "W"))
    H, W = data.shape[hx], data.shape[wx]
    rh, rw = reduce_axis((0, H), name="rv0"), reduce_axis((0, W), name="rv1")
    shape = list(data.shape)
    shape[hx] = shape[wx] = 1

    def src(idx):
        s = list(idx)
        s[hx], s[wx] = rh, rw
        return data[tuple(s)]
    if pool_type == "max":
        return compute(tuple(shape), lambda *i: te_op.max(src(i), axis=[rh, rw]),
                       name="tensor", tag="global_pool_max")
    total = compute(tuple(shape), lambda *i: te_op.sum(src(i), axis=[rh, rw]), name="tensor",
                    tag="global_pool_sum")
    return compute(tuple(shape), lambda *i: total[i] / (H * W).astype(data.dtype),
                   name="tensor", tag="elemwise")


def _bounds(i, n, o):
    """Window of output cell ``i`` of ``o`` over ``n`` input cells: [floor(i*n/o),
    ceil((i+1)*n/o))."""
    return (i * n) // o, ((i + 1) * n + o - 1) // o


def adaptive_pool(data: Tensor, output_size, pool_type, layout="NCHW") -> Tensor:
    """Max or average pooling to a fixed ``output_size`` (oh, ow): output cell (i, j) covers
    input rows ``[floor(i*H/oh), ceil((i+1)*H/oh))`` and likewise columns (PyTorch's adaptive
    pooling). Windows of different sizes reduce over the largest one with a ``where``
    predicate (stage ``tensor``, tag ``adaptive_pool_max`` / ``adaptive_pool_sum``)."""
    return _adaptive("adaptive_pool", data, output_size, pool_type, layout, ("H", "W"))


def adaptive_pool1d(data: Tensor, output_size, pool_type, layout="NCW") -> Tensor:
    """``adaptive_pool`` over the W axis only."""
    return _adaptive("adaptive_pool1d", data, output_size, pool_type, layout, ("W",))


def adaptive_pool3d(data: Tensor, output_size, pool_type, layout="NCDHW") -> Tensor:
    """``adaptive_pool`` over the D, H and W axes."""
    return _adaptive("adaptive_pool3d", data, output_size, pool_type, layout, ("D", "H", "W"))


def _adaptive(what, data, output_size, pool_type, layout, names):
    if pool_type not in ("max", "avg"):
        raise TepadError(f"{what}: pool_type must be 'max' or 'avg', got {pool_type!r}")
    axes = _spatial(layout, data, what, names)
    sizes = const_extents([data.shape[a] for a in axes], what, names)
    if isinstance(output_size, int):
        output_size = [output_size] * len(names)
    outs = [sizes[k] if o is None else int(o) for k, o in enumerate(output_size)]
    if len(outs) != len(names) or any(o <= 0 for o in outs):
        raise TepadError(f"{what}: output_size {output_size!r} needs {len(names)} positive "
                         "ints")
    widest = [max(_bounds(i, n, o)[1] - _bounds(i, n, o)[0] for i in range(o))
              for n, o in zip(sizes, outs)]
    rvs = [reduce_axis((0, w), name=f"rv{k}") for k, w in enumerate(widest)]
    shape = list(data.shape)
    for a, o in zip(axes, outs):
        shape[a] = o

    def parts(idx):
        src, conds, count = list(idx), [], const(1, "int32")
        for a, r, n, o in zip(axes, rvs, sizes, outs):
            lo, hi = _bounds(idx[a], n, o)
            src[a] = tirop.min(lo + r, n - 1)
            conds.append(lo + r < hi)
            count = count * (hi - lo)
        return data[tuple(src)], tirop.all(*conds), count

    if pool_type == "max":
        return compute(tuple(shape), lambda *i: te_op.max(parts(i)[0], axis=rvs,
                                                          where=parts(i)[1]),
                       name="tensor", tag="adaptive_pool_max")
    total = compute(tuple(shape), lambda *i: te_op.sum(parts(i)[0], axis=rvs,
                                                       where=parts(i)[1]),
                    name="tensor", tag="adaptive_pool_sum")
    return compute(tuple(shape), lambda *i: total[i] / parts(i)[2].astype(data.dtype),
                   name="tensor", tag="elemwise")


__all__ = ["POOL_TYPE_CODE", "pool", "pool1d", "pool2d", "pool3d", "global_pool", "adaptive_pool",
           "adaptive_pool1d", "adaptive_pool3d"]
