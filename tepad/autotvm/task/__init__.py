"""Templates, tasks, config spaces and dispatch (TVM's ``autotvm.task`` package:
``autotvm.task.create``, ``autotvm.task.space.SplitEntity``, ``autotvm.task.dispatcher``)."""
from . import space
from . import dispatcher
from . import task
from .dispatcher import (ApplyConfig, DispatchContext, FallbackContext, get_config)
from .space import (ConfigEntity, ConfigSpace, FallbackConfigEntity, InstantiationError,
                    AnnotateEntity, OtherOptionEntity, ReorderEntity, SplitEntity)
from .task import (TASK_TABLE, Task, args_to_workload, create, deserialize_args, get_template,
                   serialize_args, template)

__all__ = ["space", "dispatcher", "task", "ApplyConfig", "DispatchContext", "FallbackContext",
           "get_config", "ConfigEntity", "ConfigSpace", "FallbackConfigEntity",
           "InstantiationError", "AnnotateEntity", "OtherOptionEntity", "ReorderEntity",
           "SplitEntity", "TASK_TABLE", "Task", "args_to_workload", "create",
           "deserialize_args", "get_template", "serialize_args", "template"]
