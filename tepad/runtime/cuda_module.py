"""CUDA runtime: arrays in GPU memory (``CudaNDArray``) and the module that launches a built
CUDA function (``CudaModule``), over the driver interface of ``cuda_driver`` (cuda-bindings,
imported only when a real device is used; a fake in tests).

A ``CudaModule`` holds what ``split_host_device`` made of the lowered function: the host part
(a PrimFunc whose launch regions are launch calls), the kernels' PTX and the launch records.
A call checks every argument against the host function's buffers (shapes, dtypes, symbolic
sizes bound from the shapes, as a CPU Module does; one array passed as an output and as
another argument, which the noalias kernels cannot take) before anything is launched, then
runs the host part: lets, asserts, ifs and loops evaluated in Python, global scratch buffers
allocated in device memory, and each launch call a ``cuLaunchKernel`` with its grid and block
dimensions evaluated from the host's variables and checked against CUDA's limits.

The first call with arrays of given shapes, dtypes and device records a *plan* (the
evaluated launch configurations and packed kernel arguments); later calls with arrays of the
same signature only refill the pointers and launch (modules with scalar parameters or
host-allocated scratch are checked every call). Saving and loading: ``cuda_library``.
"""
from __future__ import annotations

import ctypes
import os
import threading
import warnings
import weakref

import numpy as np

from .. import config
from .. import tir
from .._lazy import lazy_module
from ..codegen.analysis import shape_vars
from ..codegen.c_source import kernel_source
from ..errors import TepadError, TepadTypeError
from ..tir.launch import LAUNCH_OP, SplitFunc, is_launch
from ..tir import dtype as dt
from .args import ArgChecker, ArgInfo, arg_info_of, eval_int, scalar_ctype
from . import cuda_driver
from .cuda_driver import get_driver
from .device import Device, check_host, missing_message, take_ctx
from .module_base import ModuleBase
from .ndarray import DeviceView, NDArray, register_device_arrays
from .timing import BenchmarkResult

cuda_library = lazy_module("tepad.runtime.cuda_library")     # saving and exporting only

MAX_THREADS_PER_BLOCK = 1024
# CUDA's launch limits (every architecture tepad targets, sm_50 on): gridDim.x < 2^31,
# gridDim.y/z <= 65535, blockDim.x/y <= 1024, blockDim.z <= 64, 1024 threads per block
MAX_GRID = (2 ** 31 - 1, 65535, 65535)
MAX_BLOCK = (1024, 1024, 64)
# the base alignment a kernel with vector accesses assumes of its buffers (codegen's widest)
VECTOR_BASE_ALIGN = 16


def launch_blocking_from_env() -> bool:
    """Whether ``TEPAD_CUDA_LAUNCH_BLOCKING`` or ``CUDA_LAUNCH_BLOCKING`` asks to synchronize
    and check after every launch."""
    return config.launch_blocking()


class _DeviceMemory:
    """``nbytes`` of device memory at ``ptr``, freed when the last holder lets go."""

    __slots__ = ("ptr", "nbytes", "driver", "device_id")

    def __init__(self, driver, device_id: int, nbytes: int):
        driver.activate(device_id)
        self.driver, self.device_id, self.nbytes = driver, device_id, int(nbytes)
        self.ptr = int(driver.mem_alloc(self.nbytes))

    def __del__(self):
        # may run from the garbage collector on any thread: the driver makes the device's
        # context current for the free only; a failure is a warning (raising here is lost)
        if getattr(self, "ptr", None) is None:          # the allocation itself failed
            return
        try:
            self.driver.free(self.device_id, self.ptr)
        except Exception as err:  # noqa: BLE001
            _warn(f"freeing {self.nbytes} bytes of cuda({self.device_id}) memory at "
                  f"{self.ptr:#x} failed: {err}")


def _warn(msg: str) -> None:
    try:
        warnings.warn(f"tepad CUDA runtime: {msg}", RuntimeWarning, stacklevel=3)
    except Exception:  # noqa: BLE001 - at interpreter exit warnings may be gone too
        pass


_signatures: dict = {}
_signatures_lock = threading.Lock()


def _signature_id(sig) -> int:
    with _signatures_lock:
        return _signatures.setdefault(sig, len(_signatures))


class CudaNDArray(NDArray):
    """An n-d array in the memory of a CUDA device. ``numpy()`` copies it to the host,
    ``copyfrom`` from the host (or from another array); a ``CudaModule`` passes its device
    address to the kernels."""

    __slots__ = ("_mem", "_ptr", "_sig")

    def __init__(self, shape, dtype, dev: Device):
        """Uninitialized device memory for ``shape`` elements of numpy dtype ``dtype``."""
        npd = np.dtype(dtype)
        nbytes = int(np.prod(shape, dtype=np.int64)) * npd.itemsize
        self._mem = _DeviceMemory(get_driver(), dev.device_id, nbytes)
        self._arr = DeviceView(shape, npd, self._mem.ptr, dev)
        self._device = dev
        self._ptr = self._mem.ptr
        # (shape, dtype, device) as a small int: a CudaModule's plans are keyed by these
        self._sig = _signature_id((tuple(self._arr.shape), npd.str, dev.device_id))

    @property
    def dtype(self) -> str:
        return self._arr.dtype.name

    @property
    def data_ptr(self) -> int:
        """The device address of the first element."""
        return self._mem.ptr

    def numpy(self) -> np.ndarray:
        out = np.empty(self._arr.shape, self._arr.dtype)
        drv = self._mem.driver
        drv.activate(self._device.device_id)
        drv.copy_dtoh(out.ctypes.data, self._mem.ptr, self._arr.nbytes)
        return out

    def copyfrom(self, source) -> "CudaNDArray":
        if isinstance(source, CudaNDArray) and source.shape == self.shape and \
                source._arr.dtype == self._arr.dtype:
            drv = self._mem.driver
            drv.activate(self._device.device_id)
            drv.copy_dtod(self._mem.ptr, source._mem.ptr, self._arr.nbytes)
            return self
        src = source.numpy() if isinstance(source, NDArray) else source
        try:
            src = np.asarray(src)
        except (TypeError, ValueError) as err:
            raise TepadTypeError(f"NDArray.copyfrom: cannot read {type(source).__name__} as an "
                                 f"array ({err})") from None
        if src.shape != self.shape:
            raise TepadError(f"NDArray.copyfrom: shape {tuple(src.shape)} does not match the "
                             f"NDArray's shape {self.shape}")
        if src.dtype.kind in "OUSV":
            raise TepadTypeError(f"NDArray.copyfrom: cannot copy an array of dtype {src.dtype} "
                                 f"into a {self.dtype} NDArray")
        host = np.ascontiguousarray(src.astype(self._arr.dtype, copy=False))
        drv = self._mem.driver
        drv.activate(self._device.device_id)
        drv.copy_htod(self._mem.ptr, host.ctypes.data, self._arr.nbytes)
        return self

    def copyto(self, target):
        if isinstance(target, NDArray):
            return target.copyfrom(self)
        if isinstance(target, Device):
            dev = check_host(target, "NDArray.copyto")
            return _CudaArrays.array(self.numpy(), dev) if dev.device_type == 2 and \
                not dev.is_emulated else NDArray(self.numpy(), dev)
        raise TepadTypeError(f"NDArray.copyto: target must be an NDArray or a Device, got "
                             f"{type(target).__name__}")

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def __repr__(self):
        return f"<tepad.nd.NDArray shape={self.shape}, {self._device!r}>\n{self.numpy()!r}"

    def __str__(self):
        return str(self.numpy())


class _CudaArrays:
    """Makes arrays in CUDA memory for ``tepad.nd.array`` / ``tepad.nd.empty``."""

    @staticmethod
    def array(host: np.ndarray, dev: Device) -> CudaNDArray:
        a = CudaNDArray(host.shape, host.dtype, dev)
        return a.copyfrom(host)

    @staticmethod
    def empty(shape, dtype, dev: Device) -> CudaNDArray:
        return CudaNDArray(shape, dtype, dev)


register_device_arrays(2, _CudaArrays)


# get_source / save formats of a CUDA device module
CUDA_C_FORMATS = ("", "cu", "cuda", "c")
PTX_FORMATS = ("ptx", "s", "asm")
LL_FORMATS = ("ll", "llvm")


class DeviceSourceModule(ModuleBase):
    """The device part of a CUDA module (``mod.imported_modules[0]``): its PTX, the device
    LLVM IR when built here, and the kernels' TIR when it has them (built here or loaded from
    an exported library; a module loaded from a ``.ptx`` file has only the PTX).

    ``get_source()`` is the CUDA C source of the kernels, as TVM's CUDA module shows it
    (``tepad.codegen.c_source``: for reading; tepad runs the PTX); ``get_source("ptx")`` the
    PTX, ``get_source("ll")`` the device LLVM IR. Without the kernels' TIR, ``get_source()``
    is the PTX."""

    type_key = "cuda"

    def __init__(self, ptx: str, ll: str = "", kernels: tuple = ()):
        self.ptx, self.ll = ptx, ll
        self.kernels = tuple(kernels)
        self._cuda_c = None

    @classmethod
    def load(cls, path) -> "DeviceSourceModule":
        """The device module saved as PTX at ``path`` (``load_module("myadd.ptx")``)."""
        with open(path) as f:
            ptx = f.read()
        if ".entry" not in ptx or ".version" not in ptx:
            raise TepadError(f"load_module({os.fspath(path)!r}): not PTX (no .version / "
                             ".entry); a CUDA module's device code is saved with "
                             "mod.imported_modules[0].save('k.ptx')")
        return cls(ptx)

    def get_source(self, fmt: str = "") -> str:
        """The CUDA C source (``fmt`` "", "cu", "cuda"; the PTX for "" when this module has
        no kernel TIR), the PTX ("ptx", "asm") or the device LLVM IR ("ll", "llvm")."""
        if fmt in CUDA_C_FORMATS:
            if self.kernels:
                if self._cuda_c is None:
                    self._cuda_c = kernel_source(self.kernels, "cuda")
                return self._cuda_c
            if fmt == "":
                return self.ptx
            raise TepadError("this device module was loaded from PTX: it has no CUDA C "
                             "source (get_source('ptx') gives the PTX)")
        if fmt in PTX_FORMATS:
            return self.ptx
        if fmt in LL_FORMATS:
            if not self.ll:
                raise TepadError("this device module was loaded from PTX: it has no LLVM IR")
            return self.ll
        raise TepadError(f"unknown source format {fmt!r}; use '' or 'cuda' (CUDA C), 'ptx' or "
                         "'ll'")

    def save(self, file_name, fmt: str = "") -> None:
        """Write the PTX (``.ptx``, as TVM's tutorial saves ``myadd.ptx``), the LLVM IR
        (``.ll``) or the CUDA C source (``.cu``)."""
        fmt = fmt or str(file_name).rsplit(".", 1)[-1]
        if fmt not in ("ptx", "ll", "cu"):
            raise TepadError(f"a CUDA device module saves its PTX (.ptx), LLVM IR (.ll) or "
                             f"CUDA C (.cu), not {fmt!r}")
        with open(file_name, "w") as f:
            f.write(self.get_source(fmt))

    def __repr__(self):
        return f"<tepad.runtime.DeviceSourceModule cuda, {self.ptx.count('.entry')} kernel(s)>"


class _Packed(list):
    """A kernel's launch arguments as ctypes values, with ``kernel_params`` (the ``void**``
    array cuLaunchKernel takes) built once and reused by every call."""

    def __init__(self, values):
        super().__init__(values)
        self.kernel_params = (ctypes.c_void_p * max(len(values), 1))(
            *[ctypes.addressof(v) for v in values])


class _LaunchStep:
    """One recorded launch of a fast-path plan: the function handle, the evaluated launch
    configuration, the packed arguments, and which of them are argument pointers
    (``slots``: (position in ``packed``, argument position))."""

    __slots__ = ("name", "fn", "grid", "block", "shared", "packed", "slots", "desc")

    def __init__(self, name, fn, grid, block, shared, packed, slots):
        self.name, self.fn, self.grid, self.block, self.shared = name, fn, grid, block, shared
        self.packed, self.slots = packed, slots
        self.desc = describe_launch(name, grid, block, shared)


def describe_launch(name, grid, block, shared) -> str:
    """``kernel main_kernel (grid 16x1x1, block 64x1x1, 0 bytes dynamic shared memory)``."""
    g = "x".join(map(str, grid))
    b = "x".join(map(str, block))
    return f"kernel {name} (grid {g}, block {b}, {shared} bytes dynamic shared memory)"


class CudaModule(ModuleBase):
    """A function built for CUDA: ``mod(*arrays)`` with arrays on one CUDA device
    (``tepad.nd.array(x, tepad.cuda(0))``) checks them, then launches the kernels; see the
    module doc.

    TVM's module face: ``imported_modules[0]`` is the device module (its PTX, ``save("k.ptx")``),
    ``save("k.o")`` writes the host part (``load_module`` + ``import_module`` of the PTX bring
    it back), ``export_library("k.so")`` writes both (``load_module("k.so")`` runs again),
    ``time_evaluator`` times ``number`` launches between two CUDA events.

    ``launch_blocking`` (from ``TEPAD_CUDA_LAUNCH_BLOCKING`` / ``CUDA_LAUNCH_BLOCKING`` or a
    ``cuda -launch_blocking=1`` target; settable): synchronize after every launch and name the
    kernel and its configuration when it faulted.

    Attributes: ``split`` (host part, kernels, launches), ``ptx``, ``ll`` (device LLVM IR),
    ``arch``, ``arg_info``, ``name``. A call is serialized by a lock (the packed launch
    arguments are reused)."""

    def __init__(self, split: SplitFunc, ptx: str | None, ll: str, arch: str,
                 arg_info: list[ArgInfo] | None = None, name: str | None = None,
                 launch_blocking: bool | None = None):
        func = split.host
        self.split, self.arch = split, arch
        self.func = func
        self.name = name or func.name
        self.arg_info = list(arg_info if arg_info is not None else arg_info_of(
            func, written_in=[func.body] + [k.body for k in split.kernels]))
        self.shape_vars = shape_vars(func)
        self._checker = ArgChecker(func, self.arg_info, self.shape_vars)
        self._checker.device_memory = True
        self._kernels = {k.attrs["global_symbol"]: k for k in split.kernels}
        self._device = [DeviceSourceModule(ptx, ll, split.kernels)] if ptx is not None \
            else []
        self._loaded: dict = {}
        self._plans: dict = {}
        self._lock = threading.RLock()
        self.launch_blocking = launch_blocking_from_env() if launch_blocking is None \
            else bool(launch_blocking)
        self._position = {}          # host var (param or its buffer's data) -> position
        for k, p in enumerate(func.params):
            self._position[p] = k
            buf = func.buffer_map.get(p)
            if buf is not None:
                self._position[buf.data] = k
        self._written = [k for k, p in enumerate(self._checker.plans)
                         if p is not None and p.writable]
        # a plan per argument signature needs every launch value to follow from the shapes:
        # no scalar parameters, no device scratch allocated by the host
        self._plannable = not self._checker.scalars and not _has_allocate(func.body)
        self._finalizer = weakref.finalize(self, _unload_all, self._loaded)

    # --- device code ------------------------------------------------------------------------
    @property
    def ptx(self) -> str | None:
        return self._device[0].ptx if self._device else None

    @property
    def ll(self) -> str:
        return self._device[0].ll if self._device else ""

    def import_module(self, device_module) -> None:
        """Attach the device code (``load_module("k.ptx")``) to a host part loaded from an
        object file, as TVM's tutorial does."""
        if not isinstance(device_module, DeviceSourceModule):
            raise TepadTypeError(f"import_module: a CUDA host module imports a device module "
                                 f"(load_module('k.ptx')), not {type(device_module).__name__}")
        missing = [k for k in self._kernels if f".entry {k}(" not in device_module.ptx]
        if missing:
            raise TepadError(f"import_module: the PTX has no kernel {', '.join(missing)} that "
                             f"module {self.name} launches")
        with self._lock:
            _unload_all(self._loaded)
            self._plans.clear()
            self._device = [device_module]

    # --- calling ----------------------------------------------------------------------------
    def __call__(self, *arrays):
        with self._lock:
            if self._plannable and self._fast(arrays):
                return
            self._slow(arrays)

    def _fast(self, arrays) -> bool:
        """Launch through the plan made for these arrays' signature; False when there is
        none (the slow path checks everything and records one)."""
        try:
            key = tuple([a._sig for a in arrays])
            ptrs = [a._ptr for a in arrays]
        except AttributeError:              # not all CudaNDArrays
            return False
        plan = self._plans.get(key)
        if plan is None:
            return False
        if len(set(ptrs)) != len(ptrs):
            return False                    # the slow path says whether it is allowed
        drv = cuda_driver._driver
        if plan[0] is not drv:
            return False
        drv.activate(plan[1])
        for step in plan[2]:
            packed = step.packed
            for slot, k in step.slots:
                packed[slot].value = ptrs[k]
            self._launch(drv, step.name, step.fn, step.grid, step.block, step.shared, packed,
                         step.desc)
        return True

    def _slow(self, arrays):
        dev = self._device_of(arrays)
        ptrs, svals = self._checker.check_call(arrays)
        self._check_aliasing(arrays, ptrs)
        env = {}
        for p, v in zip(self.func.params, ptrs):
            env[p] = v
            buf = self.func.buffer_map.get(p)
            if buf is not None:
                env[buf.data] = v
        env.update(zip(self.shape_vars, svals))
        drv = get_driver()
        drv.activate(dev.device_id)
        runner = _HostRunner(self, drv, self._functions(drv, dev.device_id), dev,
                             record=self._plannable)
        runner.run(self.func.body, env)
        if runner.steps is not None and all(type(a) is CudaNDArray for a in arrays):
            self._plans[tuple(a._sig for a in arrays)] = (drv, dev.device_id, runner.steps)

    def _launch(self, drv, name, fn, grid, block, shared, args, desc):
        cuda_driver.last_launch[0] = desc
        try:
            drv.launch(fn, grid, block, shared, args)
        except TepadError as err:
            raise TepadError(f"module {self.name}: launching {desc} failed: {err}") from None
        if self.launch_blocking:
            try:
                drv.synchronize()
            except TepadError as err:
                raise TepadError(f"module {self.name}: {desc} faulted: {err}") from None

    def _check_aliasing(self, arrays, ptrs):
        """The kernels mark their buffer parameters noalias (and read inputs through the
        non-coherent cache): one device array passed as an output and as another argument is
        refused, naming both."""
        seen = {}
        for k, plan in enumerate(self._checker.plans):
            if plan is None or not isinstance(arrays[k], CudaNDArray) or arrays[k].size == 0:
                continue
            other = seen.setdefault(ptrs[k], k)
            if other != k and (plan.writable or self._checker.plans[other].writable):
                a, b = self._checker.plans[other], plan
                raise TepadError(
                    f"module {self.name}: argument {other} '{a.name}' and argument {k} "
                    f"'{b.name}' are the same device array; the kernels assume their arrays "
                    "do not overlap (noalias) and one of them is written: pass a separate "
                    "output array")

    def _device_of(self, arrays) -> Device:
        """The one CUDA device every array argument is on; a TepadError naming the argument
        that is in host memory or on another device, or saying that there is no GPU."""
        dev = None
        for k, a in enumerate(arrays):
            if k < len(self.arg_info) and self.arg_info[k].kind == "scalar":
                continue
            where = f"argument {k}" + (f" '{self.arg_info[k].name}'"
                                       if k < len(self.arg_info) else "")
            if not isinstance(a, CudaNDArray):
                probe = Device(2, 0)
                if not probe.exist:
                    raise TepadError(missing_message(probe, f"module {self.name}"))
                raise TepadTypeError(f"{where}: a CUDA module takes arrays in GPU memory, got "
                                     f"{type(a).__name__} in host memory; make it with "
                                     f"tvm.nd.array(x, tvm.cuda(0))")
            if dev is not None and a.device != dev:
                raise TepadError(f"{where} is on {a.device!r}, an earlier one on {dev!r}; a "
                                 f"launch takes arrays on one device")
            dev = a.device
        return dev if dev is not None else Device(2, 0)

    def _functions(self, drv, device_id: int) -> dict:
        """The kernels' function handles on ``device_id`` (the PTX loaded on first use)."""
        fns = self._loaded.get((id(drv), device_id))
        if fns is None:
            if not self._device:
                raise TepadError(f"module {self.name}: the host part was loaded without its "
                                 "device code; import it: mod.import_module("
                                 "tvm.runtime.load_module('k.ptx')), or load the library "
                                 "export_library wrote")
            try:
                module = drv.load_module(self.ptx)
            except TepadError as err:
                major, minor = drv.compute_capability(device_id)
                raise TepadError(f"{err} (module {self.name}: PTX for {self.arch}, device "
                                 f"cuda({device_id}) is sm_{major}{minor}; build with target "
                                 f"'cuda -arch=sm_{major}{minor}' or leave -arch out)") from None
            fns = {name: drv.get_function(module, name) for name in self._kernels}
            fns["__module__"] = module
            fns["__driver__"] = drv         # held: its id names no other driver meanwhile
            fns["__device__"] = device_id
            fns["__vector__"] = {name: _uses_vectors(self.ptx, name) for name in self._kernels}
            self._loaded[(id(drv), device_id)] = fns
        return fns

    def kernel_args(self, name: str, env: dict) -> list:
        """The ctypes values kernel ``name`` is launched with, from the host values ``env``."""
        kernel = self._kernels[name]
        out = []
        for v in self.split.launches[name].args:
            if v not in env:
                raise TepadError(f"kernel {name}: host value of {v.name} is not known at the "
                                 "launch")
            val = env[v]
            if v in kernel.buffer_map:
                out.append(ctypes.c_void_p(int(val)))
            else:
                out.append(scalar_ctype(v.dtype)(val))
        return out

    # --- TVM's runtime.Module methods ---------------------------------------------------------
    type_key = "cuda_host"

    @property
    def imported_modules(self) -> list:
        return list(self._device)

    def get_source(self, fmt: str = "") -> str:
        """The device module's source: the kernels' CUDA C (``fmt`` "", "cuda"), PTX
        ("ptx") or LLVM IR ("ll"); see ``DeviceSourceModule.get_source``."""
        if not self._device:
            raise TepadError(f"module {self.name}: no device code (import it first)")
        return self._device[0].get_source(fmt)

    def time_evaluator(self, func_name: str | None = None, dev=None, number: int = 10,
                       repeat: int = 1, min_repeat_ms: float = 0, ctx=None, **unused):
        """TVM's ``time_evaluator``: a function that, called with the arguments, runs once
        untimed, then ``repeat`` blocks of ``number`` calls, each block between two CUDA
        events recorded on the device (more calls when a block is shorter than
        ``min_repeat_ms``); a ``BenchmarkResult`` in seconds per call. The events are
        destroyed after. ``ctx=`` is TVM's older keyword for ``dev``."""
        dev = take_ctx(dev, ctx, "time_evaluator")
        fn = self if func_name is None else self.get_function(func_name)
        for what, v in (("number", number), ("repeat", repeat)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise TepadError(f"time_evaluator: {what} must be a positive int, got {v!r}")

        def evaluator(*args):
            fn(*args)
            drv = get_driver()
            drv.synchronize()
            start, end = drv.event_create(), drv.event_create()
            try:
                results, n = [], number
                for _ in range(repeat):
                    while True:
                        drv.event_record(start)
                        for _ in range(n):
                            fn(*args)
                        drv.event_record(end)
                        ms = drv.event_elapsed_ms(start, end)
                        if ms >= min_repeat_ms:
                            break
                        per_call = max(ms / n, 1e-6)
                        n = max(int(min_repeat_ms / per_call) + 1, int(n * 1.618) + 1)
                    results.append(ms / 1e3 / n)
            finally:
                for e in (start, end):
                    try:
                        drv.event_destroy(e)
                    except TepadError as err:
                        _warn(f"destroying a timing event failed: {err}")
            return BenchmarkResult(results)
        return evaluator

    def save(self, file_name, fmt: str = "") -> None:
        """TVM's ``Module.save``: ``.o`` writes the host part (an object file holding the
        launch records, for ``load_module`` / ``create_shared``; the device code is saved
        apart, ``imported_modules[0].save("k.ptx")``); ``.ptx`` / ``.ll`` write the device
        code."""
        cuda_library.save_cuda_module(self, file_name, fmt)

    def export_library(self, file_name, fcompile=None, workspace_dir=None, **kwargs):
        """A shared library (``.so``, or a ``.tar`` of its object) holding the host part and
        the PTX; ``tvm.runtime.load_module`` brings back a CudaModule that launches."""
        cuda_library.export_cuda_library(self, file_name, fcompile, workspace_dir, **kwargs)

    @classmethod
    def from_payload(cls, record: dict, path: str) -> "CudaModule":
        """The module a library's payload describes (``load_module`` of a CUDA library;
        ``tepad.runtime.cuda_library`` writes it)."""
        if record.get("kind") != cuda_library.KIND:
            raise TepadError(f"load_module({path!r}): not a CUDA module's library")
        return cls(record["split"], record["ptx"], record["ll"], record["arch"],
                   record["arg_info"], record["name"])

    def __repr__(self):
        args = ", ".join(f"{a.name}: {a.dtype}" for a in self.arg_info)
        return f"<tepad.runtime.CudaModule {self.name}({args}), {len(self._kernels)} kernel(s)>"


def _unload_all(loaded: dict) -> None:
    """Unload every module in ``loaded`` (a CudaModule's; at collection or re-import)."""
    for fns in list(loaded.values()):
        try:
            fns["__driver__"].unload_module(fns["__module__"], fns["__device__"])
        except Exception as err:  # noqa: BLE001 - from a finalizer: warn, never raise
            _warn(f"unloading a CUDA module failed: {err}")
    loaded.clear()


def _has_allocate(stmt) -> bool:
    found = []
    tir.post_order_visit(stmt, lambda n: found.append(1) if isinstance(n, tir.Allocate) else None)
    return bool(found)


def _uses_vectors(ptx: str, kernel: str) -> bool:
    """Whether ``kernel``'s PTX has vector global loads or stores (``ld.global.v4``): it
    then assumes its buffers start on ``VECTOR_BASE_ALIGN`` bytes."""
    start = ptx.find(f".entry {kernel}(")
    if start < 0:
        return False
    end = ptx.find(".entry ", start + 1)
    body = ptx[start:end if end > 0 else len(ptx)]
    return any(op in body for op in ("ld.global.v", "st.global.v", "ld.global.nc.v"))


class _HostRunner:
    """Runs the host part of a CudaModule: see the module doc. With ``record``, also keeps
    each launch as a ``_LaunchStep`` (``steps``; None when the run cannot be replayed)."""

    def __init__(self, mod: CudaModule, drv, fns: dict, dev: Device, record: bool = False):
        self.mod, self.drv, self.fns, self.dev = mod, drv, fns, dev
        self.steps = [] if record else None

    def _int(self, e, env, what):
        v = eval_int(e, env)
        if v is None:
            raise TepadError(f"module {self.mod.name}: the host cannot compute {what} {e} "
                             "(it uses a value only the device has)")
        return v

    def run(self, s, env):
        if isinstance(s, tir.SeqStmt):
            for x in s.seq:
                self.run(x, env)
        elif isinstance(s, tir.LetStmt):
            self.run(s.body, {**env, s.var: self._int(s.value, env, "the value of")})
        elif isinstance(s, tir.AssertStmt):
            if not self._int(s.condition, env, "the assertion"):
                msg = s.message.value if isinstance(s.message, tir.StringImm) else str(s.message)
                raise TepadError(msg)
            self.run(s.body, env)
        elif isinstance(s, tir.IfThenElse):
            if self._int(s.condition, env, "the condition"):
                self.run(s.then_case, env)
            elif s.else_case is not None:
                self.run(s.else_case, env)
        elif isinstance(s, tir.For):
            lo = self._int(s.min, env, "the loop start")
            for i in range(lo, lo + self._int(s.extent, env, "the loop extent")):
                self.run(s.body, {**env, s.loop_var: i})
        elif isinstance(s, tir.AttrStmt) and not is_launch(s):
            self.run(s.body, env)
        elif isinstance(s, tir.Allocate):
            n = dt.parse(s.dtype).bytes * dt.lanes(s.dtype)
            for e in s.extents:
                n *= self._int(e, env, "the size")
            mem = _DeviceMemory(self.drv, self.dev.device_id, n)
            try:
                self.run(s.body, {**env, s.buffer_var: mem.ptr})
            finally:
                self.drv.synchronize()      # the kernels using it are done before it is freed
                del mem
        elif isinstance(s, tir.Evaluate):
            v = s.value
            if isinstance(v, tir.Call) and v.op == LAUNCH_OP:
                self.launch(v.args[0].value, env)
            elif not isinstance(v, (tir.ConstExpr, tir.StringImm)):
                raise TepadError(f"module {self.mod.name}: host code {v} cannot run on the "
                                 "host of a CUDA module")
        else:
            raise TepadError(f"module {self.mod.name}: {type(s).__name__} outside every "
                             f"GPU launch cannot run on the host:\n{s}")

    def launch(self, name, env):
        mod = self.mod
        rec = mod.split.launches[name]
        grid = tuple(self._int(g, env, f"the grid size of {name}") for g in rec.grid)
        block = tuple(self._int(b, env, f"the block size of {name}") for b in rec.block)
        shared = self._int(rec.dyn_shared, env, f"the dynamic shared memory of {name}")
        if min(grid) <= 0 or min(block) <= 0:
            return                      # nothing to compute (an empty tensor)
        desc = describe_launch(name, grid, block, shared)
        check_launch_limits(mod.name, desc, grid, block)
        args = mod.kernel_args(name, env)
        kernel = mod._kernels[name]
        slots = []
        for i, v in enumerate(rec.args):
            if v in kernel.buffer_map:
                if self.fns["__vector__"].get(name) and args[i].value and \
                        args[i].value % VECTOR_BASE_ALIGN:
                    raise TepadError(f"module {mod.name}: {desc} uses {VECTOR_BASE_ALIGN}-byte "
                                     f"vector accesses, but the array passed for {v.name} "
                                     f"starts at {args[i].value:#x}, not on a "
                                     f"{VECTOR_BASE_ALIGN}-byte boundary")
                k = mod._position.get(v)
                if k is None:
                    self.steps = None       # a host-allocated buffer: not replayable
                else:
                    slots.append((i, k))
        packed = _Packed(args)
        mod._launch(self.drv, name, self.fns[name], grid, block, shared, packed, desc)
        if self.steps is not None:
            self.steps.append(_LaunchStep(name, self.fns[name], grid, block, shared, packed,
                                          slots))


def check_launch_limits(module: str, desc: str, grid, block) -> None:
    """A TepadError naming the module and the launch when a grid or block dimension, or the
    threads per block, exceeds what CUDA launches."""
    for axis, g, lim in zip("xyz", grid, MAX_GRID):
        if g > lim:
            raise TepadError(f"module {module}: {desc}: gridDim.{axis} = {g} exceeds CUDA's "
                             f"limit {lim}; split the blockIdx.{axis} loop or bind another "
                             "axis to it")
    for axis, b, lim in zip("xyz", block, MAX_BLOCK):
        if b > lim:
            raise TepadError(f"module {module}: {desc}: blockDim.{axis} = {b} exceeds CUDA's "
                             f"limit {lim}")
    threads = block[0] * block[1] * block[2]
    if threads > MAX_THREADS_PER_BLOCK:
        raise TepadError(f"module {module}: {desc}: {block[0]}x{block[1]}x{block[2]} = "
                         f"{threads} threads per block, more than a CUDA block holds "
                         f"({MAX_THREADS_PER_BLOCK})")


__all__ = ["CudaNDArray", "CudaModule", "DeviceSourceModule", "MAX_THREADS_PER_BLOCK",
           "MAX_GRID", "MAX_BLOCK", "check_launch_limits", "describe_launch",
           "launch_blocking_from_env"]
