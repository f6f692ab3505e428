"""Values a hybrid script works with while it is parsed: arrays (inputs, outputs,
temporaries), and Python numbers, lists and target facts turned into expressions."""
from __future__ import annotations

import numpy as np

from ...errors import TepadError
from ...target import Target
from ...tir import dtype as dt
from ...tir.buffer import Buffer
from ...tir.expr import ConstExpr, PrimExpr, const, convert


class Array:
    """An array the script reads or writes: an input tensor's buffer, an output, or a
    temporary (``flat``: a one-dimensional allocation indexed row-major)."""

    def __init__(self, name, buffer: Buffer, shape, dtype, kind, flat=False):
        self.name, self.buffer, self.kind, self.flat = name, buffer, kind, flat
        self.shape = tuple(convert(d) for d in shape)
        self.dtype = dtype

    def index(self, idx, where):
        if len(idx) != len(self.shape):
            raise TepadError(f"{where}: {self.name} has {len(self.shape)} dimensions, indexed "
                             f"with {len(idx)}")
        idx = [convert(i) for i in idx]
        for i in idx:
            if not dt.is_int(i.dtype):
                raise TepadError(f"{where}: index {i!r} of {self.name} is not an integer")
        if not self.flat:
            return idx
        flat = idx[0]
        for d, i in zip(self.shape[1:], idx[1:]):
            flat = flat * d + i
        return [flat]


def literal(v):
    """A Python number as TVM's hybrid parser types it (int -> int32, or int64 when it does
    not fit; float -> float32; numpy scalars keep their dtype); expressions unchanged."""
    if isinstance(v, PrimExpr):
        return v
    if isinstance(v, (bool, np.bool_)):
        return const(bool(v))
    if isinstance(v, np.generic):
        return const(v.item(), v.dtype.name)
    if isinstance(v, int):
        return const(v, "int32" if -2 ** 31 <= v < 2 ** 31 else "int64")
    if isinstance(v, float):
        return const(v, "float32")
    return convert(v)


def max_num_threads(args):
    """``max_num_threads(allow_none=True)``: the current target's (``with Target(...)``)
    threads per block; without a target, 1 when ``allow_none`` (TVM's hybrid intrinsic)."""
    allow_none = bool(args[0].value if isinstance(args[0], ConstExpr) else args[0]) \
        if args else True
    target = Target.current(allow_none)
    return 1 if target is None else target.max_num_threads


def constant(v):
    """A captured number, expression or (nested) list/tuple of them as expressions; None for
    anything else."""
    if isinstance(v, (bool, int, float, np.generic, PrimExpr)):
        return literal(v)
    if isinstance(v, (list, tuple)):
        out = [constant(x) for x in v]
        return None if any(x is None for x in out) else out
    return None


__all__ = ["Array", "literal", "constant", "max_num_threads"]
