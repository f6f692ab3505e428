"""Groups of stages (TVM's ``Schedule.create_group``): one attachment for a whole sub-graph.

``s.create_group(outputs, inputs, include_inputs)`` makes a ``GroupStage`` holding the stages
of the operations between ``inputs`` and ``outputs``; ``g.compute_at(s[C], C.axis[k])`` then
computes every member that is at the group's root (attach type GroupRoot) inside that loop,
in dataflow order. A member attached with its own ``compute_at`` keeps that attachment;
groups nest (a group made of stages and smaller groups). ``Stage.group`` is the innermost
group a stage belongs to (None: none).

What lowering sees is resolved by ``resolve_group_attach`` (called by ``normalize``): each
member at its group's root gets the attachment of the nearest enclosing group that has one
(TVM's ``Stage::GetAttachSpec``), so InferBound and ScheduleOps handle plain stages only.
"""
from __future__ import annotations

import warnings

from ..errors import TepadError
from ..tensor.tensor import PlaceholderOp, Tensor
from .stage import AttachType, Stage


class GroupStage:
    """A group of stages and sub-groups, attached as one (``compute_at``/``compute_root``).

    ``group``: the enclosing group (None: the schedule's root); ``num_child_stages``: the
    stages and groups directly inside it; ``attach_type``/``attach_stage``/``attach_ivar``:
    as for a Stage. Compared and hashed by identity."""

    def __init__(self, schedule, parent=None, name="group"):
        self.schedule = schedule
        self.group = parent
        self.num_child_stages = 0
        self.attach_type = AttachType.GroupRoot
        self.attach_stage = None
        self.attach_ivar = None
        self.name = name
        self.op = None

    def __repr__(self):
        return f"group({self.name})"

    def members(self) -> list:
        """The stages of the schedule inside this group, directly or through sub-groups."""
        return [st for st in self.schedule.stages if self.contains(st)]

    def contains(self, x) -> bool:
        """Whether stage or group ``x`` is (transitively) inside this group."""
        g = x.group
        while g is not None:
            if g is self:
                return True
            g = g.group
        return False

    def compute_at(self, parent, ivar):
        """Compute the group's members that sit at its root inside loop ``ivar`` of stage
        ``parent`` (which must not be a member of the group)."""
        if isinstance(parent, Tensor):
            parent = self.schedule[parent]
        if not isinstance(parent, Stage):
            raise TepadError(f"{self.name}: compute_at expects a Stage, got {parent!r}")
        if self.contains(parent):
            raise TepadError(f"{self.name}: cannot compute the group at {parent.name}, which "
                             "is a member of the group (compute_at cycle)")
        outs = [st.name for st in self.members() if st.is_output]
        if outs:
            raise TepadError(f"{self.name} contains the output {outs[0]}; outputs are computed "
                             "at the root and cannot be attached with compute_at")
        parent._leaf_index(ivar, f"compute_at({self.name})")
        self.attach_type = AttachType.Scope
        self.attach_stage, self.attach_ivar = parent, ivar

    def compute_root(self):
        """Compute the group's members at the root again (undoes compute_at)."""
        self.attach_type = AttachType.GroupRoot
        self.attach_stage = self.attach_ivar = None

    def compute_inline(self):
        raise TepadError(f"{self.name}: a group cannot be inlined; inline its stages one by "
                         "one (s[T].compute_inline())")

    def _copy(self, schedule):
        g = GroupStage.__new__(GroupStage)
        g.__dict__.update(self.__dict__)
        g.schedule = schedule
        return g


def get_sub_graph(outputs, inputs, include_inputs):
    """The operations on a path from an op of ``outputs`` down to an op of ``inputs``
    (producers first; the ``inputs`` ops themselves when ``include_inputs``), TVM's
    GetSubGraph."""
    boundary = set(inputs)
    reach, result = {}, []

    def visit(op):
        if op in reach:
            return reach[op]
        if op in boundary:
            reach[op] = True
            if include_inputs:
                result.append(op)
            return True
        reach[op] = False
        hit = False
        for t in op.input_tensors:
            if visit(t.op):
                hit = True
        reach[op] = hit
        if hit:
            result.append(op)
        return hit

    for op in outputs:
        visit(op)
    return result


def _ops(s, tensors, what):
    if tensors is None:
        return []
    if not isinstance(tensors, (list, tuple)):
        tensors = [tensors]
    out = []
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TepadError(f"create_group: {what} must be tensors, got {t!r}")
        out.append(s[t].op)
    return out


def _ancestors(g):
    out = []
    while g is not None:
        out.append(g)
        g = g.group
    return out


def _common_ancestor(a, b):
    """The innermost group enclosing both (None: the root)."""
    bs = _ancestors(b)
    for g in _ancestors(a):
        if any(g is x for x in bs):
            return g
    return None


def create_group(s, outputs, inputs, include_inputs=False) -> GroupStage:
    """A new group of the stages between ``inputs`` and ``outputs`` (module docstring).

    The group nests inside the innermost group holding all of them; an existing group is
    moved inside the new one when all its stages are, and a group only partly covered is a
    TepadError. A member computed at a stage outside the new group is computed at the root
    again, with a warning (as in TVM)."""
    ops = get_sub_graph(_ops(s, outputs, "outputs"), _ops(s, inputs, "inputs"),
                        include_inputs)
    if not ops:
        raise TepadError("create_group: no operation lies between the given inputs and "
                         "outputs (the outputs must read the inputs, directly or not)")
    stages = [s[op] for op in ops]
    parent = stages[0].group
    for st in stages[1:]:
        parent = _common_ancestor(parent, st.group)
    counts = {}
    for st in stages:
        if st.group is not None:
            counts[id(st.group)] = [st.group, counts.get(id(st.group), [None, 0])[1] + 1]
    # a sub-group whose stages are all in the new group counts as one member of its parent
    stack = [g for g, c in counts.values() if g is not parent and g.num_child_stages == c]
    while stack:
        g = stack.pop()
        if g.group is not None and g.group is not parent:
            entry = counts.setdefault(id(g.group), [g.group, 0])
            entry[1] += 1
            if entry[1] == g.group.num_child_stages:
                stack.append(g.group)
    for g, c in counts.values():
        if g is not parent and g.num_child_stages != c:
            raise TepadError(f"create_group: the new group would cut through {g.name}, which "
                             "holds stages both inside and outside it")
    gstage = GroupStage(s, parent, name=f"group{len(s.groups)}")
    if parent is not None:
        parent.num_child_stages += 1
    for g, c in counts.values():
        if g is parent:
            continue
        if g.group is parent:
            g.group = gstage
            gstage.num_child_stages += 1
            if parent is not None:
                parent.num_child_stages -= 1
    for st in stages:
        if st.group is parent:
            st.group = gstage
            gstage.num_child_stages += 1
            if parent is not None:
                parent.num_child_stages -= 1
    for st in stages:
        if st.attach_type == AttachType.Scope and not gstage.contains(st.attach_stage):
            warnings.warn(f"create_group: stage {st.name} was computed at "
                          f"{st.attach_stage.name}, outside the new group; it is computed at "
                          "the group's root now", stacklevel=3)
            st.compute_root()
    s.groups.append(gstage)
    return gstage


def attach_spec(stage):
    """The stage or group whose attachment ``stage`` follows (TVM's GetAttachSpec): itself,
    unless it sits at the root of a group, then the nearest enclosing group that is not."""
    spec = stage
    while spec.attach_type == AttachType.GroupRoot and spec.group is not None:
        spec = spec.group
    return spec


def resolve_group_attach(s) -> None:
    """Give each stage at the root of a group the attachment of its ``attach_spec`` (so that
    bound inference and ScheduleOps need not know about groups). Called by normalize."""
    for st in s.stages:
        if isinstance(st.op, PlaceholderOp) or st.group is None:
            continue
        spec = attach_spec(st)
        if spec is st or spec.attach_type != AttachType.Scope:
            continue
        if st.is_output:
            raise TepadError(f"stage {st.name} is an output in {spec.name}, which is computed "
                             f"at {spec.attach_stage.name}; outputs are computed at the root")
        st.attach_type = AttachType.Scope
        st.attach_stage, st.attach_ivar = spec.attach_stage, spec.attach_ivar


__all__ = ["GroupStage", "create_group", "get_sub_graph", "attach_spec",
           "resolve_group_attach"]
