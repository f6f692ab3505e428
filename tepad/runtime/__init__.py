"""Runtime: the callable ``Module`` around a ``codegen.CompiledKernel``, argument checking,
``build_module`` (compile + wrap), files (``Module.save`` / ``export_library``,
``load_module``: ``library``), and TVM's runtime names: ``Device`` / ``device`` / ``cpu``,
``NDArray`` (``ndarray.array``, ``ndarray.empty``), ``convert``, ``Array``, ``Map``; CUDA:
``CudaModule`` and ``CudaNDArray`` (``cuda_module``) over the driver interface of ``cuda_driver``."""
from .args import ArgInfo, ArgChecker, arg_info_of
from .module import Module, build_module, load_module
from . import library
from .device import (enabled, Device, device, cpu, cuda, gpu, opencl, vulkan, metal, rocm, ext_dev,
                     cuda_emulated)
from . import ndarray
from .ndarray import NDArray
from .container import Array, Map, convert, const
from .timing import BenchmarkResult
from .data_type import DataType, DataTypeCode
from .cuda_module import CudaModule, CudaNDArray
from .registry import register_func, get_global_func, list_global_func_names
from . import _ffi_api

__all__ = ["DataType", "DataTypeCode", "enabled", "ArgInfo", "ArgChecker", "arg_info_of", "Module", "build_module",
           "load_module", "library", "Device", "device", "cpu", "cuda", "gpu", "opencl",
           "vulkan", "metal", "rocm", "ext_dev", "ndarray", "NDArray", "Array", "Map",
           "convert", "const", "BenchmarkResult", "register_func", "get_global_func",
           "list_global_func_names", "cuda_emulated", "CudaModule", "CudaNDArray"]
