"""Tuning one template end to end, as ``tepad tune`` and ``benchmarks/bench_tune.py`` do: the
untuned default measured first, then a tuner, the log written, the best and the speedup."""
from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np

from ..errors import TepadError
from .callback import log_to_file, progress_bar
from .measure import LocalBuilder, LocalRunner, create_measure_batch, measure_option
from .result import MeasureErrorNo, MeasureInput
from .task.space import ConfigEntity, FallbackConfigEntity
from .task.task import create
from .tuner import GATuner, GridSearchTuner, RandomTuner, XGBTuner

TUNERS = {"random": RandomTuner, "grid": GridSearchTuner, "ga": GATuner, "xgb": XGBTuner}


@dataclass
class TuneSummary:
    """What one tuning run found: costs in seconds (None when no candidate ran)."""
    name: str
    args: tuple
    space_size: int
    trials: int
    errors: int
    default_config: object
    default_cost: float | None
    best_config: object
    best_cost: float | None
    flop: float

    @property
    def speedup(self):
        if self.default_cost is None or self.best_cost is None:
            return None
        return self.default_cost / self.best_cost


def templates_in(namespace) -> dict:
    """``{template name: wrapper}`` for every ``@autotvm.template`` function in a module's
    namespace (a dict), in definition order."""
    return {v.template_name: v for v in namespace.values()
            if callable(v) and getattr(v, "template_name", None)}


def template_args(name, wrapper, namespace) -> tuple:
    """The arguments to tune template ``name`` for: ``TUNE_ARGS[name]`` (or keyed by the
    function's name) from the namespace, else the function's parameter defaults."""
    table = namespace.get("TUNE_ARGS") or {}
    for key in (name, getattr(wrapper, "__name__", None)):
        if key in table:
            args = table[key]
            return tuple(args) if isinstance(args, (list, tuple)) else (args,)
    params = inspect.signature(wrapper).parameters.values()
    if all(p.default is not inspect.Parameter.empty for p in params):
        return tuple(p.default for p in params)
    missing = [p.name for p in params if p.default is inspect.Parameter.empty]
    raise TepadError(f"template {name!r}: no arguments to tune it for; give its parameters "
                     f"({', '.join(missing)}) defaults, or define TUNE_ARGS = {{{name!r}: "
                     "(...)}} in the file")


def default_config(task) -> ConfigEntity:
    """The config a plain call of the template uses when no log has one (the fallback)."""
    fb = FallbackConfigEntity()
    task.instantiate(fb)
    choices = []
    for knob, space in task.config_space.space_map.items():
        entity = fb[knob]
        match = [i for i, e in enumerate(space.entities) if e == entity]
        choices.append(match[0] if match else 0)
    return task.config_space.get(task.config_space.index_of(choices))


def make_option(timeout=10, number=4, repeat=3, min_repeat_ms=0, n_parallel=None):
    return measure_option(builder=LocalBuilder(n_parallel=n_parallel),
                          runner=LocalRunner(number=number, repeat=repeat, timeout=timeout,
                                             min_repeat_ms=min_repeat_ms))


def tune_template(name, args, n_trial=20, tuner="random", log=None, option=None,
                  early_stopping=None, target="llvm", progress=True, stream=None,
                  seed=None) -> TuneSummary:
    """Measure the default config of template ``name`` on ``args``, tune it with ``tuner``
    (random, grid, ga, xgb) for ``n_trial`` trials, append every measurement to ``log`` and
    return the summary."""
    if tuner not in TUNERS:
        raise TepadError(f"unknown tuner {tuner!r}; use one of {sorted(TUNERS)}")
    task = create(name, args=args, target=target)
    option = option or make_option()
    callbacks = [log_to_file(log)] if log else []
    default = default_config(task)
    batch = create_measure_batch(task, option)
    try:
        return _tune(task, batch, default, name, args, n_trial, tuner, option, callbacks,
                     early_stopping, progress, stream, seed)
    finally:
        batch.close()


def _tune(task, batch, default, name, args, n_trial, tuner, option, callbacks, early_stopping,
          progress, stream, seed) -> TuneSummary:
    dinp = MeasureInput(task.target, task, default)
    [dres] = batch([dinp])
    for cb in callbacks:
        cb(None, [dinp], [dres])
    default_cost = float(np.mean(dres.costs)) if dres.error_no == MeasureErrorNo.NO_ERROR \
        else None
    kwargs = {"seed": seed} if tuner in ("random", "ga", "xgb") else {}
    if tuner == "xgb":
        kwargs["plan_size"] = max(4, min(16, n_trial // 2))
    t = TUNERS[tuner](task, **kwargs)
    t.visited.add(default.index)
    if progress and len(task.config_space) > 1:
        callbacks.append(progress_bar(min(n_trial, len(task.config_space) - 1),
                                      prefix=f"[{name}] ", stream=stream))
    errors = [0]

    def count_errors(_, inputs, results):
        errors[0] += sum(r.error_no != MeasureErrorNo.NO_ERROR for r in results)
    callbacks.append(count_errors)
    t.tune(n_trial=n_trial, measure_option=option, early_stopping=early_stopping,
           callbacks=callbacks, measure_batch=batch)
    best_config, best_cost = t.best_config, (t.best_cost if t.best_config is not None
                                             else None)
    if default_cost is not None and (best_cost is None or default_cost <= best_cost):
        best_config, best_cost = default, default_cost
    return TuneSummary(name, tuple(args), len(task.config_space), len(t.visited) - 1,
                       errors[0], default, default_cost, best_config, best_cost, task.flop)
