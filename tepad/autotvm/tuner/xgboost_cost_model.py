"""``XGBoostCostModel`` (TVM's ``autotvm.tuner.xgboost_cost_model``): gradient-boosted trees
from xgboost over config features, trained on measured throughput.

Features per config index (cached per feature kind):

* ``"itervar"`` / ``"curve"``: tepad's loop features of the lowered candidate
  (``tepad.autotvm.feature``; TVM's two encodings differ, tepad has one);
* ``"knob"``: the config's knob values (``ConfigEntity.get_flatten_feature``), no lowering.

``loss_type``: ``"reg"`` fits the normalized throughput with squared error; ``"rank"`` and
``"rank-binary"`` fit a pairwise ranking (only the order of the configs matters).
"""
from __future__ import annotations

import logging

import numpy as np

from ...errors import TepadError
from ..feature import config_features
from .model_based_tuner import CostModel, FeatureCache

logger = logging.getLogger("autotvm")

MISSING_XGBOOST = ("XGBoostCostModel needs the optional package xgboost: pip install "
                   "'tepad[tune]' (or pip install xgboost); RandomTuner, GridSearchTuner and "
                   "GATuner need nothing extra")

FEATURE_TYPES = ("itervar", "curve", "knob")
LOSS_TYPES = ("reg", "rank", "rank-binary")


def import_xgboost():
    """The xgboost module, or an ImportError saying how to install it."""
    try:
        import xgboost       # optional extra 'tune'
    except ImportError as err:
        raise ImportError(MISSING_XGBOOST) from err
    return xgboost


class XGBoostCostModel(CostModel):
    """Predicts a config's throughput (relative, higher is faster) from its features.

    ``upper_model``: the model this one was spawned from (they share the feature cache).
    ``num_threads``: xgboost's thread count (its default when None). ``log_interval`` is
    accepted for TVM's signature; fitting logs one line per fit at debug level."""

    def __init__(self, task, feature_type="itervar", loss_type="reg", num_threads=None,
                 log_interval=25, upper_model=None):
        if feature_type not in FEATURE_TYPES:
            raise TepadError(f"XGBoostCostModel: feature_type {feature_type!r} is not one of "
                             f"{list(FEATURE_TYPES)}")
        if loss_type not in LOSS_TYPES:
            raise TepadError(f"XGBoostCostModel: loss_type {loss_type!r} is not one of "
                             f"{list(LOSS_TYPES)}")
        self.xgb = import_xgboost()
        self.task = task
        self.space = task.config_space
        self.feature_type = feature_type
        self.loss_type = loss_type
        self.num_threads = num_threads
        self.log_interval = log_interval
        self.upper_model = upper_model
        self.feature_cache = upper_model.feature_cache if upper_model else FeatureCache()
        self.bst = None
        self.base_model = None
        self._sample_size = 0
        params = {"max_depth": 3, "gamma": 0.0001, "min_child_weight": 1, "subsample": 1.0,
                  "eta": 0.3, "lambda": 1.0, "alpha": 0, "verbosity": 0}
        params["objective"] = "reg:squarederror" if loss_type == "reg" else "rank:pairwise"
        if num_threads:
            params["nthread"] = int(num_threads)
        self.xgb_params = params

    # --- features ---------------------------------------------------------------------------
    def _feature_of(self, config):
        try:
            if self.feature_type == "knob":
                return np.asarray(config.get_flatten_feature(), dtype=np.float32)
            return np.asarray(config_features(self.task, config), dtype=np.float32)
        except Exception:  # noqa: BLE001 -- a config its template refuses has no feature
            return None

    def _features(self, indices) -> tuple:
        """``(matrix, rows)``: the feature rows of the indices that have one and their
        positions in ``indices``."""
        cache = self.feature_cache.get(self.feature_type)
        rows, feats = [], []
        for k, i in enumerate(indices):
            i = int(i)
            if i not in cache:
                cache[i] = self._feature_of(self.space.get(i))
            if cache[i] is not None:
                rows.append(k)
                feats.append(cache[i])
        if not feats:
            return None, rows
        width = max(len(f) for f in feats)
        mat = np.zeros((len(feats), width), dtype=np.float32)
        for r, f in enumerate(feats):
            mat[r, :len(f)] = f
        return mat, rows

    # --- CostModel ----------------------------------------------------------------------------
    def fit(self, xs, ys, plan_size):
        mat, rows = self._features(xs)
        if mat is None:
            return
        y = np.asarray(ys, dtype=np.float64)[rows]
        if y.max() <= 1e-6:
            return
        self._train(mat, y / y.max())
        self._sample_size = len(xs)

    def fit_log(self, records, plan_size, min_seed_records=500) -> bool:
        """Learn from records of this task (same workload; other tasks' records are
        skipped); False when fewer than ``min_seed_records`` of them ran."""
        xs, ys = [], []
        for inp, res in records:
            if inp.task.workload != self.task.workload or res.error_no != 0:
                continue
            xs.append(int(inp.config.index))
            ys.append((self.task.flop or 1.0) / float(np.mean(res.costs)))
        if not xs or len(xs) < int(min_seed_records):
            return False
        self.fit(xs, ys, plan_size)
        return self.bst is not None

    def predict(self, xs, output_margin=False) -> np.ndarray:
        """A score per index of ``xs`` (0 before any fit; -inf-like low scores for configs
        with no feature)."""
        xs = list(xs)
        out = np.full(len(xs), -1e9 if self.bst is not None else 0.0)
        mat, rows = self._features(xs)
        if mat is None or self.bst is None:
            if self.bst is None:
                out[:] = 0.0
            return out
        dmat = self.xgb.DMatrix(mat)
        if self.base_model is not None:
            dmat.set_base_margin(self.base_model.predict(
                [xs[r] for r in rows], output_margin=True))
        out[rows] = self.bst.predict(dmat, output_margin=output_margin)
        return out

    def load_basemodel(self, base_model):
        self.base_model = base_model
        base_model.upper_model = self

    def spawn_base_model(self) -> "XGBoostCostModel":
        return XGBoostCostModel(self.task, self.feature_type, self.loss_type,
                                self.num_threads, self.log_interval, upper_model=self)

    def reset(self):
        """Forget the trained trees (the feature cache stays)."""
        self.bst = None
        self.base_model = None

    def _train(self, mat, y):
        dtrain = self.xgb.DMatrix(mat, label=y)
        if self.loss_type != "reg":
            dtrain.set_group([len(y)])
            if self.loss_type == "rank-binary":
                dtrain.set_label((y > 0.5 * y.max()).astype(np.float64))
        if self.base_model is not None:
            dtrain.set_base_margin(self.base_model.predict_rows(mat, output_margin=True))
        self.bst = self.xgb.train(self.xgb_params, dtrain, num_boost_round=64)
        logger.debug("XGBoostCostModel: trained on %d configs", len(y))

    def predict_rows(self, mat, output_margin=False) -> np.ndarray:
        """Predictions for feature rows already made (zeros before any fit)."""
        if self.bst is None:
            return np.zeros(len(mat))
        return self.bst.predict(self.xgb.DMatrix(mat), output_margin=output_margin)
