"""TVM's ``tvm.script``, as far as TE programs use it: ``tvm.script.tir`` (imported as
``T``) for its typed constants, ``T.int32(5)``, ``T.float32(0.5)``; tepad does not parse
TVMScript."""
from . import tir

__all__ = ["tir"]
