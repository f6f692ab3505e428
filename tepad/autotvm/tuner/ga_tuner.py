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
        self.score_of = {}           # config index -> GFLOPS-like fitness (0: failed)
        self.elites, self.elite_scores = [], []
        self.trial_pt = 0

    def next_batch(self, batch_size) -> list:
        """The next unmeasured genes of the generation (measured ones keep their score)."""
        out = []
        while len(out) < batch_size:
            if self.trial_pt >= len(self.genes):
                if not self._generation_done() or not self._next_generation():
                    break
                continue
            idx = self.space.index_of(self.genes[self.trial_pt])
            self.trial_pt += 1
            if idx not in self.visited and idx not in self.score_of:
                out.append(self.space.get(idx))
        return out

    def update(self, inputs, results):
        for inp, res in zip(inputs, results):
            ok = res.error_no == MeasureErrorNo.NO_ERROR
            self.score_of[inp.config.index] = \
                (self.task.flop or 1.0) / float(np.mean(res.costs)) if ok else 0.0

    def _generation_done(self) -> bool:
        return all(self.space.index_of(g) in self.score_of or
                   self.space.index_of(g) in self.visited for g in self.genes)

    def _next_generation(self) -> bool:
        """Elites, then children of fitness-drawn parents, crossed and mutated; False when
        no unmeasured child could be made."""
        genes = self.genes + self.elites
        scores = np.array([self.score_of.get(self.space.index_of(g), 0.0) for g in genes])
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
            if idx not in self.visited and idx not in self.score_of and child not in children:
                children.append(child)
        self.genes, self.trial_pt = children, 0
        return bool(children)

    def has_next(self) -> bool:
        return len(self.visited) < len(self.space) and len(self.genes) > 0
