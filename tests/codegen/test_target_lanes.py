"""Target-aware widths: ``Target`` says how many lanes a vector register holds, whether FMA
may be used and how many vector registers there are; the examples' and topi's schedules read
them, so an AVX2 target gets 8-lane fp32 code that runs correctly on this host.

"The host" here is tepad's (``tepad.target.host_features``): the machine's CPU, or the smaller
one ``$TEPAD_HOST_TARGET`` names, so these tests hold on AVX-512, AVX2-only and SSE hosts."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

import tepad
from tepad import te, topi
from tepad.errors import TepadError
from tepad.lower.pipeline import lower_for_codegen
from tepad.target import Target
from tepad.tir import Ramp, post_order_visit

HOST = {k for k, v in tepad.target.host_features().items() if v}
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
needs_avx2 = pytest.mark.skipif(not {"avx2", "fma"} <= HOST, reason="host without AVX2+FMA")
AVX2 = "llvm -mcpu=haswell -mattr=-avx512f"


def _example(name):
    spec = importlib.util.spec_from_file_location(f"tepad_example_{name}", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _ramp_lanes(func):
    lanes = set()
    post_order_visit(func.body, lambda n: lanes.add(n.lanes) if isinstance(n, Ramp) else None)
    return lanes


def test_host_target_widths_follow_the_host_features():
    t = Target("llvm")
    want = 16 if "avx512f" in HOST else 8 if "avx" in HOST else 4
    assert t.vector_lanes("float32") == want
    assert t.vector_lanes("float64") == want // 2
    assert t.vector_registers == (32 if "avx512f" in HOST else 16)
    assert t.has_fma == ("fma" in HOST)
    assert Target.current() is None and tepad.target.as_target(None).vector_lanes() == want


@needs_avx2
def test_avx2_target_widths():
    t = Target(AVX2)
    assert (t.vector_bits, t.vector_lanes("float32"), t.vector_lanes("int8")) == (256, 8, 32)
    assert t.vector_registers == 16 and t.has_fma
    # the features built on AVX-512 go with it, so LLVM cannot switch it back on
    feats = t.features.split(",")
    assert "-avx512f" in feats and not [f for f in feats if f.startswith("+avx512")]


def test_sse_and_avx_without_avx2():
    sse = Target("llvm -mattr=-avx")
    assert sse.vector_lanes("float32") == 4 and sse.vector_registers == 16
    assert not sse.has_fma and not sse.has_feature("avx2")
    if "avx" in HOST:
        avx = Target("llvm -mattr=-avx2")
        assert avx.vector_lanes("float32") == 8 and avx.vector_lanes("int32") == 4


def test_a_target_for_another_machine_describes_it():
    """+avx512f on a host without it: the widths are AVX-512's (a schedule may be written for
    that machine); building for it here is refused."""
    t = Target("llvm -mattr=+avx512f")
    assert t.vector_lanes("float32") == 16 and t.vector_registers == 32
    if "avx512f" not in HOST:
        with pytest.raises(TepadError, match="does not have"):
            t.features


def test_vector_lanes_rejects_a_non_dtype():
    with pytest.raises(TepadError, match="not a dtype"):
        Target("llvm").vector_lanes("floaty")


@needs_avx2
def test_avx2_build_runs_and_uses_no_zmm():
    A = te.placeholder((100,), name="A")
    B = te.compute((100,), lambda i: A[i] * 2.0 + 1.0, name="B")
    s = te.create_schedule(B.op)
    _, xi = s[B].split(B.op.axis[0], factor=Target(AVX2).vector_lanes("float32"))
    s[B].vectorize(xi)
    mod = tepad.build(s, [A, B], target=AVX2)
    assert "ymm" in mod.get_source("asm") and "zmm" not in mod.get_source("asm")
    a = np.arange(100, dtype="float32")
    b = np.zeros(100, "float32")
    mod(a, b)
    np.testing.assert_allclose(b, a * 2 + 1)


@needs_avx2
@pytest.mark.parametrize("name", ["conv2d", "matmul"])
def test_examples_pick_8_lanes_for_avx2(name):
    ex = _example(name)
    with Target(AVX2):
        s, args = ex.schedule()
        lanes = _ramp_lanes(lower_for_codegen(s, args))
        mod = tepad.build(s, args)
    # conv2d: 8 channels (its block is 2 x 8, bounded by the 8 filters here); matmul: panels
    # of 3 x 8 floats (AVX-512: 2 x 16), vectorized as 16 + 8 lanes
    assert max(lanes) == {"conv2d": 8, "matmul": 16}[name]
    if name == "matmul":
        assert "T.vectorized(24)" in tepad.lower(s, args).script()
    assert "zmm" not in mod.get_source("asm")
    inputs = ex.inputs()
    outs = [np.zeros([int(d) for d in args[-1].shape], "float32")]
    mod(*inputs, *outs)
    if name == "matmul":
        want = inputs[0] @ inputs[1]
    else:
        x, w = inputs
        xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
        h, wd = x.shape[2:]
        want = np.zeros((1, w.shape[0], h, wd), "float32")
        for ky in range(3):
            for kx in range(3):
                want += np.einsum("kc,nchw->nkhw", w[:, :, ky, kx],
                                  xp[:, :, ky:ky + h, kx:kx + wd])
    np.testing.assert_allclose(outs[0], want, rtol=1e-4, atol=1e-4)


def test_examples_take_their_widths_from_the_host_target():
    """On the host target the examples' widths are those of its vector unit: AVX-512's (32
    registers) a wide register block, 16-register machines a narrower one."""
    t = Target("llvm")
    lanes, wide = t.vector_lanes("float32"), t.vector_registers >= 32
    assert _example("conv2d").widths() == ((lanes, 14) if wide else (2 * lanes, 4))
    assert _example("matmul").widths() == ((2 * lanes, 8) if wide else (3 * lanes, 4))
    if "avx512f" in HOST:
        assert _example("conv2d").widths() == (16, 14)
        assert _example("matmul").widths() == (32, 8)
    elif "avx2" in HOST:
        assert _example("conv2d").widths() == (16, 4)
        assert _example("matmul").widths() == (24, 4)


@needs_avx2
def test_topi_injective_splits_by_the_target_lanes():
    A = te.placeholder((4, 64), name="A")
    B = topi.add(A, A) if hasattr(topi, "add") else te.compute(A.shape, lambda i, j: A[i, j] * 2)
    for tgt, lanes in ((Target(AVX2), 8), (Target("llvm"), Target("llvm").vector_lanes())):
        with tgt:
            s = topi.generic.schedule_injective(B)
            f = tepad.lower(s, [A, B])["main"]
        assert any(f"vectorized({lanes})" in line for line in f.script().splitlines())


@needs_avx2
@pytest.mark.parametrize("name", ["blur", "elementwise", "rowsum", "conv2d", "matmul"])
def test_examples_built_for_avx2_match_the_oracle(name):
    from tepad.cli import check_outputs, prepare_arrays
    ex = _example(name)
    with Target(AVX2):
        s, args = ex.schedule()
        mod = tepad.build(s, args)
    assert "zmm" not in mod.get_source("asm")
    arrays, feed, outs = prepare_arrays(mod, s, args, ex.inputs(), np.random.default_rng(0))
    mod(*arrays)
    for out, ok, err, _ in check_outputs(arrays, feed, outs, s):
        assert ok, f"{name} for AVX2: {out} differs from the oracle (max abs err {err})"
