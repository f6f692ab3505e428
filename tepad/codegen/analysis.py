"""Facts about TIR that code generation needs before or while emitting it: the kernel's shape
variables, a statement's free variables, static work estimates, reduction updates."""
from __future__ import annotations

from .. import tir
from ..tir import dtype as dt


def shape_vars(func: tir.PrimFunc) -> list:
    """Symbolic shape variables of the argument buffers, in the kernel's argument order;
    variables that are themselves parameters (scalar arguments) are not repeated."""
    out, seen = [], set(p for p in func.params if p not in func.buffer_map)
    for p in func.params:
        buf = func.buffer_map.get(p)
        if buf is None:
            continue
        for s in buf.shape:
            for v in _vars_in_order(s):
                if v not in seen:
                    seen.add(v)
                    out.append(v)
    return out


def _vars_in_order(e) -> list:
    out = []

    def f(n):
        if isinstance(n, tir.Var) and n not in out:
            out.append(n)
    tir.post_order_visit(e, f)
    return out


def _count_loads(e) -> int:
    n = []

    def f(x):
        if isinstance(x, tir.BufferLoad):
            n.append(dt.lanes(tir.convert(x.indices[0]).dtype) if len(x.indices) == 1 else 1)
    tir.post_order_visit(e, f)
    return sum(n)


def static_work(s) -> int | None:
    """Compile-time estimate of a statement's work: element loads and stores, multiplied by
    the extents of the loops around them; None when some loop extent is not a constant."""
    if isinstance(s, tir.For):
        if not isinstance(s.extent, tir.IntImm):
            return None
        w = static_work(s.body)
        return None if w is None else int(s.extent.value) * w
    if isinstance(s, tir.SeqStmt):
        total = 0
        for x in s.seq:
            w = static_work(x)
            if w is None:
                return None
            total += w
        return total
    if isinstance(s, tir.BufferStore):
        lanes = dt.lanes(tir.convert(s.indices[0]).dtype) if len(s.indices) == 1 else 1
        return lanes + _count_loads(s.value)
    if isinstance(s, tir.IfThenElse):
        a = static_work(s.then_case)
        b = static_work(s.else_case) if s.else_case is not None else 0
        return None if a is None or b is None else 1 + _count_loads(s.condition) + a + b
    if isinstance(s, (tir.LetStmt, tir.AttrStmt, tir.Allocate, tir.AssertStmt)):
        w = static_work(s.body)
        return None if w is None else w + 1
    if isinstance(s, tir.Evaluate):
        return 1 + _count_loads(s.value)
    return None


def static_bytes(buf) -> int | None:
    """Bytes of a buffer whose physical shape is constant (None if symbolic or empty)."""
    n = dt.parse(buf.dtype).bytes * dt.lanes(buf.dtype)
    for d in buf.shape:
        if not isinstance(d, (int, tir.IntImm)):
            return None
        n *= int(d)
    return n or None


def reduction_update(store):
    """The ``Add``/``Mul`` node of ``X[i] = X[i] op v`` (or ``v op X[i]``), else None."""
    v = store.value
    if not isinstance(v, (tir.Add, tir.Mul)) or not dt.is_float(v.dtype):
        return None
    for side in (v.a, v.b):
        if isinstance(side, tir.BufferLoad) and side.buffer.data is store.buffer.data and \
                len(side.indices) == len(store.indices) and \
                all(tir.structural_equal(x, y) for x, y in zip(side.indices, store.indices)):
            return v
    return None


def is_contiguous(index) -> bool:
    """Whether a vector index is a stride-1 ``Ramp`` (one vector load/store)."""
    return isinstance(index, tir.Ramp) and isinstance(index.stride, tir.IntImm) and \
        int(index.stride.value) == 1
