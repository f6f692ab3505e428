"""Model-based tuning pieces (TVM's model_based_tuner, xgboost_cost_model,
sa_model_optimizer): a cost model learns which configs are fast, optimizers search it, and a
tuner built from user-chosen parts finds the best config. Measurements are a cost function of
the config (no building), as in test_tuners."""
import math
import time

import numpy as np
import pytest

from tepad import autotvm
from tepad.autotvm.result import MeasureErrorNo, MeasureInput, MeasureResult
from tepad.autotvm.tuner import tuner as tuner_module
from tepad.autotvm.tuner.model_based_tuner import (CostModel, ModelBasedTuner,
                                                   RandomSampleOptimizer, knob2point,
                                                   point2knob, submodular_pick)
from tepad.autotvm.tuner.sa_model_optimizer import SimulatedAnnealingOptimizer
from tepad.errors import TepadError

from . import templates  # noqa: F401 -- registers the templates
from .test_tuners import OPTION, FakeBatch, _best_index, _cost, _task


class ExactModel(CostModel):
    """Scores a config by the true (negated) cost: what a perfect model would learn."""

    def __init__(self, task):
        self.space = task.config_space
        self.fits = 0

    def fit(self, xs, ys, plan_size):
        self.fits += 1

    def predict(self, xs, output_margin=False):
        return np.array([-_cost(self.space.get(int(i))) for i in xs])


@pytest.fixture
def fake(monkeypatch):
    batch = FakeBatch()
    monkeypatch.setattr(tuner_module, "create_measure_batch", lambda task, opt: batch)
    return batch


def test_annealing_finds_the_models_best_configs_outside_the_excluded():
    task = _task()
    best = _best_index(task)
    sa = SimulatedAnnealingOptimizer(task, n_iter=80, parallel_size=8, early_stop=None)
    picked = sa.find_maximums(ExactModel(task), 5, exclusive=set())
    assert len(picked) == len(set(picked)) == 5 and best in picked
    costs = sorted(_cost(task.config_space.get(i)) for i in range(49))

    def cost_of(picks):             # costs tie, so compare the costs picked, not indices
        return sorted(_cost(task.config_space.get(i)) for i in picks)
    assert cost_of(picked) == costs[:5]
    again = sa.find_maximums(ExactModel(task), 5, exclusive={best})
    assert best not in again and cost_of(again) == costs[1:6]


def test_random_sample_optimizer_ranks_a_sample_by_the_model():
    task = _task()
    opt = RandomSampleOptimizer(task, n_sample=64, seed=0)    # the whole space of 49
    picked = opt.find_maximums(ExactModel(task), 3, exclusive={0, 1})
    ranked = [i for i in sorted(range(49), key=lambda i: _cost(task.config_space.get(i)))
              if i not in (0, 1)]
    assert picked == ranked[:3]


@pytest.mark.parametrize("ratio", [None, 2])
def test_a_tuner_of_user_chosen_parts_finds_the_best(fake, ratio):
    task = _task()
    model = ExactModel(task)
    tuner = ModelBasedTuner(task, model, SimulatedAnnealingOptimizer(task, n_iter=40,
                                                                      parallel_size=8),
                            plan_size=8, diversity_filter_ratio=ratio)
    tuner.tune(n_trial=24, measure_option=OPTION)
    assert model.fits >= 1
    assert len(set(fake.seen)) == len(fake.seen) <= 24
    assert tuner.best_config.index == _best_index(task)


def test_model_based_tuner_checks_its_arguments():
    task = _task()
    with pytest.raises(TepadError, match="diversity_filter_ratio"):
        ModelBasedTuner(task, ExactModel(task), RandomSampleOptimizer(task), 8, 0.5)
    with pytest.raises(TepadError, match="plan_size"):
        ModelBasedTuner(task, ExactModel(task), RandomSampleOptimizer(task), 0)


def test_submodular_pick_prefers_new_knob_values():
    knobs = [[0, 0], [0, 0], [1, 1], [0, 1]]
    # equal scores: after [0, 0] the point with two new values beats a repeat
    assert submodular_pick(np.zeros(4), knobs, 2) == [0, 2]
    # a large score outweighs diversity
    assert submodular_pick(np.array([0.0, 0.0, 0.0, 10.0]), knobs, 1) == [3]


def test_point_and_knob_conversions_are_inverse():
    dims = [3, 4, 5]
    for p in range(60):
        assert knob2point(point2knob(p, dims), dims) == p
    assert point2knob(7, dims) == [1, 2, 0]


def _records(task, n):
    """Measurements of the first ``n`` configs with the test cost."""
    out = []
    for i in range(n):
        cfg = task.config_space.get(i)
        out.append((MeasureInput(task.target, task, cfg),
                    MeasureResult((_cost(cfg),), MeasureErrorNo.NO_ERROR, 0.0, time.time())))
    return out


@pytest.mark.parametrize("feature_type,loss_type", [("knob", "reg"), ("knob", "rank"),
                                                    ("itervar", "reg")])
def test_xgboost_cost_model_learns_which_configs_are_fast(feature_type, loss_type):
    pytest.importorskip("xgboost", reason="needs the optional extra 'tune'")
    from tepad.autotvm.tuner.xgboost_cost_model import XGBoostCostModel
    task = _task()
    model = XGBoostCostModel(task, feature_type=feature_type, loss_type=loss_type)
    assert np.all(model.predict(range(5)) == 0)      # nothing learned yet
    xs = list(range(0, 49, 2))
    ys = [1.0 / _cost(task.config_space.get(i)) for i in xs]
    model.fit(xs, ys, plan_size=8)
    pred = model.predict(range(49))
    truth = np.array([-_cost(task.config_space.get(i)) for i in range(49)])
    # the predicted order agrees with the true one far better than chance
    corr = np.corrcoef(np.argsort(np.argsort(pred)), np.argsort(np.argsort(truth)))[0, 1]
    assert corr > 0.6


def test_xgboost_cost_model_from_history_and_as_a_base_model():
    pytest.importorskip("xgboost", reason="needs the optional extra 'tune'")
    from tepad.autotvm.tuner.xgboost_cost_model import XGBoostCostModel
    task = _task()
    base = XGBoostCostModel(task, feature_type="knob", loss_type="rank")
    assert not base.fit_log(_records(task, 10), plan_size=8)      # too few records
    assert base.fit_log(_records(task, 49), plan_size=8, min_seed_records=40)
    upper = XGBoostCostModel(task, feature_type="knob", loss_type="rank")
    upper.load_basemodel(base)
    upper.fit(np.arange(10), np.arange(10), plan_size=8)
    assert upper.predict(range(49)).shape == (49,)
    with pytest.raises(TepadError, match="feature_type"):
        XGBoostCostModel(task, feature_type="pixels")
    with pytest.raises(TepadError, match="loss_type"):
        XGBoostCostModel(task, loss_type="hinge")


def test_xgb_tuner_with_annealing_and_history(fake):
    pytest.importorskip("xgboost", reason="needs the optional extra 'tune'")
    task = _task()
    tuner = autotvm.tuner.XGBTuner(task, plan_size=8, feature_type="knob", optimizer="sa")
    assert isinstance(tuner.model_optimizer, SimulatedAnnealingOptimizer)
    tuner.load_history(_records(task, 49), min_seed_records=40)
    assert tuner.trials                      # the history's model planned the first trials
    tuner.tune(n_trial=16, measure_option=OPTION)
    assert tuner.best_config.index == _best_index(task)
    with pytest.raises(TepadError, match="optimizer"):
        autotvm.tuner.XGBTuner(task, optimizer="newton")


def test_index_tuners_report_their_range():
    task = _task()
    t = autotvm.tuner.GridSearchTuner(task, range_idx=(8, 15))
    assert (t.range_length, t.index_offset) == (8, 8)
    t = autotvm.tuner.RandomTuner(task)
    assert (t.range_length, t.index_offset) == (len(task.config_space), 0)


def test_the_tvm_module_paths_of_the_model_based_pieces():
    from tepad.autotvm.tuner import model_based_tuner, sa_model_optimizer, xgboost_cost_model
    assert model_based_tuner.ModelBasedTuner is autotvm.tuner.ModelBasedTuner
    assert sa_model_optimizer.SimulatedAnnealingOptimizer is \
        autotvm.tuner.SimulatedAnnealingOptimizer
    assert issubclass(autotvm.tuner.XGBTuner, ModelBasedTuner)
    assert hasattr(xgboost_cost_model, "XGBoostCostModel")
    assert math.isfinite(_cost(_task().config_space.get(0)))
