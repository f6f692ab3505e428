"""TVM's ``topi.nn.conv``: one convolution for any number of spatial axes, any data layout
(a string of ``N``, ``C`` and spatial letters, e.g. "NCHW", "NDHWC", "NWC", "HWCN") and any
kernel layout (``O``, ``I`` and the spatial letters, e.g. "OIHW", "HWIO"), grouped or not."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from .pad import pad
from .utils import const_extents, ints


def _pad_generic(padding, ek, name):
    """(begin, end) pads per spatial axis: an int, ``dim`` ints (both sides), ``2 * dim``
    ints (all begins, then all ends), "SAME" (the odd cell before) or "VALID"."""
    d = len(ek)
    if isinstance(padding, str):
        if padding.upper() == "VALID":
            return [0] * d, [0] * d
        if padding.upper() == "SAME":
            return [(k - 1 + 1) // 2 for k in ek], [(k - 1) // 2 for k in ek]
        raise TepadError(f"{name}: padding {padding!r}: the strings are 'SAME' and 'VALID'")
    if isinstance(padding, int):
        return [padding] * d, [padding] * d
    p = ints(padding, len(padding), f"{name}: padding")
    if len(p) == d:
        return list(p), list(p)
    if len(p) == 2 * d:
        return list(p[:d]), list(p[d:])
    raise TepadError(f"{name}: padding must be an int, {d} or {2 * d} ints, 'SAME' or "
                     f"'VALID'; got {padding!r}")


def _default_kernel_layout(data_layout):
    spatial = "".join(c for c in data_layout if c not in "NC")
    if data_layout.find("C") < min(data_layout.find(c) for c in spatial):
        return "OI" + spatial
    return spatial + "IO"


def _perm(layout, first, name, what):
    """Positions in ``layout`` of the two ``first`` letters, then of the spatial letters."""
    if sorted(set(layout)) != sorted(layout) or any(c not in layout for c in first):
        raise TepadError(f"{name}: {what} {layout!r} must name {first[0]!r}, {first[1]!r} and "
                         "each spatial axis once")
    return [layout.find(first[0]), layout.find(first[1])] + \
        [i for i, c in enumerate(layout) if c not in first]


def conv(inp: Tensor, filt: Tensor, stride, padding, dilation, groups, data_layout: str,
         kernel_layout: str = "", out_dtype=None, auto_scheduler_rewritten_layout=None,
         meta_schedule_original_shape=None, auto_scheduler_should_rewrite_layout=False):
    """Convolution of ``inp`` (``data_layout``) with ``filt`` (``kernel_layout``; empty:
    "OI" + spatial when C precedes the spatial axes, else spatial + "IO"). Output in
    ``data_layout``, stage and tag ``conv{d}d_{layout}`` (``group_...`` when ``groups`` >
    1); a padded input is stage ``pad_temp``. ``stride`` / ``dilation``: an int or one per
    spatial axis; ``padding``: see ``_pad_generic``."""
    name = "conv"
    if not isinstance(data_layout, str) or "N" not in data_layout or "C" not in data_layout:
        raise TepadError(f"{name}: data_layout must be a string naming N, C and the spatial "
                         f"axes, got {data_layout!r}")
    if auto_scheduler_rewritten_layout or meta_schedule_original_shape or \
            auto_scheduler_should_rewrite_layout:
        raise TepadError(f"{name}: auto-scheduler / meta-schedule layout rewriting is not "
                         "supported; leave those arguments unset")
    for t, what in ((inp, "inp"), (filt, "filt")):
        if not isinstance(t, Tensor) or len(t.shape) != len(data_layout):
            raise TepadError(f"{name}: {what} must be a {len(data_layout)}-d te.Tensor for "
                             f"layout {data_layout!r}, got {t!r}")
    d = len(data_layout) - 2
    kernel_layout = kernel_layout or _default_kernel_layout(data_layout)
    if len(kernel_layout) != d + 2:
        raise TepadError(f"{name}: kernel_layout {kernel_layout!r} must have {d + 2} letters")
    dp = _perm(data_layout, "NC", name, "data_layout")
    kp = _perm(kernel_layout, "OI", name, "kernel_layout")
    dinv = [dp.index(i) for i in range(d + 2)]
    kinv = [kp.index(i) for i in range(d + 2)]
    dshape = const_extents([inp.shape[i] for i in dp[1:]], name,
                           ["C"] + [data_layout[i] for i in dp[2:]])
    kshape = const_extents([filt.shape[i] for i in kp], name,
                           ["O", "I"] + [kernel_layout[i] for i in kp[2:]])
    batch = inp.shape[dp[0]]
    C, *S = dshape
    O, CI, *K = kshape
    if not isinstance(groups, int) or groups < 1 or C % groups or O % groups or \
            CI * groups != C:
        raise TepadError(f"{name}: {C} input channels, {O} output channels and a filter of "
                         f"{CI} input channels do not make {groups!r} groups")
    st = ints(stride, d, f"{name}: stride")
    dl = ints(dilation, d, f"{name}: dilation")
    ek = [(k - 1) * x + 1 for k, x in zip(K, dl)]
    pb, pe = _pad_generic(padding, ek, name)
    outs = [(s - e + b + a) // t + 1 for s, e, b, a, t in zip(S, ek, pb, pe, st)]
    if min(outs) <= 0:
        raise TepadError(f"{name}: kernel {K} (dilation {dl}) does not fit the input {S} "
                         f"padded by {pb}, {pe}")
    before = [([0, 0] + pb)[i] for i in dinv]
    after = [([0, 0] + pe)[i] for i in dinv]
    temp = pad(inp, before, after, 0.0, name="pad_temp") if any(pb + pe) else inp
    out_dtype = out_dtype or inp.dtype
    og = O // groups
    rc = reduce_axis((0, CI), name="rc")
    rs = [reduce_axis((0, k), name=f"r{c}") for c, k in zip("yxz", K)]
    # reduction axes in the data layout's order (C and the spatial axes), as schedules expect
    red_in_layout = [([rc] + rs)[dp[1:].index(i)] for i in sorted(dp[1:])]

    def body(*idx):
        canon = [idx[i] for i in dp]
        nn_, ff, *xs = canon
        ch = rc if groups == 1 else (ff // og) * CI + rc
        dat = [nn_, ch] + [x * t + r * dl_ for x, t, r, dl_ in zip(xs, st, rs, dl)]
        ker = [ff, rc] + rs
        return te_op.sum(temp[tuple(dat[i] for i in dinv)].astype(out_dtype) *
                         filt[tuple(ker[i] for i in kinv)].astype(out_dtype),
                         axis=red_in_layout)
    tag = f"{'group_' if groups > 1 else ''}conv{d}d_{data_layout.lower()}"
    shape = [batch, O] + outs
    return compute([shape[i] for i in dinv], body, name=tag, tag=tag)


__all__ = ["conv"]
