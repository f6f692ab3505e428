"""TVM's ``tvm.contrib.ndk``: ``create_shared(output, objects, options=None)`` links object
files with the Android NDK's standalone compiler named by ``$TVM_NDK_CC`` (TVM's contract).

tepad compiles for the host CPU, so a library linked this way is for running elsewhere; the
module exists so that programs which import it (or pass ``ndk.create_shared`` as a
``fcompile`` hook without calling it) run unchanged."""
from __future__ import annotations

import os

from ..errors import TepadError
from ..runtime.library import create_shared as _create_shared

#: the environment variable naming the NDK compiler (as in TVM)
ENV = "TVM_NDK_CC"


def create_shared(output, objects, options=None) -> None:
    """Link ``objects`` into the shared library ``output`` with ``$TVM_NDK_CC``; raises
    TepadError when the variable is unset or the link fails."""
    cc = os.environ.get(ENV)
    if not cc:
        raise TepadError(f"contrib.ndk.create_shared: set ${ENV} to the Android NDK's "
                         "standalone compiler to link for Android (tepad itself builds for "
                         "the host; use tvm.contrib.cc.create_shared there)")
    _create_shared(output, objects, options=options, cc=cc)


create_shared.output_format = "so"

__all__ = ["create_shared", "ENV"]
