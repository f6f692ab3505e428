"""What the NVPTX back end needs from the machine: the GPU architecture and its PTX ISA
version, the NVPTX target machine, libdevice (the CUDA math library as LLVM bitcode) and
``ptxas`` (the PTX assembler, used by tests to check generated PTX).

libdevice and ptxas come from the ``nvidia-cuda-nvcc-cu12`` wheel (``pip install
tepad[cuda]``), found on ``sys.path`` without importing anything; ``TEPAD_LIBDEVICE`` /
``TEPAD_PTXAS`` name other files, and ``$CUDA_HOME`` is searched too.
"""
from __future__ import annotations

import functools
import os
import re
import shutil
import sys
import threading

from .._lazy import lazy_module
from ..errors import TepadError
from ..target import DEFAULT_CUDA_ARCH

llvm = lazy_module("llvmlite.binding")

TRIPLE = "nvptx64-nvidia-cuda"
DEFAULT_ARCH = DEFAULT_CUDA_ARCH       # a cuda Target's default

# the PTX ISA version each architecture needs (PTX ISA manual, "Release notes" tables)
_PTX_OF_ARCH = {50: 60, 52: 60, 53: 60, 60: 60, 61: 60, 62: 60, 70: 60, 72: 61, 75: 63,
                80: 70, 86: 71, 87: 74, 89: 78, 90: 80, 100: 86, 101: 86, 120: 87}
_ARCH = re.compile(r"^sm_(\d+)([af]?)$")

_LIBDEVICE = ("nvidia", "cuda_nvcc", "nvvm", "libdevice", "libdevice.10.bc")
_PTXAS = ("nvidia", "cuda_nvcc", "bin", "ptxas")
_lock = threading.Lock()


def parse_arch(arch: str) -> tuple[int, str]:
    """``(compute capability as an int, suffix)`` of ``"sm_90"``, ``"sm_90a"``; a TepadError
    for anything else."""
    m = _ARCH.match(str(arch))
    if m is None:
        raise TepadError(f"cuda target: architecture {arch!r} is not of the form sm_XY "
                         f"(e.g. sm_80, sm_90)")
    return int(m.group(1)), m.group(2)


def ptx_features(arch: str) -> str:
    """The LLVM feature string selecting the PTX ISA version ``arch`` needs (``+ptx80`` for
    sm_90)."""
    cc, suffix = parse_arch(arch)
    known = [k for k in _PTX_OF_ARCH if k <= cc]
    if cc < 50 or not known:
        raise TepadError(f"cuda target: {arch} is older than sm_50, which LLVM's NVPTX back "
                         "end no longer targets")
    ver = _PTX_OF_ARCH[max(known)]
    if suffix and cc >= 90:
        ver = max(ver, 80)
    return f"+ptx{ver}"


def arch_of_target(target) -> str:
    """The ``sm_XY`` a cuda Target asks for (``-arch=sm_90`` / ``-mcpu=sm_90``), else
    ``DEFAULT_ARCH``."""
    if target is None:
        return DEFAULT_ARCH
    if isinstance(target, str):
        m = re.search(r"-(?:arch|mcpu)=(sm_\w+)", target)
        return m.group(1) if m else DEFAULT_ARCH
    attrs = getattr(target, "attrs", {}) or {}
    for key in ("arch", "mcpu"):
        v = attrs.get(key)
        if isinstance(v, str) and v.startswith("sm_"):
            return v
    return DEFAULT_ARCH


@functools.cache
def _init_nvptx():
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()


def target_machine(arch: str, opt: int = 3) -> llvm.TargetMachine:
    """An NVPTX TargetMachine for ``arch`` with the PTX version it needs."""
    features = ptx_features(arch)
    _init_nvptx()
    try:
        target = llvm.Target.from_triple(TRIPLE)
    except RuntimeError as err:    # pragma: no cover - an llvmlite built without NVPTX
        raise TepadError(f"this llvmlite's LLVM has no NVPTX back end ({err}); the cuda target "
                         "needs one (llvmlite wheels from PyPI have it)") from None
    return target.create_target_machine(cpu=arch, features=features, opt=opt)


def _on_path(parts) -> str | None:
    for root in sys.path:
        p = os.path.join(root or ".", *parts)
        if os.path.isfile(p):
            return p
    return None


def libdevice_path() -> str | None:
    """Where libdevice.10.bc is: ``$TEPAD_LIBDEVICE``, the nvidia-cuda-nvcc wheel, or
    ``$CUDA_HOME/nvvm/libdevice``; None when nowhere."""
    env = os.environ.get("TEPAD_LIBDEVICE")
    if env:
        return env if os.path.isfile(env) else None
    p = _on_path(_LIBDEVICE)
    if p:
        return p
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    if home:
        p = os.path.join(home, "nvvm", "libdevice", "libdevice.10.bc")
        if os.path.isfile(p):
            return p
    return None


def ptxas_path() -> str | None:
    """Where ptxas is: ``$TEPAD_PTXAS``, the nvidia-cuda-nvcc wheel, or on ``PATH``."""
    env = os.environ.get("TEPAD_PTXAS")
    if env:
        return env if os.path.isfile(env) else None
    return _on_path(_PTXAS) or shutil.which("ptxas")


@functools.cache
def _libdevice_bytes(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def load_libdevice(needed: list) -> llvm.ModuleRef:
    """libdevice parsed into a fresh module; a TepadError naming ``needed`` (the functions the
    kernel calls) and how to install it when it is missing."""
    path = libdevice_path()
    if path is None:
        raise TepadError(
            f"cuda codegen: the kernel calls {', '.join(needed)}, which come from libdevice "
            "(CUDA's math library); it was not found. Install it with "
            "`pip install nvidia-cuda-nvcc-cu12` (or `pip install tepad[cuda]`), or set "
            "TEPAD_LIBDEVICE to the path of libdevice.10.bc")
    with _lock:
        return llvm.parse_bitcode(_libdevice_bytes(path))


@functools.cache
def _libdevice_names(path: str) -> frozenset:
    with _lock:
        return frozenset(f.name for f in llvm.parse_bitcode(_libdevice_bytes(path)).functions
                         if not f.is_declaration)


def libdevice_function(name: str) -> str | None:
    """The libdevice function a device call of C function ``name`` means: ``name`` itself,
    ``__nv_<name>`` (``expf``), or CUDA's fast intrinsic ``__nv_fast_<name>`` for
    ``__<name>`` (``__expf``); None when libdevice has none of them or is missing."""
    path = libdevice_path()
    if path is None:
        return None
    names = _libdevice_names(path)
    bare = name.lstrip("_")
    for cand in (name, f"__nv_{bare}", f"__nv_fast_{bare}" if name.startswith("__") else None):
        if cand in names:
            return cand
    return None


__all__ = ["TRIPLE", "DEFAULT_ARCH", "parse_arch", "ptx_features", "arch_of_target",
           "target_machine", "libdevice_path", "ptxas_path", "load_libdevice",
           "libdevice_function"]
