"""Normalizations of ``topi.nn``: ``lrn`` (local response normalization) and
``batch_norm``."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from ...tir import op as tirop
from ...tir.expr import const
from .pad import pad


def lrn(data: Tensor, size: int, axis: int = 1, alpha=0.0001, beta=0.75, bias=2.0) -> Tensor:
    """``data / (bias + alpha * sum(data**2 over a window of size channels) / size) ** beta``
    with the window centred on each channel along ``axis`` (1: NCHW, 3: NHWC); stages
    ``pad_data``, ``tensor`` (the square sums) and the output ``T_divide``."""
    if len(data.shape) != 4 or axis not in (1, 3):
        raise TepadError(f"lrn: data must be 4-d with axis 1 or 3, got {list(data.shape)} "
                         f"axis {axis}")
    if size % 2 != 1:
        raise TepadError(f"lrn: size must be odd, got {size}")
    half = size // 2
    before = [0, 0, 0, 0]
    before[axis] = half
    padded = pad(data, before, before, 0.0, name="pad_data")
    r = reduce_axis((0, size), name="rxs")

    def sqr(*i):
        src = list(i)
        src[axis] = i[axis] + r
        v = padded[tuple(src)]
        return te_op.sum(v * v, axis=r)
    sqr_sum = compute(data.shape, sqr, name="tensor", tag="sqr_sum")
    a = const(alpha / size, data.dtype)
    return compute(data.shape, lambda *i: data[i] / tirop.power(
        const(bias, data.dtype) + a * sqr_sum[i], const(beta, data.dtype)),
        name="T_divide", tag="broadcast")


def batch_norm(data: Tensor, gamma: Tensor, beta: Tensor, moving_mean: Tensor,
               moving_var: Tensor, axis=None, epsilon=1e-5, center=True, scale=True,
               training=False, momentum=None):
    """``(data - mean) / sqrt(var + epsilon) * gamma + beta`` with the 1-d statistics laid
    along ``axis`` (default 1). Inference uses ``moving_mean`` / ``moving_var``; training
    uses the batch's mean and (biased) variance over every other axis. Returns
    ``[out, new_mean, new_var]``: in training the moving statistics updated as
    ``(1 - momentum) * moving + momentum * batch`` (momentum default 0.1), else the moving
    statistics passed through (copied)."""
    n = len(data.shape)
    axis = 1 if axis is None else axis
    if not -n <= axis < n:
        raise TepadError(f"batch_norm: axis {axis} is out of range for {data.name} ({n} dims)")
    axis %= n
    momentum = 0.1 if momentum is None else momentum
    if training and not 0 <= momentum <= 1:
        raise TepadError(f"batch_norm: momentum must lie in [0, 1], got {momentum}")
    dtype = data.dtype
    if training:
        others = [k for k in range(n) if k != axis]
        count = 1
        for k in others:
            count = count * data.shape[k]
        rs = [reduce_axis((0, data.shape[k]), name=f"r{k}") for k in others]

        def full(c):
            it = iter(rs)
            return tuple(c if k == axis else next(it) for k in range(n))
        total = compute((data.shape[axis],), lambda c: te_op.sum(data[full(c)], axis=rs),
                        name="T_batch_sum")
        mean = compute((data.shape[axis],), lambda c: total[c] / count.astype(dtype)
                       if not isinstance(count, int) else total[c] / const(count, dtype),
                       name="T_batch_mean")
        rs2 = [reduce_axis((0, data.shape[k]), name=f"q{k}") for k in others]

        def full2(c):
            it = iter(rs2)
            return tuple(c if k == axis else next(it) for k in range(n))
        sq = compute((data.shape[axis],), lambda c: te_op.sum(
            (data[full2(c)] - mean[c]) * (data[full2(c)] - mean[c]), axis=rs2),
            name="T_batch_sqsum")
        var = compute((data.shape[axis],), lambda c: sq[c] / count.astype(dtype)
                      if not isinstance(count, int) else sq[c] / const(count, dtype),
                      name="T_batch_var")
    else:
        mean, var = moving_mean, moving_var
    eps = const(epsilon, dtype)

    def body(*i):
        c = i[axis]
        v = (data[i] - mean[c]) / tirop.sqrt(var[c] + eps)
        if scale:
            v = v * gamma[c]
        if center:
            v = v + beta[c]
        return v
    out = compute(data.shape, body, name="T_batch_norm", tag="injective")
    m = const(momentum, dtype)
    one_m = const(1.0 - momentum, dtype)
    if training:
        new_mean = compute(moving_mean.shape, lambda c: one_m * moving_mean[c] + m * mean[c],
                           name="T_moving_mean")
        new_var = compute(moving_var.shape, lambda c: one_m * moving_var[c] + m * var[c],
                          name="T_moving_var")
    else:
        new_mean = compute(moving_mean.shape, lambda c: moving_mean[c], name="T_moving_mean")
        new_var = compute(moving_var.shape, lambda c: moving_var[c], name="T_moving_var")
    return [out, new_mean, new_var]


__all__ = ["lrn", "batch_norm"]
