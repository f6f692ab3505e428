"""topi's elementwise math, broadcasting ops, reductions and transforms against numpy,
built with the plain, x86 and (emulated) cuda injective schedules."""
import numpy as np
import pytest
from scipy import special

from tepad import te, topi
from tepad.errors import TepadError

from topi_helpers import placeholder, rand, run

TARGETS = [(None, "llvm"), ("x86", "llvm"), ("cuda", "cuda")]


def _sched(kind, name):
    return None if kind is None else getattr(getattr(topi, kind), name)


UNARY = {
    "exp": np.exp, "fast_exp": np.exp, "log": np.log, "log2": np.log2, "log10": np.log10,
    "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x), "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "tanh": np.tanh, "fast_tanh": np.tanh, "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "atan": np.arctan, "erf": special.erf, "fast_erf": special.erf, "abs": np.abs,
    "negative": np.negative, "floor": np.floor, "ceil": np.ceil, "round": np.round,
    "trunc": np.trunc, "sign": np.sign, "identity": lambda x: x,
}


@pytest.mark.parametrize("kind, target", TARGETS)
def test_unary_math(kind, target):
    a = rand((3, 19), lo=0.1, hi=3.0)
    a[0, :4] = [0.5, 1.5, 2.5, -0.5]            # round: halves go to even, as numpy
    a[1, :2] = [-2.7, -0.3]
    pos = np.abs(a)
    A, P = placeholder(a, "A"), placeholder(pos, "P")
    logs = ("log", "log2", "log10", "sqrt", "rsqrt")
    outs = [getattr(topi, k)(P if k in logs else A) for k in UNARY]
    got = run(outs, [A, P], [a, pos], _sched(kind, "schedule_injective"), target)
    for (k, ref), g in zip(UNARY.items(), got):
        np.testing.assert_allclose(g, ref(pos if k in logs else a), rtol=2e-6, atol=2e-6,
                                   err_msg=k)
    assert topi.math.exp is topi.exp and topi.math.cast is topi.cast


def test_float_tests_cast_clip_and_logical_not():
    a = np.array([[1.0, np.nan, np.inf, -2.5, 0.0, 7.9]], "float32")
    A = placeholder(a, "A")
    outs = [topi.isnan(A), topi.isinf(A), topi.isfinite(A), topi.cast(A, "int32"),
            topi.clip(A, -1.0, 2.0), topi.logical_not(A)]
    got = run(outs, [A], [a], topi.generic.schedule_injective)
    with np.errstate(invalid="ignore"):
        want = [np.isnan(a), np.isinf(a), np.isfinite(a)]
    for g, w in zip(got[:3], want):
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(got[3][0, 3:], [-2, 0, 7])     # C's truncation
    np.testing.assert_array_equal(got[4][0, [0, 2, 3, 5]], [1.0, 2.0, -1.0, 2.0])
    np.testing.assert_array_equal(got[5], a == 0)
    assert str(topi.cast(3, "float32").dtype) == "float32"       # scalars give expressions
    with pytest.raises(TepadError, match="topi.exp takes a te.Tensor"):
        topi.exp(np.ones(3))


def test_fixed_point_multiply():
    x = np.array([-1000, -3, 0, 5, 12345, 2 ** 20], "int32")
    X = placeholder(x, "X")
    mult, shift = 1288490189, -2          # ~0.6 * 2**31, then / 4
    got = run(topi.fixed_point_multiply(X, mult, shift), [X], [x])
    want = np.floor(x.astype(np.float64) * mult / 2 ** 33 + 0.5).astype("int32")
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("kind, target", TARGETS)
def test_broadcast_binary_and_compare(kind, target):
    a, b = rand((4, 1, 6), lo=0.5, hi=3), rand((5, 1), lo=0.5, hi=3)
    A, B = placeholder(a, "A"), placeholder(b, "B")
    float_ops = {"power": np.power, "mod": np.fmod, "floor_divide": np.floor_divide,
                 "floor_mod": np.mod}
    cmp_ops = {"equal": np.equal, "less": np.less, "greater_equal": np.greater_equal}
    outs = [getattr(topi, k)(A, B) for k in list(float_ops) + list(cmp_ops)]
    got = run(outs, [A, B], [a, b], _sched(kind, "schedule_broadcast"), target)
    for (k, ref), g in zip(list(float_ops.items()) + list(cmp_ops.items()), got):
        np.testing.assert_allclose(g, ref(a, b), rtol=1e-5, atol=1e-5, err_msg=k)


def test_logical_ops_where_and_integer_mod():
    p = np.array([[True, False, True, False]])
    q = np.array([[True], [False]])
    P, Q = placeholder(p, "P"), placeholder(q, "Q")
    x, y = rand((2, 4)), rand((4,))
    X, Y = placeholder(x, "X"), placeholder(y, "Y")
    i = np.array([-7, -1, 5, 9], "int32")
    I = placeholder(i, "I")
    outs = [topi.logical_and(P, Q), topi.logical_or(P, Q), topi.logical_xor(P, Q),
            topi.where(P, X, Y), topi.where(P, X, 0.5), topi.mod(I, 4), topi.floor_mod(I, 4),
            topi.floor_divide(I, 4), topi.broadcast_to(Y, (3, 4))]
    got = run(outs, [P, Q, X, Y, I], [p, q, x, y, i], topi.x86.schedule_injective)
    np.testing.assert_array_equal(got[0], p & q)
    np.testing.assert_array_equal(got[1], p | q)
    np.testing.assert_array_equal(got[2], p ^ q)
    np.testing.assert_array_equal(got[3], np.where(p, x, y))
    np.testing.assert_array_equal(got[4], np.where(p, x, np.float32(0.5)))
    np.testing.assert_array_equal(got[5], np.fmod(i, 4))
    np.testing.assert_array_equal(got[6], np.mod(i, 4))
    np.testing.assert_array_equal(got[7], i // 4)
    np.testing.assert_array_equal(got[8], np.broadcast_to(y, (3, 4)))


@pytest.mark.parametrize("kind, target", [(None, "llvm"), ("x86", "llvm"), ("cuda", "cuda")])
def test_reductions(kind, target):
    a = rand((3, 4, 5))
    a[1, 2, 3] = 5.0
    A = placeholder(a, "A")
    b = np.array([[1, 0, 2], [3, 4, 0]], "int32")
    B = placeholder(b, "B")
    outs = [topi.prod(A, axis=1), topi.argmax(A, axis=2), topi.argmin(A, axis=0),
            topi.any(B, axis=1), topi.all(B, axis=0), topi.sum(A, axis=(0, 2), keepdims=True)]
    got = run(outs, [A, B], [a, b], _sched(kind, "schedule_reduce"), target)
    np.testing.assert_allclose(got[0], a.prod(axis=1), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got[1], a.argmax(axis=2))
    np.testing.assert_array_equal(got[2], a.argmin(axis=0))
    np.testing.assert_array_equal(got[3], b.any(axis=1))
    np.testing.assert_array_equal(got[4], b.all(axis=0))
    np.testing.assert_allclose(got[5], a.sum(axis=(0, 2), keepdims=True), rtol=1e-5, atol=1e-5)


def test_argmax_of_everything():
    a = rand((4, 6))
    A = placeholder(a, "A")
    got = run([topi.argmax(A), topi.argmin(A, keepdims=True)], [A], [a])
    assert int(got[0]) == a.argmax() and got[1].shape == (1, 1) and got[1][0, 0] == a.argmin()


@pytest.mark.parametrize("kind, target", TARGETS)
def test_transforms(kind, target):
    a = rand((2, 3, 4))
    A = placeholder(a, "A")
    b = rand((2, 5, 4))
    B = placeholder(b, "B")
    idx = np.array([[0, 2], [-1, 7]], "int32")
    I = placeholder(idx, "I")
    outs = [topi.reshape(A, (4, -1)), topi.transpose(A, (2, 0, 1)), topi.expand_dims(A, 1, 2),
            topi.squeeze(topi.expand_dims(A, 0), axis=0), topi.concatenate([A, B], axis=1),
            topi.stack([A, A], axis=-1), topi.take(A, I, axis=1), topi.take(A, I, mode="wrap"),
            topi.strided_slice(B, [1, -1, 0], [2, 0, 4], [1, -2, 3]), topi.flip(A, axis=2),
            topi.repeat(A, 2, axis=1), topi.tile(A, (2, 1, 1, 2)), topi.full_like(A, 3.0),
            topi.arange(2, 9, 3, "int32")]
    outs += topi.split(B, [1, 4], axis=1)
    got = run(outs, [A, B, I], [a, b, idx], _sched(kind, "schedule_injective"), target)
    want = [a.reshape(4, -1), a.transpose(2, 0, 1), a[:, None, None], a,
            np.concatenate([a, b], 1), np.stack([a, a], -1), np.take(a, np.clip(idx, 0, 2), 1),
            np.take(a, idx, mode="wrap"), b[1:2, -1:0:-2, 0:4:3], a[:, :, ::-1],
            np.repeat(a, 2, 1), np.tile(a, (2, 1, 1, 2)), np.full_like(a, 3.0),
            np.arange(2, 9, 3)] + np.split(b, [1, 4], 1)
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_array_equal(g, w, err_msg=f"output {k}")


def test_transform_mistakes_name_the_argument():
    A = te.placeholder((2, 3), name="A")
    with pytest.raises(TepadError, match="topi.reshape: A has 6 elements"):
        topi.reshape(A, (4, 2))
    with pytest.raises(TepadError, match="topi.squeeze: axis 1 of A has extent 3"):
        topi.squeeze(A, axis=1)
    with pytest.raises(TepadError, match="do not split into 2 equal parts"):
        topi.split(A, 2, axis=1)
    with pytest.raises(TepadError, match="topi.transpose: axis 5 is out of range"):
        topi.transpose(A, (0, 5))
    with pytest.raises(TepadError, match="all extents but axis 1 and the dtype must agree"):
        topi.concatenate([A, te.placeholder((3, 3), name="B")], axis=1)
    with pytest.raises(TepadError, match="topi.take: mode must be"):
        topi.take(A, 1, mode="raise")


def test_gather_and_tags():
    a = rand((3, 4))
    idx = np.array([[0, 3, 1, 1], [2, 2, 0, 3], [1, 0, 0, 0]], "int32")
    A, I = placeholder(a, "A"), placeholder(idx, "I")
    np.testing.assert_array_equal(run(topi.gather(A, 1, I), [A, I], [a, idx]),
                                  np.take_along_axis(a, idx, 1))
    assert topi.tag.is_injective(topi.transpose(A).op.tag)
    assert topi.tag.is_broadcast(topi.add(A, 1.0).op.tag)
    assert topi.exp(A).op.name == "T_exp" and topi.exp(A).op.tag == topi.tag.ELEMWISE


def test_strided_slice_axes_and_size_mode():
    from tepad.topi import testing as tt
    a = rand((4, 6, 5))
    A = placeholder(a, "A")
    outs = [topi.strided_slice(A, [1, -2], [-1, 0], [2, -1], axes=[0, 2]),
            topi.strided_slice(A, [1, 2], [2, -1], axes=[1, 2], slice_mode="size"),
            topi.strided_slice(A, [-100], [100])]
    got = run(outs, [A], [a], topi.x86.schedule_injective)
    np.testing.assert_array_equal(got[0], a[1:-1:2, :, -2:0:-1])
    np.testing.assert_array_equal(got[0], tt.strided_slice_python(a, [1, -2], [-1, 0], [2, -1],
                                                                 axes=[0, 2]))
    np.testing.assert_array_equal(got[1], a[:, 1:3, 2:])
    np.testing.assert_array_equal(got[1], tt.strided_slice_python(a, [1, 2], [2, -1], None,
                                                                 axes=[1, 2], slice_mode="size"))
    np.testing.assert_array_equal(got[2], a)


def test_take_batch_dims():
    a = rand((2, 3, 4))
    idx = np.array([[2, 0], [1, 1]], "int32")
    A, I = placeholder(a, "A"), placeholder(idx, "I")
    got = run(topi.take(A, I, axis=1, batch_dims=1), [A, I], [a, idx])
    want = np.stack([np.take(a[b], idx[b], axis=0) for b in range(2)])
    np.testing.assert_array_equal(got, want)


def test_fast_exp_and_fast_tanh_accuracy():
    """The approximations over their whole range: exp within 1e-6 relative (inputs clamped
    to [-87.3, 88.3] as TVM's), tanh within 1e-6 absolute, near 0 included."""
    x = np.concatenate([np.linspace(-87, 88, 3001), np.linspace(-1e-3, 1e-3, 1001),
                        np.linspace(-12, 12, 2001), [-200.0, 200.0]]).astype("float32")
    A = placeholder(x, "A")
    e, t = run([topi.fast_exp(A), topi.fast_tanh(A)], [A], [x], topi.x86.schedule_injective)
    ref = np.exp(np.clip(x, np.float32(-87.3), np.float32(88.3)).astype("float64"))
    np.testing.assert_allclose(e, ref, rtol=1e-6)
    np.testing.assert_allclose(t, np.tanh(x.astype("float64")), rtol=0, atol=1e-6)
    assert topi.fast_exp(A).op.name == "T_fast_exp"
