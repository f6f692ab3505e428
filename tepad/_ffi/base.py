"""TVM's ``tvm._ffi.base``: ``TVMError`` (tepad's base error; ``TepadError`` derives from it)
and ``py_str``."""
from ..errors import TVMError


def py_str(x) -> str:
    """``x`` as a str (bytes decoded as UTF-8), as TVM's ``py_str``."""
    return x.decode("utf-8") if isinstance(x, (bytes, bytearray)) else str(x)


__all__ = ["TVMError", "py_str"]
