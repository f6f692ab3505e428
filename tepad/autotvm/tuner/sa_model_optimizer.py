"""``SimulatedAnnealingOptimizer`` (TVM's ``autotvm.tuner.sa_model_optimizer``): parallel
simulated annealing over config indices, scored by a cost model."""
from __future__ import annotations

import heapq
import logging

import numpy as np

from ...errors import TepadError
from .model_based_tuner import ModelOptimizer

logger = logging.getLogger("autotvm")


class SimulatedAnnealingOptimizer(ModelOptimizer):
    """``parallel_size`` walkers each move one knob per step (``ConfigSpace.random_walk``);
    a move to a config the model rates lower is taken with probability
    ``exp((new - old) / T)``, the temperature ``T`` falling linearly from ``temp[0]`` to
    ``temp[1]`` over ``n_iter`` steps (constant for a single number). The best ``num``
    configs seen (outside ``exclusive``) are returned; the walk stops early when that set has
    not changed for ``early_stop`` steps. With ``persistent`` the walkers start where the
    previous call left them."""

    def __init__(self, task, n_iter=500, temp=(1, 0), persistent=True, parallel_size=128,
                 early_stop=50, log_interval=50):
        if int(n_iter) < 1 or int(parallel_size) < 1:
            raise TepadError(f"SimulatedAnnealingOptimizer: n_iter ({n_iter}) and "
                             f"parallel_size ({parallel_size}) must be positive")
        self.task = task
        self.space = task.config_space
        self.n_iter = int(n_iter)
        self.temp = temp
        self.persistent = persistent
        self.parallel_size = min(int(parallel_size), len(self.space))
        self.early_stop = int(early_stop) if early_stop else 10 ** 9
        self.log_interval = log_interval
        self.points = None

    def find_maximums(self, model, num, exclusive) -> list:
        num = int(num)
        if self.persistent and self.points is not None:
            points = list(self.points)
        else:
            points = [int(i) for i in self.space.sample_ints(self.parallel_size)]
        scores = np.asarray(model.predict(points), dtype=np.float64)

        # a min-heap of the best (score, index) seen; sentinels fill it so the first
        # comparisons need no special case
        heap = [(-np.inf, -1 - k) for k in range(num)]
        in_heap = {p for _, p in heap}
        for s, p in zip(scores, points):
            if p not in exclusive and p not in in_heap and s > heap[0][0]:
                _, gone = heapq.heapreplace(heap, (s, p))
                in_heap.discard(gone)
                in_heap.add(p)

        if isinstance(self.temp, (tuple, list)):
            t, t_end = float(self.temp[0]), float(self.temp[1])
            step = (t - t_end) / (self.n_iter + 1)
        else:
            t, step = float(self.temp), 0.0
        last_change = 0
        for k in range(self.n_iter):
            if k - last_change >= self.early_stop:
                break
            new_points = [self.space.random_walk(p) for p in points]
            new_scores = np.asarray(model.predict(new_points), dtype=np.float64)
            accept = np.exp(np.minimum((new_scores - scores) / (t + 1e-5), 1.0))
            take = np.random.random(len(points)) < accept
            for j in np.nonzero(take)[0]:
                points[j], scores[j] = new_points[j], new_scores[j]
            for s, p in zip(new_scores, new_points):
                if p not in exclusive and p not in in_heap and s > heap[0][0]:
                    _, gone = heapq.heapreplace(heap, (s, p))
                    in_heap.discard(gone)
                    in_heap.add(p)
                    last_change = k
            t -= step
            if self.log_interval and (k + 1) % self.log_interval == 0:
                logger.debug("SA iter: %d\tlast_update: %d\tmax-0: %.2f\ttemp: %.2f", k + 1,
                             last_change, max(h[0] for h in heap), t)
        self.points = points
        best = sorted((h for h in heap if h[1] >= 0), key=lambda h: -h[0])
        return [p for _, p in best]
