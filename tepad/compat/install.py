"""Names TVM keeps in modules whose tepad counterpart is a lower layer, installed there by
the face (``tepad/__init__`` imports this module):

* ``tvm.tir.comm_reducer`` / ``tvm.tir.sum`` (tepad's reducers are the tensor layer's) and
  the ``tvm.tir.analysis`` module (its verifiers use the lowering's GPU checks);
* ``tvm.runtime.Object`` / ``PackedFunc`` / ``ObjectTypes`` / ``convert_to_object`` /
  ``num_threads``, ``tvm.nd.from_dlpack`` and ``tvm.Object`` (``runtime_names``);
* TVM 0.6's names in the modules that are tepad packages today (``tvm.schedule.InferBound``,
  ``tvm.tensor.TensorSlice``, ``tvm.container.Range``, ``tvm.codegen.llvm_lookup_intrinsic_id``,
  TVM 0.7's ``tvm.runtime.context`` / ``TVMContext``): a module ``__getattr__`` that warns
  once per name (``DeprecationWarning``) and answers with the current object.
"""
from __future__ import annotations

import importlib.machinery
import sys

from .. import arith, codegen, container, nd, runtime, schedule, tensor, tir
from ..errors import warn_deprecated
from ..tensor import comm_reducer, sum as _sum
from . import MODULES, old_module, resolve, runtime_names, tir_analysis

class _OldModuleFinder:
    """Makes ``import tepad.hybrid`` / ``from tepad.ir_pass import Simplify`` (TVM 0.6's
    modules, ``compat.MODULES``) find their alias modules, as attribute access does."""

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        parent, _, name = fullname.rpartition(".")
        if parent != "tepad" or name not in MODULES:
            return None
        return importlib.machinery.ModuleSpec(fullname, _OldModuleFinder)

    @staticmethod
    def create_module(spec):
        return old_module(spec.name.rpartition(".")[2])

    @staticmethod
    def exec_module(module):
        pass


if not any(isinstance(f, type) and f.__name__ == "_OldModuleFinder" for f in sys.meta_path):
    sys.meta_path.append(_OldModuleFinder)

tir.comm_reducer = comm_reducer
tir.sum = _sum
tir.analysis = tir_analysis
sys.modules.setdefault("tepad.tir.analysis", tir_analysis)

for _name in ("Object", "PackedFunc", "ObjectTypes", "convert_to_object", "num_threads"):
    setattr(runtime, _name, getattr(runtime_names, _name))
nd.from_dlpack = runtime_names.from_dlpack
sys.modules["tepad"].Object = runtime_names.Object

_TS = "tepad.te.schedule"
OLD_NAMES = {
    schedule: ("tvm.schedule", {
        n: (f"{_TS}.{n}", f"tvm.te.schedule.{n}")
        for n in ("InferBound", "ScheduleOps", "CreateReadGraph", "PostDFSOrder",
                  "CreateAttachPath", "ScanGetBody", "ScanFixPointAnalysis",
                  "AutoInlineElemWise", "AutoInlineInjective")}),
    tensor: ("tvm.tensor", {
        "TensorSlice": ("tepad.te.TensorSlice", "tvm.te.TensorSlice"),
        "BaseComputeOp": ("tepad.te.ComputeOp", "tvm.te.ComputeOp"),
        "itervar_cls": ("tepad.tir.IterVar", "tvm.tir.IterVar"),
        "Layout": ("tepad.tir.Layout", "tvm.tir.Layout"),
        "BijectiveLayout": ("tepad.tir.BijectiveLayout", "tvm.tir.BijectiveLayout")}),
    container: ("tvm.container", {
        "Range": ("tepad.ir.Range", "tvm.ir.Range"),
        "StrMap": ("tepad.ir.container.Map", "tvm.ir.container.Map")}),
    codegen: ("tvm.codegen", {
        "llvm_lookup_intrinsic_id": ("tepad.target.codegen.llvm_lookup_intrinsic_id",
                                     "tvm.target.codegen.llvm_lookup_intrinsic_id")}),
    arith: ("tvm.arith", {
        "DetectLinearEquation": ("tepad.arith.detect_linear_equation",
                                 "tvm.arith.detect_linear_equation")}),
    runtime: ("tvm.runtime", {
        "context": ("tepad.runtime.device.device", "tvm.runtime.device"),
        "TVMContext": ("tepad.runtime.Device", "tvm.runtime.Device")}),
}


def _install(module, old: str, table: dict) -> None:
    """Give ``module`` a ``__getattr__`` answering ``table``'s old names (after its own)."""
    before = module.__dict__.get("__getattr__")

    def __getattr__(name):
        entry = table.get(name)
        if entry is not None:
            path, new = entry
            warn_deprecated(f"{old}.{name}", new)
            return resolve(path)
        if before is not None:
            return before(name)
        raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")

    module.__getattr__ = __getattr__


for _mod, (_old, _table) in OLD_NAMES.items():
    _install(_mod, _old, _table)

__all__ = ["OLD_NAMES"]
