"""``tvm.ir.save_json`` / ``load_json`` and pickling: tensors, operations and schedules make
the round trip with their sharing, and what comes back lowers and builds like the original."""
import pickle
import subprocess
import sys

import numpy as np
import pytest

import tepad as tvm
from tepad import te


def scheduled():
    A = te.placeholder((8, 6), name="A")
    B = te.compute((8, 6), lambda i, j: A[i, j] * 2.0, name="B")
    k = te.reduce_axis((0, 6), "k")
    C = te.compute((8,), lambda i: te.sum(B[i, k], axis=k), name="C")
    s = te.create_schedule(C.op)
    xo, _ = s[C].split(C.op.axis[0], 4)
    s[B].compute_at(s[C], xo)
    s[A].transform_layout(lambda i, j: [j, i])
    return s, A, C


def args_of(s):
    return [s.stages[0].op.output(0), s.outputs[0].output(0)]


@pytest.mark.parametrize("roundtrip", [lambda x: tvm.ir.load_json(tvm.ir.save_json(x)),
                                       lambda x: pickle.loads(pickle.dumps(x))],
                         ids=["json", "pickle"])
def test_schedule_round_trip_lowers_and_builds_the_same(roundtrip):
    s, A, C = scheduled()
    s2 = roundtrip(s)
    assert isinstance(s2, te.schedule.Schedule) and s2 is not s
    assert str(s2.outputs[0].body) == str(s.outputs[0].body)
    assert tvm.lower(s2, args_of(s2))["main"].script() == tvm.lower(s, [A, C])["main"].script()
    a = np.random.default_rng(0).random((8, 6), dtype="float32")
    c = np.zeros(8, "float32")
    tvm.build(s2, args_of(s2))(np.ascontiguousarray(a.T), c)
    np.testing.assert_allclose(c, (a * 2.0).sum(axis=1), rtol=1e-5)


def test_tensor_round_trip_keeps_sharing():
    m = te.size_var("m")
    A = te.placeholder((m, 4), name="A")
    B = te.compute((m, 4), lambda i, j: A[i, j] + A[i, 3 - j], name="B")
    B2 = tvm.ir.load_json(tvm.ir.save_json(B))
    assert isinstance(B2, te.tensor.Tensor) and str(B2) == str(B)
    # both reads of A come back as reads of one tensor, with one shape var
    reads = B2.op.input_tensors
    assert len(reads) == 1 and reads[0].shape[0] is B2.shape[0]


def test_json_is_portable_across_processes():
    s, A, C = scheduled()
    text = tvm.ir.save_json(s)
    code = ("import sys, tepad as tvm; s = tvm.ir.load_json(sys.stdin.read()); "
            "print(tvm.lower(s, [s.stages[0].op.output(0), s.outputs[0].output(0)])"
            "['main'].script())")
    out = subprocess.run([sys.executable, "-c", code], input=text, capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == tvm.lower(s, [A, C])["main"].script().strip()


def test_what_cannot_be_saved_is_named():
    with pytest.raises(tvm.TVMError, match=r"save_json: .* is a function"):
        tvm.ir.save_json([lambda: 1])
    with pytest.raises(tvm.TVMError, match="not text written by tepad's save_json"):
        tvm.ir.load_json('{"root": 1}')
