"""An extern or hybrid stage's statement is marked ``attr [0] "extern_scope" = 0`` as in TVM,
and the mark changes nothing the kernel computes."""
import numpy as np

import tepad
from tepad import te, tir


@te.hybrid.script
def doubled(a):
    b = output_tensor((16,), "float32")
    for i in range(16):
        b[i] = a[i] * 2.0
    return b


def test_hybrid_stage_is_marked_and_scheduled_loops_follow():
    a = te.placeholder((16,), name="a")
    b = doubled(a)
    s = te.create_schedule(b.op)
    io, ii = s[b].split(b.op.axis[0], factor=4)
    s[b].reorder(ii, io)
    body = tepad.lower(s, [a, b])["main"].body
    assert isinstance(body, tir.AttrStmt) and body.attr_key == "extern_scope"
    assert isinstance(body.body, tir.For) and body.body.loop_var.name == "i.inner"
    f = tepad.build(s, [a, b])
    an = np.arange(16, dtype="float32")
    out = tepad.nd.empty((16,), "float32")
    f(tepad.nd.array(an), out)
    np.testing.assert_allclose(out.numpy(), an * 2)


def test_extern_stage_is_marked():
    A = te.placeholder((8,), name="A")

    def copy_plus_one(ins, outs):
        ib = tir.ir_builder.create()
        x, y = ib.buffer_ptr(ins[0]), ib.buffer_ptr(outs[0])
        with ib.for_range(0, 8, name="i") as i:
            y[i] = x[i] + 1.0
        return ib.get()
    B = te.extern((8,), [A], copy_plus_one, name="B")
    s = te.create_schedule(B.op)
    body = tepad.lower(s, [A, B])["main"].body
    assert isinstance(body, tir.AttrStmt) and body.attr_key == "extern_scope"
    f = tepad.build(s, [A, B])
    an = np.arange(8, dtype="float32")
    out = tepad.nd.empty((8,), "float32")
    f(tepad.nd.array(an), out)
    np.testing.assert_allclose(out.numpy(), an + 1)
