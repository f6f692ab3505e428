"""tepad: a tensor-expression compiler in the style of TVM's TE, with exact bounds and padding.

``import tepad as tvm; from tepad import te`` runs TVM TE code unchanged where docs/coming_from_tvm.md says so.
"""
from .errors import TepadError, InternalError
from . import tir
from . import te
from . import schedule
from . import bound
from . import lower
from .driver import build
from . import target
from . import transform
from . import layout
from . import testing

__all__ = ["TepadError", "InternalError", "tir", "te", "schedule", "bound", "lower", "build",
           "target", "transform", "layout", "testing"]
