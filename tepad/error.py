"""TVM's ``tvm.error``: ``TVMError`` (a ``RuntimeError``) and the errors deriving from it, from
``tepad.errors``. ``TepadError`` is a ``TVMError`` and a ``ValueError``."""
from .errors import (TVMError, TepadError, TepadTypeError, TepadAttributeError,
                     TepadIndexError, InternalError)

__all__ = ["TVMError", "TepadError", "TepadTypeError", "TepadAttributeError", "TepadIndexError",
           "InternalError"]
