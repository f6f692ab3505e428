"""``XGBTuner`` (TVM's ``autotvm.tuner.XGBTuner``): a model-based tuner with an
:class:`XGBoostCostModel` and a search over the space that the model guides."""
from __future__ import annotations

from ...errors import TepadError
from .model_based_tuner import ModelBasedTuner, ModelOptimizer, RandomSampleOptimizer
from .sa_model_optimizer import SimulatedAnnealingOptimizer
from .xgboost_cost_model import MISSING_XGBOOST, XGBoostCostModel, import_xgboost  # noqa: F401

OPTIMIZERS = ("sample", "sa")


class XGBTuner(ModelBasedTuner):
    """The first ``plan_size`` trials are random; then each plan of ``plan_size`` trials is
    what ``optimizer`` finds best under an xgboost model (``feature_type``, ``loss_type``:
    see :class:`XGBoostCostModel`) retrained on everything measured so far.

    ``optimizer``: ``"sample"`` (tepad's default) ranks ``n_sample`` random unvisited
    configs; ``"sa"`` (TVM's default) runs :class:`SimulatedAnnealingOptimizer`, with a
    shorter walk (32 walkers, 64 steps) when the features need each config lowered; or any
    :class:`ModelOptimizer`. ``seed`` seeds the sampling optimizer."""

    def __init__(self, task, plan_size=64, feature_type="itervar", loss_type="reg",
                 num_threads=None, optimizer="sample", diversity_filter_ratio=None,
                 log_interval=50, n_sample=128, eps_greedy=0.05, seed=None):
        import_xgboost()
        model = XGBoostCostModel(task, feature_type=feature_type, loss_type=loss_type,
                                 num_threads=num_threads, log_interval=log_interval)
        if optimizer == "sample":
            optimizer = RandomSampleOptimizer(task, n_sample=n_sample, seed=seed)
        elif optimizer == "sa":
            if feature_type == "knob":
                optimizer = SimulatedAnnealingOptimizer(task, log_interval=log_interval)
            else:
                optimizer = SimulatedAnnealingOptimizer(task, n_iter=64, parallel_size=32,
                                                        early_stop=16,
                                                        log_interval=log_interval)
        elif not isinstance(optimizer, ModelOptimizer):
            raise TepadError(f"XGBTuner: optimizer {optimizer!r} is not one of "
                             f"{list(OPTIMIZERS)} or a ModelOptimizer")
        super().__init__(task, model, optimizer, plan_size, diversity_filter_ratio)
        self.feature_type = feature_type
        self.eps_greedy = eps_greedy


XGBoostTuner = XGBTuner
