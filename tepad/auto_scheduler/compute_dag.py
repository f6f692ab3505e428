"""The computation a search works on (TVM's ``auto_scheduler.ComputeDAG``): the operations
of a workload's tensors in topological order, which of them are outputs, who consumes whom,
and the two things done with a state's steps: a schedule (``apply_steps_from_state``) and
the equivalent Python schedule code (``print_python_code_from_state``)."""
from __future__ import annotations

import hashlib
import json

from ..errors import TepadError
from ..tensor.tensor import ComputeOp, PlaceholderOp, Tensor
from ..tir.reduce import Reduce
from .loop_state import State, apply_steps


class ComputeDAG:
    """``ComputeDAG(tensors)``: ``tensors`` as a workload returns them (inputs and outputs,
    in the order of the built function's arguments). Stage names are the operations' names
    and must be unique."""

    def __init__(self, compute):
        if isinstance(compute, Tensor):
            compute = [compute]
        tensors = list(compute) if isinstance(compute, (list, tuple)) else None
        if not tensors or not all(isinstance(t, Tensor) for t in tensors):
            raise TepadError(f"ComputeDAG: expects a list of Tensors (a workload's inputs and "
                             f"outputs), got {compute!r}")
        self.tensors = tensors
        self.ops = []
        seen = set()

        def visit(op):
            if id(op) in seen:
                return
            seen.add(id(op))
            for t in op.input_tensors:
                visit(t.op)
            self.ops.append(op)

        for t in tensors:
            visit(t.op)
        self._names = _stage_names(self.ops)
        self.op_by_name = {self._names[id(op)]: op for op in self.ops}
        self.output_ops = [t.op for t in tensors if not isinstance(t.op, PlaceholderOp)]
        if not self.output_ops:
            raise TepadError("ComputeDAG: the tensors include no computed tensor; list the "
                             "outputs after the inputs")
        self.consumers = {self.name_of(op): [] for op in self.ops}
        for op in self.ops:
            for t in op.input_tensors:
                if op not in self.consumers[self.name_of(t.op)]:
                    self.consumers[self.name_of(t.op)].append(op)
        self.flop_ct = float(sum(_flops(op) for op in self.ops))

    def name_of(self, op) -> str:
        """The stage name of ``op``: its operation's name, or, for the second and later
        operations sharing a name (TVM's topi names many stages "compute"), that name with
        ``_1``, ``_2``, .. appended (in topological order)."""
        name = self._names.get(id(op))
        if name is None or self.op_by_name.get(name) is not op:
            # keyed by id(): a DAG read back by load_json has new objects, so rebuild
            self._names = {id(o): n for n, o in self.op_by_name.items()}
            name = self._names.get(id(op))
            if name is None:
                raise TepadError(f"ComputeDAG: operation {getattr(op, 'name', op)!r} is not "
                                 f"one of its stages {sorted(self.op_by_name)}")
        return name

    @property
    def compute_ops(self) -> list:
        return [op for op in self.ops if isinstance(op, ComputeOp)]

    def is_output(self, op) -> bool:
        return any(op is o for o in self.output_ops)

    def workload_key(self) -> str:
        """A key for a DAG that was not made from a registered workload: its printed form."""
        digest = hashlib.md5(str(self).encode()).hexdigest()
        return json.dumps([digest])

    def get_init_state(self):
        return State([])

    def apply_steps_from_state(self, state, layout_rewrite=None):
        """``(schedule, tensors)`` for ``state``'s steps (``layout_rewrite`` is accepted for
        TVM's signature and ignored: a state that packs an input does it in its own steps,
        a transform stage inside the function, TVM's ``INSERT_TRANSFORM_STAGE``)."""
        return apply_steps(self, state.steps, emit_code=False)[:2]

    def print_python_code_from_state(self, state) -> str:
        return apply_steps(self, state.steps, emit_code=True)[2]

    def __str__(self):
        lines = []
        for op in self.ops:
            if isinstance(op, PlaceholderOp):
                shape = ", ".join(str(d) for d in op.shape)
                lines.append(f"{self.name_of(op)} = PLACEHOLDER [{shape}]")
            elif isinstance(op, ComputeOp):
                axes = ", ".join(iv.var.name for iv in op.axis)
                for i, body in enumerate(op.body):
                    name = self.name_of(op) if len(op.body) == 1 else f"{self.name_of(op)}.v{i}"
                    lines.append(f"{name}({axes}) {_body_str(body)}")
            else:
                lines.append(f"{self.name_of(op)} = {type(op).__name__}")
        return "\n".join(lines) + "\n"

    __repr__ = __str__


def _stage_names(ops) -> dict:
    """``{id(op): unique stage name}`` (see ``ComputeDAG.name_of``)."""
    taken = {op.name for op in ops}
    used, out, counts = set(), {}, {}
    for op in ops:
        name = op.name
        if name in used:
            k = counts.get(name, 0)
            while True:
                k += 1
                cand = f"{name}_{k}"
                if cand not in taken and cand not in used:
                    break
            counts[name] = k
            name = cand
        used.add(name)
        out[id(op)] = name
    return out


def _body_str(body) -> str:
    if isinstance(body, Reduce):
        comb = getattr(body.combiner, "name", "") or ""
        src = body.source[body.value_index] if body.source else body
        op = {"sum": "+=", "max": "max=", "min": "min="}.get(comb)
        if op:
            return f"{op} {src}"
    return f"= {body}"


def _extent(iv) -> int:
    try:
        return int(iv.dom.extent)
    except (TypeError, AttributeError, ValueError):
        return 1


def _flops(op) -> int:
    if not isinstance(op, ComputeOp):
        return 0
    given = (op.attrs or {}).get("FLOP")      # a stage whose loop extents are data-dependent
    if given is not None:
        return int(given)
    n = 1
    for iv in list(op.axis) + list(op.reduce_axis):
        n *= _extent(iv)
    return n * max(1, len(op.body))

