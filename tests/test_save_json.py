"""tvm.ir.save_json / load_json: tepad object graphs through JSON text (TVM's json round trips
of a reduction Tensor, a schedule and a multi-output scan)."""
import json

import numpy as np
import pytest

import tepad
from tepad import TepadError, te, tir


def test_reduction_tensor_round_trip():
    m, n, l = te.size_var("m"), te.size_var("n"), te.size_var("l")
    A = te.placeholder((m, l), name="A")
    B = te.placeholder((n, l), name="B")
    T = te.compute((m, n, l), lambda i, j, k: A[i, k] * B[j, k], name="T")
    rv = te.reduce_axis((0, A.shape[1]), "k")
    C = te.compute((m, n), lambda i, j: te.sum(T(i, j, rv + 1), axis=rv), name="C")
    text = tepad.ir.save_json(C)
    assert json.loads(text)["format"] == "tepad-json-1"
    C2 = tepad.ir.load_json(text)
    assert isinstance(C2, te.Tensor) and C2 is not C
    assert str(C2) == str(C) and str(C2.op.body) == str(C.op.body)
    # one graph: the loaded T is the operation the loaded C reads
    (T2,) = C2.op.input_tensors
    assert T2.op.input_tensors[0].op.name == "A"


def test_multi_output_scan_round_trip():
    m, n = te.size_var("m"), te.size_var("n")
    x1, s1, x2, s2 = (te.placeholder((m, n)) for _ in range(4))
    i1 = te.compute((1, n), lambda _, i: x1[0, i])
    i2 = te.compute((1, n), lambda _, i: x2[0, i])
    u1 = te.compute((m, n), lambda t, i: s1[t - 1, i] + s2[t - 1, i] + x1[t, i])
    u2 = te.compute((m, n), lambda t, i: x2[t, i] + s2[t - 1, i])
    r0, r1 = te.scan([i1, i2], [u1, u2], [s1, s2])
    op = tepad.ir.load_json(tepad.ir.save_json(r0.op))
    assert isinstance(op, te.ScanOp) and op.num_outputs == 2
    assert str(op.update[0].op.body) == str(u1.op.body)
    assert op.state_placeholder[1] in op.update[1].op.input_tensors


def test_schedule_round_trip_lowers_and_runs_the_same():
    A = te.placeholder((10, 6), name="A")
    B = te.compute((10, 6), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((10, 6), lambda i, j: B[i, j] + 1.0, name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], xo)
    s2 = tepad.ir.load_json(tepad.ir.save_json(s))
    assert isinstance(s2, te.Schedule)
    assert str(s2.outputs[0].body) == str(s.outputs[0].body)
    A2, C2 = s2.stages[0].op.output(0), s2.outputs[0].output(0)
    assert tepad.lower(s2, [A2, C2]).script() == tepad.lower(s, [A, C]).script()
    a = np.random.rand(10, 6).astype("float32")
    c = np.zeros_like(a)
    tepad.build(s2, [A2, C2])(a, c)
    np.testing.assert_allclose(c, a * 2 + 1, rtol=1e-6)


def test_save_json_refuses_a_lambda():
    A = te.placeholder((4,), name="A")
    B = te.compute((8,), lambda i: A[i // 2], name="B")
    s = te.create_schedule(B.op)
    s[B].transform_layout(lambda i: [i // 4, i % 4], pad_value=lambda *i: tir.const(0, "float32"))
    with pytest.raises(TepadError, match="save_json: cannot write .*lambda"):
        tepad.ir.save_json(s)


def test_load_json_only_recreates_tepad_objects():
    doc = {"format": "tepad-json-1", "root": {"$ref": 0},
           "nodes": [{"call": "os:system", "args": {"$tuple": ["true"]}}]}
    with pytest.raises(TepadError, match="only tepad's own"):
        tepad.ir.load_json(json.dumps(doc))
    with pytest.raises(TepadError, match="not a tepad save_json document"):
        tepad.ir.load_json("{}")
