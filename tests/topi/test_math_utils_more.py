"""The inverse and hyperbolic math of topi, ceil_log2, fixed_point_multiply_per_axis, the
relay legalization hooks and topi.utils' index / constant helpers, against numpy."""
import numpy as np
import pytest

import tepad
from tepad import te, tir, topi
from tepad.errors import TepadError
from tepad.target import Target
from tepad.topi import utils

from topi_helpers import placeholder, run

_RNG = np.random.default_rng(29)   # our own stream: the shared one feeds other files' data


def rand(shape, dtype="float32", lo=-1.0, hi=1.0):
    return (_RNG.random(shape) * (hi - lo) + lo).astype(dtype)

TARGETS = [(None, "llvm"), ("x86", "llvm"), ("cuda", "cuda")]

# op -> (numpy reference, input range)
INVERSE = {"asin": (np.arcsin, -0.99, 0.99), "acos": (np.arccos, -0.99, 0.99),
           "atanh": (np.arctanh, -0.95, 0.95), "sinh": (np.sinh, -3.0, 3.0),
           "cosh": (np.cosh, -3.0, 3.0), "asinh": (np.arcsinh, -5.0, 5.0),
           "acosh": (np.arccosh, 1.01, 6.0)}


@pytest.mark.parametrize("kind, target", TARGETS)
def test_inverse_and_hyperbolic(kind, target):
    arrays = [rand((4, 13), lo=lo, hi=hi) for _, lo, hi in INVERSE.values()]
    ins = [placeholder(a, f"A{k}") for k, a in enumerate(arrays)]
    outs = [getattr(topi, name)(t) for name, t in zip(INVERSE, ins)]
    sched = None if kind is None else getattr(topi, kind).schedule_injective
    got = run(outs, ins, arrays, sched, target)
    for (name, (ref, _, _)), a, g in zip(INVERSE.items(), arrays, got):
        np.testing.assert_allclose(g, ref(a), rtol=3e-6, atol=3e-6, err_msg=name)
    assert topi.math.acosh is topi.acosh
    assert outs[0].op.tag == "elemwise" and outs[0].dtype == "float32"


def test_inverse_float64_keeps_dtype():
    a = rand((9,), "float64", -0.9, 0.9)
    A = placeholder(a, "A")
    out = topi.asin(A)
    assert out.dtype == "float64"
    np.testing.assert_allclose(run(out, [A], [a]), np.arcsin(a), rtol=1e-13)


@pytest.mark.parametrize("target", ["llvm", "cuda"])
def test_ceil_log2(target):
    a = np.array([1, 2, 3, 4, 5, 7, 8, 9, 1000, 1024, 1025], "int32")
    f = np.array([0.5, 1.0, 1.5, 3.9, 4.0, 4.1, 100.0], "float32")
    A, F = placeholder(a, "A"), placeholder(f, "F")
    oi, of = topi.ceil_log2(A), topi.ceil_log2(F)
    assert oi.dtype == "int32" and of.dtype == "float32"
    sched = topi.cuda.schedule_injective if target == "cuda" else None
    gi, gf = run([oi, of], [A, F], [a, f], sched, target)
    np.testing.assert_array_equal(gi, np.ceil(np.log2(a)).astype("int32"))
    np.testing.assert_array_equal(gf, np.ceil(np.log2(f)))
    e = topi.ceil_log2(37)
    assert e.dtype == "int32" and tepad.arith.simplify(e).value == 6


def _fpm_reference(x, m, ls, rs, axis):
    shape = [1] * x.ndim
    shape[axis] = -1
    m, ls, rs = (v.reshape(shape).astype(np.int64) for v in (m, ls, rs))
    v = (x.astype(np.int64) << ls) * m
    total = rs + 31
    return ((v + (np.int64(1) << (total - 1))) >> total).astype(np.int32)


@pytest.mark.parametrize("target", ["llvm", "cuda"])
def test_fixed_point_multiply_per_axis(target):
    rng = np.random.default_rng(3)
    x = rng.integers(-5000, 5000, (2, 3, 5), dtype=np.int32)
    m = rng.integers(1 << 29, (1 << 31) - 1, (3,), dtype=np.int64).astype(np.int32)
    ls = np.array([0, 2, 1], "int32")
    rs = np.array([3, 0, 1], "int32")
    X, M, L, R = (placeholder(v, n) for v, n in ((x, "X"), (m, "M"), (ls, "L"), (rs, "R")))
    out = topi.fixed_point_multiply_per_axis(X, M, L, R, 1, 1, axes=(1,))
    sched = topi.cuda.schedule_injective if target == "cuda" else None
    got = run(out, [X, M, L, R], [x, m, ls, rs], sched, target)
    np.testing.assert_array_equal(got, _fpm_reference(x, m, ls, rs, 1))
    # without the left shift, the shifts of `lshift` are ignored
    out = topi.fixed_point_multiply_per_axis(X, M, L, R, 0, 1, axes=[1])
    got = run(out, [X, M, L, R], [x, m, ls, rs])
    np.testing.assert_array_equal(got, _fpm_reference(x, m, np.zeros(3, "int32"), rs, 1))
    with pytest.raises(TepadError, match="axes"):
        topi.fixed_point_multiply_per_axis(X, M, L, R, 1, 1, axes=(0, 1))
    with pytest.raises(TepadError, match="int32"):
        topi.fixed_point_multiply_per_axis(te.placeholder((3,), "float32"), M, L, R, 1, 1,
                                           (0,))


def test_legalize_hooks_are_generic_funcs():
    for hook in (topi.erf_legalize, topi.take_legalize, topi.transform.take_legalize,
                 topi.math.erf_legalize):
        assert hook(None, [], []) is None
    topi.erf_legalize.register("cuda", lambda attrs, inputs, types: "rewritten")
    with Target("cuda"):
        assert topi.erf_legalize(None, [], []) == "rewritten"
    with Target("llvm"):
        assert topi.erf_legalize(None, [], []) is None


def test_const_vector_and_matrix():
    vec = np.array([1.5, -2.0, 3.25], "float32")
    mat = np.arange(12, dtype="float64").reshape(3, 4) / 7
    V, M = utils.const_vector(vec, "V"), utils.const_matrix(mat)
    assert V.dtype == "float32" and M.dtype == "float64"
    assert M.op.attrs["const_matrix"] and M.op.name == "const_matrix"
    gv, gm = run([V, M], [], [])
    np.testing.assert_array_equal(gv, vec)
    np.testing.assert_array_equal(gm, mat)
    with pytest.raises(TepadError, match="2-d"):
        utils.const_matrix(vec)


def test_index_helpers():
    shape = (3, 4, 5)
    for flat in (0, 7, 59):
        coords = np.unravel_index(flat, shape)
        assert utils.ravel_index(list(coords), shape) == flat
        got = [tepad.arith.simplify(tir.const(0, "int32") + c).value
               for c in utils.unravel_index(tir.const(flat, "int32"), shape)]
        assert got == list(coords)
    n = te.var("n")
    assert utils.is_dynamic_shape((3, n)) and not utils.is_dynamic_shape((3, 4))
    assert utils.is_empty_shape((3, 0)) and not utils.is_empty_shape((3, n))
    assert utils.ceil_div(7, 2) == 4 and utils.ceil_div(8, 2) == 4
    assert tepad.arith.simplify(utils.ceil_div(tir.const(9, "int32"), 4)).value == 3
    assert utils.swap([0, 1, 2, 3], 1) == [0, 3, 2, 1]
    assert utils.get_max_power2_factor(48) == 16 and utils.get_max_power2_factor(48, 4) == 4
    assert utils.get_max_power2_factor(7) == 1
    assert utils.get_float_tuple((tir.const(1.5, "float32"), 2)) == (1.5, 2.0)
    assert utils.ncw_pack_layout("NCW4n4c") and not utils.ncw_pack_layout("NCW4c")
    assert utils.ncw_xc_layout("NCW16c") and not utils.ncw_xc_layout("NCHW16c")
    assert issubclass(topi.InvalidShapeError, ValueError)
    assert issubclass(utils.InvalidShapeError, TepadError)


@pytest.mark.parametrize("b, e, s", [(1, 9, 3), (8, 0, -3), (0, 10, 1), (9, -1, -2)])
def test_within_index_and_make_idx(b, e, s):
    """Against python's slicing of range(10): which positions a slice picks, and where in the
    slice each picked position lands."""
    n = 10
    picked = list(range(n))[b:e if e >= 0 else None:s]
    i = te.var("i")
    w, m = utils.within_index(b, e, s, i), utils.make_idx(b, e, s, n, i)
    out = te.compute((n,), lambda k: tir.Select(utils.within_index(b, e, s, k),
                                               utils.make_idx(b, e, s, n, k), -1), name="o")
    got = run(out, [], [])
    want = np.array([picked.index(k) if k in picked else -1 for k in range(n)], "int32")
    np.testing.assert_array_equal(got, want)
    assert w.dtype == "bool" and m.dtype == "int32"


def test_is_target():
    with Target("cuda"):
        assert utils.is_target("cuda") and utils.is_target(["rocm", "gpu"])
    with Target("llvm"):
        assert not utils.is_target("cuda") and utils.is_target("cpu")
    with pytest.raises(TepadError, match="no current target"):
        utils.is_target("cpu")
