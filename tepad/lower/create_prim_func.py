"""``te.create_prim_func``: TE definitions to a TIR PrimFunc made of blocks (TVM's
``tvm.te.create_prim_func``), without a schedule.

    A = te.placeholder((128, 64), name="A")
    k = te.reduce_axis((0, 64), name="k")
    B = te.compute((128,), lambda i: te.sum(A[i, k], axis=k), name="B")
    func = te.create_prim_func([A, B])
    print(func.script())            # for i, k: with T.block("B"): v_i = T.axis.spatial(...)
    mod = tepad.build(func)         # blocks lowered (LowerInitBlock, ConvertBlocksToOpaque,
                                    # LowerOpaqueBlock), then the usual build pipeline

Each compute operation becomes a loop nest (one loop per axis, then one per reduction axis,
named after the axes) around one ``Block`` named after the operation: its iter vars are the
axes (``v_i``, spatial) and the reduction axes (reduce), bound to the loops by the
``BlockRealize``; ``reads`` / ``writes`` are the regions the body touches in terms of the iter
vars; a reduction's block has ``init`` (the identity, or ``te.sum(..., init=...)``'s value)
and an update ``out[v] = combine(out[v], source)``, under ``where=``'s condition. Operations
are placed in dependence order inside a root block, which allocates every tensor that is not
an argument (``alloc_buffers``). Arguments become the function's buffers in the given order;
a ``te.var`` in ``args`` is a scalar parameter.

Refused (TepadError, naming the operation): scans, extern operations, tensor-intrinsic
computes (their bodies are not expressions), and placeholders read but missing from ``args``.
"""
from __future__ import annotations

from ..arith.affine import affine_terms
from ..errors import TepadError, TepadTypeError
from ..tensor.tensor import ComputeOp, PlaceholderOp, Tensor
from ..tir import expr as E
from ..tir.buffer import decl_buffer
from ..tir.expr import BufferLoad, ProducerLoad, Range, Var, const
from ..tir.function import PrimFunc
from ..tir.functor import Mutator, post_order_visit, substitute
from ..tir.itervar import IterVar, IterVarType
from ..tir.reduce import Reduce
from ..tir.stmt import (Block, BlockRealize, BufferRegion, BufferStore, For, IfThenElse,
                        LetStmt, seq)


def _topo_ops(outputs) -> list:
    """Compute and placeholder operations reachable from ``outputs``, producers first."""
    order, seen = [], set()

    def visit(op):
        if id(op) in seen:
            return
        seen.add(id(op))
        for t in op.input_tensors:
            visit(t.op)
        order.append(op)
    for t in outputs:
        visit(t.op)
    return order


class _ToBuffers(Mutator):
    """ProducerLoad of a tensor -> BufferLoad of its buffer; axis vars -> block vars."""

    def __init__(self, buffers, vmap):
        self.buffers, self.vmap = buffers, vmap

    def visit_Var(self, v):
        return self.vmap.get(v, v)

    def visit_ProducerLoad(self, e):
        t = e.producer
        buf = self.buffers.get(_key(t))
        if buf is None:
            raise TepadError(f"create_prim_func: tensor {t.name} is read but is neither an "
                             "argument nor computed by an operation of the function")
        return BufferLoad(buf, self._visit_sequence(e.indices))


def _key(t: Tensor):
    return (id(t.op), t.value_index)


def _region_of(buf, index_lists) -> BufferRegion:
    """The region covering every index tuple of ``index_lists`` (accesses of ``buf``): per
    axis the point when all agree, ``[x + c_min, x + c_max]`` when they differ by constants,
    else the whole axis."""
    region = []
    for axis, extent in enumerate(buf.shape):
        idx = [ix[axis] for ix in index_lists]
        first = idx[0]
        offsets = []
        for x in idx:
            d = E.sub(x, first)
            if not isinstance(d, E.IntImm):
                from_affine = _const_difference(x, first)
                if from_affine is None:
                    offsets = None
                    break
                d = const(from_affine, first.dtype)
            offsets.append(d.value)
        if offsets is None:
            region.append(Range.from_min_extent(const(0, E.convert(extent).dtype), extent))
        else:
            lo, hi = min(offsets), max(offsets)
            base = first if lo == 0 else first + lo
            region.append(Range.from_min_extent(base, hi - lo + 1))
    return BufferRegion(buf, region)


def _const_difference(a, b):
    ta, tb = affine_terms(a), affine_terms(b)
    if ta is None or tb is None or ta[0] != tb[0]:
        return None
    return ta[1] - tb[1]


def _regions(stmts, exclude) -> list:
    """BufferRegions read by ``stmts`` (every BufferLoad), in first-use order, without the
    buffers of ``exclude``."""
    by_buf: dict = {}

    def f(n):
        if isinstance(n, BufferLoad) and n.buffer not in exclude:
            by_buf.setdefault(n.buffer, []).append(n.indices)
    for s in stmts:
        if s is not None:
            post_order_visit(s, f)
    return [_region_of(b, ix) for b, ix in by_buf.items()]


def _block_for(op: ComputeOp, buffers) -> tuple:
    """``(loop nest, block)`` computing ``op`` into its buffers."""
    loops, iter_vars, vmap = [], [], {}
    reduce_axes = list(op.reduce_axis)
    for iv in (*op.axis, *reduce_axes):
        if iv.dom is None:
            raise TepadError(f"create_prim_func: axis {iv.var.name} of {op.name} has no range")
        lv = Var(iv.var.name.replace(".", "_"), iv.var.dtype)
        bv = Var("v_" + lv.name, iv.var.dtype)
        kind = IterVarType.CommReduce if iv in reduce_axes else IterVarType.DataPar
        iter_vars.append(IterVar(iv.dom, bv, kind))
        loops.append((lv, iv.dom))
        vmap[iv.var] = bv
    conv = _ToBuffers(buffers, vmap)
    outs = [buffers[_key(op.output(k))] for k in range(op.num_outputs)]
    idx = tuple(vmap[iv.var] for iv in op.axis)
    init = None
    if isinstance(op.body[0], Reduce):
        red = op.body[0]
        combiner = red.combiner
        sources = [conv.visit(s) for s in red.source]
        inits = [conv.visit(v) for v in red.init] if red.init else \
            [combiner.identity(k) for k in range(combiner.size)]
        init = seq(*(BufferStore(outs[k], inits[k], idx) for k in range(len(outs))))
        olds = [BufferLoad(outs[k], idx) for k in range(len(outs))]
        news = combiner.combine_all(olds, sources)
        if len(outs) == 1:
            body = BufferStore(outs[0], news[0], idx)
        else:
            # every result reads every old value: compute them all before storing any
            tmps = [Var(f"{op.name}_v{k}", n.dtype) for k, n in enumerate(news)]
            body = seq(*(BufferStore(outs[k], tmps[k], idx) for k in range(len(outs))))
            for tmp, new in reversed(list(zip(tmps, news))):
                body = LetStmt(tmp, new, body)
        cond = conv.visit(red.condition)
        if not (isinstance(cond, E.IntImm) and cond.value):
            body = IfThenElse(cond, body)
    else:
        body = seq(*(BufferStore(outs[k], conv.visit(op.body[k]), idx)
                     for k in range(op.num_outputs)))
    reads = _regions([init, body], set(outs))
    writes = [BufferRegion(b, [Range.from_min_extent(i, 1) for i in idx]) for b in outs]
    block = Block(iter_vars, reads, writes, op.name, body, init)
    nest = BlockRealize([lv for lv, _ in loops], True, block)
    for lv, dom in reversed(loops):
        nest = For(lv, dom.min, dom.extent, "serial", nest)
    return nest


def create_prim_func(ops, index_dtype_override=None) -> PrimFunc:
    """A PrimFunc of blocks computing the tensors of ``ops`` (see the module docstring).

    ``ops``: the function's arguments in order -- tensors (placeholders and computed
    tensors) and scalar ``te.var``s. Every compute operation the arguments depend on is
    computed; those whose tensors are not arguments get buffers allocated in the root block.
    ``index_dtype_override`` is TVM's option to rewrite index types: only None and "int32"
    (tepad's index type) are accepted."""
    if index_dtype_override not in (None, "int32"):
        raise TepadError("create_prim_func: index_dtype_override must be None or 'int32' "
                         f"(tepad indexes with int32), got {index_dtype_override!r}")
    if isinstance(ops, Tensor):
        ops = [ops]
    if not isinstance(ops, (list, tuple)) or not ops:
        raise TepadError("create_prim_func takes a list of te tensors (and scalar te.vars), "
                         f"got {ops!r}")
    tensors = []
    for k, a in enumerate(ops):
        if not isinstance(a, (Tensor, Var)):
            raise TepadError(f"create_prim_func: argument {k} must be a te.Tensor or a "
                             f"te.var, got {type(a).__name__}")
        if isinstance(a, Tensor):
            tensors.append(a)
    order = _topo_ops(tensors)
    arg_keys = {_key(t) for t in tensors}
    buffers, allocs = {}, []
    for t in tensors:
        if _key(t) not in buffers:
            buffers[_key(t)] = decl_buffer(t.shape, t.dtype, t.name)
    for op in order:
        # the kind of every operation first: a scan's state placeholder is not an argument
        if not isinstance(op, PlaceholderOp) and type(op) is not ComputeOp:
            raise TepadTypeError(f"create_prim_func: Unsupported Operation: "
                                 f"{type(op).__name__}. Operation {op.name} is a "
                                 f"{type(op).__name__}; only te.compute operations (and "
                                 "placeholders) can become blocks")
    for op in order:
        if isinstance(op, PlaceholderOp):
            if _key(op.output(0)) not in arg_keys:
                raise TepadError(f"create_prim_func: placeholder {op.name} is read but not in "
                                 "the argument list")
            continue
        for k in range(op.num_outputs):
            t = op.output(k)
            if _key(t) not in buffers:
                buffers[_key(t)] = decl_buffer(t.shape, t.dtype, t.name)
                allocs.append(buffers[_key(t)])
    nests = [_block_for(op, buffers) for op in order if isinstance(op, ComputeOp)]
    root = Block((), (), (), "root", seq(*nests), None, allocs)
    params, buffer_map = [], {}
    for a in ops:
        if isinstance(a, Var):
            params.append(a)
            continue
        buf = buffers[_key(a)]
        if buf.data in buffer_map:
            raise TepadError(f"create_prim_func: tensor {a.name} is listed twice")
        params.append(buf.data)
        buffer_map[buf.data] = buf
    return PrimFunc(params, BlockRealize((), True, root), buffer_map,
                    {"global_symbol": "main", "tir.noalias": True})


__all__ = ["create_prim_func"]
