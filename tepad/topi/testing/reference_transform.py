"""numpy references of ``topi.testing`` for the data-movement operators (written directly
in numpy, independent of topi's TE definitions)."""
from __future__ import annotations

import numpy as np

from ...errors import TepadError


def gather_python(data, axis, indices):
    """``out[i..] = data[i.. with indices[i..] on axis]`` (numpy's take_along_axis)."""
    return np.take_along_axis(np.asarray(data), np.asarray(indices), axis=axis)


def gather_nd_python(a_np, indices_np):
    """``a_np[tuple(indices_np)]``: the first axis of ``indices_np`` indexes ``a_np``'s
    leading axes (float indices truncated toward zero, as a cast to int does)."""
    return np.asarray(a_np)[tuple(np.asarray(indices_np).astype(np.int64))]


def strided_set_python(data, v, begin, end, strides=None):
    """``data`` with ``data[begin:end:strides] = v`` (missing entries: whole axis,
    stride 1)."""
    out = np.array(data, copy=True)
    strides = list(strides or [])
    index = []
    for k in range(data.ndim):
        st = strides[k] if k < len(strides) else 1
        b = begin[k] if k < len(begin) else None
        e = end[k] if k < len(end) else None
        index.append(slice(b, e, st))
    out[tuple(index)] = v
    return out


def one_hot(indices, on_value, off_value, depth, axis, dtype):
    """A new axis of extent ``depth`` at ``axis`` (-1: last) holding ``on_value`` where it
    equals ``indices``, ``off_value`` elsewhere."""
    indices = np.asarray(indices)
    hot = np.arange(depth) == indices[..., None]
    hot = np.moveaxis(hot, -1, axis if axis >= 0 else hot.ndim - 1)
    return np.where(hot, on_value, off_value).astype(dtype)


def sequence_mask(data, valid_length, mask_value, axis):
    """``data`` with positions at or past ``valid_length[b]`` along ``axis`` (0 or 1, the
    other of the two leading axes is the batch) set to ``mask_value``."""
    if axis not in (0, 1):
        raise TepadError(f"sequence_mask: axis must be 0 or 1, got {axis!r}")
    pos = np.arange(data.shape[axis])
    keep = pos[:, None] < np.asarray(valid_length)[None, :]   # (length, batch)
    if axis == 1:
        keep = keep.T
    keep = keep.reshape(keep.shape + (1,) * (data.ndim - 2))
    return np.where(keep, data, mask_value).astype(data.dtype)


def matrix_set_diag(input_np, diagonal, k=0, align="RIGHT_LEFT"):
    """``input_np`` with diagonal(s) ``k`` of its last two axes set from ``diagonal`` (a band
    ``(lo, hi)``: row ``hi - d`` of ``diagonal`` is diagonal d, short diagonals aligned by
    ``align``, superdiagonal side first)."""
    out = np.array(input_np, copy=True)
    rows, cols = out.shape[-2:]
    lo, hi = (k, k) if np.isscalar(k) else (k[0], k[1])
    for d in range(lo, hi + 1):
        length = min(rows + min(d, 0), cols - max(d, 0))
        vals = diagonal if lo == hi else diagonal[..., hi - d, :]
        side = align.split("_")[0 if d >= 0 else 1]
        start = vals.shape[-1] - length if lo != hi and side == "RIGHT" else 0
        for t in range(length):
            r, c = (t, t + d) if d >= 0 else (t - d, t)
            out[..., r, c] = vals[..., start + t]
    return out


def dilate_python(input_np, strides, dilation_value=0.0, out_dtype=None):
    """``input_np`` with ``strides[k] - 1`` cells of ``dilation_value`` inserted between
    neighbours along each axis k."""
    strides = list(strides)
    if len(strides) != input_np.ndim:
        raise TepadError(f"dilate_python: {len(strides)} strides for {input_np.ndim} axes")
    shape = tuple((n - 1) * s + 1 for n, s in zip(input_np.shape, strides))
    out = np.full(shape, dilation_value, dtype=out_dtype or input_np.dtype)
    out[tuple(slice(None, None, s) for s in strides)] = input_np
    return out


def pool_grad_nchw(a_np, out_grad_np, pool_size, strides, padding, pool_type, ceil_mode,
                   count_include_pad=True):
    """The input gradient of 2-d NCHW pooling: each output window (clipped to the padded
    input) passes its gradient to its first maximum (max; padding never wins) or in equal
    shares to its cells (avg; shares of the window's padded-input cells, or of its real
    input cells without ``count_include_pad``)."""
    del ceil_mode                  # the window count comes from out_grad_np's shape
    n, c, ih, iw = a_np.shape
    kh, kw = pool_size
    sh, sw = strides
    pt, pl, pb, pr = padding
    padded = np.full((n, c, ih + pt + pb, iw + pl + pr), -np.inf)
    padded[:, :, pt:pt + ih, pl:pl + iw] = a_np
    grad = np.zeros(padded.shape)
    real = np.zeros(padded.shape[2:], dtype=bool)
    real[pt:pt + ih, pl:pl + iw] = True
    for i in range(out_grad_np.shape[2]):
        for j in range(out_grad_np.shape[3]):
            win = (slice(None), slice(None), slice(i * sh, i * sh + kh), slice(j * sw, j * sw + kw))
            g = out_grad_np[:, :, i, j]
            if pool_type == "avg":
                cells = real[win[2:]].sum() if not count_include_pad else \
                    padded[win].shape[2] * padded[win].shape[3]
                grad[win] += (g / max(cells, 1))[:, :, None, None]
            else:
                patch = padded[win].reshape(n, c, -1)
                first = patch.argmax(axis=2)
                wh, ww = padded[win].shape[2:]
                for b in range(n):
                    for ch in range(c):
                        r, q = divmod(first[b, ch], ww)
                        grad[b, ch, i * sh + r, j * sw + q] += g[b, ch]
    return grad[:, :, pt:pt + ih, pl:pl + iw].astype(a_np.dtype)


__all__ = ["pool_grad_nchw", "gather_python", "gather_nd_python", "strided_set_python", "one_hot",
           "sequence_mask", "matrix_set_diag", "dilate_python"]


def _norm(x, axes, eps):
    x = x.astype(np.float32) if x.dtype == np.float16 else x
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


def _param_view(p, data_ndim, axes):
    shape = [1] * data_ndim
    for k, a in enumerate(axes):
        shape[a] = p.shape[k]
    return p.reshape(shape)


def layer_norm_python(data, gamma, beta, axis, epsilon=1e-5):
    """Normalize over ``axis`` (mean and variance there), times ``gamma`` plus ``beta``
    (shaped like the normalized axes; beta may be None)."""
    axes = tuple(sorted(a % data.ndim for a in np.atleast_1d(axis)))
    out = _norm(data, axes, epsilon) * _param_view(gamma, data.ndim, axes)
    if beta is not None:
        out = out + _param_view(beta, data.ndim, axes)
    return out.astype(data.dtype)


instance_norm_python = layer_norm_python


def rms_norm_python(data, weight, axis, epsilon=1e-5):
    """``data / sqrt(mean(data**2 over axis) + epsilon) * weight``."""
    axes = tuple(sorted(a % data.ndim for a in np.atleast_1d(axis)))
    x = data.astype(np.float32) if data.dtype == np.float16 else data
    out = x / np.sqrt((x * x).mean(axis=axes, keepdims=True) + epsilon)
    return (out * _param_view(weight, data.ndim, axes)).astype(data.dtype)


def group_norm_python(data, gamma, beta, num_groups, channel_axis, axes, epsilon=1e-5):
    """Channels cut into ``num_groups`` groups, each normalized over its channels and
    ``axes``; then per-channel ``gamma`` / ``beta``."""
    ca = channel_axis % data.ndim
    c = data.shape[ca]
    shape = data.shape[:ca] + (num_groups, c // num_groups) + data.shape[ca + 1:]
    split = data.reshape(shape)
    red = tuple(sorted([ca + 1] + [a % data.ndim + (1 if a % data.ndim > ca else 0)
                                   for a in np.atleast_1d(axes)]))
    out = _norm(split, red, epsilon).reshape(data.shape)
    view = [1] * data.ndim
    view[ca] = c
    out = out * gamma.reshape(view) + beta.reshape(view)
    return out.astype(data.dtype)


def nll_loss(predictions, targets, weights, reduction="mean", ignore_index=-100):
    """The negative log-likelihood loss: per element ``-predictions[n, t, ...] *
    weights[t]`` (0 where ``t == ignore_index``), summed, averaged over the weights used,
    or not reduced."""
    targets = np.asarray(targets)
    shape = targets.shape
    if predictions.ndim == 1:
        predictions, targets = predictions[None], targets[None]
    keep = targets != ignore_index
    t = np.where(keep, targets, 0)
    picked = np.take_along_axis(predictions, t[:, None], axis=1)[:, 0]
    w = np.where(keep, weights[t], 0)
    loss = -picked * w
    if reduction == "none":
        return loss.reshape(shape)
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / w.sum()


__all__ += ["layer_norm_python", "instance_norm_python", "rms_norm_python",
            "group_norm_python", "nll_loss"]


def searchsorted_ref(sorted_sequence, values, right, out_dtype):
    """numpy's searchsorted row by row (a 1-d sequence serves every value)."""
    side = "right" if right else "left"
    if sorted_sequence.ndim == 1:
        return np.searchsorted(sorted_sequence, values, side=side).astype(out_dtype)
    seq = sorted_sequence.reshape(-1, sorted_sequence.shape[-1])
    vals = values.reshape(-1, values.shape[-1])
    out = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(seq, vals)])
    return out.reshape(values.shape).astype(out_dtype)


__all__ += ["searchsorted_ref"]


def depth_to_space_python(data, block_size, mode="DCR"):
    """NCHW depth-to-space by reshapes: channels split as (b, b, C) for "DCR", (C, b, b)
    for "CDR" (ONNX's "CRD"), then interleaved into H and W."""
    n, c, h, w = data.shape
    b = block_size
    if mode == "DCR":
        x = data.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        x = data.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return x.reshape(n, c // (b * b), h * b, w * b)


def space_to_depth_python(data, block_size):
    """NCHW space-to-depth: each b x b block becomes channels, block offset outermost."""
    n, c, h, w = data.shape
    b = block_size
    x = data.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return x.reshape(n, c * b * b, h // b, w // b)


__all__ += ["depth_to_space_python", "space_to_depth_python"]
