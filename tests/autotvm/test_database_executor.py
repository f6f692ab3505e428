"""TVM's autotvm.database, autotvm.measure's executor, the pickle record protocol and the
correctness oracle of target-dependent templates."""
import os
import pickle
import sys
import time

import pytest

from tepad import autotvm, te
from tepad.autotvm import database, record
from tepad.autotvm.measure import LocalExecutor, executor
from tepad.autotvm.result import MeasureErrorNo, MeasureInput, MeasureResult
from tepad.errors import TepadError
from tepad.target import Target

from . import templates  # noqa: F401 -- registers the templates


def _records(n):
    task = autotvm.task.create("test/matmul", args=(32, 32, 32, "float32"), target="llvm")
    return [(MeasureInput(task.target, task, task.config_space.get(i)),
             MeasureResult((float(i + 1),), 0, float(i), 100.0 + i)) for i in range(n)]


def test_dummy_database_saves_loads_extends_and_filters():
    (i1, r1), (i2, r2), (i3, _) = _records(3)
    db = database.DummyDatabase()
    db.save(i1, r1)
    db.save(i2, r2)
    assert db.load(i1) == r1 and db.load(i2) == r2 and db.load(i3) is None
    newer = MeasureResult((9.0,), 0, 1.0, 500.0)
    older = MeasureResult((8.0,), 0, 1.0, 50.0)
    db.save(i1, newer, extend=True)
    db.save(i1, older, extend=True)
    assert db.load(i1) == newer                       # the newest timestamp
    assert db.load(i1, get_all=True) == [r1, newer, older]
    db.save(i1, older)                                # without extend: replaced
    assert db.load(i1, get_all=True) == [older]
    fast = db.filter(lambda inp, ress: any(r.costs[0] <= 2 for r in ress))
    assert [inp.config.index for inp, _ in fast] == [1]
    db.flush()
    assert db.load(i2) is None


def test_filter_inputs_splits_saved_from_unsaved_and_retries_errors():
    (i1, r1), (i2, _), (i3, _) = _records(3)
    db = database.DummyDatabase()
    db.save(i1, r1)
    db.save(i3, MeasureResult(("crash",), MeasureErrorNo.RUNTIME_DEVICE, 0.0, 1.0))
    partial, unsaved = database.filter_inputs(db, [i1, i2, i3])
    assert partial[0] == r1 and partial[1] is None and partial[2].error_no != 0
    assert unsaved == [i2]
    partial, unsaved = database.filter_inputs(db, [i1, i2, i3], retry=True)
    assert unsaved == [i2, i3] and partial[2] is None


def test_redis_database_without_redis_says_what_to_use(monkeypatch):
    monkeypatch.setitem(sys.modules, "redis", None)
    with pytest.raises(ImportError, match="DummyDatabase"):
        database.RedisDatabase()


def _slow(n):
    return sum(range(n + 1))


def _fast(n):
    return n * (n + 1) // 2


def _sleep(s):
    time.sleep(s)


def _boom():
    raise ValueError("bad input")


def test_local_executor_runs_jobs_in_processes():
    ex = LocalExecutor()
    f1, f2 = ex.submit(_slow, 2_000_000), ex.submit(_fast, 2_000_000)
    assert f1.get() == f2.get() == 2_000_001_000_000
    assert f1.done() and f2.done()


def test_a_job_past_its_time_is_killed_and_gives_a_timeout_error():
    ex = LocalExecutor(timeout=0.5)
    t0 = time.monotonic()
    res = ex.submit(_sleep, 30).get()
    assert isinstance(res, executor.TimeoutError)
    assert time.monotonic() - t0 < 10


def test_a_job_that_raises_gives_an_execution_error():
    res = LocalExecutor().submit(_boom).get()
    assert isinstance(res, executor.ExecutionError) and "bad input" in res.message
    res = LocalExecutor(do_fork=False).submit(_boom).get()
    assert isinstance(res, executor.ExecutionError)
    assert LocalExecutor(do_fork=False).submit(_fast, 3).get() == 6
    with pytest.raises(TepadError, match="timeout"):
        LocalExecutor(timeout=-1)


def test_waiting_less_than_the_job_raises_timeout():
    fut = LocalExecutor(timeout=30).submit(_sleep, 5)
    with pytest.raises(executor.TimeoutError):
        fut.get(timeout=0.2)


def test_pickle_protocol_round_trips_and_reads_plain_values_only():
    inp, res = _records(1)[0]
    line = record.encode(inp, res, protocol="pickle")
    assert "\n" not in line
    inp2, res2 = record.decode(line, protocol="pickle")
    assert inp2.config.index == inp.config.index and inp2.task.name == inp.task.name
    assert tuple(res2) == tuple(res)
    evil = __import__("base64").b64encode(pickle.dumps(os.getcwd)).decode()
    assert record.decode(evil, protocol="pickle") is None     # a class: refused, skipped
    with pytest.raises(TepadError, match="protocol"):
        record.encode(inp, res, protocol="yaml")


def test_measure_result_has_tvms_four_fields_and_keeps_its_host():
    res = MeasureResult((1.0,), 0, 0.5, 3.0, "box")
    assert len(tuple(res)) == 4 and res.timestamp == 3.0 and res.host == "box"
    back = pickle.loads(pickle.dumps(res))
    assert back == res and back.host == "box"
    fields = list(tuple(res))
    fields[-1] = -1
    assert MeasureResult(*fields).timestamp == -1


@autotvm.template("test/cpu_definition")
def cpu_definition(n):
    """Adds 1 on a CPU target and 2 on any other: the oracle must take the CPU one."""
    A = te.placeholder((n,), name="A")
    add = 1.0 if "cpu" in Target.current().keys else 2.0
    B = te.compute((n,), lambda i: A[i] + add, name="B")
    cfg = autotvm.get_config()
    cfg.define_knob("unused", [0, 1])
    return te.create_schedule(B.op), [A, B]


def test_the_oracle_is_the_templates_cpu_definition(tmp_path):
    option = autotvm.measure_option(builder=autotvm.LocalBuilder(),
                                    runner=autotvm.LocalRunner(number=1))
    codes = {}
    for tgt in ("llvm", "llvm -device=arm_cpu -keys=arm_cpu"):
        task = autotvm.task.create("test/cpu_definition", args=(16,), target=tgt)
        tuner = autotvm.tuner.GridSearchTuner(task)
        got = []
        tuner.tune(n_trial=2, measure_option=option,
                   callbacks=[lambda t, i, r: got.extend(x.error_no for x in r)])
        codes[tgt] = got
    assert codes["llvm"] == [MeasureErrorNo.NO_ERROR] * 2
    assert codes["llvm -device=arm_cpu -keys=arm_cpu"] == [MeasureErrorNo.WRONG_ANSWER] * 2
