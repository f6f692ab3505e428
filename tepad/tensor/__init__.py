"""Tensor definitions: placeholders, computes, reductions and scans as Operation objects (TVM's
``te.placeholder`` / ``te.compute``), before any schedule exists. Users reach these names
through ``tepad.te``; this layer sits below ``tepad.schedule``."""
from .tensor import Tensor, Operation, PlaceholderOp, ComputeOp
from .scan import ScanOp, scan
from .operation import (var, size_var, const, placeholder, compute, reduce_axis, thread_axis,
                        comm_reducer, sum, max, min)
from .extern import ExternOp, extern
from .hybrid import HybridOp
from .autodiff import gradient
from .tag import tag_scope
from .tensor_intrin import (TensorIntrin, TensorIntrinCall, TensorComputeOp,
                            decl_tensor_intrin)

__all__ = ["Tensor", "Operation", "PlaceholderOp", "ComputeOp", "ScanOp", "scan", "var", "size_var", "const",
           "placeholder", "compute", "reduce_axis", "thread_axis", "comm_reducer", "sum", "max",
           "min", "ExternOp", "extern", "HybridOp", "gradient", "TensorIntrin", "TensorIntrinCall", "TensorComputeOp",
           "decl_tensor_intrin", "tag_scope"]
