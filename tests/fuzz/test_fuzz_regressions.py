"""Bugs the schedule fuzzer found (python -m tepad.fuzz), each as its shrunk reproducer.

A failing test here is a bug outside tests/ and tepad/fuzz (see the docstring for the fix)."""
import numpy as np

import tepad
from tepad import te, tir
from tepad.testing import reference


def test_cache_read_for_two_readers_where_one_reads_the_other():
    """seed 2, case 120. cache_read(A, readers=[T0, T1]) where T1 also reads T0: T1 is rebuilt
    for the cache, then replace_dataflow rebuilds it again (old T0 -> new T0), but T2 keeps
    pointing at the first rebuild of T1, which is no stage of the schedule. lower() then
    refuses a legal schedule: "tensor T1 is read or written but neither computed here nor
    passed in args". Fix (tepad/schedule/dataflow.py): when a reader is replaced twice, chain
    the replacement map (TVM's ReplaceDataFlow composes vmap entries), or rebuild the readers
    in topological order with the cumulative map."""
    A = te.placeholder((3, 3), "int32", name="A")
    T0 = te.compute((3, 3), lambda i, j: A[j, i], name="T0")
    k = te.reduce_axis((0, 3), name="k")
    T1 = te.compute((3, 3), lambda i, j: te.sum(A[i, k] * T0[k, j], axis=k), name="T1")
    T2 = te.compute((3, 3), lambda i, j: T1[i, j] + 1, name="T2")
    s = te.create_schedule([T2.op])
    s.cache_read(A, "shared", [T0, T1])
    mod = tepad.build(s, [A, T2], bounds_check=True)
    a = np.arange(9, dtype="int32").reshape(3, 3)
    out = np.zeros((3, 3), "int32")
    mod(a, out)
    np.testing.assert_array_equal(out, reference(T2, {A: a}))


# ---- found once the fuzzer drew transform_layout and rolling_buffer ------------------------

def _run(mod, *arrays):
    mod(*arrays)
    return arrays


def test_select_in_a_symbolic_physical_shape_binds_and_runs():
    """An offset split of a symbolic size has the exact extent Select(n == 1, 1, 2) + 1. The
    argument checker could not evaluate Select/comparisons (tepad/runtime/args.py eval_int)
    and refused correct arrays."""
    from tepad.layout import to_physical
    n = te.var("n")
    A = te.placeholder((n,), "float32", name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    s[A].transform_layout(lambda i: [(i + 1) // 3, (i + 1) % 3], pad_value=0.0)
    mod = tepad.build(s, [A, B], bounds_check=True)
    for size in (1, 2, 5, 7):
        a = np.arange(size, dtype="float32")
        b = np.zeros(size, "float32")
        mod(to_physical(a, lambda i: [(i + 1) // 3, (i + 1) % 3], pad_value=0.0), b)
        np.testing.assert_array_equal(b, a * 2)


def test_pad_value_on_a_select_shape_is_quasi_affine():
    """A pad_value on a split of a symbolic extent was refused "not quasi-affine": the shape
    holds Select(n == 1, 2, 3) and ISL text had no Select (tepad/arith/isl_bridge.py IslWriter.expr now
    writes b + (a - b) * [cond] with a min/max indicator)."""
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((m, n), "int8", name="A")
    B = te.compute((m, n), lambda i, j: A[i, j] * 2, name="B")
    C = te.compute((m, n), lambda i, j: B[i, j] + A[i, j], name="C")
    s = te.create_schedule(C.op)
    s[B].transform_layout(lambda i, j: [(j + 2) // 4, i, (j + 2) % 4], pad_value=0)
    mod = tepad.build(s, [A, C], bounds_check=True)
    for shape in ((3, 1), (2, 5), (4, 7)):
        a = (np.arange(np.prod(shape)) % 20).astype("int8").reshape(shape)
        c = np.zeros(shape, "int8")
        mod(a, c)
        np.testing.assert_array_equal(c, a * 3)


def test_size_variable_only_inside_derived_dimensions_is_refused_at_build():
    """n appears only as (n + 3) // 4 and min(n - 1, 3) + 1 in the physical shapes: no array
    can say n, so every call failed. build now refuses it (tepad/runtime/args.py)."""
    n = te.var("n")
    A = te.placeholder((n,), "float32", name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    s[A].transform_layout(lambda i: [i // 4, i % 4], pad_value=0.0)
    s[B].transform_layout(lambda i: [i // 4, i % 4])
    import pytest
    with pytest.raises(tepad.TepadError, match="size variable n cannot be bound from the "
                                               "arguments"):
        tepad.build(s, [A, B])


def test_layout_on_a_root_stage_read_under_a_shifting_guard():
    """C reads B[i - 1] under if_then_else(i >= 1): the interval request is [-1, 11), and the
    Transform check wanted exactly [0, 12), blaming a compute_at that did not exist
    (tepad/bound/message_passing.py: a root stage now computes its whole tensor)."""
    A = te.placeholder((12,), "float32", name="A")
    B = te.compute((12,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((12,), lambda i: te.if_then_else(i >= 1, B[i - 1],
                                                    tir.const(0.0, "float32")), name="C")
    s = te.create_schedule(C.op)
    s[B].transform_layout(lambda i: [i // 4, i % 4])
    for exact in (False, True):
        mod = tepad.build(tepad.lower(s, [A, C], exact_bounds=exact), bounds_check=True)
        a = np.arange(12, dtype="float32")
        c = np.zeros(12, "float32")
        mod(a, c)
        np.testing.assert_array_equal(c, np.concatenate([[0], a[:-1] + 1]))


def test_rolling_buffer_with_an_empty_region_is_a_no_op():
    """Exact bounds give B an empty region (its only reader is guarded by i >= 1 on an axis of
    extent 1); inject_rolling_buffer refused "does not move". Nothing to roll: keep it."""
    A = te.placeholder((1, 10), "float32", name="A")
    B = te.compute((1, 10), lambda i, j: A[i, j] * 2.0, name="B")
    r = te.reduce_axis((0, 3), name="r")
    C = te.compute((1, 8), lambda i, j: te.sum(B[i, j + r], axis=r), name="C")
    D = te.compute((1, 8), lambda i, j: te.if_then_else(i >= 1, C[i - 1, j],
                                                        tir.const(0.0, "float32")), name="D")
    s = te.create_schedule(D.op)
    jo, ji = s[C].split(C.op.axis[1], factor=4)
    s[B].compute_at(s[C], jo)
    s[B].rolling_buffer()
    for exact in (False, True):
        mod = tepad.build(tepad.lower(s, [A, D], exact_bounds=exact), bounds_check=True)
        d = np.ones((1, 8), "float32")
        mod(np.ones((1, 10), "float32"), d)
        assert not d.any()


def test_rolling_buffer_along_a_loop_that_runs_once_is_a_no_op():
    """split by the whole extent: io runs once, the region does not move, and rolling_buffer
    was refused. A rolling buffer along a one-iteration loop changes nothing: keep the realize."""
    A = te.placeholder((6,), "float32", name="A")
    B = te.compute((6,), lambda i: A[i] * 2.0, name="B")
    C = te.compute((4,), lambda i: B[i] + B[i + 2], name="C")
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], io)
    s[B].rolling_buffer()
    f = tepad.lower(s, [A, C])
    assert "% " not in f.script()          # no folded (modulo) indexing
    mod = tepad.build(f, bounds_check=True)
    a = np.arange(6, dtype="float32")
    c = np.zeros(4, "float32")
    mod(a, c)
    np.testing.assert_array_equal(c, 2 * a[:4] + 2 * a[2:])


def test_second_layout_over_a_piecewise_symbolic_shape():
    """seed 900, case 108. After [i % 2, i // 2] then [x0, x1 // 4, x1 % 4] on an (n,) stage, a
    physical extent is Select(n == 1, 0, min((n + 1) // 2 - 1, 3)) + 1: its branches differ by
    a non-constant, and lower refused the padding as "not quasi-affine". ISL constraints now
    take one disjunct per branch combination (tepad/arith/isl_bridge.py IslWriter.constraint)."""
    n = te.var("n")
    A = te.placeholder((n,), "float32", name="A")
    T0 = te.compute((n,), lambda i: A[i] * 2.0, name="T0")
    T4 = te.compute((n,), lambda i: T0[i] + 1.0, name="T4")
    s = te.create_schedule([T4.op])
    s[T0].transform_layout(lambda i: [i % 2, i // 2], pad_value=lambda *ix: tir.undef("float32"))
    s[T0].transform_layout(lambda x0, x1: [x0, x1 // 4, x1 % 4])
    for exact in (False, True):
        mod = tepad.build(tepad.lower(s, [A, T4], exact_bounds=exact), bounds_check=True)
        for size in (1, 2, 9, 17):
            a = np.arange(size, dtype="float32")
            out = np.zeros(size, "float32")
            mod(a, out)
            np.testing.assert_array_equal(out, a * 2 + 1)


_LLVM_SLP_CASE = '''
import numpy as np, tepad
from tepad import te, tir
A = te.placeholder((7, 6), "float32", name="A")
T3 = te.compute((7, 6), lambda i, j: te.if_then_else(j >= 2, A[i, j - 2],
                                                     tir.const(0.0, "float32")), name="T3")
T4 = te.compute((7, 6), lambda i, j: te.abs(T3[i, j]) - 1.0, name="T4")
s = te.create_schedule([T4.op])
xo, yo, xi, yi = s[T4].tile(T4.op.axis[0], T4.op.axis[1], 2, 2)
o, i = s[T4].split(xo, factor=5)
f = s[T4].fuse(xi, yi)
s[T4].tile(yo, f, 5, 4)
s[T4].vectorize(o)
s[T3].tile(T3.op.axis[0], T3.op.axis[1], 4, 4)
mod = tepad.build(s, [A, T4], bounds_check=True)
a = np.arange(42, dtype="float32").reshape(7, 6) - 20
out = np.zeros((7, 6), "float32")
mod(a, out)
want = np.abs(np.pad(a, ((0, 0), (2, 0)))[:, :6]) - 1
assert np.array_equal(out, want), out
print("ok")
'''


def test_llvm_slp_vectorizer_abort_is_avoided():
    """seed 2026, case 83: LLVM 22.1's SLP vectorizer turned this valid IR into a broken
    function and LLVM aborted the process ("Instruction does not dominate all uses!").
    tepad/codegen/jit.py keeps SLP off. Run in a subprocess: a regression would abort."""
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-c", _LLVM_SLP_CASE], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stderr[-2000:]


def test_layout_padding_on_a_dimension_of_extent_one_is_guarded():
    """seed 2026, case 203. [(i + 1) // 2, j, (i + 1) % 2] on a (1, 1) reduction: the physical
    axis ax2 has a padding point (ax2 = 0). The inverse was taken from the image's affine hull,
    which for a single point is the constant i = 0, so the padding iteration was not guarded
    and the reduction ran twice. IndexMap.inverse now prefers the map's own inverse
    (i = 2 * ax0 + ax2 - 1), which sends padding outside the shape."""
    A = te.placeholder((1, 1), "float32", name="A")
    r1 = te.reduce_axis((0, 1), name="r1")
    T0 = te.compute((1, 1), lambda i, j: te.sum(A[i + r1, j], axis=r1), name="T0")
    s = te.create_schedule([T0.op])
    s[T0].transform_layout(lambda i, j: [(i + 1) // 2, j, (i + 1) % 2])
    s[T0].fuse(s[T0].leaf_iter_vars[2], s[T0].leaf_iter_vars[3])
    for exact in (False, True):
        mod = tepad.build(tepad.lower(s, [A, T0], exact_bounds=exact), bounds_check=True)
        out = np.full((1, 1, 2), 7, "float32")
        mod(np.full((1, 1), 0.5, "float32"), out)
        assert out[0, 0, 1] == 0.5


def test_exact_extent_that_goes_negative_does_not_wrap_the_allocation():
    """seed 2027, case 130. In exact mode T0's realize extent at T2's loop is a formula such
    as m - (31 * j + 24 * jo + m + 31) % 32 - j - 8 * jo, negative where the consumer's
    iteration lies past the tail (the region is empty there). The product of two negative
    extents made a huge allocation ("out of memory allocating buffer T0"). StorageFlatten now
    clamps symbolic extents at 0 for the allocation size."""
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), "int32", name="A")
    T0 = te.compute((n, m), lambda i, j: A[i, j] - 3, name="T0")
    T2 = te.compute((n, m), lambda i, j: A[i, j] + T0[i, j], name="T2")
    s = te.create_schedule([T2.op])
    o1, i2 = s[T2].split(T2.op.axis[1], factor=8)
    xo, yo, xi, yi = s[T2].tile(T2.op.axis[0], o1, 2, 4)
    s[T2].reorder(i2, yi, xi, yo, xo)
    a, b, c, d = s[T0].tile(T0.op.axis[0], T0.op.axis[1], 5, 5)
    s[T0].tile(c, d, 4, 3)
    s[T0].compute_at(s[T2], xi)
    mod = tepad.build(tepad.lower(s, [A, T2], exact_bounds=True), bounds_check=True)
    for shape in ((1, 5), (3, 9), (1, 1)):
        a_ = np.arange(np.prod(shape), dtype="int32").reshape(shape)
        out = np.zeros(shape, "int32")
        mod(a_, out)
        np.testing.assert_array_equal(out, 2 * a_ - 3)


def test_rolling_buffer_in_exact_mode_with_a_non_box_region():
    """seed 2026, case 624 (and 2027/172). T4 reads T3[i] and T3[i + 2]: per tile of 2 the
    exact region is {i, i + 2}-shaped (not a box), and ScheduleOps guarded T3's store with
    that disjunction, which inject_rolling_buffer refuses. A rolling stage now computes its
    region's bounding box (tepad/lower/schedule_ops.py _region_predicates)."""
    A = te.placeholder((1, 5), "int32", name="A")
    T2 = te.compute((1, 5), lambda i, j: A[i, j].astype("float32"), name="T2")
    T3 = te.compute((5, 1), lambda i, j: T2[j, i], name="T3")
    T4 = te.compute((3, 1), lambda i, j: T3[i, j] + 2.0 * T3[i + 2, j], name="T4")
    s = te.create_schedule([T4.op])
    o, i = s[T4].split(T4.op.axis[0], factor=2)
    s[T3].compute_at(s[T4], o)
    s[T3].rolling_buffer()
    a = np.arange(5, dtype="int32").reshape(1, 5)
    for exact in (False, True):
        mod = tepad.build(tepad.lower(s, [A, T4], exact_bounds=exact), bounds_check=True)
        out = np.zeros((3, 1), "float32")
        mod(a, out)
        np.testing.assert_array_equal(out[:, 0], a[0, :3] + 2.0 * a[0, 2:])


def test_unbounded_fused_request_takes_the_whole_rows():
    """seed 2026, case 1186. A cache_read stage at a loop of a transformed, fused and split
    consumer with symbolic sizes gets an unbounded request for its fused axis; PassUpDomain
    through Fuse divided the infinite bounds (neg_inf // n) and codegen failed with an
    InternalError. An unbounded fused set now maps to the parents' full ranges."""
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), "int8", name="A")
    T1 = te.compute((n, m), lambda i, j: A[i, j] * 2 + (i - j).astype("int8"), name="T1")
    s = te.create_schedule([T1.op])
    A_s = s.cache_read(A, "shared", [T1])
    s[T1].transform_layout(lambda i, j: [j, i])
    f = s[T1].fuse(*s[T1].leaf_iter_vars[:2])
    o, i = s[T1].split(f, nparts=2)
    xo, yo, xi, yi = s[T1].tile(o, i, 4, 2)
    s[T1].reorder(xo, yo, yi, xi)
    s[A_s].fuse(*s[A_s].leaf_iter_vars[:2])
    s[A_s].compute_at(s[T1], yi)
    mod = tepad.build(s, [A, T1], bounds_check=True)
    for shape in ((3, 5), (1, 1)):
        a = (np.arange(np.prod(shape)) % 50).astype("int8").reshape(shape)
        out = np.zeros(shape[::-1], "int8")
        mod(a, out)
        i_, j_ = np.indices(shape)
        np.testing.assert_array_equal(out.T, (a * 2 + (i_ - j_)).astype("int8"))


def test_exact_region_of_a_stage_above_an_empty_tail_loop():
    """seed 4001, case 585 (and 351). T4's row tile of 4 is split by nparts=3 (2 + 2 + an
    empty third part); T1 is computed at that outer loop, T0 at a loop further out. Exact
    mode built T4's loop domain with the range of the tile's inner var (a non-leaf), which,
    once the inner loops were projected away, dropped the third outer iteration -- where T1
    still runs (its box). T0's region missed the rows T1 reads there: an out-of-bounds read
    that bounds_check caught. Loop domains now bound only loop (leaf) vars."""
    A = te.placeholder((9, 8), "float32", name="A")
    T0 = te.compute((8, 9), lambda i, j: A[j, i], name="T0")
    T1 = te.compute((8, 9), lambda i, j: T0[i, j] * T0[i, j], name="T1")
    k = te.reduce_axis((0, 9), name="k")
    T4 = te.compute((8, 8), lambda i, j: te.sum(T1[i, k] * A[k, j], axis=k), name="T4")
    s = te.create_schedule([T4.op])
    s[T4].reorder(T4.op.axis[1], T4.op.axis[0], T4.op.reduce_axis[0])
    xo, yo, xi, yi = s[T4].tile(T4.op.axis[1], T4.op.axis[0], 4, 4)
    o9, i10 = s[T4].split(yi, nparts=3)
    s[T1].compute_at(s[T4], o9)
    s[T0].compute_at(s[T4], xi)
    a = np.arange(72, dtype="float32").reshape(9, 8) / 10
    for exact in (False, True):
        mod = tepad.build(tepad.lower(s, [A, T4], exact_bounds=exact), bounds_check=True)
        out = np.zeros((8, 8), "float32")
        mod(a, out)
        np.testing.assert_allclose(out, (a.T * a.T) @ a, rtol=1e-5)


def test_exact_bounds_with_many_pieces_stay_small():
    """seed 6001, case 2648. A cache_read stage at a loop of a twice-split fused consumer got
    an exact lower bound with a dozen ISL pieces; as tir it was a cascade of if_then_else
    (12,000 characters) that took Simplify 40 s. A min with many pieces is now relaxed to the
    minimum of its distinct affine forms (or a constant), and a huge predicate is dropped."""
    A = te.placeholder((9, 11), "int8", name="A")
    B = te.placeholder((9, 11), "int8", name="B")
    T0 = te.compute((9, 11), lambda i, j: tir.min(B[i, j], A[i, j]), name="T0")
    T1 = te.compute((9, 11), lambda i, j: T0[i, j] // tir.const(3, "int8")
                    + T0[i, j] % tir.const(4, "int8"), name="T1")
    T3 = te.compute((11, 9), lambda i, j: T1[j, i], name="T3")
    s = te.create_schedule([T3.op])
    T0_s = s.cache_read(T0, "shared", [T1])
    f = s[T1].fuse(*s[T1].leaf_iter_vars[:2])
    o14, i15 = s[T1].split(f, factor=5)
    o16, i17 = s[T1].split(o14, nparts=8)
    o18, i19 = s[T1].split(i15, nparts=3)
    o21, i22 = s[T0_s].split(s[T0_s].leaf_iter_vars[1], factor=16)
    s[T0_s].fuse(s[T0_s].leaf_iter_vars[0], o21)
    s[T0_s].compute_at(s[T1], o18)
    func = tepad.lower(s, [A, B, T3], exact_bounds=True)
    assert func.script().count("if_then_else") <= 4
    mod = tepad.build(func, bounds_check=True)
    a = (np.arange(99) % 23 - 11).astype("int8").reshape(9, 11)
    b = (np.arange(99) % 17 - 8).astype("int8").reshape(9, 11)
    out = np.zeros((11, 9), "int8")
    mod(a, b, out)
    np.testing.assert_array_equal(out, reference(T3, {A: a, B: b}))


def test_relaxing_a_deep_attach_path_with_dependent_loop_ranges():
    """seed 6001, case 7650. T0 (cache-written) sits four attachments deep; one loop on its
    path (T2.local's) has an extent that depends on loops further out. Relaxing the path
    substituted every loop once, so T0.local's root region kept inner loop vars and codegen
    refused "variables ... bound by no argument". Loops are now relaxed outermost first."""
    A = te.placeholder((5,), "float32", name="B")
    T0 = te.compute((5,), lambda i: A[i] + A[i], name="T0")
    T2 = te.compute((5,), lambda i: A[i] + T0[i], name="T2")
    T3 = te.compute((5, 5), lambda i, j: T2[i] * T2[j], name="T3")
    s = te.create_schedule([T3.op])
    s.cache_write(T0, "local")
    T2_l = s.cache_write(T2, "local")
    T3_l = s.cache_write(T3, "local")
    f4 = s[T3_l].fuse(*s[T3_l].leaf_iter_vars[:2])
    o5, i6 = s[T3_l].split(f4, factor=2)
    s[T3_l].split(o5, factor=2)
    s[T3_l].compute_at(s[T3], s[T3].leaf_iter_vars[0])
    o10, i11 = s[T2].split(s[T2].leaf_iter_vars[0], factor=2)
    s[T2].compute_at(s[T3_l], i6)
    s[T2_l].compute_at(s[T2], o10)
    o13, i14 = s[T0].split(s[T0].leaf_iter_vars[0], factor=2)
    s[T0].compute_at(s[T2_l], s[T2_l].leaf_iter_vars[0])
    a = np.arange(5, dtype="float32") + 1
    for exact in (False, True):
        mod = tepad.build(tepad.lower(s, [A, T3], exact_bounds=exact), bounds_check=True)
        out = np.zeros((5, 5), "float32")
        mod(a, out)
        np.testing.assert_allclose(out, np.outer(3 * a, 3 * a))


_LLVM_LV_CASE = '''
import numpy as np, tepad
from tepad import te
n, m = te.var("n"), te.var("m")
A = te.placeholder((n, m), "int32", name="A")
k2 = te.reduce_axis((0, n), name="k2")
T1 = te.compute((m,), lambda i: te.sum(A[k2, i], axis=k2), name="T1")
s = te.create_schedule([T1.op])
A_s = s.cache_read(A, "shared", [T1])
xo, yo, xi, yi = s[T1].tile(T1.op.axis[0], T1.op.reduce_axis[0], 4, 2)
f6 = s[T1].fuse(yo, xi)
s[A_s].compute_at(s[T1], f6)
mod = tepad.build(tepad.lower(s, [A, T1], exact_bounds=True), bounds_check=True)
a = (np.arange(50) % 7).astype("int32").reshape(5, 10)
big = np.full(10 + 64, 7777, "int32")
out = big[32:42]
mod(a, out)
assert (big[:32] == 7777).all() and (big[42:] == 7777).all(), np.nonzero(big != 7777)
assert np.array_equal(out, a.sum(axis=0)), out
print("ok")
'''


def test_llvm_loop_vectorizer_out_of_bounds_store_is_avoided():
    """seed 7002, case 1956: LLVM 22.1's loop vectorizer turned the guarded init loop
    ``if i*4 + f % 4 < m: T1[i*4 + f % 4] = 0`` into masked vector stores that wrote 4
    elements past T1 (heap corruption, "free(): invalid pointer"), with or without
    bounds_check. tepad/codegen/jit.py keeps LLVM's auto-vectorizers off. A subprocess, with
    canaries around the output: a regression would corrupt the heap."""
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-c", _LLVM_LV_CASE], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), (r.stdout + r.stderr)[-2000:]


def test_rolling_producer_with_a_split_tail_guard_on_its_own_loops():
    """seed 8002, case 559. The rolling stage T0 splits its own axis by 3 and then by 2, so
    its store is guarded by ``i.inner.outer * 2 + i.inner.inner < 3`` (a split tail). The
    rolling pass refused it as a non-box region; a guard over the producer's own loops only
    selects the same local positions in every iteration and is now accepted."""
    n = te.var("n")
    B = te.placeholder((n,), "int32", name="B")
    T0 = te.compute((n - 1,), lambda i: B[i] + B[i + 1] * 4, name="T0")
    T3 = te.compute((n - 3,), lambda i: T0[i] + T0[i + 2] * 2, name="T3")
    s = te.create_schedule([T3.op])
    o1, i2 = s[T3].split(T3.op.axis[0], factor=5)
    o4, i5 = s[T0].split(T0.op.axis[0], factor=3)
    s[T0].reorder(i5, o4)
    s[T0].tile(i5, o4, 2, 5)
    s[T0].compute_at(s[T3], o1)
    s[T0].rolling_buffer()
    for exact in (False, True):
        mod = tepad.build(tepad.lower(s, [B, T3], exact_bounds=exact), bounds_check=True)
        for size in (4, 9, 23):
            b = np.arange(size, dtype="int32")
            t0 = b[:-1] + 4 * b[1:]
            out = np.zeros(size - 3, "int32")
            mod(b, out)
            np.testing.assert_array_equal(out, t0[:size - 3] + 2 * t0[2:])


# layout-ci:6905 under test_fuzz_layouts.CFG
ROLLING_LOCAL_LINES = [
    "A = te.placeholder((4, 5), 'int8', name='A')",
    "T0 = te.compute((4, 5), lambda i, j: te.if_then_else(tir.all(i >= 2, j >= 1), A[i - 2, j - 1], tir.const(0, 'int8')), name='T0')",
    "T1 = te.compute((4, 3), lambda i, j: A[i, j] + A[i, j + 2] * 3 + A[i, j], name='T1')",
    "T2 = te.compute((2, 3), lambda i, j: T1[i, j] + T1[i + 2, j] * 1 + T1[i + 2, j], name='T2')",
    's = te.create_schedule([T2.op, T0.op])',
    "A_s = s.cache_read(A, 'shared', [T1, T0])",
    "T1_l = s.cache_write(T1, 'local')",
    's[A].transform_layout(lambda i, j: [j, i], pad_value=0)',
    'T0_j_0 = s[T0].leaf_iter_vars[1]',
    'T0_o1, T0_i2 = s[T0].split(T0_j_0, factor=1)',
    'T0_i_3 = s[T0].leaf_iter_vars[0]',
    's[T0].reorder(T0_i_3, T0_i2, T0_o1)',
    's[T0].unroll(T0_i2)',
    's[T0].parallel(T0_i_3)',
    's[T2].transform_layout(lambda i, j: [(j + 3) // 8, i, (j + 3) % 8])',
    'T2_ax1_4 = s[T2].leaf_iter_vars[1]',
    'T2_o5, T2_i6 = s[T2].split(T2_ax1_4, nparts=4)',
    'T2_ax2_7 = s[T2].leaf_iter_vars[3]',
    'T2_ax0_8 = s[T2].leaf_iter_vars[0]',
    's[T2].reorder(T2_ax2_7, T2_ax0_8, T2_o5, T2_i6)',
    's[T2].vectorize(T2_i6)',
    "s[T2].set_scope('shared')",
    'T1_i_9 = s[T1].leaf_iter_vars[0]',
    'T1_j_10 = s[T1].leaf_iter_vars[1]',
    's[T1].reorder(T1_i_9, T1_j_10)',
    'T1_o11, T1_i12 = s[T1].split(T1_j_10, factor=2)',
    'T1_o13, T1_i14 = s[T1].split(T1_i_9, nparts=5)',
    'T1_o15, T1_i16 = s[T1].split(T1_i14, factor=5)',
    's[T1].unroll(T1_i12)',
    's[T1].parallel(T1_o13)',
    's[T1].compute_at(s[T2], T2_o5)',
    's[T1].rolling_buffer()',
    'T1_l_i_c_17 = s[T1_l].leaf_iter_vars[0]',
    'T1_l_j_c_18 = s[T1_l].leaf_iter_vars[1]',
    'T1_l_f19 = s[T1_l].fuse(T1_l_i_c_17, T1_l_j_c_18)',
    's[T1_l].compute_at(s[T1], T1_o11)',
    's[A_s].transform_layout(lambda i, j: [i // 5, j, i % 5], pad_value=0)',
    'A_s_ax1_20 = s[A_s].leaf_iter_vars[1]',
    'A_s_ax0_21 = s[A_s].leaf_iter_vars[0]',
    'A_s_ax2_22 = s[A_s].leaf_iter_vars[2]',
    's[A_s].reorder(A_s_ax1_20, A_s_ax0_21, A_s_ax2_22)',
    'A_s_o23, A_s_i24 = s[A_s].split(A_s_ax1_20, factor=2)',
    'A_s_f25 = s[A_s].fuse(A_s_ax0_21, A_s_ax2_22)',
    'A_s_o26, A_s_i27 = s[A_s].split(A_s_o23, nparts=3)',
    's[A_s].parallel(A_s_o26)',
]


def test_rolling_buffer_with_cache_write_local_at_inner_loop_exact():
    """layout-ci:6905. Exact bounds: T1 rolls and its cache_write stage T1.local is computed
    at an inner loop of T1. T1's exact region is not a box, so InferBound gave it a region
    predicate and asked T1.local only for the predicated points; but ScheduleOps computes a
    rolling buffer's whole box (the skip of rows the previous iteration stored needs boxes)
    and so T1 copied T1.local points nobody computed (a bounds-check failure here, wrong
    values elsewhere). Fix (tepad/bound/exact.py, _exact_root_bound): a rolling stage gets no
    region predicate, so its producers are asked for what it really executes."""
    ns = {}
    exec("import tepad\nfrom tepad import te, tir", ns)
    for line in ROLLING_LOCAL_LINES:
        exec(line, ns)
    s, A, T0, T2 = ns["s"], ns["A"], ns["T0"], ns["T2"]
    mod = tepad.build(s, [A, T2, T0], exact_bounds=True, bounds_check=True)
    from tepad.layout import from_physical, physical_shape, to_physical
    a = np.random.default_rng(0).integers(-8, 8, size=(4, 5)).astype("int8")
    a_phys = np.ascontiguousarray(to_physical(a, list(s[A].layout_transforms), pad_value=0))
    t2 = np.zeros(physical_shape((2, 3), list(s[T2].layout_transforms)), "int8")
    t0 = np.zeros((4, 5), "int8")
    mod(a_phys, t2, t0)
    got = from_physical(t2, list(s[T2].layout_transforms), (2, 3))
    want_t2, want_t0 = reference([T2, T0], {A: a})
    np.testing.assert_array_equal(got, want_t2)
    np.testing.assert_array_equal(t0, want_t0)


def test_rolling_buffer_over_a_producer_with_an_exact_region_predicate():
    """The same bug, smaller (found while adding rfactor): T2 reads rows i and i + 2 of the
    rolling T1_s, whose producer T1 (computed inside T1_s's loops) was asked for rows 0 and 2
    of each window only; T1_s copied row 1 from T1 uncomputed and a later window reused it."""
    p = te.var("p")
    B = te.placeholder((p,), "int32", name="B")
    T1 = te.compute((p,), lambda i: B[i] // 4 + B[i] % 5, name="T1")
    T2 = te.compute((p - 2,), lambda i: T1[i] + T1[i + 2] * 2, name="T2")
    s = te.create_schedule([T2.op])
    T1_s = s.cache_read(T1, "shared", [T2])
    o, _ = s[T2].split(T2.op.axis[0], factor=1)
    s[T1_s].compute_at(s[T2], o)
    s[T1_s].rolling_buffer()
    ax = s[T1_s].leaf_iter_vars[0]
    ao, _ = s[T1_s].split(ax, nparts=3)
    s[T1].compute_at(s[T1_s], ao)
    mod = tepad.build(s, [B, T2], exact_bounds=True, bounds_check=True)
    for n in (4, 5, 9):
        b = np.random.default_rng(n).integers(-100, 100, n).astype("int32")
        out = np.zeros(n - 2, "int32")
        mod(b, out)
        np.testing.assert_array_equal(out, reference(T2, {B: b}))
