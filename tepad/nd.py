"""TVM's ``tvm.nd``: ``nd.array(np_array, device)``, ``nd.empty(shape, dtype, device)``,
``NDArray`` and the device constructors, from ``tepad.runtime``."""
from .runtime.ndarray import NDArray, array, empty
from .runtime.device import (Device, device, context, cpu, cuda, gpu, opencl, vulkan, metal, rocm,
                             ext_dev)

__all__ = ["NDArray", "array", "empty", "Device", "device", "context", "cpu", "cuda", "gpu", "opencl",
           "vulkan", "metal", "rocm", "ext_dev"]
