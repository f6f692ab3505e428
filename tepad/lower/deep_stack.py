"""``tepad.support.deep_stack`` under its former name (the names tests and user code import)."""
from ..support.deep_stack import (GC_YOUNG_THRESHOLD, RECURSION_LIMIT, STACK_BYTES,
                                  call_with_deep_stack, carry_thread_local, deep_stack)

__all__ = ["deep_stack", "call_with_deep_stack", "carry_thread_local", "STACK_BYTES",
           "RECURSION_LIMIT", "GC_YOUNG_THRESHOLD"]
