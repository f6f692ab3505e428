"""Tensorize of a stage that calls a tensor intrinsic (a TensorComputeOp): with an intrinsic
declared over a compute calling that same intrinsic several times (a block of calls), the
tile's calls become one call of the block intrinsic over the union of their regions."""
import numpy as np
import pytest

import tepad
from tepad import te, tir


def _vadd(n):
    """y = a + b over n elements, as plain TIR (it builds anywhere)."""
    a = te.placeholder((n,), name="a")
    b = te.placeholder((n,), name="b")
    y = te.compute((n,), lambda i: a[i] + b[i], name="y")

    def body(ins, outs):
        e = te.var("e")
        return tir.For(e, 0, n, body=tir.BufferStore(
            outs[0], tir.BufferLoad(ins[0], [e]) + tir.BufferLoad(ins[1], [e]), [e]))
    return te.decl_tensor_intrin(y.op, body, name=f"vadd{n}",
                                 default_buffer_params={"offset_factor": 1})


def _block_loops(ins, outs, rows, n, inner_kind):
    r, e = te.var("r"), te.var("e")
    store = tir.BufferStore(outs[0], tir.BufferLoad(ins[0], [r, e]) +
                            tir.BufferLoad(ins[1], [r, e]), [r, e])
    return tir.For(r, 0, rows, body=tir.For(e, 0, n, inner_kind, store))


def _block(vadd, rows, n):
    """``rows`` calls of ``vadd`` at once: one loop over the block's rows."""
    Ab = te.placeholder((rows, n), name="Ab")
    Bb = te.placeholder((rows, n), name="Bb")
    Cb = te.compute((rows, n), lambda i: vadd(Ab[i, 0:n], Bb[i, 0:n]), name="Cb")

    def body(ins, outs):
        return tir.SeqStmt([_block_loops(ins, outs, rows, n, tir.ForKind.SERIAL),
                            tir.Evaluate(tir.call_extern("int32", "block_marker"))])
    return te.decl_tensor_intrin(Cb.op, lambda ins, outs: body(ins, outs), name="vadd_block",
                                 default_buffer_params={"offset_factor": 1})


def _marker_free(vadd, rows, n):
    Ab = te.placeholder((rows, n), name="Ab")
    Bb = te.placeholder((rows, n), name="Bb")
    Cb = te.compute((rows, n), lambda i: vadd(Ab[i, 0:n], Bb[i, 0:n]), name="Cb")

    def body(ins, outs):
        return _block_loops(ins, outs, rows, n, tir.ForKind.VECTORIZED)
    return te.decl_tensor_intrin(Cb.op, body, name="vadd_block",
                                 default_buffer_params={"offset_factor": 1})


def test_block_of_calls_replaces_the_inner_loop():
    vadd = _vadd(16)
    A = te.placeholder((32, 16), name="A")
    B = te.placeholder((32, 16), name="B")
    C = te.compute((32, 16), lambda i: vadd(A[i, 0:16], B[i, 0:16]), name="C")
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], 4)
    s[C].tensorize(ii, _block(vadd, 4, 16))
    text = str(tepad.lower(s, [A, B, C]))
    assert text.count("block_marker") == 1 and "i_inner" not in text
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], 4)
    s[C].tensorize(ii, _marker_free(vadd, 4, 16))
    f = tepad.build(s, [A, B, C])
    a, b = (np.random.RandomState(k).rand(32, 16).astype("float32") for k in (0, 1))
    c = np.zeros_like(a)
    f(a, b, c)
    np.testing.assert_allclose(c, a + b, rtol=1e-6)


def test_mismatches_are_refused():
    vadd = _vadd(16)
    A = te.placeholder((32, 16), name="A")
    B = te.placeholder((32, 16), name="B")
    C = te.compute((32, 16), lambda i: vadd(A[i, 0:16], B[i, 0:16]), name="C")
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], 8)
    s[C].tensorize(ii, _marker_free(vadd, 4, 16))
    with pytest.raises(tepad.TepadError, match="takes 8 values in the tile"):
        tepad.lower(s, [A, B, C])
    other = _vadd(16)
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], 4)
    with pytest.raises(tepad.TepadError, match="calls the tensor intrinsic vadd16"):
        s[C].tensorize(ii, other)
    with pytest.raises(tepad.TepadError, match="not vadd_block"):
        s[C].tensorize(ii, _marker_free(_vadd(16), 4, 16))
