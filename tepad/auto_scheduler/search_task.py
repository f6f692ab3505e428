"""Search tasks and tuning (TVM's ``auto_scheduler.SearchTask``, ``TuningOptions``,
``auto_schedule``)."""
from __future__ import annotations

import os

from ..autotvm.trial_cap import cap_trials
from ..driver import build
from ..errors import TepadError
from ..target import Target, is_gpu_kind
from .compute_dag import ComputeDAG
from .cost_model import HAVE_XGBOOST, RandomModel, XGBModel
from .measure import LocalBuilder, LocalRunner, ProgramMeasurer, result_cost
from .measure_record import RecordToFile, best_by_state, load_best_record
from .search_policy import SketchPolicy
from .gpu_sketch import make_sketch
from .sketch import Sketch
from .task_input import (TASK_INPUT_BUFFER_TABLE, get_task_input_buffer,  # noqa: F401
                         register_task_input_buffer, register_task_input_check_func)
from .workload_registry import make_workload_key, workload_key_to_tensors

# DAGs given directly (not through a registered workload), by key: forked build workers
# find them here
_DAGS: dict = {}


class HardwareParams:
    """TVM's hardware parameters; tepad reads the vector width and registers from the target
    instead, so these are kept for reference only."""

    def __init__(self, num_cores=None, vector_unit_bytes=None, cache_line_bytes=64,
                 max_shared_memory_per_block=0, max_local_memory_per_block=0,
                 max_threads_per_block=0, max_vthread_extent=0, warp_size=0, target=None,
                 target_host=None):
        self.num_cores = num_cores or os.cpu_count() or 1
        self.vector_unit_bytes = vector_unit_bytes
        self.cache_line_bytes = cache_line_bytes


class TuningOptions:
    """``num_measure_trials`` (0: no tuning; at most ``TEPAD_MAX_TRIALS`` when set), ``early_stopping`` (stop after that many
    trials without improvement; None: never), ``num_measures_per_round`` (64),
    ``verbose`` (0 silent, 1 one line a measurement), ``builder`` ("local" or a
    LocalBuilder), ``runner`` ("local", a LocalRunner or ``LocalRPCMeasureContext().runner``),
    ``measure_callbacks`` (e.g. ``[RecordToFile(log)]``)."""

    def __init__(self, num_measure_trials=0, early_stopping=None, num_measures_per_round=64,
                 verbose=1, builder="local", runner="local", measure_callbacks=None):
        if int(num_measure_trials) < 0 or int(num_measures_per_round) < 1:
            raise TepadError(f"TuningOptions: num_measure_trials ({num_measure_trials}) must be "
                             f">= 0 and num_measures_per_round ({num_measures_per_round}) >= 1")
        self.num_measure_trials = cap_trials(int(num_measure_trials))
        self.early_stopping = early_stopping
        self.num_measures_per_round = int(num_measures_per_round)
        self.verbose = verbose
        self.builder = LocalBuilder() if builder == "local" else builder
        self.runner = LocalRunner() if runner == "local" else runner
        self.measure_callbacks = list(measure_callbacks or [])


class SearchTask:
    """A workload to tune for a target: ``SearchTask(func=f, args=(...), target="llvm")``
    with ``f`` registered by ``@register_workload``, or ``SearchTask(workload_key=key,
    target=...)``, or ``SearchTask(compute_dag=dag, workload_key=..., target=...)``.

    ``task_inputs`` (``{name: NDArray or numpy array}``) registers arrays fed, instead of
    random data, to the placeholder arguments of that name (see ``task_input``; a sparse
    weight's ``indices`` / ``indptr``); ``task_inputs_overwrite`` replaces an array already
    registered under a name, ``task_inputs_save_to_file`` also writes it to the working
    directory."""

    def __init__(self, func=None, args=None, compute_dag=None, workload_key=None,
                 target=None, target_host=None, hardware_params=None,
                 layout_rewrite_option=None, task_inputs=None,
                 task_inputs_overwrite=False, task_inputs_save_to_file=False, desc=""):
        if target is None:
            raise TepadError("SearchTask: target is required (e.g. target='llvm')")
        self.target = Target.canon_target(target)
        if target_host is not None:
            self.target = self.target.with_host(target_host)
        if func is not None:
            if isinstance(func, str):
                workload_key = make_workload_key(func, args or ())
            else:
                workload_key = make_workload_key(func, args or ())
        if compute_dag is None:
            if workload_key is None:
                raise TepadError("SearchTask: give func and args, a workload_key, or a "
                                 "compute_dag")
            compute_dag = ComputeDAG(workload_key_to_tensors(workload_key))
        elif not isinstance(compute_dag, ComputeDAG):
            raise TepadError(f"SearchTask: compute_dag must be a ComputeDAG, got "
                             f"{compute_dag!r}")
        else:
            workload_key = workload_key or compute_dag.workload_key()
            _DAGS[workload_key] = compute_dag
        self.compute_dag = compute_dag
        self.workload_key = workload_key
        self.hardware_params = hardware_params or HardwareParams()
        self.desc = desc
        if task_inputs is not None and not isinstance(task_inputs, dict):
            raise TepadError(f"SearchTask: task_inputs must be a dict of name -> array, got "
                             f"{type(task_inputs).__name__}")
        self.task_input_names = list(task_inputs or {})
        for name, data in (task_inputs or {}).items():
            register_task_input_buffer(workload_key, name, data, task_inputs_overwrite,
                                       task_inputs_save_to_file)
        self._sketch = None

    @property
    def sketch(self) -> Sketch:
        if self._sketch is None:
            self._sketch = make_sketch(self.compute_dag, self.target)
        return self._sketch

    def tune(self, tuning_options, search_policy=None, adaptive_training=False):
        """Search with ``search_policy`` (default: ``SketchPolicy(self, XGBModel())``),
        measuring ``tuning_options.num_measure_trials`` states."""
        if not isinstance(tuning_options, TuningOptions):
            raise TepadError(f"tune: expects TuningOptions, got {tuning_options!r}")
        if search_policy is None:
            search_policy = SketchPolicy(self, XGBModel() if HAVE_XGBOOST
                                         else RandomModel(), verbose=tuning_options.verbose)
        if tuning_options.num_measure_trials == 0:
            return None
        measurer = ProgramMeasurer(self, tuning_options.builder, tuning_options.runner,
                                   tuning_options.measure_callbacks, tuning_options.verbose)
        try:
            return search_policy.search(tuning_options.num_measure_trials,
                                        tuning_options.early_stopping,
                                        tuning_options.num_measures_per_round, measurer)
        finally:
            measurer.close()

    def _best_state(self, log_file):
        inp, _ = load_best_record(log_file, self.workload_key, self.target)
        if inp is None:
            raise TepadError(f"no successful record of workload {self.workload_key} for "
                             f"target {self.target} in {log_file!r}")
        return inp.state

    def apply_best(self, log_file, include_compatible=False, layout_rewrite_option=None):
        """``(schedule, tensors)`` of the best record in ``log_file``."""
        return self.compute_dag.apply_steps_from_state(self._best_state(log_file))

    def print_best(self, log_file, print_mode="schedule"):
        """The Python schedule code of the best record (``print_mode="schedule"``; the
        names are the workload's operation names, ``s`` the schedule), or for a GPU target
        with ``print_mode="cuda"`` the CUDA C source of the kernels it builds to (printed
        from their TIR, as the module's ``imported_modules[0].get_source()`` is)."""
        if print_mode == "cuda":
            if not is_gpu_kind(self.target):
                raise TepadError(f"print_best: print_mode 'cuda' needs a GPU target; the "
                                 f"task's target is {self.target}")
            sch, args = self.apply_best(log_file)
            return build(sch, args, target=self.target).imported_modules[0].get_source()
        if print_mode != "schedule":
            raise TepadError(f"print_best: print_mode {print_mode!r} is not supported; tepad "
                             "prints 'schedule' code, or 'cuda' for a GPU target")
        return self.compute_dag.print_python_code_from_state(self._best_state(log_file))

    def __getstate__(self):
        return {"workload_key": self.workload_key, "target": str(self.target),
                "desc": self.desc}

    def __setstate__(self, state):
        key = state["workload_key"]
        self.__init__(compute_dag=_DAGS.get(key) or ComputeDAG(workload_key_to_tensors(key)),
                      workload_key=key, target=state["target"], desc=state["desc"])

    def __repr__(self):
        return f"SearchTask({self.workload_key}, target={self.target})"


def create_task(func, args, target, target_host=None, hardware_params=None):
    """TVM's older spelling of ``SearchTask(func=func, args=args, target=target)``."""
    return SearchTask(func=func, args=args, target=target, target_host=target_host,
                      hardware_params=hardware_params)


def auto_schedule(task, search_policy=None, tuning_options=None):
    """Tune ``task`` and return ``(schedule, tensors)`` of the best state found (TVM's
    ``auto_schedule``); with no successful state, the analytical default."""
    tuning_options = tuning_options or TuningOptions()
    best = task.tune(tuning_options, search_policy)
    if best is None:
        best = task.sketch.state(task.sketch.default_params())
    return task.compute_dag.apply_steps_from_state(best)


class TuneSummary:
    """What ``tune_workload`` found: trials (states searched), confirmations (measurements
    repeated at the end), errors, the default's and the best cost (seconds; None when it
    did not run), the DAG's operation count and the log."""

    def __init__(self, trials, errors, default_cost, best_cost, flop, log, confirmations=0):
        self.trials, self.errors, self.confirmations = trials, errors, confirmations
        self.default_cost, self.best_cost, self.flop, self.log = default_cost, best_cost, \
            flop, log

    @property
    def speedup(self):
        if self.default_cost is None or self.best_cost is None:
            return None
        return self.default_cost / self.best_cost


CONFIRM_TOP, CONFIRM_ROUNDS = 4, 2


def confirm_best(measurer, states, rounds=CONFIRM_ROUNDS):
    """Measure ``states`` ``rounds`` times more, one after another in each round (so that a
    change in the machine's load hits them all), and make the measurer's best the state with
    the lowest median over all its measurements (``best_by_state``)."""
    for _ in range(rounds):
        measurer.measure(states)
    best = best_by_state(measurer.history)
    if best:
        (pair, cost), = best.values()
        measurer.best_state, measurer.best_cost = pair[0].state, cost


def tune_workload(func, args, n_trial, log, target="llvm", runner=None, seed=None,
                  verbose=0) -> TuneSummary:
    """Measure the analytical default (``default_schedule``'s state) of a registered
    workload, then search ``n_trial - 1`` more states with ``SketchPolicy``; everything is
    appended to ``log``. The default runner times each state 3 times (at least 20 ms each,
    CPU time: ``LocalRunner(clock="cpu")``) and the search ranks by the least of them. At
    the end the best ``CONFIRM_TOP`` states and the default are measured
    ``CONFIRM_ROUNDS`` times more (``confirm_best``); the best is the lowest median over a
    state's measurements, as ``apply_best`` reads the log. What ``tepad tune --auto``
    runs."""
    task = SearchTask(func=func, args=args, target=target)
    measurer = ProgramMeasurer(task, LocalBuilder(),
                               runner or LocalRunner(number=3, repeat=3, min_repeat_ms=20),
                               [RecordToFile(log)], verbose)
    try:
        default = task.sketch.state(task.sketch.default_params())
        _, [res] = measurer.measure([default])
        default_cost = result_cost(res) if res.error_no == 0 else None
        if n_trial > 1:
            model = XGBModel(num_warmup_sample=8) if HAVE_XGBOOST else RandomModel(seed)
            policy = SketchPolicy(task, model, seed=seed, verbose=verbose)
            policy.record(default, res)
            policy.search(n_trial - 1, None, 16, measurer)
        trials = measurer.ct
        if n_trial > 1 and measurer.best_state is not None:
            top = policy._best_measured(CONFIRM_TOP)
            if default_cost is not None and default not in top:
                top.append(default)
            confirm_best(measurer, top)
        best = measurer.best_cost if measurer.best_state is not None else None
        return TuneSummary(trials, measurer.error_ct, default_cost, best,
                           task.compute_dag.flop_ct, log, measurer.ct - trials)
    finally:
        measurer.close()
