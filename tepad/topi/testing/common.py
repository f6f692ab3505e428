"""Per-target schedule lookups of TVM's ``topi.testing``: ``dispatch(target, table)`` picks
the entry of the first of the target's keys ("cpu", "cuda", "gpu", ...) that the table has,
else the "generic" entry."""
from __future__ import annotations

import numpy as np

from ...driver import build
from ...errors import TepadError
from ...runtime import ndarray as nd
from ...target import Target
from ...tensor import placeholder
from .. import cuda, generic, nn, x86

_injective_schedule = {"generic": generic.schedule_injective, "cpu": x86.schedule_injective,
                       "gpu": cuda.schedule_injective}
_reduce_schedule = {"generic": generic.schedule_reduce, "cpu": x86.schedule_reduce,
                    "gpu": cuda.schedule_reduce}
_conv2d_nchw_implement = {
    "generic": (nn.conv2d_nchw, generic.schedule_conv2d_nchw),
    "cpu": (x86.conv2d_nchw, x86.schedule_conv2d_nchw),
    "gpu": (cuda.conv2d_nchw, cuda.schedule_conv2d_nchw),
}


def dispatch(target, dispatch_map):
    """The entry of ``dispatch_map`` for ``target`` (a Target or a target string)."""
    if isinstance(target, str):
        target = Target(target)
    if not isinstance(target, Target):
        raise TepadError(f"dispatch: target must be a Target or a string, got {target!r}")
    for key in target.keys:
        if key in dispatch_map:
            return dispatch_map[key]
    if "generic" not in dispatch_map:
        raise TepadError(f"dispatch: no entry for {target} (keys {target.keys}) and no "
                         "'generic' entry")
    return dispatch_map["generic"]


def get_injective_schedule(target):
    """The injective schedule for ``target`` (x86 for "llvm", cuda for "cuda")."""
    return dispatch(target, _injective_schedule)


def get_reduce_schedule(target):
    """The reduction schedule for ``target``."""
    return dispatch(target, _reduce_schedule)


get_broadcast_schedule = get_injective_schedule
get_elemwise_schedule = get_injective_schedule


def compare_numpy_tvm(inputs, output, target, device, compute, schedule):
    """Build ``schedule([compute(*placeholders)])`` for ``target`` over placeholders shaped
    like the numpy ``inputs``, run it on ``device`` and compare with ``output`` (1e-4)."""
    holders = [placeholder(a.shape, dtype=str(a.dtype)) for a in inputs]
    out = nd.array(np.zeros(output.shape, output.dtype), device)
    with (target if isinstance(target, Target) else Target(target)):
        res = compute(*holders)
        func = build(schedule([res]), holders + [res])
    func(*[nd.array(a, device) for a in inputs], out)
    np.testing.assert_allclose(out.numpy(), output, atol=1e-4, rtol=1e-4)


def get_conv2d_nchw_implement(target):
    """``(compute, schedule)`` of the NCHW convolution for ``target``."""
    return dispatch(target, _conv2d_nchw_implement)


__all__ = ["compare_numpy_tvm", "dispatch", "get_injective_schedule", "get_reduce_schedule",
           "get_broadcast_schedule", "get_elemwise_schedule", "get_conv2d_nchw_implement"]
