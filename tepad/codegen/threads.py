"""The thread count parallel loops run with by default (apart from ``parallel``, which emits
them, so that asking for it does not load the LLVM IR emitter)."""
from __future__ import annotations

import os

from .. import config
from ..errors import TepadError


def default_num_threads() -> int:
    """Threads for parallel loops: ``TEPAD_NUM_THREADS`` if set (a positive integer, else a
    ``TepadError``), otherwise the CPU count."""
    env = config.num_threads_text()
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            raise TepadError(f"TEPAD_NUM_THREADS must be a positive integer, got {env!r}")
    return os.cpu_count() or 1


__all__ = ["default_num_threads"]
