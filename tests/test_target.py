"""tepad.target.Target and tepad.transform.PassContext: TVM's habits, selecting real behaviour."""
import numpy as np
import pytest

import tepad
from tepad import te
from tepad.errors import TepadError
from tepad.lower.pass_context import PassContext
from tepad.lower.pipeline import Options, PassLog, lower_for_codegen
from tepad.target import Target, host_cpu_name, host_features


def vec_add(n=64):
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=8)
    s[B].vectorize(xi)
    return s, [A, B]


def run(mod, n=64):
    a = np.arange(n, dtype="float32")
    b = np.zeros(n, "float32")
    mod(a, b)
    np.testing.assert_array_equal(b, a + 1.0)


def test_target_string_is_parsed():
    t = Target("llvm -mcpu=znver4 -mattr=+avx2,-avx512f")
    assert t.kind.name == "llvm"
    assert t.attrs["mcpu"] == "znver4" and t.attrs["mattr"] == ["+avx2", "-avx512f"]
    assert t.attrs["keys"] == ["cpu"]
    assert str(t) == "llvm -mcpu=znver4 -mattr=+avx2,-avx512f"
    assert Target("c").kind.name == "llvm"
    assert Target("llvm", host="llvm").host == Target("llvm")


def test_bad_targets_are_refused():
    with pytest.raises(TepadError, match="unknown target kind 'tpu'"):
        Target("tpu")
    with pytest.raises(TepadError, match="must look like -key=value"):
        Target("llvm mcpu")


def test_with_target_sets_the_current_target():
    assert Target.current() is None
    with Target("llvm -mcpu=generic") as t:
        assert Target.current() is t
    assert Target.current() is None


def test_build_for_a_target_runs_and_is_cached_per_target():
    s, args = vec_add()
    m_host = tepad.build(s, args)
    m_generic = tepad.build(s, args, target=Target("llvm -mcpu=generic"))
    assert m_generic is not m_host
    run(m_host)
    run(m_generic)
    with Target("llvm -mcpu=generic"):
        assert tepad.build(s, args) is m_generic


def test_a_feature_the_host_lacks_is_refused_before_compiling(monkeypatch):
    missing = next((f for f, on in sorted(host_features().items()) if not on), None)
    if missing is None:         # a host with every feature LLVM knows: pretend one is absent
        have = host_features()
        missing = sorted(have)[0]
        monkeypatch.setattr(tepad.target, "host_features", lambda: {**have, missing: False})
    s, args = vec_add()
    with pytest.raises(TepadError, match=f"asks for \\+{missing}, which this CPU"):
        tepad.build(s, args, target=f"llvm -mattr=+{missing}")


def test_mcpu_never_enables_features_the_host_lacks():
    t = Target("llvm -mcpu=skylake-avx512")
    feats = dict((f[1:], f[0] == "+") for f in t.features.split(","))
    assert all(on or not feats[f] for f, on in host_features().items())
    assert t.mcpu == "skylake-avx512" and Target("llvm").mcpu == host_cpu_name()


@pytest.mark.parametrize("cpu, lanes, registers, fma", [
    ("generic", 4, 16, False),          # SSE2
    ("sandybridge", 8, 16, False),      # AVX
    ("haswell", 8, 16, True),           # AVX2 + FMA
    ("skylake-avx512", 16, 32, True),
])
def test_mcpu_gives_the_named_cpus_vector_instruction_sets(cpu, lanes, registers, fma):
    """As in TVM, ``-mcpu`` decides the vector ISA (within what the host has): what
    schedules read, and the code built."""
    host = Target("llvm")
    t = Target(f"llvm -mcpu={cpu}")
    assert t.vector_lanes("float32") == min(lanes, host.vector_lanes("float32"))
    assert t.vector_registers == min(registers, host.vector_registers)
    assert t.has_fma == (fma and host.has_fma)
    s, args = vec_add(64)
    with Target(f"llvm -mcpu={cpu}"):
        mod = tepad.build(s, args)
    run(mod, 64)
    asm = mod.get_source("asm")
    if t.vector_lanes("float32") < 16:
        assert "%zmm" not in asm
    if t.vector_lanes("float32") < 8:
        assert "%ymm" not in asm


def test_mattr_adds_to_the_named_cpus_features():
    if not Target("llvm").has_feature("avx512f"):
        pytest.skip("host without AVX-512")
    t = Target("llvm -mcpu=haswell -mattr=+avx512f")
    assert t.vector_lanes("float32") == 16 and t.vector_registers == 32


def test_pass_context_config_selects_passes():
    s, args = vec_add(60)               # 60 = 7 * 8 + 4: a tail the bounds check guards
    with PassContext(config={"tir.instrument_bound_checkers": True}):
        assert Options.from_context().bounds_check
        log = PassLog(keep=True)
        lower_for_codegen(s, args, opts=Options.from_context(), log=log)
    assert log.steps[-1].label == "instrument_bound_checks"
    with PassContext(config={"tir.disable_vectorize": True}):
        f = lower_for_codegen(s, args, opts=Options.from_context())
        mod = tepad.build(s, args)
    assert "Ramp" not in f.script()
    run(mod, 60)
    assert "Ramp" in lower_for_codegen(s, args).script()


def test_pass_context_disabled_pass_by_tvm_name():
    s, args = vec_add()
    with PassContext(disabled_pass=["tir.VectorizeLoop", "tir.UnrollLoop"]):
        opts = Options.from_context()
        assert {"vectorize_loop", "unroll_loop"} <= opts.disabled
        run(tepad.build(s, args))


def test_pass_context_refuses_what_it_cannot_honour():
    with pytest.raises(TepadError, match="config key 'tir.nope' is not one tepad knows"):
        PassContext(config={"tir.nope": 1})
    with PassContext(disabled_pass=["tir.StorageFlatten"]):
        with pytest.raises(TepadError, match="'storage_flatten' cannot be disabled"):
            Options.from_context()
    with PassContext(disabled_pass=["no_such_pass"]):
        with pytest.raises(TepadError, match="no pass 'no_such_pass'"):
            Options.from_context()


def test_transform_face():
    assert tepad.transform.PassContext is PassContext
