"""A Call's operator reads as TVM's ``Op``: ``call.op.name``, ``same_as(tvm.ir.Op.get(..))``,
while still comparing equal to its name string."""
import pickle

import pytest

import tepad as tvm
from tepad import te, topi


def test_call_op_reads_as_tvm_op():
    A = te.placeholder((4, 3), name="A")
    B = topi.exp(A)
    call = B.op.body[0]
    assert call.op.name == "tir.exp"
    assert call.op == "tir.exp"
    assert call.op.same_as(tvm.ir.Op.get("tir.exp"))
    assert not call.op.same_as(tvm.ir.Op.get("tir.log"))
    ext = tvm.tir.call_extern("float32", "expf", 1.0)
    assert ext.op.same_as(tvm.ir.Op.get("tir.call_extern"))
    assert pickle.loads(pickle.dumps(ext.op)).name == "tir.call_extern"


def test_op_get_rejects_a_non_name():
    with pytest.raises(tvm.TepadError, match="non-empty string"):
        tvm.ir.Op.get("")
