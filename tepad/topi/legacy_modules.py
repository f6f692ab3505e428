"""TVM's per-operator topi module paths (``topi.nn.dilate``, ``topi.nn.util``,
``topi.cuda.depthwise_conv2d``, ``tvm.topi.x86.conv2d``, ...) for programs that import from them.

TVM split each topi package into one module per operator family and re-exported them from
the package (``from .dilate import *``); programs import either way (``from topi.nn.dilate
import dilate``, ``from tvm.topi.cuda.depthwise_conv2d import schedule_depthwise_conv2d_nhwc``).
tepad keeps a package's names in fewer modules, so for each module path of ``MODULES`` that
has no module of its own, a finder (appended to ``sys.meta_path``, so real modules win) gives
a *view*: a module whose attributes are the package's. What is missing from the package is
missing from the view (an ImportError naming the name).

Importing a submodule sets it as an attribute of its package; where the package had a
function of that name (``topi.nn.dilate``), the view is callable as that function, so
``topi.nn.dilate(x, strides)`` keeps working after ``import topi.nn.dilate``.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types

#: package -> its module names in TVM 0.6-0.18 (the families a program imports from)
MODULES = {
    "tepad.topi": ("util", "utils", "broadcast", "reduction", "transform", "math", "tag",
                   "generic_op_impl", "sparse", "sort", "scan", "argwhere", "image",
                   "vision", "nn", "cpp", "scatter_add"),
    "tepad.topi.nn": ("dilate", "util", "utils", "pad", "mapping", "flatten", "bnn", "conv2d",
                      "depthwise_conv2d", "conv2d_transpose", "conv1d", "conv1d_transpose",
                      "conv3d", "dense", "batch_matmul", "pooling", "softmax", "elemwise",
                      "upsampling", "local_response_norm", "l2_normalize", "winograd_util",
                      "depth_to_space", "space_to_depth", "group_conv2d", "correlation",
                      "fifo_buffer", "layer_norm", "group_norm", "instance_norm",
                      "batch_norm", "lrn", "loss", "space_to_batch_nd", "batch_to_space_nd"),
    "tepad.topi.cuda": ("conv2d", "conv2d_direct", "conv2d_nhwc", "conv2d_hwcn",
                        "conv2d_winograd", "conv2d_transpose", "conv2d_transpose_nchw",
                        "depthwise_conv2d", "group_conv2d_nchw", "conv1d", "conv3d", "dense",
                        "batch_matmul", "reduction", "injective", "pooling", "softmax",
                        "extern", "sort", "scan", "nms", "vision", "ssd", "rcnn",
                        "tensor_intrin", "nn"),
    "tepad.topi.x86": ("conv2d", "conv2d_avx_1x1", "conv2d_avx_common", "conv2d_alter_op",
                       "depthwise_conv2d", "dense", "batch_matmul", "injective", "pooling",
                       "reduction", "nn", "roi_align", "conv1d", "conv3d", "group_conv2d",
                       "bitserial_conv2d", "bitserial_dense", "tensor_intrin", "utils",
                       "util"),
    "tepad.topi.arm_cpu": ("conv2d", "depthwise_conv2d", "conv2d_spatial_pack", "injective",
                           "bitserial_conv2d", "tensor_intrin"),
    "tepad.topi.gpu": ("conv2d", "dense", "conv2d_nhwc"),
    "tepad.topi.generic": ("nn", "injective", "extern", "vision", "sort", "default", "search",
                           "math", "conv2d"),
}


class _View(types.ModuleType):
    """One of TVM's operator modules: the names of its package."""

    def __init__(self, name, package, own):
        super().__init__(name, f"TVM's {name.removeprefix('tepad.')}: the names of "
                               f"{package.__name__}")
        object.__setattr__(self, "_package", package)
        object.__setattr__(self, "_own", own)      # the package's attribute of this name

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        try:
            return getattr(self._package, attr)
        except AttributeError:
            raise AttributeError(f"module {self.__name__!r} has no attribute {attr!r} "
                                 f"({self._package.__name__} has no such name)") from None

    def __call__(self, *args, **kwargs):
        if not callable(self._own):
            raise TypeError(f"module {self.__name__!r} is not callable")
        return self._own(*args, **kwargs)


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        parent, _, child = fullname.rpartition(".")
        if child not in MODULES.get(parent, ()):
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        parent, _, child = spec.name.rpartition(".")
        package = importlib.import_module(parent)
        own = package.__dict__.get(child)
        if isinstance(own, types.ModuleType):
            return own
        return _View(spec.name, package, own)

    def exec_module(self, module):
        pass


def install() -> None:
    """Append the finder to ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())


__all__ = ["MODULES", "install"]
