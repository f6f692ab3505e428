"""numpy references (TVM's ``topi.testing``) for the LSTM, attention, l2 normalization,
older pooling / resizing entry points, ROI align / ROI pooling and slice_axis, written in
numpy without topi."""
from __future__ import annotations

import math

import numpy as np

from ...errors import TepadError
from .reference import poolnd_python, resize2d_python


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


_ACTS = {"sigmoid": _sigmoid, "tanh": np.tanh}


def lstm_python(Xs, Wi, Wh, Bi=None, Bh=None, h_init=None, c_init=None, proj=None, p_i=None,
                p_f=None, p_o=None, f_act="sigmoid", g_act="tanh", h_act="tanh",
                reverse=False, weight_layout="IFGO"):
    """An LSTM step by step (the contract of ``topi.nn.lstm``; activations named
    "sigmoid" / "tanh"). Returns (hidden states, cell states), each stacked over time."""
    acts = []
    for a in (f_act, g_act, h_act):
        if a not in _ACTS:
            raise TepadError(f"lstm_python: activations are 'sigmoid' or 'tanh', got {a!r}")
        acts.append(_ACTS[a])
    fa, ga, ha = acts
    seq, batch, _ = Xs.shape
    hidden = Wi.shape[0] // 4
    pos = {c: weight_layout.index(c) for c in "IFGO"}

    def gate(v, c):
        return v[..., pos[c] * hidden:(pos[c] + 1) * hidden]
    h = h_init if h_init is not None else np.zeros((batch, Wh.shape[1]), "float32")
    c = c_init if c_init is not None else np.zeros((batch, hidden), "float32")
    hs, cs = [], []
    for t in range(seq):
        x = Xs[seq - 1 - t if reverse else t]
        pre = x @ Wi.T + h @ Wh.T
        if Bi is not None:
            pre = pre + Bi
        if Bh is not None:
            pre = pre + Bh
        peep = p_i is not None and p_f is not None
        i = fa(gate(pre, "I") + (p_i * c if peep else 0))
        f = fa(gate(pre, "F") + (p_f * c if peep else 0))
        g = ga(gate(pre, "G"))
        c = f * c + i * g
        o = fa(gate(pre, "O") + (p_o * c if p_o is not None else 0))
        h = o * ha(c)
        if proj is not None:
            h = h @ proj.T
        hs.append(h)
        cs.append(c)
    return np.stack(hs), np.stack(cs)


def attention_python(q, k, v, bias, qk_scale, causal, window_size=None, layout="BSNH"):
    """Scaled dot-product attention. ``layout`` ("BSNH", "BNSH" or "SBNH") orders q (batch,
    seq, heads, dim), k / v (batch, seq_kv, kv_heads, .); kv heads are repeated to the
    query heads. ``qk_scale`` multiplies q @ k.T ("none": 1 / sqrt(dim)); ``bias`` (batch,
    heads, seq, seq_kv) is added; ``causal`` "none", "TopLeft" (query i sees keys <= i) or
    "BottomRight" (<= i + |seq - seq_kv|), and ``window_size`` keeps only the last
    ``window_size`` keys of that range. The result in ``layout``."""
    if layout not in ("BSNH", "BNSH", "SBNH"):
        raise TepadError(f"attention_python: layout is 'BSNH', 'BNSH' or 'SBNH', got {layout!r}")
    perm = [layout.index(c) for c in "BNSH"]
    q, k, v = (np.transpose(a, perm).astype("float64") for a in (q, k, v))
    rep = q.shape[1] // k.shape[1]
    k, v = np.repeat(k, rep, axis=1), np.repeat(v, rep, axis=1)
    scale = 1.0 / math.sqrt(q.shape[-1]) if isinstance(qk_scale, str) and qk_scale == "none" \
        else qk_scale
    score = q @ np.swapaxes(k, -1, -2) * scale
    if bias is not None:
        score = score + bias
    s, skv = score.shape[-2:]
    if causal != "none":
        if causal not in ("TopLeft", "BottomRight"):
            raise TepadError(f"attention_python: causal is 'none', 'TopLeft' or "
                             f"'BottomRight', got {causal!r}")
        off = 0 if causal == "TopLeft" else abs(s - skv)
        i, j = np.arange(s)[:, None], np.arange(skv)[None, :]
        keep = j <= i + off
        if window_size:
            keep &= j >= i - window_size + 1
        score = np.where(keep, score, -np.inf)
    e = np.exp(score - score.max(axis=-1, keepdims=True))
    out = (e / e.sum(axis=-1, keepdims=True)) @ v
    return np.transpose(out, np.argsort(perm))


def l2_normalize_python(a_np, eps, axis=None):
    """``a / sqrt(max(sum(a**2 over axis), eps))``."""
    sq = np.sum(a_np * a_np, axis=None if axis is None else tuple(axis), keepdims=True)
    return a_np / np.sqrt(np.maximum(np.broadcast_to(sq, a_np.shape), eps))


def slice_axis_python(data, axis, begin, end=None):
    """``data`` sliced along ``axis`` from ``begin`` to ``end`` (negative values count from
    the end; an ``end`` of 0 or None is the end)."""
    axis = axis + data.ndim if axis < 0 else axis
    n = data.shape[axis]
    begin = begin + n if begin < 0 else begin
    end = n if end is None else (end + n if end <= 0 else end)
    index = [slice(None)] * data.ndim
    index[axis] = slice(begin, end)
    return data[tuple(index)]


def _pool_checked(np_data, kernel, strides, before, after, out_shape, pool_type,
                  count_include_pad, ceil_mode, dtype, what):
    out = poolnd_python(np_data, kernel, strides, [1] * len(kernel), before, after, pool_type,
                        count_include_pad, ceil_mode, dtype)
    if out_shape is not None and tuple(out.shape) != tuple(out_shape):
        raise TepadError(f"{what}: the pooled shape is {tuple(out.shape)}, out_shape says "
                         f"{tuple(out_shape)}")
    return out


def pool1d_ncw_python(np_data, kernel, strides, padding, out_shape, pool_type,
                      count_include_pad=True, ceil_mode=False, dtype="float32"):
    """1-d max / avg pooling of (N, C, W); ``padding`` is (before, after)."""
    return _pool_checked(np_data, list(kernel), list(strides), [padding[0]], [padding[1]],
                         out_shape, pool_type, count_include_pad, ceil_mode, dtype,
                         "pool1d_ncw_python")


def pool3d_ncdhw_python(np_data, kernel, strides, padding, out_shape, pool_type,
                        count_include_pad=True, ceil_mode=False, dtype="float32"):
    """3-d max / avg pooling of (N, C, D, H, W); ``padding`` is (front, top, left, back,
    bottom, right)."""
    return _pool_checked(np_data, list(kernel), list(strides), list(padding[:3]),
                         list(padding[3:]), out_shape, pool_type, count_include_pad, ceil_mode,
                         dtype, "pool3d_ncdhw_python")


def resize1d_python(data, scale, layout="NCW", method="nearest_neighbor",
                    coordinate_transformation_mode="align_corners"):
    """Resizing W by ``scale[0]`` (size ``round(w * s)``) with ``resize2d_python``'s
    methods and coordinate modes (layouts NCW / NWC)."""
    if layout not in ("NCW", "NWC"):
        raise TepadError(f"resize1d_python: layout is 'NCW' or 'NWC', got {layout!r}")
    x = data if layout == "NCW" else data.transpose(0, 2, 1)
    s = scale[0] if isinstance(scale, (list, tuple)) else scale
    out = resize2d_python(x[:, :, None, :], (1, s), "NCHW", method,
                          coordinate_transformation_mode)[:, :, 0, :]
    return out if layout == "NCW" else out.transpose(0, 2, 1)


def bilinear_resize_python(image, out_size, layout, coordinate_transformation_mode="align_corners"):
    """Bilinear resizing of NCHW / NHWC ``image`` to ``out_size`` (height, width)."""
    h, w = image.shape[2:4] if layout == "NCHW" else image.shape[1:3]
    return resize2d_python(image, (out_size[0] / h, out_size[1] / w), layout, "linear",
                           coordinate_transformation_mode)


def trilinear_resize3d_python(data_in, out_size, layout,
                              coordinate_transformation_mode="align_corners"):
    """Trilinear resizing of NCDHW / NDHWC ``data_in`` to ``out_size`` (d, h, w): linear
    interpolation along each axis in turn."""
    if layout not in ("NCDHW", "NDHWC"):
        raise TepadError(f"trilinear_resize3d_python: layout is 'NCDHW' or 'NDHWC', got "
                         f"{layout!r}")
    x = data_in.astype("float64")
    for ax_name, o in zip("DHW", out_size):
        ax = layout.index(ax_name)
        x = np.moveaxis(x, ax, -1)
        n = x.shape[-1]
        pos = np.array([_coord(i, n, o, coordinate_transformation_mode) for i in range(o)])
        pos = np.clip(pos, 0, n - 1)
        lo = np.floor(pos).astype(int)
        hi = np.minimum(lo + 1, n - 1)
        t = pos - lo
        x = np.moveaxis(x[..., lo] * (1 - t) + x[..., hi] * t, -1, ax)
    return x.astype(data_in.dtype)


def _coord(i, n, o, mode):
    if mode == "half_pixel":
        return (i + 0.5) * n / o - 0.5
    if mode == "align_corners":
        return i * (n - 1) / (o - 1) if o > 1 else 0.0
    if mode == "asymmetric":
        return i * n / o
    raise TepadError(f"coordinate_transformation_mode {mode!r}: use 'half_pixel', "
                     "'align_corners' or 'asymmetric'")


def upsampling3d_python(data, scale, layout="NCDHW"):
    """Nearest upsampling of D, H, W by integer ``scale`` (each voxel repeated)."""
    axes = (2, 3, 4) if layout == "NCDHW" else (1, 2, 3)
    for ax, s in zip(axes, scale):
        data = np.repeat(data, int(s), axis=ax)
    return data


def grid_sample_nchw_python(data, grid, method="bilinear"):
    """Bilinear sampling of NCHW ``data`` at ``grid`` (N, 2, OH, OW) of x, y in [-1, 1]
    (corners aligned); points outside read zeros."""
    if method != "bilinear":
        raise TepadError(f"grid_sample_nchw_python: method is 'bilinear', got {method!r}")
    n, c, h, w = data.shape
    x = (grid[:, 0].astype("float64") + 1) * (w - 1) / 2
    y = (grid[:, 1].astype("float64") + 1) * (h - 1) / 2
    x0, y0 = np.floor(x).astype(int), np.floor(y).astype(int)
    out = np.zeros((n, c) + grid.shape[2:])
    for dy in (0, 1):
        for dx in (0, 1):
            yy, xx = y0 + dy, x0 + dx
            wgt = (1 - np.abs(y - yy)) * (1 - np.abs(x - xx))
            ok = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
            for b in range(n):
                vals = data[b][:, np.clip(yy[b], 0, h - 1), np.clip(xx[b], 0, w - 1)]
                out[b] += vals * np.where(ok[b], wgt[b], 0.0)
    return out.astype(data.dtype)


def _bilinear_at(img, y, x):
    """``img`` (C, H, W) at (y, x): 0 outside [-1, H] x [-1, W], else clamped bilinear."""
    _, h, w = img.shape
    if y < -1 or y > h or x < -1 or x > w:
        return np.zeros(img.shape[0])
    y, x = min(max(y, 0.0), h - 1.0), min(max(x, 0.0), w - 1.0)
    y0, x0 = int(math.floor(y)), int(math.floor(x))
    ty, tx = y - y0, x - x0
    acc = np.zeros(img.shape[0])
    for yy, wy in ((y0, 1 - ty), (y0 + 1, ty)):
        for xx, wx in ((x0, 1 - tx), (x0 + 1, tx)):
            if yy < h and xx < w:
                acc += wy * wx * img[:, yy, xx]
    return acc


def _pair(p):
    return (p, p) if isinstance(p, int) else tuple(p)


def _roi_align(img_nchw, rois, pooled_size, spatial_scale, sample_ratio, mode):
    if mode in (b"avg", "avg", 0):
        use_max = False
    elif mode in (b"max", "max", 1):
        use_max = True
    else:
        raise TepadError(f"roi_align: mode is 'avg' or 'max', got {mode!r}")
    ph, pw = _pair(pooled_size)
    c = img_nchw.shape[1]
    out = np.zeros((rois.shape[0], c, ph, pw))
    for r, roi in enumerate(rois.astype("float64")):
        img = img_nchw[int(roi[0])].astype("float64")
        x0, y0, x1, y1 = roi[1:] * spatial_scale
        rh, rw = max(y1 - y0, 1.0), max(x1 - x0, 1.0)
        bh, bw = rh / ph, rw / pw
        gh = int(sample_ratio) if sample_ratio > 0 else int(math.ceil(rh / ph))
        gw = int(sample_ratio) if sample_ratio > 0 else int(math.ceil(rw / pw))
        for i in range(ph):
            for j in range(pw):
                pts = [_bilinear_at(img, y0 + i * bh + (a + 0.5) * bh / gh,
                                    x0 + j * bw + (b + 0.5) * bw / gw)
                       for a in range(gh) for b in range(gw)]
                out[r, :, i, j] = np.max(pts, axis=0) if use_max else np.mean(pts, axis=0)
    return out


def roi_align_nchw_python(a_np, rois_np, pooled_size, spatial_scale, sample_ratio,
                          mode=b"avg"):
    """ROI align of NCHW ``a_np`` for ``rois_np`` (R, 5: batch index, x0, y0, x1, y1 in
    input pixels before ``spatial_scale``): each of the pooled_size bins averages (or
    takes the max of) ``sample_ratio`` x ``sample_ratio`` bilinear samples (an adaptive
    ``ceil(roi / pooled)`` per side when ``sample_ratio <= 0``); ROI sides are at least 1.
    Result (R, C, PH, PW)."""
    return _roi_align(a_np, rois_np, pooled_size, spatial_scale, sample_ratio,
                      mode).astype(a_np.dtype)


def roi_align_nhwc_python(a_np, rois_np, pooled_size, spatial_scale, sample_ratio,
                          mode=b"avg"):
    """``roi_align_nchw_python`` for NHWC input; result (R, PH, PW, C)."""
    out = _roi_align(a_np.transpose(0, 3, 1, 2), rois_np, pooled_size, spatial_scale,
                     sample_ratio, mode)
    return out.transpose(0, 2, 3, 1).astype(a_np.dtype)


def roi_pool_nchw_python(a_np, rois_np, pooled_size, spatial_scale):
    """ROI max pooling of NCHW ``a_np``: the ROI's corners rounded to input pixels after
    ``spatial_scale`` (both ends included), split into pooled_size bins of
    ``[floor(i * bin), ceil((i + 1) * bin))``, clipped to the image; an empty bin is 0."""
    ph, pw = _pair(pooled_size)
    _, c, h, w = a_np.shape
    out = np.zeros((rois_np.shape[0], c, ph, pw), a_np.dtype)
    for r, roi in enumerate(rois_np):
        b = int(roi[0])
        xs, ys, xe, ye = (int(round(v * spatial_scale)) for v in roi[1:])
        bh, bw = max(ye - ys + 1, 1) / ph, max(xe - xs + 1, 1) / pw
        for i in range(ph):
            h0 = min(max(int(math.floor(i * bh)) + ys, 0), h)
            h1 = min(max(int(math.ceil((i + 1) * bh)) + ys, 0), h)
            for j in range(pw):
                w0 = min(max(int(math.floor(j * bw)) + xs, 0), w)
                w1 = min(max(int(math.ceil((j + 1) * bw)) + xs, 0), w)
                if h1 > h0 and w1 > w0:
                    out[r, :, i, j] = a_np[b, :, h0:h1, w0:w1].max(axis=(1, 2))
    return out


__all__ = ["lstm_python", "attention_python", "l2_normalize_python", "slice_axis_python",
           "pool1d_ncw_python", "pool3d_ncdhw_python", "resize1d_python",
           "bilinear_resize_python", "trilinear_resize3d_python", "upsampling3d_python",
           "grid_sample_nchw_python", "roi_align_nchw_python", "roi_align_nhwc_python",
           "roi_pool_nchw_python"]
