"""TVM's ``tvm.container`` / ``tvm.runtime.container`` names: ``Array``, ``Map`` (from
``tepad.runtime.container``)."""
from .runtime.container import Array, Map

__all__ = ["Array", "Map"]
