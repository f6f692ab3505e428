"""The schedule record (TVM's PassContext config ``te.keep_schedule_record``).

Inside ``with PassContext(config={"te.keep_schedule_record": True})``, a schedule keeps a copy
of itself after it is created (``"vanilla"``) and after every primitive applied to it:
``s.schedule_record[k]`` is the schedule as it was after ``s.primitive_record[k]``. A
primitive made of others (``tile``: two splits and a reorder) records the ones it is made
of; a primitive calling another records itself only. Outside such a context nothing is
recorded (the lists stay empty).
"""
from __future__ import annotations

import functools
import threading

from ..tir.transform import current_config

KEY = "te.keep_schedule_record"

_depth = threading.local()


def keeping() -> bool:
    """Whether the current PassContext asks for a schedule record."""
    return bool(current_config().get(KEY, False))


def note(schedule, name: str) -> None:
    """Append a copy of ``schedule`` and ``name`` to its record when one is kept."""
    if schedule is None or not keeping():
        return
    schedule.schedule_record.append(schedule.copy())
    schedule.primitive_record.append(name)


def recorded(name: str, schedule_of):
    """Wrap a primitive so that, called from outside any other primitive, it notes the
    schedule ``schedule_of(self)`` after it ran."""
    def wrap(fn):
        @functools.wraps(fn)
        def primitive(self, *args, **kwargs):
            depth = getattr(_depth, "n", 0)
            _depth.n = depth + 1
            try:
                out = fn(self, *args, **kwargs)
            finally:
                _depth.n = depth
            if depth == 0:
                note(schedule_of(self), name)
            return out
        return primitive
    return wrap


def instrument(cls, names, schedule_of) -> None:
    """Record the primitives ``names`` of ``cls``."""
    for name in names:
        setattr(cls, name, recorded(name, schedule_of)(getattr(cls, name)))


STAGE_PRIMITIVES = ("split", "fuse", "reorder", "compute_at", "compute_inline", "compute_root",
                    "vectorize", "unroll", "parallel", "tensorize", "bind", "pragma",
                    "prefetch", "storage_align", "transform_layout", "set_store_predicate",
                    "set_axis_separators", "rolling_buffer", "double_buffer", "set_scope")
SCHEDULE_PRIMITIVES = ("cache_read", "cache_write", "rfactor")

__all__ = ["KEY", "keeping", "note", "recorded", "instrument", "STAGE_PRIMITIVES",
           "SCHEDULE_PRIMITIVES"]
