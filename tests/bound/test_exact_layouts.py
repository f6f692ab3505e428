"""Exact (ISL) InferBound with a consumer whose loops follow a ``transform_layout``: the
Transform relation ties the physical loops to the logical points, so a producer computed at a
(tiled) physical loop gets the region of that tile, not the whole tensor."""
import itertools
import re

import islpy as isl
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.bound import infer_bound
from tepad.arith.isl_bridge import NotAffine
from tepad.bound.exact import Exact, Names
from tepad.bound.explain import executed_set
from tepad.layout import from_physical, physical_shape
from tepad.lower.pipeline import schedule_to_primfunc
from tepad.testing import reference

rng = np.random.default_rng(5)


def maxpool(X, name, k=3, shape=None):
    r0 = te.reduce_axis((0, k), name + "_r0")
    r1 = te.reduce_axis((0, k), name + "_r1")
    h, w = shape or (int(x) - k + 1 for x in X.shape)
    return te.compute((h, w), lambda i, j: te.max(X[i + r0, j + r1], axis=[r0, r1]), name=name)


def realize_bounds(s, args, exact, name):
    f = schedule_to_primfunc(s, args, exact_bounds=exact)
    rs = []
    tir.post_order_visit(f.body, lambda n: rs.append(n) if isinstance(n, tir.BufferRealize)
                         and n.buffer.name == name else None)
    assert len(rs) == 1
    return rs[0].bounds


def run(s, A, C, lay, exact, a):
    """Build, run on ``a``; the logical output (C is stored in layout ``lay``)."""
    mod = tepad.build(tepad.lower(s, [A, C], exact_bounds=exact))
    shape = [int(d) for d in C.shape]
    c = np.zeros(physical_shape(shape, lay), C.dtype)
    mod(a, c)
    return from_physical(c, lay, shape)


def _points(st, keep):
    for k in reversed(range(st.dim(isl.dim_type.param))):
        if st.get_dim_name(isl.dim_type.param, k) not in keep:
            st = st.project_out(isl.dim_type.param, k, 1)
    return st


def check_exact_within_interval(s):
    """Over the whole run, every stage computes no point in exact mode that interval mode
    does not compute (the tests/bound/test_exact.py property)."""
    s2 = s.copy().normalize()
    bi, be = infer_bound(s2), infer_bound(s2, exact=True)
    names = Names()
    ei, ee = Exact(s2, bi, names), Exact(s2, be, names)
    for stg in s2.stages:
        if stg.attach_type.name == "InlinedAlready" or not hasattr(stg.op, "axis"):
            continue
        keep = {names.name(iv.var) for iv in stg.op.axis}
        pi = _points(executed_set(ei, stg), keep)
        pe = _points(executed_set(ee, stg), keep)
        assert pe.is_subset(pi), f"stage {stg.name}: exact {pe} not within interval {pi}"
    return be


def _loop_values(bounds_exprs, loops):
    """Every (loop values) -> evaluated [(min, extent)] of a realize."""
    from tepad.arith import Analyzer
    ana = Analyzer()
    out = {}
    for vals in itertools.product(*[range(n) for _, n in loops]):
        vmap = {v: tir.const(x, v.dtype) for (v, _), x in zip(loops, vals)}
        out[vals] = [(int(ana.simplify(tir.substitute(r.min, vmap))),
                      int(ana.simplify(tir.substitute(r.extent, vmap)))) for r in bounds_exprs]
    return out


# --- the reported case: a plain permutation ------------------------------------------------------

PERM = lambda i, j: [j, i]  # noqa: E731


def permuted_schedule(rolling=False):
    A = te.placeholder((12, 12), "int8", name="A")
    B = maxpool(A, "B")
    C = maxpool(B, "C")
    s = te.create_schedule(C.op)
    s[C].transform_layout(PERM)
    yo, xo, yi, xi = s[C].tile(s[C].leaf_iter_vars[0], s[C].leaf_iter_vars[1], 4, 4)
    s[B].compute_at(s[C], xo)
    if rolling:
        s[B].rolling_buffer()
    return s, A, B, C, (yo, xo)


def test_permuted_consumer_region_moves_with_the_tile():
    s, A, B, C, (yo, xo) = permuted_schedule()
    bi = realize_bounds(s, [A, C], False, "B")
    be = realize_bounds(s, [A, C], True, "B")
    loops = [(yo.var, 2), (xo.var, 2)]
    vi, ve = _loop_values(bi, loops), _loop_values(be, loops)
    # 6x6 per tile (4 outputs + a 3-window), moving with the tile loops: C's physical axis 0 is
    # its logical j, so B's rows follow xo and B's columns follow yo
    assert all(ext == 6 for v in ve.values() for _, ext in v)
    assert ve[(0, 0)] == [(0, 6), (0, 6)]
    assert ve[(0, 1)] == [(4, 6), (0, 6)]
    assert ve[(1, 0)] == [(0, 6), (4, 6)]
    assert ve == vi
    be_map = check_exact_within_interval(s)
    assert not be_map.exact_fallbacks


@pytest.mark.parametrize("rolling", [False, True])
def test_permuted_consumer_both_modes_equal_numpy(rolling):
    s, A, B, C, _ = permuted_schedule(rolling)
    a = rng.integers(-100, 100, (12, 12)).astype("int8")
    ref = reference(C, {A: a})
    for exact in (False, True):
        np.testing.assert_array_equal(run(s, A, C, PERM, exact, a), ref, err_msg=f"exact={exact}")


def test_rolling_buffer_with_exact_bounds_rolls():
    s, A, B, C, _ = permuted_schedule(rolling=True)
    f = tepad.lower(s, [A, C], exact_bounds=True)
    txt = str(f)
    assert "% 6" in txt                   # B rolls along one dimension of extent 6


# --- a padded layout: physical points without a logical preimage ---------------------------------

PAD = lambda i, j: [i // 4, j, i % 4]  # noqa: E731


def padded_schedule(chain=False):
    """C (10 x 9) stored as [i // 4, j, i % 4] (rows 10, 11 are padding); B (and with
    ``chain`` also its producer B0) computed at a tile loop of C's physical loops. B has two
    rows more than C reads (so that C's padding rows would ask for existing rows of B)."""
    A = te.placeholder((16, 13), "float32", name="A")
    B0 = te.compute((16, 13), lambda i, j: A[i, j] * 2 + 1, name="B0") if chain else A
    B = maxpool(B0, "B")
    C = maxpool(B, "C", shape=(10, 9))
    s = te.create_schedule(C.op)
    ax0, ax1, ax2 = s[C].transform_layout(PAD)
    ax1o, ax1i = s[C].split(ax1, factor=4)
    s[C].reorder(ax0, ax1o, ax1i, ax2)
    s[B].compute_at(s[C], ax1o)
    if chain:
        s[B0].compute_at(s[C], ax1o)
    return s, A, B, C, (ax0, ax1o)


@pytest.mark.parametrize("chain", [False, True])
def test_padded_consumer_both_modes_equal_numpy(chain):
    s, A, B, C, _ = padded_schedule(chain)
    a = rng.standard_normal((16, 13)).astype("float32")
    ref = reference(C, {A: a})
    for exact in (False, True):
        np.testing.assert_allclose(run(s, A, C, PAD, exact, a), ref, rtol=1e-6,
                                   err_msg=f"exact={exact}")
    be = check_exact_within_interval(s)
    assert not be.exact_fallbacks


def region_box(bm, op, loops, vals):
    """Per-dimension (min, extent) of exact mode's region of ``op`` at one attach iteration."""
    r = bm.exact_regions[op]
    for (v, _), x in zip(loops, vals):
        for k in range(r.dim(isl.dim_type.param)):
            if re.fullmatch(re.sub(r"\W", "_", v.name) + r"_\d+",
                            r.get_dim_name(isl.dim_type.param, k)):
                r = r.fix_val(isl.dim_type.param, k, isl.Val.int_from_si(r.get_ctx(), x))
    r = _points(r, set())
    out = []
    for d in range(r.dim(isl.dim_type.set)):
        lo, hi = r.dim_min_val(d).to_python(), r.dim_max_val(d).to_python()
        out.append((lo, hi - lo + 1))
    return out


def test_padded_consumer_exact_region_per_tile():
    s, A, B, C, (ax0, ax1o) = padded_schedule()
    be = realize_bounds(s, [A, C], True, "B")
    bi = realize_bounds(s, [A, C], False, "B")
    loops = [(ax0.var, 3), (ax1o.var, 3)]
    ve, vi = _loop_values(be, loops), _loop_values(bi, loops)
    for k, v in ve.items():
        for (emin, eext), (imin, iext) in zip(v, vi[k]):
            assert imin <= emin and emin + eext <= imin + iext, (k, v, vi[k])
    s2 = s.copy().normalize()
    bm = infer_bound(s2, exact=True)
    Bop = [st.op for st in s2.stages if st.name == "B"][0]
    # rows: 4 outputs of C need 6 rows of B; the last row block holds C rows 8, 9 only (10 and
    # 11 are padding of C's layout), which need B rows 8..11 although B has rows up to 13.
    # columns: 4 outputs need 6 columns, the last block (j = 8) needs 3
    assert region_box(bm, Bop, loops, (0, 0)) == [(0, 6), (0, 6)]
    assert region_box(bm, Bop, loops, (1, 1)) == [(4, 6), (4, 6)]
    assert region_box(bm, Bop, loops, (2, 0)) == [(8, 4), (0, 6)]
    assert region_box(bm, Bop, loops, (2, 2)) == [(8, 4), (8, 3)]
    # the buffer is a 6x6 tile; the rows past the region are guarded off
    assert bm.predicates.get(Bop)
    rep = tepad.bound.explain(s)
    assert rep["B"].computed_exact == 240 < rep["B"].computed_interval == 270


def test_padded_consumer_rolling_buffer_exact():
    s, A, B, C, _ = padded_schedule()
    s[B].rolling_buffer()
    a = rng.standard_normal((16, 13)).astype("float32")
    ref = reference(C, {A: a})
    for exact in (False, True):
        np.testing.assert_allclose(run(s, A, C, PAD, exact, a), ref, rtol=1e-6,
                                   err_msg=f"exact={exact}")


def test_select_map_uses_the_index_map_conversion():
    """A layout with a Select (constant-difference branches): the layout constraint splits it
    into one disjunct per branch (``IslWriter.constraint``), still exact (no fallback)."""
    lay = lambda i, j: [tir.Select(i < 4, i, i + 4), j]  # noqa: E731
    A = te.placeholder((10, 10), "float32", name="A")
    B = maxpool(A, "B")
    C = maxpool(B, "C")
    s = te.create_schedule(C.op)
    ax0, ax1 = s[C].transform_layout(lay)
    ax0o, ax0i = s[C].split(ax0, factor=4)
    s[B].compute_at(s[C], ax0o)
    s2 = s.copy().normalize()
    be = infer_bound(s2, exact=True)
    assert not be.exact_fallbacks
    a = rng.standard_normal((10, 10)).astype("float32")
    ref = reference(C, {A: a})
    for exact in (False, True):
        np.testing.assert_allclose(run(s, A, C, lay, exact, a), ref, rtol=1e-6,
                                   err_msg=f"exact={exact}")
    check_exact_within_interval(s)


def test_transform_without_isl_encoding_falls_back_visibly(monkeypatch):
    """When the layout map cannot be encoded, the producer gets the interval answer and the
    fallback is recorded."""
    s, A, B, C, _ = permuted_schedule()

    def boom(self, stage, rel, c):
        raise NotAffine(f"stage {stage.name}: layout map not quasi-affine (test)")
    monkeypatch.setattr(Exact, "_transform_constraints", boom)
    s2 = s.copy().normalize()
    be = infer_bound(s2, exact=True)
    assert any(fb.stage == "B" and "layout map" in fb.reason for fb in be.exact_fallbacks)
    a = rng.integers(-100, 100, (12, 12)).astype("int8")
    np.testing.assert_array_equal(run(s, A, C, PERM, True, a), reference(C, {A: a}))
