"""The tags TVM's topi puts on its compute stages (``topi.tag``); schedules read them to decide
what to inline."""
from __future__ import annotations

ELEMWISE = "elemwise"
BROADCAST = "broadcast"
INJECTIVE = "injective"
COMM_REDUCE = "comm_reduce"
COMM_REDUCE_IDX = "comm_reduce_idx"


def is_broadcast(tag: str) -> bool:
    """Elementwise and broadcast stages (and tags that start with one of those)."""
    return tag in (ELEMWISE, BROADCAST) or tag.startswith((ELEMWISE, BROADCAST))


def is_injective(tag: str) -> bool:
    """Stages every schedule may inline: elementwise, broadcast and injective (pads,
    reshapes, ...)."""
    return is_broadcast(tag) or tag.startswith(INJECTIVE) or tag.startswith("injective,")


__all__ = ["ELEMWISE", "BROADCAST", "INJECTIVE", "COMM_REDUCE", "COMM_REDUCE_IDX",
           "is_broadcast", "is_injective"]
