"""Backends: the build half of tepad, one file per target kind.

A ``Backend`` (``base``) owns what happens to a function after ``PIPELINE``: its extra passes
(``Pass`` entries, steps of the same pass log), its code generation and the Module it returns.

* ``cpu``: ``llvm``, the LLVM code generator, ``tepad.runtime.Module``;
* ``cuda``: ``cuda`` / ``nvptx`` on a GPU: host/device split and warp lowering, PTX,
  ``CudaModule`` launching through the CUDA driver;
* ``emulated``: ``cuda`` / ``nvptx`` / ``opencl`` on the CPU: the GPU emulator's passes, the
  LLVM code generator, ``EmulatedModule``;
* ``opencl``: ``opencl`` without the emulator: lowered as for CUDA, OpenCL C source in an
  ``OpenCLModule`` that cannot run (tepad has no OpenCL runtime).

``backend_for(target, emulate=None)`` is the one place that decides which backend a Target
gets. A new target kind is a new file here with its Backend, and a line in ``backend_for``.
The CUDA backends load on first use, so that ``import tepad`` does not compile them.
"""
from __future__ import annotations

from .. import config
from .._lazy import lazy_module
from ..errors import TepadError
from ..target import Target, is_cpu_kind, is_cuda_kind, is_gpu_kind, is_opencl_kind
from .base import Backend
from .cpu import CpuBackend

_cuda = lazy_module("tepad.backend.cuda")
_emulated = lazy_module("tepad.backend.emulated")
_opencl = lazy_module("tepad.backend.opencl")

_CPU = CpuBackend()
_BY_KEY: dict = {}


def backend_for(target: Target, emulate: bool | None = None,
                race_check: bool | None = None) -> Backend:
    """The Backend that builds for ``target``. For a GPU target (cuda / nvptx / opencl),
    ``emulate`` picks the emulator on the CPU (default: ``TEPAD_CUDA=emulate``) and
    ``race_check`` its reverse-order run (default: ``TEPAD_CUDA_RACECHECK``); both are ignored
    for the CPU. Without the emulator, cuda builds PTX for the CUDA driver and opencl builds
    OpenCL C source that cannot run here. A kind tepad cannot generate code for is a
    TepadError."""
    if is_cpu_kind(target):
        return _CPU
    if is_gpu_kind(target):
        if config.cuda_emulated() if emulate is None else emulate:
            race = config.race_check() if race_check is None else bool(race_check)
            key = ("emulated", race)
            if key not in _BY_KEY:
                _BY_KEY[key] = _emulated.EmulatedCudaBackend(race)
            return _BY_KEY[key]
        if is_cuda_kind(target):
            if "cuda" not in _BY_KEY:
                _BY_KEY["cuda"] = _cuda.CudaBackend()
            return _BY_KEY["cuda"]
        if is_opencl_kind(target):
            if "opencl" not in _BY_KEY:
                _BY_KEY["opencl"] = _opencl.OpenCLBackend()
            return _BY_KEY["opencl"]
    raise TepadError(f"target {str(target)!r}: tepad builds for 'llvm' (the CPU), 'cuda' "
                     f"(a CUDA GPU, or the GPU emulator: emulate=True or TEPAD_CUDA=emulate) "
                     f"and 'opencl' (OpenCL C source, run by the GPU emulator); "
                     f"{target.kind.name} code generation is not there yet")


__all__ = ["Backend", "backend_for", "CpuBackend"]
