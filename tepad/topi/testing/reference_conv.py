"""numpy references for the 1-D convolutions (TVM's ``topi.testing.conv1d_ncw_python`` and
``group_conv1d_ncw_python``), written as a sum over kernel taps of strided slices."""
from __future__ import annotations

import numpy as np

from ...errors import TepadError


def _pads1d(padding, ek):
    if isinstance(padding, str):
        if padding.upper() == "VALID":
            return 0, 0
        if padding.upper() == "SAME":
            return (ek - 1 + 1) // 2, (ek - 1) - (ek - 1 + 1) // 2
        raise TepadError(f"padding {padding!r}: the strings are 'SAME' and 'VALID'")
    if isinstance(padding, int):
        return padding, padding
    p = tuple(padding)
    return (p[0], p[0]) if len(p) == 1 else (p[0], p[1])


def _scalar(v):
    return v if isinstance(v, int) else tuple(v)[0]


def group_conv1d_ncw_python(a_np, w_np, stride, padding, dilation, groups):
    """NCW data (N, C, W), OIW kernel (O, C // groups, K): output (N, O, out_w)."""
    s, d = _scalar(stride), _scalar(dilation)
    n, c, w = a_np.shape
    o, cg, k = w_np.shape
    og = o // groups
    pl, pr = _pads1d(padding, (k - 1) * d + 1)
    x = np.pad(a_np.astype("float64"), ((0, 0), (0, 0), (pl, pr)))
    ow = (w + pl + pr - (k - 1) * d - 1) // s + 1
    out = np.zeros((n, o, ow))
    for g in range(groups):
        xg = x[:, g * cg:(g + 1) * cg]
        wg = w_np[g * og:(g + 1) * og].astype("float64")
        for t in range(k):
            cols = xg[:, :, t * d: t * d + (ow - 1) * s + 1: s]      # (N, cg, ow)
            out[:, g * og:(g + 1) * og] += np.einsum("ncw,oc->now", cols, wg[:, :, t])
    return out.astype(a_np.dtype)


def conv1d_ncw_python(a_np, w_np, stride, padding, dilation):
    """NCW data (N, C, W), OIW kernel (O, C, K): output (N, O, out_w)."""
    return group_conv1d_ncw_python(a_np, w_np, stride, padding, dilation, 1)





def space_to_batch_nd_python(data, block_shape, pad_before, pad_after, pad_value=0):
    """numpy: pad the spatial axes, split each into (d / b, b), move the block axes in front
    of the batch axis and merge them with it."""
    m = len(block_shape)
    pads = [(0, 0)] + list(zip(pad_before, pad_after)) + [(0, 0)] * (data.ndim - m - 1)
    x = np.pad(data, pads, constant_values=pad_value)
    n = x.shape[0]
    split = [n]
    for i, b in enumerate(block_shape):
        split += [x.shape[i + 1] // b, b]
    split += list(x.shape[m + 1:])
    x = x.reshape(split)
    block_axes = [2 + 2 * i for i in range(m)]
    outer_axes = [1 + 2 * i for i in range(m)]
    rest = list(range(2 * m + 1, x.ndim))
    x = x.transpose(block_axes + [0] + outer_axes + rest)
    return x.reshape([n * int(np.prod(block_shape))] + [x.shape[m + 1 + i] for i in range(m)]
                     + list(x.shape[2 * m + 1:]))


def batch_to_space_nd_python(data, block_shape, crop_begin_list, crop_end_list):
    """numpy: split the batch into (blocks..., N), interleave each block axis after its
    spatial axis, merge, then crop."""
    m = len(block_shape)
    n = data.shape[0] // int(np.prod(block_shape))
    x = data.reshape(list(block_shape) + [n] + list(data.shape[1:]))
    order = [m]
    for i in range(m):
        order += [m + 1 + i, i]
    order += list(range(2 * m + 1, x.ndim))
    x = x.transpose(order)
    merged = [n] + [data.shape[i + 1] * block_shape[i] for i in range(m)] + list(data.shape[m + 1:])
    x = x.reshape(merged)
    sl = [slice(None)] + [slice(crop_begin_list[i], merged[i + 1] - crop_end_list[i])
                          for i in range(m)]
    return x[tuple(sl)]


def reorg_python(a_np, stride):
    """YOLO's reorg as TVM defines it: the input read flat as (N, C / s^2, H * s, W * s),
    gathered into the input's shape, then reshaped to (N, C * s^2, H / s, W / s)."""
    n, c, h, w = a_np.shape
    s = stride
    x = a_np.reshape(n, c // (s * s), h * s, w * s)
    k = np.arange(c)
    c2, off = k % (c // (s * s)), k // (c // (s * s))
    rows = np.arange(h)[None, :] * s + (off // s)[:, None]        # (c, h)
    cols = np.arange(w)[None, :] * s + (off % s)[:, None]         # (c, w)
    y = x[:, c2[:, None, None], rows[:, :, None], cols[:, None, :]]
    return y.reshape(n, c * s * s, h // s, w // s)

def conv1d_transpose_ncw_python(a_np, w_np, stride, padding, output_padding):
    """NCW data (N, C, W), kernel (C, O, K): every input element scatters ``x * w[c, o, :]``
    to positions ``i * stride ...``; the full result is cropped by the padding (and extended
    by ``output_padding`` zeros-worth of positions on the right)."""
    s = _scalar(stride)
    op = _scalar(output_padding)
    n, c, w = a_np.shape
    _, o, k = w_np.shape
    if isinstance(padding, str):
        pl, pr = _pads1d(padding, k)
    else:
        pl, pr = _pads1d(padding, k)
    full = np.zeros((n, o, (w - 1) * s + k + op))
    contrib = np.einsum("ncw,cok->nowk", a_np.astype("float64"), w_np.astype("float64"))
    for i in range(w):
        full[:, :, i * s:i * s + k] += contrib[:, :, i]
    out_w = (w - 1) * s - pl - pr + k + op
    return full[:, :, pl:pl + out_w].astype(a_np.dtype)


__all__ = ["conv1d_transpose_ncw_python", "conv1d_ncw_python", "group_conv1d_ncw_python", "space_to_batch_nd_python",
           "batch_to_space_nd_python", "reorg_python"]


def conv3d_ncdhw_python(a_np, w_np, stride, padding, groups=1):
    """NCDHW data, OIDHW filter (O, C // groups, KD, KH, KW): a sum over kernel taps of
    strided slices of the zero-padded input."""
    s = (stride,) * 3 if isinstance(stride, int) else tuple(stride)
    n, c, *size = a_np.shape
    o, cg, *k = w_np.shape
    if isinstance(padding, str):
        if padding.upper() == "VALID":
            pads = [(0, 0)] * 3
        else:
            pads = [((x - 1 + 1) // 2, (x - 1) // 2) for x in k]
    elif isinstance(padding, int):
        pads = [(padding, padding)] * 3
    else:
        p = tuple(padding)
        pads = [(x, x) for x in p] if len(p) == 3 else [(p[i], p[i + 3]) for i in range(3)]
    x = np.pad(a_np.astype("float64"), [(0, 0), (0, 0)] + pads)
    out_sz = [(x.shape[2 + i] - k[i]) // s[i] + 1 for i in range(3)]
    og = o // groups
    out = np.zeros((n, o, *out_sz))
    for g in range(groups):
        xg = x[:, g * cg:(g + 1) * cg]
        wg = w_np[g * og:(g + 1) * og].astype("float64")
        for kz in range(k[0]):
            for ky in range(k[1]):
                for kx in range(k[2]):
                    patch = xg[:, :, kz:kz + (out_sz[0] - 1) * s[0] + 1:s[0],
                               ky:ky + (out_sz[1] - 1) * s[1] + 1:s[1],
                               kx:kx + (out_sz[2] - 1) * s[2] + 1:s[2]]
                    out[:, g * og:(g + 1) * og] += np.einsum("ncdhw,oc->nodhw", patch,
                                                             wg[:, :, kz, ky, kx])
    return out.astype(a_np.dtype)


__all__ += ["conv3d_ncdhw_python"]


def correlation_nchw_python(data1, data2, kernel_size, max_displacement, stride1, stride2,
                            padding, is_multiply):
    """FlowNet correlation in numpy: per displacement, the elementwise product (or absolute
    difference) of the padded inputs, box-summed over the kernel window and the channels,
    sampled at the stride-1 grid, divided by kernel_size^2 * channels."""
    n, c, h, w = data1.shape
    k, md = kernel_size, max_displacement
    p = np.pad(data1.astype("float64"), ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    q = np.pad(data2.astype("float64"), ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    border = md + (k - 1) // 2
    oh = (h + 2 * padding - 2 * border + stride1 - 1) // stride1
    ow = (w + 2 * padding - 2 * border + stride1 - 1) // stride1
    rad = md // stride2
    size = 2 * rad + 1
    out = np.zeros((n, size * size, oh, ow))
    ys = md + stride1 * np.arange(oh)
    xs = md + stride1 * np.arange(ow)
    for d in range(size * size):
        dy, dx = (d // size - rad) * stride2, (d % size - rad) * stride2
        for ky in range(k):
            for kx in range(k):
                a = p[:, :, ys[:, None] + ky, xs[None, :] + kx]
                b = q[:, :, ys[:, None] + ky + dy, xs[None, :] + kx + dx]
                out[:, d] += (a * b if is_multiply else np.abs(a - b)).sum(axis=1)
    return (out / float(k * k * c)).astype(data1.dtype)


__all__ += ["correlation_nchw_python"]


def affine_grid_python(data, target_shape):
    """numpy: the (x, y, 1) grid (TVM's step (2 - 1e-7) / (size - 1) from -1) times each
    batch's 2 x 3 matrix."""
    h, w = target_shape
    ys = -1.0 + np.arange(h) * ((2.0 - 1e-7) / (h - 1))
    xs = -1.0 + np.arange(w) * ((2.0 - 1e-7) / (w - 1))
    yy, xx = np.meshgrid(ys, xs, indexing="ij")
    pts = np.stack([xx, yy, np.ones_like(xx)])               # (3, H, W)
    return np.einsum("ndk,khw->ndhw", data.astype("float64"), pts).astype(data.dtype)


__all__ += ["affine_grid_python"]


def _axis_matrix(n_in, n_out, method, mode):
    """(n_out, n_in) interpolation weights of one axis (indices clamped to the image)."""
    m = np.zeros((n_out, n_in))
    for o in range(n_out):
        if mode == "align_corners":
            c = o * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        elif mode == "asymmetric":
            c = o * n_in / n_out
        else:                                    # half_pixel
            c = (o + 0.5) * n_in / n_out - 0.5
        if method == "nearest_neighbor":
            i = int(np.floor(c + 0.5)) if mode == "align_corners" else int(np.floor(c + 1e-5))
            m[o, min(max(i, 0), n_in - 1)] = 1.0
            continue
        base = int(np.floor(c))
        t = c - base
        if method == "linear":
            taps = {base: 1 - t, base + 1: t}
        else:                                    # cubic, Keys a = -0.5
            a = -0.5
            ws = [a * (t ** 3 - 2 * t ** 2 + t), (a + 2) * t ** 3 - (3 + a) * t ** 2 + 1,
                  -(a + 2) * t ** 3 + (3 + 2 * a) * t ** 2 - a * t, -a * t ** 3 + a * t ** 2]
            taps = {base - 1 + j: w for j, w in enumerate(ws)}
        for i, w in taps.items():
            m[o, min(max(i, 0), n_in - 1)] += w
    return m


def resize3d_python(data, scale, layout="NCDHW", method="nearest_neighbor",
                    coordinate_transformation_mode="align_corners"):
    """Resizing D, H and W by ``scale`` (sizes ``round(n * s)``), one axis at a time with a
    per-axis weight matrix (nearest, linear or cubic)."""
    method = {"trilinear": "linear", "tricubic": "cubic"}.get(method, method)
    x = data.astype("float64")
    for axis_name, s in zip("DHW", scale):
        ax = layout.index(axis_name)
        n_in = x.shape[ax]
        mat = _axis_matrix(n_in, int(round(n_in * s)), method, coordinate_transformation_mode)
        x = np.moveaxis(np.tensordot(mat, np.moveaxis(x, ax, 0), axes=([1], [0])), 0, ax)
    return x.astype(data.dtype)


__all__ += ["resize3d_python"]


def crop_and_resize_python(image, boxes, box_indices, crop_size, layout, method="bilinear",
                           extrapolation_value=0.0):
    """numpy, vectorized per box: the sample coordinates of the crop grid, bilinear (floor /
    ceil neighbours) or nearest (rounded), points outside the image set to
    ``extrapolation_value``."""
    img = image.transpose(0, 3, 1, 2) if layout == "NHWC" else image
    _, c, h, w = img.shape
    th, tw = crop_size
    out = np.zeros((len(box_indices), c, th, tw))

    def grid(lo, hi, size, n):
        if n > 1:
            return lo * (size - 1) + np.arange(n) * ((hi - lo) * (size - 1) / (n - 1))
        return np.array([0.5 * (lo + hi) * (size - 1)])
    for b, (box, k) in enumerate(zip(boxes.astype("float64"), box_indices)):
        ys, xs = grid(box[0], box[2], h, th), grid(box[1], box[3], w, tw)
        src = img[k].astype("float64")
        if method == "nearest_neighbor":
            yi = np.clip(np.floor(ys + 0.5).astype(int), 0, h - 1)
            xi = np.clip(np.floor(xs + 0.5).astype(int), 0, w - 1)
            val = src[:, yi[:, None], xi[None, :]]
        else:
            y0, y1 = np.clip(np.floor(ys).astype(int), 0, h - 1), np.clip(np.ceil(ys).astype(int), 0, h - 1)
            x0, x1 = np.clip(np.floor(xs).astype(int), 0, w - 1), np.clip(np.ceil(xs).astype(int), 0, w - 1)
            fy, fx = (ys - np.floor(ys))[:, None], (xs - np.floor(xs))[None, :]
            top = src[:, y0[:, None], x0[None, :]] * (1 - fx) + src[:, y0[:, None], x1[None, :]] * fx
            bot = src[:, y1[:, None], x0[None, :]] * (1 - fx) + src[:, y1[:, None], x1[None, :]] * fx
            val = top * (1 - fy) + bot * fy
        bad = ((ys < 0) | (ys > h - 1))[:, None] | ((xs < 0) | (xs > w - 1))[None, :]
        out[b] = np.where(bad[None], extrapolation_value, val)
    out = out.astype(image.dtype)
    return out.transpose(0, 2, 3, 1) if layout == "NHWC" else out


__all__ += ["crop_and_resize_python"]


def _gs_reflect(x, size, align):
    span, start = (size - 1, 0.0) if align else (size, -0.5)
    if span == 0:
        return np.zeros_like(x)
    a = np.abs(x - start)
    times = np.trunc(np.trunc(a) / span)
    extra = a - times * span
    mirrored = np.where(times % 2 == 0, extra + start, span - extra + start)
    return np.where((x >= start) & (x <= span + start), x, mirrored)


def _gs_pad(x, size, mode, align):
    if mode == "reflection":
        x = _gs_reflect(x, size, align)
    if mode in ("reflection", "border"):
        x = np.clip(x, 0, size - 1)
    return x


def grid_sample_python(data, grid, method="bilinear", layout="NCHW", padding_mode="zeros",
                       align_corners=True):
    """numpy grid_sample (NCHW or NCDHW): all output points of a batch at once; grid channel
    0 is x (the last axis), 1 y, 2 z."""
    d = data.ndim - 2
    n, c, *sizes = data.shape
    out = np.zeros((n, c) + grid.shape[2:])
    for b in range(n):
        img = data[b].astype("float64")
        raw = []
        for k in range(d):
            g = grid[b, d - 1 - k].astype("float64")
            s = sizes[k]
            raw.append((g + 1) * (s - 1) / 2 if align_corners else (g + 1) * s / 2 - 0.5)

        def pixel(pos):
            ok = np.ones(pos[0].shape, bool)
            for q, s in zip(pos, sizes):
                ok &= (q >= 0) & (q < s)
            safe = [np.clip(q, 0, s - 1) for q, s in zip(pos, sizes)]
            return np.where(ok[None], img[(slice(None), *safe)], 0.0)
        if method == "bicubic":
            a = -0.75

            def weights(t):
                near = lambda u: ((a + 2) * u - (a + 3)) * u * u + 1          # noqa: E731
                far = lambda u: ((a * u - 5 * a) * u + 8 * a) * u - 4 * a     # noqa: E731
                return [far(t + 1), near(t), near(1 - t), far(2 - t)]
            base = [np.floor(r) for r in raw]
            wy, wx = weights(raw[0] - base[0]), weights(raw[1] - base[1])

            def tap(k, j):
                q = base[k] + j - 1
                if padding_mode != "zeros":
                    q = _gs_pad(q, sizes[k], padding_mode, align_corners)
                return np.trunc(q).astype(int)
            acc = 0.0
            for i in range(4):
                for j in range(4):
                    acc = acc + pixel([tap(0, i), tap(1, j)]) * (wy[i] * wx[j])[None]
            out[b] = acc
            continue
        src = [_gs_pad(r, s, padding_mode, align_corners) for r, s in zip(raw, sizes)]
        if method == "nearest":
            out[b] = pixel([np.rint(x).astype(int) for x in src])
            continue
        base = [np.floor(x) for x in src]
        frac = [x - f for x, f in zip(src, base)]
        acc = 0.0
        for corner in range(1 << d):
            w, pos = 1.0, []
            for k in range(d):
                bit = (corner >> (d - 1 - k)) & 1
                pos.append(base[k].astype(int) + bit)
                w = w * (frac[k] if bit else 1 - frac[k])
            acc = acc + pixel(pos) * w[None]
        out[b] = acc
    return out.astype(data.dtype)


__all__ += ["grid_sample_python"]
