"""Tuners (TVM's ``autotvm.tuner``): RandomTuner, GridSearchTuner, GATuner and the
model-based XGBTuner (needs the optional extra ``tune``: xgboost)."""
from .tuner import Tuner, IndexBaseTuner
from .index_based import GridSearchTuner, RandomTuner
from .ga_tuner import GATuner
from .xgboost_tuner import XGBTuner, XGBoostTuner
from .model_based_tuner import ModelBasedTuner, CostModel, ModelOptimizer, FeatureCache
from .sa_model_optimizer import SimulatedAnnealingOptimizer
from . import model_based_tuner, sa_model_optimizer, xgboost_cost_model, xgboost_tuner
from .droplet_tuner import DropletTuner
from .. import callback

__all__ = ["Tuner", "IndexBaseTuner", "GridSearchTuner", "RandomTuner", "GATuner", "XGBTuner",
           "XGBoostTuner", "DropletTuner", "callback", "ModelBasedTuner", "CostModel",
           "ModelOptimizer", "FeatureCache", "SimulatedAnnealingOptimizer", "model_based_tuner",
           "sa_model_optimizer", "xgboost_cost_model", "xgboost_tuner"]
