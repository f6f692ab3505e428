"""TVM's ``topi.cuda`` versions of the extern operators (``topi.cuda.dft``, ``stft``,
``scatter_elements``, ``sparse_reshape``, ``scanop``): the generic operators, built as for
a CUDA target even when called outside ``with Target("cuda")`` (their kernels then bind
GPU threads), as TVM's cuda functions always emit GPU code."""
from __future__ import annotations

import functools

from ..target import Target
from .scan import scanop as _scanop
from .scatter_elements import scatter_elements as _scatter_elements
from .signal import dft as _dft, stft as _stft
from .sparse_reshape import sparse_reshape as _sparse_reshape


def _for_gpu(fn):
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        cur = Target.current()
        if cur is not None and ("cuda" in cur.keys or "gpu" in cur.keys):
            return fn(*args, **kwargs)
        with Target("cuda"):
            return fn(*args, **kwargs)
    wrapped.__doc__ = (f"TVM's ``topi.cuda.{fn.__name__}``: ``topi.{fn.__name__}`` built for "
                       "a CUDA target (GPU threads bound even outside ``with Target``).\n\n"
                       + (fn.__doc__ or ""))
    return wrapped


dft = _for_gpu(_dft)
stft = _for_gpu(_stft)
scatter_elements = _for_gpu(_scatter_elements)
sparse_reshape = _for_gpu(_sparse_reshape)
scanop = _for_gpu(_scanop)

__all__ = ["dft", "stft", "scatter_elements", "sparse_reshape", "scanop"]
