"""tepad.backend: backend_for chooses the Backend of a Target; each backend's passes are steps
of the one pass log; build(emulate=, race_check=) switches the emulator without the
environment."""
import numpy as np
import pytest

import tepad
from tepad import config, te
from tepad.backend import backend_for
from tepad.backend.cpu import CpuBackend
from tepad.backend.cuda import CudaBackend, DEVICE_PASSES
from tepad.backend.emulated import EMULATOR_PASSES, EmulatedCudaBackend, EmulatedModule
from tepad.errors import TepadError
from tepad.lower.pipeline import PIPELINE, PassLog, labelled
from tepad.runtime.cuda_module import CudaModule
from tepad.target import Target
from tepad.tir.launch import SplitFunc


def _vadd(n=256, factor=64):
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute((n,), lambda i: A[i] + B[i] * 2.0, name="C")
    s = te.create_schedule(C.op)
    bx, tx = s[C].split(C.op.axis[0], factor=factor)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    return s, [A, B, C]


def test_backend_for_decides_by_kind_and_emulate(monkeypatch):
    monkeypatch.delenv(config.CUDA, raising=False)
    assert isinstance(backend_for(Target("llvm")), CpuBackend)
    assert isinstance(backend_for(Target("llvm"), emulate=True), CpuBackend)
    assert isinstance(backend_for(Target("cuda")), CudaBackend)
    assert isinstance(backend_for(Target("nvptx -mcpu=sm_80"), emulate=False), CudaBackend)
    emu = backend_for(Target("cuda"), emulate=True, race_check=True)
    assert isinstance(emu, EmulatedCudaBackend) and emu.race_check
    assert not backend_for(Target("cuda"), emulate=True, race_check=False).race_check


def test_the_environment_is_only_the_default(monkeypatch):
    monkeypatch.setenv(config.CUDA, "emulate")
    monkeypatch.setenv(config.CUDA_RACECHECK, "1")
    emu = backend_for(Target("cuda"))
    assert isinstance(emu, EmulatedCudaBackend) and emu.race_check
    assert isinstance(backend_for(Target("cuda"), emulate=False), CudaBackend)


def test_a_kind_without_a_code_generator_is_refused():
    with pytest.raises(TepadError, match="vulkan code generation is not there yet"):
        backend_for(Target("vulkan"))


def test_backend_passes_are_steps_of_the_pass_log():
    s, args = _vadd()
    target = Target("cuda")
    cuda = backend_for(target, emulate=False)
    log = PassLog(keep=True, verify=True)
    split = cuda.lower(s, args, "vadd", cuda.options(target), log=log)
    labels = [st.label for st in log.steps]
    assert labels[-len(DEVICE_PASSES):] == [label for label, _ in labelled(DEVICE_PASSES)]
    assert isinstance(split, SplitFunc) and [k.name for k in split.kernels] == ["vadd_kernel"]
    assert "vadd_kernel" in log.steps[-2].func.script()      # the split prints its kernels

    emu = backend_for(target, emulate=True)
    log = PassLog(keep=True, verify=True)
    emu.lower(s, args, "vadd", emu.options(target), log=log)
    labels = [st.label for st in log.steps]
    assert labels[-len(EMULATOR_PASSES):] == [label for label, _ in labelled(EMULATOR_PASSES)]
    assert "emulate_gpu_threads" in labels and "split_host_device" not in labels


def test_build_emulate_argument_gives_the_emulator_whatever_the_environment(monkeypatch):
    monkeypatch.delenv(config.CUDA, raising=False)
    s, args = _vadd()
    mod = tepad.build(s, args, target="cuda", emulate=True, race_check=True)
    assert isinstance(mod, EmulatedModule)
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(256).astype("float32") for _ in range(2))
    c = np.zeros(256, "float32")
    mod(a, b, c)
    np.testing.assert_allclose(c, a + b * 2.0, rtol=1e-6)


def test_cuda_backend_builds_without_a_gpu_and_knows_what_it_writes(monkeypatch):
    monkeypatch.delenv(config.CUDA, raising=False)
    s, args = _vadd()
    mod = tepad.build(s, args, target="cuda -arch=sm_80", emulate=False)
    assert isinstance(mod, CudaModule) and mod.arch == "sm_80"
    assert ".entry main_kernel(" in mod.get_source("ptx")
    assert [a.is_output for a in mod.arg_info] == [False, False, True]


def test_pipeline_labels_are_unique_and_user_phases_are_marked():
    labels = [label for label, _ in labelled(PIPELINE)]
    assert len(labels) == len(set(labels)) and not any("#" in x for x in labels)
    assert [p.user_phase for p in PIPELINE if p.user_phase is not None] == [0, 1, 2, 3]
