"""Tuners that walk the space by index: ``GridSearchTuner`` (in order) and ``RandomTuner``
(in a random order, no config twice)."""
from __future__ import annotations

import numpy as np

from .tuner import IndexBaseTuner


class GridSearchTuner(IndexBaseTuner):
    """Configs in index order."""

    def _index(self, k) -> int:
        return self.range[0] + k


class RandomTuner(IndexBaseTuner):
    """Configs in a random order without repeats (a random permutation of the index range;
    for ranges too large to permute, rejection sampling against the visited set)."""

    PERMUTE_LIMIT = 1 << 22

    def __init__(self, task, range_idx=None, seed=None):
        super().__init__(task, range_idx)
        self.rng = np.random.default_rng(seed)
        n = self.range[1] - self.range[0] + 1
        self.order = self.rng.permutation(n) if n <= self.PERMUTE_LIMIT else None
        self.drawn = set()

    def _index(self, k) -> int:
        if self.order is not None:
            return self.range[0] + int(self.order[k])
        n = self.range[1] - self.range[0] + 1
        while True:
            i = int(self.rng.integers(0, n))
            if i not in self.drawn:
                self.drawn.add(i)
                return self.range[0] + i
