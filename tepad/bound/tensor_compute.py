"""InferBound for a TensorComputeOp consumer (TVM's TensorComputeOpNode::PropBoundToInputs):
it reads whole regions (``intrin(A[i, 0:16])``), not scalar loads, so what it asks of an
input is the set each region Range covers over the consumer's domain."""
from __future__ import annotations

from ..arith import Analyzer, IntSet
from ..errors import TepadError
from ..tir.printer import expr_to_str


def prop_region_bounds(op, ana, dom, tmap):
    """Phase 3 for TensorComputeOp ``op``: for every input in ``tmap`` and dimension, the
    IntSet ``[min, min + extent - 1]`` of its region evaluated over ``dom``."""
    for t, region in zip(op.inputs, op.input_regions):
        if t not in tmap:
            continue
        for k, r in enumerate(region):
            lo = ana.int_set(r.min, dom)
            hi = ana.int_set(ana.simplify(r.min + r.extent - 1), dom)
            if lo.has_lower_bound() and hi.has_upper_bound():
                tmap[t][k].append(IntSet.interval(lo.min(), hi.max()))
            else:
                tmap[t][k].append(IntSet.everything())


def check_region_reads(op):
    """Every region TensorComputeOp ``op`` reads lies inside its tensor's shape for every
    point of the op's axes and reduce axes; else a TepadError naming the region (a tensor
    intrinsic reads its whole region: no guard can stop it half way). ``read_check`` calls
    it for every TensorComputeOp before lowering."""
    ana = Analyzer()
    for iv in op.root_iter_vars:
        ana.bind(iv.var, iv.dom)
    for t, region in zip(op.inputs, op.input_regions):
        for k, r in enumerate(region):
            if ana.can_prove(r.min >= 0) and ana.can_prove(r.min + r.extent <= t.shape[k]):
                continue
            reg = ", ".join(f"{expr_to_str(x.min)}:{expr_to_str(ana.simplify(x.min + x.extent))}"
                            for x in region)
            shape = ", ".join(expr_to_str(e) for e in t.shape)
            raise TepadError(
                f"stage {op.name} reads {t.name}[{reg}] through the tensor intrinsic "
                f"{op.intrin.name}, which may leave {t.name}'s shape ({shape}) along "
                f"dimension {k}; every region a call reads must lie inside the tensor")


__all__ = ["prop_region_bounds", "check_region_reads"]
