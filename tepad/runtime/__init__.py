"""Runtime: the callable ``Module`` around a ``codegen.CompiledKernel``, argument checking,
``build_module`` (compile + wrap), and TVM's runtime names: ``Device`` / ``device`` / ``cpu``,
``NDArray`` (``ndarray.array``, ``ndarray.empty``), ``convert``, ``Array``, ``Map``."""
from .args import ArgInfo, ArgChecker, arg_info_from_func
from .module import Module, build_module
from .device import Device, device, cpu, cuda, gpu, opencl, vulkan, metal, rocm, ext_dev
from . import ndarray
from .ndarray import NDArray
from .container import Array, Map, convert, const
from .timing import BenchmarkResult
from .registry import register_func, get_global_func, list_global_func_names

__all__ = ["ArgInfo", "ArgChecker", "arg_info_from_func", "Module", "build_module", "Device",
           "device", "cpu", "cuda", "gpu", "opencl", "vulkan", "metal", "rocm", "ext_dev",
           "ndarray", "NDArray", "Array", "Map", "convert", "const", "BenchmarkResult", "register_func", "get_global_func",
           "list_global_func_names"]
