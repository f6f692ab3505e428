"""The targets of this thread's ``with Target(...)`` blocks (``Target.current()`` reads the
innermost), kept apart so that the generic functions can read it without importing Target."""
from ..support.context_stack import ContextStack

current_targets = ContextStack()

__all__ = ["current_targets"]
