"""TVM's ``autotvm.register_topi_compute`` / ``register_topi_schedule`` (TVM 0.7-0.18): an
operator written as a compute taking a config and a schedule taking a config becomes a
tunable task named ``task_name`` ("dense_tiled.x86").

* The decorated compute ``f(cfg, *args)`` is called as ``f(*args)``: its config comes from
  ``DispatchContext.current`` for the workload ``(task_name, *args)`` (the tuned one inside
  ``apply_history_best``, the fallback otherwise). Its outputs remember that workload.
* The decorated schedule ``g(cfg, outs)`` is called as ``g(outs)``: it finds the workload
  the compute left on an output's op (searching the inputs too) and asks for the same
  config; outputs that did not come from a registered compute get the fallback config.
* Once both are registered, ``autotvm.task.create(task_name, args, target)`` tunes them:
  the template computes, schedules, and takes the Tensor arguments plus the outputs.

Arguments must be loggable (``serialize_args``: ints, floats, strings, tuples, Tensors);
keyword arguments are refused, as in TVM.
"""
from __future__ import annotations

import functools
import weakref

from ...errors import TepadError
from ...target import Target
from ...tensor.tensor import Tensor
from .dispatcher import DispatchContext
from .space import FallbackConfigEntity
from .task import TASK_TABLE, args_to_workload

WORKLOAD_ATTR = "workload"
_computes: dict = {}       # task name -> the undecorated compute's wrapper
_schedules: dict = {}      # task name -> the undecorated schedule
# output op -> the config its compute ran with (the schedule's, when its own query falls back)
_configs = weakref.WeakKeyDictionary()


def _outputs(node) -> list:
    return list(node) if isinstance(node, (list, tuple)) else [node]


def _query(workload):
    return DispatchContext.current.query(Target.current(allow_none=True), workload)


def _register_template(task_name):
    if task_name not in _computes or task_name not in _schedules:
        return
    fcompute, fschedule = _computes[task_name], _schedules[task_name]

    def template(*args):
        outs = fcompute(*args)
        s = fschedule(outs)
        inputs = [a for a in args if isinstance(a, Tensor)]
        return s, inputs + _outputs(outs)

    template.__name__ = task_name
    TASK_TABLE[task_name] = template


def register_topi_compute(task_name, func=None):
    """Decorate ``f(cfg, *args)`` as the compute of task ``task_name`` (module docstring)."""
    if not isinstance(task_name, str) or not task_name:
        raise TepadError(f"register_topi_compute: the task name is a non-empty string such "
                         f"as 'dense.x86', got {task_name!r}")

    def decorate(topi_compute):
        @functools.wraps(topi_compute)
        def wrapper(*args, **kwargs):
            if kwargs:
                raise TepadError(f"{task_name}: pass the arguments of a registered topi "
                                 "compute by position (they make its workload)")
            workload = args_to_workload(args, task_name)
            cfg = _query(workload)
            node = topi_compute(cfg, *args)
            for t in _outputs(node):
                if isinstance(t, Tensor):
                    t.op.attrs[WORKLOAD_ATTR] = workload
                    _configs[t.op] = cfg
            return node

        _computes[task_name] = wrapper
        _register_template(task_name)
        return wrapper

    return decorate if func is None else decorate(func)


def _find_workload(outs):
    """``(workload, op)`` of the first op (outputs, then their inputs) a registered compute
    made, or ``(None, None)``."""
    seen, stack = set(), [t.op for t in outs if isinstance(t, Tensor)]
    while stack:
        op = stack.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        wkl = getattr(op, "attrs", {}).get(WORKLOAD_ATTR)
        if wkl is not None:
            return wkl, op
        stack.extend(t.op for t in getattr(op, "input_tensors", ()))
    return None, None


def _schedule_config(outs):
    workload, op = _find_workload(outs)
    if workload is None:
        return FallbackConfigEntity()
    cfg = _query(workload)
    if getattr(cfg, "is_fallback", False):
        # no tuned config here (say, the compute ran under another target): the schedule
        # takes the knobs the compute defined
        cfg = _configs.get(op, cfg)
    return cfg


def register_topi_schedule(task_name, func=None):
    """Decorate ``g(cfg, outs)`` as the schedule of task ``task_name`` (module docstring)."""
    if not isinstance(task_name, str) or not task_name:
        raise TepadError(f"register_topi_schedule: the task name is a non-empty string "
                         f"such as 'dense.x86', got {task_name!r}")

    def decorate(topi_schedule):
        @functools.wraps(topi_schedule)
        def wrapper(outs, *args, **kwargs):
            outs = _outputs(outs)
            return topi_schedule(_schedule_config(outs), outs, *args, **kwargs)

        _schedules[task_name] = wrapper
        _register_template(task_name)
        return wrapper

    return decorate if func is None else decorate(func)


__all__ = ["register_topi_compute", "register_topi_schedule", "WORKLOAD_ATTR"]
