"""``XGBTuner``: a cost model (gradient-boosted trees from xgboost) over loop features of the
lowered candidates picks what to measure next (TVM's XGBTuner, simplified: the model ranks a
random sample of unmeasured configs instead of running simulated annealing)."""
from __future__ import annotations

import logging

import numpy as np

from ...errors import TepadError
from ..feature import config_features
from ..result import MeasureErrorNo
from .tuner import Tuner

logger = logging.getLogger("autotvm")

MISSING_XGBOOST = ("XGBTuner needs the optional package xgboost: pip install 'tepad[tune]' "
                   "(or pip install xgboost); RandomTuner, GridSearchTuner and GATuner need "
                   "nothing extra")


def _import_xgboost():
    try:
        import xgboost       # optional extra 'tune'
    except ImportError as err:
        raise ImportError(MISSING_XGBOOST) from err
    return xgboost


class XGBTuner(Tuner):
    """The first ``plan_size`` trials are random; after that, each round trains a regression
    model on the measured configs' features (``feature_type``: "itervar", the loop features
    of ``tepad.autotvm.feature``, or "knob", the knob choices) against their normalized
    throughput, scores up to ``n_sample`` unmeasured configs and measures the ``plan_size``
    best (a fraction ``eps_greedy`` of them drawn at random instead)."""

    def __init__(self, task, plan_size=64, feature_type="itervar", loss_type="reg",
                 num_threads=None, optimizer="sample", diversity_filter_ratio=None,
                 log_interval=50, n_sample=128, eps_greedy=0.05, seed=None):
        self.xgb = _import_xgboost()
        super().__init__(task)
        if feature_type not in ("itervar", "knob"):
            raise TepadError(f"XGBTuner: feature_type {feature_type!r} is not supported; use "
                             "'itervar' (loop features) or 'knob'")
        self.plan_size = plan_size
        self.feature_type = feature_type
        self.num_threads = num_threads
        self.n_sample = n_sample
        self.eps_greedy = eps_greedy
        self.rng = np.random.default_rng(seed)
        self.features = {}           # index -> feature vector (None: the template refused it)
        self.xs, self.ys = [], []
        self.trials = []
        self.model = None

    def _feature(self, index):
        if index not in self.features:
            cfg = self.space.get(index)
            try:
                if self.feature_type == "knob":
                    fea = cfg.get_flatten_feature()
                else:
                    fea = config_features(self.task, cfg)
            except Exception:  # noqa: BLE001 -- an invalid config gets no feature
                fea = None
            self.features[index] = fea
        return self.features[index]

    def _sample_unvisited(self, n) -> list:
        size = len(self.space)
        pending = self.visited | set(self.trials)
        if size - len(pending) <= n:
            return [i for i in range(size) if i not in pending]
        out = set()
        while len(out) < n:
            i = int(self.rng.integers(0, size))
            if i not in pending:
                out.add(i)
        return list(out)

    def _plan(self):
        cands = self._sample_unvisited(self.n_sample if self.model is not None
                                       else self.plan_size)
        if self.model is None or not cands:
            self.trials = list(cands[:self.plan_size])
            return
        feats = [(i, self._feature(i)) for i in cands]
        feats = [(i, f) for i, f in feats if f is not None]
        if not feats:
            self.trials = list(cands[:self.plan_size])
            return
        pred = self.model.predict(self.xgb.DMatrix(np.stack([f for _, f in feats])))
        ranked = [feats[k][0] for k in np.argsort(-pred)]
        n_rand = int(self.plan_size * self.eps_greedy)
        picked = ranked[:self.plan_size - n_rand]
        rest = ranked[self.plan_size - n_rand:]
        if rest and n_rand:
            picked += [int(x) for x in self.rng.choice(rest, size=min(n_rand, len(rest)),
                                                       replace=False)]
        self.trials = picked

    def next_batch(self, batch_size) -> list:
        out = []
        while len(out) < batch_size:
            if not self.trials:
                self._plan()
                if not self.trials:
                    break
            i = self.trials.pop(0)
            if i not in self.visited:
                out.append(self.space.get(i))
        return out

    def update(self, inputs, results):
        for inp, res in zip(inputs, results):
            fea = self._feature(inp.config.index)
            if fea is None:
                continue
            ok = res.error_no == MeasureErrorNo.NO_ERROR
            self.xs.append(fea)
            self.ys.append((self.task.flop or 1.0) / float(np.mean(res.costs)) if ok else 0.0)
        if len(self.xs) >= min(self.plan_size, 8) and not self.trials:
            self._train()

    def _train(self):
        ys = np.array(self.ys, dtype=np.float64)
        if ys.max() <= 0:
            return
        params = {"max_depth": 3, "gamma": 0.0001, "min_child_weight": 1, "subsample": 1.0,
                  "eta": 0.3, "lambda": 1.0, "alpha": 0, "objective": "reg:squarederror",
                  "verbosity": 0}
        if self.num_threads:
            params["nthread"] = self.num_threads
        dtrain = self.xgb.DMatrix(np.stack(self.xs), label=ys / ys.max())
        self.model = self.xgb.train(params, dtrain, num_boost_round=64)

    def load_history(self, data_set, min_seed_records=500):
        for inp, res in data_set:
            if inp.task.workload != self.task.workload:
                continue
            self.visited.add(inp.config.index)
        return None


XGBoostTuner = XGBTuner
