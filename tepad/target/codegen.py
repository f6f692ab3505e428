"""TVM's ``tvm.target.codegen`` queries about the LLVM code generator: its version and the
numbering of LLVM intrinsics.

TVM passes an LLVM intrinsic to ``tir.call_llvm_intrin`` as LLVM's own numeric id. tepad's
IR keeps the intrinsic's name (LLVM resolves it when the module is parsed), so the ids here are
tepad's: ``llvm_lookup_intrinsic_id(name)`` numbers a name the first time it is asked for, and
``llvm_get_intrinsic_name(id)`` (and ``call_llvm_intrin`` given an id) maps it back. Ids are
stable within a process only.
"""
from __future__ import annotations

import threading

from .._lazy import lazy_module
from ..errors import TepadError
from .host import host_features

llvm = lazy_module("llvmlite.binding")

_lock = threading.Lock()
_ids: dict = {}
_names: list = []


def llvm_version_major(allow_none: bool = False) -> int:
    """The major version of the LLVM that llvmlite links (e.g. 20)."""
    return int(llvm.llvm_version_info[0])


def llvm_lookup_intrinsic_id(name: str) -> int:
    """A positive id for the LLVM intrinsic ``name`` (``"llvm.<...>"``); 0 for a name that is
    not an LLVM intrinsic name, as TVM returns for an unknown intrinsic."""
    if not isinstance(name, str) or not name.startswith("llvm.") or len(name) <= 5:
        return 0
    with _lock:
        k = _ids.get(name)
        if k is None:
            _names.append(name)
            k = _ids[name] = len(_names)
        return k


def llvm_get_intrinsic_name(intrin_id: int) -> str:
    """The name ``llvm_lookup_intrinsic_id`` gave the id ``intrin_id``."""
    k = int(intrin_id)
    with _lock:
        if not 1 <= k <= len(_names):
            raise TepadError(f"no LLVM intrinsic has id {intrin_id}; ids come from "
                             "tepad.target.codegen.llvm_lookup_intrinsic_id(name)")
        return _names[k - 1]


def target_has_features(features, target=None) -> bool:
    """Whether the host CPU (``$TEPAD_HOST_TARGET``'s when set) has every LLVM feature in
    ``features`` (a name or a list)."""
    have = host_features()
    if isinstance(features, str):
        features = [features]
    return all(have.get(f.lstrip("+"), False) for f in features)


__all__ = ["llvm_version_major", "llvm_lookup_intrinsic_id", "llvm_get_intrinsic_name",
           "target_has_features"]
