"""What the NVPTX back end needs from the machine: the GPU architecture and its PTX ISA
version, the NVPTX target machine, libdevice (the CUDA math library as LLVM bitcode) and
``ptxas`` (the PTX assembler, used by tests to check generated PTX).

libdevice and ptxas are looked up (``find_libdevice`` / ``find_ptxas``, which also say where)
in ``TEPAD_LIBDEVICE`` / ``TEPAD_PTXAS``, the nvidia-cuda-nvcc wheels on ``sys.path`` (CUDA 12's
``nvidia/cuda_nvcc``, CUDA 13's ``nvidia/cu13``; found without importing anything),
``$CUDA_HOME`` / ``$CUDA_PATH``, ``/usr/local/cuda``, ``/usr/local/cuda-*``, ``/opt/cuda``, and
for ptxas ``PATH``.
"""
from __future__ import annotations

import functools
import glob
import os
import re
import shutil
import sys
import threading

from .. import config
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
    """The ``sm_XY`` a cuda Target asks for (``-arch=sm_90`` / ``-mcpu=sm_90``; its
    ``arch``), else ``DEFAULT_ARCH``. ``target``: a Target or None."""
    if target is None:
        return DEFAULT_ARCH
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


# where CUDA toolkits put the two files, relative to a toolkit root: the CUDA 12 wheel
# (nvidia/cuda_nvcc), the CUDA 13 wheels (nvidia/cu13), and a toolkit install (/usr/local/cuda)
_LIBDEVICE_REL = (("nvvm", "libdevice", "libdevice.10.bc"),)
_PTXAS_REL = (("bin", "ptxas"), ("bin", "ptxas.exe"))
_WHEEL_ROOTS = (("nvidia", "cuda_nvcc"), ("nvidia", "cu13"), ("nvidia", "cu12"))
# system toolkit roots, newest versioned install first; tests replace this tuple
SYSTEM_ROOTS = ("/usr/local/cuda", "/usr/local/cuda-*", "/opt/cuda")


def _version_key(path: str):
    return tuple(int(x) for x in re.findall(r"\d+", os.path.basename(path)))


def _candidate_roots() -> list[tuple[str, str]]:
    """``(toolkit root, how it was found)`` in the order they are searched after the
    ``TEPAD_*`` override: the nvidia wheels on ``sys.path``, ``$CUDA_HOME`` / ``$CUDA_PATH``,
    then ``SYSTEM_ROOTS``."""
    out = []
    for root in sys.path:
        for parts in _WHEEL_ROOTS:
            out.append((os.path.join(root or ".", *parts), f"the {'/'.join(parts)} wheel"))
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            out.append((os.environ[var], f"${var}"))
    for pattern in SYSTEM_ROOTS:
        if any(c in pattern for c in "*?["):
            for p in sorted(glob.glob(pattern), key=_version_key, reverse=True):
                out.append((p, p))
        else:
            out.append((pattern, pattern))
    return out


def _find(env: str, rels, use_path: str | None = None) -> tuple[str | None, str]:
    """``(path, where it was found)`` of a toolkit file: ``$env`` when set (``(None, why)``
    when it names no file), else the first root of ``_candidate_roots`` holding one of
    ``rels``; ``use_path`` (a program name) is looked up on ``PATH`` before the system
    roots."""
    override = config.toolkit_file(env)
    if override:
        if os.path.isfile(override):
            return override, f"${env}"
        return None, f"${env}={override} is not a file"
    searched_path = not use_path
    for root, how in _candidate_roots():
        if not searched_path and how.startswith("/"):      # PATH before the system roots
            searched_path = True
            p = shutil.which(use_path)
            if p:
                return p, "PATH"
        for rel in rels:
            p = os.path.join(root, *rel)
            if os.path.isfile(p):
                return p, how
    if not searched_path:
        p = shutil.which(use_path)
        if p:
            return p, "PATH"
    return None, "not found (searched $TEPAD_*, the nvidia wheels, $CUDA_HOME, " + \
        ", ".join(SYSTEM_ROOTS) + (", PATH" if use_path else "") + ")"


def find_libdevice() -> tuple[str | None, str]:
    """``(path of libdevice.10.bc or None, where it was found / why not)``; searched in
    ``$TEPAD_LIBDEVICE``, the nvidia-cuda-nvcc wheels (CUDA 12 ``nvidia/cuda_nvcc``, CUDA 13
    ``nvidia/cu13``), ``$CUDA_HOME``, ``$CUDA_PATH``, ``/usr/local/cuda``,
    ``/usr/local/cuda-*`` (newest first) and ``/opt/cuda``."""
    return _find(config.LIBDEVICE, _LIBDEVICE_REL)


def find_ptxas() -> tuple[str | None, str]:
    """``(path of ptxas or None, where it was found / why not)``; the places of
    ``find_libdevice``, then ``ptxas`` on ``PATH`` (``$TEPAD_PTXAS`` first)."""
    return _find(config.PTXAS, _PTXAS_REL, use_path="ptxas")


def libdevice_path() -> str | None:
    """Where libdevice.10.bc is (``find_libdevice``); None when nowhere."""
    return find_libdevice()[0]


def ptxas_path() -> str | None:
    """Where ptxas is (``find_ptxas``); None when nowhere."""
    return find_ptxas()[0]


def toolchain_report() -> dict:
    """What the CUDA back end found, for a check script to print: llvmlite and its LLVM
    version, whether that LLVM has the NVPTX back end, and where libdevice and ptxas are
    (``{"libdevice": (path, where), "ptxas": (path, where), ...}``)."""
    import llvmlite
    try:
        _init_nvptx()
        llvm.Target.from_triple(TRIPLE)
        nvptx = True
    except Exception:  # noqa: BLE001 - a report, not a check
        nvptx = False
    return {"llvmlite": llvmlite.__version__,
            "llvm": ".".join(map(str, llvm.llvm_version_info)),
            "nvptx_backend": nvptx,
            "libdevice": find_libdevice(), "ptxas": find_ptxas()}


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
           "target_machine", "libdevice_path", "ptxas_path", "find_libdevice", "find_ptxas",
           "toolchain_report", "SYSTEM_ROOTS", "load_libdevice",
           "libdevice_function"]
