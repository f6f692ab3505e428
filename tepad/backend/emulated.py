"""The emulated GPU backend (cuda, opencl): GPU schedules without a GPU, on the CPU.

``tepad.build(s, args, target="cuda", emulate=True)`` (or a cuda target under
``TEPAD_CUDA=emulate``). The schedule is lowered exactly as for the GPU (``PIPELINE`` with
a cuda target: launch attributes, shared/local scopes, barriers, cross-thread reductions
through shared memory), then the emulator's passes (``EMULATOR_PASSES``, steps of the same pass
log) turn each kernel into CPU loops: warp buffers into per-warp-row shared buffers
(``warp_memory_for_emulator``), tensor-core intrinsics into loops (``wmma_for_emulator``),
blocks outermost and parallel with each block's threads as serial loops split into phases at
the barriers (``emulate_gpu_threads``), then flat memory, vector code for the innermost loops whose
iterations share no memory (``vectorize_independent_loops``) and a simplify; the LLVM code
generator compiles the result. The Module checks its arguments as a CPU module does and takes
numpy arrays and NDArrays (host memory stands for the emulated device's). ``opencl`` targets
take the same path (``tepad.build(s, args, "opencl")`` under ``TEPAD_CUDA=emulate``).
``get_source()`` gives the kernels as CUDA C (OpenCL C for an opencl target), printed from
their TIR; ``get_source("ptx")`` the PTX the NVPTX back end makes of the same function, or,
for a kernel it refuses, the emulated LLVM IR under a header saying why. docs/gpu.md says what
the emulator checks and what it cannot.
"""
from __future__ import annotations

import numpy as np

from .. import config
from ..codegen import compile_kernel
from ..errors import TepadError
from ..support.deep_stack import deep_stack
from ..lower.passes.emulate_gpu_threads import emulate_gpu_threads
from ..lower.passes.flatten_physical_axes import flatten_physical_axes
from ..lower.passes.lower_warp_memory import warp_memory_for_emulator
from ..lower.passes.simplify import simplify
from ..lower.passes.thread_sync import thread_sync
from ..lower.passes.vectorize_independent import vectorize_independent_loops
from ..lower.passes.wmma_fragments import wmma_for_emulator
from ..lower.pipeline import BUILD, Options, Pass, PassLog, lower_for_codegen
from ..runtime import Module
from ..runtime.args import arg_info_of
from ..runtime.device import Device
from ..runtime.module_base import ModuleBase
from ..runtime.ndarray import numpy_of
from ..target import Target, as_target
from ..tir.function import PrimFunc
from .base import Backend, named
from ..codegen.c_source import kernel_source
from ..target import is_opencl_kind
from .cuda import device_kernels, ptx_of

RACE_ENV = config.CUDA_RACECHECK


def _warp_as_shared(func: PrimFunc) -> PrimFunc:
    out = warp_memory_for_emulator(func)
    return func if out is func else thread_sync(out)


def emulator_passes(reverse: bool = False) -> tuple:
    """The emulator's steps after ``PIPELINE``; ``reverse``: threads and blocks run from the
    last to the first (the race check's second run)."""
    return (
        Pass(_warp_as_shared, BUILD, "warp buffers -> per-warp-row shared buffers ordered by "
             "barriers (what the shuffles of the real lowering compute)",
             name="warp_memory_for_emulator"),
        Pass(wmma_for_emulator, BUILD, "tensor-core intrinsics -> loops over their fragments"),
        Pass(lambda f: emulate_gpu_threads(f, reverse=reverse), BUILD,
             "launches -> CPU loops: blocks parallel, threads serial, split into phases at "
             "barriers", name="emulate_gpu_threads"),
        Pass(flatten_physical_axes, BUILD, "flat memory for the LLVM code generator",
             label="flatten_physical_axes.emulated"),
        Pass(vectorize_independent_loops, BUILD, "innermost loops whose iterations share no "
             "memory (a thread's tile, a threadIdx.x loop) -> vector code",
             label="vectorize_independent_loops.emulated"),
        Pass(simplify, BUILD, "fold what emulating the threads exposed", label="simplify.emulated"),
    )


EMULATOR_PASSES = emulator_passes()
_REVERSE_PASSES = emulator_passes(reverse=True)


class EmulatedCudaBackend(Backend):
    """GPU targets (``cuda`` / ``nvptx``, ``opencl``) emulated on the CPU
    (``EmulatedModule``): ``EMULATOR_PASSES`` after ``PIPELINE`` (whose build phase applied
    the intrinsic rules of the target's kind)."""

    name = "gpu (emulated)"
    passes = EMULATOR_PASSES

    def __init__(self, race_check: bool = False):
        self.race_check = race_check

    def build(self, s_or_func, args, name, target: Target, *, checked=False, bounds_check=False,
              exact_bounds=False, index_check=None) -> "EmulatedModule":
        """With ``race_check`` the Module also runs the kernel with threads and blocks in
        reverse order and raises a TepadError when the stored results differ beyond rounding
        (a data race: a barrier is missing, or two threads or blocks write one element)."""
        gpu, cpu = emulated_function(named(s_or_func, name), args, name, bounds_check, checked,
                                     exact_bounds, target=target, index_check=index_check)
        return emulated_module(gpu, target, self.race_check, cpu)

    def compile(self, func, target: Target, gpu: PrimFunc | None = None) -> "EmulatedModule":
        return EmulatedModule(compile_kernel(func), arg_info_of(func), gpu if gpu is not None
                              else func, target)


@deep_stack
def emulated_function(s_or_func, args=None, name="main", bounds_check=False, checked=False,
                      exact_bounds=False, log=None, target=None, index_check=None):
    """``(gpu_func, cpu_func)``: the lowered GPU function (what the GPU back ends take, the
    intrinsic rules of the target's kind applied) and the CPU function the emulator makes of
    it (ready for the LLVM code generator), both recorded in ``log``. ``target``: the GPU
    Target (cuda or opencl) whose device limits verify_gpu_code checks (default
    ``cuda``'s)."""
    log = log if log is not None else PassLog()
    opts = Options.from_context(checked=checked, bounds_check=bounds_check,
                                target=as_target(target) if target is not None else "cuda",
                                index_check=index_check)
    gpu = lower_for_codegen(s_or_func, args, name, opts, exact_bounds, log)
    return gpu, _EMULATOR.run_passes(gpu, opts, log, EMULATOR_PASSES)


def cpu_function(gpu: PrimFunc, reverse=False, log=None) -> PrimFunc:
    """The lowered GPU function ``gpu`` run through ``EMULATOR_PASSES`` (made ready for the
    LLVM code generator); ``reverse``: threads and blocks from the last to the first."""
    return _EMULATOR.run_passes(gpu, Options(target="cuda"), log,
                                _REVERSE_PASSES if reverse else EMULATOR_PASSES)


def emulated_module(gpu: PrimFunc, tgt: Target | None = None, race_check: bool = False,
                    cpu: PrimFunc | None = None) -> "EmulatedModule":
    """An EmulatedModule for the lowered GPU function ``gpu`` (as ``lower_for_codegen`` gives
    it; ``cpu``: its emulated form when already made); ``race_check``: also run threads and
    blocks in reverse order and compare (see ``EmulatedCudaBackend.build``)."""
    cpu = cpu if cpu is not None else cpu_function(gpu)
    reverse = None
    if race_check:
        rev = cpu_function(gpu, reverse=True)
        reverse = Module(compile_kernel(rev), arg_info_of(rev))
    return EmulatedModule(compile_kernel(cpu), arg_info_of(cpu), gpu,
                          tgt if tgt is not None else as_target("cuda"), reverse)


_EMULATOR = EmulatedCudaBackend()


class EmulatedModule(Module):
    """A CUDA module run by the CPU emulator: called as a CPU Module (numpy arrays or
    NDArrays, on ``cpu`` or the emulated ``cuda`` device). ``gpu_func`` is the lowered GPU
    function; ``imported_modules[0]`` stands for the device module (TVM's
    ``mod.imported_modules[0].get_source()``)."""

    def __init__(self, kernel, arg_info, gpu_func, target: Target, reverse: Module = None):
        super().__init__(kernel, arg_info)
        self.gpu_func = gpu_func
        self.target = target
        self._sources: dict = {}        # format -> text
        self._reverse = reverse

    def __call__(self, *arrays):
        if self._reverse is None:
            return super().__call__(*arrays)
        # the race check: the outputs as stored in thread order, then in reverse order
        outs = [(k, a) for k, (info, a) in enumerate(zip(self.arg_info, numpy_of(arrays)))
                if info.is_output and isinstance(a, np.ndarray)]
        before = [a.copy() for _, a in outs]
        super().__call__(*arrays)
        forward = [a.copy() for _, a in outs]
        for (_, a), b in zip(outs, before):
            a[...] = b
        self._reverse(*arrays)
        for (k, a), f in zip(outs, forward):
            bad = _first_difference(a, f)
            if bad is not None:
                where = f" (first at flat index {bad})"
                raise TepadError(
                    f"kernel {self.name}: a data race on {self.arg_info[k].name}{where}: "
                    "threads (or blocks) run in reverse order store different values, so the "
                    "result depends on the order they run; a barrier is missing, or two "
                    f"threads write the same element ({RACE_ENV} is set)")

    @property
    def type_key(self) -> str:
        return "opencl" if is_opencl_kind(self.target) else "cuda"

    @property
    def imported_modules(self) -> list:
        return [_DeviceModule(self)]

    def get_source(self, fmt: str = "") -> str:
        """The device kernels' source: in the target's C dialect (``fmt`` ""; CUDA C for a
        cuda target, OpenCL C for opencl), CUDA C ("cuda", "cu"), OpenCL C ("opencl", "cl"),
        or the PTX ("ptx"; where the NVPTX back end refuses a kernel, the LLVM IR of the
        emulated kernel after a comment saying why). ``"ll"`` / ``"asm"``: the emulated CPU
        code."""
        if fmt in ("ll", "llvm", "asm", "s"):
            return super().get_source(fmt)
        dialect = {"cuda": "cuda", "cu": "cuda", "opencl": "opencl", "cl": "opencl",
                   "": self.type_key, "ptx": "ptx"}.get(fmt)
        if dialect is None:
            raise TepadError(f"unknown source format {fmt!r}; use '' (the target's C dialect), "
                             "'cuda', 'opencl', 'ptx', 'll' (the emulated CPU code) or 'asm'")
        if dialect not in self._sources:
            self._sources[dialect] = self._ptx_or_ll() if dialect == "ptx" else \
                kernel_source(device_kernels(self.gpu_func, self.target), dialect)
        return self._sources[dialect]

    def _ptx_or_ll(self) -> str:
        try:
            return ptx_of(self.gpu_func, self.target if not is_opencl_kind(self.target)
                          else None)
        except TepadError as e:
            why = f"the NVPTX back end could not make PTX: {e}"
        return (f"; tepad GPU emulator (TEPAD_CUDA=emulate): no PTX, {why}.\n"
                f"; What follows is the LLVM IR of kernel {self.name} emulated on the CPU.\n"
                + self.ll)

    def time_evaluator(self, func_name=None, dev=None, number=10, repeat=1, min_repeat_ms=0,
                       **kwargs):
        """As ``Module.time_evaluator``; the emulated cuda device times on the CPU (the
        figures are the emulator's, not a GPU's)."""
        if isinstance(dev, Device) and dev.device_type in (Device.kDLCUDA, Device.kDLOpenCL):
            dev = None
        return super().time_evaluator(func_name, dev, number, repeat, min_repeat_ms, **kwargs)

    def __repr__(self):
        args = ", ".join(f"{a.name}: {a.dtype}" for a in self.arg_info)
        return f"<tepad.runtime.Module {self.name}({args}) {self.type_key}, emulated on the CPU>"


def _first_difference(a: np.ndarray, b: np.ndarray):
    """The first flat index where ``a`` and ``b`` differ, or None. Integers must be equal;
    floats equal up to rounding (the two orders are compiled separately, and LLVM may fuse a
    multiply-add in one and not the other), NaN equal to NaN."""
    x = np.ascontiguousarray(a).reshape(-1)
    y = np.ascontiguousarray(b).reshape(-1)
    if x.dtype.kind in "fc":
        finite = np.abs(y[np.isfinite(y)])
        scale = max(1.0, float(finite.max())) if finite.size else 1.0
        same = np.isclose(x, y, rtol=1e-4, atol=1e-6 * scale) | (np.isnan(x) & np.isnan(y))
    else:
        same = x == y
    bad = np.flatnonzero(~same)
    return int(bad[0]) if bad.size else None


class _DeviceModule(ModuleBase):
    """The device part of an emulated GPU module (TVM's imported cuda / opencl module)."""

    def __init__(self, host: EmulatedModule):
        self._host = host

    @property
    def type_key(self) -> str:
        return self._host.type_key

    def get_source(self, fmt: str = "") -> str:
        return self._host.get_source(fmt)

    def save(self, file_name, fmt: str = "") -> None:
        """Write the source of ``fmt``, by default the one the file's extension names
        (``.ptx``, ``.cu``, ``.cl``, ``.ll``; otherwise the target's C dialect)."""
        ext = str(file_name).rsplit(".", 1)[-1] if "." in str(file_name) else ""
        fmt = fmt or (ext if ext in ("ptx", "cu", "cl", "ll") else "")
        with open(file_name, "w") as f:
            f.write(self.get_source(fmt))


__all__ = ["EmulatedCudaBackend", "EMULATOR_PASSES", "emulator_passes", "emulated_function",
           "emulated_module", "cpu_function", "EmulatedModule", "RACE_ENV"]
