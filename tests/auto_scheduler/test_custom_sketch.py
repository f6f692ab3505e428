"""Custom sketch rules (PreloadCustomSketchRule, loop_state.State editing, the _ffi_api
helpers) and task inputs, on a small version of TVM's sparse tutorial: a BSR sparse_dense
with relu, bias add and relu, tuned with the sparse rule for a few trials."""
import os

import numpy as np
import pytest

import tepad
from tepad import auto_scheduler, te, topi
from tepad.auto_scheduler import _ffi_api
from tepad.auto_scheduler.custom_sketch import generate_sketches
from tepad.auto_scheduler.measure import write_reference
from tepad.auto_scheduler.task_input import TASK_INPUT_BUFFER_TABLE
from tepad.errors import TepadError
from tepad.topi.sparse.utils import random_bsr_matrix

M, N, K, BS_R, BS_C = 16, 32, 24, 8, 1


@auto_scheduler.register_workload
def small_sparse_dense(m, n, k, w_data_shape, w_indices_shape, w_indptr_shape, dtype):
    X = te.placeholder((m, k), dtype=dtype)
    W_data = te.placeholder(w_data_shape, dtype=dtype)
    W_indices = te.placeholder(w_indices_shape, dtype="int32")
    W_indptr = te.placeholder(w_indptr_shape, dtype="int32")
    B = te.placeholder((m, n), dtype=dtype)
    out = topi.nn.sparse_dense(topi.nn.relu(X), W_data, W_indices, W_indptr)
    out = te.compute((m, n), lambda i, j: out[i, j] + B[i, j], name="BiasAdd")
    return [X, W_data, W_indices, W_indptr, B, topi.nn.relu(out)]


@pytest.fixture(scope="module")
def weight():
    np.random.seed(21)
    return random_bsr_matrix(N, K, BS_R, BS_C, 0.5, "float32")


def _prefix(w):
    return f"sparse_dense_bsr_{N}_{K}_{BS_R}_{BS_C}_{w.indices.shape[0]}_{w.indptr.shape[0]}_"


def _task(w, **kw):
    p = _prefix(w)
    return auto_scheduler.SearchTask(
        func=small_sparse_dense,
        args=(M, N, K, w.data.shape, w.indices.shape, w.indptr.shape, "float32"),
        target="llvm",
        task_inputs={p + "W_data": tepad.nd.array(w.data),
                     p + "W_indices": tepad.nd.array(w.indices),
                     p + "W_indptr": tepad.nd.array(w.indptr)}, **kw)


def meet(policy, state, stage_id):
    s = auto_scheduler.loop_state.State(state, policy.search_task.compute_dag)
    if s.stages[stage_id].op.tag in ("sparse_dense_sp_rhs_bsrmm",
                                     "sparse_dense_sp_rhs_bsrmm_block"):
        return auto_scheduler.PreloadCustomSketchRule.APPLY_AND_SKIP_REST
    return auto_scheduler.PreloadCustomSketchRule.PASS


def apply(policy, state, stage_id):
    """The tutorial's rule, word for word in its API use."""
    s0 = auto_scheduler.loop_state.State(state, policy.search_task.compute_dag)
    if s0.stages[stage_id].op.tag == "sparse_dense_sp_rhs_bsrmm_block":
        return [s0.state_object, stage_id - 1]
    sparse_dense = s0.stages[stage_id].op
    block = s0.stages[stage_id - 1].op
    consumer = sparse_dense
    consumers = _ffi_api.SearchPolicyUtilsGetConsumers(policy.search_task, s0.state_object,
                                                       stage_id)
    if len(consumers) == 1:
        cid = int(consumers.items()[0][0])
        if _ffi_api.SearchPolicyUtilsIsElementwiseMatch(policy.search_task, s0.state_object,
                                                        stage_id, cid):
            consumer = s0.stages[cid].op
            s0.compute_inline(sparse_dense)
    i, nb_j, j, row_offset, c = s0[block].iters
    m, n = s0[consumer].iters
    i0, i1, i2 = s0.split(block, i, [None, None])
    m0, m1 = s0.follow_split(consumer, m, len(s0.transform_steps) - 1, 1)
    j0, j1 = s0.split(block, nb_j, [None])
    n0, n1 = s0.follow_split(consumer, n, len(s0.transform_steps) - 1, 1)
    s0.reorder(block, [i0, j0, i1, j1, row_offset, i2, j, c])
    s0.reorder(consumer, [m0, n0, m1, n1])
    s0.compute_at(block, consumer, n0)
    return [[s0.state_object, stage_id - 2]]


def _rule():
    return auto_scheduler.PreloadCustomSketchRule(meet, apply, "SparseDense")


def test_sketch_follows_the_rule(weight):
    task = _task(weight)
    policy = auto_scheduler.SketchPolicy(task, auto_scheduler.RandomModel(seed=0), seed=0,
                                         init_search_callbacks=[_rule()])
    sketches = generate_sketches(policy, task.compute_dag, [_rule()])
    assert len(sketches) == 1
    kinds = [(s[0], s[1]) for s in sketches[0].steps]
    dag = task.compute_dag
    names = {op.tag: dag.name_of(op) for op in dag.compute_ops if op.tag}
    out_name = dag.name_of(dag.output_ops[0])
    # bias add and relu(X) inlined by the built-in rule, the reshape by the custom rule
    assert ("CI", "BiasAdd") in kinds and ("CI", names["sparse_dense_sp_rhs_bsrmm"]) in kinds
    assert ("CA", names["sparse_dense_sp_rhs_bsrmm_block"]) in kinds
    state = policy.sketch.state(policy.sketch.default_params())
    ca = [s for s in state.steps if s[0] == "CA"]
    assert ca == [["CA", "sparse_dense_block", out_name, "i0.0@i1.0"]]
    assert ["AN", out_name, "i0.0@i1.0", "parallel"] in state.steps


def test_consumers_and_elementwise_match(weight):
    task = _task(weight)
    policy = auto_scheduler.SketchPolicy(task, auto_scheduler.RandomModel(seed=0), seed=0)
    seen = {}

    def probe(pol, state, stage_id):
        s = auto_scheduler.loop_state.State(state, pol.search_task.compute_dag)
        if s.stages[stage_id].op.tag == "sparse_dense_sp_rhs_bsrmm":
            cons = _ffi_api.SearchPolicyUtilsGetConsumers(pol.search_task, state, stage_id)
            seen["consumers"] = [s.stages[c].op.name for c, _ in cons.items()]
            cid = cons.items()[0][0]
            seen["match"] = _ffi_api.SearchPolicyUtilsIsElementwiseMatch(
                pol.search_task, state, stage_id, cid)
            seen["block_match"] = _ffi_api.SearchPolicyUtilsIsElementwiseMatch(
                pol.search_task, state, stage_id - 1, cid)
        return auto_scheduler.PreloadCustomSketchRule.PASS

    generate_sketches(policy, task.compute_dag,
                      [auto_scheduler.PreloadCustomSketchRule(probe, apply)])
    # BiasAdd was inlined first: the consumer seen is the final relu
    assert seen == {"consumers": ["compute"], "match": True, "block_match": False}


def test_state_view_edits_are_checked(weight):
    task = _task(weight)
    policy = auto_scheduler.SketchPolicy(task, auto_scheduler.RandomModel(seed=0), seed=0)
    errors = []

    def bad(pol, state, stage_id):
        s = auto_scheduler.loop_state.State(state, pol.search_task.compute_dag)
        block = s.stages[stage_id - 1].op
        for f in (lambda: s.compute_inline(block),
                  lambda: s.reorder(block, s[block].iters[:2]),
                  lambda: s.follow_split(block, s[block].iters[0], 0, 1),
                  lambda: s.split(block, "nope", [2])):
            with pytest.raises(TepadError) as e:
                f()
            errors.append(str(e.value))
        return [[s.state_object, stage_id - 2]]

    rule = auto_scheduler.PreloadCustomSketchRule(meet, bad)
    generate_sketches(policy, task.compute_dag, [rule])
    assert len(errors) == 4 and "reduction" in errors[0] and "no loop 'nope'" in errors[3]


def test_tune_with_custom_rule_replays_from_log(weight, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    task = _task(weight)
    log = str(tmp_path / "sparse.json")
    policy = auto_scheduler.SketchPolicy(task, auto_scheduler.RandomModel(seed=1), seed=1,
                                         verbose=0, init_search_callbacks=[_rule()])
    opt = auto_scheduler.TuningOptions(num_measure_trials=3, num_measures_per_round=3,
                                       measure_callbacks=[auto_scheduler.RecordToFile(log)],
                                       verbose=0)
    task.tune(opt, policy)
    records = list(auto_scheduler.load_records(log))
    assert len(records) == 3 and all(r.error_no == 0 for _, r in records)
    # a fresh task (no sketch rules) replays the best record
    sch, args = _task(weight).apply_best(log)
    f = tepad.build(sch, args, "llvm")
    x, b = np.random.randn(M, K).astype("float32"), np.random.randn(M, N).astype("float32")
    y = np.zeros((M, N), "float32")
    f(x, weight.data, weight.indices, weight.indptr, b, y)
    expect = np.maximum(np.maximum(x, 0) @ weight.toarray().T + b, 0)
    np.testing.assert_allclose(y, expect, rtol=1e-4, atol=1e-4)
    assert "compute_at" in task.print_best(log)


def test_task_inputs_feed_measurement(weight, tmp_path):
    task = _task(weight)
    ref = write_reference(task, str(tmp_path / "ref.npz"))
    z = np.load(ref["path"])
    np.testing.assert_array_equal(z["arg2"], weight.indices)
    np.testing.assert_array_equal(z["arg3"], weight.indptr)
    assert ref["outputs"] == [5]        # the oracle checks the output with these inputs
    expect = np.maximum(np.maximum(z["arg0"], 0) @ weight.toarray().T + z["arg4"], 0)
    np.testing.assert_allclose(z["expect5"], expect, rtol=1e-4, atol=1e-4)


def test_task_input_registration_rules(weight, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    key = "test-task-input-key"
    first = auto_scheduler.register_task_input_buffer(key, "T_a", np.arange(3, dtype="int32"))
    kept = auto_scheduler.register_task_input_buffer(key, "T_a", np.zeros(3, "int32"))
    assert kept is first
    new = auto_scheduler.register_task_input_buffer(key, "T_a", np.ones(3, "int32"),
                                                    overwrite=True)
    np.testing.assert_array_equal(auto_scheduler.get_task_input_buffer(key, "T_a").numpy(),
                                  new.numpy())
    auto_scheduler.register_task_input_buffer(key, "T_b", np.full((2, 2), 7.0, "float32"),
                                              save_to_file=True)
    assert os.path.exists("T_b.2_2_float32.npy")
    del TASK_INPUT_BUFFER_TABLE[key]["T_b"]         # another process: read back from file
    np.testing.assert_array_equal(auto_scheduler.get_task_input_buffer(key, "T_b").numpy(),
                                  np.full((2, 2), 7.0, "float32"))
    with pytest.raises(TepadError, match="not registered"):
        auto_scheduler.get_task_input_buffer(key, "T_missing")


def test_task_input_of_wrong_shape_is_refused(weight, tmp_path):
    p = _prefix(weight)
    task = auto_scheduler.SearchTask(
        func=small_sparse_dense,
        args=(M, N, K, weight.data.shape, weight.indices.shape, weight.indptr.shape,
              "float32"),
        target="llvm", task_inputs={p + "W_indptr": np.zeros(2, "int32")},
        task_inputs_overwrite=True)
    with pytest.raises(TepadError, match="W_indptr"):
        write_reference(task, str(tmp_path / "ref.npz"))
    TASK_INPUT_BUFFER_TABLE.pop(task.workload_key, None)


def test_custom_rules_refuse_gpu_targets(weight):
    task = auto_scheduler.SearchTask(
        func=small_sparse_dense,
        args=(M, N, K, weight.data.shape, weight.indices.shape, weight.indptr.shape,
              "float32"), target="cuda")
    with pytest.raises(TepadError, match="CPU targets only"):
        auto_scheduler.SketchPolicy(task, init_search_callbacks=[_rule()])


def test_apply_keeps_the_builtin_sketch_too(weight):
    task = _task(weight)
    policy = auto_scheduler.SketchPolicy(task, auto_scheduler.RandomModel(seed=0), seed=0)

    def meet_apply(pol, state, stage_id):
        cond = meet(pol, state, stage_id)
        return auto_scheduler.PreloadCustomSketchRule.APPLY if cond else cond

    rule = auto_scheduler.PreloadCustomSketchRule(meet_apply, apply)
    sketches = generate_sketches(policy, task.compute_dag, [rule])
    assert len(sketches) == 2
    assert sum(any(s[0] == "CA" for s in sk.steps) for sk in sketches) == 1


@auto_scheduler.register_workload
def small_sparse_conv2d(n, h, w, k, w_data_shape, w_indices_shape, w_indptr_shape):
    X = te.placeholder((n, h, w, k))
    W_data = te.placeholder(w_data_shape)
    W_indices = te.placeholder(w_indices_shape, dtype="int32")
    W_indptr = te.placeholder(w_indptr_shape, dtype="int32")
    out = topi.nn.sparse_conv2d(X, W_data, W_indices, W_indptr, "NHWC")
    return [X, W_data, W_indices, W_indptr, topi.nn.relu(out)]


def test_topi_sparse_sketch_rules_tune_conv2d(tmp_path):
    np.random.seed(31)
    w = random_bsr_matrix(16, 8, 4, 2, 0.5, "float32")
    shape = (1, 4, 6, 8)
    args = shape + (w.data.shape, w.indices.shape, w.indptr.shape)
    prefix = (f"sparse_conv2d_bsr_1_4_6_16_8_4_2_{w.indices.shape[0]}_"
              f"{w.indptr.shape[0]}_")
    task = auto_scheduler.SearchTask(
        func=small_sparse_conv2d, args=args, target="llvm",
        task_inputs={prefix + "W_data": w.data, prefix + "W_indices": w.indices,
                     prefix + "W_indptr": w.indptr})
    log = str(tmp_path / "conv.json")
    policy = auto_scheduler.SketchPolicy(
        task, auto_scheduler.RandomModel(seed=2), seed=2, verbose=0,
        init_search_callbacks=topi.sparse.utils.sparse_sketch_rules())
    task.tune(auto_scheduler.TuningOptions(
        num_measure_trials=2, num_measures_per_round=2, verbose=0,
        measure_callbacks=[auto_scheduler.RecordToFile(log)]), policy)
    assert [r.error_no for _, r in auto_scheduler.load_records(log)] == [0, 0]
    sch, targs = task.apply_best(log)
    f = tepad.build(sch, targs, "llvm")
    x = np.random.randn(*shape).astype("float32")
    y = np.zeros((1, 4, 6, 16), "float32")
    f(x, w.data, w.indices, w.indptr, y)
    np.testing.assert_allclose(y, np.maximum(np.einsum("nhwc,oc->nhwo", x, w.toarray()), 0),
                               rtol=1e-4, atol=1e-4)


def test_cost_model_trains_on_custom_states_apart(weight, tmp_path):
    from tepad.auto_scheduler.cost_model import HAVE_XGBOOST
    from tepad.auto_scheduler.custom_sketch import CustomSketch
    if not HAVE_XGBOOST:
        pytest.skip("xgboost is not installed")
    task = _task(weight)
    model = auto_scheduler.XGBModel(num_warmup_sample=2, seed=0)
    policy = auto_scheduler.SketchPolicy(task, model, seed=3, verbose=0,
                                         init_search_callbacks=[_rule()])
    task.tune(auto_scheduler.TuningOptions(num_measure_trials=4, num_measures_per_round=2,
                                           verbose=0), policy)
    assert list(model.boosters) == [task.workload_key + "#custom-sketch"]
    assert not isinstance(task.sketch, CustomSketch)    # the task itself is untouched
    states = [policy.sketch.state(policy.sketch.random_params(policy.rng)) for _ in range(3)]
    assert len(model.predict(policy._model_task, states)) == 3


def test_repeated_op_names_get_distinct_stage_names(weight):
    """TVM's topi names many stages "compute" (relu among them): the DAG names the later
    ones compute_1, ..; steps, printing and the built-in sketch use those names."""
    dag = _task(weight).compute_dag
    names = [dag.name_of(op) for op in dag.ops]
    assert names == ["placeholder", "placeholder_1", "placeholder_2", "placeholder_3",
                     "placeholder_4", "compute", "sparse_dense_block", "sparse_dense",
                     "BiasAdd", "compute_1"]
    assert "compute_1(i0, i1) =" in str(dag)
    A = te.placeholder((16, 32), name="A")
    B = te.placeholder((32, 8), name="B")
    k = te.reduce_axis((0, 32), name="k")
    C = te.compute((16, 8), lambda i, j: te.sum(topi.nn.relu(A)[i, k] * B[k, j], axis=k),
                   name="C")
    D = topi.nn.relu(C)
    assert D.op.name == C.op.input_tensors[0].op.name == "compute"
    sch, args = auto_scheduler.default_schedule(D, "llvm")
    f = tepad.build(sch, args, "llvm")
    a, b = np.random.randn(16, 32).astype("float32"), np.random.randn(32, 8).astype("float32")
    out = np.zeros((16, 8), "float32")
    f(a, b, out)
    np.testing.assert_allclose(out, np.maximum(np.maximum(a, 0) @ b, 0), rtol=1e-5,
                               atol=1e-5)
