"""TVM's ``tvm.contrib.utils``: ``tempdir()``, a temporary directory removed when it is
garbage collected (or by ``remove()``)."""
from __future__ import annotations

import os
import shutil
import tempfile


class TempDirectory:
    """A temporary directory: ``relpath(name)`` (a path inside it), ``listdir()``,
    ``remove()``, ``path``. Removed when the object goes away unless ``keep_for_debug``."""

    def __init__(self, custom_path=None, keep_for_debug=False):
        if custom_path:
            os.makedirs(custom_path, exist_ok=True)
            self.temp_dir = os.fspath(custom_path)
        else:
            self.temp_dir = tempfile.mkdtemp(prefix="tepad_")
        self._owned = not custom_path and not keep_for_debug

    @property
    def path(self) -> str:
        return self.temp_dir

    def relpath(self, name: str) -> str:
        """The path of ``name`` inside the directory."""
        return os.path.join(self.temp_dir, name)

    def listdir(self) -> list:
        """The names of the files in the directory."""
        return os.listdir(self.temp_dir)

    def remove(self) -> None:
        """Delete the directory now (only one tempdir made)."""
        if self._owned and self.temp_dir and os.path.isdir(self.temp_dir):
            shutil.rmtree(self.temp_dir, ignore_errors=True)
        self._owned = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()

    def __del__(self):
        try:
            self.remove()
        except Exception:   # noqa: BLE001 - at interpreter exit modules may be gone
            pass

    def __repr__(self):
        return f"TempDirectory({self.temp_dir!r})"


def tempdir(custom_path=None, keep_for_debug=None) -> TempDirectory:
    """A new temporary directory (TVM's ``utils.tempdir``)."""
    return TempDirectory(custom_path, bool(keep_for_debug))


__all__ = ["TempDirectory", "tempdir"]
