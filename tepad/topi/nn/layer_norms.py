"""Normalizations over chosen axes (TVM's ``topi.nn.layer_norm``, ``instance_norm``,
``group_norm``, ``rms_norm``).

Statistics are computed in float32 for float16 data (the result is cast back), as TVM
does: a mean stage and a variance stage (two passes, the variance of the centred data)
over the normalized axes, then one elementwise output stage ``T_<name>``."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from ...tir import op as tirop
from ...tir.expr import const
from ..utils import get_const_tuple


def _axes(data, axis, what):
    n = len(data.shape)
    axes = [axis] if isinstance(axis, int) else list(axis)
    if not axes or any(not isinstance(a, int) or not -n <= a < n for a in axes):
        raise TepadError(f"topi.nn.{what}: axis {axis!r} must name axes of {data.name} "
                         f"({n} dimensions)")
    return sorted({a % n for a in axes})


def _wide(dtype):
    return "float32" if dtype == "float16" else dtype


def _reduced(data, axes, fn, name, dtype):
    """``mean over axes`` of ``fn(data[i])``: a stage with ``data``'s shape minus ``axes``."""
    keep = [k for k in range(len(data.shape)) if k not in axes]
    count = const(1, "int32")            # an expression: extents may be te.var's
    for a in axes:
        count = count * data.shape[a]

    def body(*i):
        rs = [reduce_axis((0, data.shape[a]), name=f"r{a}") for a in axes]
        src = [None] * len(data.shape)
        for k, j in zip(keep, i):
            src[k] = j
        for a, r in zip(axes, rs):
            src[a] = r
        return te_op.sum(fn(data[tuple(src)].astype(dtype), i), axis=rs)
    total = compute(tuple(data.shape[k] for k in keep), body, name=f"{name}_sum",
                    tag="comm_reduce")
    return compute(total.shape, lambda *i: total[i] / count.astype(dtype),
                   name=f"{name}_mean", tag="elemwise"), keep


def _stats_index(i, keep):
    return tuple(i[k] for k in keep)


def _param(t, axes, i):
    """``t`` (shaped like the normalized axes) at the data index ``i``."""
    return t[tuple(i[a] for a in axes)]


def _check(what, data, params, axes):
    if not isinstance(data, Tensor):
        raise TepadError(f"topi.nn.{what}: data must be a te.Tensor, got {data!r}")
    want = get_const_tuple([data.shape[a] for a in axes])
    for nm, t in params:
        if t is not None and (not isinstance(t, Tensor) or get_const_tuple(t.shape) != want):
            raise TepadError(f"topi.nn.{what}: {nm} must be a te.Tensor of shape {list(want)} "
                             f"(the normalized axes {axes} of {data.name}), got {t!r}")


def layer_norm(data, gamma, beta, axis, epsilon=1e-5):
    """``(data - mean) / sqrt(var + epsilon) * gamma + beta`` with mean and variance over
    ``axis`` (an int or a list); ``gamma`` / ``beta`` (None: omitted) have the shape of the
    normalized axes."""
    axes = _axes(data, axis, "layer_norm")
    _check("layer_norm", data, (("gamma", gamma), ("beta", beta)), axes)
    return _normalize(data, gamma, beta, axes, epsilon, "layer_norm")


def instance_norm(data, gamma, beta, axis, epsilon=1e-5):
    """``layer_norm`` as TVM 0.18 defines instance normalization: statistics over ``axis``
    (the spatial axes), ``gamma`` / ``beta`` shaped like those axes."""
    axes = _axes(data, axis, "instance_norm")
    _check("instance_norm", data, (("gamma", gamma), ("beta", beta)), axes)
    return _normalize(data, gamma, beta, axes, epsilon, "instance_norm")


def _normalize(data, gamma, beta, axes, epsilon, name):
    dtype = _wide(data.dtype)
    mean, keep = _reduced(data, axes, lambda v, i: v, f"{name}_x", dtype)
    var, _ = _reduced(data, axes, lambda v, i: (v - mean[i]) * (v - mean[i]),
                      f"{name}_var", dtype)
    eps = const(float(epsilon), dtype)

    def body(*i):
        s = _stats_index(i, keep)
        out = (data[i].astype(dtype) - mean[s]) / tirop.sqrt(var[s] + eps)
        if gamma is not None:
            out = out * _param(gamma, axes, i).astype(dtype)
        if beta is not None:
            out = out + _param(beta, axes, i).astype(dtype)
        return out.astype(data.dtype)
    return compute(data.shape, body, name=f"T_{name}", tag="injective")


def rms_norm(data, weight, axis, epsilon=1e-5):
    """``data / sqrt(mean(data**2 over axis) + epsilon) * weight``; ``weight`` has the shape
    of the normalized axes."""
    axes = _axes(data, axis, "rms_norm")
    _check("rms_norm", data, (("weight", weight),), axes)
    dtype = _wide(data.dtype)
    ms, keep = _reduced(data, axes, lambda v, i: v * v, "rms_norm_sq", dtype)
    eps = const(float(epsilon), dtype)

    def body(*i):
        out = data[i].astype(dtype) / tirop.sqrt(ms[_stats_index(i, keep)] + eps)
        return (out * _param(weight, axes, i).astype(dtype)).astype(data.dtype)
    return compute(data.shape, body, name="T_rms_norm", tag="injective")


def group_norm(data, gamma, beta, num_groups, channel_axis, axes, epsilon=1e-5):
    """The channels (``channel_axis``) cut into ``num_groups`` equal groups; each group is
    normalized over its channels and ``axes``, then scaled and shifted per channel by
    ``gamma`` / ``beta`` (1-d, one entry per channel)."""
    if not isinstance(data, Tensor):
        raise TepadError(f"topi.nn.group_norm: data must be a te.Tensor, got {data!r}")
    n = len(data.shape)
    ca = channel_axis % n if isinstance(channel_axis, int) and -n <= channel_axis < n else None
    norm_axes = _axes(data, axes, "group_norm")
    channels = get_const_tuple([data.shape[ca]])[0] if ca is not None else None
    if ca is None or ca in norm_axes or not isinstance(num_groups, int) or num_groups <= 0 \
            or channels % num_groups:
        raise TepadError(f"topi.nn.group_norm: channel_axis {channel_axis} (not among axes "
                         f"{axes}) must have a channel count divisible by num_groups "
                         f"{num_groups}")
    per = channels // num_groups
    for nm, t in (("gamma", gamma), ("beta", beta)):
        if t is not None and get_const_tuple(t.shape) != (channels,):
            raise TepadError(f"topi.nn.group_norm: {nm} must have shape [{channels}]")
    dtype = _wide(data.dtype)
    # the data seen with the channel axis split in two: (group, channel within group)
    shape = list(data.shape[:ca]) + [num_groups, per] + list(data.shape[ca + 1:])
    split = compute(tuple(shape), lambda *i: data[i[:ca] + (i[ca] * per + i[ca + 1],) +
                                                  i[ca + 2:]], name="T_group_split",
                    tag="injective")
    red = [ca + 1] + [a + 1 if a > ca else a for a in norm_axes]
    red = sorted(red)
    mean, keep = _reduced(split, red, lambda v, i: v, "group_norm_x", dtype)
    var, _ = _reduced(split, red, lambda v, i: (v - mean[i]) * (v - mean[i]),
                      "group_norm_var", dtype)
    eps = const(float(epsilon), dtype)

    def body(*i):
        c = i[ca]
        si = i[:ca] + (c // per, c % per) + i[ca + 1:]
        s = _stats_index(si, keep)
        out = (data[i].astype(dtype) - mean[s]) / tirop.sqrt(var[s] + eps)
        if gamma is not None:
            out = out * gamma[c].astype(dtype)
        if beta is not None:
            out = out + beta[c].astype(dtype)
        return out.astype(data.dtype)
    return compute(data.shape, body, name="T_group_norm", tag="injective")


__all__ = ["layer_norm", "instance_norm", "rms_norm", "group_norm"]
