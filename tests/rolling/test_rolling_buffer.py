"""rolling_buffer (issue #5): circular intermediate buffers from bound overlaps.

The examples of TVM's rolling_buffer pull request (apache/tvm #13033) are the structural tests: the 2-D max-pool chain gives
``B[6, 10]`` indexed ``% 6`` with the producer predicate, the 4-D example ``B[1, 12, 6, 16]``.
Every schedule is also checked against the numpy oracle, with bounds-checked code.
"""
import numpy as np
import pytest

import tepad
import tepad.testing
from tepad import TepadError, te, tir
from tepad.lower.passes.inject_rolling_buffer import inject_rolling_buffer
from tepad.lower.pipeline import run_passes, schedule_to_primfunc
from tepad.tir.buffer import Buffer
from tepad.tir.expr import FloorMod, IntImm, Range, Var
from tepad.tir.function import PrimFunc
from tepad.tir.functor import post_order_visit
from tepad.tir.stmt import (Allocate, AttrStmt, BufferRealize, BufferStore, For, IfThenElse,
                            SeqStmt)

RNG = np.random.default_rng(5)


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------
def nodes(func, cls):
    out = []
    post_order_visit(func.body, lambda n: out.append(n) if isinstance(n, cls) else None)
    return out


def realize_shape(func, name):
    rs = [r for r in nodes(func, BufferRealize) if r.buffer.name == name]
    assert len(rs) == 1, rs
    return [(int(r.min), int(r.extent)) for r in rs[0].bounds]


def rand(shape, dtype):
    if dtype == "int8":
        return RNG.integers(-128, 128, size=shape).astype("int8")
    return RNG.standard_normal(shape).astype(dtype)


def check(s, args, inputs, out, exact=False):
    """Build with bounds checks, run, compare with the oracle (exactly)."""
    mod = tepad.build(tepad.lower(s, args, exact_bounds=exact), bounds_check=True)
    arrays = [inputs[t] if t in inputs else np.zeros([int(x) for x in t.shape], t.dtype)
              for t in args]
    mod(*arrays)
    ref = tepad.testing.reference(out, inputs)
    np.testing.assert_array_equal(arrays[args.index(out)], ref)
    return mod


def maxpool(X, name, k=3):
    r0 = te.reduce_axis((0, k), name + "_r0")
    r1 = te.reduce_axis((0, k), name + "_r1")
    h, w = (int(x) - k + 1 for x in X.shape)
    return te.compute((h, w), lambda i, j: te.max(X[i + r0, j + r1], axis=[r0, r1]), name=name)


def seed_2d():
    A = te.placeholder((12, 12), "int8", name="A")
    B = maxpool(A, "B")
    C = maxpool(B, "C")
    s = te.create_schedule(C.op)
    yo, xo, yi, xi = s[C].tile(C.op.axis[0], C.op.axis[1], 4, 4)
    s[B].compute_at(s[C], xo)
    return A, B, C, s, (yo, xo, yi, xi)


def seed_4d():
    A = te.placeholder((1, 12, 14, 16), "int8", name="A")
    B = te.compute((1, 12, 14, 16), lambda n, h, w, c: A[n, h, w, c], name="B")
    r0 = te.reduce_axis((0, 1), "r0")
    r1 = te.reduce_axis((0, 3), "r1")
    C = te.compute((1, 12, 12, 16),
                   lambda n, h, w, c: te.max(B[n, h + r0, w + r1, c], axis=[r0, r1]), name="C")
    s = te.create_schedule(C.op)
    n, h, w, c = C.op.axis
    ho, wo, hi, wi = s[C].tile(h, w, 4, 4)
    s[B].compute_at(s[C], wo)
    return A, B, C, s


def mod_extents(func, name):
    """The constant divisors of floormod on accesses of buffer ``name``."""
    out = set()

    def f(n):
        if isinstance(n, FloorMod) and isinstance(n.b, IntImm):
            out.add(n.b.value)
    for st in nodes(func, BufferStore):
        if st.buffer.name == name:
            post_order_visit(st, f)
    return out


# ---------------------------------------------------------------------------------------------
# the seed's examples
# ---------------------------------------------------------------------------------------------
def test_seed_2d_maxpool_chain_structure():
    A, B, C, s, _ = seed_2d()
    s[B].rolling_buffer()
    f0 = schedule_to_primfunc(s, [A, C])
    before = [r for r in nodes(f0, BufferRealize) if r.buffer.name == "B"][0]
    assert [int(r.extent) for r in before.bounds] == [6, 6]      # per-iteration window
    f = inject_rolling_buffer(f0)
    assert realize_shape(f, "B") == [(0, 6), (0, 10)]
    text = f.script()
    assert "rolling_buffer_scope" not in text
    assert "% 6" in text and "(i + i_outer * 4) % 6" in text
    assert "B[(i_outer * 4 + i_inner + C_r0) % 6, j_outer * 4 + j_inner + C_r1]" in text
    # the producer predicate of the seed: (i0 < 1 or 2 <= ax0) and (i1 < 1 or 2 <= ax1)
    assert "T.likely((i_outer < 1 or i >= 2) and (j_outer < 1 or j >= 2))" in text
    # the realize wraps the rolling loop (the outermost loop)
    assert isinstance(f.body, BufferRealize) and isinstance(f.body.body, For)
    # after lowering: one allocation of 6 * 10 elements
    low = tepad.lower.passes.storage_flatten(tepad.lower(s, [A, C])["main"])
    allocs = nodes(low, Allocate)
    assert [tuple(int(e) for e in a.extents) for a in allocs] == [(60,)]


@pytest.mark.parametrize("exact", [False, True])
def test_seed_2d_maxpool_chain_numerics(exact):
    A, B, C, s, _ = seed_2d()
    s[B].rolling_buffer()
    check(s, [A, C], {A: rand((12, 12), "int8")}, C, exact=exact)


def test_seed_4d_only_positive_overlap_dim_rolls():
    A, B, C, s = seed_4d()
    s[B].rolling_buffer()
    f = inject_rolling_buffer(schedule_to_primfunc(s, [A, C]))
    assert realize_shape(f, "B") == [(0, 1), (0, 12), (0, 6), (0, 16)]
    text = f.script()
    assert "(w + w_outer * 4) % 6" in text
    assert "T.likely(w_outer < 1 or w >= 2)" in text
    assert mod_extents(f, "B") == {6}
    check(s, [A, C], {A: rand((1, 12, 14, 16), "int8")}, C)


def test_tvm_style_hand_built_primfunc():
    """TVM's own unit test shape: realize + attr built by hand, the pass called explicitly."""
    A = Buffer((1, 10, 12, 16), "int8", "A")
    Out = Buffer((1, 8, 8, 16), "int8", "Out")
    B = Buffer((1, 10, 12, 16), "int8", "B")
    ho, h, w, c = Var("h_o"), Var("h"), Var("w"), Var("c")
    hi, dh, wi = Var("h_i"), Var("dh"), Var("w_i")
    prod = For(h, 0, 6, body=For(w, 0, 12, body=For(c, 0, 16, body=BufferStore(
        B, A[0, h + ho * 4, w, c] + IntImm(1, "int8"), [0, h + ho * 4, w, c]))))
    acc = Out[0, hi + ho * 4, wi, c]
    cons = For(hi, 0, 4, body=For(wi, 0, 8, body=For(c, 0, 16, body=SeqStmt([
        BufferStore(Out, IntImm(-128, "int8"), [0, hi + ho * 4, wi, c]),
        For(dh, 0, 3, body=BufferStore(
            Out, tir.max(acc, B[0, hi + ho * 4 + dh, wi, c]), [0, hi + ho * 4, wi, c]))]))))
    body = BufferRealize(B, [Range(0, 1), Range.from_min_extent(ho * 4, 6), Range(0, 12), Range(0, 16)], True,
                         AttrStmt(B, "rolling_buffer_scope", True, SeqStmt([prod, cons])))
    func = PrimFunc([A.data, Out.data], For(ho, 0, 2, body=body),
                    {A.data: A, Out.data: Out})
    f = inject_rolling_buffer(func)
    assert realize_shape(f, "B") == [(0, 1), (0, 6), (0, 12), (0, 16)]
    assert "T.likely(h_o < 1 or h >= 2)" in f.script()
    mod = tepad.build(run_passes(f), bounds_check=True)
    a = rand((1, 10, 12, 16), "int8")
    out = np.zeros((1, 8, 8, 16), "int8")
    mod(a, out)
    b = (a.astype(np.int16) + 1).astype("int8")[:, :, :8]
    ref = np.max(np.stack([b[:, d:d + 8] for d in range(3)]), axis=0)
    np.testing.assert_array_equal(out, ref)


# ---------------------------------------------------------------------------------------------
# more forms than TVM: offsets, other tiles, chains, splits, annotations
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("exact", [False, True])
def test_padded_window_offset_min(exact):
    """Region min v*4 - 1 (a padded 1-D convolution): TVM's v:=0 trick would skip a row too
    many; tepad measures the local index from the region min."""
    A = te.placeholder((32,), "float32", name="A")
    B = te.compute((32,), lambda i: A[i] * 2.0 + 1.0, name="B")
    C = te.compute((32,), lambda i: te.if_then_else(i >= 1, B[i - 1], 0.0) + B[i] +
                   te.if_then_else(i < 31, B[i + 1], 0.0), name="C")
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], io)
    s[B].rolling_buffer()
    f = inject_rolling_buffer(schedule_to_primfunc(s, [A, C], exact_bounds=exact))
    assert realize_shape(f, "B") == [(0, 6)]
    check(s, [A, C], {A: rand((32,), "float32")}, C, exact=exact)


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("tile", [(4, 8), (8, 7), (8, 3), (7, 5), (3, 16)])
def test_nhwc_pool_chain_tiles(tile, exact):
    """TVM's InjectRollingBuffer test tiles, on an NHWC max-pool chain (non-divisible too)."""
    th, tw = tile
    A = te.placeholder((1, 20, 22, 4), "int8", name="A")

    def pool(X, name):
        r0 = te.reduce_axis((0, 3), name + "_r0")
        r1 = te.reduce_axis((0, 3), name + "_r1")
        n, h, w, c = (int(x) for x in X.shape)
        return te.compute((n, h - 2, w - 2, c), lambda b, y, x, ch: te.max(
            X[b, y + r0, x + r1, ch], axis=[r0, r1]), name=name)
    B = pool(A, "B")
    C = pool(B, "C")
    s = te.create_schedule(C.op)
    n, h, w, c = C.op.axis
    ho, wo, hi, wi = s[C].tile(h, w, th, tw)
    s[B].compute_at(s[C], wo)
    s[B].rolling_buffer()
    f = inject_rolling_buffer(schedule_to_primfunc(s, [A, C], exact_bounds=exact))
    shape = realize_shape(f, "B")
    assert shape[1] == (0, th + 2)           # rolling dim: the row loop is outermost
    check(s, [A, C], {A: rand((1, 20, 22, 4), "int8")}, C, exact=exact)


@pytest.mark.parametrize("exact", [False, True])
def test_three_pools_two_rolling_buffers(exact):
    A = te.placeholder((20, 20), "int8", name="A")
    B1 = maxpool(A, "B1")
    B2 = maxpool(B1, "B2")
    C = maxpool(B2, "C")
    s = te.create_schedule(C.op)
    yo, yi = s[C].split(C.op.axis[0], factor=4)
    s[B1].compute_at(s[C], yo)
    s[B2].compute_at(s[C], yo)
    s[B1].rolling_buffer()
    s[B2].rolling_buffer()
    f = inject_rolling_buffer(schedule_to_primfunc(s, [A, C], exact_bounds=exact))
    assert realize_shape(f, "B2") == [(0, 6), (0, 16)]
    assert realize_shape(f, "B1") == [(0, 8), (0, 18)]
    check(s, [A, C], {A: rand((20, 20), "int8")}, C, exact=exact)


@pytest.mark.parametrize("exact", [False, True])
def test_mixed_rolling_and_plain_buffers(exact):
    A = te.placeholder((20, 20), "int8", name="A")
    B1 = maxpool(A, "B1")
    B2 = maxpool(B1, "B2")
    C = maxpool(B2, "C")
    s = te.create_schedule(C.op)
    yo, yi = s[C].split(C.op.axis[0], factor=4)
    s[B1].compute_at(s[C], yo)
    s[B2].compute_at(s[C], yo)
    s[B2].rolling_buffer()
    f = inject_rolling_buffer(schedule_to_primfunc(s, [A, C], exact_bounds=exact))
    assert realize_shape(f, "B2") == [(0, 6), (0, 16)]
    check(s, [A, C], {A: rand((20, 20), "int8")}, C, exact=exact)


@pytest.mark.parametrize("factor", [4, 3, 5])
@pytest.mark.parametrize("exact", [False, True])
def test_upscale_floordiv_min(exact, factor):
    """Fractional stride (upscaling, TVM PR #13016): region min floordiv(v*f, 2)."""
    A = te.placeholder((20, 8), "float32", name="A")
    B = te.compute((20, 8), lambda i, j: A[i, j] + 1.0, name="B")
    C = te.compute((30, 8), lambda i, j: B[i // 2, j] + B[i // 2 + 1, j], name="C")
    s = te.create_schedule(C.op)
    yo, yi = s[C].split(C.op.axis[0], factor=factor)
    s[B].compute_at(s[C], yo)
    s[B].rolling_buffer()
    f0 = schedule_to_primfunc(s, [A, C], exact_bounds=exact)
    try:
        f = inject_rolling_buffer(f0)
    except TepadError as e:
        # known gap: exact bounds rewrite floordiv(v*3, 2) as v*2 - (v + 1)//2, which is not
        # one of the supported forms; the refusal must be explicit
        assert exact and factor % 2 == 1, e
        assert "buffer B" in str(e) and "is not of the form v*c + k" in str(e)
        return
    ext = realize_shape(f, "B")[0][1]
    assert mod_extents(f, "B") == {ext}
    check(s, [A, C], {A: rand((20, 8), "float32")}, C, exact=exact)


@pytest.mark.parametrize("exact", [False, True])
def test_split_producer_axis_keeps_its_guard(exact):
    """B's own row loop split by 4 (6 rows -> 2 x 4 with a tail guard): guard kept inside."""
    A, B, C, s, _ = seed_2d()
    s[B].split(B.op.axis[0], factor=4)
    s[B].rolling_buffer()
    f = inject_rolling_buffer(schedule_to_primfunc(s, [A, C], exact_bounds=exact))
    assert realize_shape(f, "B") == [(0, 6), (0, 10)]
    check(s, [A, C], {A: rand((12, 12), "int8")}, C, exact=exact)


def test_parallel_outer_loop_and_vectorized_producer():
    """A parallel loop outside the rolling loop: the realize stays inside it (private per
    iteration), per-iteration extent on the dim that loop moves; vectorized channels."""
    A = te.placeholder((4, 14, 10, 16), "int8", name="A")
    r0 = te.reduce_axis((0, 3), "r0")
    B = te.compute((4, 12, 10, 16), lambda b, y, x, ch: te.max(A[b, y + r0, x, ch], axis=r0),
                   name="B")
    q0 = te.reduce_axis((0, 3), "q0")
    C = te.compute((4, 10, 10, 16), lambda b, y, x, ch: te.max(B[b, y + q0, x, ch], axis=q0),
                   name="C")
    s = te.create_schedule(C.op)
    b, y, x, ch = C.op.axis
    yo, yi = s[C].split(y, factor=4)
    s[C].parallel(b)
    s[C].vectorize(ch)
    s[B].compute_at(s[C], yo)
    s[B].vectorize(B.op.axis[3])
    s[B].rolling_buffer()
    f = inject_rolling_buffer(schedule_to_primfunc(s, [A, C]))
    assert isinstance(f.body, For) and f.body.kind.value == "parallel"
    shape = [(str(r.min), int(r.extent)) for r in nodes(f, BufferRealize)[0].bounds]
    assert [e for _, e in shape] == [1, 6, 10, 16]
    check(s, [A, C], {A: rand((4, 14, 10, 16), "int8")}, C)


def test_unrolled_rolling_loop_is_fine():
    A, B, C, s, (yo, xo, yi, xi) = seed_2d()
    s[C].unroll(yo)
    s[B].rolling_buffer()
    check(s, [A, C], {A: rand((12, 12), "int8")}, C)


# ---------------------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------------------
def test_error_no_positive_overlap():
    A = te.placeholder((16, 16), name="A")
    B = te.compute((16, 16), lambda i, j: A[i, j] + 1.0, name="B")
    C = te.compute((16, 16), lambda i, j: B[i, j] * 2.0, name="C")
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], io)
    s[B].rolling_buffer()
    with pytest.raises(TepadError, match=r"buffer B has no dimension whose region overlaps.*"
                                         r"overlap 0 along i\.outer.*needs a dimension"):
        tepad.lower(s, [A, C])


def test_error_not_compute_at():
    A, B, C, s, _ = seed_2d()
    s[B].compute_root()
    s[B].rolling_buffer()
    with pytest.raises(TepadError, match="B.*compute_at"):
        tepad.lower(s, [A, C])


def test_error_output_and_placeholder():
    A, B, C, s, _ = seed_2d()
    with pytest.raises(TepadError, match="C.*output"):
        s[C].rolling_buffer()
    with pytest.raises(TepadError, match="A.*placeholder"):
        s[A].rolling_buffer()


def test_error_parallel_rolling_loop():
    A = te.placeholder((34,), "float32", name="A")
    B = te.compute((34,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((32,), lambda i: B[i] + B[i + 1] + B[i + 2], name="C")
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=4)
    s[C].parallel(io)
    s[B].compute_at(s[C], io)
    s[B].rolling_buffer()
    with pytest.raises(TepadError, match=r"buffer B: the rolling loop i\.outer is parallel.*"
                                         r"serial or unrolled"):
        tepad.lower(s, [A, C])


def test_error_parallel_loop_between():
    A = te.placeholder((34, 8), "float32", name="A")
    B = te.compute((34, 8), lambda i, j: A[i, j] + 1.0, name="B")
    C = te.compute((32, 8), lambda i, j: B[i, j] + B[i + 1, j] + B[i + 2, j], name="C")
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=4)
    jo, ji = s[C].split(C.op.axis[1], factor=4)
    s[C].reorder(io, jo, ii, ji)
    s[C].parallel(jo)
    s[B].compute_at(s[C], jo)
    s[B].rolling_buffer()
    with pytest.raises(TepadError, match=r"buffer B: loop j\.outer, between the rolling loop "
                                         r"i\.outer and the attach point, is parallel"):
        tepad.lower(s, [A, C])


def test_parallel_row_tiles_roll_along_columns():
    """The seed chain with the row-tile loop parallel: each parallel iteration gets its own
    buffer (per-iteration rows) that rolls along the column tiles."""
    A, B, C, s, (yo, xo, yi, xi) = seed_2d()
    s[C].parallel(yo)
    s[B].rolling_buffer()
    f = inject_rolling_buffer(schedule_to_primfunc(s, [A, C]))
    r = [x for x in nodes(f, BufferRealize) if x.buffer.name == "B"][0]
    assert [int(b.extent) for b in r.bounds] == [6, 6]
    assert "T.likely(j_outer < 1 or j >= 2)" in f.script()
    check(s, [A, C], {A: rand((12, 12), "int8")}, C)


def test_parallel_outer_split_of_rolling_loop():
    """Split the row-tile loop, parallelize the outer part: rolls inside each chunk."""
    A = te.placeholder((1, 34, 10, 16), "int8", name="A")
    r0 = te.reduce_axis((0, 3), "r0")
    B = te.compute((1, 32, 10, 16), lambda b, y, x, c: te.max(A[b, y + r0, x, c], axis=r0),
                   name="B")
    q0 = te.reduce_axis((0, 3), "q0")
    C = te.compute((1, 30, 10, 16), lambda b, y, x, c: te.max(B[b, y + q0, x, c], axis=q0),
                   name="C")
    s = te.create_schedule(C.op)
    yo, yi = s[C].split(C.op.axis[1], factor=3)
    yoo, yoi = s[C].split(yo, nparts=2)
    s[C].parallel(yoo)
    s[B].compute_at(s[C], yoi)
    s[B].rolling_buffer()
    f = inject_rolling_buffer(schedule_to_primfunc(s, [A, C]))
    r = [x for x in nodes(f, BufferRealize) if x.buffer.name == "B"][0]
    assert [int(b.extent) for b in r.bounds] == [1, 5, 10, 16]
    check(s, [A, C], {A: rand((1, 34, 10, 16), "int8")}, C)


def _hand_built(min0, ext0=6, min1=None, guard=None):
    A = Buffer((40, 40), "float32", "A")
    Out = Buffer((40, 40), "float32", "Out")
    B = Buffer((40, 40), "float32", "B")
    yo, xo, i, j = Var("yo"), Var("xo"), Var("i"), Var("j")
    mn0 = min0(yo, xo)
    mn1 = IntImm(0) if min1 is None else min1(yo, xo)
    store = BufferStore(B, A[i + mn0, j + mn1], [i + mn0, j + mn1])
    if guard is not None:
        store = IfThenElse(tir.likely(guard(yo, i)), store)
    prod = For(i, 0, ext0, body=For(j, 0, 4, body=store))
    cons = For(i, 0, 4, body=For(j, 0, 4, body=BufferStore(
        Out, B[i + mn0, j + mn1], [i + mn0, j + mn1])))
    body = BufferRealize(B, [Range.from_min_extent(mn0, ext0), Range.from_min_extent(mn1, 4)], True,
                         AttrStmt(B, "rolling_buffer_scope", True, SeqStmt([prod, cons])))
    return PrimFunc([A.data, Out.data], For(yo, 0, 4, body=For(xo, 0, 4, body=body)),
                    {A.data: A, Out.data: Out})


def test_error_composite_min():
    f = _hand_built(lambda yo, xo: yo * 8 + xo * 4)
    with pytest.raises(TepadError, match=r"buffer B.*dim 0: region min .* combines loops yo, xo "
                                         r"\(composite min; rollable only"):
        inject_rolling_buffer(f)


def test_error_nonlinear_min():
    f = _hand_built(lambda yo, xo: tir.max(yo * 4 - 1, 0))
    with pytest.raises(TepadError, match=r"buffer B.*dim 0: region min .* is not of the form "
                                         r"v\*c \+ k"):
        inject_rolling_buffer(f)


def test_error_rolling_loop_moves_two_dims():
    f = _hand_built(lambda yo, xo: yo * 4, min1=lambda yo, xo: yo * 4)
    with pytest.raises(TepadError, match=r"rolling loop yo moves dim 0 and also dim\(s\) \[1\]"):
        inject_rolling_buffer(f)


def test_error_guard_that_moves_with_the_rolling_loop():
    """A non-box (exact-mode) region guard that depends on the rolling loop is refused."""
    f = _hand_built(lambda yo, xo: yo * 4, guard=lambda yo, i: i + yo * 4 < yo * 5 + 3)
    with pytest.raises(TepadError, match=r"guarded by .* non-box region"):
        inject_rolling_buffer(f)


def test_coordinate_guard_is_kept():
    """A guard on the tensor coordinate (like the shape checks of ScheduleOps) stays."""
    f = _hand_built(lambda yo, xo: yo * 4, guard=lambda yo, i: i + yo * 4 < 15)
    g = inject_rolling_buffer(f)
    ifs = nodes(g, IfThenElse)
    assert len(ifs) == 2          # the original guard around the new predicate
    assert "i + yo * 4 < 15" in g.script()


def test_hand_built_offset_min_numerics():
    """min = yo*4 + 2 (an offset): the predicate compares index - min with the overlap."""
    f = _hand_built(lambda yo, xo: yo * 4 + 2)
    g = inject_rolling_buffer(f)
    assert "T.likely(yo < 1 or i >= 2)" in g.script()
    mod = tepad.build(run_passes(g), bounds_check=True)
    a = rand((40, 40), "float32")
    out = np.zeros((40, 40), "float32")
    mod(a, out)
    ref = np.zeros((40, 40), "float32")
    ref[2:18, 0:4] = a[2:18, 0:4]
    np.testing.assert_array_equal(out, ref)


# ---------------------------------------------------------------------------------------------
# exact bounds and layout transforms
# ---------------------------------------------------------------------------------------------
def test_exact_bounds_seed_2d():
    A, B, C, s, _ = seed_2d()
    s[B].rolling_buffer()
    f = inject_rolling_buffer(schedule_to_primfunc(s, [A, C], exact_bounds=True))
    assert realize_shape(f, "B") == [(0, 6), (0, 10)]
    mod = tepad.build(run_passes(f), bounds_check=True)
    a = rand((12, 12), "int8")
    c = np.zeros((8, 8), "int8")
    mod(a, c)
    np.testing.assert_array_equal(c, tepad.testing.reference(C, {A: a}))


def test_with_transform_layout_on_another_buffer():
    A = te.placeholder((12, 12), "int8", name="A")
    B = maxpool(A, "B")
    C = maxpool(B, "C")
    s = te.create_schedule(C.op)
    s[C].transform_layout(lambda i, j: [j, i])
    yo, xo, yi, xi = s[C].tile(s[C].leaf_iter_vars[0], s[C].leaf_iter_vars[1], 4, 4)
    s[B].compute_at(s[C], xo)
    s[B].rolling_buffer()
    mod = tepad.build(s, [A, C], bounds_check=True)
    a = rand((12, 12), "int8")
    c = np.zeros((8, 8), "int8")
    mod(a, c)
    np.testing.assert_array_equal(c.T, tepad.testing.reference(C, {A: a}))
