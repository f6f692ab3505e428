"""``default_schedule(outs)``: the sketch rules with the target's analytical tile sizes and
no search."""
from __future__ import annotations

from ..errors import TepadError
from ..target import Target, current_target
from ..tensor.tensor import PlaceholderOp, Tensor
from .compute_dag import ComputeDAG
from .loop_state import apply_steps
from .gpu_sketch import make_sketch


def _with_inputs(outs) -> list:
    """The placeholders ``outs`` read (in first-use order), then ``outs``."""
    seen, inputs = set(), []

    def visit(op):
        if id(op) in seen:
            return
        seen.add(id(op))
        if isinstance(op, PlaceholderOp):
            inputs.append(op.output(0))
        for t in op.input_tensors:
            visit(t.op)

    for t in outs:
        visit(t.op)
    return inputs + list(outs)


def default_schedule(outs, target=None):
    """``(schedule, tensors)`` for ``outs`` (a Tensor or a list of output Tensors): the
    rule-made sketch (inlining, multi-level tiling, parallel outer loops, vectorized inner
    loops) with tile sizes derived from ``target`` (default: the current target, else
    ``llvm`` for the host). ``tensors`` are the placeholders read, then ``outs``."""
    if isinstance(outs, Tensor):
        outs = [outs]
    if not isinstance(outs, (list, tuple)) or not outs or \
            not all(isinstance(t, Tensor) for t in outs):
        raise TepadError(f"default_schedule: outs must be a Tensor or a list of Tensors, got "
                         f"{outs!r}")
    target = Target.canon_target(target) or current_target() or Target("llvm")
    dag = ComputeDAG(_with_inputs(outs))
    sketch = make_sketch(dag, target)
    s, args, _ = apply_steps(dag, sketch.steps(sketch.default_params()))
    return s, args
