"""``$TEPAD_HOST_TARGET``: what "the host" means (tepad.target.host). It names a CPU whose
vector instruction sets replace the machine's (never beyond them); the default target, the
widths schedules read and the code built follow it; a bad value is a TepadError naming it."""
import re
from pathlib import Path

import numpy as np
import pytest

import tepad
from tepad import te
from tepad.errors import TepadError
from tepad.target import HOST_TARGET_ENV, Target, host, native_features

NATIVE = {k for k, on in native_features().items() if on}
needs_avx2 = pytest.mark.skipif(not {"avx2", "fma"} <= NATIVE, reason="machine without AVX2+FMA")


def doubled(target=None):
    """``B = 2 A + 1`` split by the target's fp32 lanes and vectorized, built and checked."""
    lanes = tepad.target.as_target(target).vector_lanes("float32")
    A = te.placeholder((100,), name="A")
    B = te.compute((100,), lambda i: A[i] * 2.0 + 1.0, name="B")
    s = te.create_schedule(B.op)
    _, xi = s[B].split(B.op.axis[0], factor=lanes)
    s[B].vectorize(xi)
    mod = tepad.build(s, [A, B], target=target)
    a = np.random.default_rng(0).random(100, dtype="float32")
    b = np.zeros(100, "float32")
    mod(a, b)
    np.testing.assert_allclose(b, a * 2 + 1, rtol=1e-6)
    return mod.get_source("asm")


def test_unset_the_host_is_the_machine(monkeypatch):
    monkeypatch.delenv(HOST_TARGET_ENV, raising=False)
    assert Target("llvm").mcpu == host.native_cpu_name()
    assert tepad.target.host_features() == native_features()


@needs_avx2
def test_haswell_gives_avx2_widths_and_code(monkeypatch):
    monkeypatch.setenv(HOST_TARGET_ENV, "haswell")
    t = Target("llvm")
    assert t.mcpu == "haswell"
    assert (t.vector_lanes("float32"), t.vector_lanes("int8"), t.vector_registers) == (8, 32, 16)
    assert t.has_fma and not t.has_feature("avx512f")
    asm = doubled()
    assert "%ymm" in asm and "%zmm" not in asm


def test_x86_64_gives_sse_widths_and_code(monkeypatch):
    monkeypatch.setenv(HOST_TARGET_ENV, "x86-64")
    t = Target("llvm")
    assert (t.vector_lanes("float32"), t.vector_registers, t.has_fma) == (4, 16, False)
    asm = doubled()
    assert "%xmm" in asm and "%ymm" not in asm and "%zmm" not in asm


def test_a_full_target_string_and_its_mattr(monkeypatch):
    monkeypatch.setenv(HOST_TARGET_ENV, "llvm -mcpu=x86-64 -mattr=-sse4.2")
    assert Target("llvm").vector_lanes("float32") == 4
    assert not tepad.target.host_features()["sse4.2"]
    if "avx" in NATIVE:
        monkeypatch.setenv(HOST_TARGET_ENV, "llvm -mattr=-avx")    # the machine's CPU, no AVX
        assert Target("llvm").mcpu == host.native_cpu_name()
        assert Target("llvm").vector_lanes("float32") == 4


def test_it_caps_at_the_machine(monkeypatch):
    """A CPU bigger than the machine gives the machine's features, no more; named -mcpu
    targets are capped at the forced host, and asking for more than it has is refused."""
    monkeypatch.setenv(HOST_TARGET_ENV, "skylake-avx512")
    assert {k for k, on in tepad.target.host_features().items() if on} <= NATIVE
    assert Target("llvm").vector_lanes() == (16 if "avx512f" in NATIVE else
                                             8 if "avx" in NATIVE else 4)
    monkeypatch.setenv(HOST_TARGET_ENV, "x86-64")
    assert Target("llvm -mcpu=skylake-avx512").vector_lanes() == 4
    with pytest.raises(TepadError, match="asks for \\+avx2.*TEPAD_HOST_TARGET='x86-64'"):
        Target("llvm -mattr=+avx2").features
    missing = sorted(k for k, on in native_features().items() if not on)
    if missing:
        monkeypatch.setenv(HOST_TARGET_ENV, f"llvm -mattr=+{missing[0]}")
        with pytest.raises(TepadError, match=f"TEPAD_HOST_TARGET=.*has no '{missing[0]}'"):
            Target("llvm").vector_lanes()


@needs_avx2
def test_builds_are_cached_per_host_target(monkeypatch):
    """The same schedule built for "llvm" under two host targets gives two kernels."""
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    _, xi = s[B].split(B.op.axis[0], factor=16)
    s[B].vectorize(xi)
    monkeypatch.setenv(HOST_TARGET_ENV, "x86-64")
    sse = tepad.build(s, [A, B])
    monkeypatch.setenv(HOST_TARGET_ENV, "haswell")
    avx2 = tepad.build(s, [A, B])
    assert sse is not avx2
    assert "%ymm" not in sse.get_source("asm") and "%ymm" in avx2.get_source("asm")


@needs_avx2
def test_the_examples_and_the_demo_follow_it(monkeypatch):
    from tepad import demo
    monkeypatch.setenv(HOST_TARGET_ENV, "haswell")
    title, s, args, inputs, ref = demo.matmul_kernel(n=128)
    assert "8 fp32 lanes, 16 vector registers" in title and "4x24 register block" in title
    mod = tepad.build(s, args)
    assert "%zmm" not in mod.get_source("asm")
    out = np.zeros((128, 128), "float32")
    mod(*inputs, out)
    np.testing.assert_allclose(out, inputs[0] @ inputs[1], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("value, why", [
    ("pentium9", "LLVM knows no CPU named 'pentium9'"),
    ("cuda", "LLVM knows no CPU named 'cuda'"),
    ("llvm -mcpu=haswell -num-cores=4", "option '-num-cores=4' is not -mcpu=NAME"),
    ("llvm -mattr=avx2", "-mattr entry 'avx2' is not \\+feature or -feature"),
    ("llvm -mattr=-nosuchfeature", "LLVM knows no feature 'nosuchfeature'"),
    ("opencl -mcpu=haswell", "the host target is a CPU, not 'opencl'"),
])
def test_a_bad_value_names_the_variable_and_the_valid_values(monkeypatch, value, why):
    monkeypatch.setenv(HOST_TARGET_ENV, value)
    with pytest.raises(TepadError) as err:
        Target("llvm").vector_lanes()
    msg = str(err.value)
    assert msg.startswith(f"TEPAD_HOST_TARGET={value!r}: ")
    assert re.search(why, msg), msg
    assert "Valid values: an LLVM x86 CPU name such as haswell" in msg and "x86-64" in msg


def test_known_cpus_are_llvms():
    cpus = host.known_cpus()
    if cpus:            # x86: LLVM's -mcpu=help list
        assert {"haswell", "x86-64", "skylake-avx512", "znver3"} <= set(cpus)


EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.py"))


@pytest.mark.parametrize("forced, absent", [("haswell", ("%zmm",)), ("x86-64", ("%zmm", "%ymm"))])
def test_every_example_builds_only_the_forced_cpus_vectors(monkeypatch, forced, absent):
    """Under the variable every example (its widths read from the host target) builds code
    without the wider registers the forced CPU lacks, and still matches the oracle."""
    from tepad.cli import check_outputs, load_module, prepare_arrays
    monkeypatch.setenv(HOST_TARGET_ENV, forced)
    for path in EXAMPLES:
        ex = load_module(path)
        if not hasattr(ex, "schedule"):
            continue
        s, args = ex.schedule()
        mod = tepad.build(s, args)
        asm = mod.get_source("asm")
        assert not [r for r in absent if r in asm], f"{path.stem} under {forced}"
        inputs = ex.inputs() if hasattr(ex, "inputs") else None
        arrays, feed, outs = prepare_arrays(mod, s, args, inputs, np.random.default_rng(0))
        mod(*arrays)
        for name, ok, err, _ in check_outputs(arrays, feed, outs, s):
            assert ok, f"{path.stem} under {forced}: {name} differs (max abs err {err})"
