"""TVM's ``tvm.testing.utils`` module path: the ``tvm.testing`` helpers (TVM defines them
here and re-exports them from ``tvm.testing``) and ``install_request_hook``, which TVM's
gallery tutorials from v0.10 on call first (``testing.utils.install_request_hook(depth=3)``)."""
from __future__ import annotations

from ..errors import TepadError
from .tvm_helpers import *  # noqa: F401,F403
from .tvm_helpers import __all__ as _helpers


def install_request_hook(depth: int) -> None:
    """Install nothing and return None, as TVM does everywhere but in its own CI.

    TVM's version, when the ``CI`` environment variable is ``"true"``, imports a URL-logging
    hook from ``tests/scripts/request_hook`` of a TVM source tree ``depth`` directories
    above its module; that script is not part of TVM's packages and tepad has no such tree,
    so here the call only checks its argument (``depth`` >= 1, the values TVM accepts)."""
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise TepadError(f"testing.utils.install_request_hook: depth must be an int >= 1, "
                         f"got {depth!r}")
    return None


__all__ = list(_helpers) + ["install_request_hook"]
