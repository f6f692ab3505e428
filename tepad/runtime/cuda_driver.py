"""The CUDA driver calls tepad makes, behind one small interface (``Driver``), so that the
launch plumbing can be tested with a fake driver on a machine without a GPU.

``CudaBindingsDriver`` implements it with the driver API of the ``cuda-bindings`` package
(``pip install tepad[cuda]``), imported the first time a real CUDA device is asked for, never
when tepad is imported. ``get_driver()`` is the driver in use; ``use_driver(d)`` swaps in
another (a fake in tests) for a ``with`` block.
"""
from __future__ import annotations

import atexit
import contextlib
import ctypes
import ctypes.util
import threading

from ..errors import TepadError

EMULATE_HINT = ("set TEPAD_CUDA=emulate to run CUDA schedules on the CPU through tepad's GPU "
                "emulator")
BLOCKING_HINT = ("set TEPAD_CUDA_LAUNCH_BLOCKING=1 (or CUDA_LAUNCH_BLOCKING=1, or build for "
                 "'cuda -launch_blocking=1') to check after every launch and name the kernel "
                 "that faulted")

# errors a faulting kernel leaves in its context: the call that reports them is rarely the
# one that caused them (CUDA_ERROR_ILLEGAL_ADDRESS .. CUDA_ERROR_LAUNCH_FAILED, and friends)
KERNEL_FAULTS = frozenset({700, 701, 702, 709, 710, 714, 715, 716, 717, 718, 719, 720})
# the JIT options cuModuleLoadDataEx takes (cuda.h CUjit_option)
_JIT_INFO_LOG_BUFFER, _JIT_INFO_LOG_SIZE = 3, 4
_JIT_ERROR_LOG_BUFFER, _JIT_ERROR_LOG_SIZE = 5, 6
_JIT_LOG_BYTES = 64 * 1024

# the launch most recently made (a description), named when a later call reports a fault
last_launch = [None]


class Driver:
    """What the runtime needs from a CUDA driver. Pointers are ints; ``ptx`` is text.

    ``available(device_id)`` must not raise: it says whether that device can be used (the
    reason, when not, is ``unavailable_reason()``). Every other method raises ``TepadError``
    naming the call that failed."""

    def available(self, device_id: int) -> bool: raise NotImplementedError
    def unavailable_reason(self) -> str: raise NotImplementedError
    def compute_capability(self, device_id: int) -> tuple: raise NotImplementedError
    def activate(self, device_id: int) -> None: raise NotImplementedError
    def mem_alloc(self, nbytes: int) -> int: raise NotImplementedError
    def mem_free(self, ptr: int) -> None: raise NotImplementedError
    def copy_htod(self, dst: int, src_host: int, nbytes: int) -> None: raise NotImplementedError
    def copy_dtoh(self, dst_host: int, src: int, nbytes: int) -> None: raise NotImplementedError
    def copy_dtod(self, dst: int, src: int, nbytes: int) -> None: raise NotImplementedError
    def load_module(self, ptx: str): raise NotImplementedError
    def get_function(self, module, name: str): raise NotImplementedError

    def launch(self, function, grid: tuple, block: tuple, shared_bytes: int,
               args: list) -> None:
        """Launch ``function`` on the default stream; ``args`` are ctypes values, one per
        kernel parameter, in order."""
        raise NotImplementedError

    def synchronize(self) -> None: raise NotImplementedError
    def event_create(self): raise NotImplementedError
    def event_record(self, event) -> None: raise NotImplementedError
    def event_elapsed_ms(self, start, end) -> float: raise NotImplementedError

    # with defaults, so that a minimal (fake) driver need not define them
    def event_destroy(self, event) -> None:
        """Release an event made by ``event_create``."""

    def unload_module(self, module, device_id: int) -> None:
        """Unload a module ``load_module`` returned (its context made current first)."""

    def free(self, device_id: int, ptr: int) -> None:
        """Free device memory from wherever the last reference went (a garbage collection,
        another thread): the device's context is made current for the call only."""
        self.activate(device_id)
        self.mem_free(ptr)

    def describe(self, device_id: int) -> dict:
        """What a check script prints about the device: name, driver version, ..."""
        return {}


def _import_bindings():
    """The driver module of cuda-bindings (``cuda.bindings.driver``, or ``cuda.cuda`` of
    cuda-python 11/12), imported now; a TepadError saying how to install it when missing."""
    try:
        from cuda.bindings import driver            # cuda-bindings >= 12.6
        return driver
    except ImportError:
        pass
    try:
        from cuda import cuda as driver             # older cuda-python
        return driver
    except ImportError:
        raise TepadError("CUDA needs the cuda-bindings package (pip install tepad[cuda], or "
                         f"pip install cuda-bindings); or {EMULATE_HINT}") from None


class CudaBindingsDriver(Driver):
    """The real driver, through cuda-bindings. Initialized (``cuInit``) on first use; one
    primary context per device, made current before each call that needs it."""

    def __init__(self):
        self._cu = None
        self._error = None
        self._count = 0
        self._contexts: dict = {}
        self._lock = threading.Lock()
        self._closed = False
        self._libcuda = None

    def _init(self) -> bool:
        with self._lock:
            if self._cu is not None or self._error is not None:
                return self._cu is not None
            try:
                cu = _import_bindings()
                err, = cu.cuInit(0)
                if int(err) != 0:
                    raise TepadError(f"cuInit failed: {self._name(cu, err)} (no NVIDIA driver "
                                     "or GPU on this machine)")
                err, count = cu.cuDeviceGetCount()
                if int(err) != 0 or count == 0:
                    raise TepadError("the CUDA driver sees no GPU on this machine")
                self._cu, self._count = cu, int(count)
            except TepadError as e:
                self._error = str(e)
            except Exception as e:  # noqa: BLE001 - a broken install must read as "no GPU"
                self._error = f"the CUDA driver could not be initialized ({e})"
            return self._cu is not None

    @staticmethod
    def _name(cu, err) -> str:
        try:
            e, s = cu.cuGetErrorName(err)
            return s.decode() if isinstance(s, bytes) else str(s)
        except Exception:  # noqa: BLE001
            return str(err)

    def _call(self, what, res):
        """The results of a driver call after its status; a TepadError naming it on failure."""
        if not isinstance(res, tuple):
            res = (res,)
        code = int(res[0])
        if code != 0:
            msg = f"CUDA {what} failed: {self._name(self._cu, res[0])}"
            if code in KERNEL_FAULTS:
                msg += ("; a kernel faulted earlier (launches are asynchronous): the last "
                        f"launch was {last_launch[0] or 'unknown'}; {BLOCKING_HINT}")
            raise TepadError(msg)
        rest = res[1:]
        return rest[0] if len(rest) == 1 else rest

    def available(self, device_id: int) -> bool:
        return self._init() and 0 <= device_id < self._count

    def unavailable_reason(self) -> str:
        self._init()
        if self._error:
            return self._error
        return f"this machine has {self._count} CUDA device(s)"

    def _need(self):
        if not self._init():
            raise TepadError(f"CUDA is not available: {self._error}; {EMULATE_HINT}")
        return self._cu

    def compute_capability(self, device_id: int) -> tuple:
        cu = self._need()
        dev = self._call("cuDeviceGet", cu.cuDeviceGet(device_id))
        a = cu.CUdevice_attribute
        major = self._call("cuDeviceGetAttribute", cu.cuDeviceGetAttribute(
            a.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
        minor = self._call("cuDeviceGetAttribute", cu.cuDeviceGetAttribute(
            a.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
        return int(major), int(minor)

    def activate(self, device_id: int) -> None:
        cu = self._need()
        ctx = self._contexts.get(device_id)
        if ctx is None:
            dev = self._call("cuDeviceGet", cu.cuDeviceGet(device_id))
            ctx = self._call("cuDevicePrimaryCtxRetain", cu.cuDevicePrimaryCtxRetain(dev))
            if not self._contexts:
                atexit.register(self.release)
            self._contexts[device_id] = (ctx, dev)
        else:
            ctx = ctx[0]
        self._call("cuCtxSetCurrent", cu.cuCtxSetCurrent(ctx))

    def release(self) -> None:
        """Release the primary contexts retained (at interpreter exit): the driver frees what
        they hold; frees and unloads after this are no-ops."""
        if self._cu is None or self._closed:
            return
        self._closed = True
        for ctx, dev in self._contexts.values():
            try:
                self._cu.cuDevicePrimaryCtxRelease(dev)
            except Exception:  # noqa: BLE001 - exiting; the driver tears down anyway
                pass
        self._contexts.clear()

    def _pushed(self, device_id: int):
        """Context manager: device ``device_id``'s context current for a call, the caller's
        restored after (for frees from the garbage collector)."""
        cu = self._cu
        ctx = self._contexts.get(device_id)

        @contextlib.contextmanager
        def scope():
            if ctx is None:
                yield
                return
            self._call("cuCtxPushCurrent", cu.cuCtxPushCurrent(ctx[0]))
            try:
                yield
            finally:
                cu.cuCtxPopCurrent()
        return scope()

    def free(self, device_id: int, ptr: int) -> None:
        if self._cu is None or self._closed:
            return
        with self._pushed(device_id):
            self._call("cuMemFree", self._cu.cuMemFree(self._cu.CUdeviceptr(ptr)))

    def unload_module(self, module, device_id: int) -> None:
        if self._cu is None or self._closed:
            return
        with self._pushed(device_id):
            self._call("cuModuleUnload", self._cu.cuModuleUnload(module))

    def event_destroy(self, event) -> None:
        if self._cu is None or self._closed:
            return
        self._call("cuEventDestroy", self._cu.cuEventDestroy(event))

    def describe(self, device_id: int) -> dict:
        cu = self._need()
        dev = self._call("cuDeviceGet", cu.cuDeviceGet(device_id))
        name = self._call("cuDeviceGetName", cu.cuDeviceGetName(256, dev))
        name = name.split(b"\0", 1)[0].decode() if isinstance(name, bytes) else str(name)
        version = int(self._call("cuDriverGetVersion", cu.cuDriverGetVersion()))
        mem = int(self._call("cuDeviceTotalMem", cu.cuDeviceTotalMem(dev)))
        major, minor = self.compute_capability(device_id)
        return {"name": name, "compute_capability": f"{major}.{minor}",
                "driver_cuda_version": f"{version // 1000}.{version % 1000 // 10}",
                "memory_gib": round(mem / 2 ** 30, 1), "devices": self._count}

    def mem_alloc(self, nbytes: int) -> int:
        cu = self._need()
        return int(self._call("cuMemAlloc", cu.cuMemAlloc(max(int(nbytes), 1))))

    def mem_free(self, ptr: int) -> None:
        if self._cu is not None and not self._closed:
            self._call("cuMemFree", self._cu.cuMemFree(self._cu.CUdeviceptr(ptr)))

    def copy_htod(self, dst, src_host, nbytes):
        cu = self._need()
        if nbytes:
            self._call("cuMemcpyHtoD", cu.cuMemcpyHtoD(cu.CUdeviceptr(dst), src_host, nbytes))

    def copy_dtoh(self, dst_host, src, nbytes):
        cu = self._need()
        if nbytes:
            self._call("cuMemcpyDtoH", cu.cuMemcpyDtoH(dst_host, cu.CUdeviceptr(src), nbytes))

    def copy_dtod(self, dst, src, nbytes):
        cu = self._need()
        if nbytes:
            self._call("cuMemcpyDtoD", cu.cuMemcpyDtoD(cu.CUdeviceptr(dst), cu.CUdeviceptr(src),
                                                       nbytes))

    def _lib(self):
        """libcuda through ctypes (for cuModuleLoadDataEx's log buffers, which are raw
        pointers); None when it cannot be opened."""
        if self._libcuda is None:
            for name in ("libcuda.so.1", ctypes.util.find_library("cuda"), "nvcuda.dll"):
                try:
                    self._libcuda = ctypes.CDLL(name) if name else None
                except OSError:
                    continue
                if self._libcuda is not None:
                    break
            else:
                self._libcuda = False
        return self._libcuda or None

    def load_module(self, ptx: str):
        """Load ``ptx`` with ``cuModuleLoadDataEx``: on failure the JIT's error log is in the
        TepadError."""
        cu = self._need()
        image = ctypes.create_string_buffer(ptx.encode())     # NUL-terminated, alive here
        lib = self._lib()
        if lib is None:
            return self._call("cuModuleLoadData (loading the kernels' PTX)",
                              cu.cuModuleLoadData(ctypes.addressof(image)))
        err_log = ctypes.create_string_buffer(_JIT_LOG_BYTES)
        info_log = ctypes.create_string_buffer(_JIT_LOG_BYTES)
        opts = (ctypes.c_int * 4)(_JIT_ERROR_LOG_BUFFER, _JIT_ERROR_LOG_SIZE,
                                  _JIT_INFO_LOG_BUFFER, _JIT_INFO_LOG_SIZE)
        vals = (ctypes.c_void_p * 4)(ctypes.addressof(err_log), _JIT_LOG_BYTES,
                                     ctypes.addressof(info_log), _JIT_LOG_BYTES)
        handle = ctypes.c_void_p()
        code = lib.cuModuleLoadDataEx(ctypes.byref(handle), image, 4, opts, vals)
        if code != 0:
            log = err_log.value.decode(errors="replace").strip()
            raise TepadError(f"CUDA cuModuleLoadDataEx (loading the kernels' PTX) failed: "
                             f"{self._name(cu, cu.CUresult(code))}"
                             + (f"; the PTX JIT said:\n{log}" if log else ""))
        return cu.CUmodule(handle.value)

    def get_function(self, module, name: str):
        cu = self._need()
        return self._call(f"cuModuleGetFunction({name})",
                          cu.cuModuleGetFunction(module, name.encode()))

    def launch(self, function, grid, block, shared_bytes, args):
        cu = self._need()
        if shared_bytes > 48 * 1024:      # above 48 KiB a kernel must opt in
            self._call("cuFuncSetAttribute", cu.cuFuncSetAttribute(
                function,
                cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                int(shared_bytes)))
        ptrs = getattr(args, "kernel_params", None)     # packed once by the runtime
        if ptrs is None:
            ptrs = (ctypes.c_void_p * max(len(args), 1))(*[ctypes.addressof(a) for a in args])
        self._call("cuLaunchKernel", cu.cuLaunchKernel(
            function, *[int(g) for g in grid], *[int(b) for b in block], int(shared_bytes),
            0, ctypes.addressof(ptrs), 0))

    def synchronize(self):
        cu = self._need()
        self._call("cuCtxSynchronize", cu.cuCtxSynchronize())

    def event_create(self):
        cu = self._need()
        return self._call("cuEventCreate", cu.cuEventCreate(0))

    def event_record(self, event):
        cu = self._need()
        self._call("cuEventRecord", cu.cuEventRecord(event, 0))

    def event_elapsed_ms(self, start, end) -> float:
        cu = self._need()
        self._call("cuEventSynchronize", cu.cuEventSynchronize(end))
        return float(self._call("cuEventElapsedTime", cu.cuEventElapsedTime(start, end)))


_driver: Driver | None = None
_driver_lock = threading.Lock()


def get_driver() -> Driver:
    """The driver in use: the one ``use_driver`` installed, else the cuda-bindings driver
    (created, not yet initialized, on first call)."""
    global _driver
    with _driver_lock:
        if _driver is None:
            _driver = CudaBindingsDriver()
        return _driver


@contextlib.contextmanager
def use_driver(driver: Driver):
    """Within this block ``get_driver()`` is ``driver`` (a fake one in tests)."""
    global _driver
    with _driver_lock:
        old, _driver = _driver, driver
    try:
        yield driver
    finally:
        with _driver_lock:
            _driver = old


def cuda_available(device_id: int = 0) -> bool:
    """Whether CUDA device ``device_id`` is there (never raises)."""
    try:
        return bool(get_driver().available(device_id))
    except Exception:  # noqa: BLE001 - .exist must answer, whatever the driver does
        return False


__all__ = ["Driver", "CudaBindingsDriver", "get_driver", "use_driver", "cuda_available",
           "EMULATE_HINT", "BLOCKING_HINT", "KERNEL_FAULTS", "last_launch"]
