"""Stage.tensorize: the loops at and below the tensorized one are replaced by the
intrinsic's statements, its buffers bound to the regions those loops touch; the intrinsic
must compute what the loops compute. Numeric checks use plain-TIR intrinsics (they build);
call_extern intrinsics are checked on the lowered IR."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.lower import pipeline
from tepad.tir.expr import Call


def _calls(stmt, op):
    found = []
    tir.post_order_visit(stmt, lambda n: found.append(n) if isinstance(n, Call) and
                         n.op == op else None)
    return found


def _rand(*shape):
    return np.random.default_rng(0).random(shape, dtype=np.float32)


def _vadd_stage(rows=8, cols=32):
    A = te.placeholder((rows, cols), name="A")
    B = te.placeholder((rows, cols), name="B")
    C = te.compute((rows, cols), lambda i, j: A[i, j] + B[i, j], name="C")
    return A, B, C


def test_vadd_extern_replaces_inner_loop_with_offsets(vadd_extern):
    A, B, C = _vadd_stage()
    s = te.create_schedule(C.op)
    jo, ji = s[C].split(C.op.axis[1], factor=16)
    s[C].tensorize(ji, vadd_extern(16))
    func = pipeline.lower_primfunc(s, [A, B, C])
    outer = func.body
    assert isinstance(outer, tir.For) and outer.loop_var.name == "i"
    assert isinstance(outer.body, tir.For) and outer.body.loop_var.name == "j.outer"
    call = outer.body.body.value
    assert call.op == "tir.call_extern" and call.args[0].value == "vadd"
    offsets = [str(a.args[2]) for a in call.args[1:]]
    assert offsets == ["i * 32 + j_outer * 16"] * 3
    assert [a.args[1] for a in call.args[1:]] == list(func.params)
    assert [a.args[3].value for a in call.args[1:]] == [16, 16, 16]
    assert [a.args[4].value for a in call.args[1:]] == [1, 1, 2]


def test_vadd_plain_builds_and_matches_numpy(vadd_plain):
    A, B, C = _vadd_stage()
    s = te.create_schedule(C.op)
    jo, ji = s[C].split(C.op.axis[1], factor=16)
    s[C].tensorize(ji, vadd_plain(16))
    func = pipeline.lower_primfunc(s, [A, B, C])
    # the j.inner loop is gone; the intrinsic's own loop took its place
    loops = []
    tir.post_order_visit(func.body, lambda n: loops.append(n.loop_var.name)
                         if isinstance(n, tir.For) else None)
    assert "j.inner" not in loops and "vi" in loops
    mod = tepad.build(s, [A, B, C])
    a, b = _rand(8, 32), _rand(8, 32) + 1
    c = np.zeros_like(a)
    mod(a, b, c)
    np.testing.assert_allclose(c, a + b, rtol=1e-6)


def test_tensorize_a_whole_row_of_two_dimensions(vadd_plain):
    A, B, C = _vadd_stage(4, 16)
    s = te.create_schedule(C.op)
    s[C].tensorize(C.op.axis[1], vadd_plain(16))
    mod = tepad.build(s, [A, B, C])
    a, b = _rand(4, 16), _rand(4, 16)
    c = np.zeros_like(a)
    mod(a, b, c)
    np.testing.assert_allclose(c, a + b, rtol=1e-6)


@pytest.mark.parametrize("reset", [True, False])
def test_gemv_reduction_builds_and_matches_numpy(gemv_plain, reset):
    N, L = 32, 64
    A = te.placeholder((N, L), name="A")
    B = te.placeholder((L,), name="B")
    k = te.reduce_axis((0, L), name="k")
    C = te.compute((N,), lambda i: te.sum(A[i, k] * B[k], axis=k), name="C")
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=8)
    ko, ki = s[C].split(k, factor=16)
    s[C].reorder(io, ko, ii, ki)
    s[C].tensorize(ii, gemv_plain(8, 16, reset=reset))
    func = pipeline.lower_primfunc(s, [A, B, C])
    body = func.body.body             # inside io
    if reset:
        # reduce_init in its own nest, then the reduce loop calling reduce_update
        assert isinstance(body, tir.SeqStmt) and len(body) == 2
        assert isinstance(body[1], tir.For) and body[1].loop_var.name == "k.outer"
    else:
        # the body at the first iteration of k.outer, reduce_update at the others
        assert isinstance(body, tir.For) and isinstance(body.body, tir.IfThenElse)
        assert str(body.body.condition) == "k_outer == 0"
    mod = tepad.build(s, [A, B, C])
    a, b = _rand(N, L), _rand(L)
    c = np.zeros(N, "float32")
    mod(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


def test_gemv_extern_reset_update_and_strides(gemv_extern):
    N, L = 32, 64
    A = te.placeholder((N, L), name="A")
    B = te.placeholder((L,), name="B")
    k = te.reduce_axis((0, L), name="k")
    C = te.compute((N,), lambda i: te.sum(A[i, k] * B[k], axis=k), name="C")
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=8)
    ko, ki = s[C].split(k, factor=16)
    s[C].reorder(io, ko, ii, ki)
    s[C].tensorize(ii, gemv_extern(8, 16))
    func = pipeline.lower_primfunc(s, [A, B, C])
    reset = _calls(func.body, "tir.call_extern")
    names = [c.args[0].value for c in reset]
    assert names == ["gemv_reset", "gemv_update"]
    update = reset[1]
    # W's symbolic stride is bound to A's row length; its offset to the tile's corner
    assert str(update.args[4]) == "64"
    assert str(update.args[1].args[2]) == "i_outer * 512 + k_outer * 16"
    assert str(update.args[2].args[2]) == "k_outer * 16"
    assert str(update.args[3].args[2]) == "i_outer * 8"


def test_pointer_into_a_buffer_realized_at_a_loop(vadd_extern):
    # P is computed at Q's outer loop: its buffer holds 4 rows, offsets are relative to them
    A = te.placeholder((64, 64), name="A")
    B = te.placeholder((64, 64), name="B")
    P = te.compute((64, 64), lambda i, j: A[i, j] + B[i, j], name="P")
    Q = te.compute((64, 64), lambda i, j: P[i, j] * 2.0, name="Q")
    s = te.create_schedule(Q.op)
    io, ii = s[Q].split(Q.op.axis[0], factor=4)
    s[P].compute_at(s[Q], io)
    jo, ji = s[P].split(P.op.axis[1], factor=16)
    s[P].tensorize(ji, vadd_extern(16))
    func = pipeline.run_pipeline(pipeline.lower_primfunc(s, [A, B, Q]))
    (call,) = _calls(func.body, "tir.call_extern")
    assert str(call.args[3].args[2]) == "i * 64 + j_outer * 16"
    alloc = func.body.body
    assert isinstance(alloc, tir.Allocate) and call.args[3].args[1] is alloc.buffer_var
    assert str(call.args[1].args[2]) == "i * 64 + i_outer * 256 + j_outer * 16"


def test_interval_and_exact_bounds_agree(vadd_plain):
    A, B, C = _vadd_stage()
    s = te.create_schedule(C.op)
    jo, ji = s[C].split(C.op.axis[1], factor=16)
    s[C].tensorize(ji, vadd_plain(16))
    a = tepad.lower(s, [A, B, C])["main"]
    b = tepad.lower(s, [A, B, C], exact_bounds=True)["main"]
    tir.assert_structural_equal(a, b)


# --- mismatches --------------------------------------------------------------------------------

def _mul_stage():
    A = te.placeholder((8, 16), name="A")
    B = te.placeholder((8, 16), name="B")
    return A, B, te.compute((8, 16), lambda i, j: A[i, j] * B[i, j], name="M")


def test_different_expression_is_refused(vadd_plain):
    A, B, M = _mul_stage()
    s = te.create_schedule(M.op)
    s[M].tensorize(M.op.axis[1], vadd_plain(16))
    with pytest.raises(tepad.TepadError, match=r"stage M: tensorize\(j, vadd\).*does not "
                       r"match.*M computes x\[i\] \* y\[i\].*vadd computes x\[i\] \+ y\[i\]"):
        tepad.lower(s, [A, B, M])


def test_tile_of_another_size_is_refused(vadd_plain):
    A, B, C = _vadd_stage()
    s = te.create_schedule(C.op)
    jo, ji = s[C].split(C.op.axis[1], factor=8)
    s[C].tensorize(ji, vadd_plain(16))
    with pytest.raises(tepad.TepadError, match="axis j takes 8 values in the tile, but the "
                       "intrinsic's axis i has extent 16"):
        tepad.lower(s, [A, B, C])


def test_two_axes_in_the_tile_for_a_one_axis_intrinsic(vadd_plain):
    A, B, C = _vadd_stage(2, 16)
    s = te.create_schedule(C.op)
    s[C].tensorize(C.op.axis[0], vadd_plain(16))
    with pytest.raises(tepad.TepadError, match="axis i takes 2 values in the tile"):
        tepad.lower(s, [A, B, C])


def test_different_reduction_is_refused(gemv_plain):
    A = te.placeholder((8, 16), name="A")
    B = te.placeholder((16,), name="B")
    k = te.reduce_axis((0, 16), name="k")
    C = te.compute((8,), lambda i: te.max(A[i, k] * B[k], axis=k), name="C")
    s = te.create_schedule(C.op)
    s[C].tensorize(C.op.axis[0], gemv_plain(8, 16))
    with pytest.raises(tepad.TepadError, match="C reduces with max, the intrinsic with sum"):
        tepad.lower(s, [A, B, C])


def test_non_dividing_split_is_refused(vadd_plain):
    A, B, C = _vadd_stage(4, 40)
    s = te.create_schedule(C.op)
    jo, ji = s[C].split(C.op.axis[1], factor=16)
    s[C].tensorize(ji, vadd_plain(16))
    with pytest.raises(tepad.TepadError, match="not whole everywhere"):
        tepad.lower(s, [A, B, C])


def test_stage_attached_inside_the_tile_is_refused(vadd_plain):
    A, B, C = _vadd_stage(4, 16)
    P = te.compute((4, 16), lambda i, j: A[i, j] * 2.0, name="P")
    D = te.compute((4, 16), lambda i, j: P[i, j] + B[i, j], name="D")
    s = te.create_schedule(D.op)
    s[P].compute_at(s[D], D.op.axis[1])
    s[D].tensorize(D.op.axis[1], vadd_plain(16))
    with pytest.raises(tepad.TepadError, match="P is computed at D.j, inside the loops "
                       "tensorized at j"):
        tepad.lower(s, [A, B, D])


def test_buffer_without_offset_factor_cannot_bind_at_an_offset(vadd_extern):
    A, B, C = _vadd_stage(4, 16)
    s = te.create_schedule(C.op)
    s[C].tensorize(C.op.axis[1], vadd_extern(16, offset_factor=0))
    with pytest.raises(tepad.TepadError, match="starts at element i \\* 16 of A but x has "
                       "elem_offset 0; declare it with offset_factor"):
        tepad.lower(s, [A, B, C])


def test_non_contiguous_region_needs_strides():
    x = te.placeholder((4, 4), name="x")
    y = te.placeholder((4, 4), name="y")
    z = te.compute((4, 4), lambda i, j: x[i, j] + y[i, j], name="z")
    intrin = te.decl_tensor_intrin(
        z.op, lambda ins, outs: tir.call_extern("float32", "add4x4", ins[0].access_ptr("r")),
        default_buffer_params={"offset_factor": 1})
    A = te.placeholder((8, 8), name="A")
    B = te.placeholder((8, 8), name="B")
    C = te.compute((8, 8), lambda i, j: A[i, j] + B[i, j], name="C")
    s = te.create_schedule(C.op)
    io, jo, ii, ji = s[C].tile(C.op.axis[0], C.op.axis[1], 4, 4)
    s[C].tensorize(ii, intrin)
    with pytest.raises(tepad.TepadError, match="not contiguous.*symbolic strides"):
        tepad.lower(s, [A, B, C])


def _rolling_chain():
    A = te.placeholder((12, 8), name="A")
    B = te.compute((10, 8), lambda i, j: A[i, j] + A[i + 1, j] + A[i + 2, j], name="B")
    C = te.compute((8, 8), lambda i, j: B[i, j] + B[i + 1, j] + B[i + 2, j], name="C")
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], io)
    s[B].rolling_buffer()
    return A, B, C, s


def test_pointer_into_a_rolling_buffer_is_refused(vadd_extern):
    A, B, C, s = _rolling_chain()
    s[C].tensorize(C.op.axis[1], _three_row_sum(vadd_extern))
    with pytest.raises(tepad.TepadError, match="a pointer into B, a rolling buffer"):
        tepad.lower(s, [A, C])


def _three_row_sum(_):
    x = te.placeholder((3, 8), name="x")
    z = te.compute((8,), lambda j: x[0, j] + x[1, j] + x[2, j], name="z")
    return te.decl_tensor_intrin(
        z.op, lambda ins, outs: tir.call_extern("int32", "rows3", ins[0].access_ptr("r"),
                                                outs[0].access_ptr("w")),
        default_buffer_params={"offset_factor": 1},
        binds={x: tir.decl_buffer((3, 8), name="X", offset_factor=1,
                                  strides=[te.var("ldx"), 1])})


def test_rolling_buffer_read_elementwise_builds():
    x = te.placeholder((3, 8), name="x")
    z = te.compute((8,), lambda j: x[0, j] + x[1, j] + x[2, j], name="z")

    def body(ins, outs):
        u = te.var("u")
        xx = ins[0]
        return tir.For(u, 0, 8, tir.ForKind.SERIAL, outs[0].vstore(
            [u], xx.vload([0, u]) + xx.vload([1, u]) + xx.vload([2, u])))
    rows3 = te.decl_tensor_intrin(z.op, body, default_buffer_params={"offset_factor": 1})
    A, B, C, s = _rolling_chain()
    s[C].tensorize(C.op.axis[1], rows3)
    mod = tepad.build(s, [A, C])
    a = _rand(12, 8)
    c = np.zeros((8, 8), "float32")
    mod(a, c)
    b = a[:-2] + a[1:-1] + a[2:]
    np.testing.assert_allclose(c, b[:-2] + b[1:-1] + b[2:], rtol=1e-5)
