"""CudaBindingsDriver over a fake cuda-bindings module: the calls it makes, how it reads their
(status, value...) results, and its errors (the real module needs a GPU to answer)."""
import ctypes
import types

import numpy as np
import pytest

import tepad as tvm
from tepad.errors import TepadError
from tepad.runtime import cuda_driver
from tepad.runtime.cuda_driver import CudaBindingsDriver, use_driver

from .nvptx_helpers import vadd_schedule


class FakeBindings:
    """The slice of ``cuda.bindings.driver`` the driver uses, over host memory."""

    CUdevice_attribute = types.SimpleNamespace(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR=75,
                                               CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR=76)
    CUfunction_attribute = types.SimpleNamespace(
        CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES=8)

    class CUdeviceptr(int):
        pass

    def __init__(self, count=1, fail=None):
        self.count, self.fail = count, fail or {}
        self.calls, self.buffers, self.launches = [], {}, []
        self.ctx_current = None

    def _rec(self, name, *args):
        self.calls.append(name)
        return self.fail.get(name, 0)

    def cuGetErrorName(self, err):
        return 0, b"CUDA_ERROR_FAKE_%d" % int(err)

    def cuInit(self, flags):
        return (self._rec("cuInit"),)

    def cuDeviceGetCount(self):
        return self._rec("cuDeviceGetCount"), self.count

    def cuDeviceGet(self, k):
        return self._rec("cuDeviceGet"), 100 + k

    def cuDeviceGetAttribute(self, attr, dev):
        return self._rec("cuDeviceGetAttribute"), {75: 8, 76: 6}[attr]

    def cuDevicePrimaryCtxRetain(self, dev):
        return self._rec("cuDevicePrimaryCtxRetain"), ("ctx", dev)

    def cuCtxSetCurrent(self, ctx):
        self.ctx_current = ctx
        return (self._rec("cuCtxSetCurrent"),)

    def cuMemAlloc(self, n):
        buf = (ctypes.c_char * n)()
        self.buffers[ctypes.addressof(buf)] = buf
        return self._rec("cuMemAlloc"), self.CUdeviceptr(ctypes.addressof(buf))

    def cuMemFree(self, p):
        self.buffers.pop(int(p))
        return (self._rec("cuMemFree"),)

    def cuMemcpyHtoD(self, dst, src, n):
        ctypes.memmove(int(dst), src, n)
        return (self._rec("cuMemcpyHtoD"),)

    def cuMemcpyDtoH(self, dst, src, n):
        ctypes.memmove(dst, int(src), n)
        return (self._rec("cuMemcpyDtoH"),)

    def cuMemcpyDtoD(self, dst, src, n):
        ctypes.memmove(int(dst), int(src), n)
        return (self._rec("cuMemcpyDtoD"),)

    def cuModuleLoadData(self, image):
        self.ptx = ctypes.string_at(image).decode()
        return self._rec("cuModuleLoadData"), "module"

    def cuModuleGetFunction(self, module, name):
        assert module == "module" and f".entry {name.decode()}(" in self.ptx
        return self._rec("cuModuleGetFunction"), name.decode()

    def cuLaunchKernel(self, f, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        ptrs = ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p))
        values = [ctypes.cast(ptrs[k], ctypes.POINTER(ctypes.c_uint64))[0] for k in range(3)]
        values.append(ctypes.cast(ptrs[3], ctypes.POINTER(ctypes.c_int32))[0])
        self.launches.append((f, (gx, gy, gz), (bx, by, bz), shared, values))
        return (self._rec("cuLaunchKernel"),)

    def cuCtxSynchronize(self):
        return (self._rec("cuCtxSynchronize"),)

    def cuEventCreate(self, flags):
        return self._rec("cuEventCreate"), object()

    def cuEventRecord(self, ev, stream):
        return (self._rec("cuEventRecord"),)

    def cuEventSynchronize(self, ev):
        return (self._rec("cuEventSynchronize"),)

    def cuEventElapsedTime(self, a, b):
        return self._rec("cuEventElapsedTime"), 2.0

    def cuEventDestroy(self, ev):
        return (self._rec("cuEventDestroy"),)

    def cuModuleUnload(self, module):
        return (self._rec("cuModuleUnload"),)

    def cuCtxPushCurrent(self, ctx):
        self.pushed = getattr(self, "pushed", []) + [ctx]
        return (self._rec("cuCtxPushCurrent"),)

    def cuCtxPopCurrent(self):
        return self._rec("cuCtxPopCurrent"), self.pushed.pop()

    def cuDevicePrimaryCtxRelease(self, dev):
        return (self._rec("cuDevicePrimaryCtxRelease"),)

    def CUresult(self, code):
        return code

    def cuDeviceGetName(self, n, dev):
        return self._rec("cuDeviceGetName"), b"NVIDIA H100 80GB HBM3" + b"\0" * (n - 21)

    def cuDriverGetVersion(self):
        return self._rec("cuDriverGetVersion"), 12080

    def cuDeviceTotalMem(self, dev):
        return self._rec("cuDeviceTotalMem"), 80 * 2 ** 30

    def CUmodule(self, handle):
        return ("loaded", handle)


class FakeLibcuda:
    """libcuda as ctypes sees it, for cuModuleLoadDataEx: fails with a JIT error log."""

    def __init__(self, log=b"ptxas application ptx input, line 12; error   : Unknown symbol"):
        self.log = log

    def cuModuleLoadDataEx(self, handle, image, n, opts, vals):
        assert list(opts)[:2] == [5, 6]          # the error log buffer and its size
        assert vals[1] >= len(self.log) + 1
        ctypes.memmove(vals[0], self.log, len(self.log))
        return 218                               # CUDA_ERROR_INVALID_PTX


@pytest.fixture
def bindings(monkeypatch):
    monkeypatch.delenv("TEPAD_CUDA", raising=False)
    fake = FakeBindings()
    monkeypatch.setattr(cuda_driver, "_import_bindings", lambda: fake)
    with use_driver(CudaBindingsDriver()):
        yield fake


def test_vector_add_through_the_bindings(bindings):
    assert tvm.cuda(0).exist and not tvm.cuda(1).exist
    s, args = vadd_schedule()
    f = tvm.build(s, args, target="cuda")
    assert f.arch == "sm_86"              # the device's compute capability
    dev = tvm.cuda(0)
    x = np.arange(100, dtype="float32")
    a, b = tvm.nd.array(x, dev), tvm.nd.array(2 * x, dev)
    c = tvm.nd.empty((100,), "float32", dev)
    f(a, b, c)
    (fn, grid, block, shared, values), = bindings.launches
    assert fn == "main_kernel" and grid == (2, 1, 1) and block == (64, 1, 1)
    assert values == [a.data_ptr, b.data_ptr, c.data_ptr, 100]
    np.testing.assert_array_equal(b.numpy(), 2 * x)
    assert bindings.ctx_current == ("ctx", 100)
    t = f.time_evaluator(f.entry_name, dev, number=2, repeat=2)(a, b, c)
    assert t.mean == pytest.approx(1e-3)  # 2 ms per block of 2 calls


def test_driver_failures_name_the_call(bindings):
    bindings.fail["cuMemAlloc"] = 2
    with pytest.raises(TepadError, match="CUDA cuMemAlloc failed: CUDA_ERROR_FAKE_2"):
        tvm.nd.empty((4,), "float32", tvm.cuda(0))


def test_failed_init_reads_as_no_device(monkeypatch):
    monkeypatch.delenv("TEPAD_CUDA", raising=False)
    fake = FakeBindings(fail={"cuInit": 100})
    monkeypatch.setattr(cuda_driver, "_import_bindings", lambda: fake)
    with use_driver(CudaBindingsDriver()) as d:
        assert not tvm.cuda(0).exist
        assert "cuInit failed: CUDA_ERROR_FAKE_100" in d.unavailable_reason()
        with pytest.raises(TepadError, match="cuInit failed.*TEPAD_CUDA=emulate"):
            tvm.nd.array(np.zeros(2), tvm.cuda(0))


def test_missing_bindings_say_how_to_install(monkeypatch):
    def missing():
        raise TepadError("CUDA needs the cuda-bindings package (pip install tepad[cuda])")
    monkeypatch.setattr(cuda_driver, "_import_bindings", missing)
    d = CudaBindingsDriver()
    assert not d.available(0)
    assert "pip install tepad[cuda]" in d.unavailable_reason()


def test_ptx_the_device_cannot_load_names_both_architectures(bindings):
    bindings.fail["cuModuleLoadData"] = 218          # CUDA_ERROR_INVALID_PTX
    s, args = vadd_schedule()
    f = tvm.build(s, args, target="cuda -arch=sm_90")
    a, b, c = (tvm.nd.array(np.ones(8, "float32"), tvm.cuda(0)) for _ in range(3))
    with pytest.raises(TepadError, match=r"cuModuleLoadData.*PTX for sm_90, device cuda\(0\) "
                                         r"is sm_86.*'cuda -arch=sm_86'"):
        f(a, b, c)


def test_invalid_ptx_shows_the_jit_log(bindings):
    d = tvm.runtime.cuda_driver.get_driver()
    d._init()
    d._libcuda = FakeLibcuda()
    s, args = vadd_schedule()
    f = tvm.build(s, args, target="cuda")
    a, b, c = (tvm.nd.array(np.ones(8, "float32"), tvm.cuda(0)) for _ in range(3))
    with pytest.raises(TepadError, match=r"cuModuleLoadDataEx.*CUDA_ERROR_FAKE_218.*PTX JIT "
                                         r"said:\nptxas application ptx input, line 12"):
        f(a, b, c)


def test_a_fault_reported_later_names_the_last_launch(bindings):
    s, args = vadd_schedule()
    f = tvm.build(s, args, target="cuda")
    x = np.ones(100, "float32")
    a, b, c = (tvm.nd.array(x, tvm.cuda(0)) for _ in range(3))
    f(a, b, c)
    bindings.fail["cuMemcpyDtoH"] = 700              # CUDA_ERROR_ILLEGAL_ADDRESS
    with pytest.raises(TepadError, match=r"cuMemcpyDtoH failed.*kernel faulted earlier.*"
                                         r"main_kernel \(grid 2x1x1, block 64x1x1, 0 bytes.*"
                                         r"TEPAD_CUDA_LAUNCH_BLOCKING=1"):
        c.numpy()


def test_launch_blocking_names_the_faulting_kernel(bindings, monkeypatch):
    monkeypatch.setenv("TEPAD_CUDA_LAUNCH_BLOCKING", "1")
    s, args = vadd_schedule(factor=32)
    f = tvm.build(s, args, target="cuda")
    assert f.launch_blocking
    a, b, c = (tvm.nd.array(np.ones(100, "float32"), tvm.cuda(0)) for _ in range(3))
    f(a, b, c)
    assert bindings.calls[-1] == "cuCtxSynchronize"   # checked after the launch
    bindings.fail["cuCtxSynchronize"] = 700
    with pytest.raises(TepadError, match=r"module main: kernel main_kernel \(grid 4x1x1, "
                                         r"block 32x1x1, 0 bytes dynamic shared memory\) "
                                         r"faulted: CUDA cuCtxSynchronize failed"):
        f(a, b, c)


def test_launch_errors_name_kernel_and_configuration(bindings):
    s, args = vadd_schedule()
    f = tvm.build(s, args, target="cuda")
    a, b, c = (tvm.nd.array(np.ones(100, "float32"), tvm.cuda(0)) for _ in range(3))
    bindings.fail["cuLaunchKernel"] = 701            # CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
    with pytest.raises(TepadError, match=r"launching kernel main_kernel \(grid 2x1x1, block "
                                         r"64x1x1.*CUDA_ERROR_FAKE_701"):
        f(a, b, c)


def test_frees_push_the_context_and_failures_warn(bindings):
    a = tvm.nd.array(np.ones(8, "float32"), tvm.cuda(0))
    bindings.ctx_current = "someone else's"
    del a
    assert bindings.calls[-3:] == ["cuCtxPushCurrent", "cuMemFree", "cuCtxPopCurrent"]
    b = tvm.nd.array(np.ones(8, "float32"), tvm.cuda(0))
    bindings.fail["cuMemFree"] = 1
    with pytest.warns(RuntimeWarning, match="freeing 32 bytes of cuda\\(0\\) memory.*"
                                            "cuMemFree failed"):
        del b
        import gc
        gc.collect()


def test_modules_unloaded_events_destroyed_contexts_released(bindings):
    import gc
    s, args = vadd_schedule(factor=16)
    f = tvm.build(s, args, target="cuda", name="unload_me")
    a, b, c = (tvm.nd.array(np.ones(64, "float32"), tvm.cuda(0)) for _ in range(3))
    f.time_evaluator(f.entry_name, tvm.cuda(0), number=1, repeat=1)(a, b, c)
    assert bindings.calls.count("cuEventCreate") == bindings.calls.count("cuEventDestroy") == 2
    f._finalizer()                                    # what collecting the module runs
    assert "cuModuleUnload" in bindings.calls
    d = tvm.runtime.cuda_driver.get_driver()
    d.release()
    assert "cuDevicePrimaryCtxRelease" in bindings.calls
    n = len(bindings.calls)
    del a
    gc.collect()
    assert len(bindings.calls) == n                   # after release: nothing to free


def test_describe_for_the_check_script(bindings):
    d = tvm.runtime.cuda_driver.get_driver()
    assert d.describe(0) == {"name": "NVIDIA H100 80GB HBM3", "compute_capability": "8.6",
                             "driver_cuda_version": "12.8", "memory_gib": 80.0, "devices": 1}
