"""``DropletTuner`` (TVM 0.14's name): a descent over the knob grid. It starts from the
config in the middle of every knob, measures the unvisited neighbours of the best config
found so far (one knob moved by ``step`` choices), moves to the best one and, when no
neighbour at the current step is left, widens the step; when every step is exhausted it
draws unvisited configs at random."""
from __future__ import annotations

import numpy as np

from ...errors import TepadError
from ..result import MeasureErrorNo
from .tuner import Tuner


class DropletTuner(Tuner):
    """Neighbourhood descent from the centre of the space (``start_position``: per-knob
    choice numbers to start from instead); ``pvalue`` is accepted for TVM's signature."""

    def __init__(self, task, start_position=None, pvalue=0.05):
        super().__init__(task)
        self.sizes = self.space.knob_sizes()
        if start_position is None:
            start_position = [s // 2 for s in self.sizes]
        if len(start_position) != len(self.sizes) or \
                any(not 0 <= p < s for p, s in zip(start_position, self.sizes)):
            raise TepadError(f"DropletTuner: start_position {start_position} does not fit the "
                             f"knob sizes {self.sizes}")
        self.pvalue = pvalue
        self.best = list(start_position)
        self.best_score = -1.0
        self.step = 1
        self.pending = [self.space.index_of(self.best)]
        self.rng = np.random.default_rng(0)

    def _choices(self, index):
        out, t = [], index
        for s in self.sizes:
            out.append(t % s)
            t //= s
        return out

    def _neighbours(self):
        out = []
        for k, s in enumerate(self.sizes):
            for d in (-self.step, self.step):
                c = list(self.best)
                c[k] += d
                if 0 <= c[k] < s:
                    idx = self.space.index_of(c)
                    if idx not in self.visited and idx not in out:
                        out.append(idx)
        return out

    def next_batch(self, batch_size) -> list:
        while not self.pending and self.has_next():
            self.pending = self._neighbours()
            if not self.pending:
                if self.step < max(self.sizes):
                    self.step += 1
                    continue
                left = [i for i in range(len(self.space)) if i not in self.visited]
                self.pending = [int(i) for i in self.rng.permutation(left)[:batch_size]]
        batch = [i for i in self.pending[:batch_size] if i not in self.visited]
        self.pending = self.pending[batch_size:]
        return [self.space.get(i) for i in batch]

    def update(self, inputs, results):
        moved = False
        for inp, res in zip(inputs, results):
            if res.error_no != MeasureErrorNo.NO_ERROR:
                continue
            score = 1.0 / float(np.mean(res.costs))
            if score > self.best_score:
                self.best_score = score
                self.best = self._choices(inp.config.index)
                moved = True
        if moved:
            self.step = 1


__all__ = ["DropletTuner"]
