"""TVM pass objects whose TVM arguments differ from tepad's pass functions, and TVM passes
whose work tepad's later stages already do (registered as passes that return the function
unchanged, each with the reason, so TVM scripts that apply them run and mean the same).

``IDENTITY`` maps such a TVM name to the reason; ``FACTORIES`` maps a TVM name to a function
of TVM's arguments giving the PrimFunc -> PrimFunc function to run.
"""
from __future__ import annotations

from ...errors import TepadError
from ...tir import transform as tir_transform
from ...tir.function import PrimFunc
from ...tir.functor import Mutator
from ...tir.stmt import ForKind
from .hoist_if_then_else import CONFIG_KEY as _HOIST_IF_KEY
from .hoist_if_then_else import hoist_if_then_else, hoist_if_then_else_config
from .unroll_loop import unroll_loop
from .vectorize_loop import vectorize_loop

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


class _Serial(Mutator):
    def visit_For(self, f):
        f2 = self.generic_visit(f)
        return f2.replace(kind=ForKind.SERIAL) if f2.kind == ForKind.VECTORIZED else f2


def _vectorize_factory(enable_vectorize=True):
    """TVM's VectorizeLoop(enable_vectorize): False runs vectorized loops as serial loops."""
    if enable_vectorize:
        return vectorize_loop

    def serial(func):
        body = _Serial().visit(func.body)
        return func if body is func.body else func.with_body(body)
    return serial


def _hoist_factory(variant=None):
    """TVM's HoistIfThenElse(variant): the default reads support_block_scope_hosting from
    the PassContext config tir.HoistIfThenElse; "basic" never hoists across block scopes."""
    if variant not in (None, "basic"):
        raise TepadError(f"HoistIfThenElse: variant must be None or 'basic', got {variant!r}")
    if variant == "basic":
        return lambda func: hoist_if_then_else(func)
    return lambda func: hoist_if_then_else(func, **hoist_if_then_else_config(
        tir_transform.current_config().get(_HOIST_IF_KEY)))


def _unroll_factory():
    """TVM's UnrollLoop(): its options come from the PassContext config tir.UnrollLoop."""
    return lambda func: unroll_loop(func, **dict(tir_transform.current_config().get(
        "tir.UnrollLoop") or {}))


FACTORIES = {
    "VectorizeLoop": _vectorize_factory,
    "HoistIfThenElse": _hoist_factory,
    "UnrollLoop": _unroll_factory,
}


def register_all():
    """Register the factories and identity passes with ``tepad.tir.transform``."""
    for name, factory in FACTORIES.items():
        tir_transform.register(name, factory(), factory)
    for name in IDENTITY:
        tir_transform.register(name, _identity_factory(name)(), _identity_factory(name))


__all__ = ["IDENTITY", "FACTORIES", "register_all"]
