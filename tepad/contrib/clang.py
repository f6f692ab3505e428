"""TVM's ``tvm.contrib.clang``: ``find_clang`` and ``create_llvm`` (C/C++ source -> LLVM IR
text with the system clang), whose result a schedule links into a kernel with
``s[t].pragma(axis, "import_llvm", ll_code)`` (tepad's code generator links it with
llvmlite before optimizing, ``tepad.codegen.jit``).

tepad's LLVM is llvmlite's; clang's IR must be readable by it (a clang no newer than
llvmlite's LLVM: ``llvmlite.binding.llvm_version_info``). Where the system has no clang, the
clang inside the ``ziglang`` wheel (``pip install 'tepad[clang]'``, run as ``zig c++``) is
used; without either, ``create_llvm`` raises a TepadError saying so."""
from __future__ import annotations

import importlib.util
import os
import platform
import shutil
import subprocess

from .._lazy import lazy_module
from ..errors import TepadError
from .utils import tempdir

_binding = lazy_module("llvmlite.binding")


def _zig() -> str | None:
    """The ``zig`` executable of the installed ``ziglang`` wheel (its ``zig c++`` is clang)."""
    spec = importlib.util.find_spec("ziglang")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(list(spec.submodule_search_locations)[0], "zig")
    return path if os.access(path, os.X_OK) else None


def _is_zig(cc: str) -> bool:
    return os.path.basename(cc) in ("zig", "zig.exe")


def find_clang(required: bool = True) -> list:
    """The clang executables, best first: on PATH ``clang-<llvmlite's LLVM major>``, then
    older-numbered ones, then plain ``clang``; last the ``zig`` of the ``ziglang`` wheel
    (``create_llvm`` runs it as ``zig c++``). Empty (or, when ``required``, a TepadError)
    when there is none."""
    major = _binding.llvm_version_info[0]
    names = [f"clang-{major}"] + [f"clang-{v}" for v in range(major - 1, 9, -1)] + ["clang"]
    found = [p for p in (shutil.which(n) for n in names) if p]
    zig = _zig()
    if zig:
        found.append(zig)
    if not found and required:
        raise TepadError("tvm.contrib.clang: no clang found (looked on PATH for clang-"
                         f"{major}, older clang-N and clang, and for the ziglang wheel); "
                         "install clang or `pip install 'tepad[clang]'` to compile C/C++ to "
                         "LLVM IR, or pass cc=/path/to/clang")
    return found


def create_llvm(inputs, output=None, options=None, cc=None) -> str:
    """The LLVM IR text (``clang -S -emit-llvm``) of ``inputs``: source code strings or paths
    of source files (one or a list). ``output``: where the ``.ll`` is written (a temporary
    file by default); ``options``: more clang flags; ``cc``: the clang to use."""
    cc = cc or find_clang()[0]
    if not shutil.which(cc) and not os.path.isfile(cc):
        raise TepadError(f"tvm.contrib.clang.create_llvm: compiler {cc!r} not found")
    tmp = tempdir()
    output = output or tmp.relpath("output.ll")
    inputs = [inputs] if isinstance(inputs, str) else list(inputs)
    files = []
    for k, code in enumerate(inputs):
        if os.path.isfile(code) and os.path.splitext(code)[1] in (".c", ".cc", ".cpp", ".cxx"):
            files.append(code)
        else:
            path = tmp.relpath(f"input{k}.cc")
            with open(path, "w") as f:
                f.write(code)
            files.append(path)
    driver = [cc]
    if _is_zig(cc):
        # zig's clang targets the host's exact libc version and emits debug info by default;
        # the plain triple and -g0 give the IR a system clang would
        driver = [cc, "c++", "-target", f"{platform.machine()}-linux-gnu", "-g0"]
    cmd = [*driver, "-S", "-emit-llvm", "-O2", *(options or []), "-o", output, *files]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise TepadError(f"tvm.contrib.clang.create_llvm: {' '.join(cmd)} failed:\n"
                         f"{proc.stdout}{proc.stderr}")
    with open(output) as f:
        return f.read()


__all__ = ["find_clang", "create_llvm"]
