"""``topi.x86.schedule_sparse_dense``: the CPU schedule of ``topi.nn.sparse_dense``."""
from __future__ import annotations

from ...schedule import create_schedule
from ...target import as_target
from ..schedule_utils import as_outs, extent
from ..utils import traverse_inline

_BSR = ("sparse_dense_sp_rhs_bsrmm", "sparse_dense_sp_lhs_bsrmm")
_CSR = ("sparse_dense_sp_rhs_csrmm", "sparse_dense_sp_lhs_csrmm")


def schedule_sparse_dense(outs):
    """CSR products: rows fused with the outer columns into a parallel loop. BSR products:
    the block stage reduces with its row-in-block loop innermost and vectorized (when it is
    at most a few vectors), computed per output block inside the reshape (or the output
    the reshape is inlined into), whose outer loops run in parallel."""
    outs = as_outs(outs)
    s = create_schedule([t.op for t in outs])
    out = outs[0]
    lanes = as_target(None).vector_lanes(out.dtype)

    def callback(op):
        if op.tag in _CSR:
            st = s[op]
            rows, cols = op.axis
            co, ci = st.split(cols, factor=2)
            st.parallel(st.fuse(rows, co))
            return
        if op.tag not in _BSR:
            return
        block = op.input_tensors[0]
        bst = s[block]
        if op.tag == "sparse_dense_sp_rhs_bsrmm":
            rows, nblk, in_blk = block.op.axis
            elem, c = block.op.reduce_axis
            bst.reorder(nblk, rows, elem, in_blk, c)
            bs_r = extent(in_blk)
            host_axes = list(op.axis)
            host = op
            if op not in s.outputs:     # a consumer of the reshape hosts the block
                host = out.op
                s[op].compute_inline()
                host_axes = list(host.axis)
            hst = s[host]
            no, ni = hst.split(host_axes[-1], factor=bs_r)
            fused = hst.fuse(*host_axes[:-1], no)
            hst.parallel(fused)
            bst.compute_at(hst, fused)
            if bs_r is not None and bs_r <= 4 * lanes:
                bst.vectorize(in_blk)
                hst.vectorize(ni)
        else:
            nblk, in_blk, cols = block.op.axis
            elem, c = block.op.reduce_axis
            bst.reorder(nblk, elem, c, in_blk, cols)
            bst.parallel(nblk)
            if extent(cols) is not None and extent(cols) <= 4 * lanes:
                bst.vectorize(cols)
            if op in s.outputs:
                st = s[op]
                r, cc = op.axis
                st.parallel(r)
            else:
                s[op].compute_inline()

    traverse_inline(s, out.op, callback)
    return s


__all__ = ["schedule_sparse_dense"]
