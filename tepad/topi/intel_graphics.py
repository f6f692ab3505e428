"""TVM's ``topi.intel_graphics`` (Intel GPUs through OpenCL).

tepad does not generate code for that target, so each schedule here is ``topi.generic``'s
(the current target's schedule); see ``topi.foreign_targets``."""
import sys as _sys

from .nn import conv2d_nchw, depthwise_conv2d_nchw  # noqa: F401 - TVM's table entries
from .foreign_targets import populate as _populate

__all__ = _populate(_sys.modules[__name__], "intel_graphics") + ["conv2d_nchw",
                                                               "depthwise_conv2d_nchw"]
