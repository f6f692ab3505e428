"""Model-based tuning (TVM's ``autotvm.tuner.model_based_tuner``): a cost model learns the
throughput of measured configs, an optimizer searches the space for the configs the model
rates best, and the tuner measures those next.

The three parts are separate so that user code can plug in its own: a :class:`CostModel`
(``fit`` / ``predict`` over config indices), a :class:`ModelOptimizer` (``find_maximums``)
and :class:`ModelBasedTuner`, which plans ``plan_size`` trials per model fit. ``XGBTuner`` is
one such tuner (an xgboost model, see ``xgboost_cost_model``).
"""
from __future__ import annotations

import numpy as np

from ...errors import TepadError
from .tuner import Tuner


class FeatureCache:
    """Feature vectors per feature kind, keyed by config index; an index whose config could
    not be made has the value ``None``."""

    def __init__(self):
        self.feature_cache = {}

    def get(self, key) -> dict:
        """The index -> feature dict of feature kind ``key`` (made empty on first use)."""
        return self.feature_cache.setdefault(key, {})

    def size(self, key) -> int:
        return len(self.feature_cache.get(key, {}))

    def clear(self, key) -> None:
        self.feature_cache.pop(key, None)


class CostModel:
    """What a model-based tuner asks of its model. ``xs`` are config indices of the task's
    space and ``ys`` their measured throughput (FLOP/s; 0 for a failed config)."""

    def fit(self, xs, ys, plan_size):
        """Learn from measured configs; ``plan_size`` is how many the tuner plans per fit."""
        raise NotImplementedError

    def fit_log(self, records, plan_size, min_seed_records=500) -> bool:
        """Learn from ``(MeasureInput, MeasureResult)`` records of earlier tuning; False
        when there were too few to learn from."""
        raise NotImplementedError

    def predict(self, xs, output_margin=False) -> np.ndarray:
        """A score per config index, higher for faster configs."""
        raise NotImplementedError

    def load_basemodel(self, base_model):
        """Use ``base_model`` (trained on history by :meth:`spawn_base_model`'s model) as
        the starting point."""
        raise NotImplementedError

    def spawn_base_model(self) -> "CostModel":
        """A new model of the same kind, for learning from history."""
        raise NotImplementedError


class ModelOptimizer:
    """Searches the configs a cost model rates best."""

    def find_maximums(self, model, num, exclusive) -> list:
        """Up to ``num`` config indices not in ``exclusive`` with the best predictions."""
        raise NotImplementedError


class RandomSampleOptimizer(ModelOptimizer):
    """Ranks a uniform sample of ``n_sample`` unvisited configs by the model and returns the
    best ``num`` (the whole space when it is smaller). Cheap where each prediction needs the
    config lowered, which is where a long annealing walk costs too much."""

    def __init__(self, task, n_sample=128, seed=None):
        self.space = task.config_space
        self.n_sample = int(n_sample)
        self.rng = np.random.default_rng(seed)

    def find_maximums(self, model, num, exclusive) -> list:
        size = len(self.space)
        want = max(int(num), self.n_sample)
        if size - len(exclusive) <= want:
            cands = [i for i in range(size) if i not in exclusive]
        else:
            picked = set()
            while len(picked) < want:
                i = int(self.rng.integers(0, size))
                if i not in exclusive:
                    picked.add(i)
            cands = sorted(picked)
        if not cands:
            return []
        scores = np.asarray(model.predict(cands), dtype=np.float64)
        order = np.argsort(-scores, kind="stable")
        return [cands[k] for k in order[:int(num)]]


class ModelBasedTuner(Tuner):
    """Measures configs in plans of ``plan_size``: the first plan is random; once
    ``plan_size`` more configs have been measured (and one ran), ``cost_model`` is fitted and
    ``model_optimizer`` picks the next plan among unvisited configs. The last
    ``eps_greedy`` fraction of each plan (5%) is drawn at random (exploration). With
    ``diversity_filter_ratio`` r >= 1 the optimizer proposes ``plan_size * r`` configs and the most diverse ``plan_size`` of them (by knob
    values, :func:`submodular_pick`) are kept."""

    def __init__(self, task, cost_model, model_optimizer, plan_size,
                 diversity_filter_ratio=None):
        super().__init__(task)
        if diversity_filter_ratio is not None and diversity_filter_ratio < 1:
            raise TepadError(f"ModelBasedTuner: diversity_filter_ratio must be at least 1 "
                             f"(or None), got {diversity_filter_ratio}")
        if int(plan_size) < 1:
            raise TepadError(f"ModelBasedTuner: plan_size must be positive, got {plan_size}")
        self.target = task.target
        self.plan_size = int(plan_size)
        self.cost_model = cost_model
        self.model_optimizer = model_optimizer
        self.diversity_filter_ratio = diversity_filter_ratio
        self.trials = []
        self.trial_pt = 0
        self.xs, self.ys = [], []
        self.flops_max = 0.0
        self.train_ct = 0
        self.eps_greedy = 0.05

    def next_batch(self, batch_size) -> list:
        out = []
        explore_from = len(self.trials) - int(self.eps_greedy * self.plan_size)
        while len(out) < batch_size and self.has_next():
            while self.trial_pt < len(self.trials) and self.trials[self.trial_pt] in self.visited:
                self.trial_pt += 1
            if self.trial_pt >= explore_from:
                index = self.space.get_rand_index(to_exclude=self.visited)
            else:
                index = int(self.trials[self.trial_pt])
                self.trial_pt += 1
            out.append(self.space.get(index))
            self.visited.add(index)
        return out

    def update(self, inputs, results):
        for inp, res in zip(inputs, results):
            index = inp.config.index
            if res.error_no == 0:
                flops = (inp.task.flop or 1.0) / float(np.mean(res.costs))
                self.flops_max = max(self.flops_max, flops)
            else:
                flops = 0.0
            self.xs.append(index)
            self.ys.append(flops)
            self.visited.add(index)
        if len(self.xs) >= self.plan_size * (self.train_ct + 1) and self.flops_max > 1e-6:
            self.cost_model.fit(self.xs, self.ys, self.plan_size)
            self.trials = self._plan(self.cost_model)
            self.trial_pt = 0
            self.train_ct += 1

    def _plan(self, model) -> list:
        if not self.diversity_filter_ratio:
            return [int(i) for i in
                    self.model_optimizer.find_maximums(model, self.plan_size, self.visited)]
        cands = self.model_optimizer.find_maximums(
            model, int(self.plan_size * self.diversity_filter_ratio), self.visited)
        if not cands:
            return []
        knobs = [self.space.point2knob(int(x)) for x in cands]
        # the scores are zeroed, as TVM does: the filter picks for diversity alone among
        # candidates the model already rated best
        picked = submodular_pick(np.zeros(len(cands)), knobs, self.plan_size, knob_weight=1.0)
        return [int(cands[k]) for k in picked]

    def load_history(self, data_set, min_seed_records=500):
        """Fit a base model on earlier records of this task; when enough were found, plan
        the first trials with it and start the tuner's model from it."""
        base = self.cost_model.spawn_base_model()
        if not base.fit_log(list(data_set), self.plan_size, min_seed_records):
            return
        if not self.trials:
            self.trials = [int(i) for i in
                           self.model_optimizer.find_maximums(base, self.plan_size,
                                                              self.visited)]
            self.trial_pt = 0
        self.cost_model.load_basemodel(base)

    def has_next(self) -> bool:
        return len(self.visited) < len(self.space)


def submodular_pick(scores, knobs, n_pick, knob_weight=1.0) -> list:
    """Greedily pick ``n_pick`` of the points (indices into ``scores``) maximizing the sum of
    their scores plus ``knob_weight`` times the number of distinct (position, value) knob
    pairs among the picked points: good and diverse. The objective is monotone submodular,
    so greedy picking is within ``1 - 1/e`` of the best."""
    n = len(scores)
    if n != len(knobs):
        raise TepadError(f"submodular_pick: {n} scores but {len(knobs)} knob vectors")
    scores = np.asarray(scores, dtype=np.float64)
    remain = list(range(n))
    seen = [set() for _ in range(len(knobs[0]))] if n else []
    picked = []
    for _ in range(min(int(n_pick), n)):
        best, best_gain = None, -np.inf
        for i in remain:
            gain = scores[i] + knob_weight * sum(
                1 for d, v in enumerate(knobs[i]) if v not in seen[d])
            if gain > best_gain:
                best, best_gain = i, gain
        picked.append(best)
        remain.remove(best)
        for d, v in enumerate(knobs[best]):
            seen[d].add(v)
    return picked


def point2knob(point, dims) -> list:
    """The knob values (one per dimension of sizes ``dims``, the first fastest) of flat
    config index ``point``."""
    knob = []
    for d in dims:
        knob.append(int(point) % d)
        point = int(point) // d
    return knob


def knob2point(knob, dims) -> int:
    """The flat config index of knob values ``knob`` (inverse of :func:`point2knob`)."""
    point, stride = 0, 1
    for k, d in zip(knob, dims):
        point += int(k) * stride
        stride *= d
    return point
