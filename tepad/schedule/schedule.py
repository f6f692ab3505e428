"""Schedule: the stages of a computation, producers first, and whole-graph rewrites."""
from __future__ import annotations

from .._lazy import lazy_module
from ..errors import TepadError
from ..tensor.tensor import ComputeOp, Operation, PlaceholderOp, Tensor
from .fingerprint import schedule_fingerprint
from .group import GroupStage, create_group, resolve_group_attach
from .scan_analysis import mark_scan_bodies
from .dataflow import cache_read, cache_write, inline_stages, replace_dataflow
from .relations import Fuse, Split, Transform
from . import record
from .rfactor import rfactor
from .stage import AttachType, Stage

# networkx is imported when the first schedule is built, not by ``import tepad``
nx = lazy_module("networkx")


def dataflow_graph(roots) -> nx.DiGraph:
    """Every operation reachable from ``roots``: an edge producer -> consumer (``tensor``: the
    tensor read), the nodes in the order they were reached (roots first)."""
    g = nx.DiGraph()
    g.add_nodes_from(roots)
    todo, seen = list(roots), set(roots)
    while todo:
        op = todo.pop()
        for t in op.input_tensors:
            g.add_edge(t.op, op, tensor=t)
            if t.op not in seen:
                seen.add(t.op)
                todo.append(t.op)
    return g


def _check_acyclic(g: nx.DiGraph):
    try:
        cycle = nx.find_cycle(g)
    except nx.NetworkXNoCycle:
        return
    reads = ", ".join(f"{getattr(consumer, 'name', consumer)} reads "
                      f"{getattr(producer, 'name', producer)}" for producer, consumer in cycle)
    raise TepadError(f"operations read each other in a cycle ({reads}); a tensor cannot "
                     "depend on itself")


def post_dfs_order(roots):
    """The public name of ``_post_dfs_order`` (TVM's ``te.schedule.PostDFSOrder``)."""
    return _post_dfs_order(roots)


def _post_dfs_order(roots):
    """Operations reachable from ``roots``, every producer before its consumers: post-order
    depth-first from each root in turn, inputs in the order the operation reads them (TVM's
    PostDFSOrder). A cycle is a TepadError naming the operations on it."""
    g = dataflow_graph(roots)
    _check_acyclic(g)
    # Walk consumer -> producer; a node's predecessors in g were added in input order.
    return list(nx.dfs_postorder_nodes(g.reverse(copy=False)))


class Schedule:
    """``s[tensor_or_op]`` gives the Stage; ``s.stages`` lists them producers first."""

    def __init__(self, outputs):
        ops = []
        for o in outputs:
            op = o.op if isinstance(o, Tensor) else o
            if not isinstance(op, Operation):
                raise TepadError(f"create_schedule expects tensors or operations, got {o!r}")
            if op not in ops:
                ops.append(op)
        self.outputs = ops
        self.stages: list[Stage] = []
        self.stage_map: dict = {}
        self.groups: list[GroupStage] = []
        for op in _post_dfs_order(ops):
            st = Stage(op, self)
            st.is_output = op in ops
            self.stages.append(st)
            self.stage_map[op] = st
        mark_scan_bodies(self)
        # copies after each primitive, with config te.keep_schedule_record (schedule.record)
        self.schedule_record: list = []
        self.primitive_record: list = []
        record.note(self, "vanilla")

    def fingerprint(self) -> tuple:
        """A hashable value that differs whenever lowering this schedule could differ (see
        ``tepad.schedule.fingerprint``); ``tepad.build`` keys its module cache on it."""
        return schedule_fingerprint(self)

    def __getitem__(self, key) -> Stage:
        """The Stage of a tensor or operation of this schedule (``s[B]``); anything else is a
        TepadError listing the stages."""
        if isinstance(key, (Stage, GroupStage)) and key.schedule is self:
            return key
        op = key.op if isinstance(key, Tensor) else key
        st = self.stage_map.get(op)
        if st is None:
            name = getattr(op, "name", repr(op))
            if any(x.op.name == name or x.name == name for x in self.stages):
                raise TepadError(
                    f"{name} is not part of this schedule, but a different tensor with the same "
                    f"name {name!r} is (two te.compute/te.placeholder calls named {name!r}?); "
                    f"use the tensor the schedule was created from, or give the two distinct "
                    f"names; its stages are {[s.name for s in self.stages]}")
            raise TepadError(f"{name} is not part of this schedule; its stages are "
                             f"{[s.name for s in self.stages]}")
        return st

    def __repr__(self):
        return "Schedule(" + ", ".join(s.name for s in self.stages) + ")"

    def __str__(self):
        return "\n".join(str(s) for s in self.stages)

    # --- dataflow rewrites ------------------------------------------------------------------
    def cache_read(self, tensor, scope, readers):
        """A stage copying ``tensor`` into ``scope`` storage, read by ``readers`` instead."""
        out = cache_read(self, tensor, scope, readers)
        mark_scan_bodies(self)
        return out

    def cache_write(self, tensor, scope):
        """Compute ``tensor`` (or the list of all outputs of one compute) into a cache stage
        in ``scope``, then copy it to the original tensor. After split/fuse/reorder the cache
        is laid out in loop order and takes the loops' annotations (TVM's relayout)."""
        first = tensor[0] if isinstance(tensor, (list, tuple)) and tensor else tensor
        st = self[first] if isinstance(first, Tensor) else None
        if st is not None and st.scan_stage is not None and \
                any(not isinstance(r, Transform) for r in st.relations):
            # the scan bounds its body stages along their first (time) axis; a relaid-out
            # cache has the stage's loops as axes instead
            raise TepadError(f"cache_write({first.name}): {st.name} is a stage of the body of "
                             f"scan {st.scan_stage.name}; cache it before split/fuse/reorder")
        out = cache_write(self, tensor, scope)
        mark_scan_bodies(self)
        return out

    def rfactor(self, tensor, axis, factor_axis=0):
        """Factor ``tensor``'s reduction over leaf loop ``axis`` (a reduce axis or a split
        part of one) into a new stage whose axis ``factor_axis`` is ``axis`` (data-parallel:
        it can be parallelized or vectorized); ``tensor``'s stage then reduces over that
        axis. Returns the factored tensor (a list for a tuple reduction)."""
        return rfactor(self, tensor, axis, factor_axis)

    def create_group(self, outputs, inputs, include_inputs=False) -> GroupStage:
        """A group of the stages between ``inputs`` and ``outputs`` (tensors or lists of
        them), attached as one with ``g.compute_at(...)``; see ``tepad.schedule.group``."""
        return create_group(self, outputs, inputs, include_inputs)

    def _insert_stage(self, stage, index):
        self.stages.insert(index, stage)
        self.stage_map[stage.op] = stage

    def _replace_op(self, stage, new_op):
        """Point ``stage`` at ``new_op`` (dataflow rewrite); old op keys still find it."""
        stage.op = new_op
        self.stage_map[new_op] = stage

    def current_tensor(self, tensor: Tensor) -> Tensor:
        """The tensor of the stage's current op standing for a user tensor (after rewrites)."""
        st = self[tensor]
        return st.op.output(tensor.value_index)

    # --- normalize ----------------------------------------------------------------------------
    def copy(self) -> "Schedule":
        """An independent copy: new Stages with the same relations and attachments, so
        scheduling the copy leaves this schedule unchanged. Operations are shared."""
        s = Schedule.__new__(Schedule)
        s.outputs = list(self.outputs)
        s.schedule_record, s.primitive_record = [], []
        mapping = {id(st): st._copy(s) for st in self.stages}
        mapping.update({id(g): g._copy(s) for g in self.groups})
        s.stages = [mapping[id(st)] for st in self.stages]
        s.groups = [mapping[id(g)] for g in self.groups]
        for st in s.stages + s.groups:
            if st.attach_stage is not None:
                st.attach_stage = mapping[id(st.attach_stage)]
            if getattr(st, "scan_stage", None) is not None:     # a GroupStage has none
                st.scan_stage = mapping[id(st.scan_stage)]
            if st.group is not None:
                st.group = mapping[id(st.group)]
        s.stage_map = {op: mapping[id(st)] for op, st in self.stage_map.items()}
        return s

    def normalize(self) -> "Schedule":
        """A normalized copy (TVM's ``Schedule.normalize``; this schedule is left as it is):
        stages marked compute_inline inlined, root loops rebased to start at 0, attachments
        whose axis was split/fused after compute_at re-pointed, and stages at the root of a
        group given the group's attachment. Normalizing a normalized schedule changes
        nothing more."""
        sn = self.copy()
        resolve_group_attach(sn)
        inline_stages(sn)
        remap = {}
        for st in sn.stages:
            if st.attach_type != AttachType.InlinedAlready:
                remap.update(st._rebase_roots())
        for st in sn.stages:
            if st.attach_type == AttachType.Scope:
                iv = remap.get(st.attach_ivar, st.attach_ivar)
                st.attach_ivar = _legalize_attach(st.attach_stage, iv)
        return sn


def _legalize_attach(target: Stage, iv):
    """Follow split (to inner) and fuse (to fused) until ``iv`` is a leaf of ``target``."""
    for _ in range(len(target.relations) + 1):
        if any(x is iv for x in target.leaf_iter_vars):
            return iv
        for r in target.relations:
            if isinstance(r, Split) and r.parent is iv:
                iv = r.inner
                break
            if isinstance(r, Fuse) and (r.inner is iv or r.outer is iv):
                iv = r.fused
                break
            if getattr(r, "parent", None) is iv and hasattr(r, "rebased"):
                iv = r.rebased
                break
        else:
            break
    raise TepadError(f"stage {target.name}: the compute_at axis {iv.name} is no longer a loop "
                     f"of {target.name}")


def create_schedule(ops) -> Schedule:
    """A default schedule (every stage at the root) for the given output tensors/operations."""
    if not isinstance(ops, (list, tuple)):
        ops = [ops]
    return Schedule(list(ops))


def read_graph(s: Schedule) -> nx.DiGraph:
    """The dataflow of the schedule's current operations: an edge producer -> consumer."""
    g = nx.DiGraph()
    for st in s.stages:
        if st.attach_type == AttachType.InlinedAlready:
            continue
        g.add_node(st.op, stage=st)
        for t in st.op.input_tensors:
            g.add_edge(t.op, st.op, tensor=t)
    return g


record.instrument(Stage, record.STAGE_PRIMITIVES, lambda st: st.schedule)
record.instrument(Schedule, record.SCHEDULE_PRIMITIVES, lambda sch: sch)

__all__ = ["Schedule", "create_schedule", "read_graph", "dataflow_graph", "post_dfs_order", "replace_dataflow", "PlaceholderOp",
           "ComputeOp"]
