"""numpy references for the rest of the convolution family (TVM's ``topi.testing``):
3-D NDHWC and transposed convolutions, the grouped transposed 1-D convolution, the NHWC
transposed 2-D convolution, deformable convolutions and the weight gradient of conv2d.
Written directly in numpy (scatter loops, explicit sampling), not from topi's definitions."""
from __future__ import annotations

import itertools
import math

import numpy as np

from ...errors import TepadError
from .reference import conv2d_transpose_nchw_python


def _tuple(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


def _pads(padding, ks):
    """(before, after) per spatial axis from an int, ``d`` ints, ``2d`` ints, "SAME" (odd
    cell before) or "VALID"."""
    d = len(ks)
    if isinstance(padding, str):
        if padding.upper() == "VALID":
            return [0] * d, [0] * d
        if padding.upper() == "SAME":
            return [k // 2 for k in ks], [(k - 1) // 2 for k in ks]
        raise TepadError(f"padding {padding!r}: the strings are 'SAME' and 'VALID'")
    if isinstance(padding, int):
        return [padding] * d, [padding] * d
    p = list(padding)
    if len(p) == d:
        return p, p
    if len(p) == 2 * d:
        return p[:d], p[d:]
    raise TepadError(f"padding must be an int, {d} or {2 * d} ints, 'SAME' or 'VALID'; got "
                     f"{padding!r}")


def _transpose_nd(a_np, w_np, strides, padding, output_padding, groups):
    """Channel-first data (N, C, *S), kernel (C, O // groups, *K): each input cell scatters
    its value times its kernel slice into the full output; the padding is then cut away."""
    n, c, *S = a_np.shape
    _, og, *K = w_np.shape
    d = len(S)
    st, op = _tuple(strides, d), _tuple(output_padding, d)
    before, after = _pads(padding, K)
    sizes = [(s - 1) * t + k + o for s, t, k, o in zip(S, st, K, op)]
    full = np.zeros((n, *sizes, og * groups))          # channels last: contiguous adds
    cg = c // groups
    a64, w64 = np.moveaxis(a_np.astype("float64"), 1, -1), w_np.astype("float64")
    for g in range(groups):
        ag, wg = a64[..., g * cg:(g + 1) * cg], w64[g * cg:(g + 1) * cg]
        for tap in itertools.product(*[range(k) for k in K]):
            # every input cell i sends a[i] * w[tap] to output cell i * stride + tap
            contrib = ag @ wg[(slice(None), slice(None), *tap)]
            sl = tuple(slice(t, t + (s - 1) * st_ + 1, st_) for t, s, st_ in zip(tap, S, st))
            full[(slice(None), *sl, slice(g * og, (g + 1) * og))] += contrib
    full = np.moveaxis(full, -1, 1)
    crop = tuple(slice(b, full.shape[2 + i] - a) for i, (b, a) in enumerate(zip(before, after)))
    return full[(slice(None), slice(None), *crop)].astype(a_np.dtype)


def group_conv1d_transpose_ncw_python(a_np, w_np, stride, padding, output_padding, groups=1):
    """NCW data, kernel (C, O // groups, K): the grouped transposed 1-D convolution."""
    return _transpose_nd(a_np, w_np, stride, padding, output_padding, groups)


def conv3d_transpose_ncdhw_python(a_np, w_np, stride, padding, output_padding, groups=1):
    """NCDHW data, kernel (C, O // groups, KD, KH, KW); ``padding`` an int, 3 or 6 ints."""
    return _transpose_nd(a_np, w_np, stride, padding, output_padding, groups)


def conv2d_transpose_nhwc_python(a_nhwc, weight, weight_format, stride, padding,
                                 output_padding=(0, 0)):
    """NHWC data; ``weight`` in ``weight_format`` "HWIO", "HWOI", "OIHW" or "IOHW" (I the
    data's channels); NHWC result."""
    perms = {"HWIO": (2, 3, 0, 1), "HWOI": (3, 2, 0, 1), "OIHW": (1, 0, 2, 3),
             "IOHW": (0, 1, 2, 3)}
    if weight_format not in perms:
        raise TepadError(f"conv2d_transpose_nhwc_python: weight_format {weight_format!r}; "
                         f"use one of {sorted(perms)}")
    out = conv2d_transpose_nchw_python(a_nhwc.transpose(0, 3, 1, 2),
                                       weight.transpose(perms[weight_format]), stride, padding,
                                       output_padding)
    return out.transpose(0, 2, 3, 1)


def conv3d_ndhwc_python(a_np, w_np, stride, padding, groups=1):
    """NDHWC data, DHWIO filter (KD, KH, KW, C // groups, O): a loop over kernel taps of
    strided slices of the zero-padded input."""
    n, *S, c = a_np.shape
    *K, cg, o = w_np.shape
    st = _tuple(stride, 3)
    before, after = _pads(padding, K)
    x = np.pad(a_np.astype("float64"), [(0, 0)] + list(zip(before, after)) + [(0, 0)])
    outs = [(x.shape[1 + i] - K[i]) // st[i] + 1 for i in range(3)]
    og = o // groups
    out = np.zeros((n, *outs, o))
    w64 = w_np.astype("float64")
    for g in range(groups):
        for kz, ky, kx in itertools.product(*[range(k) for k in K]):
            patch = x[:, kz:kz + (outs[0] - 1) * st[0] + 1:st[0],
                      ky:ky + (outs[1] - 1) * st[1] + 1:st[1],
                      kx:kx + (outs[2] - 1) * st[2] + 1:st[2], g * cg:(g + 1) * cg]
            out[..., g * og:(g + 1) * og] += patch @ w64[kz, ky, kx, :, g * og:(g + 1) * og]
    return out.astype(a_np.dtype)


def _sample(img, y, x):
    """Bilinear sample of the 2-d ``img`` at (y, x): 0 outside ``[0, H) x [0, W)``, and each
    of the four neighbours outside the image counts 0."""
    h, w = img.shape
    if y < 0 or x < 0 or y >= h or x >= w:
        return 0.0
    y0, x0 = math.floor(y), math.floor(x)
    fy, fx = y - y0, x - x0
    val = 0.0
    for yy, wy in ((y0, 1 - fy), (y0 + 1, fy)):
        for xx, wx in ((x0, 1 - fx), (x0 + 1, fx)):
            if 0 <= yy < h and 0 <= xx < w:
                val += wy * wx * float(img[yy, xx])
    return val


def deformable_conv2d_nchw_python(a_np, offset_np, w_np, stride, padding, dilation,
                                  deformable_groups, groups):
    """NCHW data, offset (N, deformable_groups * KH * KW * 2, OH, OW) holding (dy, dx) per
    tap, OIHW kernel: each tap samples the input bilinearly at its moved position."""
    if groups != 1:
        raise TepadError("deformable_conv2d_nchw_python: groups must be 1")
    n, c, h, w = a_np.shape
    o, _, kh, kw = w_np.shape
    oh, ow = offset_np.shape[2:]
    sh, sw = _tuple(stride, 2)
    dh, dw = _tuple(dilation, 2)
    (pt, pl), _ = _pads(padding, ((kh - 1) * dh + 1, (kw - 1) * dw + 1))
    cpg = c // deformable_groups
    cols = np.zeros((n, c, kh, kw, oh, ow))
    for b, y, x in itertools.product(range(n), range(oh), range(ow)):
        offs = offset_np[b, :, y, x].reshape(deformable_groups, kh, kw, 2)
        for ch, i, j in itertools.product(range(c), range(kh), range(kw)):
            dy, dx = offs[ch // cpg, i, j]
            cols[b, ch, i, j, y, x] = _sample(a_np[b, ch], y * sh - pt + i * dh + dy,
                                              x * sw - pl + j * dw + dx)
    return np.einsum("ncijyx,ocij->noyx", cols, w_np.astype("float64")).astype(a_np.dtype)


def deformable_conv2d_nhwc_python(a_np, offset_np, w_np, stride, padding, dilation,
                                  deformable_groups, groups):
    """NHWC data, offset (N, OH, OW, deformable_groups * KH * KW * 2), HWIO kernel."""
    out = deformable_conv2d_nchw_python(a_np.transpose(0, 3, 1, 2),
                                        offset_np.transpose(0, 3, 1, 2),
                                        w_np.transpose(3, 2, 0, 1), stride, padding, dilation,
                                        deformable_groups, groups)
    return out.transpose(0, 2, 3, 1)


def conv2d_backward_weight_python(dy_np, x_np, kernel_size, stride, padding, layout="NCHW",
                                  groups=1, channels=None):
    """The gradient of a conv2d's loss with respect to its weight: ``dy_np`` the output
    gradient and ``x_np`` the input (both NCHW, or NHWC with ``layout``); result OIHW
    (O, C // groups, KH, KW), or OHWI for NHWC. Each weight tap is the correlation of the
    strided input window with the output gradient, summed over batch and positions."""
    if layout == "NHWC":
        out = conv2d_backward_weight_python(dy_np.transpose(0, 3, 1, 2),
                                            x_np.transpose(0, 3, 1, 2), kernel_size, stride,
                                            padding, "NCHW", groups, channels)
        return out.transpose(0, 2, 3, 1)
    if layout != "NCHW":
        raise TepadError(f"conv2d_backward_weight_python: layout {layout!r}; use 'NCHW' or "
                         "'NHWC'")
    n, o, oh, ow = dy_np.shape
    _, c, h, w = x_np.shape
    kh, kw = _tuple(kernel_size, 2)
    sh, sw = _tuple(stride, 2)
    p = padding
    if not isinstance(p, (str, int)) and len(p) == 4:
        before, after = [p[0], p[1]], [p[2], p[3]]
    else:
        before, after = _pads(p, (kh, kw))
    xp = np.pad(x_np.astype("float64"), [(0, 0), (0, 0), (before[0], after[0]),
                                         (before[1], after[1])])
    cg, og = c // groups, o // groups
    dw = np.zeros((o, cg, kh, kw))
    dy64 = dy_np.astype("float64")
    for g in range(groups):
        for i, j in itertools.product(range(kh), range(kw)):
            win = xp[:, g * cg:(g + 1) * cg, i:i + (oh - 1) * sh + 1:sh, j:j + (ow - 1) * sw + 1:sw]
            dw[g * og:(g + 1) * og, :, i, j] = np.einsum(
                "nohw,nchw->oc", dy64[:, g * og:(g + 1) * og], win)
    return dw.astype(dy_np.dtype)


__all__ = ["group_conv1d_transpose_ncw_python", "conv3d_transpose_ncdhw_python",
           "conv2d_transpose_nhwc_python", "conv3d_ndhwc_python",
           "deformable_conv2d_nchw_python", "deformable_conv2d_nhwc_python",
           "conv2d_backward_weight_python"]
