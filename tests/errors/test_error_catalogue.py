"""One test per entry of docs/errors.md: the user mistake, and the TepadError it raises.

The entry ids (E-SCH-01, ...) are the ones in docs/errors.md; each test says which it covers.
Entries of the layout / rolling-buffer / exact-bounds features are tested by their owners'
suites and referenced from the catalogue.
"""
import os

import numpy as np
import pytest

import tepad
from tepad import TepadError, te, tir
from tepad.arith.index_map import IndexMap


def chain():
    A = te.placeholder((16, 16), name="A")
    B = te.compute((16, 16), lambda i, j: A[i, j] + 1.0, name="B")
    C = te.compute((16, 16), lambda i, j: B[i, j] * 2.0, name="C")
    return A, B, C


def red():
    A = te.placeholder((8, 8), name="A")
    k = te.reduce_axis((0, 8), name="k")
    R = te.compute((8,), lambda i: te.sum(A[i, k], axis=k), name="R")
    O = te.compute((8,), lambda i: R[i] + 1.0, name="O")
    return A, R, O, k


# ------------------------------------------------------------------ schedule primitives (E-SCH)

def test_E_SCH_01_primitive_on_placeholder():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match="stage A: split needs a compute stage, but A is a "
                                         "PlaceholderOp"):
        s[A].split(A.op.output(0).shape[0], factor=2)


def test_E_SCH_02_not_an_itervar():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match="stage C: split expects IterVars, got 3"):
        s[C].split(3, factor=2)


def test_E_SCH_03_axis_no_longer_a_leaf():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    s[C].split(C.op.axis[0], factor=4)
    with pytest.raises(TepadError, match=r"stage C: fuse on i, which is no longer a leaf .*"
                                         r"\[i.outer, i.inner, j\]"):
        s[C].fuse(C.op.axis[0], C.op.axis[1])


def test_E_SCH_04_axis_of_another_stage():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match="stage C: vectorize on j, which is not an axis of this "
                                         r"stage \(it belongs to another stage\)"):
        s[C].vectorize(B.op.axis[1])


def test_E_SCH_05_split_needs_one_of_factor_nparts():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match=r"split\(i\) needs exactly one of factor= or nparts="):
        s[C].split(C.op.axis[0], factor=2, nparts=2)


def test_E_SCH_06_split_factor_positive():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match=r"split\(j\) factor/nparts must be positive, got -1"):
        s[C].split(C.op.axis[1], nparts=-1)


def test_E_SCH_07_split_of_unsplittable_axis():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    single = s[C].fuse()          # a unit loop: type is DataPar, splittable; use a thread axis
    assert single is not None
    tx = te.thread_axis("threadIdx.x")
    s[C].leaf_iter_vars.append(tx)    # a thread IterVar in the leaves (not reachable via API)
    with pytest.raises(TepadError, match="cannot split threadIdx.x of type ThreadIndex"):
        s[C].split(tx, factor=2)


def test_E_SCH_08_fuse_non_adjacent():
    A = te.placeholder((4, 4, 4), name="A")
    B = te.compute((4, 4, 4), lambda i, j, k: A[i, j, k], name="B")
    s = te.create_schedule(B.op)
    with pytest.raises(TepadError, match=r"can only fuse adjacent leaf axes; i and k are not "
                                         r"neighbours in \[i, j, k\]"):
        s[B].fuse(B.op.axis[0], B.op.axis[2])


def test_E_SCH_09_fuse_of_unfusable_axis():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    tx = te.thread_axis("threadIdx.x")
    s[C].leaf_iter_vars.append(tx)
    with pytest.raises(TepadError, match="cannot fuse threadIdx.x of type ThreadIndex"):
        s[C].fuse(C.op.axis[1], tx)


def test_E_SCH_10_reorder_same_axis_twice():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    with pytest.raises(TepadError, match=r"reorder got the same axis twice: \['j', 'j'\]"):
        s[C].reorder(j, j)


def test_E_SCH_11_compute_at_expects_stage():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match="stage B: compute_at expects a Stage, got 'C'"):
        s[B].compute_at("C", C.op.axis[0])


def test_E_SCH_12_compute_at_of_output():
    A, B, C = chain()
    D = te.compute((16, 16), lambda i, j: C[i, j], name="D")
    s = te.create_schedule([C.op, D.op])
    s[C].compute_at(s[D], D.op.axis[0])     # accepted, as TVM does; lowering refuses it
    with pytest.raises(TepadError, match="stage C is an output; outputs are computed at the root"):
        tepad.lower(s, [A, C, D])


def test_E_SCH_13_compute_at_itself():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    s[B].compute_at(s[B], B.op.axis[0])
    with pytest.raises(TepadError, match="stage B: cannot compute_at itself"):
        tepad.lower(s, [A, C])


def test_E_SCH_14_compute_at_cycle():
    A, B, C = chain()
    D = te.compute((16, 16), lambda i, j: C[i, j] + B[i, j], name="D")
    s = te.create_schedule(D.op)
    s[B].compute_at(s[C], C.op.axis[0])
    s[C].compute_at(s[B], B.op.axis[1])
    with pytest.raises(TepadError, match="compute_at cycle: B is computed at C$"):
        tepad.lower(s, [A, D])


def test_E_SCH_14b_compute_at_transitive_cycle():
    A, B, C = chain()
    D = te.compute((16, 16), lambda i, j: C[i, j] + 1.0, name="D")
    E = te.compute((16, 16), lambda i, j: D[i, j] + B[i, j], name="E")
    s = te.create_schedule(E.op)
    s[B].compute_at(s[C], C.op.axis[0])
    s[C].compute_at(s[D], D.op.axis[0])
    s[D].compute_at(s[E], E.op.axis[0])     # D itself attached: the walk from B reaches it
    s[D].compute_at(s[B], B.op.axis[1])
    with pytest.raises(TepadError, match=r"compute_at cycle: B is \(transitively\) computed at "
                                         "D, so D cannot be computed at B"):
        tepad.lower(s, [A, E])


def test_E_SCH_15_inline_output():
    A, R, O, k = red()
    s = te.create_schedule(O.op)
    with pytest.raises(TepadError, match="stage O is an output and cannot be inlined"):
        s[O].compute_inline()


def test_E_SCH_16_inline_reduction():
    A, R, O, k = red()
    s = te.create_schedule(O.op)
    s[R].compute_inline()                # accepted, refused when lowered (as in TVM)
    with pytest.raises(TepadError, match="stage R is a reduction and cannot be inlined; use "
                                         "compute_at instead"):
        tepad.lower(s, [A, O])


def test_E_SCH_17_vectorize_or_parallel_reduction_axis():
    A, R, O, k = red()
    s = te.create_schedule(O.op)
    with pytest.raises(TepadError, match="stage R: cannot vectorize reduction axis k"):
        s[R].vectorize(k)
    s[R].parallel(k)     # as in TVM, lower shows it; building it is refused (a data race)
    assert "T.parallel" in str(tepad.lower(s, [A, O]))
    with pytest.raises(TepadError, match="parallel loop k updates R.* race"):
        tepad.build(s, [A, O], "llvm")


def test_E_SCH_18_bind_needs_thread_axis():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match=r"stage C: bind\(i, ...\) needs a te.thread_axis"):
        s[C].bind(C.op.axis[0], B.op.axis[0])


def test_E_SCH_19_unknown_scope():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match="stage B: unknown storage scope 'texture'"):
        s[B].set_scope("texture")


def test_E_SCH_20_split_factor_not_an_integer():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match=r"stage C: split\(i\) factor=2.5 is not an integer; "
                                         "factor must be a positive integer"):
        s[C].split(C.op.axis[0], factor=2.5)
    with pytest.raises(TepadError, match=r"stage C: split\(j\) nparts=True is a bool; nparts "
                                         "must be a positive integer"):
        s[C].split(C.op.axis[1], nparts=True)
    with pytest.raises(TepadError, match=r"stage C: split\(j\) factor=.* has dtype float32"):
        s[C].split(C.op.axis[1], factor=tir.const(4.0, "float32"))
    with pytest.raises(TepadError, match=r"stage C: split\(i\) factor=2.0 is not an integer"):
        s[C].tile(C.op.axis[0], C.op.axis[1], 2.0, 4)
    assert [iv.name for iv in s[C].leaf_iter_vars] == ["i", "j"]     # nothing was split
    xo, xi = s[C].split(C.op.axis[0], factor=np.int64(4))            # numpy ints are integers
    assert [iv.name for iv in s[C].leaf_iter_vars] == ["i.outer", "i.inner", "j"]


def test_E_SCH_22_transform_layout_arity():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match=r"stage B: transform_layout of tensor B \(shape "
                                         r"\(16, 16\)\): the layout mapping takes 1 index but "
                                         r"B has 2 dimensions; .* lambda i, j: \[\.\.\.\]"):
        s[B].transform_layout(lambda i: [i // 4, i % 4])
    with pytest.raises(TepadError, match=r"stage A: transform_layout of tensor A .* takes 3 "
                                         r"indices but A has 2 dimensions"):
        s[A].transform_layout(lambda i, j, k: [i, j, k])
    with pytest.raises(TepadError, match="stage C: transform_layout of tensor C .* takes 1 "
                                         "index but C has 2 dimensions"):
        s[C].transform_layout(IndexMap.from_func(lambda i: [i])[0])


# ------------------------------------------------------------------ schedule & dataflow (E-SDF)

def test_E_SDF_01_create_schedule_of_non_tensor():
    with pytest.raises(TepadError, match="create_schedule expects tensors or operations, got 3"):
        te.create_schedule([3])


def test_E_SDF_02_tensor_not_in_schedule():
    A, B, C = chain()
    X = te.compute((2,), lambda i: i, name="X")
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match=r"X is not part of this schedule; its stages are "
                                         r"\['A', 'B', 'C'\]"):
        s[X]


def test_E_SDF_03_cache_read_of_non_tensor():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match="cache_read expects a Tensor"):
        s.cache_read("A", "shared", [B])


def test_E_SDF_04_cache_read_without_readers():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match=r"cache_read\(A\): readers must name at least one "
                                         "consumer"):
        s.cache_read(A, "shared", [])


def test_E_SDF_05_cache_read_reader_does_not_read():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match=r"cache_read\(A\): C does not read A; readers must be "
                                         "consumers of it"):
        s.cache_read(A, "shared", [C])


def test_E_SDF_06_cache_write_of_placeholder():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match=r"cache_write\(A\): A is not a compute stage"):
        s.cache_write(A, "local")


def test_E_SDF_07_cache_write_after_reduce_split():
    A, R, O, k = red()
    s = te.create_schedule(O.op)
    s[R].split(k, factor=4)
    with pytest.raises(TepadError, match=r"cache_write\(R\): loop k.outer of stage R derives "
                                         "from a reduce axis"):
        s.cache_write(R, "local")


def test_E_SDF_08_cache_write_of_one_output_of_several():
    A = te.placeholder((4,), name="A")
    P, Q = te.compute((4,), lambda i: [A[i] + 1.0, A[i] * 2.0], name="PQ")
    s = te.create_schedule([P.op])
    with pytest.raises(TepadError, match=r"cache_write\(PQ.v0\): PQ has 2 outputs, which are "
                                         r"cached together; pass all of them"):
        s.cache_write(P, "local")


def test_E_SDF_09_multi_output_inline():
    A = te.placeholder((4,), name="A")
    P, Q = te.compute((4,), lambda i: [A[i] + 1.0, A[i] * 2.0], name="PQ")
    O = te.compute((4,), lambda i: P[i] + Q[i], name="O")
    s = te.create_schedule(O.op)
    s[P].compute_inline()                # accepted, refused when lowered (as in TVM)
    with pytest.raises(TepadError, match="stage PQ has several outputs and cannot be inlined"):
        tepad.lower(s, [A, O])

def test_E_SDF_10_cache_write_of_outputs_of_two_computes():
    A = te.placeholder((4,), name="A")
    P, Q = te.compute((4,), lambda i: [A[i] + 1.0, A[i] * 2.0], name="PQ")
    O = te.compute((4,), lambda i: A[i] * 3.0, name="O")
    s = te.create_schedule([P.op, O.op])
    with pytest.raises(TepadError, match="cache_write: PQ.v0 and O are outputs of different "
                                         "computes"):
        s.cache_write([P, O], "local")


def test_E_SDF_11_rfactor_after_transform_layout():
    A, R, O, k = red()
    s = te.create_schedule(O.op)
    s[R].transform_layout(lambda i: [i // 4, i % 4])
    with pytest.raises(TepadError, match=r"rfactor\(R, k\): rfactor must come before "
                                         "transform_layout on stage R"):
        s.rfactor(R, k)


def test_E_SDF_12_rfactor_of_data_axis():
    A, R, O, k = red()
    s = te.create_schedule(O.op)
    with pytest.raises(TepadError, match=r"rfactor\(R, i\): i is not a reduction loop of R"):
        s.rfactor(R, R.op.axis[0])


def test_E_SDF_13_rfactor_of_non_leaf():
    A, R, O, k = red()
    s = te.create_schedule(O.op)
    s[R].split(k, factor=4)
    with pytest.raises(TepadError, match=r"rfactor\(R, k\): the axis must be a leaf loop of stage "
                                         r"R; its leaf loops are \['i', 'k.outer', 'k.inner'\]"):
        s.rfactor(R, k)


def test_E_SDF_14_rfactor_of_non_reduction():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match=r"rfactor\(C, i\): C is not a reduction"):
        s.rfactor(C, C.op.axis[0])


def test_E_SDF_15_rfactor_of_loop_fused_with_data_axis():
    A, R, O, k = red()
    s = te.create_schedule(O.op)
    f = s[R].fuse(R.op.axis[0], k)
    with pytest.raises(TepadError, match="rfactor\\(R, i.k.fused\\): i.k.fused was fused with the "
                                         "data axis i"):
        s.rfactor(R, f)


def test_E_SDF_16_rfactor_factor_axis_out_of_range():
    A, R, O, k = red()
    s = te.create_schedule(O.op)
    with pytest.raises(TepadError, match=r"factor_axis=2 is out of range; the factored tensor has 2 "
                                         r"axes \(valid: -2 .. 1\)"):
        s.rfactor(R, k, 2)


def test_E_SDF_17_rfactor_with_producer_at_replaced_loop():
    A = te.placeholder((8, 8), name="A")
    P = te.compute((8, 8), lambda i, j: A[i, j] * 2.0, name="P")
    k = te.reduce_axis((0, 8), name="k")
    R = te.compute((8,), lambda i: te.sum(P[i, k], axis=k), name="R")
    s = te.create_schedule(R.op)
    io, ii = s[R].split(R.op.axis[0], factor=2)
    s[P].compute_at(s[R], io)
    with pytest.raises(TepadError, match=r"stage P is computed at loop i.outer of R, which rfactor "
                                         "replaces; call compute_at after rfactor"):
        s.rfactor(R, k)


# ------------------------------------------------------------------ definitions (E-TE)

def test_E_TE_01_shape_entry_not_integer():
    with pytest.raises(TepadError, match=r"shape entry 0 must be an integer, got 2.5"):
        te.placeholder((2.5, 3), name="A")


def test_E_TE_02_negative_shape():
    with pytest.raises(TepadError, match=r"shape entry 1 is negative \(-3\)"):
        te.placeholder((2, -3), name="A")


def test_E_TE_03_fcompute_not_callable():
    with pytest.raises(TepadError, match="compute X: fcompute must be callable"):
        te.compute((4,), 3, name="X")


def test_E_TE_04_fcompute_returns_empty_list():
    with pytest.raises(TepadError, match="compute X: fcompute returned an empty list"):
        te.compute((4,), lambda i: [], name="X")


def test_E_TE_05_mixed_reduction_outputs():
    A = te.placeholder((4, 4), name="A")
    k = te.reduce_axis((0, 4), name="k")
    with pytest.raises(TepadError, match="compute X: either all outputs are reductions or none"):
        te.compute((4,), lambda i: [te.sum(A[i, k], axis=k), A[i, 0]], name="X")


def test_E_TE_06_unrelated_reductions_in_one_compute():
    A = te.placeholder((4, 4), name="A")
    k = te.reduce_axis((0, 4), name="k")
    with pytest.raises(TepadError, match="compute X: the outputs of a compute may be reductions "
                                         "only when they are the values of one tuple reduction"):
        te.compute((4,), lambda i: [te.sum(A[i, k], axis=k), te.max(A[i, k], axis=k)],
                   name="X")


def test_E_TE_07_arity_mismatch():
    with pytest.raises(TepadError, match="compute bad: fcompute takes 1 index arguments but the "
                                         "shape has 2 dimensions"):
        te.compute((4, 4), lambda i: i, name="bad")


def test_E_TE_08_reduce_axis_bad_domain():
    with pytest.raises(TepadError, match=r"reduce_axis k: expected \(lo, hi\), got \(0, 1, 2\)"):
        te.reduce_axis((0, 1, 2), name="k")


def test_E_TE_09_reducer_needs_axis():
    A = te.placeholder((4,), name="A")
    with pytest.raises(TepadError, match=r"sum needs reduction axes: sum\(expr, axis=k\)"):
        te.sum(A[0])
    with pytest.raises(TepadError, match=r"sum: call as sum\(expr, axis\)"):
        te.sum(A[0], None, None, None, 3)


def test_E_TE_10_reducer_axis_not_reduce_axis():
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i], name="B")
    with pytest.raises(TepadError, match="sum: axis .* is not a reduce_axis"):
        te.sum(A[0], axis=B.op.axis[0])


def test_E_TE_11_nested_reduction():
    A = te.placeholder((4, 4), name="A")
    k = te.reduce_axis((0, 4), name="k")
    r = te.reduce_axis((0, 4), name="r")
    with pytest.raises(TepadError, match="a reduction may only appear at the top of a compute "
                                         "body"):
        te.compute((4,), lambda i: te.sum(A[i, k], axis=k) + 1.0, name="X")
    del r


def test_E_TE_12_tensor_wrong_number_of_indices():
    A = te.placeholder((4, 4), name="A")
    with pytest.raises(TepadError, match="tensor A has 2 dimensions, indexed with 3"):
        A[1, 2, 3]


def test_E_TE_13_tensor_float_index():
    A = te.placeholder((4, 4), name="A")
    with pytest.raises(TepadError, match="index 1 of tensor A must be an integer expression"):
        A[0, tir.const(1.0, "float32")]


def test_E_TE_14_reduce_axis_outside_a_reduction():
    A = te.placeholder((8, 8), name="A")
    k = te.reduce_axis((0, 8), name="k")
    with pytest.raises(TepadError, match="compute B: reduce axis k is used outside a "
                                         "reduction; a reduce_axis must be reduced"):
        te.compute((8,), lambda i: A[i, k] * 2.0, name="B")


def test_E_TE_15_reduce_axis_not_reduced_by_its_reduction():
    A = te.placeholder((8, 8), name="A")
    k = te.reduce_axis((0, 8), name="k")
    k2 = te.reduce_axis((0, 8), name="k2")
    with pytest.raises(TepadError, match=r"compute B: reduce axis k is used inside "
                                         r"sum\(\.\.\., axis=\[k2\]\) but not reduced by it; "
                                         r".* sum\(\.\.\., axis=\[k2, k\]\)"):
        te.compute((8,), lambda i: te.sum(A[i, k] * A[i, k2], axis=[k2]), name="B")
    with pytest.raises(TepadError, match=r"compute B: reduce axis k2 is used inside "
                                         r"max\(\.\.\., axis=\[k\]\) .* axis=\[k, k2\]"):
        te.compute((8,), lambda i: te.max(A[k, k2], axis=k), name="B")


def test_E_TE_16_partially_indexed_tensor_used_as_a_value():
    A = te.placeholder((4, 4), name="A")
    with pytest.raises(TepadError, match=r"tensor A has 2 dimensions but A\[i\] gives 1 index, "
                                         r"so it is not a value .* A\[i, \.\.\.\]"):
        te.compute((4, 4), lambda i, j: A[i] + 1.0, name="B")
    with pytest.raises(TepadError, match=r"tensor A has 2 dimensions but A\[i\] gives 1 index"):
        te.compute((4,), lambda i: A[i], name="B")
    with pytest.raises(TepadError, match=r"tensor A has 2 dimensions but A\[0\] gives 1 index"):
        A[0] == 0.0                                                 # noqa: B015
    B = te.compute((4, 4), lambda i, j: A[i][j] + 1.0, name="B")     # TVM's chained indexing
    assert tepad.testing.reference(B, {A: np.ones((4, 4), "float32")})[0, 0] == 2.0


# ------------------------------------------------------------------ expressions (E-EXPR)

def test_E_EXPR_01_bool_of_symbolic_expression():
    i = te.var("i")
    with pytest.raises(TepadError, match="as a Python bool; use tir.all / tir.any / "
                                         "te.if_then_else"):
        if i < 3:
            pass


def test_E_EXPR_02_integer_true_division():
    i = te.var("i")
    with pytest.raises(TepadError, match=r"`/` on integer expressions .* is ambiguous: use // "):
        i / 2


def test_E_EXPR_03_division_and_modulo_by_zero():
    i = te.var("i")
    with pytest.raises(TepadError, match="division by zero in i // 0"):
        i // 0
    with pytest.raises(TepadError, match="modulo by zero in i % 0"):
        i % 0


def test_E_EXPR_04_mixed_dtypes():
    a = te.var("a", "int32")
    b = te.var("b", "int64")
    with pytest.raises(TepadError, match="Add operands have different dtypes: int32 vs int64"):
        tir.Add(a, b)


def test_E_EXPR_05_constant_out_of_range():
    with pytest.raises(TepadError, match="constant 300 does not fit in int8"):
        tir.const(300, "int8")


def test_E_EXPR_06_wrong_immediate_dtypes():
    with pytest.raises(TepadError, match="IntImm needs an integer dtype, got 'float32'"):
        tir.IntImm(1, "float32")
    with pytest.raises(TepadError, match="FloatImm needs a float dtype, got 'int32'"):
        tir.FloatImm(1.0, "int32")


def test_E_EXPR_07_unknown_dtype():
    with pytest.raises(TepadError, match="unknown dtype 'float7'"):
        te.placeholder((2,), "float7", name="A")


def test_E_EXPR_08_non_bool_conditions():
    i = te.var("i")
    with pytest.raises(TepadError, match="if_then_else condition must be bool"):
        te.if_then_else(i, 1, 2)
    with pytest.raises(TepadError, match="Select condition must be bool, got int32"):
        tir.Select(i, i, i)
    with pytest.raises(TepadError, match="Not needs a bool operand"):
        tir.Not(i)
    with pytest.raises(TepadError, match="And needs bool operands"):
        tir.And(i, i < 2)
    with pytest.raises(TepadError, match="tir.assume needs a bool condition"):
        tir.assume(i)
    with pytest.raises(TepadError, match="expected a boolean condition"):
        tir.all(i, i < 2)


def test_E_EXPR_09_select_branch_dtypes():
    i = te.var("i")
    with pytest.raises(TepadError, match="Select branches differ in dtype: int32 vs float32"):
        tir.Select(i < 2, i, tir.const(1.0, "float32"))


def test_E_EXPR_10_binary_min_max_need_two_expressions():
    i = te.var("i")
    with pytest.raises(TepadError, match=r"tir.min needs two expressions \(use te.min for "
                                         r"reductions\)"):
        tir.min(i)
    with pytest.raises(TepadError, match="tir.max needs two expressions"):
        tir.max(i)


def test_E_EXPR_11_vector_lanes_differ():
    a = tir.Ramp(tir.const(0), tir.const(1), 4)
    b = tir.Ramp(tir.const(0), tir.const(1), 8)
    with pytest.raises(TepadError, match="vector lanes differ: int32x4 vs int32x8"):
        a + b


def test_E_EXPR_12_for_body_must_be_stmt():
    i = te.var("i")
    with pytest.raises(TepadError, match="For body must be a Stmt, got Var"):
        tir.For(i, 0, 4, body=i)


def test_E_EXPR_13_buffer_axis_separators():
    with pytest.raises(TepadError, match=r"buffer B: axis separators \[3\] must be increasing "
                                         "positions between 0 and 2"):
        tir.decl_buffer((4, 4), "float32", "B", axis_separators=[3])


def test_E_EXPR_14_buffer_wrong_number_of_indices():
    B = tir.decl_buffer((4, 4), "float32", "B")
    with pytest.raises(TepadError, match="buffer B has 2 dimensions, indexed with 1 indices"):
        B.flatten_indices([0])


# ------------------------------------------------------------------ lower / build (E-LOW)

def test_E_LOW_01_output_missing_from_args():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    lowered = tepad.lower(s, [A])          # TVM's lower accepts it: C lives in scratch memory
    with pytest.raises(TepadError, match="output C of the schedule is not in the argument list, "
                                         "so the kernel main would compute it into scratch "
                                         "memory and lose it"):
        tepad.build(s, [A])
    with pytest.raises(TepadError, match="output C of the schedule is not in the argument list"):
        tepad.build(lowered)


def test_E_LOW_02_placeholder_missing_from_args():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match="placeholder A is read but not in the argument list"):
        tepad.lower(s, [C])


def test_E_LOW_03_argument_twice():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match="tensor A appears twice in the argument list"):
        tepad.lower(s, [A, A, C])


def test_E_LOW_04_consumer_outside_attach_loop():
    A = te.placeholder((16,), name="A")
    B = te.compute((16,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((16,), lambda i: B[i] * 2.0, name="C")
    D = te.compute((16,), lambda i: B[i] + C[i], name="D")
    s = te.create_schedule(D.op)
    s[B].compute_at(s[C], C.op.axis[0])
    with pytest.raises(TepadError, match="stage B is computed at C.i, but its consumer D is not "
                                         "inside that loop"):
        tepad.lower(s, [A, D])


def test_E_LOW_05_thread_binding_on_cpu():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    s[C].bind(C.op.axis[0], te.thread_axis("blockIdx.x"))
    tepad.lower(s, [A, C])                 # lowering a bound schedule is fine (TVM prints it)
    with pytest.raises(TepadError, match="stage C: axis i is bound to blockIdx.x; the 'llvm' "
                                         "target builds CPU loops and cannot launch GPU threads"):
        tepad.build(s, [A, C])


def test_E_LOW_06_unknown_target():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match="target 'vulkan': tepad builds for 'llvm'"):
        tepad.build(s, [A, C], target="vulkan")
    with pytest.raises(TepadError, match="no GPU launch: no loop is bound"):
        tepad.build(s, [A, C], target="cuda")


def test_E_LOW_07_symbolic_size_bound_by_no_argument():
    n = te.var("n")
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + n.astype("float32"), name="B")
    s = te.create_schedule(B.op)
    with pytest.raises(TepadError, match="variables n are used in the body but bound by no "
                                         "argument buffer's shape"):
        tepad.build(s, [A, B])


def test_E_LOW_08_scalar_argument_dtype():
    A, B, C = chain()
    h = tir.Var("h", "handle")
    with pytest.raises(TepadError, match="scalar argument h must have an integer or float "
                                         "dtype, got handle"):
        tepad.build(te.create_schedule(C.op), [A, C, h])


def test_E_LOW_09_bad_thread_count(monkeypatch):
    A, B, C = chain()
    s = te.create_schedule(C.op)
    monkeypatch.setenv("TEPAD_NUM_THREADS", "many")
    with pytest.raises(TepadError, match="TEPAD_NUM_THREADS must be a positive integer, got "
                                         "'many'"):
        tepad.build(s, [A, C])


# ------------------------------------------------------------------ run time (E-RUN)

def test_E_RUN_01_kernel_error_status_bounds_check():
    n = te.var("n")
    A = tir.decl_buffer((n,), "float32", "A")
    pa = tir.Var("A", "handle")
    i = tir.Var("i")
    body = tir.For(i, 0, n, body=tir.BufferStore(A, A[i + 1], [i]))
    f = tir.PrimFunc([pa], body, {pa: A}, {"global_symbol": "main"})
    mod = tepad.build(f, bounds_check=True)
    with pytest.raises(TepadError, match=r"bounds check failed: load of buffer A at index i \+ 1 "
                                         r"outside \[0, n\)"):
        mod(np.zeros(4, "float32"))


def test_E_LOW_10_index_check_option():
    from tepad.lower.pass_context import PassContext
    A, B, C = chain()
    s = te.create_schedule(C.op)
    with pytest.raises(TepadError, match=r"build\(index_check=...\) takes True or False, got 'no'"):
        tepad.build(s, [A, C], index_check="no")
    with pytest.raises(TepadError, match="config 'tepad.index_check' takes True or False"):
        with PassContext(config={"tepad.index_check": 0}):
            tepad.build(s, [A, C])


def test_E_RUN_06_gather_index_out_of_range():
    A = te.placeholder((100,), "float32", name="A")
    I = te.placeholder((8,), "int32", name="I")
    B = te.compute((8,), lambda i: A[I[i]], name="B")
    mod = tepad.build(te.create_schedule(B.op), [A, I, B])
    idx = np.array([0, 1, 2, 10 ** 8, 4, 5, 6, 7], "int32")
    with pytest.raises(TepadError, match=r"index check failed: load of tensor A at index I\[i\] "
                                         r"= 100000000, outside the valid range \[0, 100\)"):
        mod(np.zeros(100, "float32"), idx, np.zeros(8, "float32"))


def test_E_RUN_02_scalar_argument_dtype():
    from tepad.runtime.args import scalar_ctype
    with pytest.raises(TepadError, match="scalar arguments must be integers, float32 or "
                                         "float64, got dtype float16"):
        scalar_ctype("float16")


def test_E_RUN_04_big_endian_argument():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] * 2.0, name="B")
    mod = tepad.build(te.create_schedule(B.op), [A, B])
    with pytest.raises(TepadError, match=r"argument 0 'A': expected dtype float32 in the machine's "
                                         r"byte order, got float32 in big-endian byte order"):
        mod(np.zeros(8, ">f4"), np.zeros(8, "float32"))


def test_E_RUN_05_logical_array_for_a_padded_argument():
    A = te.placeholder((8, 8), name="A")
    B = te.compute((8, 8), lambda i, j: A[i, j] * 2.0, name="B")
    s = te.create_schedule(B.op)
    s[A].transform_layout(lambda i, j: [i, j // 3, j % 3], pad_value=0.0)
    mod = tepad.build(s, [A, B])
    with pytest.raises(TepadError, match=r"expected shape \(8, 3, 3\), got \(8, 8\).*\(8, 8\) is "
                                         r"the logical shape of 'A'.*tepad.layout.to_physical"):
        mod(np.zeros((8, 8), "float32"), np.zeros((8, 8), "float32"))


def test_E_SDF_18_different_tensor_with_the_same_name():
    A, B, C = chain()
    s = te.create_schedule(C.op)
    B2 = te.compute((4, 8), lambda i, j: A[i, j] + 1, name="B")
    with pytest.raises(TepadError, match="B is not part of this schedule, but a different tensor "
                                         "with the same name 'B' is"):
        s[B2]


def test_E_TE_17_axis_index_out_of_range():
    A, B, C = chain()
    with pytest.raises(IndexError, match=r"B.op.axis\[2\]: B has 2 axes \['i', 'j'\]; valid "
                                         r"indices are -2..1"):
        B.op.axis[2]


def test_E_RUN_07_output_shares_memory_with_an_input():
    A = te.placeholder((16,), name="A")
    B = te.compute((15,), lambda i: A[i] + A[i + 1], name="B")
    mod = tepad.build(te.create_schedule(B.op), [A, B])
    a = np.arange(16, dtype="float32")
    with pytest.raises(TepadError, match=r"argument 1 'B' \(an output\) and argument 0 'A' \(an "
                                         r"input\) share memory"):
        mod(a, a[1:])
