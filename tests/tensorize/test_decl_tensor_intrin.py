"""te.decl_tensor_intrin: what a TensorIntrin holds, the buffers fcompute gets, scalar
parameters, and the declaration mistakes it refuses (TVM's test_tensor_intrin and
test_tensor_intrin_scalar_params, te_schedule)."""
import pytest

import tepad
from tepad import te, tir


def _add(n):
    x = te.placeholder((n,), name="x")
    y = te.placeholder((n,), name="y")
    return x, y, te.compute(x.shape, lambda i: x[i] + y[i], name="z")


def test_intrin_holds_op_inputs_buffers():
    x, y, z = _add(16)
    seen = {}

    def body(ins, outs):
        seen["ins"], seen["outs"] = ins, outs
        return tir.call_packed("vadd", ins[0].data, outs[0].data, ins[0].shape[0])
    intrin = te.decl_tensor_intrin(z.op, body)
    assert intrin.op is z.op and intrin.reduce_init is None and intrin.reduce_update is None
    assert tuple(intrin.inputs) == (x, y)
    assert len(intrin.buffers) == 3 and intrin.buffers[:2] == list(seen["ins"])
    assert all(isinstance(b, te.schedule.Buffer) for b in intrin.buffers)
    assert intrin.buffers[0].shape[0].value == 16 and intrin.buffers[2].name == "z"
    assert isinstance(intrin.body, tir.Evaluate)      # an expression body is wrapped


def test_tensorize_marks_the_loop():
    _, _, z16 = _add(16)
    intrin = te.decl_tensor_intrin(z16.op, lambda ins, outs: tir.call_packed("vadd"))
    x, y, z = _add(32)
    s = te.create_schedule(z.op)
    xo, xi = s[z].split(z.op.axis[0], factor=16)
    s[z].tensorize(xi, intrin)
    assert s[z].iter_var_attrs[xi].tensor_intrin is intrin
    assert s[z].iter_var_attrs[xi].iter_type == te.schedule.IterVar.Tensorized


def test_binds_and_default_buffer_params():
    x, y, z = _add(8)
    xb = tir.decl_buffer((8,), name="Xb", offset_factor=8, scope="local")
    intrin = te.decl_tensor_intrin(z.op, lambda ins, outs: tir.call_packed("f"),
                                   binds={x: xb}, default_buffer_params={"offset_factor": 4})
    assert intrin.buffers[0] is xb
    assert intrin.buffers[1].offset_factor == 4 and intrin.buffers[2].offset_factor == 4


def test_scalar_params_reach_fcompute_and_the_call():
    n = te.size_var("n")
    x = te.placeholder((n,), name="x")
    v, w = te.size_var("v"), te.size_var("w")
    z = te.compute((n,), lambda i: x[i] * v + w, name="z")

    def body(ins, outs, sp):
        assert list(sp) == [v, w]
        return tir.call_packed("hw_func", ins[0].data, outs[0].data, sp[0], sp[1])
    intrin = te.decl_tensor_intrin(z.op, body, scalar_params=[v, w],
                                   default_buffer_params={"offset_factor": 1})
    assert intrin.scalar_params == [v, w] and intrin.buffers[0].shape[0] is n
    A = te.placeholder((10, 10), name="A")
    # scalars interleaved with the tensor region; A[i, j] is a one-element region
    C = te.compute((10, 10), lambda i, j: intrin(i * i, A[i, j], i + j), name="C")
    func = tepad.lower(s := te.create_schedule(C.op), [A, C])["main"]
    call = func.body.body.body.value
    assert call.op == "tir.tvm_call_packed" and len(call.args) == 5
    assert str(call.args[3]) == "i * i" and str(call.args[4]) == "i + j"
    # the bound buffers' data are the kernel's arguments
    assert call.args[1] is func.params[0] and call.args[2] is func.params[1]
    assert s[C].op.scalar_inputs[0].dtype == "int32"


@pytest.mark.parametrize("bad, match", [
    (lambda z, x: te.decl_tensor_intrin(x.op, lambda i, o: tir.call_packed("f")),
     "te.compute"),
    (lambda z, x: te.decl_tensor_intrin(z.op, lambda i, o: "body"), "expected a Stmt"),
    (lambda z, x: te.decl_tensor_intrin(z.op, lambda i, o: (None, None, None)),
     "no statement"),
    (lambda z, x: te.decl_tensor_intrin(z.op, lambda i, o: tir.call_packed("f"),
                                        binds={te.placeholder((3,)): None}), "binds"),
])
def test_declaration_mistakes(bad, match):
    x, _, z = _add(4)
    with pytest.raises(tepad.TepadError, match=match):
        bad(z, x)


def test_intrin_reading_a_compute_is_refused():
    x = te.placeholder((4,), name="x")
    y = te.compute((4,), lambda i: x[i] * 2.0, name="y")
    z = te.compute((4,), lambda i: y[i] + 1.0, name="z")
    with pytest.raises(tepad.TepadError, match="not a te.placeholder"):
        te.decl_tensor_intrin(z.op, lambda i, o: tir.call_packed("f"))


def test_call_argument_mistakes():
    _, _, z = _add(4)
    intrin = te.decl_tensor_intrin(z.op, lambda i, o: tir.call_packed("f"))
    A = te.placeholder((8, 4), name="A")
    with pytest.raises(tepad.TepadError, match="2 tensor region"):
        te.compute((8, 4), lambda i: intrin(A[i, 0:4]))
    with pytest.raises(tepad.TepadError, match="0 scalar"):
        te.compute((8, 4), lambda i: intrin(A[i, 0:4], A[i, 0:4], 3))
    with pytest.raises(tepad.TepadError, match="reduce_axis"):
        te.compute((8, 4), lambda i: intrin(A[i, 0:4], A[i, 0:4], reduce_axis=3))
    with pytest.raises(tepad.TepadError, match="computes 1 dimension"):
        te.compute((8, 4, 2, 2), lambda i: intrin(A[i, 0:4], A[i, 0:4]))


def test_tensorize_call_mistakes(vadd_plain):
    vadd = vadd_plain(4)
    A = te.placeholder((8, 4), name="A")
    B = te.compute((8, 4), lambda i, j: A[i, j] * 2.0, name="B")
    s = te.create_schedule([B.op])
    with pytest.raises(tepad.TepadError, match="tensor intrinsic from te.decl_tensor_intrin"):
        s[B].tensorize(B.op.axis[1], "vadd")
    k = te.reduce_axis((0, 4), "k")
    S = te.compute((8,), lambda i: te.sum(A[i, k], axis=k), name="S")
    s2 = te.create_schedule(S.op)
    with pytest.raises(tepad.TepadError, match="is a reduction, but the intrinsic vadd is not"):
        s2[S].tensorize(S.op.axis[0], vadd)
    s[B].tensorize(B.op.axis[1], vadd)
    with pytest.raises(tepad.TepadError, match="already tensorized"):
        s[B].tensorize(B.op.axis[0], vadd)
