"""Schedules of the object-detection operators whose stages are all ``te.extern`` kernels
(NMS, get_valid_counts, SSD decoding / detection, proposal). Their kernels choose their own
loops (parallel rows on a CPU, bound GPU threads under CUDA, see ``_kernel``), so on every
target the schedule is the plain one: each stage at the root."""
from __future__ import annotations

from ...errors import TepadError
from ...schedule import create_schedule
from ...tensor import Tensor
from ..schedule_utils import as_outs


def _plain(what):
    def schedule(outs):
        outs = as_outs(outs)
        for t in outs:
            if not isinstance(t, Tensor):
                raise TepadError(f"{what}: outs must be te.Tensors, got {t!r}")
        return create_schedule([t.op for t in outs])
    schedule.__name__ = what
    schedule.__doc__ = (f"``{what}``: the plain schedule of the operator's extern stages "
                        "(their kernels bind their own loops / GPU threads).")
    return schedule


schedule_nms = _plain("schedule_nms")
schedule_get_valid_counts = _plain("schedule_get_valid_counts")
schedule_multibox_transform_loc = _plain("schedule_multibox_transform_loc")
schedule_multibox_detection = _plain("schedule_multibox_detection")
schedule_proposal = _plain("schedule_proposal")

__all__ = ["schedule_nms", "schedule_get_valid_counts", "schedule_multibox_transform_loc",
           "schedule_multibox_detection", "schedule_proposal"]
