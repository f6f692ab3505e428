"""Every TIR pass on its own: ``tepad.lower.passes.<name>(func) -> func``."""
from .storage_flatten import storage_flatten
from .simplify import simplify
from .unroll_loop import unroll_loop
from .vectorize_loop import vectorize_loop


def schedule_ops(s, bounds):
    """ScheduleOps as a pass-like entry (takes a schedule and its bound map)."""
    from ..schedule_ops import schedule_ops as _so
    return _so(s, bounds)


__all__ = ["storage_flatten", "simplify", "unroll_loop", "vectorize_loop", "schedule_ops"]
