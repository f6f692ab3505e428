"""``tvm.ir.base``: programs import ``save_json`` / ``load_json`` from it; a ComputeDAG
survives the round trip (its stage names are looked up on the new objects), and a lowered
function saved twice gives the same text."""
import hashlib

import numpy as np

import tepad as tvm
from tepad import auto_scheduler, te
from tepad.ir.base import load_json, save_json


def _dag():
    A = te.placeholder((8, 6), name="A")
    B = te.compute((8, 6), lambda i, j: A[i, j] * 2.0, name="compute")
    C = te.compute((8, 6), lambda i, j: B[i, j] + 1.0, name="compute")   # a shared name
    return [A, C]


def test_ir_base_is_the_same_json_io_as_ir():
    assert tvm.ir.base.save_json is tvm.ir.save_json
    assert tvm.ir.base.load_json is tvm.ir.load_json


def test_compute_dag_round_trips_with_its_stage_names():
    dag = auto_scheduler.ComputeDAG(_dag())
    back = load_json(save_json(dag))
    assert str(back) == str(dag)
    assert [back.name_of(op) for op in back.ops] == ["A", "compute", "compute_1"]
    s, args = back.apply_steps_from_state(back.get_init_state())
    a = np.random.default_rng(0).random((8, 6), dtype=np.float32)
    out = np.zeros((8, 6), "float32")
    tvm.build(s, args)(a, out)
    np.testing.assert_allclose(out, a * 2 + 1, rtol=1e-6)


def test_saving_a_lowered_function_is_deterministic():
    A, C = _dag()
    s = te.create_schedule(C.op)
    texts = {hashlib.sha256(save_json(tvm.lower(s, [A, C])["main"]).encode()).hexdigest()
             for _ in range(3)}
    assert len(texts) == 1
