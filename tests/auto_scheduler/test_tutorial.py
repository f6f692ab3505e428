"""TVM's tune_matmul_x86 (auto_scheduler) tutorial, its TE part as the tutorial writes it,
at 64 x 64 x 64 with few trials: define, tune with the default runner, apply the best
schedule, check against numpy, time, print the schedule, resume the search."""
import numpy as np

import tepad as tvm
from tepad import auto_scheduler

from .workloads import matmul_add


def test_the_tutorial_runs(tmp_path, capsys):
    target = tvm.target.Target("llvm")
    N = L = M = 64
    task = tvm.auto_scheduler.SearchTask(func=matmul_add, args=(N, L, M, "float32"),
                                         target=target)
    print("Computational DAG:")
    print(task.compute_dag)

    log_file = str(tmp_path / "matmul.json")
    tune_option = auto_scheduler.TuningOptions(
        num_measure_trials=6,
        measure_callbacks=[auto_scheduler.RecordToFile(log_file)],
        verbose=2,
    )
    task.tune(tune_option)
    sch, args = task.apply_best(log_file)
    print("Lowered TIR:")
    print(tvm.lower(sch, args, simple_mode=True))

    func = tvm.build(sch, args, target)
    a_np = np.random.uniform(size=(N, L)).astype(np.float32)
    b_np = np.random.uniform(size=(L, M)).astype(np.float32)
    c_np = np.random.uniform(size=(N, M)).astype(np.float32)
    out_np = a_np.dot(b_np) + c_np
    dev = tvm.cpu()
    a_tvm = tvm.nd.array(a_np, device=dev)
    b_tvm = tvm.nd.array(b_np, device=dev)
    c_tvm = tvm.nd.array(c_np, device=dev)
    out_tvm = tvm.nd.empty(out_np.shape, device=dev)
    func(a_tvm, b_tvm, c_tvm, out_tvm)
    np.testing.assert_allclose(out_np, out_tvm.numpy(), rtol=1e-3)
    evaluator = func.time_evaluator(func.entry_name, dev, min_repeat_ms=50)
    print("Execution time of this operator: %.3f ms"
          % (np.median(evaluator(a_tvm, b_tvm, c_tvm, out_tvm).results) * 1000))
    print("Equivalent python schedule:")
    print(task.print_best(log_file))

    def resume_search(task, log_file):
        print("Resume search:")
        cost_model = auto_scheduler.XGBModel()
        cost_model.update_from_file(log_file)
        search_policy = auto_scheduler.SketchPolicy(
            task, cost_model,
            init_search_callbacks=[auto_scheduler.PreloadMeasuredStates(log_file)])
        measure_ctx = auto_scheduler.LocalRPCMeasureContext(min_repeat_ms=100)
        tune_option = auto_scheduler.TuningOptions(
            num_measure_trials=3, runner=measure_ctx.runner,
            measure_callbacks=[auto_scheduler.RecordToFile(log_file)])
        task.tune(tune_option, search_policy=search_policy)
        del measure_ctx

    resume_search(task, log_file)
    printed = capsys.readouterr().out
    assert "matmul(i, j) += A[i, k] * B[k, j]" in printed
    assert "s[matmul].compute_at(s[out]" in printed
    assert "GFLOPS" in printed
    assert len(open(log_file).readlines()) == 9
