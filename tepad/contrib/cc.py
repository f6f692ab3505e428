"""TVM's ``tvm.contrib.cc``: ``create_shared(output, objects, options=None, cc=None)`` links
object files (``Module.save("k.o")``) into a shared library that
``tepad.runtime.load_module`` loads."""
from ..runtime.library import create_shared, find_compiler


def get_cc() -> str | None:
    """The compiler ``create_shared`` uses by default, or None when there is none."""
    try:
        return find_compiler()
    except Exception:   # noqa: BLE001 - TVM's get_cc answers None when there is none
        return None


__all__ = ["create_shared", "get_cc"]
