"""Logical <-> physical numpy layouts for buffers with a ``transform_layout`` (RFC 0039/0077).

```python
import numpy as np
from tepad.layout import from_physical, to_physical
x = np.arange(14, dtype="float32")
p = to_physical(x, lambda i: [i // 4, i % 4], pad_value=0)   # shape (4, 4), p[3, 2:] == 0
y = from_physical(p, lambda i: [i // 4, i % 4], (14,))       # == x
```

``mapping`` is what ``Stage.transform_layout`` takes (a Python callable, possibly returning
``te.AXIS_SEPARATOR`` entries, which are ignored here), an ``IndexMap``, or a list of those
applied in order. The physical array has the transformed shape (``IndexMap.map_shape``; axis
separators do not change the element order: reshape to the grouped shape if needed).
"""
from __future__ import annotations

import numpy as np

from .errors import TepadError
from .tir import expr as E
from .arith.index_map import IndexMap


def _maps(mapping, ndim):
    if isinstance(mapping, (list, tuple)) and mapping and \
            all(isinstance(m, IndexMap) or callable(m) for m in mapping):
        out, nd = [], ndim
        for m in mapping:
            im = _maps(m, nd)[0]
            out.append(im)
            nd = im.ndim_out
        return out
    if isinstance(mapping, IndexMap):
        return [mapping]
    if callable(mapping):
        return [IndexMap.from_func(mapping, ndim)[0]]
    raise TepadError(f"layout mapping must be a callable or an IndexMap, got {mapping!r}")


def _eval(e, env):
    """Evaluate an integer index expression on numpy int64 arrays."""
    if isinstance(e, E.IntImm):
        return np.int64(e.value)
    if isinstance(e, E.Var):
        if e not in env:
            raise TepadError(f"layout mapping uses the free variable {e.name}; bind it first")
        return env[e]
    if isinstance(e, E.Cast):
        return _eval(e.value, env)
    if isinstance(e, E.BinaryOp) and not isinstance(e, (E.CmpOp, E.And, E.Or)):
        a, b = _eval(e.a, env), _eval(e.b, env)
        t = type(e)
        if t is E.Add: return a + b
        if t is E.Sub: return a - b
        if t is E.Mul: return a * b
        if t is E.FloorDiv: return np.floor_divide(a, b)
        if t is E.FloorMod: return np.mod(a, b)
        if t is E.Div: return np.trunc(np.true_divide(a, b)).astype(np.int64)
        if t is E.Mod: return np.fmod(a, b)
        if t is E.Min: return np.minimum(a, b)
        if t is E.Max: return np.maximum(a, b)
    if isinstance(e, E.Select):
        return np.where(_eval(e.condition, env), _eval(e.true_value, env),
                        _eval(e.false_value, env))
    if isinstance(e, E.And):
        return np.logical_and(_eval(e.a, env), _eval(e.b, env))
    if isinstance(e, E.Or):
        return np.logical_or(_eval(e.a, env), _eval(e.b, env))
    if isinstance(e, E.Not):
        return np.logical_not(_eval(e.a, env))
    if isinstance(e, E.CmpOp):
        a, b = _eval(e.a, env), _eval(e.b, env)
        return {E.EQ: np.equal, E.NE: np.not_equal, E.LT: np.less, E.LE: np.less_equal,
                E.GT: np.greater, E.GE: np.greater_equal}[type(e)](a, b)
    raise TepadError(f"cannot evaluate layout expression {e!r} with numpy")


def _int_shape(shape):
    out = []
    for s in shape:
        if not isinstance(s, E.IntImm):
            raise TepadError(f"physical shape {list(shape)} is not constant")
        out.append(int(s.value))
    return tuple(out)


def _forward(maps, logical_shape):
    """(physical shape, tuple of physical index arrays for every logical element)."""
    grids = np.indices(logical_shape, dtype=np.int64) if logical_shape else []
    idx = [g for g in grids]
    shape = [E.IntImm(int(s), "int32") for s in logical_shape]
    for m in maps:
        if m.ndim_in != len(idx):
            raise TepadError(f"layout map `{m}` takes {m.ndim_in} indices, the array has "
                             f"{len(idx)} dimensions")
        env = dict(zip(m.initial_indices, idx))
        new_idx = [np.broadcast_to(_eval(f, env), logical_shape) for f in m.final_indices]
        shape = m.map_shape(shape)
        idx = new_idx
    return _int_shape(shape), tuple(idx)


def physical_shape(logical_shape, mapping):
    """The transformed shape for ``logical_shape`` (ints)."""
    maps = _maps(mapping, len(logical_shape))
    shape = [E.IntImm(int(s), "int32") for s in logical_shape]
    for m in maps:
        shape = m.map_shape(shape)
    return _int_shape(shape)


def to_physical(array, mapping, pad_value=0):
    """The array in the transformed layout; padding holds ``pad_value``.

    ``pad_value`` may be a number, ``None`` (zeros), or a callable of the transformed index
    arrays returning an array/number (numpy semantics)."""
    a = np.asarray(array)
    maps = _maps(mapping, a.ndim)
    pshape, idx = _forward(maps, a.shape)
    out = np.zeros(pshape, dtype=a.dtype)
    if pad_value is not None:
        if callable(pad_value):
            grids = np.indices(pshape, dtype=np.int64)
            out[...] = np.asarray(pad_value(*grids), dtype=a.dtype)
        else:
            out[...] = pad_value
    hits = np.zeros(pshape, dtype=np.int64)
    np.add.at(hits, idx, 1)
    if (hits > 1).any():
        raise TepadError("layout mapping is not injective: several logical elements share one "
                         "physical location")
    out[idx] = a
    return out


def from_physical(array, mapping, logical_shape):
    """The logical array (shape ``logical_shape``) read from a transformed-layout array."""
    a = np.asarray(array)
    logical_shape = tuple(int(s) for s in logical_shape)
    maps = _maps(mapping, len(logical_shape))
    pshape, idx = _forward(maps, logical_shape)
    if a.shape != pshape:
        if int(np.prod(a.shape)) == int(np.prod(pshape)):
            a = a.reshape(pshape)        # the axis-separator grouped shape (same memory)
        else:
            raise ValueError(f"physical array has shape {a.shape}, expected {pshape}")
    return np.ascontiguousarray(a[idx])


__all__ = ["to_physical", "from_physical", "physical_shape"]
