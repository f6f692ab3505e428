"""TVM's ``topi.cuda``: thread-binding schedules for CUDA targets (run them on the CPU with
``TEPAD_CUDA=emulate``) and, for the dispatch tables, the computes they pair with."""
from ..nn import conv2d_nchw, dense  # noqa: F401
from .schedules import *  # noqa: F401,F403
from .schedules import __all__ as _sched

__all__ = list(_sched) + ["conv2d_nchw", "dense"]
