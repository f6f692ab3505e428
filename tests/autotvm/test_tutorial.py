"""TVM's autotvm_matmul_x86 tutorial in our words, at a small size: the knob template
(matmul_v1), the split template, a task and its space, a random tuner with a log, and
apply_history_best building the best schedule, checked against numpy."""
import numpy as np

import tepad as tvm
from tepad import te, autotvm
import tepad.testing

from .templates import matmul_definition, matmul_with_splits


@autotvm.template("tutorial_small/matmul_v1")
def matmul_v1(N, L, M, dtype):
    s, (A, B, C), (y, x, k) = matmul_definition(N, L, M, dtype)
    cfg = autotvm.get_config()
    cfg.define_knob("tile_y", [1, 2, 4, 8, 16])
    cfg.define_knob("tile_x", [1, 2, 4, 8, 16])
    yo, yi = s[C].split(y, cfg["tile_y"].val)
    xo, xi = s[C].split(x, cfg["tile_x"].val)
    s[C].reorder(yo, xo, k, yi, xi)
    return s, [A, B, C]


matmul = autotvm.template("tutorial_small/matmul")(matmul_with_splits)


def test_knob_template_space_is_five_by_five():
    task = autotvm.task.create("tutorial_small/matmul_v1", args=(64, 64, 64, "float32"),
                               target="llvm")
    assert len(task.config_space) == 25
    assert task.flop == 2 * 64 ** 3


def test_the_tutorial_flow(tmp_path):
    N = L = M = 64
    task = autotvm.task.create("tutorial_small/matmul", args=(N, L, M, "float32"),
                               target="llvm")
    assert len(task.config_space) == 49          # 7 factors of 64 on each axis
    assert "tile_y: Split(policy=factors, product=64, num_outputs=2) len=7" in \
        str(task.config_space)
    log = str(tmp_path / "matmul.log")
    option = autotvm.measure_option(builder="local",
                                    runner=autotvm.LocalRunner(number=5, timeout=10))
    tuner = autotvm.tuner.RandomTuner(task)
    tuner.tune(n_trial=4, measure_option=option,
               callbacks=[autotvm.callback.log_to_file(log)])
    records = list(autotvm.record.load_from_file(log))
    assert len(records) == 4 and all(r.error_no == 0 for _, r in records)
    best = min(records, key=lambda p: np.mean(p[1].costs))[0].config
    with autotvm.apply_history_best(log):
        with tvm.target.Target("llvm"):
            cfg = autotvm.DispatchContext.current.query(tvm.target.Target("llvm"),
                                                        task.workload)
            assert cfg == best
            s, arg_bufs = matmul(N, L, M, "float32")
            func = tvm.build(s, arg_bufs)
    a_np = np.random.uniform(size=(N, L)).astype(np.float32)
    b_np = np.random.uniform(size=(L, M)).astype(np.float32)
    c_np = a_np.dot(b_np)
    c_tvm = tvm.nd.empty(c_np.shape)
    func(tvm.nd.array(a_np), tvm.nd.array(b_np), c_tvm)
    tvm.testing.assert_allclose(c_np, c_tvm.numpy(), rtol=1e-4)
