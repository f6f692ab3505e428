"""The tile a tensorized loop covers and the stage's body on the intrinsic's axes, as TVM's
test hooks ``test.op.InferTensorizeRegion`` / ``test.op.MatchTensorizeBody`` expose them;
and intrinsics written the way TVM's own cache_write body reads (a ``Select`` over the
stage's axis) matching tepad's guarded cache body."""
import numpy as np

import tepad
from tepad import te, tir
from tepad.arith import Analyzer


def _split_vadd(m, factor, vadd_plain):
    x = te.placeholder((m,), name="x")
    y = te.placeholder((m,), name="y")
    z = te.compute((m,), lambda i: x[i] + y[i], name="z")
    s = te.create_schedule(z.op)
    xo, xi = s[z].split(z.op.axis[0], factor=factor)
    vadd = vadd_plain(factor)
    s[z].tensorize(xi, vadd)
    return s.normalize(), x, y, z, xo, vadd


def test_region_of_a_tile(vadd_plain):
    s, x, y, z, xo, vadd = _split_vadd(64, 16, vadd_plain)
    bounds = te.schedule.InferBound(s)
    out_dom, in_dom = tepad.get_global_func("test.op.InferTensorizeRegion")(s[z], bounds)
    r = out_dom[z.op.axis[0]]
    assert int(r.extent) == 16
    ana = Analyzer()
    leaf = s[z].leaf_iter_vars[0]
    assert ana.can_prove_equal(r.min, leaf.var * 16)
    (tensor, ranges), _ = in_dom.items()
    assert tensor in (x, y) and int(ranges[0].extent) == 16
    body = tepad.get_global_func("test.op.MatchTensorizeBody")(s[z], out_dom, in_dom, vadd)
    tir.assert_structural_equal(ana.simplify(body[0]), ana.simplify(vadd.op.body[0]))
    # and the schedule builds and computes x + y
    f = tepad.build(s, [x, y, z])
    a, b = np.arange(64, dtype="float32"), np.ones(64, "float32")
    c = tepad.nd.empty((64,), "float32")
    f(tepad.nd.array(a), tepad.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a + b)


def test_reduction_body_lands_on_the_intrinsic_reduce_axis():
    n = 64
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(B[j, k] * A[i, k], axis=k), name="C")
    w = te.placeholder((8, n), name="w")
    v = te.placeholder((n,), name="v")
    kk = te.reduce_axis((0, n), name="kk")
    z = te.compute((8,), lambda i: te.sum(w[i, kk] * v[kk], axis=kk), name="z")
    gemv = te.decl_tensor_intrin(
        z.op, lambda ins, outs: (tir.call_packed("gemv", ins[0].data), None,
                                 tir.call_packed("gemv_add", ins[0].data)))
    s = te.create_schedule(C.op)
    _, yi = s[C].split(C.op.axis[1], factor=8)
    s[C].tensorize(yi, gemv)
    s = s.normalize()
    out_dom, in_dom = tepad.get_global_func("test.op.InferTensorizeRegion")(
        s[C], te.schedule.InferBound(s))
    assert int(out_dom[C.op.axis[0]].extent) == 1
    assert int(out_dom[C.op.axis[1]].extent) == 8
    body = tepad.get_global_func("test.op.MatchTensorizeBody")(s[C], out_dom, in_dom, gemv)
    ana = Analyzer()
    got, want = ana.simplify(body[0]), ana.simplify(z.op.body[0])
    assert list(got.axis) == [kk]
    tir.assert_structural_equal(got, want)


def test_two_separately_declared_sums_are_structurally_equal():
    A = te.placeholder((4, 4), name="A")
    k = te.reduce_axis((0, 4), name="k")
    s1 = te.compute((4,), lambda i: te.sum(A[i, k], axis=k)).op.body[0]
    s2 = te.compute((4,), lambda i: te.sum(A[i, k], axis=k)).op.body[0]
    mx = te.compute((4,), lambda i: te.max(A[i, k], axis=k)).op.body[0]
    assert tir.structural_equal(s1.combiner, s2.combiner)
    assert not tir.structural_equal(s1.combiner, mx.combiner)
    assert tir.structural_hash(s1.combiner) == tir.structural_hash(s2.combiner)


def test_select_intrinsic_matches_the_guarded_cache_of_a_partial_tile():
    m, factor = 129, 16
    x = te.placeholder((m,), name="x")
    y = te.placeholder((m,), name="y")
    z = te.compute((m,), lambda i: x[i] + y[i], name="z")
    s = te.create_schedule(z.op)
    s[z].split(z.op.axis[0], factor=factor)
    cache = s.cache_write(z, "global")
    xo, xi = cache.op.axis
    vx = te.placeholder((factor,), name="vx")
    vy = te.placeholder((factor,), name="vy")
    # the tile's guard written over the cache's own outer axis, with a Select
    vz = te.compute((factor,), lambda i: tir.Select(xo * factor + i < m, vx[i] + vy[i],
                                                    tir.const(0, "float32")), name="vz")
    vadd = te.decl_tensor_intrin(vz.op, lambda ins, outs: tir.call_packed(
        "vadd", ins[0].data, ins[1].data, outs[0].data),
        default_buffer_params={"offset_factor": 16})
    s[cache].tensorize(xi, vadd)
    text = str(tepad.lower(s.normalize(), [x, y, z]))
    assert text.count('"vadd"') == 1 and "range(9)" in text
