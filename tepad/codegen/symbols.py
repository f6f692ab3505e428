"""C symbols that generated code and the runtime both name (apart from the emitters, so that
the runtime can name them without loading the LLVM IR emitter)."""

# The C function a kernel calls for ``tir.call_packed`` (defined by tepad.runtime.registry)
CALL_PACKED_SYMBOL = "tepad_call_packed"

__all__ = ["CALL_PACKED_SYMBOL"]
