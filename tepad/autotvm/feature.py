"""Loop features of a lowered schedule, for the cost model of ``XGBTuner``
(TVM's ``autotvm.feature``, with tepad's own fixed-length encoding).

The lowered function is walked from the outermost loop down; the loops on the way to every
store are kept, outermost first. For each of the ``MAX_LOOPS`` innermost ones of the deepest
nest the feature vector holds ``log2`` of its extent, its kind (serial, parallel, vectorized,
unrolled; one-hot), ``log2`` of the iterations inside it, and, over the buffer accesses in its
body, how many have stride 0 (reuse), stride 1 (contiguous) and a larger stride along it, and
the log2 of the largest stride. A few whole-function counts follow (stores, loads, loops).
"""
from __future__ import annotations

import math

import numpy as np

from ..lower.pipeline import lower
from ..tir.expr import (Add, Sub, Mul, FloorDiv, FloorMod, Div, Mod, Min, Max, IntImm, Var,
                        BufferLoad, Cast, Ramp, Broadcast)
from ..tir.functor import Visitor, post_order_visit
from ..tir.stmt import For, ForKind, BufferStore

MAX_LOOPS = 8
PER_LOOP = 1 + 4 + 1 + 4
_KINDS = [ForKind.SERIAL, ForKind.PARALLEL, ForKind.VECTORIZED, ForKind.UNROLLED]


def _eval(e, env):
    """The integer value of index ``e`` with loop vars from ``env`` (others 0); None when ``e``
    is not plain integer arithmetic."""
    if isinstance(e, IntImm):
        return int(e.value)
    if isinstance(e, Var):
        return env.get(e, 0)
    if isinstance(e, Cast):
        return _eval(e.value, env)
    if isinstance(e, Ramp):
        return _eval(e.base, env)
    if isinstance(e, Broadcast):
        return _eval(e.value, env)
    ops = {Add: lambda a, b: a + b, Sub: lambda a, b: a - b, Mul: lambda a, b: a * b,
           FloorDiv: lambda a, b: a // b if b else 0, Div: lambda a, b: a // b if b else 0,
           FloorMod: lambda a, b: a % b if b else 0, Mod: lambda a, b: a % b if b else 0,
           Min: min, Max: max}
    f = ops.get(type(e))
    if f is None:
        return None
    a, b = _eval(e.a, env), _eval(e.b, env)
    return None if a is None or b is None else f(a, b)


def _extent(loop):
    return int(loop.extent.value) if isinstance(loop.extent, IntImm) else 1


def _accesses(node):
    """Flat indices of every buffer load and store under ``node``."""
    out = []

    def visit(n):
        if isinstance(n, (BufferLoad, BufferStore)) and len(n.indices) >= 1:
            out.append(n.indices[-1])
    post_order_visit(node, visit)
    return out


class _DeepestNest(Visitor):
    """The loops on the way down to each statement; ``best``: the first deepest path."""

    def __init__(self):
        self.path: list = []
        self.best: list = []

    def visit_For(self, loop):
        self.path.append(loop)
        if len(self.path) > len(self.best):
            self.best = list(self.path)
        self.generic_visit(loop)
        self.path.pop()


def _deepest_nest(stmt):
    """The loops from the outermost to the innermost of the deepest loop nest of ``stmt``."""
    walk = _DeepestNest()
    walk.visit(stmt)
    return walk.best


def loop_features(func) -> np.ndarray:
    """The feature vector of a lowered PrimFunc (length ``MAX_LOOPS * PER_LOOP + 3``)."""
    loops = _deepest_nest(func.body)[-MAX_LOOPS:]
    fea = np.zeros((MAX_LOOPS, PER_LOOP), dtype=np.float32)
    inner = 1
    for slot, loop in zip(range(MAX_LOOPS - 1, -1, -1), reversed(loops)):
        ext = _extent(loop)
        row = fea[slot]
        row[0] = math.log2(ext + 1)
        kind = loop.kind if loop.kind in _KINDS else ForKind.SERIAL
        row[1 + _KINDS.index(kind)] = 1
        inner *= ext
        row[5] = math.log2(inner + 1)
        zero = one = big = 0
        largest = 0
        for idx in _accesses(loop.body):
            a, b = _eval(idx, {loop.loop_var: 1}), _eval(idx, {})
            if a is None or b is None:
                continue
            stride = abs(a - b)
            largest = max(largest, stride)
            if stride == 0:
                zero += 1
            elif stride == 1:
                one += 1
            else:
                big += 1
        row[6:10] = [zero, one, big, math.log2(largest + 1)]
    stores, loads, n_loops = [0], [0], [0]

    def count(n):
        if isinstance(n, BufferStore):
            stores[0] += 1
        elif isinstance(n, BufferLoad):
            loads[0] += 1
        elif isinstance(n, For):
            n_loops[0] += 1
    post_order_visit(func.body, count)
    return np.concatenate([fea.ravel(), np.array([stores[0], loads[0], n_loops[0]],
                                                 dtype=np.float32)])


def get_itervar_feature_flatten(sch, args, take_log=True) -> np.ndarray:
    """The loop features of schedule ``sch`` over ``args`` (lowered with ``tepad.lower``)."""
    return loop_features(lower(sch, args)["main"])


def config_features(task, config) -> np.ndarray:
    """The loop features of ``task`` instantiated under ``config``."""
    s, args = task.instantiate(config)
    return get_itervar_feature_flatten(s, args)
