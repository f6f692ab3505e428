"""The tune_matmul_x86 tutorial's flow on a small matmul + bias: search, log, apply_best,
print_best, resume; failed candidates recorded as errors."""
import json

import numpy as np
import pytest

import tepad as tvm
from tepad import auto_scheduler, te
from tepad.auto_scheduler import MeasureErrorNo

from .workloads import matmul_add

N = L = M = 64
TARGET = tvm.target.Target("llvm")


def _runner():
    return auto_scheduler.LocalRunner(number=2, repeat=1, min_repeat_ms=0)


def _arrays():
    rng = np.random.default_rng(7)
    a = rng.uniform(size=(N, L)).astype("float32")
    b = rng.uniform(size=(L, M)).astype("float32")
    c = rng.uniform(size=(N, M)).astype("float32")
    return a, b, c, a @ b + c


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    log = str(tmp_path_factory.mktemp("as") / "matmul.json")
    task = auto_scheduler.SearchTask(func=matmul_add, args=(N, L, M, "float32"), target=TARGET)
    policy = auto_scheduler.SketchPolicy(
        task, program_cost_model=auto_scheduler.XGBModel(num_warmup_sample=4), seed=0)
    opt = auto_scheduler.TuningOptions(num_measure_trials=8, num_measures_per_round=4,
                                       runner=_runner(), verbose=0,
                                       measure_callbacks=[auto_scheduler.RecordToFile(log)])
    task.tune(opt, search_policy=policy)
    return task, log, policy


def test_compute_dag_prints_the_definitions(tuned):
    text = str(tuned[0].compute_dag)
    assert "A = PLACEHOLDER [64, 64]" in text
    assert "matmul(i, j) += A[i, k] * B[k, j]" in text
    assert "out(i, j) = matmul[i, j] + C[i, j]" in text


def test_log_has_tvm_record_shape(tuned):
    task, log, _ = tuned
    rows = [json.loads(line) for line in open(log)]
    assert len(rows) == 8
    for row in rows:
        assert row["v"] == "v0.6"
        (key, target), steps = row["i"]
        assert key == task.workload_key == '["matmul_add", 64, 64, 64, "float32"]'
        assert target == str(TARGET)
        costs, error_no, all_cost, stamp = row["r"]
        assert error_no == 0 and len(costs) == 1 and costs[0] > 0 and stamp > 0
    assert len({json.dumps(r["i"][1]) for r in rows}) == 8     # no state measured twice
    # the cost model was trained once 4 samples were in
    assert task.workload_key in tuned[2].program_cost_model.boosters


def test_apply_best_replays_the_best_record(tuned):
    task, log, _ = tuned
    inp, res = auto_scheduler.load_best_record(log, task.workload_key)
    costs = [np.mean(r.costs) for _, r in auto_scheduler.load_records(log)]
    assert np.mean(res.costs) == min(costs)
    sch, args = task.apply_best(log)
    sch2, args2 = task.compute_dag.apply_steps_from_state(inp.state)
    assert str(tvm.lower(sch, args, simple_mode=True)) == \
        str(tvm.lower(sch2, args2, simple_mode=True))
    func = tvm.build(sch, args, TARGET)
    a, b, c, expect = _arrays()
    out = tvm.nd.empty((N, M), device=tvm.cpu())
    func(tvm.nd.array(a), tvm.nd.array(b), tvm.nd.array(c), out)
    np.testing.assert_allclose(out.numpy(), expect, rtol=1e-4)
    ev = func.time_evaluator(func.entry_name, tvm.cpu(), number=2)
    assert ev(tvm.nd.array(a), tvm.nd.array(b), tvm.nd.array(c), out).mean > 0


def test_print_best_is_pasteable(tuned):
    task, log, _ = tuned
    code = task.print_best(log)
    A, B, C, out = matmul_add(N, L, M, "float32")
    matmul = out.op.input_tensors[0]
    scope = {"te": te, "A": A, "B": B, "C": C, "matmul": matmul, "out": out}
    exec(code, scope)  # noqa: S102 -- the point of print_best
    s = scope["s"]
    sch, args = task.apply_best(log)
    assert str(tvm.lower(s, [A, B, C, out], simple_mode=True)) == \
        str(tvm.lower(sch, args, simple_mode=True))
    a, b, c, expect = _arrays()
    o = np.zeros((N, M), "float32")
    tvm.build(s, [A, B, C, out], TARGET)(a, b, c, o)
    np.testing.assert_allclose(o, expect, rtol=1e-4)


def test_apply_history_best(tuned):
    task, log, _ = tuned
    inp, _ = auto_scheduler.load_best_record(log, task.workload_key)
    with auto_scheduler.ApplyHistoryBest(log) as ctx:
        assert auto_scheduler.ApplyHistoryBest.current is ctx
        assert ctx.query(TARGET, task.workload_key) == inp.state
        assert ctx.query(TARGET, '["other"]') is None
    assert auto_scheduler.ApplyHistoryBest.current is None


def test_resume_search_skips_measured_states(tuned, tmp_path):
    task, log, _ = tuned
    log2 = str(tmp_path / "resume.json")
    model = auto_scheduler.XGBModel(num_warmup_sample=4)
    model.update_from_file(log)
    assert task.workload_key in model.boosters
    policy = auto_scheduler.SketchPolicy(
        task, model, seed=1, init_search_callbacks=[auto_scheduler.PreloadMeasuredStates(log)])
    opt = auto_scheduler.TuningOptions(num_measure_trials=3, runner=_runner(), verbose=0,
                                       measure_callbacks=[auto_scheduler.RecordToFile(log2)])
    task.tune(opt, search_policy=policy)
    old = {json.dumps(r["i"][1]) for r in map(json.loads, open(log))}
    new = [json.dumps(r["i"][1]) for r in map(json.loads, open(log2))]
    assert len(new) == 3 and not old & set(new)


class _BadFirst(auto_scheduler.SketchPolicy):
    """Puts a state that cannot be built in front of every round."""

    def generate_states(self, n):
        bad = auto_scheduler.State([["SP", "out", "no_such_loop", [2]]])
        return [bad] + super().generate_states(n - 1)


def test_failing_candidates_are_errors_and_the_search_goes_on(tmp_path):
    log = str(tmp_path / "bad.json")
    task = auto_scheduler.SearchTask(func=matmul_add, args=(16, 16, 16, "float32"),
                                     target=TARGET)
    opt = auto_scheduler.TuningOptions(num_measure_trials=4, num_measures_per_round=2,
                                       runner=_runner(), verbose=0,
                                       measure_callbacks=[auto_scheduler.RecordToFile(log)])
    best = task.tune(opt, search_policy=_BadFirst(task, seed=0))
    rows = list(auto_scheduler.load_records(log))
    errors = [r for _, r in rows if r.error_no != 0]
    assert len(rows) == 4 and len(errors) == 2
    assert all(r.error_no == MeasureErrorNo.INSTANTIATION_ERROR and "no_such_loop" in
               r.error_msg for r in errors)
    assert best is not None and best.params is not None


def test_wrong_values_are_errors(tmp_path):
    task = auto_scheduler.SearchTask(func=matmul_add, args=(16, 16, 16, "float32"),
                                     target=TARGET)
    measurer = auto_scheduler.ProgramMeasurer(task, auto_scheduler.LocalBuilder(), _runner(),
                                              verbose=0)
    try:
        ref = measurer.runner.ref["path"]
        data = dict(np.load(ref))
        data["expect3"] = data["expect3"] + 1.0       # the oracle now disagrees
        np.savez(ref, **data)
        state = task.sketch.state(task.sketch.default_params())
        _, [res] = measurer.measure([state])
    finally:
        measurer.close()
    assert res.error_no == MeasureErrorNo.WRONG_ANSWER and not res.costs
    assert measurer.best_state is None


def test_user_mistakes():
    with pytest.raises(tvm.TepadError, match="not registered"):
        auto_scheduler.SearchTask(func="nobody", args=(1,), target="llvm")
    with pytest.raises(tvm.TepadError, match="target is required"):
        auto_scheduler.SearchTask(func=matmul_add, args=(4, 4, 4, "float32"))
    with pytest.raises(tvm.TepadError, match="print_mode"):
        task = auto_scheduler.SearchTask(func=matmul_add, args=(4, 4, 4, "float32"),
                                         target="llvm")
        task.print_best("x.json", print_mode="cuda")
