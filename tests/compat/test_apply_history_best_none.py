"""``autotvm.apply_history_best(None)`` (TVM's tune_conv2d_cuda tutorial passes None before
any log exists): no records, so templates get their default (fallback) configs."""
import numpy as np
import pytest

import tepad as tvm
from tepad import autotvm, te


@autotvm.template("compat/scaled_rows")
def scaled_rows(n, m):
    A = te.placeholder((n, m), name="A")
    B = te.compute((n, m), lambda i, j: A[i, j] * 2.0 + 1.0, name="B")
    s = te.create_schedule(B.op)
    cfg = autotvm.get_config()
    cfg.define_knob("inner", [4, 8])
    cfg.define_split("tile", B.op.axis[0], num_outputs=2)
    yo, yi = cfg["tile"].apply(s, B, B.op.axis[0])
    s[B].split(B.op.axis[1], factor=cfg["inner"].val)
    return s, [A, B]


@pytest.mark.parametrize("records", [None, []])
def test_no_records_means_default_configs(records):
    with autotvm.apply_history_best(records):
        with tvm.target.Target("llvm"):
            s, args = scaled_rows(12, 10)
            cfg = autotvm.DispatchContext.current.query(
                tvm.target.Target("llvm"), autotvm.task.args_to_workload(
                    (12, 10), "compat/scaled_rows"))
            f = tvm.build(s, args)
    assert cfg.is_fallback
    a = np.random.rand(12, 10).astype("float32")
    b = np.zeros((12, 10), "float32")
    f(a, b)
    np.testing.assert_allclose(b, a * 2.0 + 1.0, rtol=1e-6)


def test_records_of_a_wrong_type_are_a_tepad_error():
    with pytest.raises(tvm.TepadError, match="records must be"):
        autotvm.apply_history_best(42)
