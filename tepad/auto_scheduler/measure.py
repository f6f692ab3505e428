"""Measuring states (TVM's ``auto_scheduler.measure``), on tepad.autotvm's machinery: states
are built in worker processes (``LocalBuilder``), then checked against the numpy oracle
(``tepad.testing.reference`` on fixed random inputs) and timed with the module's
``time_evaluator`` in a separate measuring worker (``LocalRunner``). A state that fails to
build, crashes, times out or computes wrong values comes back with ``error_no != 0``; the
search goes on."""
from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
from collections import namedtuple

import numpy as np

from ..autotvm import measure as tvm_measure
from ..autotvm.result import BuildResult, MeasureErrorNo
from ..driver import build
from ..errors import TepadError
from ..tensor.tensor import PlaceholderOp
from ..testing import reference
from .loop_state import State, apply_steps
from .tvm_steps import from_tvm_steps, is_tvm_steps
from .task_input import get_task_input_buffer, has_task_input_buffer, prepare_input_map

logger = logging.getLogger("auto_scheduler")

MeasureInput = namedtuple("MeasureInput", ["task", "state"])
MeasureInput.__doc__ = "A candidate: the search task and one state of it."


def recover_measure_input(inp, rebuild_state=False):
    """A ``MeasureInput`` read from a log with its real task (TVM's
    ``measure.recover_measure_input``): the ``SearchTask`` of the record's workload key and
    target (the workload's function must be registered in this process). With
    ``rebuild_state`` the state's steps are replayed over the task's DAG, which checks them
    and turns the position-based steps of a TVM log into tepad's name-based ones."""
    from .search_task import SearchTask
    task = inp.task
    new_task = SearchTask(workload_key=task.workload_key, target=task.target,
                          hardware_params=getattr(task, "hardware_params", None))
    state = inp.state
    if rebuild_state:
        steps = state.steps
        if is_tvm_steps(steps):
            steps = from_tvm_steps(new_task.compute_dag, steps)
        apply_steps(new_task.compute_dag, steps)
        state = State(steps, state.params)
    return MeasureInput(new_task, state)

MeasureResult = namedtuple("MeasureResult", ["costs", "error_no", "error_msg", "all_cost",
                                             "timestamp"])
MeasureResult.__doc__ = ("A measurement: ``costs`` (seconds per run; empty on an error), "
                         "``error_no`` (``MeasureErrorNo``), ``error_msg``, ``all_cost`` "
                         "(seconds the measurement took) and ``timestamp``.")


def result_cost(res) -> float:
    """The cost the search ranks a measurement by: the least of its ``costs`` (the repeat
    least disturbed by other work on the machine), ``inf`` for a failed one."""
    if res.error_no != 0 or not res.costs:
        return float("inf")
    return float(min(res.costs))


def build_state(task, steps, path) -> BuildResult:
    """Build worker job: replay ``steps`` on the task's DAG, build for the task's target and
    write the shared library to ``path``; errors come back in the BuildResult."""
    t0 = time.time()
    try:
        sch, args, _ = apply_steps(task.compute_dag, steps)
    except Exception as err:  # noqa: BLE001 -- reported as the candidate's error
        return BuildResult(None, MeasureErrorNo.INSTANTIATION_ERROR,
                           f"{type(err).__name__}: {err}", time.time() - t0)
    try:
        build(sch, args, target=task.target).export_library(path)
    except Exception as err:  # noqa: BLE001
        return BuildResult(None, MeasureErrorNo.COMPILE_HOST, f"{type(err).__name__}: {err}",
                           time.time() - t0)
    return BuildResult(path, MeasureErrorNo.NO_ERROR, None, time.time() - t0)


class LocalBuilder(tvm_measure.LocalBuilder):
    """Builds a batch of states in ``n_parallel`` worker processes; past ``timeout`` seconds
    a build is a BUILD_TIMEOUT. ``build_func`` must be "default"."""

    build_worker = staticmethod(build_state)

    def __init__(self, timeout=15, n_parallel=None, build_func="default"):
        super().__init__(timeout=timeout, n_parallel=n_parallel, build_func=build_func)

    def _job(self, inp, path):
        return (inp.task, inp.state.steps, path)


class LocalRunner(tvm_measure.LocalRunner):
    """Checks each built state against the oracle once, then times it: ``number`` calls per
    timing, ``repeat`` timings, each at least ``min_repeat_ms`` (TVM's defaults). Past
    ``timeout`` seconds the measuring worker is killed (RUN_TIMEOUT). ``device`` and
    ``enable_cpu_cache_flush`` are accepted and have no effect.

    ``clock`` (tepad's): ``"cpu"`` (default) times CPU kernels by the CPU time of the
    measuring process, so that a machine busy with other jobs does not rank a candidate by
    how long it waited for a core (with several kernel threads this is their sum: the work,
    not the parallel speed); ``"wall"`` by wall time (TVM's measure; GPU kernels always)."""

    CLOCKS = ("cpu", "wall")

    def __init__(self, timeout=10, number=3, repeat=1, min_repeat_ms=100,
                 cooldown_interval=0.0, enable_cpu_cache_flush=False, device=0,
                 check_correctness=True, rtol=1e-4, atol=1e-4, clock="cpu"):
        if clock not in self.CLOCKS:
            raise TepadError(f"LocalRunner: clock must be one of {self.CLOCKS}, got {clock!r}")
        super().__init__(timeout=timeout, number=number, repeat=repeat,
                         min_repeat_ms=min_repeat_ms, cooldown_interval=cooldown_interval,
                         enable_cpu_cache_flush=enable_cpu_cache_flush,
                         check_correctness=check_correctness, rtol=rtol, atol=atol)
        self.clock = clock

    def job(self, build_result) -> dict:
        return dict(super().job(build_result), clock=self.clock)


class LocalRPCMeasureContext:
    """TVM measures through a local RPC tracker and server with this; tepad has no RPC, so it
    holds a LocalRunner with the same timing options (``.runner``)."""

    def __init__(self, priority=1, n_parallel=1, timeout=10, number=3, repeat=1,
                 min_repeat_ms=0, cooldown_interval=0.0, enable_cpu_cache_flush=False,
                 device=0):
        self.runner = LocalRunner(timeout=timeout, number=number, repeat=repeat,
                                  min_repeat_ms=min_repeat_ms,
                                  cooldown_interval=cooldown_interval)


def write_reference(task, path, check=True, seed=0) -> dict:
    """Inputs for the task's tensors (a registered task input where the argument has one,
    see ``task_input``; else random) and, when ``check``, the oracle's outputs, saved to
    ``path`` (npz); ``{"path", "n_args", "outputs"}`` as autotvm's runner reads it."""
    rng = np.random.default_rng(seed)
    arrays, inputs, outputs = {}, {}, []
    args = task.compute_dag.tensors
    names = prepare_input_map(args, task.workload_key)
    for i, t in enumerate(args):
        shape = tuple(int(d) for d in t.shape)
        name = names.get(t)
        if isinstance(t.op, PlaceholderOp) and name is not None and \
                has_task_input_buffer(task.workload_key, name):
            given = get_task_input_buffer(task.workload_key, name).numpy()
            if given.shape != shape or str(given.dtype) != t.dtype:
                raise TepadError(f"task input {name!r}: the registered array is "
                                 f"{given.dtype}{list(given.shape)} but the argument is "
                                 f"{t.dtype}{list(shape)}")
            arrays[f"arg{i}"] = given
            inputs[t] = given
        elif isinstance(t.op, PlaceholderOp):
            arrays[f"arg{i}"] = tvm_measure.random_array(shape, t.dtype, rng)
            inputs[t] = arrays[f"arg{i}"]
        else:
            arrays[f"arg{i}"] = np.zeros(shape, t.dtype)
            outputs.append(i)
    checked = []
    if check and outputs:
        try:
            expect = reference([args[i] for i in outputs], inputs)
            for i, e in zip(outputs, expect):
                arrays[f"expect{i}"] = e
            checked = outputs
        except Exception as err:  # noqa: BLE001 -- a definition the oracle cannot evaluate
            logger.warning("auto_scheduler: outputs of %s are not checked: the oracle failed "
                           "(%s)", task.workload_key, err)
    np.savez(path, **arrays)
    return {"path": path, "n_args": len(args), "outputs": checked}


class ProgramMeasurer:
    """Builds and runs batches of states for one task, calls the measure callbacks and keeps
    the best state found (``best_state``, ``best_cost``)."""

    def __init__(self, task, builder, runner, callbacks=(), verbose=1):
        if not isinstance(builder, tvm_measure.Builder):
            raise TepadError(f"TuningOptions: builder must be 'local' or a LocalBuilder, got "
                             f"{builder!r}")
        if isinstance(runner, LocalRPCMeasureContext):
            runner = runner.runner
        if not isinstance(runner, tvm_measure.Runner):
            raise TepadError(f"TuningOptions: runner must be 'local', a LocalRunner or "
                             f"LocalRPCMeasureContext().runner, got {runner!r}")
        self.task, self.builder, self.runner = task, builder, runner
        self.callbacks, self.verbose = list(callbacks), verbose
        self.dir = tempfile.mkdtemp(prefix="tepad_autosched_")
        builder.set_task(task, self.dir)
        runner.set_task(task, write_reference(task, os.path.join(self.dir, "ref.npz"),
                                              check=runner.check_correctness))
        self.best_state, self.best_cost, self.ct, self.error_ct = None, float("inf"), 0, 0
        self.history = []               # every (MeasureInput, MeasureResult), in order

    def measure(self, states, policy=None) -> list:
        inputs = [MeasureInput(self.task, st if isinstance(st, State) else State(st))
                  for st in states]
        results = [None] * len(inputs)
        builds = self.builder.build(inputs)
        ready = []
        for i, b in enumerate(builds):
            if b.error_no != MeasureErrorNo.NO_ERROR:
                results[i] = MeasureResult((), b.error_no, str(b.error), b.time_cost,
                                           time.time())
            else:
                ready.append(i)
        if ready:
            ran = self.runner.run([inputs[i] for i in ready], [builds[i] for i in ready])
            for i, r in zip(ready, ran):
                ok = r.error_no == MeasureErrorNo.NO_ERROR
                results[i] = MeasureResult(tuple(r.costs) if ok else (), r.error_no,
                                           "" if ok else str(r.costs[0]), r.all_cost,
                                           r.timestamp)
        for b in builds:
            if b.filename and os.path.exists(b.filename):
                os.remove(b.filename)
        self.history.extend(zip(inputs, results))
        for inp, res in zip(inputs, results):
            self.ct += 1
            if res.error_no == MeasureErrorNo.NO_ERROR:
                cost = result_cost(res)
                if cost < self.best_cost:
                    self.best_cost, self.best_state = cost, inp.state
                if self.verbose >= 1:
                    gflops = self.task.compute_dag.flop_ct / cost / 1e9
                    print(f"#{self.ct}\t{cost * 1e3:.4f} ms\t{gflops:.2f} GFLOPS\t"
                          f"best {self.task.compute_dag.flop_ct / self.best_cost / 1e9:.2f} "
                          "GFLOPS", flush=True)
            else:
                self.error_ct += 1
                if self.verbose >= 1:
                    print(f"#{self.ct}\terror {MeasureErrorNo.name_of(res.error_no)}: "
                          f"{res.error_msg[:200]}", flush=True)
        for cb in self.callbacks:
            cb(policy, inputs, results)
        return inputs, results

    def close(self):
        self.builder.close()
        self.runner.close()
        shutil.rmtree(self.dir, ignore_errors=True)
