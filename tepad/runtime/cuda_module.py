"""CUDA runtime: arrays in GPU memory (``CudaNDArray``) and the module that launches a built
CUDA function (``CudaModule``), over the driver interface of ``cuda_driver`` (cuda-bindings,
imported only when a real device is used; a fake in tests).

A ``CudaModule`` holds what ``split_host_device`` made of the lowered function: the host part
(a PrimFunc whose launch regions are launch calls), the kernels' PTX and the launch records.
A call checks every argument against the host function's buffers (shapes, dtypes, symbolic
sizes bound from the shapes, as a CPU Module does) before anything is launched, then runs the
host part: lets, asserts, ifs and loops evaluated in Python, global scratch buffers allocated
in device memory, and each launch call a ``cuLaunchKernel`` with its grid and block
dimensions evaluated from the host's variables.
"""
from __future__ import annotations

import ctypes

import numpy as np

from .. import tir
from ..codegen.analysis import shape_vars
from ..errors import TepadAttributeError, TepadError, TepadTypeError
from ..lower.passes.split_host_device import LAUNCH_OP, SplitFunc, is_launch
from ..tir import dtype as dt
from .args import ArgChecker, ArgInfo, arg_info_from_func, eval_int, scalar_ctype
from .cuda_driver import get_driver
from .device import Device, check_host, missing_message, take_ctx
from .ndarray import DeviceView, NDArray, register_device_arrays
from .timing import BenchmarkResult

MAX_THREADS_PER_BLOCK = 1024


class _DeviceMemory:
    """``nbytes`` of device memory at ``ptr``, freed when the last holder lets go."""

    __slots__ = ("ptr", "nbytes", "driver", "device_id")

    def __init__(self, driver, device_id: int, nbytes: int):
        driver.activate(device_id)
        self.driver, self.device_id, self.nbytes = driver, device_id, int(nbytes)
        self.ptr = int(driver.mem_alloc(self.nbytes))

    def __del__(self):
        try:
            self.driver.activate(self.device_id)
            self.driver.mem_free(self.ptr)
        except Exception:  # noqa: BLE001 - at interpreter exit the driver may be gone
            pass


class CudaNDArray(NDArray):
    """An n-d array in the memory of a CUDA device. ``numpy()`` copies it to the host,
    ``copyfrom`` from the host (or from another array); a ``CudaModule`` passes its device
    address to the kernels."""

    __slots__ = ("_mem",)

    def __init__(self, shape, dtype, dev: Device):
        """Uninitialized device memory for ``shape`` elements of numpy dtype ``dtype``."""
        npd = np.dtype(dtype)
        nbytes = int(np.prod(shape, dtype=np.int64)) * npd.itemsize
        self._mem = _DeviceMemory(get_driver(), dev.device_id, nbytes)
        self._arr = DeviceView(shape, npd, self._mem.ptr, dev)
        self._device = dev

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


class DeviceSourceModule:
    """The device part of a CUDA module (``mod.imported_modules[0]``): its PTX."""

    type_key = "cuda"

    def __init__(self, ptx: str, ll: str):
        self.ptx, self.ll = ptx, ll

    def get_source(self, fmt: str = "") -> str:
        """The PTX (``fmt`` "", "ptx", "cuda"), or the device LLVM IR ("ll", "llvm")."""
        if fmt in ("", "ptx", "cuda", "s", "asm"):
            return self.ptx
        if fmt in ("ll", "llvm"):
            return self.ll
        raise TepadError(f"unknown source format {fmt!r}; use 'ptx' or 'll'")

    @property
    def imported_modules(self) -> list:
        return []

    def save(self, file_name, fmt: str = "") -> None:
        """Write the PTX (``.ptx``, as TVM's tutorial saves ``myadd.ptx``) or LLVM IR
        (``.ll``)."""
        fmt = fmt or str(file_name).rsplit(".", 1)[-1]
        if fmt not in ("ptx", "ll"):
            raise TepadError(f"a CUDA module saves its PTX (.ptx) or LLVM IR (.ll), not {fmt!r}")
        with open(file_name, "w") as f:
            f.write(self.get_source(fmt))


class CudaModule:
    """A function built for CUDA: ``mod(*arrays)`` with arrays on one CUDA device
    (``tepad.nd.array(x, tepad.cuda(0))``) checks them, then launches the kernels; see the
    module doc. ``get_source()`` (and ``imported_modules[0].get_source()``) is the PTX;
    ``time_evaluator`` times with CUDA events. Attributes: ``split`` (host part, kernels,
    launches), ``ptx``, ``ll`` (device LLVM IR), ``arch``, ``arg_info``, ``name``."""

    def __init__(self, split: SplitFunc, ptx: str, ll: str, arch: str,
                 arg_info: list[ArgInfo] | None = None, name: str | None = None):
        func = split.host
        self.split, self.ptx, self.ll, self.arch = split, ptx, ll, arch
        self.func = func
        self.name = name or func.name
        self.arg_info = list(arg_info if arg_info is not None else arg_info_from_func(func))
        self.shape_vars = shape_vars(func)
        self._checker = ArgChecker(func, self.arg_info, self.shape_vars)
        self._checker.device_memory = True
        self._kernels = {k.attrs["global_symbol"]: k for k in split.kernels}
        self._loaded: dict = {}

    # --- calling ----------------------------------------------------------------------------
    def __call__(self, *arrays):
        dev = self._device_of(arrays)
        ptrs, svals = self._checker.check_call(arrays)
        env = {}
        for p, v in zip(self.func.params, ptrs):
            env[p] = v
            buf = self.func.buffer_map.get(p)
            if buf is not None:
                env[buf.data] = v
        env.update(zip(self.shape_vars, svals))
        drv = get_driver()
        drv.activate(dev.device_id)
        _HostRunner(self, drv, self._functions(drv, dev.device_id), dev).run(self.func.body, env)

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
    @property
    def entry_name(self) -> str:
        return self.name

    @property
    def type_key(self) -> str:
        return "cuda_host"

    @property
    def imported_modules(self) -> list:
        return [DeviceSourceModule(self.ptx, self.ll)]

    def get_function(self, name: str, query_imports: bool = False):
        if name not in (self.name, "__tvm_main__"):
            raise TepadAttributeError(f"Module has no function {name!r}; its one function is "
                                      f"{self.name!r} (mod.entry_name)")
        return self

    def __getitem__(self, name: str):
        return self.get_function(name)

    def get_source(self, fmt: str = "") -> str:
        """The kernels' PTX (``fmt`` "", "ptx"), or their LLVM IR ("ll")."""
        return self.imported_modules[0].get_source(fmt)

    def time_evaluator(self, func_name: str | None = None, dev=None, number: int = 10,
                       repeat: int = 1, min_repeat_ms: float = 0, ctx=None, **unused):
        """TVM's ``time_evaluator``: a function that, called with the arguments, runs once
        untimed, then ``repeat`` blocks of ``number`` calls timed with CUDA events (more calls
        when a block is shorter than ``min_repeat_ms``); a ``BenchmarkResult`` in seconds per
        call. ``ctx=`` is TVM's older keyword for ``dev``."""
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
            return BenchmarkResult(results)
        return evaluator

    def save(self, file_name, fmt: str = "") -> None:
        """Writes the PTX (``.ptx``) or device LLVM IR (``.ll``)."""
        self.imported_modules[0].save(file_name, fmt)

    def export_library(self, *args, **kwargs):
        raise TepadError("export_library: a CUDA module cannot be exported as a shared library "
                         "yet; save its PTX with mod.save('kernels.ptx')")

    def __repr__(self):
        args = ", ".join(f"{a.name}: {a.dtype}" for a in self.arg_info)
        return f"<tepad.runtime.CudaModule {self.name}({args}), {len(self._kernels)} kernel(s)>"


class _HostRunner:
    """Runs the host part of a CudaModule: see the module doc."""

    def __init__(self, mod: CudaModule, drv, fns: dict, dev: Device):
        self.mod, self.drv, self.fns, self.dev = mod, drv, fns, dev
        self.scratch = []

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
        rec = self.mod.split.launches[name]
        grid = [self._int(g, env, f"the grid size of {name}") for g in rec.grid]
        block = [self._int(b, env, f"the block size of {name}") for b in rec.block]
        shared = self._int(rec.dyn_shared, env, f"the dynamic shared memory of {name}")
        if min(grid) <= 0 or min(block) <= 0:
            return                      # nothing to compute (an empty tensor)
        if block[0] * block[1] * block[2] > MAX_THREADS_PER_BLOCK:
            raise TepadError(f"kernel {name}: {block[0]}x{block[1]}x{block[2]} threads per "
                             f"block, more than a CUDA block holds ({MAX_THREADS_PER_BLOCK})")
        self.drv.launch(self.fns[name], tuple(grid), tuple(block), shared,
                        self.mod.kernel_args(name, env))


__all__ = ["CudaNDArray", "CudaModule", "DeviceSourceModule", "MAX_THREADS_PER_BLOCK"]
