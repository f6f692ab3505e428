"""``tepad.build(..., target="cuda")`` for a real GPU: lower with ``Options(target="cuda")``,
split host and device (``split_host_device``), generate PTX for the kernels
(``tepad.codegen.nvptx``), and wrap a ``CudaModule`` that checks arguments and launches
through the CUDA driver. (Under ``TEPAD_CUDA=emulate`` the emulator's build path is used
instead.)

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

import dataclasses
import re

from ..codegen.nvptx import compile_ptx
from ..codegen.nvptx_target import DEFAULT_ARCH, arch_of_target
from ..lower.deep_stack import deep_stack
from ..lower.passes.split_host_device import split_host_device
from ..lower.pipeline import PassLog, lower_for_codegen
from ..runtime.args import arg_info_from_func
from .arg_info import arg_info_of
from ..runtime.cuda_module import CudaModule, launch_blocking_from_env
from ..runtime.cuda_driver import cuda_available, get_driver
from ..target import Target
from ..tir.function import PrimFunc
from .rebuild_cache import RebuildCache

CUDA_KINDS = ("cuda", "nvptx")


def cuda_arch(tgt: Target | None) -> str:
    """The ``sm_XY`` to build for: the one the target names (``-arch=`` / ``-mcpu=``), else
    that of device 0 when the driver sees one, else the target's default."""
    if tgt is not None and re.search(r"-(arch|mcpu)=", str(tgt)):
        return arch_of_target(tgt)
    if cuda_available(0):
        major, minor = get_driver().compute_capability(0)
        return f"sm_{major}{minor}"
    return arch_of_target(tgt) if tgt is not None else DEFAULT_ARCH


_cache = RebuildCache(64)


def _launch_blocking_attr(tgt) -> bool:
    """Whether the target asks for checked launches (``cuda -launch_blocking=1``)."""
    v = (getattr(tgt, "attrs", None) or {}).get("launch_blocking")
    return str(v).strip().lower() in ("1", "true", "yes", "on")


def build_cuda(s_or_func, args, name, opts, exact_bounds, tgt: Target) -> CudaModule:
    """A CudaModule for a schedule (with ``args``) or a lowered PrimFunc; ``opts`` must have
    ``target == "cuda"``."""
    if tgt is not None and not opts.target_text:     # verify_gpu_code checks its limits
        opts = dataclasses.replace(opts, target_text=str(tgt))
    arch = cuda_arch(tgt)
    blocking = _launch_blocking_attr(tgt) or launch_blocking_from_env()
    key = _cache.key(s_or_func, args, name, opts, bool(exact_bounds), str(tgt), arch, blocking)
    hit = _cache.get(key)
    if hit is not None:
        return hit
    mod = _build(s_or_func, args, name, opts, exact_bounds, arch)
    mod.launch_blocking = blocking
    _cache.put(key, mod, (s_or_func, args))
    return mod


@deep_stack
def _build(s_or_func, args, name, opts, exact_bounds, arch) -> CudaModule:
    if isinstance(s_or_func, PrimFunc) and name != "main" and s_or_func.name != name:
        s_or_func = s_or_func.with_attr("global_symbol", name)
    func = lower_for_codegen(s_or_func, args, name, opts, exact_bounds, PassLog())
    split = split_host_device(func)
    ptx, ll = compile_ptx(split.kernels, arch)
    # which arguments are written (the noalias check) is read from the kernels' stores
    info = arg_info_of(func) if list(func.params) == list(split.host.params) else \
        arg_info_from_func(split.host)
    return CudaModule(split, ptx, ll, arch, info, func.name)


__all__ = ["build_cuda", "cuda_arch", "CUDA_KINDS"]
