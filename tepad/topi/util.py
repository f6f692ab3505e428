"""The old name of ``topi.utils`` (TVM before 0.7 called it ``topi.util``)."""
from .utils import *  # noqa: F401,F403
from .utils import __all__  # noqa: F401
