"""The OpenCL backend (``opencl``) without the emulator: lowered as for a CUDA GPU (the
intrinsic rules of the ``opencl`` kind, the host/device split; TVM's OpenCL device limits,
``thread_warp_size`` 1, checked by ``verify_gpu_code``), the kernels printed as OpenCL C, an
``OpenCLModule`` that holds them. tepad has no OpenCL runtime: calling the module is a
TepadError saying to run it through the GPU emulator (``TEPAD_CUDA=emulate``), where
``backend_for`` gives the emulated backend instead (``tepad.backend.emulated``)."""
from __future__ import annotations

from ..runtime.opencl_module import OpenCLModule
from ..target import Target
from ..tir.launch import SplitFunc
from .base import Backend
from .cuda import DEVICE_PASSES


class OpenCLBackend(Backend):
    """``opencl``: OpenCL C source, run only by the emulator."""

    name = "opencl"
    passes = DEVICE_PASSES

    def compile(self, split: SplitFunc, target: Target) -> OpenCLModule:
        """The OpenCLModule of ``split`` (what ``lower`` gave)."""
        return OpenCLModule(split, split.host.name)


__all__ = ["OpenCLBackend"]
