"""Vector tails: the partial last tile of a vectorized loop whose extent the split factor
does not divide -- as a guarded scalar loop (the default), masked vector loads/stores or
halving plain vectors (``vectorize_loop.TAILS``), or shifted inward (``split(...,
tail="shift")``, Halide's ShiftInwards) where legal."""
import importlib

import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.errors import TepadError
from tepad.tir import IfThenElse, Min, post_order_visit

EXTENTS = [1, 2, 7, 15, 16, 17, 31, 33, 37, 64, 101, 127, 2047]
VL = importlib.import_module("tepad.lower.passes.vectorize_loop")


@pytest.fixture(params=["scalar", "masked", "halves"])
def tails(request, monkeypatch):
    """Each way the vectorizer runs a partial vector."""
    monkeypatch.setattr(VL, "TAILS", request.param)
    return request.param


@pytest.fixture
def masked(monkeypatch):
    monkeypatch.setattr(VL, "TAILS", "masked")


def _nodes(func, cls):
    out = []
    post_order_visit(func.body, lambda n: out.append(n) if isinstance(n, cls) else None)
    return out


def _affine(n, factor, tail="guard", rows=3, dtype="float32", parallel=True):
    A = te.placeholder((rows, n), dtype, name="A")
    B = te.compute((rows, n), lambda j, i: A[j, i] * tir.const(3, dtype) + tir.const(1, dtype),
                   name="B")
    s = te.create_schedule(B.op)
    _, xi = s[B].split(B.op.axis[1], factor=factor, tail=tail)
    s[B].vectorize(xi)
    if parallel:
        s[B].parallel(B.op.axis[0])
    return s, [A, B]


def _check_affine(s, args, n, rows=3, dtype="float32", bounds_check=False):
    mod = tepad.build(s, args, bounds_check=bounds_check)
    rng = np.random.default_rng(n)
    a = (rng.random((rows, n)) * 50).astype(dtype)
    b = np.full((rows, n), 7, dtype)
    mod(a, b)
    np.testing.assert_allclose(b, a * np.asarray(3, dtype) + np.asarray(1, dtype), rtol=1e-6)
    return mod


@pytest.mark.parametrize("tail", ["guard", "shift"])
@pytest.mark.parametrize("n", EXTENTS)
def test_tails_match_numpy_for_many_extents(n, tail, tails):
    s, args = _affine(n, 16 if tails != "halves" else 32, tail)
    _check_affine(s, args, n)
    _check_affine(s, args, n, bounds_check=True)     # nothing past the row is touched


@pytest.mark.parametrize("dtype", ["float64", "int8", "int32"])
@pytest.mark.parametrize("n", [5, 19, 70])
def test_partial_vectors_other_dtypes(n, dtype, tails):
    s, args = _affine(n, 16, dtype=dtype)
    _check_affine(s, args, n, dtype=dtype, bounds_check=True)


def test_guarded_tail_is_masked_vector_code(masked):
    s, args = _affine(37, 16, parallel=False)
    f = tepad.lower(s, args)["main"]
    mod = _check_affine(s, args, 37)
    ll = mod.get_source()
    assert "llvm.masked.store" in ll and "llvm.masked.load" in ll
    # the loop the guard leaves is not a scalar copy of the body
    from tepad.lower.pipeline import lower_for_codegen
    g = lower_for_codegen(f)
    masks = [x for x in _nodes(g, IfThenElse) if tir.dtype.lanes(x.condition.dtype) > 1]
    assert masks and all(tir.dtype.lanes(x.condition.dtype) == 16 for x in masks)
    assert len(masks) == 1                          # one partial vector per row, 5 lanes on
    assert not [x for x in _nodes(g, tir.For) if x.loop_var.name.endswith(".s")]


def test_64_lane_partial_vector_gets_one_mask_per_16_lanes(masked):
    from tepad.lower.pipeline import lower_for_codegen
    s, args = _affine(100, 64, parallel=False)
    g = lower_for_codegen(s, args)
    masks = [x for x in _nodes(g, IfThenElse) if tir.dtype.lanes(x.condition.dtype) > 1]
    assert len(masks) == 4 and {tir.dtype.lanes(x.condition.dtype) for x in masks} == {16}
    _check_affine(s, args, 100, bounds_check=True)


def test_halves_tail_is_plain_vectors(monkeypatch):
    from tepad.lower.pipeline import lower_for_codegen
    monkeypatch.setattr(VL, "TAILS", "halves")
    s, args = _affine(37, 32, parallel=False)      # one tile of 32, one partial of 5 lanes
    g = lower_for_codegen(s, args)
    lanes = {r.lanes for r in _nodes(g, tir.Ramp)}
    # the simplifier drops the pieces it proves never run (the 5-lane tail: 16 and 8)
    assert 32 in lanes and 4 in lanes and lanes <= {32, 16, 8, 4}
    assert not [x for x in _nodes(g, IfThenElse) if tir.dtype.lanes(x.condition.dtype) > 1]
    mod = _check_affine(s, args, 37, bounds_check=True)
    assert "llvm.masked" not in mod.get_source()


def test_bool_output_masked(tails):
    n = 21
    A = te.placeholder((n,), "float32", name="A")
    B = te.compute((n,), lambda i: A[i] > tir.const(0.5, "float32"), name="B")
    s = te.create_schedule(B.op)
    _, xi = s[B].split(B.op.axis[0], factor=8)
    s[B].vectorize(xi)
    mod = tepad.build(s, [A, B], bounds_check=True)
    a = np.random.default_rng(1).random(n, dtype="float32")
    b = np.zeros(n, bool)
    mod(a, b)
    np.testing.assert_array_equal(b, a > 0.5)


def test_shift_moves_the_last_tile_inward():
    s, args = _affine(37, 16, "shift")
    f = tepad.lower(s, args)["main"]
    assert not _nodes(f, IfThenElse)                  # no guard at all
    mins = _nodes(f, Min)
    assert mins and any(isinstance(m.b, tir.IntImm) and m.b.value == 37 - 16 for m in mins)
    ll = tepad.build(s, args).get_source()
    assert "llvm.masked" not in ll


def test_shift_dividing_or_too_short_keeps_plain_code():
    s, args = _affine(32, 16, "shift")                # divides: nothing to shift
    assert not _nodes(tepad.lower(s, args)["main"], Min)
    s, args = _affine(9, 16, "shift")                 # shorter than one tile: one short tile
    f = tepad.lower(s, args)["main"]
    assert not _nodes(f, Min)
    _check_affine(s, args, 9, bounds_check=True)


def test_shift_is_not_used_for_a_reduction():
    n, k = 37, 5
    A = te.placeholder((n, k), name="A")
    r = te.reduce_axis((0, k), name="r")
    B = te.compute((n,), lambda i: te.sum(A[i, r], axis=r), name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=8, tail="shift")
    s[B].reorder(xo, r, xi)           # r outside xi: shifting would add twice
    s[B].vectorize(xi)
    f = tepad.lower(s, [A, B])["main"]
    assert not _nodes(f, Min)
    a = np.random.default_rng(2).random((n, k), dtype="float32")
    b = np.zeros(n, "float32")
    tepad.build(s, [A, B], bounds_check=True)(a, b)
    np.testing.assert_allclose(b, a.sum(1), rtol=1e-5)


def _blur(n, tail, tx=16):
    A = te.placeholder((n, n), "float32", name="A")
    Bx = te.compute((n, n - 2), lambda y, x: A[y, x] + A[y, x + 1] + A[y, x + 2], name="Bx")
    By = te.compute((n - 2, n - 2), lambda y, x: Bx[y, x] + Bx[y + 1, x] + Bx[y + 2, x],
                    name="By")
    s = te.create_schedule(By.op)
    xo, xi = s[By].split(By.op.axis[1], factor=tx, tail=tail)
    s[By].vectorize(xi)
    s[Bx].compute_at(s[By], xo)
    s[Bx].vectorize(s[Bx].op.axis[1])
    return s, [A, By]


def _blur_ref(a):
    bx = a[:, :-2] + a[:, 1:-1] + a[:, 2:]
    return bx[:-2] + bx[1:-1] + bx[2:]


@pytest.mark.parametrize("n", [12, 21, 37])
@pytest.mark.parametrize("tail", ["guard", "shift"])
def test_compute_at_producer_blocks_the_shift_and_masks_stay_in_bounds(n, tail, tails):
    """Bx's region is inferred for By's unshifted tile, so By keeps its guard (masked)."""
    s, args = _blur(n, tail)
    f = tepad.lower(s, args)["main"]
    assert not _nodes(f, Min) or tail == "guard"
    a = np.random.default_rng(n).random((n, n), dtype="float32")
    out = np.zeros((n - 2, n - 2), "float32")
    tepad.build(s, args, bounds_check=True)(a, out)
    np.testing.assert_allclose(out, _blur_ref(a), rtol=1e-5)


def test_shift_of_a_producer_at_the_root_is_legal():
    n = 37
    A = te.placeholder((n, n), "float32", name="A")
    Bx = te.compute((n, n - 2), lambda y, x: A[y, x] + A[y, x + 1] + A[y, x + 2], name="Bx")
    By = te.compute((n - 2, n - 2), lambda y, x: Bx[y, x] + Bx[y + 1, x] + Bx[y + 2, x],
                    name="By")
    s = te.create_schedule(By.op)
    for st in (s[Bx], s[By]):
        _, xi = st.split(st.op.axis[1], factor=16, tail="shift")
        st.vectorize(xi)
    f = tepad.lower(s, [A, By])["main"]
    assert len({m.b.value for m in _nodes(f, Min) if isinstance(m.b, tir.IntImm)}) >= 1
    assert not _nodes(f, IfThenElse)
    a = np.random.default_rng(3).random((n, n), dtype="float32")
    out = np.zeros((n - 2, n - 2), "float32")
    tepad.build(s, [A, By], bounds_check=True)(a, out)
    np.testing.assert_allclose(out, _blur_ref(a), rtol=1e-5)


def test_split_tail_is_checked():
    A = te.placeholder((10,), name="A")
    B = te.compute((10,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    with pytest.raises(TepadError, match="tail is 'guard'"):
        s[B].split(B.op.axis[0], factor=4, tail="round_up")
    with pytest.raises(TepadError, match="needs factor="):
        s[B].split(B.op.axis[0], nparts=4, tail="shift")
