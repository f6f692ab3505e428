"""Modules on disk: ``Module.save`` / ``Module.export_library``, ``load_module`` and the
linker call behind them (TVM's ``tvm.contrib.cc.create_shared``).

A saved object file (``mod.save("k.o")``) and an exported library (``mod.export_library(
"k.so")``) hold the kernel's native code and a *payload* (``tepad.codegen.object_file``):
the pickled records a Module needs besides code (the PrimFunc with its argument buffers,
argument records, status messages, LLVM IR). ``load_module("k.so")`` maps the library and
rebuilds a Module that checks its arguments exactly as the one that was saved. Unpickling
the payload trusts the file as much as mapping its code does (loading a library runs it).

Each load maps a private copy of the file, so a library re-exported under the same name
loads its new code (the dynamic loader would hand back the first mapping of a path).
"""
from __future__ import annotations

import ctypes
import os
import pickle
import shutil
import subprocess
import tarfile
import tempfile

from ..codegen import CompiledKernel, have_gomp
from ..codegen.object_file import (PAYLOAD_SIZE_SYMBOL, PAYLOAD_SYMBOL, assembly, bitcode,
                                   object_code)
from ..errors import TepadError

# stdlib modules only export and load use (tarfile and shutil pull in compression modules)

PAYLOAD_FORMAT = 1
_SHARED = (".so", ".dylib", ".dll")
_COMPILERS = ("g++", "gcc", "cc", "clang", "clang++")


# --- linking -------------------------------------------------------------------------------------

def find_compiler(cc: str | None = None) -> str:
    """The C/C++ compiler driver that links shared libraries: ``cc`` when given, else
    ``$CXX``, ``$CC``, then the first of g++, gcc, cc, clang, clang++ on PATH."""
    for cand in ([cc] if cc else [os.environ.get("CXX"), os.environ.get("CC"), *_COMPILERS]):
        if cand and shutil.which(cand.split()[0]):
            return cand
    if cc:
        raise TepadError(f"create_shared: compiler {cc!r} is not on PATH")
    raise TepadError("create_shared: no C compiler found on PATH to link the shared library "
                     f"(tried $CXX, $CC, {', '.join(_COMPILERS)}); install one or pass cc=")


def create_shared(output, objects, options=None, cc=None, cwd=None, ccache_env=None) -> None:
    """Link ``objects`` (a path or a list of paths) into the shared library ``output`` with
    the system compiler (TVM's ``cc.create_shared``); ``options`` are extra flags. A failed
    link raises TepadError with the linker's message."""
    objs = [objects] if isinstance(objects, (str, os.PathLike)) else list(objects)
    if not objs:
        raise TepadError("create_shared: no object files given")
    for o in objs:
        if not os.path.isfile(o):
            raise TepadError(f"create_shared: object file {os.fspath(o)!r} does not exist")
    cmd = find_compiler(cc).split() + ["-shared", "-fPIC", "-o", os.fspath(output)]
    cmd += [os.fspath(o) for o in objs] + list(options or [])
    env = dict(os.environ, **(ccache_env or {}))
    res = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if res.returncode != 0:
        raise TepadError(f"create_shared: linking {os.fspath(output)!r} failed "
                         f"({' '.join(cmd)}):\n{res.stderr.strip()}")


# --- saving --------------------------------------------------------------------------------------

def payload_of(mod) -> bytes:
    """The pickled records ``load_module`` rebuilds ``mod`` from."""
    k = mod.kernel
    record = {"format": PAYLOAD_FORMAT, "func": mod.func, "name": mod.name,
              "symbol": k.entry_symbol,
              "shape_vars": tuple(mod.shape_vars), "messages": tuple(mod.messages),
              "source_ll": mod.unoptimized_ll, "ll": mod.ll, "num_threads": k.num_threads,
              "arg_info": list(mod.arg_info), "cpu": k.jit.cpu, "features": k.jit.features}
    try:
        return pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError) as err:
        raise TepadError(f"module {mod.name}: cannot be saved ({err}); a pad_value given as a "
                         "Python function cannot be stored in a file, give an expression "
                         "instead") from None


def save_module(mod, path, fmt: str = "") -> None:
    """Write ``mod`` to ``path`` as TVM's ``Module.save`` does; the format comes from ``fmt``
    or the file's extension: ``o`` / ``obj`` (object file with the payload, for
    ``create_shared`` and ``load_module``), ``ll`` (LLVM IR), ``s`` / ``asm`` (assembly),
    ``bc`` (bitcode)."""
    path = os.fspath(path)
    fmt = (fmt or os.path.splitext(path)[1].lstrip(".")).lower()
    if fmt in ("o", "obj"):
        data = object_code(mod.kernel.jit, payload_of(mod))
    elif fmt in ("ll", "llvm"):
        data = mod.ll.encode()
    elif fmt in ("s", "asm"):
        data = mod.get_source("asm").encode()
    elif fmt == "bc":
        data = bitcode(mod.kernel.jit)
    else:
        raise TepadError(f"Module.save({path!r}): unknown format {fmt!r}; use a path ending in "
                         ".o (object), .ll (LLVM IR), .s (assembly) or .bc (bitcode), or "
                         "export_library for a shared library")
    with open(path, "wb") as f:
        f.write(data)


def export_library(mod, file_name, fcompile=None, workspace_dir=None, **kwargs) -> None:
    """Write ``mod`` as a shared library (``.so``), or as a ``.tar`` of its object file, that
    ``load_module`` loads back (TVM's ``Module.export_library``). ``fcompile(output, objects,
    **kwargs)`` links (default ``create_shared``; ``kwargs`` such as ``options``/``cc`` go to
    it); ``workspace_dir`` holds the intermediate object (default: a temporary directory)."""
    file_name = os.fspath(file_name)
    with tempfile.TemporaryDirectory(dir=workspace_dir) as tmp:
        obj = os.path.join(tmp, f"{mod.name}.o")
        save_module(mod, obj, "o")
        if file_name.endswith(".tar"):
            with tarfile.open(file_name, "w") as tar:
                tar.add(obj, arcname=os.path.basename(obj))
            return
        (fcompile or create_shared)(file_name, [obj], **kwargs)


# --- loading -------------------------------------------------------------------------------------

class SharedLibrary:
    """Native code of a loaded library, with what a Module reads of its code object
    (``function``, ``ll``, ``asm``, ``cpu``, ``features``)."""

    def __init__(self, dll, path: str, ll: str, cpu, features):
        self._dll = dll
        self.path = path
        self.ll = ll
        self.cpu, self.features = cpu, features
        self._asm = None
        # the dynamic linker resolved the library's extern symbols when it was loaded
        self.missing = ()

    def function(self, name: str, restype, *argtypes):
        try:
            return ctypes.CFUNCTYPE(restype, *argtypes)((name, self._dll))
        except AttributeError:
            raise TepadError(f"library {self.path!r} has no function {name!r}") from None

    @property
    def asm(self) -> str:
        if self._asm is None:
            self._asm = assembly(self.ll, self.cpu, self.features)
        return self._asm

    def global_address(self, name: str) -> int:
        """Address of the library's global ``name``; 0 when it has none."""
        try:
            return ctypes.addressof(ctypes.c_int64.in_dll(self._dll, name))
        except ValueError:
            return 0


def _map_private_copy(path: str):
    """dlopen a private copy of ``path`` (removed once mapped: the mapping outlives it)."""
    have_gomp()               # libgomp global first: parallel kernels resolve GOMP_* from it
    fd, tmp = tempfile.mkstemp(suffix=os.path.splitext(path)[1] or ".so", prefix="tepad_")
    os.close(fd)
    try:
        shutil.copyfile(path, tmp)
        try:
            return ctypes.CDLL(tmp, mode=getattr(os, "RTLD_LOCAL", 0) | getattr(os, "RTLD_NOW", 0))
        except OSError as err:
            raise TepadError(f"load_module({path!r}): cannot load the library: {err}") from None
    finally:
        os.unlink(tmp)


def _payload(dll, path: str) -> dict:
    try:
        size = ctypes.c_uint64.in_dll(dll, PAYLOAD_SIZE_SYMBOL).value
        data = ctypes.string_at(ctypes.addressof(
            (ctypes.c_char * size).in_dll(dll, PAYLOAD_SYMBOL)), size)
    except ValueError:
        raise TepadError(f"load_module({path!r}): not a library exported by tepad (no "
                         f"{PAYLOAD_SYMBOL}); export it with mod.export_library(...)") from None
    record = pickle.loads(data)
    if not isinstance(record, dict) or record.get("format") != PAYLOAD_FORMAT:
        raise TepadError(f"load_module({path!r}): the library was exported by an incompatible "
                         "tepad version; export it again")
    return record


def read_library(path: str):
    """``(mapped library, payload record)`` of the tepad library at ``path``."""
    dll = _map_private_copy(path)
    return dll, _payload(dll, path)


def load_library(path: str, mapped=None):
    """``(CompiledKernel, arg_info)`` of the tepad library at ``path`` (see ``load_module``);
    ``mapped``: what ``read_library(path)`` returned, when it was read already."""
    dll, r = mapped if mapped is not None else read_library(path)
    code = SharedLibrary(dll, path, r["ll"], r["cpu"], r["features"])
    kernel = CompiledKernel(r["func"], r["name"], code, r["shape_vars"], r["messages"],
                            r["source_ll"], r["num_threads"], r.get("symbol", r["name"]))
    return kernel, r["arg_info"]


def shared_library_path(path: str, tmp: str) -> str:
    """``path`` itself for a shared library; a library linked in ``tmp`` from an object file
    (``.o``) or from the objects of a ``.tar`` (what ``export_library`` writes)."""
    ext = os.path.splitext(path)[1].lower()
    if ext in _SHARED or ".so." in os.path.basename(path):       # libk.so.1 too
        return path
    if ext in (".o", ".obj"):
        objs = [path]
    elif ext == ".tar":
        with tarfile.open(path) as tar:
            tar.extractall(tmp, filter="data")
        objs = [os.path.join(tmp, n) for n in sorted(os.listdir(tmp)) if n.endswith(".o")]
        if not objs:
            raise TepadError(f"load_module({path!r}): the archive holds no object file")
    else:
        raise TepadError(f"load_module({path!r}): unknown file type {ext!r}; tepad loads "
                         "shared libraries (.so), object files (.o) and .tar archives made "
                         "by export_library")
    out = os.path.join(tmp, "lib.so")
    create_shared(out, objs)
    return out


__all__ = ["create_shared", "find_compiler", "save_module", "export_library", "payload_of",
           "SharedLibrary", "load_library", "read_library", "shared_library_path", "PAYLOAD_FORMAT"]
