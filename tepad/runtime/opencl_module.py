"""OpenCL modules without an OpenCL runtime: what ``tepad.build(s, args, "opencl")`` returns
when the GPU emulator is off.

tepad generates OpenCL C (``tepad.codegen.c_source``) but has no OpenCL runtime to run it:
the module holds the host/device split and the kernels' source, prints and saves it
(``mod.imported_modules[0].get_source()``, ``.save("k.cl")``), and calling it is a
TepadError that says how to run it: through the GPU emulator on the CPU
(``TEPAD_CUDA=emulate``, or ``tepad.build(..., emulate=True)``), where an opencl build is an
``EmulatedModule``.
"""
from __future__ import annotations

from ..codegen.c_source import kernel_source
from ..errors import TepadError
from ..tir.launch import SplitFunc
from .module_base import ModuleBase

NO_RUNTIME = ("tepad has no OpenCL runtime: it runs OpenCL kernels through its GPU emulator "
              "on the CPU; set TEPAD_CUDA=emulate (or build with emulate=True)")
SOURCE_FORMATS = ("", "cl", "opencl")


class OpenCLSourceModule(ModuleBase):
    """The device part (``imported_modules[0]``): the kernels' OpenCL C source."""

    type_key = "opencl"

    def __init__(self, kernels, name: str):
        self.kernels, self.name = tuple(kernels), name
        self._source = None

    def get_source(self, fmt: str = "") -> str:
        """The OpenCL C source of the kernels (``fmt`` "", "cl", "opencl")."""
        if fmt not in SOURCE_FORMATS:
            raise TepadError(f"an OpenCL device module has OpenCL C source only (format '' or "
                             f"'cl'), not {fmt!r}")
        if self._source is None:
            self._source = kernel_source(self.kernels, "opencl")
        return self._source

    def save(self, file_name, fmt: str = "") -> None:
        """Write the OpenCL C source (``.cl``)."""
        with open(file_name, "w") as f:
            f.write(self.get_source("cl" if fmt in ("", "cl") else fmt))

    def __call__(self, *args):
        raise TepadError(f"module {self.name}: {NO_RUNTIME}")

    def __repr__(self):
        return f"<tepad.runtime.OpenCLSourceModule {len(self.kernels)} kernel(s)>"


class OpenCLModule(ModuleBase):
    """An ``opencl`` build (TVM's host module importing an OpenCL module): ``split`` (the host
    part and the kernels) and the device source; calling it is a TepadError (no runtime)."""

    type_key = "opencl_host"

    def __init__(self, split: SplitFunc, name: str | None = None):
        self.split = split
        self.name = name or split.host.name
        self._device = OpenCLSourceModule(split.kernels, self.name)

    @property
    def imported_modules(self) -> list:
        return [self._device]

    def get_source(self, fmt: str = "") -> str:
        """The kernels' OpenCL C source (``fmt`` "", "cl")."""
        return self._device.get_source(fmt)

    def __call__(self, *args):
        raise TepadError(f"module {self.name}: {NO_RUNTIME}")

    def time_evaluator(self, *args, **kwargs):
        raise TepadError(f"module {self.name}: time_evaluator: {NO_RUNTIME}")

    def __repr__(self):
        return f"<tepad.runtime.OpenCLModule {self.name}: OpenCL C, no runtime (emulate it)>"


__all__ = ["OpenCLModule", "OpenCLSourceModule", "NO_RUNTIME"]
