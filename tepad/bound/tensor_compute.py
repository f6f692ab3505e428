"""InferBound for a TensorComputeOp consumer (TVM's TensorComputeOpNode::PropBoundToInputs):
it reads whole regions (``intrin(A[i, 0:16])``), not scalar loads, so what it asks of an
input is the set each region Range covers over the consumer's domain."""
from __future__ import annotations

from ..arith import IntSet


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


__all__ = ["prop_region_bounds"]
