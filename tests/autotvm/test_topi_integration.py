"""autotvm.register_topi_compute / register_topi_schedule: an operator written as a
config-taking compute and schedule runs with the fallback config when called directly,
becomes a task that autotvm.task.create and a tuner take, and runs the tuned config under
apply_history_best; every schedule computes what numpy computes."""
import numpy as np
import pytest

import tepad
from tepad import autotvm, te
from tepad.errors import TepadError

TASK = "tepad_test_scaled_matmul.x86"


@autotvm.register_topi_compute(TASK)
def scaled_matmul(cfg, a, b, scale):
    k = te.reduce_axis((0, a.shape[1]), name="k")
    c = te.compute((a.shape[0], b.shape[1]),
                   lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="c")
    cfg.define_split("tile_j", c.op.axis[1], num_outputs=2)
    return te.compute(c.shape, lambda i, j: c[i, j] * scale, name="out")


@autotvm.register_topi_schedule(TASK)
def schedule_scaled_matmul(cfg, outs):
    out = outs[0]
    s = te.create_schedule([o.op for o in outs])
    c = out.op.input_tensors[0]
    s[c].compute_at(s[out], out.op.axis[0])
    jo, ji = cfg["tile_j"].apply(s, out, out.op.axis[1])
    s[out].vectorize(ji)
    return s


def _check(s, args, x, y, scale):
    f = tepad.build(s, args, "llvm")
    out = np.zeros((x.shape[0], y.shape[1]), "float32")
    f(x, y, out)
    np.testing.assert_allclose(out, (x @ y) * scale, rtol=1e-5)


def _inputs():
    rng = np.random.default_rng(7)
    return rng.random((8, 12)).astype("float32"), rng.random((12, 16)).astype("float32")


def test_called_directly_with_the_fallback_config():
    a = te.placeholder((8, 12), name="a")
    b = te.placeholder((12, 16), name="b")
    out = scaled_matmul(a, b, 0.5)
    assert out.op.attrs["workload"][0] == TASK
    with tepad.target.Target("llvm"):
        s = schedule_scaled_matmul(out)
    _check(s, [a, b, out], *_inputs(), 0.5)


def test_task_tuned_and_applied(tmp_path):
    a = te.placeholder((8, 12), name="a")
    b = te.placeholder((12, 16), name="b")
    task = autotvm.task.create(TASK, args=(a, b, 0.5), target="llvm")
    assert len(task.config_space) == 5          # the factors of 16 as (outer, inner)
    log = str(tmp_path / "log.json")
    tuner = autotvm.tuner.GridSearchTuner(task)
    tuner.tune(n_trial=3, measure_option=autotvm.measure_option(
        builder=autotvm.LocalBuilder(), runner=autotvm.LocalRunner(number=1, repeat=1)),
        callbacks=[autotvm.callback.log_to_file(log)])
    with autotvm.apply_history_best(log):
        with tepad.target.Target("llvm"):
            out = scaled_matmul(a, b, 0.5)
            s = schedule_scaled_matmul([out])
    _check(s, [a, b, out], *_inputs(), 0.5)


def test_keyword_arguments_and_bad_names_are_refused():
    a = te.placeholder((8, 12), name="a")
    b = te.placeholder((12, 16), name="b")
    with pytest.raises(TepadError, match="by position"):
        scaled_matmul(a, b, scale=0.5)
    with pytest.raises(TepadError, match="task name"):
        autotvm.register_topi_compute("")
