"""Templates, tasks, config spaces and dispatch (TVM's ``autotvm.task`` package:
``autotvm.task.create``, ``autotvm.task.space.SplitEntity``, ``autotvm.task.dispatcher``)."""
import importlib

from ...errors import warn_deprecated
from . import space
from . import dispatcher
from . import task
from . import topi_integration
from .topi_integration import register_topi_compute, register_topi_schedule
from .dispatcher import (ApplyConfig, DispatchContext, FallbackContext, get_config,
                         clear_fallback_cache)
from .space import (ConfigEntity, ConfigSpace, FallbackConfigEntity, InstantiationError,
                    AnnotateEntity, OtherOptionEntity, ReorderEntity, SplitEntity)
from .task import (TASK_TABLE, Task, args_to_workload, create, deserialize_args, get_template,
                   serialize_args, template)

__all__ = ["space", "dispatcher", "task", "ApplyConfig", "DispatchContext", "FallbackContext",
           "get_config", "ConfigEntity", "ConfigSpace", "FallbackConfigEntity",
           "InstantiationError", "AnnotateEntity", "OtherOptionEntity", "ReorderEntity",
           "SplitEntity", "TASK_TABLE", "Task", "args_to_workload", "create",
           "deserialize_args", "get_template", "serialize_args", "template",
           "clear_fallback_cache", "ApplyHistoryBest", "register", "topi_integration",
           "register_topi_compute", "register_topi_schedule"]


def __getattr__(name):
    # TVM's autotvm.task.ApplyHistoryBest (tepad keeps it in autotvm.history, which imports
    # this package) and 0.6's autotvm.task.register (today autotvm.template)
    if name == "ApplyHistoryBest":
        return importlib.import_module("tepad.autotvm.history").ApplyHistoryBest
    if name == "register":
        warn_deprecated("autotvm.task.register", "autotvm.template")
        return template
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
