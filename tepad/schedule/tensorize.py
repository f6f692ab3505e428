"""The schedule side of ``Stage.tensorize``: what can be checked when the call is made.

Whether the intrinsic really computes the loops it replaces needs the loops' bounds; that
check (TVM's MatchTensorizeBody / VerifyTensorizeBody) runs when lowering, in
``tepad.lower.tensorize``.
"""
from __future__ import annotations

from ..errors import TepadError
from ..tensor.tensor import ComputeOp, Tensor
from ..tensor.tensor_intrin import TensorComputeOp, TensorIntrin
from ..tir.expr import ProducerLoad, Range, Var
from ..tir.functor import substitute
from ..tir.itervar import IterVar, IterVarType


def check_tensorize(stage, var, intrin):
    """Refuse what cannot be tensorized whatever the bounds: something other than a
    TensorIntrin, an intrinsic whose op has another number of outputs than the stage, a
    reduction intrinsic for a non-reduction stage (and the reverse), and a second
    tensorized loop in the same stage."""
    if not isinstance(intrin, TensorIntrin):
        raise TepadError(f"stage {stage.name}: tensorize({var.name}, ...) needs a tensor "
                         f"intrinsic from te.decl_tensor_intrin, got {intrin!r}")
    op, iop = stage.op, intrin.op
    if isinstance(op, TensorComputeOp):
        _check_composed(stage, var, intrin)
        return
    if not isinstance(op, ComputeOp):
        raise TepadError(f"stage {stage.name}: tensorize needs a te.compute stage")
    if op.num_outputs != iop.num_outputs:
        raise TepadError(f"stage {stage.name}: tensorize with {intrin.name}, which computes "
                         f"{iop.num_outputs} output(s); {stage.name} has {op.num_outputs}")
    if bool(op.reduce_axis) != bool(iop.reduce_axis):
        what = "a reduction" if op.reduce_axis else "not a reduction"
        iwhat = "is" if iop.reduce_axis else "is not"
        raise TepadError(f"stage {stage.name} is {what}, but the intrinsic {intrin.name} "
                         f"{iwhat}; tensorize needs the same kind of compute")
    if not op.reduce_axis and intrin.body is None:
        raise TepadError(f"stage {stage.name}: the intrinsic {intrin.name} has no body")
    for iv, attr in stage.iter_var_attrs.items():
        if iv is not var and getattr(attr, "tensor_intrin", None) is not None:
            raise TepadError(f"stage {stage.name}: loop {iv.name} is already tensorized; a "
                             "stage can be tensorized at one loop only")


def _check_composed(stage, var, intrin):
    """A TensorComputeOp stage tensorized with an intrinsic whose op calls the same
    intrinsic (without reductions or scalar arguments)."""
    op, iop = stage.op, intrin.op
    if not isinstance(iop, TensorComputeOp) or iop.intrin is not op.intrin:
        raise TepadError(f"stage {stage.name} calls the tensor intrinsic {op.intrin.name}; "
                         f"tensorize it with an intrinsic declared over a compute that calls "
                         f"{op.intrin.name} too, not {intrin.name}")
    if op.reduce_axis or iop.reduce_axis or op.scalar_inputs or intrin.scalar_params:
        raise TepadError(f"stage {stage.name}: tensorize of a stage calling a tensor "
                         "intrinsic takes no reduction and no scalar arguments")
    if intrin.body is None:
        raise TepadError(f"stage {stage.name}: the intrinsic {intrin.name} has no body")
    for iv, attr in stage.iter_var_attrs.items():
        if iv is not var and getattr(attr, "tensor_intrin", None) is not None:
            raise TepadError(f"stage {stage.name}: loop {iv.name} is already tensorized; a "
                             "stage can be tensorized at one loop only")


def rebuild_tensor_compute(op: TensorComputeOp, vmap: dict) -> TensorComputeOp:
    """``op`` reading ``vmap[t]`` (followed to the newest tensor) instead of each input
    ``t`` in ``vmap``; ``op`` itself when it reads none. A producer being inlined (a
    callable in ``vmap``) is refused: a tensor intrinsic reads memory regions."""
    rmap = {}
    for t in op.inputs:
        rep = vmap.get(t)
        seen = 0
        while isinstance(rep, Tensor) and rep in vmap and seen < 64:
            rep = vmap[rep]
            seen += 1
        if rep is None:
            continue
        if not isinstance(rep, Tensor):
            raise TepadError(f"{t.name} cannot be inlined into {op.name}: {op.name} calls the "
                             f"tensor intrinsic {op.intrin.name}, which reads {t.name} from "
                             f"memory; compute it at root or at a loop of {op.name}")
        rmap[t] = rep
    return op.replace_inputs(rmap)


def tensor_compute_cache_write(op: TensorComputeOp, scope: str):
    """TVM's cache_write of a TensorComputeOp: ``(cache, copy)`` where ``cache`` calls the
    intrinsic into a new tensor ``<name>.<scope>`` and ``copy`` is a te.compute copying it
    into the original tensor (its opaque dimensions become ordinary loops)."""
    new_axis = [IterVar(iv.dom, Var(iv.name + ".c", iv.var.dtype), iv.iter_type)
                for iv in op.axis]
    vsub = {old.var: new.var for old, new in zip(op.axis, new_axis)}
    regions = [[Range.from_min_extent(substitute(r.min, vsub), substitute(r.extent, vsub))
                for r in reg] for reg in op.input_regions]
    cache_op = TensorComputeOp(f"{op.name}.{scope}", op.tag, op.attrs, new_axis,
                               op.reduce_axis, op.schedulable_ndim, op.intrin, op.inputs,
                               regions, [substitute(e, vsub) for e in op.scalar_inputs])
    copy_axis = [iv if iv.iter_type != IterVarType.Opaque else
                 IterVar(iv.dom, Var(iv.name, iv.var.dtype), IterVarType.DataPar)
                 for iv in op.axis]
    copy_op = ComputeOp(op.name, op.tag, op.attrs, copy_axis,
                        [ProducerLoad(cache_op.output(k), [iv.var for iv in copy_axis])
                         for k in range(op.num_outputs)])
    return cache_op, copy_op


__all__ = ["check_tensorize", "rebuild_tensor_compute", "tensor_compute_cache_write"]
