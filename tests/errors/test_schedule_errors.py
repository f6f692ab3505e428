"""Every user mistake named in API.md raises a TepadError that names what is wrong."""
import numpy as np
import pytest

import tepad
from tepad import TepadError, te


def two_stage():
    A = te.placeholder((16, 16), name="A")
    B = te.compute((16, 16), lambda i, j: A[i, j] + 1.0, name="B")
    C = te.compute((16, 16), lambda i, j: B[i, j] * 2.0, name="C")
    return A, B, C


def test_compute_at_axis_not_a_leaf_of_target():
    A, B, C = two_stage()
    s = te.create_schedule(C.op)
    s[C].split(C.op.axis[0], factor=4)
    with pytest.raises(TepadError, match=r"stage C: compute_at\(B\) on i, which is no longer "
                                         r"a leaf.*i\.outer, i\.inner, j"):
        s[B].compute_at(s[C], C.op.axis[0])


def test_compute_at_axis_of_other_stage():
    A, B, C = two_stage()
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match="not an axis of this stage"):
        s[B].compute_at(s[C], B.op.axis[0])


def test_compute_at_cycle():
    A, B, C = two_stage()
    D = te.compute((16, 16), lambda i, j: C[i, j] + B[i, j], name="D")
    s = te.create_schedule(D.op)
    s[B].compute_at(s[C], C.op.axis[0])
    s[C].compute_at(s[B], B.op.axis[1])
    with pytest.raises(TepadError, match="compute_at cycle"):
        tepad.lower(s, [A, D])


def test_reorder_axes_of_another_stage():
    A, B, C = two_stage()
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match="stage C: reorder on i, which is not an axis of this "
                                         "stage"):
        s[C].reorder(B.op.axis[0], C.op.axis[1])


def test_split_axis_twice():
    A, B, C = two_stage()
    s = te.create_schedule(C.op)
    s[C].split(C.op.axis[0], factor=4)
    with pytest.raises(TepadError, match="already split or fused"):
        s[C].split(C.op.axis[0], factor=2)


def test_split_bad_factor():
    A, B, C = two_stage()
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match="positive"):
        s[C].split(C.op.axis[0], factor=0)
    with pytest.raises(TepadError, match="exactly one of"):
        s[C].split(C.op.axis[0])


def test_fuse_non_adjacent():
    A = te.placeholder((4, 4, 4), name="A")
    B = te.compute((4, 4, 4), lambda i, j, k: A[i, j, k], name="B")
    s = te.create_schedule(B.op)
    with pytest.raises(TepadError, match="adjacent"):
        s[B].fuse(B.op.axis[0], B.op.axis[2])


def test_inline_output_and_reduction():
    A = te.placeholder((4, 4), name="A")
    k = te.reduce_axis((0, 4), name="k")
    R = te.compute((4,), lambda i: te.sum(A[i, k], axis=k), name="R")
    O = te.compute((4,), lambda i: R[i] + 1.0, name="O")
    s = te.create_schedule(O.op)
    with pytest.raises(TepadError, match="output"):
        s[O].compute_inline()
    s[R].compute_inline()               # as TVM: refused when lowered (compute_at may override)
    with pytest.raises(TepadError, match="reduction"):
        tepad.lower(s, [A, O])


def test_schedule_primitive_on_placeholder():
    A, B, C = two_stage()
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match="needs a compute stage"):
        s[A].compute_at(s[C], C.op.axis[0])


def test_compute_at_outside_consumer_loop_nest():
    A = te.placeholder((16,), name="A")
    B = te.compute((16,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((16,), lambda i: B[i] * 2.0, name="C")
    D = te.compute((16,), lambda i: B[i] + C[i], name="D")
    s = te.create_schedule(D.op)
    s[B].compute_at(s[C], C.op.axis[0])   # but D reads B too, outside C's loop
    with pytest.raises(TepadError, match="consumer D is not inside that loop"):
        tepad.lower(s, [A, D])


def test_missing_placeholder_and_output_in_args():
    A, B, C = two_stage()
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match="placeholder A is read but not in the argument list"):
        tepad.lower(s, [C])
    with pytest.raises(TepadError, match="output C"):
        tepad.build(s, [A])


def test_integer_true_division_is_rejected():
    i = te.var("i")
    with pytest.raises(TepadError, match="ambiguous"):
        i / 2


def test_compute_arity_mismatch():
    with pytest.raises(TepadError, match="takes 1 index arguments but the shape has 2"):
        te.compute((4, 4), lambda i: i, name="bad")


def test_tensor_wrong_number_of_indices():
    A = te.placeholder((4, 4), name="A")
    with pytest.raises(TepadError, match="tensor A has 2 dimensions"):
        A[1, 2, 3]


def test_thread_binding_is_refused_on_cpu():
    A, B, C = two_stage()
    s = te.create_schedule(C.op)
    s[C].bind(C.op.axis[0], te.thread_axis("blockIdx.x"))
    with pytest.raises(TepadError, match="GPU"):
        tepad.build(s, [A, C])
    lowered = tepad.lower(s, [A, C])
    with pytest.raises(TepadError, match="stage C: a loop is bound to blockIdx.x"):
        tepad.build(lowered)


def test_module_argument_errors_name_the_argument():
    A, B, C = two_stage()
    s = te.create_schedule(C.op)
    mod = tepad.build(s, [A, C])
    a = np.zeros((16, 16), "float32")
    c = np.zeros((16, 16), "float32")
    with pytest.raises(TypeError):
        mod(a)
    with pytest.raises(TypeError, match="C"):
        mod(a, c.astype("float64"))
    with pytest.raises(ValueError, match="C"):
        mod(a, np.zeros((16, 15), "float32"))
    with pytest.raises(ValueError, match="A"):
        mod(np.zeros((16, 32), "float32")[:, ::2], c)
    ro = np.zeros((16, 16), "float32")
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="C"):
        mod(a, ro)
