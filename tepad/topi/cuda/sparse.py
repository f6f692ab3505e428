"""``topi.cuda.sparse_dense`` / ``schedule_sparse_dense``: sparse products on CUDA targets
(run on the CPU with ``TEPAD_CUDA=emulate``)."""
from __future__ import annotations

import numpy as np

from ...errors import TepadError
from ...schedule import create_schedule
from ...target import Target
from ...tensor.operation import thread_axis
from ..nn.sparse import sparse_dense
from ..schedule_utils import as_outs
from ..utils import traverse_inline

_BSR = ("sparse_dense_sp_rhs_bsrmm", "sparse_dense_sp_lhs_bsrmm")
_CSR = ("sparse_dense_sp_rhs_csrmm", "sparse_dense_sp_lhs_csrmm")


def _threads() -> int:
    t = Target.current()
    return (t if t is not None and t.is_gpu else Target("cuda")).max_num_threads


def _bind(st, axes, num_thread):
    fused = st.fuse(*axes) if len(axes) > 1 else axes[0]
    bx, tx = st.split(fused, factor=num_thread)
    st.bind(bx, thread_axis("blockIdx.x"))
    st.bind(tx, thread_axis("threadIdx.x"))
    return tx


def schedule_sparse_dense(outs):
    """One thread per output element: the output's loops fused and split over blocks and
    threads; a CSR product that is not the output, or a BSR block stage, computes the
    thread's one value at the thread loop (a BSR reshape is inlined into its consumer)."""
    outs = as_outs(outs)
    s = create_schedule([t.op for t in outs])
    out = outs[0]
    num_thread = _threads()

    def callback(op):
        if op.tag in _CSR:
            if op in s.outputs:
                _bind(s[op], list(op.axis), num_thread)
            else:
                s[op].compute_at(s[out], _bind(s[out], list(out.op.axis), num_thread))
        elif op.tag in _BSR:
            block = op.input_tensors[0]
            host = op
            if op not in s.outputs:
                s[op].compute_inline()
                host = out.op
            tx = _bind(s[host], list(host.axis), num_thread)
            s[block].compute_at(s[host], tx)

    traverse_inline(s, out.op, callback)
    return s


def sparse_dense_padded(data, weight_data, weight_indices, weight_indptr, sparse_lhs=False):
    """``sparse_dense`` for a sparse weight whose rows hold a multiple of the warp size of
    entries (``pad_sparse_matrix``); the padded zero entries add nothing. TVM's padded
    kernel is a warp-level ir_builder program; tepad computes the same product with
    ``sparse_dense`` (schedule it with ``schedule_sparse_dense_padded``)."""
    if sparse_lhs:
        raise TepadError("topi.cuda.sparse_dense_padded: only a sparse weight "
                         "(sparse_lhs=False) is supported, as in TVM")
    return sparse_dense(data, weight_data, weight_indices, weight_indptr)


def schedule_sparse_dense_padded(outs):
    """The schedule of ``sparse_dense_padded`` (``schedule_sparse_dense``)."""
    return schedule_sparse_dense(outs)


def pad_sparse_matrix(matrix, blocksize):
    """A copy of the scipy BSR ``matrix`` whose every block row holds a multiple of
    ``blocksize`` blocks (zero blocks at column 0 appended to short rows)."""
    import scipy.sparse as sp   # noqa: PLC0415 -- scipy is optional and slow to import
    if not isinstance(matrix, sp.bsr_matrix):
        raise TepadError(f"pad_sparse_matrix: expects a scipy.sparse.bsr_matrix, got "
                         f"{type(matrix).__name__}")
    ptr = matrix.indptr
    lengths = np.diff(ptr)
    padded = -(-lengths // blocksize) * blocksize
    new_ptr = np.concatenate([[0], np.cumsum(padded)]).astype(ptr.dtype)
    data = np.zeros((int(new_ptr[-1]),) + matrix.data.shape[1:], matrix.data.dtype)
    indices = np.zeros(int(new_ptr[-1]), matrix.indices.dtype)
    for r, n in enumerate(lengths):
        data[new_ptr[r]:new_ptr[r] + n] = matrix.data[ptr[r]:ptr[r + 1]]
        indices[new_ptr[r]:new_ptr[r] + n] = matrix.indices[ptr[r]:ptr[r + 1]]
    return sp.bsr_matrix((data, indices, new_ptr), matrix.shape)


__all__ = ["sparse_dense", "schedule_sparse_dense", "sparse_dense_padded",
           "schedule_sparse_dense_padded", "pad_sparse_matrix"]
