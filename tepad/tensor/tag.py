"""``te.tag_scope``: a tag for every compute defined inside it that does not give its own
(TVM's ``tvm.te.tag_scope``), as a ``with`` block or a decorator::

    with te.tag_scope("conv2d_nchw"):
        C = te.compute(...)            # C.op.tag == "conv2d_nchw"
"""
from __future__ import annotations

import functools
import threading

from ..errors import TepadError

_current = threading.local()


def current_tag() -> str:
    """The tag of the innermost active tag_scope ("" when none is)."""
    scope = getattr(_current, "scope", None)
    return scope.tag if scope is not None else ""


class tag_scope:  # noqa: N801 - TVM's name
    """Tag the computes defined in this scope (see module docstring). Scopes do not nest."""

    def __init__(self, tag: str):
        if not isinstance(tag, str):
            raise TepadError(f"tag_scope: the tag must be a string, got {tag!r}")
        self.tag = tag

    def __enter__(self):
        if getattr(_current, "scope", None) is not None:
            raise TepadError(f"tag_scope({self.tag!r}) inside tag_scope("
                             f"{_current.scope.tag!r}): tag scopes do not nest")
        _current.scope = self
        return self

    def __exit__(self, *exc):
        _current.scope = None

    def __call__(self, fdecl):
        @functools.wraps(fdecl)
        def tagged(*args, **kwargs):
            with self:
                return fdecl(*args, **kwargs)
        return tagged


__all__ = ["tag_scope", "current_tag"]
