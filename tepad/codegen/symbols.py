"""C symbols that generated code and the runtime both name (apart from the emitters, so that
the runtime can name them without loading the LLVM IR emitter)."""

# The C function a kernel calls for ``tir.call_packed`` (defined by tepad.runtime.registry)
CALL_PACKED_SYMBOL = "tepad_call_packed"

# The i64 global a kernel stores a failed check's value in (its message shows it)
ERROR_VALUE_SYMBOL = "tepad_error_value"
# The global holding the address of the thread pool's run function (see codegen/pool.py)
POOL_HOOK_SYMBOL = "tepad_parallel_hook"

# C functions of this process that generated code calls by name: {symbol: address}, given by
# the layer that defines them (``provide``) and added to LLVM's symbol table by the JIT before
# it compiles a kernel
_PROVIDED: dict = {}


def provide(name: str, address: int) -> None:
    """Make the C function at ``address`` the one generated code calls as ``name``."""
    _PROVIDED[name] = address


def provided() -> dict:
    """``{symbol: address}`` of every ``provide``d function."""
    return dict(_PROVIDED)


__all__ = ["CALL_PACKED_SYMBOL", "ERROR_VALUE_SYMBOL", "POOL_HOOK_SYMBOL", "provide",
           "provided"]
