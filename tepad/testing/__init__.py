"""Testing helpers. ``reference`` is the numpy oracle: it evaluates compute definitions
directly, ignoring every schedule, and shares no code with lowering."""
from .reference import reference

__all__ = ["reference"]
