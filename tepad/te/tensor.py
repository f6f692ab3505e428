"""TVM's ``tvm.te.tensor`` module path: the tensor and operation classes of ``tepad.tensor``
(``isinstance(x, te.tensor.Tensor)``)."""
from ..tensor.tensor import ComputeOp, Operation, PlaceholderOp, Tensor

__all__ = ["Tensor", "Operation", "PlaceholderOp", "ComputeOp"]
