"""``GATuner``: a genetic algorithm over knob choices (TVM's GATuner)."""
from __future__ import annotations

import numpy as np

from ...errors import TepadError
from ..result import MeasureErrorNo
from .tuner import Tuner


class GATuner(Tuner):
    """A population of ``pop_size`` configs (genes: the choice number of every knob). Once a
    generation is measured, the ``elite_num`` best survive and the rest are children of
    parents drawn by fitness (GFLOPS), crossed at a random knob and mutated knob by knob with
    probability ``mutation_prob``; configs measured before are not proposed again."""

    def __init__(self, task, pop_size=100, elite_num=3, mutation_prob=0.1, seed=None):
        super().__init__(task)
        if elite_num > pop_size:
            raise TepadError(f"GATuner: elite_num={elite_num} exceeds pop_size={pop_size}")
        self.pop_size = min(pop_size, len(self.space))
        self.elite_num = min(elite_num, self.pop_size)
        self.mutation_prob = mutation_prob
        self.rng = np.random.default_rng(seed)
        self.dims = self.space.knob_sizes()
        self.genes = []
        seen = set()
        while len(self.genes) < self.pop_size:
            g = [int(self.rng.integers(0, d)) for d in self.dims]
            idx = self.space.index_of(g)
            if idx not in seen:
                seen.add(idx)
                self.genes.append(g)
        self.scores = []
        self.elites, self.elite_scores = [], []
        self.trial_pt = 0

    def next_batch(self, batch_size) -> list:
        out = []
        while len(out) < batch_size and self.trial_pt < len(self.genes):
            out.append(self.space.get(self.space.index_of(self.genes[self.trial_pt])))
            self.trial_pt += 1
        return out

    def update(self, inputs, results):
        for inp, res in zip(inputs, results):
            if res.error_no == MeasureErrorNo.NO_ERROR:
                self.scores.append((self.task.flop or 1.0) / float(np.mean(res.costs)))
            else:
                self.scores.append(0.0)
        if len(self.scores) >= len(self.genes) and self.trial_pt >= len(self.genes):
            self._next_generation()

    def _next_generation(self):
        genes = self.genes + self.elites
        scores = np.array(self.scores[:len(self.genes)] + self.elite_scores)
        order = np.argsort(scores)[::-1][:self.elite_num]
        self.elites = [genes[i] for i in order]
        self.elite_scores = [float(scores[i]) for i in order]
        probs = scores + 1e-8
        probs = probs / probs.sum()
        children, tries = [], 0
        while len(children) < self.pop_size and tries < 50 * self.pop_size:
            tries += 1
            a, b = self.rng.choice(len(genes), size=2, p=probs)
            cut = int(self.rng.integers(0, len(self.dims) + 1))
            child = genes[a][:cut] + genes[b][cut:]
            for j, d in enumerate(self.dims):
                if self.rng.random() < self.mutation_prob:
                    child[j] = int(self.rng.integers(0, d))
            idx = self.space.index_of(child)
            if idx not in self.visited and child not in children:
                children.append(child)
        self.genes, self.scores, self.trial_pt = children, [], 0

    def has_next(self) -> bool:
        return len(self.visited) < len(self.space) and \
            (self.trial_pt < len(self.genes) or len(self.genes) > 0)
