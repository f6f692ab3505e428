"""``tepad.build`` and TVM's ``tvm.driver.build_module`` path (``build``, ``lower``,
``schedule_to_module``)."""
from . import build_module
from .build_module import build, schedule_to_module
from ..lower import lower

__all__ = ["build_module", "build", "schedule_to_module", "lower"]
