"""TVM's tune_conv2d_layer_cuda (auto_scheduler) tutorial as the tutorial writes it, on the
GPU emulator (TEPAD_CUDA=emulate) at a small layer with few trials: define, tune, apply the
best schedule, check against numpy, time, print the schedule and the device code, resume
the search. (The tutorial itself, with ``import tepad as tvm``, runs the same way.)"""
import numpy as np

import tepad as tvm
from tepad import auto_scheduler
from tepad.topi.testing import conv2d_nchw_python

from .workloads import conv2d_bias_relu


def test_the_cuda_tutorial_runs_on_the_emulator(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TEPAD_CUDA", "emulate")
    target = tvm.target.Target("cuda")
    N, H, W, CO, CI, KH, KW, strides, padding = 1, 7, 7, 16, 8, 3, 3, (1, 1), (1, 1)
    task = auto_scheduler.SearchTask(
        func=conv2d_bias_relu, args=(N, H, W, CO, CI, KH, KW, strides, padding),
        target=target)
    print("Computational DAG:")
    print(task.compute_dag)

    log_file = str(tmp_path / "conv2d.json")
    measure_ctx = auto_scheduler.LocalRPCMeasureContext(min_repeat_ms=20)
    tune_option = auto_scheduler.TuningOptions(
        num_measure_trials=4,
        runner=measure_ctx.runner,
        measure_callbacks=[auto_scheduler.RecordToFile(log_file)],
        verbose=2,
    )
    task.tune(tune_option)
    sch, args = task.apply_best(log_file)
    del measure_ctx
    lowered = str(tvm.lower(sch, args, simple_mode=True))
    assert "'shared'" in lowered and "'local'" in lowered and "threadIdx.x" in lowered

    func = tvm.build(sch, args, target)
    data_np = np.random.uniform(size=(N, CI, H, W)).astype(np.float32)
    weight_np = np.random.uniform(size=(CO, CI, KH, KW)).astype(np.float32)
    bias_np = np.random.uniform(size=(1, CO, 1, 1)).astype(np.float32)
    conv_np = conv2d_nchw_python(data_np, weight_np, strides, padding)
    out_np = np.maximum(conv_np + bias_np, 0.0)
    dev = tvm.cuda()
    data_tvm = tvm.nd.array(data_np, device=dev)
    weight_tvm = tvm.nd.array(weight_np, device=dev)
    bias_tvm = tvm.nd.array(bias_np, device=dev)
    out_tvm = tvm.nd.empty(out_np.shape, device=dev)
    func(data_tvm, weight_tvm, bias_tvm, out_tvm)
    np.testing.assert_allclose(out_np, out_tvm.numpy(), rtol=1e-3)
    evaluator = func.time_evaluator(func.entry_name, dev, min_repeat_ms=20)
    print("Execution time of this operator: %.3f ms"
          % (np.median(evaluator(data_tvm, weight_tvm, bias_tvm, out_tvm).results) * 1000))
    print("Equivalent python schedule:")
    print(task.print_best(log_file, print_mode="schedule"))
    print("CUDA source code:")
    print(task.print_best(log_file, print_mode="cuda"))

    def resume_search(task, log_file):
        print("Resume search:")
        cost_model = auto_scheduler.XGBModel()
        cost_model.update_from_file(log_file)
        search_policy = auto_scheduler.SketchPolicy(
            task, cost_model,
            init_search_callbacks=[auto_scheduler.PreloadMeasuredStates(log_file)])
        measure_ctx = auto_scheduler.LocalRPCMeasureContext(min_repeat_ms=20)
        tune_option = auto_scheduler.TuningOptions(
            num_measure_trials=2, runner=measure_ctx.runner,
            measure_callbacks=[auto_scheduler.RecordToFile(log_file)])
        task.tune(tune_option, search_policy=search_policy)
        del measure_ctx

    resume_search(task, log_file)
    printed = capsys.readouterr().out
    assert "conv2d_nchw(nn, ff, yy, xx) += pad_temp[nn, rc, yy + ry, xx + rx]" in printed
    assert "s.cache_read(pad_temp, 'shared', [conv2d_nchw_local])" in printed
    assert "te.thread_axis('vthread')" in printed
    assert 'extern "C" __global__ void' in printed and "__shared__ float" in printed
    assert "GFLOPS" in printed
    assert len(open(log_file).readlines()) == 6
