"""Schedules of TVM's topi modules for targets tepad cannot build for (``topi.hls`` for
FPGA high-level synthesis, ``topi.mali`` / ``topi.bifrost`` for ARM's OpenCL GPUs, ``topi.intel_graphics``).

TE programs and TVM's own tests name these modules in their per-target tables even when
they run on a CPU or CUDA. tepad gives each of their schedules the behaviour of
``topi.generic``: the schedule of the *current* target (``with Target("llvm")`` -> x86,
``with Target("cuda")`` -> cuda; no target -> x86). A program that builds for "sdaccel",
"aocl" or "opencl -device=mali" itself still fails at ``tvm.build``, with the error naming
the target tepad does not generate code for."""
from __future__ import annotations

import types

from . import generic

#: the schedules TVM's hls / mali / bifrost modules define
SCHEDULES = ("schedule_injective", "schedule_elemwise", "schedule_broadcast",
             "schedule_concatenate", "schedule_reduce", "schedule_softmax", "schedule_pool",
             "schedule_adaptive_pool", "schedule_conv2d_nchw", "schedule_conv2d_nhwc",
             "schedule_depthwise_conv2d_nchw", "schedule_depthwise_conv2d_nhwc",
             "schedule_conv2d_transpose_nchw", "schedule_dense", "schedule_batch_matmul",
             "schedule_lrn")


def populate(module: types.ModuleType, target_name: str) -> list:
    """Fill ``module`` with ``generic``'s dispatching schedules under TVM's names, their
    docstrings saying which TVM target they stand in for; returns the names."""
    for name in SCHEDULES:
        base = getattr(generic, name)

        def schedule(outs, *args, _base=base, **kwargs):
            return _base(outs, *args, **kwargs)
        schedule.__name__ = name
        schedule.__qualname__ = name
        schedule.__doc__ = (f"TVM's ``topi.{target_name}.{name}``: tepad does not target "
                            f"{target_name}, so this is ``topi.generic.{name}`` (the schedule "
                            "of the current target).")
        setattr(module, name, schedule)
    return list(SCHEDULES)
