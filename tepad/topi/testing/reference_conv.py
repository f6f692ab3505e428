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


__all__ = ["conv1d_ncw_python", "group_conv1d_ncw_python"]
