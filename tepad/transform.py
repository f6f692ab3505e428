"""TVM's ``tvm.transform`` namespace: ``PassContext`` (see ``tepad.lower.pass_context``)."""
from .lower.pass_context import PassContext

__all__ = ["PassContext"]
