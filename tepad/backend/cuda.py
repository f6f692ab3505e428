"""The CUDA backend (``cuda`` / ``nvptx`` on a real GPU): after ``PIPELINE`` (whose build
phase applies the intrinsic lowering rules registered for the kind), the host/device split
(``split_host_device``) and warp memory lowered in the kernels (``lower_warp_memory``),
both steps of the pass log; PTX from the NVPTX code generator (``tepad.codegen.nvptx``); a
``CudaModule`` that checks arguments and launches through the CUDA driver.

The GPU architecture is the target's ``-arch=sm_XY`` when given, else that of the GPU the
driver sees, else the target's default (``tepad.target.DEFAULT_CUDA_ARCH``): building needs
no GPU, the module fails with a clear error only when it is called.

The module checks every launch (``launch_blocking``) when the target says
``-launch_blocking=1`` or ``TEPAD_CUDA_LAUNCH_BLOCKING`` / ``CUDA_LAUNCH_BLOCKING`` is set at
build time.

Rebuilding what was built before (the same schedule state and arguments, or the same lowered
PrimFunc, for the same target and architecture) returns the CudaModule built then, as CPU
builds do (``TEPAD_COMPILE_CACHE=0`` turns it off).
"""
from __future__ import annotations

from .. import config
from ..codegen.nvptx import compile_ptx
from ..codegen.nvptx_target import DEFAULT_ARCH, arch_of_target
from ..support.deep_stack import deep_stack
from ..lower.pipeline import BUILD, Options, Pass, PassLog, lower_for_codegen
from ..lower.passes.lower_warp_memory import lower_warp_memory
from ..lower.passes.split_host_device import split_host_device
from ..runtime.args import arg_info_of
from ..runtime.cuda_module import CudaModule
from ..runtime.cuda_driver import cuda_available, get_driver
from ..target import Target, as_target
from ..target.intrin import rules_version
from ..tir.launch import SplitFunc
from ..tir.module import IRModule
from .base import Backend, named
from .rebuild_cache import RebuildCache


def _warp_memory_in_kernels(split: SplitFunc) -> SplitFunc:
    out = tuple(lower_warp_memory(k) for k in split.kernels)
    if all(a is b for a, b in zip(out, split.kernels)):
        return split
    return split.with_kernels(out)


# After PIPELINE: what the NVPTX code generator and the CUDA runtime take.
DEVICE_PASSES = (
    Pass(split_host_device, BUILD, "each outermost launch region -> a device kernel; the host "
         "function launches them (TVM's SplitHostDevice)"),
    Pass(_warp_memory_in_kernels, BUILD, "warp buffers of each kernel -> per-lane registers, "
         "other lanes read by shuffles", name="lower_warp_memory"),
)


def cuda_arch(target: Target | None) -> str:
    """The ``sm_XY`` to build for: the one the target names (``-arch=`` / ``-mcpu=``), else
    that of device 0 when the driver sees one, else the target's default."""
    if target is not None and target.names_arch:
        return arch_of_target(target)
    if cuda_available(0):
        major, minor = get_driver().compute_capability(0)
        return f"sm_{major}{minor}"
    return arch_of_target(target) if target is not None else DEFAULT_ARCH


def _launch_blocking_attr(target: Target) -> bool:
    """Whether the target asks for checked launches (``cuda -launch_blocking=1``)."""
    v = (getattr(target, "attrs", None) or {}).get("launch_blocking")
    return str(v).strip().lower() in ("1", "true", "yes", "on")


class CudaBackend(Backend):
    """``cuda`` / ``nvptx``: PTX launched through the CUDA driver."""

    name = "cuda"
    passes = DEVICE_PASSES

    def __init__(self):
        self._cache = RebuildCache(64)

    def compile(self, split: SplitFunc, target: Target, arch: str | None = None,
                func=None) -> CudaModule:
        """The CudaModule of ``split`` (what ``lower`` gave); ``func``: the function before
        the split, whose stores say which arguments are written (default: the kernels')."""
        arch = arch or cuda_arch(target)
        ptx, ll = compile_ptx(split.kernels, arch)
        info = arg_info_of(func, split.host) if func is not None else None
        mod = CudaModule(split, ptx, ll, arch, info, split.host.name)
        mod.launch_blocking = _launch_blocking_attr(target) or config.launch_blocking()
        return mod

    def build(self, s_or_func, args, name, target: Target, *, checked=False, bounds_check=False,
              exact_bounds=False, index_check=None) -> CudaModule:
        opts = self.options(target, checked, bounds_check, index_check)
        arch = cuda_arch(target)
        blocking = _launch_blocking_attr(target) or config.launch_blocking()
        key = self._cache.key(s_or_func, args, name, opts, bool(exact_bounds), str(target),
                              arch, blocking, rules_version())
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        mod = self._build(s_or_func, args, name, opts, exact_bounds, target, arch)
        self._cache.put(key, mod, (s_or_func, args))
        return mod

    @deep_stack
    def _build(self, s_or_func, args, name, opts, exact_bounds, target, arch=None):
        log = PassLog()
        func = lower_for_codegen(named(s_or_func, name), args, name, opts, exact_bounds, log)
        return self.compile(self.run_passes(func, opts, log), target, arch, func)


_DEVICE = CudaBackend()       # runs DEVICE_PASSES for ptx_of (its rebuild cache stays empty)


def device_kernels(func, target="cuda") -> tuple:
    """The device kernels of a lowered GPU function (a PrimFunc or a one-function IRModule),
    after ``DEVICE_PASSES`` for ``target`` (a GPU Target or kind: whose intrinsic rules
    apply): itself when it is one already (a kernel the split made)."""
    if isinstance(func, IRModule):
        func = func.only_function("ptx_of")
    if func.attrs.get("tepad.device_kernel"):
        return (lower_warp_memory(func),)
    return _DEVICE.run_passes(func, Options(target=target)).kernels


def ptx_of(func, target=None) -> str:
    """The PTX of a lowered GPU function (or of one device kernel) for ``target`` (a cuda
    Target or its string, ``-arch=sm_XY``; default ``DEFAULT_ARCH``)."""
    target = as_target(target) if target is not None else None
    return compile_ptx(device_kernels(func), arch_of_target(target))[0]


__all__ = ["CudaBackend", "DEVICE_PASSES", "cuda_arch", "ptx_of", "device_kernels"]
