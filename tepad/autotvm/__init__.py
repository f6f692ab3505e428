"""AutoTVM-style tuning (TVM's ``tvm.autotvm``): schedule templates with knobs, tasks, local
and Ray measurement, tuners, logs in TVM's format and ``apply_history_best``.

    @autotvm.template("tutorial/matmul")
    def matmul(N, L, M, dtype):
        ...; cfg = autotvm.get_config(); cfg.define_split("tile_y", y, num_outputs=2); ...
    task = autotvm.task.create("tutorial/matmul", args=(512, 512, 512, "float32"), target="llvm")
    tuner = autotvm.tuner.RandomTuner(task)
    tuner.tune(n_trial=10, measure_option=autotvm.measure_option(builder="local",
               runner=autotvm.LocalRunner(number=5)),
               callbacks=[autotvm.callback.log_to_file("matmul.log")])
    with autotvm.apply_history_best("matmul.log"):
        s, args = matmul(512, 512, 512, "float32")
"""
import sys as _sys

from . import task
from .task import space
from . import record
from . import callback
from . import feature
from . import measure
from . import tuner
from . import env
from .task.dispatcher import ApplyConfig, DispatchContext, FallbackContext, get_config
from .history import ApplyHistoryBest, apply_history_best
from .measure import (Builder, LocalBuilder, LocalRunner, Runner, create_measure_batch,
                      measure_option)
from .ray_runner import RayRunner
from .result import MeasureErrorNo, MeasureInput, MeasureResult
from .task.space import ConfigEntity, ConfigSpace, FallbackConfigEntity, InstantiationError
from .task.task import template
from .tuner import DropletTuner, GATuner, GridSearchTuner, RandomTuner, XGBTuner
from .env import GLOBAL_SCOPE
from .task.task import create
from .task.topi_integration import register_topi_compute, register_topi_schedule
from . import utils
from . import utils as util
from . import tophub
from . import database
from . import executor

# TVM's module paths of these names: autotvm.measure is a package there (measure.measure,
# measure.measure_methods), and TVM 0.6's record module re-exported ApplyHistoryBest
for _sub in ("measure", "measure_methods"):
    setattr(measure, _sub, measure)
    _sys.modules.setdefault(f"{__name__}.measure.{_sub}", measure)
for _sub in ("executor", "local_executor"):
    setattr(measure, _sub, executor)
    _sys.modules.setdefault(f"{__name__}.measure.{_sub}", executor)
measure.LocalExecutor = executor.LocalExecutor
record.ApplyHistoryBest = ApplyHistoryBest

__all__ = ["space", "task", "record", "callback", "feature", "measure", "tuner", "env",
           "ApplyConfig", "DispatchContext", "FallbackContext", "get_config",
           "ApplyHistoryBest", "apply_history_best", "Builder", "LocalBuilder", "LocalRunner",
           "Runner", "RayRunner", "create_measure_batch", "measure_option", "MeasureErrorNo",
           "MeasureInput", "MeasureResult", "ConfigEntity", "ConfigSpace",
           "FallbackConfigEntity", "InstantiationError", "template", "GATuner",
           "GridSearchTuner", "RandomTuner", "XGBTuner", "GLOBAL_SCOPE", "create", "utils", "tophub",
           "DropletTuner",
           "util", "register_topi_compute", "register_topi_schedule", "database", "executor"]
