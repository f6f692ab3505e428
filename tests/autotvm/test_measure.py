"""Real measurement: candidates built in worker processes and run in a separate worker; a
candidate that crashes, hangs, is wrong or is refused becomes an error record and the tuning
goes on."""
import json
from pathlib import Path

import pytest

from tepad import autotvm
from tepad.autotvm.measure import create_measure_batch
from tepad.autotvm.result import MeasureErrorNo, MeasureInput

from . import templates  # noqa: F401 -- registers the templates


def _option(timeout=4):
    return autotvm.measure_option(
        builder=autotvm.LocalBuilder(n_parallel=2),
        runner=autotvm.LocalRunner(number=2, repeat=2, timeout=timeout))


def test_crash_hang_wrong_and_refused_candidates_are_error_records(tmp_path):
    task = autotvm.task.create("test/faulty", args=(64,), target="llvm")
    log = str(tmp_path / "faulty.log")
    tuner = autotvm.tuner.GridSearchTuner(task)
    tuner.tune(n_trial=6, measure_option=_option(),
               callbacks=[autotvm.callback.log_to_file(log)])
    lines = [json.loads(x) for x in open(log)]
    codes = {x["config"]["entity"][0][2]: x["result"][1] for x in lines}
    assert codes == templates.FAULTY_CODES
    by_mode = {x["config"]["entity"][0][2]: x for x in lines}
    assert "signal 6" in by_mode["crash"]["error"]          # SIGABRT
    assert "differ from the oracle" in by_mode["wrong"]["error"]
    assert all(x["host"] for x in lines)
    # the candidate measured after the crash and the hang ran in a fresh worker
    assert by_mode["ok2"]["result"][0][0] < 1.0
    assert tuner.best_config["mode"].val in ("ok", "ok2")


def test_a_measure_batch_times_every_good_candidate():
    task = autotvm.task.create("test/matmul", args=(32, 32, 32, "float32"), target="llvm")
    batch = create_measure_batch(task, _option(timeout=10))
    try:
        inputs = [MeasureInput(task.target, task, task.config_space.get(i)) for i in (0, 7, 24)]
        results = batch(inputs)
    finally:
        batch.close()
    assert [r.error_no for r in results] == [0, 0, 0]
    for r in results:
        assert len(r.costs) == 2 and all(0 < c < 0.1 for c in r.costs)
        assert r.all_cost > 0


def test_measure_option_accepts_local_and_refuses_others():
    opt = autotvm.measure_option(builder="local", runner="local")
    assert isinstance(opt["builder"], autotvm.LocalBuilder)
    assert isinstance(opt["runner"], autotvm.LocalRunner)
    with pytest.raises(ValueError, match="builder"):
        autotvm.measure_option(builder="rpc")


def test_builds_that_kill_or_hang_their_worker_charge_only_themselves(tmp_path):
    task = autotvm.task.create("test/buildfault", args=(16,), target="llvm")
    batch = create_measure_batch(task, autotvm.measure_option(
        builder=autotvm.LocalBuilder(n_parallel=2, timeout=3),
        runner=autotvm.LocalRunner(number=1, repeat=1, timeout=5)))
    try:
        results = batch([MeasureInput(task.target, task, task.config_space.get(i))
                         for i in range(4)])
    finally:
        batch.close()
    assert [r.error_no for r in results] == [
        MeasureErrorNo.NO_ERROR, MeasureErrorNo.COMPILE_HOST, MeasureErrorNo.BUILD_TIMEOUT,
        MeasureErrorNo.NO_ERROR]
    assert "worker died" in results[1].costs[0]


def test_spawned_build_workers_import_the_templates_module(monkeypatch):
    # the spawned workers import this package's templates module by its name
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1]))
    assert templates.__name__ == "autotvm.templates"
    task = autotvm.task.create("test/matmul", args=(16, 16, 16, "float32"), target="llvm")
    batch = create_measure_batch(task, autotvm.measure_option(
        builder=autotvm.LocalBuilder(n_parallel=2, timeout=60, start_method="spawn"),
        runner=autotvm.LocalRunner(number=1, repeat=1, timeout=10)))
    try:
        results = batch([MeasureInput(task.target, task, task.config_space.get(i))
                         for i in (3, 11)])
    finally:
        batch.close()
    assert [r.error_no for r in results] == [0, 0], results


def test_a_template_the_spawned_worker_cannot_import_is_an_instantiation_error():
    task = autotvm.task.create("test/matmul", args=(16, 16, 16, "float32"), target="llvm")
    batch = create_measure_batch(task, autotvm.measure_option(
        builder=autotvm.LocalBuilder(n_parallel=1, timeout=60, start_method="spawn"),
        runner=autotvm.LocalRunner(number=1, repeat=1, timeout=10)))
    try:
        [r] = batch([MeasureInput(task.target, task, task.config_space.get(0))])
    finally:
        batch.close()
    assert r.error_no == MeasureErrorNo.INSTANTIATION_ERROR
    assert "importable module" in r.costs[0]


def test_the_default_configs_output_as_the_oracle():
    task = autotvm.task.create("test/faulty", args=(64,), target="llvm")
    batch = create_measure_batch(task, autotvm.measure_option(
        builder=autotvm.LocalBuilder(n_parallel=2),
        runner=autotvm.LocalRunner(number=1, repeat=1, timeout=10, oracle="default")))
    try:
        assert batch.runner.ref["outputs"] == [1]
        results = batch([MeasureInput(task.target, task, task.config_space.get(i))
                         for i in (5, 1)])
    finally:
        batch.close()
    assert [r.error_no for r in results] == [MeasureErrorNo.NO_ERROR,
                                             MeasureErrorNo.WRONG_ANSWER]


def test_large_tasks_take_the_default_config_as_the_oracle(monkeypatch, tmp_path):
    from tepad.autotvm import measure
    monkeypatch.setattr(measure, "ORACLE_FLOP_LIMIT", 10)
    task = autotvm.task.create("test/faulty", args=(64,), target="llvm")
    ref = measure.make_reference(task, str(tmp_path / "ref.npz"), oracle="auto")
    assert ref["pending"] == ([1], 0) and ref["outputs"] == []
