"""TVM's ``tvm.contrib`` helpers that CPU programs use: ``cc`` (link object files into a
shared library) and ``utils`` (temporary directories)."""
from . import cc, utils

__all__ = ["cc", "utils"]
