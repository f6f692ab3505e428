"""Sketch states as custom sketch rules see and edit them (TVM's Python
``auto_scheduler.loop_state.State`` over a state object).

A ``SketchStateObject`` is a sketch under construction: the steps so far (``loop_state``'s
step encoding, where a split may leave factors ``None`` for the search to fill, and
``["FSP", stage, loop, src_step, n_split]`` splits a loop like an earlier split, TVM's
``follow_split``) and, per stage of the DAG (stage ids are positions in ``dag.ops``,
placeholders included, as in TVM), its loops in order and where it is computed (root,
inlined, or at a loop of another stage). ``StateView(state_object, dag)`` is the editing
face: ``stages``, ``s[stage].iters``, ``split``, ``follow_split``, ``reorder``, ``fuse``,
``compute_at``, ``compute_inline``, ``compute_root``, ``parallel`` / ``vectorize`` /
``unroll``, ``transform_steps`` and ``state_object`` (the edited copy, handed back to the
sketch generator). Every edit appends one step, so a step's index is what ``follow_split``
names.
"""
from __future__ import annotations

import copy

from ..errors import TepadError
from ..tensor.tensor import ComputeOp, Operation, Tensor


class IterView:
    """A loop of a stage: ``name``, ``iter_kind`` (0 spatial, 1 reduction, TVM's
    ``IteratorKind``), ``extent`` (an int where known before the search fills factors)."""

    SPATIAL, REDUCTION = 0, 1

    def __init__(self, name, iter_kind, extent=None, src=None):
        self.name, self.iter_kind, self.extent = name, iter_kind, extent
        self.src = src                  # (split step index, level) for a split's part

    @property
    def range(self):
        return (0, self.extent)

    def __repr__(self):
        kind = "spatial" if self.iter_kind == self.SPATIAL else "reduce"
        return f"Iterator({self.name}, {kind}, extent={self.extent})"


class StageInfo:
    def __init__(self, name, op):
        self.name, self.op = name, op
        self.iters = []
        self.attach = None              # None (root), "inline" or (stage index, loop name)
        if isinstance(op, ComputeOp):
            for iv in op.axis:
                self.iters.append(IterView(iv.var.name, IterView.SPATIAL, _const(iv)))
            for iv in op.reduce_axis:
                self.iters.append(IterView(iv.var.name, IterView.REDUCTION, _const(iv)))


def _const(iv):
    try:
        return int(iv.dom.extent)
    except (TypeError, ValueError, AttributeError):
        return None


class SketchStateObject:
    """See the module docstring."""

    def __init__(self, dag):
        self.dag = dag
        self.steps = []
        self.stages = [StageInfo(dag.name_of(op), op) for op in dag.ops]

    def copy(self) -> "SketchStateObject":
        new = SketchStateObject.__new__(SketchStateObject)
        new.dag = self.dag
        new.steps = copy.deepcopy(self.steps)
        new.stages = []
        for st in self.stages:
            c = StageInfo.__new__(StageInfo)
            c.name, c.op, c.attach = st.name, st.op, st.attach
            c.iters = [IterView(it.name, it.iter_kind, it.extent, it.src) for it in st.iters]
            new.stages.append(c)
        return new

    def key(self) -> str:
        return repr(self.steps)

    def stage_index(self, stage) -> int:
        """The index of ``stage`` given as an int, an Operation, a Tensor, a StageView or
        a stage name."""
        if isinstance(stage, StageView):
            return stage.index
        if isinstance(stage, int) and not isinstance(stage, bool):
            if 0 <= stage < len(self.stages):
                return stage
            raise TepadError(f"stage id {stage} is out of range: the state has "
                             f"{len(self.stages)} stages")
        if isinstance(stage, Tensor):
            stage = stage.op
        for i, st in enumerate(self.stages):
            if (isinstance(stage, Operation) and st.op is stage) or \
                    (isinstance(stage, str) and st.name == stage):
                return i
        raise TepadError(f"{stage!r} is not a stage of this state; stages are "
                         f"{[st.name for st in self.stages]}")

    def is_inlined(self, idx) -> bool:
        return self.stages[idx].attach == "inline"

    def attached_at(self, idx, loop) -> list:
        """The stages computed at loop ``loop`` of stage ``idx``."""
        return [i for i, st in enumerate(self.stages)
                if isinstance(st.attach, tuple) and st.attach == (idx, loop)]

    # --- edits (each appends one step) -------------------------------------------------
    def _iter_pos(self, idx, it) -> int:
        name = it.name if isinstance(it, IterView) else it
        for k, cur in enumerate(self.stages[idx].iters):
            if cur.name == name:
                return k
        raise TepadError(f"stage {self.stages[idx].name!r} has no loop {name!r}; its loops "
                         f"are {[c.name for c in self.stages[idx].iters]}")

    def _need_compute(self, idx, what):
        st = self.stages[idx]
        if not isinstance(st.op, ComputeOp):
            raise TepadError(f"{what}: stage {st.name!r} is not a compute stage")
        if st.attach == "inline":
            raise TepadError(f"{what}: stage {st.name!r} is inlined")
        return st

    def split(self, idx, it, lengths, inner_to_outer=True):
        st = self._need_compute(idx, "split")
        if not inner_to_outer:
            raise TepadError("split: only inner_to_outer=True is supported")
        lengths = [None if f is None else int(f) for f in lengths]
        if not lengths or any(f is not None and f < 1 for f in lengths):
            raise TepadError(f"split: lengths must be a non-empty list of positive ints or "
                             f"None, got {lengths}")
        pos = self._iter_pos(idx, it)
        cur = st.iters[pos]
        step_id = len(self.steps)
        self.steps.append(["SP", st.name, cur.name, lengths])
        return self._replace_split(st, pos, cur, len(lengths), step_id)

    def follow_split(self, idx, it, src_step_id, n_split):
        st = self._need_compute(idx, "follow_split")
        src_step_id, n_split = int(src_step_id), int(n_split)
        if not (0 <= src_step_id < len(self.steps)) or self.steps[src_step_id][0] != "SP":
            raise TepadError(f"follow_split: step {src_step_id} is not a split; the steps "
                             f"are {[s[0] for s in self.steps]}")
        if not 1 <= n_split <= len(self.steps[src_step_id][3]):
            raise TepadError(f"follow_split: n_split must be between 1 and "
                             f"{len(self.steps[src_step_id][3])}, got {n_split}")
        pos = self._iter_pos(idx, it)
        cur = st.iters[pos]
        step_id = len(self.steps)
        self.steps.append(["FSP", st.name, cur.name, src_step_id, n_split])
        return self._replace_split(st, pos, cur, n_split, step_id)

    def _replace_split(self, st, pos, cur, n, step_id):
        parts = [IterView(f"{cur.name}.{lv}", cur.iter_kind, None, (step_id, lv))
                 for lv in range(n + 1)]
        st.iters[pos:pos + 1] = parts
        return parts

    def reorder(self, idx, order):
        st = self._need_compute(idx, "reorder")
        names = [it.name if isinstance(it, IterView) else it for it in order]
        if sorted(names) != sorted(c.name for c in st.iters):
            raise TepadError(f"reorder: stage {st.name!r} needs all its loops "
                             f"{[c.name for c in st.iters]} once each, got {names}")
        by = {c.name: c for c in st.iters}
        st.iters = [by[n] for n in names]
        self.steps.append(["RE", st.name, names])

    def fuse(self, idx, iters):
        st = self._need_compute(idx, "fuse")
        names = [it.name if isinstance(it, IterView) else it for it in iters]
        pos = [self._iter_pos(idx, n) for n in names]
        if pos != list(range(pos[0], pos[0] + len(pos))):
            raise TepadError(f"fuse: loops {names} of {st.name!r} must be adjacent, in order")
        kinds = {st.iters[p].iter_kind for p in pos}
        new = IterView("@".join(names), kinds.pop() if len(kinds) == 1 else
                       IterView.REDUCTION, None)
        st.iters[pos[0]:pos[-1] + 1] = [new]
        self.steps.append(["FU", st.name, names])
        return new

    def annotate(self, idx, it, kind):
        st = self._need_compute(idx, kind)
        name = st.iters[self._iter_pos(idx, it)].name
        self.steps.append(["AN", st.name, name, kind])

    def compute_at(self, idx, target_idx, target_iter):
        st = self._need_compute(idx, "compute_at")
        tgt = self._need_compute(target_idx, "compute_at target")
        loop = tgt.iters[self._iter_pos(target_idx, target_iter)].name
        st.attach = (target_idx, loop)
        self.steps.append(["CA", st.name, tgt.name, loop])

    def compute_inline(self, idx):
        st = self._need_compute(idx, "compute_inline")
        if st.op.reduce_axis:
            raise TepadError(f"compute_inline: stage {st.name!r} has a reduction and cannot be "
                             "inlined")
        st.attach = "inline"
        self.steps.append(["CI", st.name])

    def compute_root(self, idx):
        st = self._need_compute(idx, "compute_root")
        st.attach = None
        self.steps.append(["CR", st.name])


class StageView:
    """One stage of a StateView: ``op``, ``iters``, ``name``, ``compute_at`` (0 root,
    1 inlined, 2 at a loop: TVM's ``ComputeAtKind``)."""

    def __init__(self, obj, index):
        self.index = index
        info = obj.stages[index]
        self.op, self.name = info.op, info.name
        self.iters = list(info.iters)
        self.compute_at = 0 if info.attach is None else 1 if info.attach == "inline" else 2

    def __repr__(self):
        return f"Stage({self.name}, iters={[it.name for it in self.iters]})"


class StateView:
    """TVM's ``loop_state.State(state_object, dag)``: edits a copy of ``state_object``
    (see the module docstring); ``state_object`` is the edited copy."""

    def __init__(self, state_object, dag=None):
        if isinstance(state_object, StateView):
            state_object = state_object.state_object
        if not isinstance(state_object, SketchStateObject):
            raise TepadError(f"loop_state.State: expects the state object a sketch rule is "
                             f"given, got {type(state_object).__name__}")
        self.state_object = state_object.copy()
        self.compute_dag = dag if dag is not None else state_object.dag

    @property
    def stages(self) -> list:
        return [StageView(self.state_object, i) for i in range(len(self.state_object.stages))]

    @property
    def stage_ops(self) -> list:
        return [st.op for st in self.state_object.stages]

    @property
    def transform_steps(self) -> list:
        return list(self.state_object.steps)

    def __getitem__(self, stage) -> StageView:
        return StageView(self.state_object, self.state_object.stage_index(stage))

    def _i(self, stage):
        return self.state_object.stage_index(stage)

    def split(self, stage, iterator, lengths, inner_to_outer=True):
        return self.state_object.split(self._i(stage), iterator, lengths, inner_to_outer)

    def follow_split(self, stage, iterator, src_step_id, n_split):
        return self.state_object.follow_split(self._i(stage), iterator, src_step_id, n_split)

    def reorder(self, stage, order):
        self.state_object.reorder(self._i(stage), order)

    def fuse(self, stage, iters):
        return self.state_object.fuse(self._i(stage), iters)

    def parallel(self, stage, iterator):
        self.state_object.annotate(self._i(stage), iterator, "parallel")

    def vectorize(self, stage, iterator):
        self.state_object.annotate(self._i(stage), iterator, "vectorize")

    def unroll(self, stage, iterator, max_unroll=None):
        self.state_object.annotate(self._i(stage), iterator, "unroll")

    def compute_at(self, stage, target_stage, target_iter):
        self.state_object.compute_at(self._i(stage), self._i(target_stage), target_iter)

    def compute_inline(self, stage):
        self.state_object.compute_inline(self._i(stage))

    def compute_root(self, stage):
        self.state_object.compute_root(self._i(stage))

    def __str__(self):
        return "\n".join(repr(s) for s in self.state_object.steps)
