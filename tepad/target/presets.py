"""The target strings of TVM's helpers for boards and devices: ``arm_cpu``, ``rasp``,
``riscv_cpu``, ``mali``, ``bifrost``, ``intel_graphics`` and ``rocm`` (``tepad.target`` makes
each a function returning the Target of the string).

Each string is the one TVM's helper makes (the same ``-keys``,
``-device``, ``-model``, ``-mtriple``, ``-mattr`` and ``-mcpu`` words), so the target-specific
schedules a program looks up by key (``topi.arm_cpu``, ``topi.mali``, ...) are found. What
tepad then builds for it:

* ``arm_cpu`` / ``rasp`` / ``riscv_cpu``: LLVM CPU targets. tepad compiles them for the
  board's triple (``Module.save`` writes an object file for that machine); running the
  module needs that machine.
* ``mali`` / ``bifrost`` / ``intel_graphics``: OpenCL targets, printed as OpenCL C and run by
  the GPU emulator (``TEPAD_CUDA=emulate``).
* ``rocm``: a Target object only; tepad has no AMD GPU code generator and its build says so.
"""
from __future__ import annotations

import warnings

from ..errors import TepadError

#: TVM's board names -> the LLVM words of the board
_ARM_BOARDS = {
    "pixel2": ["-model=snapdragon835", "-mtriple=arm64-linux-android", "-mattr=+neon"],
    "mate10": ["-model=kirin970", "-mtriple=arm64-linux-android", "-mattr=+neon"],
    "mate10pro": ["-model=kirin970", "-mtriple=arm64-linux-android", "-mattr=+neon"],
    "p20": ["-model=kirin970", "-mtriple=arm64-linux-android", "-mattr=+neon"],
    "p20pro": ["-model=kirin970", "-mtriple=arm64-linux-android", "-mattr=+neon"],
    "rasp3b": ["-model=bcm2837", "-mtriple=armv7l-linux-gnueabihf", "-mattr=+neon"],
    "rasp4b": ["-model=bcm2711", "-mtriple=armv8l-linux-gnueabihf", "-mattr=+neon",
               "-mcpu=cortex-a72"],
    "rasp4b64": ["-model=bcm2711", "-mtriple=aarch64-linux-gnu", "-mattr=+neon",
                 "-mcpu=cortex-a72"],
    "rk3399": ["-model=rk3399", "-mtriple=aarch64-linux-gnu", "-mattr=+neon"],
    "pynq": ["-model=pynq", "-mtriple=armv7a-linux-eabi", "-mattr=+neon"],
    "ultra96": ["-model=ultra96", "-mtriple=aarch64-linux-gnu", "-mattr=+neon"],
    "beagleai": ["-model=beagleai", "-mtriple=armv7a-linux-gnueabihf",
                 "-mattr=+neon,+vfp4,+thumb2", "-mcpu=cortex-a15"],
    "stm32mp1": ["-model=stm32mp1", "-mtriple=armv7a-linux-gnueabihf",
                 "-mattr=+neon,+vfp4,+thumb2", "-mcpu=cortex-a7"],
    "thunderx": ["-model=thunderx", "-mtriple=aarch64-linux-gnu", "-mattr=+neon,+crc,+lse",
                 "-mcpu=thunderxt88"],
}

_RISCV_BOARDS = {
    name: [f"-model={name}", f"-mtriple={triple}", f"-mcpu={name}", f"-mabi={abi}"]
    for name, triple, abi in (("sifive-e31", "riscv32-unknown-linux-gnu", "ilp32"),
                              ("sifive-e76", "riscv32-unknown-linux-gnu", "ilp32"),
                              ("sifive-u54", "riscv64-unknown-linux-gnu", "lp64d"),
                              ("sifive-u74", "riscv64-unknown-linux-gnu", "lp64d"))
}


def _words(options, helper: str) -> list:
    if options is None:
        return []
    if isinstance(options, str):
        return options.split()
    if isinstance(options, (list, tuple)) and all(isinstance(o, str) for o in options):
        return list(options)
    raise TepadError(f"tvm.target.{helper}: options must be a string or a list of strings "
                     f"such as '-mcpu=cortex-a53', got {options!r}")


def _merge(base: list, options, helper: str) -> list:
    """``base`` with the words of ``options`` added; an option naming a key ``base`` already
    has (``-mcpu=...``) replaces it, as TVM's helpers do."""
    out = list(base)
    for w in _words(options, helper):
        key = w.split("=", 1)[0]
        out = [b for b in out if b.split("=", 1)[0] != key]
        out.append(w)
    return out


def _target(words) -> str:
    return " ".join(words)


def arm_cpu(model="unknown", options=None):
    """TVM's ``tvm.target.arm_cpu(model)``: an LLVM target for an ARM board (``rasp3b``,
    ``rasp4b64``, ``rk3399``, ``pixel2``, ... as TVM names them; another model gives just
    ``-model=``), with keys ``arm_cpu, cpu``."""
    board = _ARM_BOARDS.get(model, [f"-model={model}"])
    return _target(["llvm"] + _merge(["-keys=arm_cpu,cpu", "-device=arm_cpu"] + board,
                                     options, "arm_cpu"))


def rasp(options=None):
    """TVM's ``tvm.target.rasp()``: ``arm_cpu("rasp3b")`` (TVM deprecated this name)."""
    warnings.warn("tvm.target.rasp() is deprecated; use tvm.target.arm_cpu('rasp3b')",
                  DeprecationWarning, stacklevel=3)
    return arm_cpu("rasp3b", options)


def riscv_cpu(model="sifive-u54", options=None):
    """TVM's ``tvm.target.riscv_cpu(model)``: an LLVM target for a SiFive core (``sifive-e31``,
    ``sifive-e76``, ``sifive-u54``, ``sifive-u74``)."""
    board = _RISCV_BOARDS.get(model, [f"-model={model}"])
    return _target(["llvm"] + _merge(["-keys=arm_cpu,cpu", "-device=arm_cpu"] + board,
                                     options, "riscv_cpu"))


def mali(model="unknown", options=None):
    """TVM's ``tvm.target.mali(model)``: an OpenCL target with ``-device=mali``."""
    return _target(["opencl"] + _merge(["-device=mali", f"-model={model}"], options, "mali"))


def bifrost(model="unknown", options=None):
    """TVM's ``tvm.target.bifrost(model)``: an OpenCL target with ``-device=bifrost``."""
    return _target(["opencl"] + _merge(["-device=bifrost", f"-model={model}"], options,
                                       "bifrost"))


def intel_graphics(model="unknown", options=None):
    """TVM's ``tvm.target.intel_graphics(model)``: an OpenCL target with
    ``-device=intel_graphics`` and 16-wide warps."""
    return _target(["opencl"] + _merge(["-device=intel_graphics", f"-model={model}",
                                        "-thread_warp_size=16"], options, "intel_graphics"))


def rocm(model="unknown", options=None):
    """TVM's ``tvm.target.rocm(model)``: a ``rocm`` Target (tepad makes the object; it has
    no AMD GPU code generator, so building for it is refused)."""
    return _target(["rocm"] + _merge([f"-model={model}"], options, "rocm"))


__all__ = ["arm_cpu", "rasp", "riscv_cpu", "mali", "bifrost", "intel_graphics", "rocm"]
