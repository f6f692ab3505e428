"""TVM's ``topi.generic``: schedules chosen by the current target.

``with Target("llvm"): s = topi.generic.schedule_x(outs)`` gives ``topi.x86.schedule_x``
(vector lanes and registers of that target), ``with Target("cuda"): ...`` gives
``topi.cuda.schedule_x``; with no target set, the host CPU's (x86) schedule. This is the
dispatch TVM's generic functions did (TVM 0.6's ``@tvm.target.generic_func``), so programs
of either era get the per-target schedule. ``default_schedule`` is the plain schedule
(every stage at the root)."""
from __future__ import annotations

import sys
import types

from ..schedule import create_schedule
from ..target import GenericFunc, Target
from . import cuda, x86
from .schedule_utils import as_outs, inline_injective


def _module():
    t = Target.current()
    if t is not None and ("gpu" in t.keys or "cuda" in t.keys):
        return cuda
    return x86


def _generic(name):
    # TVM's schedules were generic functions: a program may register its own for target keys
    # (``@topi.generic.schedule_injective.register(["cpu"])``); those come first
    own = GenericFunc(name)

    def schedule(outs, *args, **kwargs):
        t = Target.current()
        for k in (t.keys if t is not None else ()):
            if k in own.dispatch:
                return own.dispatch[k](outs, *args, **kwargs)
        return getattr(_module(), name)(outs, *args, **kwargs)

    def register(key, func=None, override=False):
        def do(f):
            return own.register(f, key, allow_override=override)
        return do if func is None else do(func)

    schedule.__name__ = name
    schedule.__doc__ = (f"``topi.cuda.{name}`` under a CUDA target, else "
                        f"``topi.x86.{name}`` (see the module doc); ``.register(keys)`` adds a "
                        "program's own schedule for those target keys, as TVM's generic "
                        "functions did.")
    schedule.register = register
    return schedule


_NAMES = ["schedule_injective", "schedule_elemwise", "schedule_broadcast",
          "schedule_concatenate", "schedule_reduce", "schedule_softmax", "schedule_pool",
          "schedule_pool_grad", "schedule_adaptive_pool", "schedule_conv2d_nchw",
          "schedule_conv2d_nhwc", "schedule_conv1d_ncw", "schedule_conv1d_nwc",
          "schedule_group_conv1d_ncw", "schedule_group_conv1d_nwc",
          "schedule_conv1d_transpose_ncw", "schedule_group_conv2d_nchw",
          "schedule_group_conv2d_nhwc", "schedule_conv3d_ncdhw",
          "schedule_correlation_nchw",
          "schedule_conv2d_hwcn", "schedule_depthwise_conv2d_nchw",
          "schedule_depthwise_conv2d_nhwc", "schedule_conv2d_transpose_nchw", "schedule_dense",
          "schedule_matmul", "schedule_batch_matmul", "schedule_lrn", "schedule_batch_norm", "schedule_reorg", "schedule_argwhere",
          "schedule_unique", "schedule_scan", "schedule_sort", "schedule_argsort",
          "schedule_topk", "schedule_sparse_dense", "schedule_bitserial_conv2d_nchw",
          "schedule_bitserial_conv2d_nhwc", "schedule_bitserial_dense",
          "schedule_binarize_pack", "schedule_binary_dense", "schedule_roi_align",
          "schedule_roi_pool"]
_VISION = ["schedule_nms", "schedule_get_valid_counts", "schedule_multibox_prior",
           "schedule_multibox_transform_loc", "schedule_multibox_detection",
           "schedule_proposal"]
_NAMES += _VISION
# the rest of the convolution family
_NAMES += ["schedule_conv3d_ndhwc", "schedule_conv3d_transpose_ncdhw",
           "schedule_group_conv2d_transpose_nchw", "schedule_group_conv1d_transpose_ncw",
           "schedule_deformable_conv2d_nchw", "schedule_deformable_conv2d_nhwc",
           "schedule_conv2d_NCHWc", "schedule_conv2d_NCHWc_int8",
           "schedule_conv2d_winograd", "schedule_conv2d_nchw_winograd",
           "schedule_depthwise_conv2d_backward_input_nhwc",
           "schedule_depthwise_conv2d_backward_weight_nhwc"]
for _n in _NAMES:
    globals()[_n] = _generic(_n)


def schedule_injective_from_existing(sch, out):
    """Schedule the injective ``out`` inside ``sch`` for the current target."""
    return _module().schedule_injective_from_existing(sch, out)


def default_schedule(outs, auto_inline=False):
    """The plain schedule: every stage at the root, nothing annotated (``auto_inline``:
    injective intermediate stages inlined)."""
    outs = as_outs(outs)
    s = create_schedule([t.op for t in outs])
    if auto_inline:
        inline_injective(s, outs)
    return s


schedule_extern = default_schedule


def schedule_lstm(outs):
    """``nn.lstm``'s schedule: TVM's generic one is the plain schedule on every target;
    on a CPU target this gives ``topi.x86.schedule_lstm`` (the input matmul parallel and
    vectorized). There is no GPU schedule for the scan (as in TVM)."""
    t = Target.current()
    if t is not None and ("gpu" in t.keys or "cuda" in t.keys):
        return default_schedule(outs)
    return x86.schedule_lstm(outs)



def _submodule(name: str, names: list, doc: str):
    """``topi.generic.<name>``: TVM's file of these schedules, as a module holding the very
    functions above (so ``topi.generic.nn.schedule_conv2d_nchw`` and ``from
    tvm.topi.generic.nn import ...`` work as in TVM)."""
    mod = types.ModuleType(f"{__name__}.{name}", doc)
    for n in names:
        setattr(mod, n, globals()[n])
    mod.__all__ = list(names)
    sys.modules[mod.__name__] = mod
    return mod


_INJECTIVE = ["schedule_injective", "schedule_elemwise", "schedule_broadcast",
              "schedule_concatenate", "schedule_injective_from_existing"]
nn = _submodule("nn", [n for n in _NAMES if n not in _INJECTIVE and n not in _VISION] +
                ["schedule_injective_from_existing", "schedule_lstm"],
                "TVM's topi.generic.nn: the per-target schedules of the nn operators.")
injective = _submodule("injective", _INJECTIVE,
                       "TVM's topi.generic.injective: schedules of elementwise operators.")
extern = _submodule("extern", ["schedule_extern"],
                    "TVM's topi.generic.extern: the schedule of extern operators.")
conv2d = _submodule("conv2d", ["schedule_depthwise_conv2d_nhwc", "schedule_conv2d_nchw",
                               "schedule_conv2d_nhwc"],
                    "TVM's topi.generic.conv2d: the per-target convolution schedules.")

vision = _submodule("vision", _VISION + ["schedule_roi_align", "schedule_roi_pool",
                                         "schedule_reorg"],
                    "TVM's topi.generic.vision: the schedules of the vision operators.")

__all__ = _NAMES + ["schedule_injective_from_existing", "default_schedule", "schedule_extern",
                    "schedule_lstm",
                    "nn", "injective", "extern", "conv2d", "vision"]
