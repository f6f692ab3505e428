"""TVM passes whose work tepad's later stages already do (registered here, when this module is
imported, as passes that return the function unchanged, each with the reason, so TVM scripts
that apply them run and mean the same).

``IDENTITY`` maps such a TVM name to the reason; ``FACTORIES`` maps the TVM names whose
arguments differ from tepad's pass functions to the function of TVM's arguments giving the
PrimFunc -> PrimFunc function to run (each pass file registers its own).
"""
from __future__ import annotations

from ...tir import transform as tir_transform
from ...tir.function import PrimFunc
from .hoist_if_then_else import _hoist_factory
from .unroll_loop import _unroll_factory
from .vectorize_loop import _vectorize_factory

IDENTITY = {
    "MakePackedAPI": "tepad's kernels take plain pointers and sizes; the runtime Module "
                     "checks and unpacks the arguments (TVM's packed API) before calling",
    "MakeUnpackedAPI": "tepad's kernels already have an unpacked C signature",
    "LowerTVMBuiltin": "codegen emits tepad's builtins (packed calls, allocations, "
                       "address_of) directly",
    "CombineContextCall": "tepad's host code has no device-context calls to combine",
    "LowerDeviceStorageAccessInfo": "tepad's scoped allocations need no access info",
    "DecorateDeviceScope": "device scope is decided by the target passed to build",
    "BF16Legalize": "codegen stores bfloat16 as uint16 and computes in float32",
    "LowerCustomDatatypes": "tepad has no custom datatypes",
    "CommonSubexprElimTIR": "LLVM's GVN/EarlyCSE eliminate common subexpressions",
    "VerifyMemory": "CPU kernels read host memory directly; GPU kernels are checked by "
                    "verify_gpu_code in the build pipeline",
    "AnnotateDeviceRegions": "split_host_device finds the device regions itself (each "
                             "outermost thread_extent launch), so they need no target mark",
    "BindTarget": "tepad.build takes the target as an argument",
    "AnnotateEntryFunc": "a module built by tepad has its entry named by global_symbol",
    "RenormalizeSplitPattern": "tepad's simplifier keeps (x // c) * c + x % c patterns "
                               "folded as it goes",
}


def _identity_factory(name):
    def factory(*args, **kwargs):
        def identity(func: PrimFunc) -> PrimFunc:
            return func
        identity.__name__ = name
        return identity
    return factory


# the passes whose TVM arguments differ from the function's: each file registers its factory
FACTORIES = {
    "VectorizeLoop": _vectorize_factory,
    "HoistIfThenElse": _hoist_factory,
    "UnrollLoop": _unroll_factory,
}


def register_all():
    """Register the identity passes with ``tepad.tir.transform`` (done when this module is
    imported; again is harmless)."""
    for name in IDENTITY:
        tir_transform.register(name, _identity_factory(name)(), _identity_factory(name))


register_all()


__all__ = ["IDENTITY", "FACTORIES", "register_all"]
