"""The ``opencl`` target: lowered as a GPU target with TVM's OpenCL limits, OpenCL C source in
the module, run through the GPU emulator under ``TEPAD_CUDA=emulate`` and refused with a
clear error otherwise (tepad has no OpenCL runtime)."""
import numpy as np
import pytest

import tepad as tvm
from tepad import te, tir
from tepad.backend import backend_for
from tepad.backend.emulated import EmulatedModule
from tepad.backend.opencl import OpenCLBackend
from tepad.errors import TepadError
from tepad.runtime.opencl_module import OpenCLModule
from tepad.target import Target, is_gpu_kind, is_opencl_kind


def _scale_add(n, factor=64):
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute((n,), lambda i: A[i] * 3.0 + B[i], name="C")
    s = te.create_schedule(C.op)
    bx, tx = s[C].split(C.op.axis[0], factor=factor)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    return s, [A, B, C]


def test_the_target_kind_has_tvms_opencl_limits():
    t = Target("opencl")
    assert t.kind.name == "opencl" and t.is_gpu and is_gpu_kind(t) and is_opencl_kind(t)
    assert (t.max_num_threads, t.thread_warp_size, t.max_shared_memory_per_block) == \
        (256, 1, 16384)
    assert t.keys == ["opencl", "gpu"] and t.get_target_device_type() == 4 and t.arch == ""
    assert str(tvm.target.opencl()) == "opencl -model=unknown"
    assert tvm.target.opencl(options="-max_num_threads=128").max_num_threads == 128
    with pytest.raises(TepadError, match="-max_num_threads must be a positive integer"):
        Target("opencl -max_num_threads=0")


def test_the_device_exists_only_under_the_emulator(monkeypatch):
    monkeypatch.delenv("TEPAD_CUDA", raising=False)
    assert not tvm.opencl(0).exist and tvm.opencl(0).device_type == 4
    with pytest.raises(TepadError, match="no OpenCL runtime.*TEPAD_CUDA=emulate"):
        tvm.nd.array(np.zeros(4, "float32"), tvm.opencl(0))
    monkeypatch.setenv("TEPAD_CUDA", "emulate")
    assert tvm.opencl(0).exist and tvm.opencl(0).warp_size == 1


def test_backend_choice(monkeypatch):
    monkeypatch.delenv("TEPAD_CUDA", raising=False)
    assert isinstance(backend_for(Target("opencl")), OpenCLBackend)
    assert not isinstance(backend_for(Target("opencl"), emulate=True), OpenCLBackend)
    monkeypatch.setenv("TEPAD_CUDA", "emulate")
    assert not isinstance(backend_for(Target("opencl")), OpenCLBackend)


def test_without_the_emulator_the_module_prints_but_does_not_run(monkeypatch, tmp_path):
    monkeypatch.delenv("TEPAD_CUDA", raising=False)
    s, args = _scale_add(256)
    f = tvm.build(s, args, "opencl", name="scale_add")
    assert isinstance(f, OpenCLModule) and f.type_key == "opencl_host"
    dev = f.imported_modules[0]
    assert dev.type_key == "opencl"
    src = dev.get_source()
    assert src == f.get_source() == dev.get_source("cl")
    assert "__kernel void scale_add_kernel(__global float* restrict A, __global float* " \
           "restrict B, __global float* restrict C)" in src
    assert "C[((((int)get_group_id(0)) * 64) + ((int)get_local_id(0)))] = " in src
    dev.save(str(tmp_path / "k.cl"))
    assert (tmp_path / "k.cl").read_text() == src
    a = np.zeros(256, "float32")
    with pytest.raises(TepadError, match=r"module scale_add: tepad has no OpenCL runtime.*"
                                         r"TEPAD_CUDA=emulate \(or build with emulate=True\)"):
        f(a, a, a.copy())
    with pytest.raises(TepadError, match="OpenCL C source only"):
        dev.get_source("ptx")


def test_through_the_emulator_against_numpy(monkeypatch):
    monkeypatch.setenv("TEPAD_CUDA", "emulate")
    monkeypatch.setenv("TEPAD_CUDA_RACECHECK", "1")
    n = 1000
    s, args = _scale_add(n)
    f = tvm.build(s, args, "opencl", name="scale_add")
    assert isinstance(f, EmulatedModule) and f.type_key == "opencl"
    assert "emulated" in repr(f) and "opencl" in repr(f)
    assert f.imported_modules[0].get_source().startswith("// OpenCL C")
    assert "__kernel void scale_add_kernel(" in f.imported_modules[0].get_source()
    assert "__global__" in f.imported_modules[0].get_source("cuda")
    dev = tvm.opencl(0)
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(n).astype("float32") for _ in range(2))
    A, B = tvm.nd.array(a, dev), tvm.nd.array(b, dev)
    C = tvm.nd.empty((n,), "float32", dev)
    f(A, B, C)
    # (a multiply-add may be fused: compared with an absolute tolerance too)
    np.testing.assert_allclose(C.numpy(), a * 3 + b, rtol=1e-6, atol=1e-6)
    timer = f.time_evaluator(f.entry_name, dev, number=2)
    assert timer(A, B, C).mean > 0


def test_shared_memory_and_barriers_run_through_the_emulator(monkeypatch):
    """A row sum whose partial sums meet in ``__local`` memory, ordered by barriers."""
    monkeypatch.setenv("TEPAD_CUDA", "emulate")
    monkeypatch.setenv("TEPAD_CUDA_RACECHECK", "1")
    n, m = 48, 64
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), "k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    s[B].bind(B.op.axis[0], te.thread_axis("blockIdx.x"))
    s[B].bind(k, te.thread_axis("threadIdx.x"))
    f = tvm.build(s, [A, B], "opencl")
    src = f.imported_modules[0].get_source()
    assert "__local float" in src and "barrier(CLK_LOCAL_MEM_FENCE);" in src
    a = np.random.default_rng(3).standard_normal((n, m)).astype("float32")
    b = np.empty(n, "float32")
    f(a, b)
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-5, atol=1e-5)


def test_thread_limits_are_opencls(monkeypatch):
    """512 threads in a block fit CUDA's 1024 but not OpenCL's 256."""
    monkeypatch.setenv("TEPAD_CUDA", "emulate")
    s, args = _scale_add(1024, factor=512)
    tvm.build(s, args, "cuda")
    with pytest.raises(TepadError, match="512"):
        tvm.build(s, args, "opencl")


def test_intrinsic_rules_for_opencl(monkeypatch):
    """``register_intrin_lowering(..., target="opencl")`` applies to opencl builds only."""
    monkeypatch.setenv("TEPAD_CUDA", "emulate")

    def rule(op):
        return tir.call_pure_extern(op.dtype, "native_exp", op.args[0])

    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: tir.call_intrin("float32", "tir.tepad_test_ocl_exp", A[i]),
                   name="B")
    s = te.create_schedule(B.op)
    s[B].bind(B.op.axis[0], te.thread_axis("threadIdx.x"))
    with pytest.raises(TepadError, match="no lowering rule"):
        tvm.build(s, [A, B], "opencl")
    tvm.ir.register_intrin_lowering("tir.tepad_test_ocl_exp", target="opencl", f=rule,
                                    level=99)
    src = tvm.build(s, [A, B], "opencl", emulate=False).imported_modules[0].get_source()
    assert "B[((int)get_local_id(0))] = native_exp(A[((int)get_local_id(0))]);" in src
    from tepad.target.intrin import get_op_attr
    assert get_op_attr("tir.tepad_test_ocl_exp", "opencl.FLowerIntrinsic") is rule
    assert get_op_attr("tir.tepad_test_ocl_exp", "cuda.FLowerIntrinsic") is None


def test_tvm06_register_intrin_rule(monkeypatch):
    """TVM 0.6 / 0.7: ``register_intrin_rule(target, name, f, override=True)``; ``op.name``
    is the intrinsic's name without ``tir.``."""
    monkeypatch.setenv("TEPAD_CUDA", "emulate")
    seen = []

    def rule(op):
        seen.append(op.name)
        return tir.call_pure_extern("float32", "%sf" % op.name, op.args[0])

    tvm.target.register_intrin_rule("opencl", "tepad_test_sqrt", rule, override=True)
    with pytest.raises(TepadError, match="already registered"):
        tvm.target.register_intrin_rule("opencl", "tepad_test_sqrt", rule)
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: tir.call_intrin("float32", "tepad_test_sqrt", A[i]),
                   name="B")
    s = te.create_schedule(B.op)
    s[B].bind(B.op.axis[0], te.thread_axis("threadIdx.x"))
    f = tvm.build(s, [A, B], "opencl")
    assert "= tepad_test_sqrtf(A[" in f.imported_modules[0].get_source()
    assert seen and seen[0] == "tepad_test_sqrt"
