"""Measuring candidates (TVM's ``autotvm.measure``): what a measurement takes and gives, the
error codes, ``measure_option``, and the local builder and runner.

A batch of candidates is *built* in parallel worker processes (each instantiates the template
under its config, builds it and writes a shared library), then *run* one at a time in a
separate, long-lived worker process that loads each library, checks its output against the
oracle (``tepad.testing.reference`` of the task's default config, on fixed random inputs) and
times it. A candidate that crashes its worker, runs past the timeout or computes a wrong
answer comes back as a ``MeasureResult`` with an error code; the worker is restarted and the
tuning goes on.
"""
from __future__ import annotations

import logging
import multiprocessing
import os
import shutil
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool

import numpy as np

from ..errors import TepadError
from ..tensor.tensor import PlaceholderOp, Tensor
from ..target import Target
from ..testing import random_array as testing_random_array, reference
from . import worker
from .result import BuildResult, HOST, MeasureErrorNo, MeasureInput, MeasureResult
from .task.space import InstantiationError

logger = logging.getLogger("autotvm")


def _mp_context(method=None):
    """Build workers fork where the platform can (templates defined in ``__main__`` are then
    visible to them) and spawn elsewhere (templates must then live in importable modules:
    a spawned worker imports the module the template was defined in)."""
    if method is None:
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    return multiprocessing.get_context(method)


# ---------------------------------------------------------------------------------------------
# builder
# ---------------------------------------------------------------------------------------------
class Builder:
    """Builds candidates into files a runner loads."""

    def __init__(self, timeout=10, n_parallel=None):
        self.timeout = timeout
        self.n_parallel = n_parallel or max(1, os.cpu_count() or 1)
        self.task = None
        self.build_dir = None

    def set_task(self, task, build_dir):
        self.task, self.build_dir = task, build_dir

    def build(self, measure_inputs) -> list:
        raise NotImplementedError

    def close(self):
        pass


class LocalBuilder(Builder):
    """Builds a batch of candidates in ``n_parallel`` worker processes (default: one per
    core; ``start_method`` as multiprocessing's, default fork where there is one); a build running past ``timeout`` seconds is a BUILD_TIMEOUT, one that kills its
    worker a COMPILE_HOST error (the other jobs of that batch are built again, one by one,
    so that only the culprit is charged)."""

    def __init__(self, timeout=10, n_parallel=None, build_func="default", do_fork=True,
                 start_method=None):
        super().__init__(timeout, n_parallel)
        if start_method not in (None, "fork", "spawn", "forkserver"):
            raise TepadError(f"LocalBuilder: start_method {start_method!r}; use 'fork', "
                             "'spawn' or 'forkserver'")
        self.start_method = start_method
        if build_func not in ("default", "so"):
            raise TepadError(f"LocalBuilder: build_func {build_func!r} is not supported; tepad "
                             "builds shared libraries ('default')")
        self._pool = None
        self._count = 0

    def _executor(self):
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.n_parallel,
                                             mp_context=_mp_context(self.start_method),
                                             initializer=worker.quiet_child)
        return self._pool

    # what a build worker runs on one job (tepad.auto_scheduler builds states instead)
    build_worker = staticmethod(worker.build_candidate)

    def _job(self, inp, path) -> tuple:
        """The arguments of ``build_worker`` for one measure input."""
        return (inp.task, inp.config.to_json_dict(), path)

    def build(self, measure_inputs) -> list:
        jobs = []
        for inp in measure_inputs:
            self._count += 1
            path = os.path.join(self.build_dir, f"cand_{self._count}.so")
            jobs.append(self._job(inp, path))
        pool = self._executor()
        futures = [pool.submit(self.build_worker, *j) for j in jobs]
        deadline = time.time() + self.timeout * max(1, -(-len(jobs) // self.n_parallel))
        results, suspects = [None] * len(jobs), []
        for i, fut in enumerate(futures):
            try:
                results[i] = fut.result(timeout=max(0.1, deadline - time.time()))
            except (FutureTimeout, BrokenProcessPool):
                suspects.append(i)
            except Exception as err:     # noqa: BLE001 -- a candidate never stops tuning
                results[i] = BuildResult(None, MeasureErrorNo.COMPILE_HOST,
                                         f"{type(err).__name__}: {err}", 0.0)
        if suspects:
            # a worker died or hung: every job it may have taken down is built again alone,
            # so only the culprit is charged with the error
            self._kill_pool()
            for i in suspects:
                results[i] = self._build_alone(jobs[i])
        return results

    def _build_alone(self, job) -> BuildResult:
        pool = ProcessPoolExecutor(1, mp_context=_mp_context(self.start_method),
                                   initializer=worker.quiet_child)
        try:
            return pool.submit(self.build_worker, *job).result(timeout=self.timeout)
        except FutureTimeout:
            return BuildResult(None, MeasureErrorNo.BUILD_TIMEOUT,
                               f"build took longer than {self.timeout} s", self.timeout)
        except BrokenProcessPool:
            return BuildResult(None, MeasureErrorNo.COMPILE_HOST,
                               "the build worker died (a crash while instantiating or "
                               "compiling the candidate)", 0.0)
        except Exception as err:  # noqa: BLE001
            return BuildResult(None, MeasureErrorNo.COMPILE_HOST,
                               f"{type(err).__name__}: {err}", 0.0)
        finally:
            _kill(pool)

    def _kill_pool(self):
        pool, self._pool = self._pool, None
        if pool is not None:
            _kill(pool)

    def close(self):
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def _kill(pool):
    """Stop a process pool now, killing workers that are still busy."""
    for p in list((getattr(pool, "_processes", None) or {}).values()):
        if p.is_alive():
            p.kill()
    pool.shutdown(wait=False, cancel_futures=True)


# ---------------------------------------------------------------------------------------------
# reference data: fixed random inputs and the oracle's outputs
# ---------------------------------------------------------------------------------------------
def random_array(shape, dtype, rng):
    """Random test data of ``dtype``: uniform [0, 1) for floats, integers in [0, 8)
    (``tepad.testing.random_array``'s defaults)."""
    return testing_random_array(shape, dtype, rng)


# the numpy oracle evaluates definitions without a schedule: past this many operations the
# default config's own output is the reference instead (a 1024^2 x 16 pool chain: 90 s vs 1 s)
ORACLE_FLOP_LIMIT = 2e8


def _reference_instance(task, config):
    """The template under ``config`` for the oracle: instantiated for the plain CPU target
    ``llvm``, as TVM's correctness check does, so that a template whose definitions depend
    on the target is checked against its CPU definitions; under the task's own target when
    the template cannot be instantiated for ``llvm``."""
    try:
        return task.instantiate(config, target=Target("llvm"))
    except InstantiationError:
        raise
    except Exception:  # noqa: BLE001 -- a template that only instantiates for its target
        return task.instantiate(config)


def make_reference(task, path, check=True, seed=0, oracle="auto") -> dict:
    """Write to ``path`` (npz) random inputs for the task's arguments and, when ``check``,
    the expected outputs for the definitions of the first config the template accepts (the
    default). ``oracle``: "reference" (``tepad.testing.reference``), "default" (left to
    ``MeasureBatch``: the default config built and run), or "auto" (the reference up to
    ``ORACLE_FLOP_LIMIT`` operations). Returns ``{"path", "n_args", "outputs"}`` for the
    runner, with ``"pending"`` (outputs to take from the default config, its index)."""
    if oracle not in ("auto", "reference", "default"):
        raise TepadError(f"oracle {oracle!r}: use 'auto', 'reference' or 'default'")
    args, index = None, 0
    for index in range(min(len(task.config_space), 64)):
        try:
            _, args = _reference_instance(task, task.config_space.get(index))
            break
        except InstantiationError:
            continue
    if args is None:
        raise TepadError(f"template {task.name}: none of its first configs instantiates; "
                         "there is nothing to measure")
    rng = np.random.default_rng(seed)
    arrays, outputs, inputs = {}, [], {}
    for i, t in enumerate(args):
        if not isinstance(t, Tensor):
            raise TepadError(f"template {task.name}: argument {i} ({t!r}) is not a Tensor; "
                             "autotvm measures templates whose arguments are tensors")
        shape = tuple(int(d) for d in t.shape)
        if isinstance(t.op, PlaceholderOp):
            arrays[f"arg{i}"] = random_array(shape, t.dtype, rng)
            inputs[t] = arrays[f"arg{i}"]
        else:
            arrays[f"arg{i}"] = np.zeros(shape, t.dtype)
            outputs.append(i)
    out = {"path": path, "n_args": len(args), "outputs": []}
    if oracle == "auto":
        oracle = "reference" if (task.flop or 0) <= ORACLE_FLOP_LIMIT else "default"
    if check and outputs and oracle == "default":
        out["pending"] = (outputs, index)
    elif check and outputs:
        try:
            expect = reference([args[i] for i in outputs], inputs)
            for i, e in zip(outputs, expect):
                arrays[f"expect{i}"] = e
            out["outputs"] = outputs
        except Exception as err:  # noqa: BLE001 -- a definition the oracle cannot evaluate
            logger.warning("autotvm: outputs of %s are not checked: the oracle failed (%s)",
                           task.name, err)
    np.savez(path, **arrays)
    return out


def default_outputs(task, ref, builder, build_dir) -> dict:
    """Complete a reference whose expected outputs are the default config's: build it, run it
    once in a measuring worker on the reference inputs and keep its outputs. On failure the
    outputs are not checked (with a warning)."""
    outputs, index = ref.pop("pending")
    [b] = builder.build([MeasureInput(task.target, task, task.config_space.get(index))])
    if b.error_no != MeasureErrorNo.NO_ERROR:
        logger.warning("autotvm: outputs of %s are not checked: its default config does not "
                       "build (%s)", task.name, b.error)
        return ref
    path = os.path.join(build_dir, "ref_default.npz")
    run = worker.RunWorker()
    try:
        status, payload = run.measure({"lib": b.filename, "ref": ref["path"],
                                       "n_args": ref["n_args"], "check": [], "save": path,
                                       "outputs": outputs}, 600)
    finally:
        run.stop()
    if status != "ok":
        logger.warning("autotvm: outputs of %s are not checked: its default config failed to "
                       "run (%s)", task.name, payload)
        return ref
    return dict(ref, path=path, outputs=outputs)


# ---------------------------------------------------------------------------------------------
# runners
# ---------------------------------------------------------------------------------------------
class Runner:
    """Runs built candidates and times them."""

    def __init__(self, timeout=10, number=4, repeat=3, min_repeat_ms=0, cooldown_interval=0.1,
                 enable_cpu_cache_flush=False, check_correctness=True, rtol=1e-4, atol=1e-4,
                 oracle="auto"):
        self.timeout = timeout
        self.oracle = oracle
        self.number, self.repeat = int(number), int(repeat)
        self.min_repeat_ms = float(min_repeat_ms)
        self.cooldown_interval = float(cooldown_interval)
        self.check_correctness = check_correctness
        self.rtol, self.atol = rtol, atol
        self.ref = None

    def set_task(self, task, ref):
        self.task, self.ref = task, ref

    def job(self, build_result) -> dict:
        """What the worker needs to measure one built candidate."""
        return {"lib": build_result.filename, "ref": self.ref["path"],
                "n_args": self.ref["n_args"], "check": self.ref["outputs"],
                "number": self.number, "repeat": self.repeat,
                "min_repeat_ms": self.min_repeat_ms, "rtol": self.rtol, "atol": self.atol}

    def run(self, measure_inputs, build_results) -> list:
        raise NotImplementedError

    def close(self):
        pass


class LocalRunner(Runner):
    """Measures candidates one at a time in a separate worker process: ``number`` calls per
    timing, ``repeat`` timings (each at least ``min_repeat_ms``), the mean of each kept in
    ``costs``. Past ``timeout`` seconds the worker is killed (RUN_TIMEOUT); a worker that dies
    (a crash in the kernel) is a RUNTIME_DEVICE error; either way a fresh worker takes the
    next candidate. ``enable_cpu_cache_flush`` and ``module_loader`` (TVM's) are accepted
    and have no effect; ``check_correctness=False`` skips the oracle; ``oracle`` picks it
    ("reference": ``tepad.testing.reference``, "default": the default config's output,
    "auto": the reference for up to ``ORACLE_FLOP_LIMIT`` operations)."""

    def __init__(self, timeout=10, number=4, repeat=3, min_repeat_ms=0, cooldown_interval=0.1,
                 enable_cpu_cache_flush=False, check_correctness=True, module_loader=None,
                 **kwargs):
        super().__init__(timeout, number, repeat, min_repeat_ms, cooldown_interval,
                         enable_cpu_cache_flush, check_correctness, **kwargs)
        self._worker = worker.RunWorker()

    def run(self, measure_inputs, build_results) -> list:
        out = []
        for inp, b in zip(measure_inputs, build_results):
            t0 = time.time()
            status, payload = self._worker.measure(self.job(b), self.timeout)
            out.append(result_of(status, payload, time.time() - t0 + b.time_cost, HOST,
                                 self.timeout))
            if self.cooldown_interval > 0 and len(out) < len(build_results):
                time.sleep(min(self.cooldown_interval, 0.05))
        return out

    def close(self):
        self._worker.stop()


def result_of(status, payload, all_cost, host, timeout) -> MeasureResult:
    """A MeasureResult from a worker's answer (``status`` as ``worker.measure_one``)."""
    now = time.time()
    if status == "ok":
        return MeasureResult(tuple(payload), MeasureErrorNo.NO_ERROR, all_cost, now, host)
    code = {"timeout": MeasureErrorNo.RUN_TIMEOUT, "crash": MeasureErrorNo.RUNTIME_DEVICE,
            "error": MeasureErrorNo.RUNTIME_DEVICE,
            "wrong": MeasureErrorNo.WRONG_ANSWER}.get(status, MeasureErrorNo.UNKNOWN_ERROR)
    if status == "timeout":
        payload = f"ran longer than {timeout} s"
    return MeasureResult((str(payload),), code, all_cost, now, host)


def measure_option(builder="local", runner="local"):
    """``{"builder": ..., "runner": ...}`` for ``Tuner.tune`` ("local" means the default
    LocalBuilder / LocalRunner)."""
    if builder == "local":
        builder = LocalBuilder()
    if runner == "local":
        runner = LocalRunner()
    if not isinstance(builder, Builder):
        raise TepadError(f"measure_option: builder must be 'local' or a LocalBuilder, got "
                         f"{builder!r}")
    if not isinstance(runner, Runner):
        raise TepadError(f"measure_option: runner must be 'local', a LocalRunner or a "
                         f"RayRunner, got {runner!r}")
    return {"builder": builder, "runner": runner}


class MeasureBatch:
    """``measure(inputs) -> results`` for one task: builds, then runs; owns a temporary
    directory for the libraries and the reference data."""

    def __init__(self, task, option):
        self.task = task
        self.builder, self.runner = option["builder"], option["runner"]
        self.dir = tempfile.mkdtemp(prefix="tepad_autotvm_")
        self.builder.set_task(task, self.dir)
        ref = make_reference(task, os.path.join(self.dir, "ref.npz"),
                             check=self.runner.check_correctness, oracle=self.runner.oracle)
        if "pending" in ref:
            ref = default_outputs(task, ref, self.builder, self.dir)
        self.runner.set_task(task, ref)

    def __call__(self, measure_inputs) -> list:
        ready, results = [], [None] * len(measure_inputs)
        builds = self.builder.build(measure_inputs)
        for i, b in enumerate(builds):
            if b.error_no != MeasureErrorNo.NO_ERROR:
                results[i] = MeasureResult((b.error,), b.error_no, b.time_cost, time.time(),
                                           HOST)
            else:
                ready.append(i)
        if ready:
            ran = self.runner.run([measure_inputs[i] for i in ready], [builds[i] for i in ready])
            for i, r in zip(ready, ran):
                results[i] = r
        for b in builds:
            if b.filename and os.path.exists(b.filename):
                os.remove(b.filename)
        return results

    def close(self):
        self.builder.close()
        self.runner.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def create_measure_batch(task, option) -> MeasureBatch:
    return MeasureBatch(task, option)


__all__ = ["MeasureErrorNo", "MeasureInput", "MeasureResult", "BuildResult", "measure_option",
           "LocalBuilder", "LocalRunner", "Builder", "Runner", "create_measure_batch",
           "InstantiationError"]
