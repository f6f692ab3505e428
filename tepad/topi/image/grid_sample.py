"""``topi.image.grid_sample`` (PyTorch's ``grid_sample``): output pixel p of batch n
samples ``data[n]`` at the normalized coordinate ``grid[n, :, p]`` (channel 0 the x / W
coordinate, 1 the y / H one, 2 the z / D one in 3-D), mapped to pixels by
``(g + 1) * (size - 1) / 2`` (``align_corners``) or ``(g + 1) * size / 2 - 0.5``.

``padding_mode``: "zeros" (pixels outside read 0), "border" (the coordinate clamped to the
image), "reflection" (mirrored at the borders -- the pixel centres' span with
``align_corners``, else the image edges -- then clamped). ``method``: "nearest" (rounded,
halves to even), "bilinear" (2^d corners) or "bicubic" (2-D only: 4 x 4 taps, Keys
a = -0.75, each tap padded by ``padding_mode``)."""
from __future__ import annotations

from ... import tir
from ...errors import TepadError
from ...tensor import Tensor, compute
from ...tir import op as tirop
from ...tir.expr import const


def _f(v):
    return const(float(v), "float32")


def _unnormalize(g, size, align):
    if align:
        return (g + 1.0) * _f((size - 1) / 2)
    return (g + 1.0) * _f(size / 2) - 0.5


def _clip(x, size):
    return tirop.min(tirop.max(x, _f(0)), _f(size - 1))


def _reflect(x, size, align):
    # mirroring at both ends of [start, start + span] is a triangle wave of period 2 * span:
    # with m = |x - start| mod 2 * span, the image is start + span - |m - span| (x itself
    # inside the span); continuous, so no selects are needed
    span, start = (size - 1, 0.0) if align else (size, -0.5)
    if span == 0:
        return _f(0)
    a = tirop.abs(x - _f(start))
    m = a - tirop.floor(a / _f(2 * span)) * _f(2 * span)
    return _f(span + start) - tirop.abs(m - _f(span))


def _pad_coord(x, size, mode, align):
    if mode == "reflection":
        return _clip(_reflect(x, size, align), size)
    if mode == "border":
        return _clip(x, size)
    return x


def _cubic(t):
    a = -0.75
    def near(u):
        return ((a + 2) * u - (a + 3)) * u * u + 1

    def far(u):
        return ((a * u - 5 * a) * u + 8 * a) * u - 4 * a
    return [far(t + 1.0), near(t), near(1.0 - t), far(2.0 - t)]


def grid_sample(data: Tensor, grid: Tensor, method="bilinear", layout="NCHW",
                padding_mode="zeros", align_corners=True) -> Tensor:
    """``data`` NCHW (or NCDHW), ``grid`` (N, 2, H', W') (or (N, 3, D', H', W')) ->
    (N, C, H', W') (or (N, C, D', H', W')). See the module doc."""
    name = "topi.image.grid_sample"
    if layout not in ("NCHW", "NCDHW"):
        raise TepadError(f"{name}: layout must be 'NCHW' or 'NCDHW', got {layout!r}")
    d = len(layout) - 2
    if not isinstance(data, Tensor) or len(data.shape) != d + 2 or \
            not isinstance(grid, Tensor) or len(grid.shape) != d + 2:
        raise TepadError(f"{name}: data and grid must be {d + 2}-d te.Tensors for {layout}")
    if method not in ("nearest", "bilinear", "bicubic") or (method == "bicubic" and d == 3):
        raise TepadError(f"{name}: method {method!r}; 'nearest', 'bilinear' or (2-D only) "
                         "'bicubic'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise TepadError(f"{name}: padding_mode must be 'zeros', 'border' or 'reflection', "
                         f"got {padding_mode!r}")
    sizes = [int(s) for s in data.shape[2:]]
    if int(grid.shape[1]) != d:
        raise TepadError(f"{name}: grid has {grid.shape[1]} coordinate channels, {layout} "
                         f"needs {d}")
    align = bool(align_corners)

    def body(n, c, *p):
        def within(q, size):
            return tirop.all(q >= 0, q < size)

        def pixel(pos, clamped=False, conds=None):
            if clamped:         # padded coordinates lie in the image already
                return data[(n, c, *pos)].astype("float32")
            # per-axis tests built once per coordinate are shared by the taps using it
            conds = conds or [within(q, s) for q, s in zip(pos, sizes)]
            return tirop.if_then_else(tirop.all(*conds), data[(n, c, *pos)].astype("float32"),
                                      _f(0))
        # spatial axis k (0 = D or H ... last = W) reads grid channel d - 1 - k
        raw = [_unnormalize(grid[(n, d - 1 - k, *p)].astype("float32"), sizes[k], align)
               for k in range(d)]
        if method == "bicubic":
            base = [tirop.floor(r) for r in raw]
            frac = [r - b for r, b in zip(raw, base)]

            def tap(k, j):
                q = base[k] + float(j - 1)
                if padding_mode == "zeros":
                    return q.astype("int32")
                return _pad_coord(q, sizes[k], padding_mode, align).astype("int32")
            wy, wx = _cubic(frac[0]), _cubic(frac[1])
            # each row's and column's padded coordinate built once, shared by its 4 taps
            ty, tx = [tap(0, i) for i in range(4)], [tap(1, j) for j in range(4)]
            cy = [within(q, sizes[0]) for q in ty]
            cx = [within(q, sizes[1]) for q in tx]
            value = None
            for i in range(4):
                row = None
                for j in range(4):
                    term = pixel([ty[i], tx[j]], padding_mode != "zeros",
                                 [cy[i], cx[j]]) * wx[j]
                    row = term if row is None else row + term
                term = row * wy[i]
                value = term if value is None else value + term
            return value.astype(data.dtype)
        src = [_pad_coord(r, s, padding_mode, align) for r, s in zip(raw, sizes)]
        if method == "nearest":
            return pixel([tir.nearbyint(x).astype("int32") for x in src],
                         padding_mode != "zeros").astype(data.dtype)
        base = [tirop.floor(x) for x in src]
        frac = [x - b for x, b in zip(src, base)]
        lower = [b.astype("int32") for b in base]
        coords = [[lo, lo + 1] for lo in lower]
        if padding_mode != "zeros":
            # a padded coordinate is at most size - 1; on that edge the upper corner's
            # weight is 0, so reading the edge pixel instead is exact
            coords = [[lo, tirop.min(hi, s - 1)] for (lo, hi), s in zip(coords, sizes)]
        conds = [[within(q, s) for q in pair] for pair, s in zip(coords, sizes)]
        weights = [[1.0 - fr, fr] for fr in frac]
        value = None
        for corner in range(1 << d):
            w, pos, cs = None, [], []
            for k in range(d):
                bit = (corner >> (d - 1 - k)) & 1
                pos.append(coords[k][bit])
                cs.append(conds[k][bit])
                f = weights[k][bit]
                w = f if w is None else w * f
            term = pixel(pos, padding_mode != "zeros", cs) * w
            value = term if value is None else value + term
        return value.astype(data.dtype)

    shape = (data.shape[0], data.shape[1], *grid.shape[2:])
    return compute(shape, body, name="grid_sample", tag="grid_sample")


__all__ = ["grid_sample"]
