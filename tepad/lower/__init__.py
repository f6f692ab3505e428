"""Lowering: ScheduleOps and the TIR passes. ``tepad.lower(s, args)`` is callable (TVM habit)
while ``tepad.lower.passes.<name>`` holds each pass and ``tepad.lower.pipeline.PIPELINE`` the
order they run in."""
import sys
import types

from . import passes
from .pipeline import (PIPELINE, Pass, Options, PassLog, lower, lower_for_codegen,
                       lower_primfunc,
                       run_pipeline, run_passes, schedule_to_primfunc, schedule_to_module)
from .schedule_ops import schedule_ops


class _CallableModule(types.ModuleType):
    def __call__(self, *args, **kwargs):
        return lower(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

__all__ = ["passes", "PIPELINE", "Pass", "Options", "PassLog", "lower", "lower_for_codegen",
           "lower_primfunc",
           "run_pipeline", "run_passes", "schedule_to_primfunc", "schedule_to_module", "schedule_ops"]
