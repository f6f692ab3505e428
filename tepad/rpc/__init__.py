"""TVM's ``tvm.rpc`` for programs that run here: ``LocalSession``.

TVM's tutorials and AutoTVM scripts send a built library to a device through an RPC session
(``remote.upload(path)``, ``remote.load_module(name)``, ``remote.cpu()``) and switch to
``rpc.LocalSession()`` when the device is this machine. tepad has the local session: its
"remote" side is this process, with a private working directory the uploads go to (as a TVM
RPC server's). There is no RPC client or server: ``connect`` / ``connect_tracker`` say so
and name the local session, which runs the same program on this machine.
"""
from __future__ import annotations

import os
import shutil
import tempfile

from ..errors import TepadError
from ..runtime.device import cl as _cl, cpu as _cpu, cuda as _cuda, device as _make_device
from ..runtime.module import load_module as _load_module
from ..runtime.registry import get_global_func


class RPCSession:
    """TVM's RPC session interface, on this machine: files live in a working directory of
    the session's own, devices are this machine's."""

    def __init__(self):
        self._dir = tempfile.mkdtemp(prefix="tepad_rpc_")

    # --- files -------------------------------------------------------------------------
    def _path(self, name: str) -> str:
        if not isinstance(name, str) or not name:
            raise TepadError(f"RPC session: a file name must be a non-empty string, got "
                             f"{name!r}")
        full = os.path.normpath(os.path.join(self._dir, name))
        if os.path.commonpath([full, self._dir]) != self._dir:
            raise TepadError(f"RPC session: {name!r} leaves the session's directory; name a "
                             "file inside it (as uploaded)")
        return full

    def upload(self, data, target: str | None = None) -> None:
        """Copy the file at ``data`` (a path) or the bytes ``data`` into the session's
        directory, as ``target`` (default: the file's base name; required for bytes)."""
        if isinstance(data, (bytes, bytearray)):
            if not target:
                raise TepadError("RPC session: upload of bytes needs target= (the file name "
                                 "in the session)")
            dest = self._path(target)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "wb") as f:
                f.write(bytes(data))
            return
        if not isinstance(data, (str, os.PathLike)) or not os.path.isfile(data):
            raise TepadError(f"RPC session: upload takes a file path or bytes; {data!r} is "
                             "not a file")
        dest = self._path(target or os.path.basename(os.fspath(data)))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(data, dest)

    def download(self, path: str) -> bytearray:
        """The bytes of the session's file ``path``."""
        full = self._path(path)
        if not os.path.isfile(full):
            raise TepadError(f"RPC session: no file {path!r} (files: {self.listdir('.')})")
        with open(full, "rb") as f:
            return bytearray(f.read())

    def listdir(self, path: str = ".") -> list:
        """The names in the session's directory ``path``."""
        full = self._path(path)
        return sorted(os.listdir(full)) if os.path.isdir(full) else []

    def remove(self, path: str) -> None:
        """Delete the session's file or directory ``path``."""
        full = self._path(path)
        if os.path.isdir(full):
            shutil.rmtree(full)
        elif os.path.exists(full):
            os.remove(full)

    rmdir = remove

    def load_module(self, path: str):
        """The Module of the library uploaded as ``path`` (``export_library``'s ``.so`` or
        ``.tar``, or an object file), loaded in this process."""
        full = self._path(path)
        if not os.path.exists(full):
            raise TepadError(f"RPC session: no uploaded file {path!r} to load (upload it "
                             f"first; files: {self.listdir('.')})")
        return _load_module(full)

    def get_function(self, name: str):
        """The global function ``name`` (``tvm.register_func``)."""
        return get_global_func(name)

    # --- devices -----------------------------------------------------------------------
    def device(self, dev_type, dev_id: int = 0):
        return _make_device(dev_type, dev_id)

    def cpu(self, dev_id: int = 0):
        return _cpu(dev_id)

    def cuda(self, dev_id: int = 0):
        return _cuda(dev_id)

    gpu = cuda

    def cl(self, dev_id: int = 0):
        return _cl(dev_id)

    def close(self) -> None:
        """Remove the session's directory."""
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        shutil.rmtree(getattr(self, "_dir", ""), ignore_errors=True)


class LocalSession(RPCSession):
    """TVM's ``rpc.LocalSession()``: an RPC session whose device is this machine."""


def _no_rpc(what: str):
    raise TepadError(f"rpc.{what}: tepad has no RPC client or server (remote devices are out "
                     "of its scope); to run on this machine use rpc.LocalSession(), which "
                     "takes the same upload / load_module / cpu() calls")


def connect(url, port, key="", session_timeout=0, session_constructor_args=None,
            enable_logging=False):
    """TVM's ``rpc.connect``: refused with a TepadError (see the module docstring)."""
    _no_rpc(f"connect({url!r}, {port!r})")


def connect_tracker(url, port):
    """TVM's ``rpc.connect_tracker``: refused with a TepadError (see the module docstring)."""
    _no_rpc(f"connect_tracker({url!r}, {port!r})")


__all__ = ["RPCSession", "LocalSession", "connect", "connect_tracker"]
