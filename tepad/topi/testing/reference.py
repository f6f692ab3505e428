"""numpy references for topi's operators (TVM's ``topi.testing``), written directly in numpy:
none of them uses topi's TE definitions, so a test comparing the two checks one against an
independent computation."""
from __future__ import annotations

import math

import numpy as np

from ...errors import TepadError


def _pads(padding, kernel):
    """(top, left, bottom, right) from an int, 2 or 4 ints, "SAME" or "VALID"."""
    kh, kw = kernel
    if isinstance(padding, str):
        if padding.upper() == "VALID":
            return 0, 0, 0, 0
        if padding.upper() == "SAME":
            ph, pw = kh - 1, kw - 1
            return (ph + 1) // 2, (pw + 1) // 2, ph - (ph + 1) // 2, pw - (pw + 1) // 2
        raise TepadError(f"padding {padding!r}: the strings are 'SAME' and 'VALID'")
    if isinstance(padding, int):
        return (padding,) * 4
    p = tuple(padding)
    return (p[0], p[1], p[0], p[1]) if len(p) == 2 else p


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _conv_nchw(x, w, stride, pads, dilation=(1, 1)):
    """x (N, C, H, W), w (O, C, KH, KW): float64 result."""
    sh, sw = stride
    dh, dw = dilation
    pt, pl, pb, pr = pads
    kh, kw = w.shape[2:]
    xp = np.pad(x.astype("float64"), ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    ekh, ekw = (kh - 1) * dh + 1, (kw - 1) * dw + 1
    oh = (xp.shape[2] - ekh) // sh + 1
    ow = (xp.shape[3] - ekw) // sw + 1
    w64 = w.astype("float64")
    out = np.zeros((x.shape[0], oh, ow, w.shape[0]))
    xl = np.ascontiguousarray(xp.transpose(0, 2, 3, 1))          # channels last
    for i in range(kh):
        for j in range(kw):
            # one matrix product per kernel tap: the strided input slice by w[:, :, i, j]
            patch = xl[:, i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw]
            out += patch @ w64[:, :, i, j].T
    return out.transpose(0, 3, 1, 2)


def conv2d_nchw_python(a_np, w_np, stride, padding, groups=1):
    """NCHW data, OIHW filter (``groups`` splits the channels)."""
    kh, kw = w_np.shape[2:]
    pads = _pads(padding, (kh, kw))
    if groups == 1:
        return _conv_nchw(a_np, w_np, _pair(stride), pads).astype(a_np.dtype)
    cg, og = a_np.shape[1] // groups, w_np.shape[0] // groups
    parts = [_conv_nchw(a_np[:, g * cg:(g + 1) * cg], w_np[g * og:(g + 1) * og],
                        _pair(stride), pads) for g in range(groups)]
    return np.concatenate(parts, axis=1).astype(a_np.dtype)


def conv2d_nhwc_python(a_np, w_np, stride, padding, groups=1):
    """NHWC data, HWIO filter."""
    out = conv2d_nchw_python(a_np.transpose(0, 3, 1, 2), w_np.transpose(3, 2, 0, 1), stride,
                             padding, groups)
    return out.transpose(0, 2, 3, 1)


def conv2d_hwcn_python(a_np, w_np, stride, padding):
    """HWCN data, HWIO filter, HWCN result."""
    out = conv2d_nchw_python(a_np.transpose(3, 2, 0, 1), w_np.transpose(3, 2, 0, 1), stride,
                             padding)
    return out.transpose(2, 3, 1, 0)


def depthwise_conv2d_python_nchw(input_np, filter_np, stride, padding):
    """NCHW data, filter (C, multiplier, KH, KW); output channel c reads input channel
    c // multiplier."""
    c, m, kh, kw = filter_np.shape
    pads = _pads(padding, (kh, kw))
    outs = [_conv_nchw(input_np[:, ch:ch + 1], filter_np[ch, :, None], _pair(stride), pads)
            for ch in range(c)]
    return np.concatenate(outs, axis=1).astype(input_np.dtype)


def depthwise_conv2d_python_nhwc(input_np, filter_np, stride, padding):
    """NHWC data, filter (KH, KW, C, multiplier)."""
    out = depthwise_conv2d_python_nchw(input_np.transpose(0, 3, 1, 2),
                                       filter_np.transpose(2, 3, 0, 1), stride, padding)
    return out.transpose(0, 2, 3, 1)


def depthwise_conv2d_python_nchwc(input_np, filter_np, stride, padding):
    """Blocked layouts: data (N, C/cb, H, W, cb), filter (OC/ob, 1, KH, KW, 1, ob), output
    (N, OC/ob, OH, OW, ob); output channel oc reads input channel oc // (OC / C)."""
    n, cc, h, w, cb = input_np.shape
    oc_chunk, _, kh, kw, _, ob = filter_np.shape
    c, out_c = cc * cb, oc_chunk * ob
    m = out_c // c
    data = input_np.transpose(0, 1, 4, 2, 3).reshape(n, c, h, w)
    # filter channel oc = chunk * ob + lane -> (input channel oc // m, multiplier oc % m)
    flat = filter_np[:, 0, :, :, 0, :].transpose(0, 3, 1, 2).reshape(out_c, kh, kw)
    filt = flat.reshape(c, m, kh, kw)
    out = depthwise_conv2d_python_nchw(data, filt, stride, padding)
    _, _, oh, ow = out.shape
    return out.reshape(n, oc_chunk, ob, oh, ow).transpose(0, 1, 3, 4, 2)


def conv2d_transpose_nchw_python(a_np, w_np, stride, padding, output_padding=(0, 0), groups=1):
    """The transposed convolution by scattering: every input cell adds its value times the
    filter into the (unpadded) output, then the padding is cut away. ``groups``: the input
    channels and the filter (C, O // groups, KH, KW) split into groups whose outputs are
    concatenated."""
    if groups != 1:
        cg = a_np.shape[1] // groups
        return np.concatenate(
            [conv2d_transpose_nchw_python(a_np[:, g * cg:(g + 1) * cg], w_np[g * cg:(g + 1) * cg],
                                          stride, padding, output_padding)
             for g in range(groups)], axis=1)
    n, c, h, w = a_np.shape
    _, o, kh, kw = w_np.shape
    sh, sw = _pair(stride)
    oph, opw = _pair(output_padding)
    pt, pl, pb, pr = _pads(padding, (kh, kw))
    full = np.zeros((n, o, (h - 1) * sh + kh + oph, (w - 1) * sw + kw + opw))
    for y in range(h):
        for x in range(w):
            full[:, :, y * sh:y * sh + kh, x * sw:x * sw + kw] += np.einsum(
                "nc,cohw->nohw", a_np[:, :, y, x].astype("float64"), w_np)
    return full[:, :, pt:full.shape[2] - pb, pl:full.shape[3] - pr].astype(a_np.dtype)


def softmax_python(a_np, axis=1):
    """softmax along ``axis``."""
    e = np.exp(a_np - a_np.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(a_np.dtype)


def log_softmax_python(a_np, axis=1):
    """log_softmax along ``axis``."""
    shifted = a_np - a_np.max(axis=axis, keepdims=True)
    return (shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))).astype(a_np.dtype)


def poolnd_python(np_data, kernel, strides, dilation, padding_before, padding_after,
                  pool_type, count_include_pad=True, ceil_mode=False, dtype="float32",
                  layout=None):
    """max / avg pooling over the spatial axes of ``layout`` (default: all axes after the
    first two). Loops over the kernel's offsets, each one gathering the input cell it reads
    for every output cell at once (with a mask of the reads that land inside the input)."""
    nd = len(kernel)
    layout = layout or "NC" + "DHW"[3 - nd:]
    sp = [layout.index(c) for c in layout if c not in "NC"]
    x = np.moveaxis(np_data.astype("float64"), sp, list(range(-nd, 0)))
    sizes = x.shape[-nd:]
    after = list(padding_after)
    eks = [(k - 1) * d + 1 for k, d in zip(kernel, dilation)]
    if ceil_mode:
        after = [a + s - 1 for a, s in zip(after, strides)]
    outs = [(n + b + a - e) // s + 1 for n, b, a, e, s in
            zip(sizes, padding_before, after, eks, strides)]
    shape = x.shape[:-nd] + tuple(outs)
    acc = np.full(shape, -np.inf if pool_type == "max" else 0.0)
    count = np.zeros(tuple(outs), dtype=np.int64)
    for offs in np.ndindex(*kernel):
        pos = [np.arange(o) * s + r * d - b for o, s, r, d, b in
               zip(outs, strides, offs, dilation, padding_before)]
        inside = [(p >= 0) & (p < n) for p, n in zip(pos, sizes)]
        mask = np.ones(tuple(outs), dtype=bool)
        for ax, ok in enumerate(inside):
            mask &= ok.reshape([-1 if a == ax else 1 for a in range(nd)])
        vals = x[(Ellipsis,) + np.ix_(*[np.clip(p, 0, n - 1) for p, n in zip(pos, sizes)])]
        if pool_type == "max":
            acc = np.maximum(acc, np.where(mask, vals, -np.inf))
        else:
            acc = acc + np.where(mask, vals, 0.0)
        count += mask
    if pool_type == "max":
        # a window of padding only: TVM's reference reads its padding, 0 (the dtype's
        # minimum without count_include_pad)
        empty = 0.0 if count_include_pad else float(np.finfo(dtype).min if "float" in dtype
                                                    else np.iinfo(dtype).min)
        res = np.where(count > 0, acc, empty)
    else:
        res = acc / (math.prod(kernel) if count_include_pad else np.maximum(count, 1))
    return np.moveaxis(res, list(range(-nd, 0)), sp).astype(dtype)


def adaptive_pool(np_data, out_size, pool_type, layout="NCHW"):
    """Adaptive pooling: output cell i covers input [floor(i*n/o), ceil((i+1)*n/o))."""
    names = [c for c in layout if c in "DHW"]
    sp = [layout.index(c) for c in names]
    x = np.moveaxis(np_data, sp, list(range(-len(sp), 0)))
    sizes = x.shape[-len(sp):]
    out_size = [out_size] * len(sp) if isinstance(out_size, int) else list(out_size)
    res = np.zeros(x.shape[:-len(sp)] + tuple(out_size), dtype=np_data.dtype)
    fn = np.max if pool_type == "max" else np.mean
    for cell in np.ndindex(*out_size):
        sl = tuple(slice((i * n) // o, -((-(i + 1) * n) // o))
                   for i, n, o in zip(cell, sizes, out_size))
        res[(...,) + cell] = fn(x[(...,) + sl], axis=tuple(range(-len(sp), 0)))
    return np.moveaxis(res, list(range(-len(sp), 0)), sp)


def _in_coord(x, n, o, mode):
    if mode == "half_pixel":
        return (x + 0.5) * n / o - 0.5
    if mode == "align_corners":
        return x * (n - 1) / (o - 1) if o > 1 else 0.0
    if mode == "asymmetric":
        return x * n / o
    raise TepadError(f"resize2d_python: coordinate mode {mode!r} is not covered")


def _keys_weights(t, a=-0.5):
    """Keys' cubic convolution weights of the 4 neighbours at offsets -1, 0, 1, 2 for a
    fractional position ``t`` (kernel W(d) = (a+2)|d|^3 - (a+3)|d|^2 + 1 for |d| <= 1,
    a|d|^3 - 5a|d|^2 + 8a|d| - 4a for 1 < |d| < 2)."""
    def kernel(d):
        d = abs(d)
        if d <= 1:
            return (a + 2) * d ** 3 - (a + 3) * d ** 2 + 1
        if d < 2:
            return a * d ** 3 - 5 * a * d ** 2 + 8 * a * d - 4 * a
        return 0.0
    return [kernel(t + 1), kernel(t), kernel(1 - t), kernel(2 - t)]


def resize2d_python(data, scale, layout="NCHW", method="nearest_neighbor",
                    coordinate_transformation_mode="align_corners"):
    """Resizing H and W by ``scale`` (sizes ``round(n * s)``): nearest (round half up for
    align_corners, else floor), linear or cubic (Keys, a = -0.5), indices clamped to the
    image. A packed layout "NCHW<i>n<j>c" (6-d) resizes each inner block as its own image."""
    if layout[:4] == "NCHW" and "n" in layout and "c" in layout:
        n, c, h, w, bn, bc = data.shape
        flat = data.transpose(0, 4, 1, 5, 2, 3).reshape(n * bn, c * bc, h, w)
        res = resize2d_python(flat, scale, "NCHW", method, coordinate_transformation_mode)
        return res.reshape(n, bn, c, bc, *res.shape[2:]).transpose(0, 2, 4, 5, 1, 3)
    x = data.transpose(0, 3, 1, 2) if layout == "NHWC" else data
    n, c, h, w = x.shape
    oh, ow = int(round(h * scale[0])), int(round(w * scale[1]))
    out = np.zeros((n, c, oh, ow), dtype="float64")
    mode = coordinate_transformation_mode
    for i in range(oh):
        for j in range(ow):
            cy, cx = _in_coord(i, h, oh, mode), _in_coord(j, w, ow, mode)
            if method == "nearest_neighbor":
                rnd = (lambda v: math.floor(v + 0.5)) if mode == "align_corners" else math.floor
                yy, xx = min(max(rnd(cy), 0), h - 1), min(max(rnd(cx), 0), w - 1)
                out[:, :, i, j] = x[:, :, yy, xx]
            else:
                y0, x0 = math.floor(cy), math.floor(cx)
                fy, fx = cy - y0, cx - x0

                def px(yy, xx):
                    return x[:, :, min(max(yy, 0), h - 1), min(max(xx, 0), w - 1)]
                if method == "cubic":
                    wy, wx = _keys_weights(fy), _keys_weights(fx)
                    out[:, :, i, j] = sum(wy[a] * wx[b] * px(y0 - 1 + a, x0 - 1 + b)
                                          for a in range(4) for b in range(4))
                    continue
                top = px(y0, x0) * (1 - fx) + px(y0, x0 + 1) * fx
                bot = px(y0 + 1, x0) * (1 - fx) + px(y0 + 1, x0 + 1) * fx
                out[:, :, i, j] = top * (1 - fy) + bot * fy
    out = out.astype(data.dtype)
    return out.transpose(0, 2, 3, 1) if layout == "NHWC" else out


def upsampling_python(data, scale, layout="NCHW"):
    """Nearest upsampling by integer ``scale`` (sh, sw): each pixel repeated."""
    hx, wx = (2, 3) if layout == "NCHW" else (1, 2)
    return np.repeat(np.repeat(data, int(scale[0]), axis=hx), int(scale[1]), axis=wx)


def batch_matmul(x, y, out_dtype=None, trans_x=False, trans_y=True):
    """Batched ``x @ y`` (``y`` given transposed by default), batch 1 broadcast; the
    operands are widened to ``out_dtype`` before the products (int8 -> int32 sums)."""
    dtype = out_dtype or x.dtype
    a = (np.swapaxes(x, 1, 2) if trans_x else x).astype(dtype)
    b = (np.swapaxes(y, 1, 2) if trans_y else y).astype(dtype)
    return np.matmul(a, b).astype(dtype)


def dense(x, y, bias=None, use_bias=False, use_relu=False, out_dtype=None):
    """``x @ y.T`` (+ bias) (then relu)."""
    out = x.astype("float64") @ y.astype("float64").T
    if use_bias:
        out = out + bias
    if use_relu:
        out = np.maximum(out, 0)
    return out.astype(out_dtype or x.dtype)


def lrn_python(a_np, size, axis, bias, alpha, beta):
    """Local response normalization over a window of ``size`` channels along ``axis``."""
    x = np.moveaxis(a_np.astype("float64"), axis, 1)
    c = x.shape[1]
    half = size // 2
    sq = np.zeros_like(x)
    for ch in range(c):
        lo, hi = max(0, ch - half), min(c, ch + half + 1)
        sq[:, ch] = (x[:, lo:hi] ** 2).sum(axis=1)
    out = x / (bias + alpha * sq / size) ** beta
    return np.moveaxis(out, 1, axis).astype(a_np.dtype)


def batch_norm(x, gamma, beta, moving_mean, moving_var, axis, epsilon, center, scale,
               training, momentum):
    """``[out, new_mean, new_var]`` as ``topi.nn.batch_norm`` returns them."""
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    others = tuple(k for k in range(x.ndim) if k != axis)
    if training:
        mean, var = x.mean(axis=others), x.var(axis=others)
    else:
        mean, var = moving_mean, moving_var
    out = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + epsilon)
    if scale:
        out = out * gamma.reshape(shape)
    if center:
        out = out + beta.reshape(shape)
    if training:
        m = 0.1 if momentum is None else momentum
        return [out, (1 - m) * moving_mean + m * mean, (1 - m) * moving_var + m * var]
    return [out, moving_mean, moving_var]


def strided_slice_python(data, begin, end, strides, slice_mode="end", axes=None):
    """numpy slicing by ``begin`` / ``end`` / ``strides`` on ``axes`` (default leading)."""
    axes = list(range(len(begin))) if axes is None else list(axes)
    strides = list(strides) if strides else [1] * len(axes)
    index = [slice(None)] * data.ndim
    for k, ax in enumerate(axes):
        b, e = begin[k], end[k]
        st = strides[k] if k < len(strides) else 1
        if slice_mode == "size":
            e = None if e is None or e < 0 else b + e
            st = 1
        index[ax] = slice(b, e, st)
    return data[tuple(index)]


__all__ = ["conv2d_nchw_python", "conv2d_nhwc_python", "conv2d_hwcn_python",
           "depthwise_conv2d_python_nchw", "depthwise_conv2d_python_nhwc",
           "depthwise_conv2d_python_nchwc",
           "conv2d_transpose_nchw_python", "softmax_python", "log_softmax_python",
           "poolnd_python", "adaptive_pool", "resize2d_python", "upsampling_python",
           "batch_matmul", "dense", "lrn_python", "batch_norm", "strided_slice_python"]
