"""TVM's own auto_scheduler step records, read into tepad's steps.

A TVM log line stores a state as ``[[], [step, ...]]`` with every step naming its stage and
loops by position: ``["SP", stage_id, iter_id, extent, [lengths], inner_to_outer]``,
``["CA", stage_id, target_stage_id, target_iter_id]``, ``["AN", stage_id, iter_id,
annotation]`` (an enum), ``["PR", stage_id, iter_id, "name$value"]`` ... Positions refer to
TVM's stage list (the DAG's operations in the order of TVM's ``TopoSortOps``, with cache
stages inserted as they are made) and to each stage's current loop list, so reading them
means replaying how each step changes those lists. :func:`from_tvm_steps` does that over a
:class:`ComputeDAG` and returns the same schedule as tepad's name-based steps (see
``loop_state``), which ``apply_steps`` replays.

Read: ``CI``, ``CR``, ``SP`` (outer-to-inner lengths, TVM's default), ``FSP``, ``FFSP`` (as a
factor), ``RE``, ``FU``, ``AN``, ``PR``, ``CA``, ``CHR``, ``CHW``. Others (``RF``, ``SA``,
``FSP`` of a split whose lengths are unknown) are a TepadError naming the step.
"""
from __future__ import annotations

import heapq

from ..errors import TepadError
from ..tensor.tensor import PlaceholderOp

#: TVM's IteratorAnnotation enum, by value
ANNOTATIONS = {0: None, 1: "unroll", 2: "vectorize", 3: "parallel", 4: "vthread",
               5: "blockIdx.x", 6: "threadIdx.x", 7: "blockIdx.y", 8: "threadIdx.y",
               9: "blockIdx.z", 10: "threadIdx.z"}


def is_tvm_state(raw) -> bool:
    """Whether a log line's state (``row["i"][1]``) is TVM's ``[[stages], [steps]]`` rather
    than tepad's list of steps (each a list starting with its kind)."""
    return (isinstance(raw, list) and len(raw) == 2 and isinstance(raw[0], list)
            and isinstance(raw[1], list) and (not raw[0] or not isinstance(raw[0][0], str)))


def is_tvm_steps(steps) -> bool:
    """Whether ``steps`` name stages by position (TVM's records) rather than by name."""
    return any(len(s) > 1 and isinstance(s[1], int) and not isinstance(s[1], bool)
               for s in steps if isinstance(s, (list, tuple)) and s and s[0] != "SKETCH")


def tvm_stage_order(dag) -> list:
    """The DAG's operations in TVM's ``TopoSortOps`` order: a depth-first walk from the
    outputs numbers the operations, then a topological order takes, among the ready ones,
    the highest number first."""
    priority, inputs, by_id = {}, {}, {}
    stack = [t.op for t in dag.tensors]
    while stack:
        op = stack.pop()
        if id(op) in priority:
            continue
        priority[id(op)] = len(priority)
        by_id[id(op)] = op
        ins = [] if isinstance(op, PlaceholderOp) else list(op.input_tensors)
        inputs[id(op)] = ins
        stack.extend(t.op for t in ins)
    degree = {k: len(v) for k, v in inputs.items()}
    users = {}
    for k, ins in inputs.items():
        for t in ins:
            users.setdefault(id(t.op), []).append(k)
    ready = [(-priority[k], k) for k, d in degree.items() if d == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, k = heapq.heappop(ready)
        order.append(by_id[k])
        for u in users.get(k, []):
            degree[u] -= 1
            if degree[u] == 0:
                heapq.heappush(ready, (-priority[u], u))
    return order


class _Stage:
    def __init__(self, name, loops, op=None):
        self.name, self.loops, self.op = name, list(loops), op


def _loop_names(op) -> list:
    if isinstance(op, PlaceholderOp):
        return []
    return [iv.var.name for iv in list(op.axis) + list(op.reduce_axis)]


def from_tvm_steps(dag, steps) -> list:
    """tepad's steps for TVM's position-based ``steps`` over ``dag``."""
    stages = [_Stage(dag.name_of(op), _loop_names(op), op) for op in tvm_stage_order(dag)]
    out = []

    def stage(k, step):
        if not isinstance(k, int) or not 0 <= k < len(stages):
            raise TepadError(f"TVM step {step}: no stage {k!r}; the DAG has {len(stages)} "
                             f"stages ({[s.name for s in stages]})")
        return stages[k]

    def loop(st, k, step):
        if not isinstance(k, int) or not 0 <= k < len(st.loops):
            raise TepadError(f"TVM step {step}: stage {st.name!r} has no loop {k!r}; its "
                             f"loops are {st.loops}")
        return st.loops[k]

    def split(st, k, lengths, step):
        if any(not isinstance(f, int) or f < 1 for f in lengths):
            raise TepadError(f"TVM step {step}: split lengths must be known positive ints, "
                             f"got {lengths}")
        name = loop(st, k, step)
        st.loops[k:k + 1] = [f"{name}.{j}" for j in range(len(lengths) + 1)]
        out.append(["SP", st.name, name, list(lengths)])

    for step in steps:
        step = list(step)
        kind = step[0] if step else None
        if kind == "CI":
            out.append(["CI", stage(step[1], step).name])
        elif kind == "CR":
            out.append(["CR", stage(step[1], step).name])
        elif kind == "SP":
            _, sid, it, _extent, lengths, inner_to_outer = step
            if not inner_to_outer:
                raise TepadError(f"TVM step {step}: a split with inner_to_outer=0 (lengths "
                                 "from the outside in) is not read")
            split(stage(sid, step), it, lengths, step)
        elif kind == "FSP":
            _, sid, it, src, n_split = step
            src_step = steps[src] if isinstance(src, int) and 0 <= src < len(steps) else None
            if not src_step or src_step[0] != "SP" or n_split > len(src_step[4]) + 1:
                raise TepadError(f"TVM step {step}: step {src} is not a split of at least "
                                 f"{n_split - 1} lengths")
            src_len = list(src_step[4])
            lengths = src_len[:n_split - 1]
            last = 1
            for f in src_len[n_split - 1:]:
                last = None if (f is None or last is None) else last * f
            split(stage(sid, step), it, lengths + [last], step)
        elif kind == "FFSP":
            _, sid, it, src_ids, level, factor_or_nparts = step
            if not factor_or_nparts:
                raise TepadError(f"TVM step {step}: a follow-fused split by nparts is not "
                                 "read")
            length = 1
            for src in src_ids:
                length *= steps[src][4][level]
            split(stage(sid, step), it, [length], step)
        elif kind == "RE":
            st = stage(step[1], step)
            if sorted(step[2]) != list(range(len(st.loops))):
                raise TepadError(f"TVM step {step}: the order must name every loop of "
                                 f"{st.name!r} once ({len(st.loops)} loops)")
            st.loops = [loop(st, k, step) for k in step[2]]
            out.append(["RE", st.name, list(st.loops)])
        elif kind == "FU":
            st = stage(step[1], step)
            ids = list(step[2])
            if not ids or ids != list(range(ids[0], ids[0] + len(ids))):
                raise TepadError(f"TVM step {step}: fuse needs consecutive loops")
            names = [loop(st, k, step) for k in ids]
            st.loops[ids[0]:ids[-1] + 1] = ["@".join(names)]
            out.append(["FU", st.name, names])
        elif kind == "AN":
            st = stage(step[1], step)
            ann = ANNOTATIONS.get(step[3], "?")
            if ann == "?":
                raise TepadError(f"TVM step {step}: annotation {step[3]} is not read (known: "
                                 f"{ANNOTATIONS})")
            if ann is not None:
                out.append(["AN", st.name, loop(st, step[2], step), ann])
        elif kind == "PR":
            st = stage(step[1], step)
            name, _, value = str(step[3]).partition("$")
            out.append(["PR", st.name, loop(st, step[2], step), name,
                        int(value) if value.lstrip("-").isdigit() else value])
        elif kind == "CA":
            st, target = stage(step[1], step), stage(step[2], step)
            out.append(["CA", st.name, target.name, loop(target, step[3], step)])
        elif kind == "CHR":
            _, sid, scope, readers = step
            st = stage(sid, step)
            names = [stage(r, step).name for r in readers]
            new = f"{st.name}.{scope}"
            ndim = len(st.op.output(0).shape) if st.op is not None else 0
            stages.insert(sid + 1, _Stage(new, [f"ax{d}" for d in range(ndim)]))
            out.append(["CHR", st.name, scope, names])
        elif kind == "CHW":
            _, sid, scope = step
            st = stage(sid, step)
            if st.op is None:
                raise TepadError(f"TVM step {step}: cache_write of a cache stage is not read")
            new = f"{st.name}.{scope}"
            stages.insert(sid, _Stage(new, _loop_names(st.op)))
            st.loops = [iv.var.name for iv in st.op.axis]
            out.append(["CHW", st.name, scope])
        else:
            raise TepadError(f"TVM step {step}: kind {kind!r} is not read (read: CI, CR, SP, "
                             "FSP, FFSP, RE, FU, AN, PR, CA, CHR, CHW)")
    return out


__all__ = ["is_tvm_state", "is_tvm_steps", "tvm_stage_order", "from_tvm_steps", "ANNOTATIONS"]
