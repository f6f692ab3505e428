"""TVM's ``tvm.runtime`` base names that tepad's Python classes stand in for: ``Object`` (the
base of every IR node, tensor, schedule and module: an ABC the tepad classes are registered
with, so ``isinstance(x, tvm.runtime.Object)`` holds), ``PackedFunc`` (any Python callable is
one; ``PackedFunc(f)`` wraps ``f``), ``ObjectTypes``, ``convert_to_object``,
``num_threads`` and ``nd.from_dlpack``."""
from __future__ import annotations

import abc

import numpy as np

from ..codegen.threads import default_num_threads
from ..errors import TepadError
from ..ir import IRModule
from ..runtime import Module, NDArray, convert
from ..runtime import ndarray as _nd
from ..schedule import Schedule, Stage
from ..tensor import Operation, Tensor, TensorIntrin
from ..tir import Buffer, CommReducer, IterVar, PrimFunc, Range
from ..tir.expr import Node


class Object(abc.ABC):
    """TVM's root object class: tepad's IR nodes (expressions, statements), Buffer, IterVar,
    Range, CommReducer, PrimFunc, IRModule, Tensor, Operation, TensorIntrin, Schedule and
    Stage are registered as its subclasses."""


for _cls in (Node, Buffer, IterVar, Range, CommReducer, PrimFunc, IRModule, Tensor, Operation,
             TensorIntrin, Schedule, Stage):
    Object.register(_cls)


class PackedFunc(abc.ABC):
    """TVM's type-erased function. In tepad every Python callable is one
    (``isinstance(f, PackedFunc)`` holds for functions, bound methods and callable objects,
    not for classes); ``PackedFunc(f)`` wraps a callable, for code that constructs one."""

    def __init__(self, f=None):
        if f is not None and not callable(f):
            raise TepadError(f"PackedFunc: {f!r} is not callable")
        self._f = f

    def __call__(self, *args):
        if self._f is None:
            raise TepadError("PackedFunc: this function wraps nothing")
        return self._f(*args)

    @classmethod
    def __subclasshook__(cls, C):
        if cls is PackedFunc and not issubclass(C, type) and \
                any("__call__" in B.__dict__ for B in C.__mro__):
            return True
        return NotImplemented


ObjectTypes = (Object, NDArray, Module, PackedFunc)


def convert_to_object(value):
    """``value`` as a tepad object (``tvm.runtime.convert``: numbers become constants, lists
    and dicts Arrays and Maps)."""
    return convert(value)


def num_threads() -> int:
    """The threads a parallel loop runs on (``TEPAD_NUM_THREADS``, else the CPU count)."""
    return default_num_threads()


def from_dlpack(dltensor) -> NDArray:
    """An NDArray holding a copy of any DLPack producer's data (a PyTorch / JAX / CuPy
    tensor or a numpy array) on the CPU: numpy's ``from_dlpack`` reads it."""
    try:
        arr = np.from_dlpack(dltensor)
    except (TypeError, BufferError, RuntimeError) as e:
        raise TepadError(f"nd.from_dlpack: cannot read {type(dltensor).__name__} through "
                         f"DLPack on the CPU ({e})") from None
    return _nd.array(np.array(arr))


__all__ = ["Object", "PackedFunc", "ObjectTypes", "convert_to_object", "num_threads",
           "from_dlpack"]
