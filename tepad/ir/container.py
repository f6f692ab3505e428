"""TVM's ``tvm.ir.container``: ``Array`` and ``Map`` (from ``tepad.runtime.container``)."""
from ..runtime.container import Array, Map

__all__ = ["Array", "Map"]
