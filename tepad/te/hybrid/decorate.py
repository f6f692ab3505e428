"""``@te.hybrid.script``: the decorator that makes a hybrid script function (see the
package's docstring)."""
from __future__ import annotations

import functools

import numpy as np

from ...errors import TepadError
from ...tensor.tensor import Tensor
from ...tir.expr import PrimExpr
from . import runtime
from .parser import parse


def _is_te_argument(a):
    if isinstance(a, (list, tuple)):
        return any(_is_te_argument(x) for x in a)
    return isinstance(a, (Tensor, PrimExpr))


def script(pyfunc):
    """Decorate a hybrid script function (TVM's ``te.hybrid.script``): called with
    te.Tensors / expressions it builds a HybridOp and returns its output tensor(s); called
    with numpy arrays and numbers it runs as Python and returns what the function returns."""
    if not callable(pyfunc):
        raise TepadError(f"te.hybrid.script decorates a function, got {pyfunc!r}")

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        if any(_is_te_argument(a) for a in args) or \
                any(_is_te_argument(v) for v in kwargs.values()):
            if kwargs:
                raise TepadError(f"hybrid script {pyfunc.__name__}: pass its arguments by "
                                 "position when calling it with tensors")
            return parse(pyfunc, args)
        for a in args:
            if not isinstance(a, (np.ndarray, np.generic, int, float, bool, list, tuple)):
                raise TepadError(f"hybrid script {pyfunc.__name__}: argument {a!r} is neither "
                                 "a te.Tensor / expression nor a numpy array or number")
        return runtime.run(pyfunc, args, kwargs)
    wrapped.hybrid_function = pyfunc
    return wrapped


__all__ = ["script"]
