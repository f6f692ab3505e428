"""Tensor intrinsics (TVM's ``te.decl_tensor_intrin``) and the operation that calls one
(``TensorComputeOp``: ``te.compute(shape, lambda i: intrin(A[i, 0:16], ...))``).

A ``TensorIntrin`` pairs a small compute definition (``op``) with the statement that computes
it in one step (``body``, built by the user's ``fcompute`` over one Buffer per input and
output). Those buffers usually have a symbolic ``elem_offset`` (``offset_factor``) and maybe
symbolic strides: lowering binds them to the region of the real tensor the step covers.
"""
from __future__ import annotations

from .axes import AxisList
from ..errors import TepadError
from ..tir.buffer import Buffer, decl_buffer
from ..tir.expr import IntImm, PrimExpr, ProducerLoad, Range, Var, convert
from ..tir.itervar import IterVar, IterVarType
from ..tir.stmt import Evaluate, Stmt
from .tensor import ComputeOp, Operation, PlaceholderOp, Tensor, _TensorSlice


class TensorIntrin:
    """A tensor intrinsic: ``op`` (the computation it performs), ``inputs`` (op's input
    tensors), ``buffers`` (one per input, then one per output), ``scalar_params``, and the
    statements ``body`` (compute the whole output), ``reduce_init`` (reset the output, for
    reductions) and ``reduce_update`` (accumulate into it); the last two may be None.

    Calling it with tensor regions (``intrin(A[i, 0:16], B[i, 0:16])``) inside ``te.compute``
    makes a ``TensorComputeOp``. Compared and hashed by identity."""

    def __init__(self, name, op, inputs, buffers, scalar_params, body, reduce_init,
                 reduce_update):
        self.name = name
        self.op = op
        self.inputs = list(inputs)
        self.buffers = list(buffers)
        self.scalar_params = list(scalar_params)
        self.body = body
        self.reduce_init = reduce_init
        self.reduce_update = reduce_update

    def __repr__(self):
        return f"TensorIntrin({self.name}, op={self.op.name})"

    def __call__(self, *args, **kwargs):
        """``intrin(region, ..., scalar, ..., reduce_axis=k)``: a call for ``te.compute``.

        Tensor regions are ``A[i, 0:16]`` slices (or a full index ``A[i, j]``, a one-element
        region); every other argument is a scalar input bound to ``scalar_params`` in order."""
        unknown = set(kwargs) - {"reduce_axis"}
        if unknown:
            raise TepadError(f"tensor intrinsic {self.name}: unknown keyword argument(s) "
                             f"{sorted(unknown)}; only reduce_axis= is accepted")
        tensors, regions, scalars = [], [], []
        for a in args:
            if isinstance(a, _TensorSlice):
                tensors.append(a.tensor)
                regions.append(_slice_region(a, self.name))
            elif isinstance(a, ProducerLoad):
                tensors.append(a.producer)
                regions.append([Range.from_min_extent(i, IntImm(1, i.dtype))
                                for i in a.indices])
            else:
                scalars.append(convert(a))
        if len(tensors) != len(self.inputs):
            raise TepadError(f"tensor intrinsic {self.name} takes {len(self.inputs)} tensor "
                             f"region(s) (A[i, 0:n] slices), got {len(tensors)}")
        if len(scalars) != len(self.scalar_params):
            raise TepadError(f"tensor intrinsic {self.name} takes {len(self.scalar_params)} "
                             f"scalar argument(s) (its scalar_params), got {len(scalars)}")
        red = kwargs.get("reduce_axis", [])
        red = list(red) if isinstance(red, (list, tuple)) else [red]
        for r in red:
            if not isinstance(r, IterVar) or r.iter_type != IterVarType.CommReduce:
                raise TepadError(f"tensor intrinsic {self.name}: reduce_axis={r!r} is not a "
                                 "te.reduce_axis")
        return TensorIntrinCall(self, tensors, regions, red, scalars)


class TensorIntrinCall:
    """The value of ``intrin(...)``: what ``te.compute`` turns into a TensorComputeOp."""

    def __init__(self, intrin, tensors, regions, reduce_axis, scalar_inputs):
        self.intrin = intrin
        self.tensors = list(tensors)
        self.regions = [list(r) for r in regions]
        self.reduce_axis = list(reduce_axis)
        self.scalar_inputs = list(scalar_inputs)

    def __repr__(self):
        return f"{self.intrin.name}({', '.join(t.name for t in self.tensors)})"


def _slice_region(sl: _TensorSlice, name) -> list:
    """The Ranges of ``A[i, 0:16]``: an index is a one-element range, ``a:b`` is [a, b);
    missing trailing indices cover the whole dimension."""
    t = sl.tensor
    out = []
    for k, idx in enumerate(sl.indices):
        if isinstance(idx, slice):
            if idx.step not in (None, 1):
                raise TepadError(f"tensor intrinsic {name}: region {sl!r} has a step; regions "
                                 "are contiguous (a:b)")
            lo = convert(idx.start if idx.start is not None else 0)
            hi = convert(idx.stop if idx.stop is not None else t.shape[k])
            out.append(Range.from_min_extent(lo, hi - lo))
        else:
            i = idx.var if isinstance(idx, IterVar) else convert(idx)
            out.append(Range.from_min_extent(i, IntImm(1, i.dtype)))
    for k in range(len(out), t.ndim):
        out.append(Range.from_min_extent(IntImm(0, t.shape[k].dtype), t.shape[k]))
    return out


def decl_tensor_intrin(op, fcompute, name="tensor_intrin", binds=None, scalar_params=None,
                       default_buffer_params=None) -> TensorIntrin:
    """TVM's ``te.decl_tensor_intrin``: declare that ``fcompute`` computes ``op``.

    ``fcompute(ins, outs)`` (``fcompute(ins, outs, scalar_params)`` when those are given) gets
    one Buffer per input and output (``binds[tensor]`` or ``tir.decl_buffer(shape, dtype,
    name, **default_buffer_params)``) and returns a Stmt or PrimExpr (the body), or a tuple
    ``(body, reduce_reset, reduce_update)`` for a reduction, any of them None. ``op`` may
    itself call a tensor intrinsic (a TensorComputeOp): the new intrinsic then computes
    several calls of that one at once, and tensorizes a stage calling it."""
    if isinstance(op, Tensor):
        op = op.op
    if not isinstance(op, (ComputeOp, TensorComputeOp)):
        raise TepadError(f"decl_tensor_intrin {name}: op must be the operation of a "
                         f"te.compute, got {op!r}")
    inputs = op.input_tensors
    for t in inputs:
        if not isinstance(t.op, PlaceholderOp):
            raise TepadError(f"decl_tensor_intrin {name}: {op.name} reads {t.name}, which is "
                             "not a te.placeholder; an intrinsic's compute reads placeholders "
                             "only")
    binds = dict(binds or {})
    tensors = list(inputs) + [op.output(k) for k in range(op.num_outputs)]
    for t in binds:
        if t not in tensors:
            raise TepadError(f"decl_tensor_intrin {name}: binds has {t!r}, which is neither "
                             f"an input nor an output of {op.name}")
    params = dict(default_buffer_params or {})
    buffers = []
    for t in tensors:
        b = binds.get(t)
        if b is None:
            b = decl_buffer(t.shape, t.dtype, t.op.name, **params)
        elif not isinstance(b, Buffer):
            raise TepadError(f"decl_tensor_intrin {name}: binds[{t.name}] must be a Buffer "
                             "(tir.decl_buffer), got {b!r}")
        buffers.append(b)
    n_in = len(inputs)
    if scalar_params:
        scalar_params = list(scalar_params)
        for v in scalar_params:
            if not isinstance(v, Var):
                raise TepadError(f"decl_tensor_intrin {name}: scalar_params must be Vars, got "
                                 f"{v!r}")
        body = fcompute(buffers[:n_in], buffers[n_in:], scalar_params)
    else:
        scalar_params = []
        body = fcompute(buffers[:n_in], buffers[n_in:])
    parts = list(body) if isinstance(body, (list, tuple)) else [body]
    if not 1 <= len(parts) <= 3:
        raise TepadError(f"decl_tensor_intrin {name}: fcompute returned {len(parts)} "
                         "statements; return a body, or (body, reduce_reset, reduce_update)")
    stmts = []
    for k, p in enumerate(parts):
        if isinstance(p, (PrimExpr, int, float)):
            p = Evaluate(convert(p))
        if p is not None and not isinstance(p, Stmt):
            raise TepadError(f"decl_tensor_intrin {name}: fcompute returned {p!r} (item {k}); "
                             "expected a Stmt, a PrimExpr or None")
        stmts.append(p)
    stmts += [None] * (3 - len(stmts))
    if all(p is None for p in stmts):
        raise TepadError(f"decl_tensor_intrin {name}: fcompute returned no statement")
    return TensorIntrin(name, op, inputs, buffers, scalar_params, *stmts)


class TensorComputeOp(Operation):
    """``te.compute(shape, lambda i, j: intrin(A[i, k, 0:16], ..., reduce_axis=k))``.

    ``axis``: the first ``schedulable_ndim`` axes come from the lambda's parameters (DataPar,
    schedulable); the rest (``ax0, ...``, Opaque) are the intrinsic's own output dimensions,
    computed whole by each call. ``reduce_axis``: the reduction the calls accumulate over.
    ``inputs``/``input_regions``: the tensor regions each call reads (in terms of the axis
    and reduce-axis vars); ``scalar_inputs`` bind the intrinsic's ``scalar_params``."""

    def __init__(self, name, tag, attrs, axis, reduce_axis, schedulable_ndim, intrin, inputs,
                 input_regions, scalar_inputs):
        super().__init__(name, tag, attrs)
        self.axis = AxisList(axis, name)
        self.reduce_axis = AxisList(reduce_axis, name, "reduce_axis")
        self.schedulable_ndim = int(schedulable_ndim)
        self.intrin = intrin
        self.inputs = list(inputs)
        self.input_regions = [list(r) for r in input_regions]
        self.scalar_inputs = list(scalar_inputs)
        n_in = len(intrin.inputs)
        self.num_outputs = len(intrin.buffers) - n_in
        shape = tuple(iv.dom.extent for iv in self.axis)
        self._outputs = [Tensor(self, k, shape, intrin.buffers[n_in + k].dtype)
                         for k in range(self.num_outputs)]

    @property
    def input_tensors(self) -> list:
        out = []
        for t in self.inputs:
            if t not in out:
                out.append(t)
        return out

    @property
    def root_iter_vars(self):
        return self.axis + self.reduce_axis

    def replace_inputs(self, rmap: dict) -> "TensorComputeOp":
        """A copy reading ``rmap[t]`` instead of each input ``t`` in ``rmap`` (self when none
        is replaced)."""
        if not any(t in rmap for t in self.inputs):
            return self
        return TensorComputeOp(self.name, self.tag, self.attrs, self.axis, self.reduce_axis,
                               self.schedulable_ndim, self.intrin,
                               [rmap.get(t, t) for t in self.inputs], self.input_regions,
                               self.scalar_inputs)


def make_tensor_compute(name, tag, attrs, shape, axis, call: TensorIntrinCall):
    """The TensorComputeOp of ``te.compute(shape, lambda *axis: call)``: ``axis`` are the
    lambda's IterVars; the remaining dimensions of ``shape`` become opaque axes whose extents
    must equal the intrinsic's output dimensions."""
    intrin = call.intrin
    n = len(axis)
    out_shape = intrin.op.output(0).shape
    rest = shape[n:]
    if len(rest) > len(out_shape):
        raise TepadError(f"compute {name}: the intrinsic {intrin.name} computes "
                         f"{len(out_shape)} dimension(s) per call, but the shape has "
                         f"{len(rest)} dimension(s) after the lambda's {n} index argument(s)")
    extra = [IterVar(Range.from_min_extent(IntImm(0, s.dtype), s), Var(f"ax{k}", s.dtype),
                     IterVarType.Opaque) for k, s in enumerate(rest)]
    for t, reg in zip(call.tensors, call.regions):
        if len(reg) != t.ndim:
            raise TepadError(f"compute {name}: the region of {t.name} given to "
                             f"{intrin.name} has {len(reg)} dimensions; {t.name} has {t.ndim}")
    op = TensorComputeOp(name, tag, attrs, list(axis) + extra, call.reduce_axis, n, intrin,
                         call.tensors, call.regions, call.scalar_inputs)
    return op


__all__ = ["TensorIntrin", "TensorIntrinCall", "TensorComputeOp", "decl_tensor_intrin",
           "make_tensor_compute"]
