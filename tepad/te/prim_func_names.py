"""TVM 0.8's ``te.create_prim_func_from_outputs``: ``create_prim_func`` with the arguments
gathered from the outputs (every placeholder they read, in first-read order, then the
outputs)."""
from __future__ import annotations

from ..errors import TepadError
from ..lower.create_prim_func import create_prim_func
from ..tensor import PlaceholderOp, Tensor


def create_prim_func_from_outputs(outputs):
    """A PrimFunc of blocks computing ``outputs`` (a Tensor or a list of them), its
    arguments the placeholders they read followed by the outputs."""
    outs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    for t in outs:
        if not isinstance(t, Tensor):
            raise TepadError(f"create_prim_func_from_outputs: expected tensors, got {t!r}")
    inputs, seen = [], set()

    def walk(t):
        if t.op in seen:
            return
        seen.add(t.op)
        if isinstance(t.op, PlaceholderOp):
            inputs.append(t)
            return
        for x in t.op.input_tensors:
            walk(x)
    for t in outs:
        walk(t)
    return create_prim_func(inputs + [t for t in outs if t not in inputs])


__all__ = ["create_prim_func_from_outputs"]
