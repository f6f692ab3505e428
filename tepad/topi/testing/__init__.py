"""TVM's ``topi.testing``: numpy references written directly in numpy (independent of
topi's TE definitions) and the per-target schedule lookups tests use
(``get_injective_schedule(target)`` ...)."""
from .common import *  # noqa: F401,F403
from .common import __all__ as _common
from .reference import *  # noqa: F401,F403
from .reference import __all__ as _ref
from .reference_conv import *  # noqa: F401,F403
from .reference_conv import __all__ as _ref_conv
from .reference_nn import *  # noqa: F401,F403
from .reference_nn import __all__ as _ref_nn
from .reference_transform import *  # noqa: F401,F403
from .reference_transform import __all__ as _ref_transform

__all__ = list(_common) + list(_ref) + list(_ref_transform) + list(_ref_conv) + list(_ref_nn)
from .reference_conv_more import *  # noqa: F401,F403,E402
from .reference_conv_more import __all__ as _ref_conv_more

__all__ += list(_ref_conv_more)
