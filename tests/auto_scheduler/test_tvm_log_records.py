"""Reading TVM's own auto_scheduler log lines: their steps name stages and loops by
position (TVM's stage order and each stage's current loop list); ``recover_measure_input``
rebuilds the task from the workload key and turns the steps into tepad's name-based ones,
whose schedule computes what numpy does."""
import json

import numpy as np
import pytest

import tepad as tvm
from tepad import TepadError, auto_scheduler, te
from tepad.auto_scheduler.tvm_steps import from_tvm_steps, tvm_stage_order


@auto_scheduler.register_workload
def tvm_log_matmul_bias_relu(N, L, M):
    A = te.placeholder((N, L), name="A")
    B = te.placeholder((L, M), name="B")
    bias = te.placeholder((M,), name="bias")
    k = te.reduce_axis((0, L), name="k")
    C = te.compute((N, M), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    E = te.compute((N, M), lambda i, j: C[i, j] + bias[j], name="E")
    D = te.compute((N, M), lambda i, j: te.max(E[i, j], 0.0), name="D")
    return [A, B, bias, D]


KEY = json.dumps(["tvm_log_matmul_bias_relu", 32, 16, 24])

# TVM's stage ids for this DAG: 0 A, 1 B, 2 C, 3 bias, 4 E, 5 D
TVM_STEPS = [
    ["CI", 4],
    ["SP", 2, 0, 32, [4, 2], 1],
    ["SP", 2, 3, 24, [6, 2], 1],
    ["SP", 2, 6, 16, [4], 1],
    ["RE", 2, [0, 3, 1, 4, 6, 2, 7, 5]],
    ["FSP", 5, 0, 1, 1],
    ["FSP", 5, 2, 2, 1],
    ["RE", 5, [0, 2, 1, 3]],
    ["CA", 2, 5, 1],
    ["FU", 5, [0, 1]],
    ["AN", 5, 0, 3],
    ["PR", 2, 0, "auto_unroll_max_step$16"],
    ["AN", 2, 7, 2],
    ["AN", 5, 2, 2],
]

TEPAD_STEPS = [
    ["CI", "E"],
    ["SP", "C", "i", [4, 2]],
    ["SP", "C", "j", [6, 2]],
    ["SP", "C", "k", [4]],
    ["RE", "C", ["i.0", "j.0", "i.1", "j.1", "k.0", "i.2", "k.1", "j.2"]],
    ["SP", "D", "i", [8]],
    ["SP", "D", "j", [12]],
    ["RE", "D", ["i.0", "j.0", "i.1", "j.1"]],
    ["CA", "C", "D", "j.0"],
    ["FU", "D", ["i.0", "j.0"]],
    ["AN", "D", "i.0@j.0", "parallel"],
    ["PR", "C", "i.0", "auto_unroll_max_step", 16],
    ["AN", "C", "j.2", "vectorize"],
    ["AN", "D", "j.1", "vectorize"],
]


def tvm_line(steps, key=KEY):
    return json.dumps({"i": [[key, "llvm -keys=cpu", [2, 64, 64, 0, 0, 0, 0, 0], "", 1, []],
                             [[], steps]],
                       "r": [[0.001], 0, 0.5, 1700000000], "v": "v0.6"})


def check(sch, args):
    f = tvm.build(sch, args, "llvm")
    rng = np.random.default_rng(11)
    a = rng.standard_normal((32, 16)).astype("float32")
    b = rng.standard_normal((16, 24)).astype("float32")
    bias = rng.standard_normal(24).astype("float32")
    d = np.zeros((32, 24), "float32")
    f(a, b, bias, d)
    np.testing.assert_allclose(d, np.maximum(a @ b + bias, 0), rtol=1e-5, atol=1e-5)


def test_stage_order_is_tvms_topological_order():
    dag = auto_scheduler.ComputeDAG(tvm_log_matmul_bias_relu(32, 16, 24))
    assert [dag.name_of(op) for op in tvm_stage_order(dag)] == ["A", "B", "C", "bias", "E",
                                                                 "D"]


def test_a_tvm_log_line_recovers_to_name_based_steps_that_compute():
    inp, res = auto_scheduler.measure_record.load_record_from_string(tvm_line(TVM_STEPS))
    assert res.error_no == 0 and res.costs == (0.001,)
    inp = auto_scheduler.measure.recover_measure_input(inp, rebuild_state=True)
    assert isinstance(inp.task, auto_scheduler.SearchTask)
    assert inp.task.workload_key == KEY
    assert inp.state.steps == TEPAD_STEPS
    check(*inp.task.compute_dag.apply_steps_from_state(inp.state))


def test_position_based_steps_replay_without_recovering():
    inp, _ = auto_scheduler.measure_record.load_record_from_string(tvm_line(TVM_STEPS))
    task = auto_scheduler.SearchTask(workload_key=inp.task.workload_key, target="llvm")
    check(*task.compute_dag.apply_steps_from_state(inp.state))


def test_cache_write_shifts_the_stage_ids():
    # CHW puts C.global at id 2 and C at 3; the cache keeps C's loops (i, j, k)
    steps = [["CHW", 2, "global"], ["SP", 3, 0, 32, [8], 1], ["SP", 2, 0, 32, [8], 1],
             ["CA", 2, 3, 0], ["AN", 2, 2, 1], ["CI", 5]]
    dag = auto_scheduler.ComputeDAG(tvm_log_matmul_bias_relu(32, 16, 24))
    assert from_tvm_steps(dag, steps) == [
        ["CHW", "C", "global"], ["SP", "C", "i", [8]], ["SP", "C.global", "i", [8]],
        ["CA", "C.global", "C", "i.0"], ["AN", "C.global", "j", "unroll"], ["CI", "E"]]
    check(*dag.apply_steps_from_state(auto_scheduler.loop_state.State(steps)))


@pytest.mark.parametrize("step,match", [
    (["RF", 2, 2, 0], "kind 'RF' is not read"),
    (["SP", 9, 0, 32, [4], 1], "no stage 9"),
    (["SP", 2, 5, 32, [4], 1], "stage 'C' has no loop 5"),
    (["AN", 2, 0, 42], "annotation 42"),
    (["FU", 2, [0, 2]], "consecutive"),
])
def test_steps_it_cannot_read_name_the_step(step, match):
    dag = auto_scheduler.ComputeDAG(tvm_log_matmul_bias_relu(32, 16, 24))
    with pytest.raises(TepadError, match=match):
        from_tvm_steps(dag, [step])
