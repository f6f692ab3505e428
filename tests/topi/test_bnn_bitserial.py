"""topi.nn's binary and bitserial operators (binarize_pack, binary_dense, bitserial conv2d
NCHW / NHWC and their spatial-pack forms, bitserial dense) against numpy integer products,
with the plain, x86 (AutoTVM fallback config) and CUDA (emulated) schedules."""
import numpy as np
import pytest

from tepad import te, topi
from tepad.errors import TepadError

from topi_helpers import RNG, placeholder, run


def _conv_nchw(a, w, stride, pad):
    n, c, h, ww = a.shape
    f, _, kh, kw = w.shape
    ap = np.pad(a, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (ww + 2 * pad - kw) // stride + 1
    out = np.zeros((n, f, oh, ow), "int64")
    for y in range(kh):
        for x in range(kw):
            win = ap[:, :, y:y + stride * oh:stride, x:x + stride * ow:stride]
            out += np.einsum("nchw,fc->nfhw", win, w[:, :, y, x])
    return out


def _signed(w, unipolar):
    """The weights the bitserial product uses: unipolar maps 1 -> +1 and the rest -> -1."""
    return np.where(w == 1, 1, -1) if unipolar else w.astype("int64")


@pytest.mark.parametrize("target", ["llvm", "cuda"])
def test_binarize_pack_and_binary_dense(target):
    a = (RNG.integers(0, 2, (3, 64)) * 2 - 1).astype("float32")
    b = (RNG.integers(0, 2, (5, 64)) * 2 - 1).astype("float32")
    A, B = placeholder(a, "A"), placeholder(b, "B")
    PA, PB = topi.nn.binarize_pack(A), topi.nn.binarize_pack(B)
    kind = topi.x86 if target == "llvm" else topi.cuda
    packed = run(PA, [A], [a], kind.schedule_binarize_pack, target)
    assert packed.dtype == np.uint32 and packed.shape == (3, 2)
    bits = np.unpackbits(packed.astype(">u4").view(np.uint8)).reshape(3, 64)
    np.testing.assert_array_equal(bits, (a >= 0).astype(np.uint8))
    QA, QB = te.placeholder(PA.shape, "uint32", "QA"), te.placeholder(PB.shape, "uint32", "QB")
    C = topi.nn.binary_dense(QA, QB)
    pb = run(PB, [B], [b], kind.schedule_binarize_pack, target)
    got = run(C, [QA, QB], [packed, pb], kind.schedule_binary_dense, target)
    np.testing.assert_array_equal(got, a @ b.T)


def test_binarize_pack_refuses_a_ragged_axis():
    with pytest.raises(TepadError, match="multiple of 32"):
        topi.nn.binarize_pack(te.placeholder((2, 40), name="A"))


@pytest.mark.parametrize("abits, wbits, unipolar", [(1, 1, True), (2, 1, True), (2, 2, False)])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_bitserial_conv2d(abits, wbits, unipolar, layout):
    a = RNG.integers(0, 1 << abits, (1, 32, 6, 6)).astype("uint32")
    w = RNG.integers(0, 1 << wbits, (8, 32, 3, 3)).astype("uint32")
    ref = _conv_nchw(a.astype("int64"), _signed(w, unipolar), 1, 1)
    if layout == "NHWC":
        a = np.ascontiguousarray(a.transpose(0, 2, 3, 1))
        w = np.ascontiguousarray(w.transpose(2, 3, 1, 0))
        ref = ref.transpose(0, 2, 3, 1)
    A, W = placeholder(a, "A"), placeholder(w, "W")
    args = (A, W, 1, 1, abits, wbits, "uint32", "int32", unipolar)
    low = layout.lower()
    plain = getattr(topi.nn, f"bitserial_conv2d_{low}")(*args)
    np.testing.assert_array_equal(run(plain, [A, W], [a, w]), ref)
    np.testing.assert_array_equal(
        run(plain, [A, W], [a, w], getattr(topi.cuda, f"schedule_bitserial_conv2d_{low}"),
            "cuda"), ref)
    packed = getattr(topi.nn, f"spatial_pack_{low}")(None, *args)
    np.testing.assert_array_equal(run(packed, [A, W], [a, w]), ref)
    tuned = getattr(topi.x86, f"bitserial_conv2d_{low}")(*args)      # fallback config
    np.testing.assert_array_equal(
        run(tuned, [A, W], [a, w], getattr(topi.x86, f"schedule_bitserial_conv2d_{low}")), ref)


def test_spatial_pack_defines_tile_knobs():
    from tepad.autotvm.task.space import FallbackConfigEntity
    cfg = FallbackConfigEntity()
    A = te.placeholder((1, 32, 8, 8), "uint32", "A")
    W = te.placeholder((16, 32, 3, 3), "uint32", "W")
    out = topi.nn.spatial_pack_nchw(cfg, A, W, 1, 1, 1, 1, "uint32", "int16", True)
    assert cfg["tile_co"].size == [2, 8] and cfg["tile_ow"].size[-1] == 8
    conv = out.op.input_tensors[0]
    assert conv.name == "conv_out" and [int(d) for d in conv.shape] == [1, 2, 4, 1, 2, 8, 8]


@pytest.mark.parametrize("dbits, wbits, unipolar", [(1, 1, True), (2, 1, False)])
def test_bitserial_dense(dbits, wbits, unipolar):
    d = RNG.integers(0, 1 << dbits, (3, 64)).astype("uint32")
    w = RNG.integers(0, 1 << wbits, (10, 64)).astype("uint32")
    ref = d.astype("int64") @ _signed(w, unipolar).T
    D, W = placeholder(d, "D"), placeholder(w, "W")
    args = (D, W, dbits, wbits, "uint32", "int16", unipolar)
    np.testing.assert_array_equal(run(topi.nn.bitserial_dense(*args), [D, W], [d, w]), ref)
    np.testing.assert_array_equal(
        run(topi.nn.bitserial_dense_default(None, *args), [D, W], [d, w]), ref)
    np.testing.assert_array_equal(
        run(topi.x86.bitserial_dense(*args), [D, W], [d, w], topi.x86.schedule_bitserial_dense),
        ref)
    np.testing.assert_array_equal(
        run(topi.nn.bitserial_dense(*args), [D, W], [d, w], topi.generic.schedule_bitserial_dense,
            "cuda"), ref)


def test_bitserial_legalize_is_a_generic_function_returning_none():
    assert topi.nn.bitserial_conv2d_legalize(None, [], []) is None
    assert hasattr(topi.nn.bitserial_conv2d_legalize, "register")
