"""Tensor intrinsics the tensorize tests share, as fixtures returning factories.

``vadd_plain``/``gemv_plain`` have bodies in plain TIR (loops of loads and stores over the
bound buffers), so kernels using them build and run; ``vadd_extern``/``gemv_extern`` call
external functions (``tir.call_extern`` with ``access_ptr`` arguments) and are only lowered.
"""
import pytest

from tepad import te, tir


def _vadd_op(n, dtype="float32"):
    x = te.placeholder((n,), dtype, name="x")
    y = te.placeholder((n,), dtype, name="y")
    return te.compute((n,), lambda i: x[i] + y[i], name="z")


@pytest.fixture
def vadd_plain():
    def make(n, **buffer_params):
        z = _vadd_op(n)

        def body(ins, outs):
            i = te.var("vi")
            return tir.For(i, 0, n, tir.ForKind.SERIAL,
                           outs[0].vstore([i], ins[0].vload([i]) + ins[1].vload([i])))
        params = buffer_params or {"offset_factor": 1}
        return te.decl_tensor_intrin(z.op, body, name="vadd", default_buffer_params=params)
    return make


@pytest.fixture
def vadd_extern():
    def make(n, **buffer_params):
        z = _vadd_op(n)

        def body(ins, outs):
            return tir.call_extern("float32", "vadd", ins[0].access_ptr("r"),
                                   ins[1].access_ptr("r"), outs[0].access_ptr("w"))
        params = buffer_params or {"offset_factor": 1}
        return te.decl_tensor_intrin(z.op, body, name="vadd", default_buffer_params=params)
    return make


def _gemv_op(m, l):
    w = te.placeholder((m, l), name="w")
    x = te.placeholder((l,), name="x")
    k = te.reduce_axis((0, l), name="k")
    return w, te.compute((m,), lambda i: te.sum(w[i, k] * x[k], axis=k), name="z")


@pytest.fixture
def gemv_plain():
    """``z[i] = sum_k w[i, k] * x[k]`` with w bound through symbolic strides; ``reset``
    False gives an intrinsic without reduce_init (the body then starts the reduction)."""
    def make(m, l, reset=True):
        w, z = _gemv_op(m, l)
        wb = tir.decl_buffer(w.shape, w.dtype, name="W", offset_factor=1,
                             strides=[te.var("ldw"), 1])

        def body(ins, outs):
            ww, xx = ins
            zz = outs[0]
            i, kk = te.var("gi"), te.var("gk")
            acc = tir.For(kk, 0, l, tir.ForKind.SERIAL,
                          zz.vstore([i], zz.vload([i]) + ww.vload([i, kk]) * xx.vload([kk])))
            zero = zz.vstore([i], tir.const(0.0, "float32"))
            full = tir.For(i, 0, m, tir.ForKind.SERIAL, tir.seq(zero, acc))
            init = tir.For(i, 0, m, tir.ForKind.SERIAL, zero)
            update = tir.For(i, 0, m, tir.ForKind.SERIAL, acc)
            return full, (init if reset else None), update
        return te.decl_tensor_intrin(z.op, body, name="gemv", binds={w: wb},
                                     default_buffer_params={"offset_factor": 1})
    return make


@pytest.fixture
def gemv_extern():
    def make(m, l):
        w, z = _gemv_op(m, l)
        wb = tir.decl_buffer(w.shape, w.dtype, name="W", offset_factor=1,
                             strides=[te.var("ldw"), 1])

        def body(ins, outs):
            ww, xx = ins
            zz = outs[0]
            args = (ww.access_ptr("r"), xx.access_ptr("r"), zz.access_ptr("w"), ww.strides[0])
            return (tir.call_extern("float32", "gemv", *args),
                    tir.call_extern("float32", "gemv_reset", zz.access_ptr("w")),
                    tir.call_extern("float32", "gemv_update", *args))
        return te.decl_tensor_intrin(z.op, body, name="gemv", binds={w: wb},
                                     default_buffer_params={"offset_factor": 1})
    return make
