"""A CUDA module on disk, as TVM's get-started tutorial keeps one:

* ``mod.save("myadd.o")``: the host part, an object file (``create_shared`` links it) whose
  payload (``tepad.codegen.object_file``) holds the launch records without the device code;
* ``mod.imported_modules[0].save("myadd.ptx")``: the device code, PTX text;
* ``load_module("myadd.so")`` then ``.import_module(load_module("myadd.ptx"))`` rebuilds the
  module that launches;
* ``mod.export_library("myadd.so")``: one library whose payload holds both, so
  ``load_module("myadd.so")`` is a CudaModule that launches with no import.

The payload is pickled (the host PrimFunc, kernels and launch records; unpickling trusts the
file as much as loading a library does). Loading needs no GPU: the module's PTX, launches and
argument checks can be inspected anywhere.
"""
from __future__ import annotations

import os
import pickle
import tarfile
import tempfile

from .._lazy import lazy_module
from ..codegen.jit import _lock, host_target_machine
from ..codegen.object_file import _payload_ir
from ..errors import TepadError
from .library import PAYLOAD_FORMAT, create_shared

llvm = lazy_module("llvmlite.binding")

KIND = "cuda_host"


def payload_of(mod, with_device: bool) -> bytes:
    """The pickled records ``module_from_payload`` rebuilds ``mod`` from; the PTX (and device
    LLVM IR) only ``with_device``."""
    record = {"format": PAYLOAD_FORMAT, "kind": KIND, "split": mod.split, "arch": mod.arch,
              "arg_info": list(mod.arg_info), "name": mod.name,
              "ptx": mod.ptx if with_device else None, "ll": mod.ll if with_device else ""}
    try:
        return pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError) as err:
        raise TepadError(f"module {mod.name}: cannot be saved ({err})") from None


def host_object(payload: bytes) -> bytes:
    """A relocatable object for the host CPU holding ``payload`` under the payload symbols
    (the host part of a CUDA module has no native code: the runtime interprets it)."""
    with _lock:
        tm = host_target_machine(pic=True)
        m = llvm.parse_assembly(_payload_ir(payload))
        m.triple = tm.triple
        m.data_layout = str(tm.target_data)
        m.verify()
        return tm.emit_object(m)


def save_cuda_module(mod, file_name, fmt: str = "") -> None:
    """``CudaModule.save``: ``.o`` / ``.obj`` the host part; ``.ptx`` / ``.ll`` / ``.cu`` the
    device code."""
    path = os.fspath(file_name)
    fmt = (fmt or os.path.splitext(path)[1].lstrip(".")).lower()
    if fmt in ("ptx", "ll", "cu"):
        if not mod.imported_modules:
            raise TepadError(f"module {mod.name}: no device code to save (import it first)")
        mod.imported_modules[0].save(path, fmt)
        return
    if fmt not in ("o", "obj"):
        raise TepadError(f"CudaModule.save({path!r}): unknown format {fmt!r}; use .o (the host "
                         "part), .ptx, .ll or .cu (the device code), or export_library for both")
    with open(path, "wb") as f:
        f.write(host_object(payload_of(mod, with_device=False)))


def export_cuda_library(mod, file_name, fcompile=None, workspace_dir=None, **kwargs) -> None:
    """``CudaModule.export_library``: a shared library (or ``.tar`` of its object) whose
    payload holds the host part and the PTX."""
    if not mod.imported_modules:
        raise TepadError(f"export_library: module {mod.name} has no device code; import it "
                         "first (mod.import_module(load_module('k.ptx')))")
    file_name = os.fspath(file_name)
    with tempfile.TemporaryDirectory(dir=workspace_dir) as tmp:
        obj = os.path.join(tmp, f"{mod.name}.o")
        with open(obj, "wb") as f:
            f.write(host_object(payload_of(mod, with_device=True)))
        if file_name.endswith(".tar"):
            with tarfile.open(file_name, "w") as tar:
                tar.add(obj, arcname=os.path.basename(obj))
            return
        (fcompile or create_shared)(file_name, [obj], **kwargs)


__all__ = ["save_cuda_module", "export_cuda_library", "payload_of",
           "host_object", "KIND"]
