"""A reduction intrinsic given as one statement (no reset/update): legal when the tensorized
tile holds every reduce loop (TVM's test_tensor_pool), a clear error when reduce loops stay
outside the tile (each call would have to accumulate)."""
import pytest

import tepad
from tepad import te, tir
from tepad.topi.nn.pooling import pool2d


def pool_intrin(rows=3):
    A = te.placeholder((64, 16, 16), name="A")
    kh = te.reduce_axis((0, rows), name="kh")
    kw = te.reduce_axis((0, 3), name="kw")
    P = te.compute((64, 14, 14), lambda c, oh, ow: te.max(A[c, oh + kh, ow + kw],
                                                          axis=[kh, kw]), name="p")
    return te.decl_tensor_intrin(
        P.op, lambda ins, outs: tir.call_extern("int32", "pool_tile", ins[0].data,
                                                outs[0].data),
        default_buffer_params={"offset_factor": 1})


def calls(func):
    out = []
    tir.post_order_visit(func.body, lambda n: out.append(n) if isinstance(n, tir.expr.Call)
                         and n.op == "tir.call_extern" else None)
    return out


def test_tile_with_every_reduce_loop_calls_the_body_once_per_image():
    A = te.placeholder((1, 64, 16, 16), name="A")
    P = pool2d(A, (3, 3), (1, 1), (1, 1), (0, 0, 0, 0), "max")
    s = te.create_schedule(P.op)
    s[P].tensorize(P.op.axis[1], pool_intrin())
    func = tepad.lower(s, [A, P])["main"]
    assert len(calls(func)) == 1
    loops = []
    tir.post_order_visit(func.body, lambda n: loops.append(n) if isinstance(n, tir.For)
                         else None)
    assert loops == []          # the batch loop (extent 1) was all that stayed outside


def test_reduce_loops_outside_the_tile_need_an_update_statement():
    A = te.placeholder((64, 16, 16), name="A")
    kh = te.reduce_axis((0, 3), name="kh")
    kw = te.reduce_axis((0, 3), name="kw")
    P = te.compute((64, 14, 14), lambda c, oh, ow: te.max(A[c, oh + kh, ow + kw],
                                                          axis=[kh, kw]), name="P")
    s = te.create_schedule(P.op)
    c, oh, ow = P.op.axis
    ko, ki = s[P].split(kh, factor=1)
    s[P].reorder(ko, c, oh, ow, ki, kw)
    s[P].tensorize(c, pool_intrin(rows=1))      # a one-row window: kh.outer stays outside
    with pytest.raises(tepad.TepadError, match="no reduce_update statement"):
        tepad.lower(s, [A, P])
