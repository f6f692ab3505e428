"""tepad: a tensor-expression compiler in the style of TVM's TE, with exact bounds and padding.

``import tepad as tvm; from tepad import te`` runs TVM TE code unchanged where
docs/coming_from_tvm.md says so.
"""
import importlib as _importlib

__version__ = "0.1.0"

from .errors import TVMError, TepadError, InternalError
from . import error
from . import tir
from . import te
from . import schedule
from . import bound
from . import lower
from . import runtime
from .runtime import Device, device, cpu, cuda, gpu, opencl, vulkan, metal, rocm, ext_dev
from .runtime import register_func, get_global_func, DataType, DataTypeCode
from ._ffi import register_object, register_extension

__version__ = "0.1.0"       # tepad's own version (pyproject.toml), not a TVM release's
from .driver import build
from . import target
from . import transform
from . import nd
from . import container
from . import ir
from .ir import IRModule
from . import layout
from .tir import generic
from .ir import instrument
from .compat import install as _compat_install   # names installed on lower packages

# Face packages that ``import tepad`` does not load: ``tepad.topi`` (and ``from tepad import
# topi``) imports them on first use (PEP 562), so the import stays cheap.
_LAZY_SUBMODULES = ("topi", "testing", "contrib", "viz", "fuzz", "autotvm", "auto_scheduler",
                    "script", "_ffi", "demo", "cli", "rpc")


def __getattr__(name):
    if name in _LAZY_SUBMODULES:
        return _importlib.import_module(f"{__name__}.{name}")
    if not name.startswith("__"):
        # TVM's older names (tvm.placeholder, tvm.api, tvm.make, ...): tepad.compat warns
        # once per name and answers with the current one
        return _importlib.import_module(f"{__name__}.compat").top_level(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY_SUBMODULES))


__all__ = ["TVMError", "TepadError", "InternalError", "error", "tir", "te", "schedule", "bound",
           "lower", "runtime", "Device", "device", "cpu", "cuda", "gpu", "opencl", "vulkan",
           "metal", "rocm", "ext_dev", "build", "target", "transform", "topi", "nd", "container",
           "ir", "IRModule", "layout", "testing", "register_func", "get_global_func",
           "register_object", "DataType", "DataTypeCode", "contrib",
           "autotvm", "auto_scheduler", "demo", "register_extension", "generic", "instrument", "rpc"]
