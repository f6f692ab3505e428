"""Physical arrays for kernels whose arguments have a ``transform_layout`` (fuzzer side).

The helpers are kept as *source text* (``HELPERS``) so that the runner and the reproducer
scripts (``Case.script()``) use literally the same code: the runner ``exec``s it, the script
embeds it. They only use the public ``tepad.layout`` API and numpy.

* ``to_kernel(stage, logical)``: the physical array for an input. Logical elements go where
  the stage's maps send them; padding cells introduced by a map whose ``pad_value`` is a
  number hold that number (the kernel may rely on it); every other padding cell (``pad_value``
  None or ``tir.undef``) holds a loud sentinel, so a kernel that reads "never read" padding
  gives wrong numbers.
* ``new_output(stage, logical_shape, dtype, rng)``: a random physical output array.
* ``from_kernel(stage, physical, logical_shape)``: ``(logical array, problem or None)``, where
  the problem says which padding cells do not hold the promised ``pad_value``.
"""
from __future__ import annotations

import numpy as np

from .arrays import random_array

HELPERS = r'''
def _pad_number(p):
    v = getattr(p, "value", p)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return v


def _sentinel(dtype):
    dtype = str(dtype)
    if dtype.startswith("float"):
        return 7777.0
    return 99 if dtype == "int8" else 77777


def layout_regions(stage, logical_shape):
    """Label per physical cell: -1 = logical element, k = padding introduced by map k."""
    from tepad.layout import physical_shape, to_physical
    maps = list(stage.layout_transforms)
    logical_shape = tuple(int(x) for x in logical_shape)
    boxes = [logical_shape]
    for k in range(len(maps)):
        boxes.append(physical_shape(logical_shape, maps[:k + 1]))
    label = np.full(boxes[-1], len(maps) - 1, dtype=np.int64)
    for k in range(len(maps) - 1, -1, -1):
        hit = to_physical(np.ones(boxes[k], np.int8), maps[k:], pad_value=0).astype(bool)
        label[hit] = k - 1
    return label


def to_kernel(stage, logical):
    """The physical array the kernel takes for this (input) stage."""
    from tepad.layout import to_physical
    maps = list(stage.layout_transforms)
    if not maps:
        return logical
    out = to_physical(logical, maps, pad_value=0)
    label = layout_regions(stage, logical.shape)
    for k, pad in enumerate(stage.pad_values):
        num = _pad_number(pad)
        out[label == k] = num if num is not None else _sentinel(logical.dtype)
    return np.ascontiguousarray(out)


def new_output(stage, logical_shape, dtype, rng):
    from tepad.layout import physical_shape
    maps = list(stage.layout_transforms)
    shape = physical_shape(logical_shape, maps) if maps else tuple(logical_shape)
    return random_array(rng, shape, dtype)


def from_kernel(stage, physical, logical_shape):
    """(logical view, None or a description of padding that breaks its pad_value)."""
    from tepad.layout import from_physical
    maps = list(stage.layout_transforms)
    if not maps:
        return physical, None
    got = from_physical(physical, maps, logical_shape)
    label = layout_regions(stage, logical_shape)
    for k, pad in enumerate(stage.pad_values):
        num = _pad_number(pad)
        if num is None:
            continue
        cells = physical.reshape(label.shape)[label == k]
        want = np.asarray(num).astype(physical.dtype)
        bad = int(np.sum(cells != want))
        if bad:
            return got, (f"{bad} of {cells.size} padding cells of map {k} do not hold "
                         f"pad_value {num}")
    return got, None
'''


def namespace():
    """The helpers, executed (with ``np`` and ``random_array``) in a fresh dict."""
    ns = {"np": np, "random_array": random_array}
    exec(HELPERS, ns)
    return ns


__all__ = ["HELPERS", "namespace"]
