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
    a = tvm.nd.array(np.ones(8, "float32"), tvm.cuda(0))
    with pytest.raises(TepadError, match=r"cuModuleLoadData.*PTX for sm_90, device cuda\(0\) "
                                         r"is sm_86.*'cuda -arch=sm_86'"):
        f(a, a, a)
