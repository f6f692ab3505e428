"""``te.scan``: a recurrence over the first dimension (TVM's ScanOp).

``te.scan(init, update, state)`` defines a tensor ``S`` of ``update``'s shape with
``S[t] = init[t]`` for ``t < T0`` (``T0 = init.shape[0]``) and ``S[t] = update[t]`` for
``T0 <= t < T``, where ``update`` may read ``state`` (a placeholder standing for ``S``) at
earlier time steps. Several states are scanned together when lists are given.
"""
from __future__ import annotations

from ..errors import TepadError
from ..tir.expr import IntImm, Range, Var, convert
from ..tir.itervar import IterVar, IterVarType
from .tensor import Operation, PlaceholderOp, Tensor


class ScanOp(Operation):
    """The scan over ``scan_axis`` (time, from ``init``'s extent to ``update``'s).

    ``spatial_axis_`` holds one opaque IterVar per non-time dimension of every state, states in
    order; ``root_iter_vars`` is ``[scan_axis] + spatial_axis_``. The outputs have the shapes
    and dtypes of ``update``. ``input_tensors`` are ``init`` then ``update`` (the body reads the
    state placeholders, which this operation produces)."""

    def __init__(self, name, tag, attrs, scan_axis, init, update, state_placeholder, inputs,
                 spatial_axis=None):
        super().__init__(name, tag, attrs)
        self.scan_axis = scan_axis
        self.init = list(init)
        self.update = list(update)
        self.state_placeholder = list(state_placeholder)
        self.inputs = list(inputs)
        self.num_outputs = len(self.update)
        if spatial_axis is None:
            spatial_axis = []
            for i, u in enumerate(self.update):
                for k in range(1, len(u.shape)):
                    ext = u.shape[k]
                    spatial_axis.append(IterVar(Range.from_min_extent(IntImm(0, ext.dtype), ext),
                                                Var(f"{name}.out{i}.i{k}", ext.dtype),
                                                IterVarType.Opaque))
        self.spatial_axis_ = list(spatial_axis)
        self._outputs = [Tensor(self, k, u.shape, u.dtype) for k, u in enumerate(self.update)]

    @property
    def input_tensors(self) -> list:
        out = []
        for t in self.init + self.update:
            if t not in out:
                out.append(t)
        return out

    @property
    def root_iter_vars(self):
        return [self.scan_axis] + self.spatial_axis_

    def spatial_axes_of(self, i):
        """The spatial IterVars of state ``i`` (its dimensions 1..ndim-1)."""
        start = sum(len(u.shape) - 1 for u in self.update[:i])
        return self.spatial_axis_[start:start + len(self.update[i].shape) - 1]

    def replace_inputs(self, init, update, inputs=None):
        """The same scan (same axes, name, state placeholders) over new init/update tensors
        (a dataflow rewrite rebuilt them)."""
        return ScanOp(self.name, self.tag, self.attrs, self.scan_axis, init, update,
                      self.state_placeholder, self.inputs if inputs is None else inputs,
                      self.spatial_axis_)


def _as_list(x, what, name):
    xs = list(x) if isinstance(x, (list, tuple)) else [x]
    for t in xs:
        if not isinstance(t, Tensor):
            raise TepadError(f"scan {name}: {what} must be tensors (or lists of tensors), "
                             f"got {t!r}")
    return xs


def _same(a, b):
    a, b = convert(a), convert(b)
    if isinstance(a, IntImm) and isinstance(b, IntImm):
        return a.value == b.value
    return a is b or (not isinstance(a, IntImm) and not isinstance(b, IntImm) and
                      str(a) == str(b))


def scan(init, update, state_placeholder, inputs=None, name="scan", tag="", attrs=None):
    """The scan of ``update`` from ``init`` over the first dimension (TVM's ``te.scan``).

    ``init``, ``update`` and ``state_placeholder`` are tensors or equally long lists of them;
    ``update[i]`` reads ``state_placeholder[i]`` (and the other states) at earlier time steps.
    ``inputs`` optionally lists tensors the body reads (they bound the body like the states;
    a listed compute stage may still be inlined, and then leaves the list).
    Returns the state tensor, or a list of them for several states.
    Raises a TepadError naming the scan and the state when shapes or dtypes disagree.
    """
    single = not isinstance(update, (list, tuple))
    init = _as_list(init, "init", name)
    update = _as_list(update, "update", name)
    states = _as_list(state_placeholder, "state_placeholder", name)
    inputs = _as_list(inputs, "inputs", name) if inputs is not None else []
    if not update:
        raise TepadError(f"scan {name}: update must name at least one tensor")
    if not len(init) == len(update) == len(states):
        raise TepadError(f"scan {name}: init, update and state_placeholder must have the same "
                         f"length, got {len(init)}, {len(update)} and {len(states)}")
    for i, (ini, up, st) in enumerate(zip(init, update, states)):
        what = f"scan {name}, state {i} ({st.name})"
        if not isinstance(st.op, PlaceholderOp):
            raise TepadError(f"{what}: the state must be a te.placeholder, got a "
                             f"{type(st.op).__name__}")
        if len(up.shape) < 1:
            raise TepadError(f"{what}: update {up.name} must have at least one dimension "
                             "(time first)")
        if not (len(ini.shape) == len(up.shape) == len(st.shape)):
            raise TepadError(f"{what}: init {ini.name}, update {up.name} and the state must "
                             f"have the same number of dimensions, got {len(ini.shape)}, "
                             f"{len(up.shape)} and {len(st.shape)}")
        if not (ini.dtype == up.dtype == st.dtype):
            raise TepadError(f"{what}: init {ini.name} ({ini.dtype}), update {up.name} "
                             f"({up.dtype}) and the state ({st.dtype}) must have one dtype")
        for k in range(len(up.shape)):
            if not _same(st.shape[k], up.shape[k]):
                raise TepadError(f"{what}: the state has shape {list(st.shape)} but update "
                                 f"{up.name} has {list(up.shape)}; they must agree")
            if k and not _same(ini.shape[k], up.shape[k]):
                raise TepadError(f"{what}: init {ini.name} has shape {list(ini.shape)}, which "
                                 f"must agree with update {up.name} {list(up.shape)} outside "
                                 "the first (time) dimension")
        if not _same(init[0].shape[0], ini.shape[0]):
            raise TepadError(f"{what}: every init must have the time extent of the first "
                             f"({init[0].shape[0]}), got {ini.shape[0]}")
        if not _same(update[0].shape[0], up.shape[0]):
            raise TepadError(f"{what}: every update must have the time extent of the first "
                             f"({update[0].shape[0]}), got {up.shape[0]}")
    t0, t1 = convert(init[0].shape[0]), convert(update[0].shape[0])
    if isinstance(t0, IntImm) and isinstance(t1, IntImm) and t0.value > t1.value:
        raise TepadError(f"scan {name}: init has {t0.value} time steps, more than update's "
                         f"{t1.value}")
    scan_axis = IterVar(Range.from_min_extent(t0, t1 - t0), Var(f"{name}.idx", t1.dtype),
                        IterVarType.Ordered)
    op = ScanOp(name, tag, attrs, scan_axis, init, update, states, inputs)
    outs = [op.output(k) for k in range(op.num_outputs)]
    return outs[0] if single else outs


__all__ = ["ScanOp", "scan"]
