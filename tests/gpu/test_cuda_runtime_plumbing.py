"""The CUDA runtime's plumbing, with the driver faked: device arrays, argument checks before
any launch, launch dimensions and arguments, timing with events, and the errors without a GPU."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tepad as tvm
from tepad import te
from tepad.errors import TepadError, TepadTypeError
from tepad.runtime.cuda_driver import CudaBindingsDriver, use_driver
from tepad.runtime.cuda_module import CudaModule, CudaNDArray

from .nvptx_helpers import FakeDriver, vadd_schedule
from .test_nvptx_codegen import _shared_reverse_kernel


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.delenv("TEPAD_CUDA", raising=False)
    with use_driver(FakeDriver()) as d:
        yield d


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.delenv("TEPAD_CUDA", raising=False)
    with use_driver(FakeDriver(devices=0)) as d:
        yield d


def test_device_exists_when_the_driver_sees_it(fake):
    assert tvm.cuda(0).exist and tvm.device("cuda").exist and tvm.gpu(0).exist
    assert not tvm.cuda(1).exist
    tvm.cuda(0).sync()
    assert fake.synced == 1


def test_arrays_round_trip_through_device_memory(fake):
    x = np.arange(12, dtype="float32").reshape(3, 4)
    a = tvm.nd.array(x, tvm.cuda(0))
    assert isinstance(a, CudaNDArray) and isinstance(a, tvm.nd.NDArray)
    assert a.device == tvm.cuda(0) and a.shape == (3, 4) and a.dtype == "float32"
    assert a.data_ptr in fake.mem
    np.testing.assert_array_equal(a.numpy(), x)
    a.copyfrom(x * 2)
    np.testing.assert_array_equal(a.asnumpy(), x * 2)
    b = tvm.nd.empty((3, 4), "float32", tvm.cuda(0))
    b.copyfrom(a)                                   # device to device
    np.testing.assert_array_equal(b.numpy(), x * 2)
    h = a.copyto(tvm.cpu(0))
    assert type(h) is tvm.nd.NDArray and h.device == tvm.cpu(0)
    np.testing.assert_array_equal(h.numpy(), x * 2)
    c = tvm.nd.array(h, tvm.cuda(0))
    np.testing.assert_array_equal(np.asarray(c), x * 2)
    with pytest.raises(TepadError, match="shape"):
        a.copyfrom(np.zeros(5))
    ptr = a.data_ptr
    del a
    assert ptr in fake.freed


def _vadd(fake, n=None):
    s, args = vadd_schedule(n)
    return tvm.build(s, args, target="cuda", name="vadd")


def test_module_checks_then_launches(fake):
    f = _vadd(fake)
    assert isinstance(f, CudaModule) and f.arch == "sm_90"     # the (fake) device's
    n = 1000
    a = tvm.nd.array(np.ones(n, "float32"), tvm.cuda(0))
    b = tvm.nd.array(np.ones(n, "float32"), tvm.cuda(0))
    c = tvm.nd.empty((n,), "float32", tvm.cuda(0))
    f(a, b, c)
    (fn, grid, block, shared, args), = fake.launches
    assert fn == "vadd_kernel" and grid == (16, 1, 1) and block == (64, 1, 1) and shared == 0
    assert args == [a.data_ptr, b.data_ptr, c.data_ptr, n]
    f(a, b, c)
    assert len(fake.launches) == 2 and len(fake.loaded) == 1     # PTX loaded once


def test_bad_arguments_are_refused_before_any_launch(fake):
    f = _vadd(fake)
    a = tvm.nd.array(np.ones(10, "float32"), tvm.cuda(0))
    short = tvm.nd.array(np.ones(9, "float32"), tvm.cuda(0))
    wrong = tvm.nd.array(np.ones(10, "float64"), tvm.cuda(0))
    with pytest.raises(TepadError, match="argument 2 'C'.*shape"):
        f(a, a, short)
    with pytest.raises(TepadTypeError, match="argument 1 'B'.*float32.*float64"):
        f(a, wrong, a)
    with pytest.raises(TepadTypeError, match=r"argument 0 'A'.*host memory.*tvm.nd.array\(x, "
                                             r"tvm.cuda\(0\)\)"):
        f(np.ones(10, "float32"), a, a)
    with pytest.raises(TepadTypeError, match="expected 3 arguments"):
        f(a, a)
    assert fake.launches == []


def test_empty_input_launches_nothing(fake):
    f = _vadd(fake)
    z = tvm.nd.empty((0,), "float32", tvm.cuda(0))
    f(z, z, z)
    assert fake.launches == []


def test_cpu_module_refuses_device_arrays(fake):
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1, name="B")
    f = tvm.build(te.create_schedule(B.op), [A, B])
    a = tvm.nd.array(np.ones(4, "float32"), tvm.cuda(0))
    with pytest.raises(TepadTypeError, match="memory of cuda\\(0\\).*runs on the CPU"):
        f(a, tvm.nd.empty((4,), "float32"))


def test_global_scratch_between_two_kernels(fake):
    A = te.placeholder((1024,), name="A")
    B = te.compute((1024,), lambda i: A[i] * 2, name="B")
    C = te.compute((1024,), lambda i: B[i] + 1, name="C")
    s = te.create_schedule(C.op)
    for T in (B, C):
        bx, tx = s[T].split(T.op.axis[0], factor=128)
        s[T].bind(bx, te.thread_axis("blockIdx.x"))
        s[T].bind(tx, te.thread_axis("threadIdx.x"))
    f = tvm.build(s, [A, C], target="cuda")
    a = tvm.nd.array(np.ones(1024, "float32"), tvm.cuda(0))
    c = tvm.nd.empty((1024,), "float32", tvm.cuda(0))
    before = len(fake.mem)
    f(a, c)
    (k0, g0, b0, _, args0), (k1, g1, b1, _, args1) = fake.launches
    assert (k0, k1) == ("main_kernel", "main_kernel_1")
    assert g0 == g1 == (8, 1, 1) and b0 == b1 == (128, 1, 1)
    scratch = args0[1]
    assert args0 == [a.data_ptr, scratch] and args1 == [c.data_ptr, scratch]
    assert scratch not in fake.mem and scratch in fake.freed   # freed after the launches
    assert len(fake.mem) == before


def test_time_evaluator_times_with_events(fake):
    f = _vadd(fake)
    a, b, c = (tvm.nd.array(np.ones(64, "float32"), tvm.cuda(0)) for _ in range(3))
    t = f.time_evaluator(f.entry_name, tvm.cuda(0), number=4, repeat=3)(a, b, c)
    assert len(t.results) == 3
    assert t.mean == pytest.approx(0.5e-3)      # the fake's 0.5 ms per launch
    assert len(fake.launches) == 1 + 12
    t = f.time_evaluator(f.entry_name, tvm.cuda(0), number=1, min_repeat_ms=5)(a, b, c)
    assert t.mean == pytest.approx(0.5e-3)


def test_sources(fake):
    f = _vadd(fake)
    assert ".entry vadd_kernel(" in f.get_source("ptx")
    assert f.imported_modules[0].get_source("ptx") == f.get_source("ptx")
    assert "ptx_kernel" in f.imported_modules[0].get_source("ll")
    assert f["vadd"] is f and f.entry_name == "vadd"


def test_target_host_form(fake):
    s, args = vadd_schedule()
    f = tvm.build(s, args, "cuda -arch=sm_80", target_host="llvm", name="myadd")
    assert f.arch == "sm_80" and ".target sm_80" in f.get_source("ptx")
    with pytest.raises(TepadError, match="target_host"):
        tvm.build(s, args, "cuda", target_host="cuda")


def test_without_a_gpu_the_errors_name_the_switch(no_gpu):
    assert not tvm.cuda(0).exist
    for make in (lambda: tvm.nd.array(np.zeros(3), tvm.cuda(0)),
                 lambda: tvm.nd.empty((3,), "float32", tvm.cuda(0)),
                 lambda: tvm.cuda(0).sync()):
        with pytest.raises(TepadError, match="does not exist.*TEPAD_CUDA=emulate"):
            make()
    s, args = vadd_schedule()
    f = tvm.build(s, args, target="cuda")        # building needs no GPU
    assert f.arch == tvm.target.DEFAULT_CUDA_ARCH
    with pytest.raises(TepadError, match="TEPAD_CUDA=emulate"):
        f(*[np.zeros(4, "float32")] * 3)


def test_emulate_switch(monkeypatch, no_gpu):
    monkeypatch.setenv("TEPAD_CUDA", "emulate")
    assert tvm.runtime.cuda_emulated()
    dev = tvm.cuda(0)
    assert dev.exist and dev.is_emulated
    dev.sync()
    a = tvm.nd.array(np.arange(3, dtype="float32"), dev)
    assert type(a) is tvm.nd.NDArray and a.device == tvm.cuda(0)
    np.testing.assert_array_equal(a.numpy(), [0, 1, 2])
    e = tvm.nd.empty((2, 2), "float32", dev)
    assert type(e) is tvm.nd.NDArray and e.device == dev
    monkeypatch.setenv("TEPAD_CUDA", "0")
    assert not tvm.cuda(0).exist


def test_real_driver_without_gpu_answers_no():
    d = CudaBindingsDriver()
    if d.available(0):
        pytest.skip("this machine has a GPU")
    assert d.unavailable_reason()
    with pytest.raises(TepadError, match="TEPAD_CUDA=emulate"):
        d.mem_alloc(16)


def test_importing_tepad_does_not_import_cuda_bindings():
    code = ("import sys, numpy as np, tepad as tvm\n"
            "from tepad import te\n"
            "A = te.placeholder((4,), name='A')\n"
            "B = te.compute((4,), lambda i: A[i] + 1, name='B')\n"
            "f = tvm.build(te.create_schedule(B.op), [A, B])\n"
            "f(np.ones(4, 'float32'), np.empty(4, 'float32'))\n"
            "bad = [m for m in sys.modules if m == 'cuda' or m.startswith('cuda.')]\n"
            "assert not bad, bad\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(tvm.__file__)))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr


def test_hand_built_device_function_builds_and_launches(fake):
    f = tvm.build(_shared_reverse_kernel(), target="cuda")
    a = tvm.nd.array(np.ones(1024, "float32"), tvm.cuda(0))
    b = tvm.nd.empty((1024,), "float32", tvm.cuda(0))
    f(a, b)
    (name, grid, block, shared, args), = fake.launches
    assert (name, grid, block, shared) == ("rev_kernel", (8, 1, 1), (128, 1, 1), 0)


def test_save_ptx(fake, tmp_path):
    f = _vadd(fake)
    f.imported_modules[0].save(str(tmp_path / "myadd.ptx"))
    assert (tmp_path / "myadd.ptx").read_text() == f.get_source("ptx")
    with pytest.raises(TepadError, match=r"\.ptx"):
        f.save(str(tmp_path / "myadd.bin"))


def test_device_attributes(fake, monkeypatch):
    dev = tvm.cuda(0)
    assert dev.compute_version == "9.0"                  # the fake's (9, 0)
    assert (dev.max_threads_per_block, dev.warp_size, dev.max_shared_memory_per_block) == \
        (1024, 32, 49152)
    assert tvm.cpu(0).compute_version is None and tvm.cpu(0).warp_size is None
    with use_driver(FakeDriver(devices=0)):
        with pytest.raises(TepadError, match="compute_version.*TEPAD_CUDA=emulate"):
            tvm.cuda(0).compute_version
        monkeypatch.setenv("TEPAD_CUDA", "emulate")
        assert tvm.cuda(0).compute_version == "9.0"      # the cuda target's default, sm_90


def test_rebuilding_returns_the_module_built_before(fake, monkeypatch):
    s, args = vadd_schedule()
    f = tvm.build(s, args, target="cuda")
    assert tvm.build(s, args, target="cuda") is f
    assert tvm.build(s, args, target="cuda -arch=sm_80") is not f
    assert tvm.build(s, args, target="cuda", name="other") is not f
    s2, args2 = vadd_schedule(factor=32)                     # another schedule: rebuilt
    assert tvm.build(s2, args2, target="cuda") is not f
    monkeypatch.setenv("TEPAD_COMPILE_CACHE", "0")
    g = tvm.build(s, args, target="cuda")
    assert tvm.build(s, args, target="cuda") is not g
