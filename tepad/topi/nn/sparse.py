"""Sparse-times-dense products and sparse helpers of TVM's ``topi.nn`` (``sparse_dense``,
``sparse_transpose``, ``sparse_add``, ``sparse_conv2d``).

A sparse matrix comes as the three arrays of scipy's CSR or BSR form: ``data`` (1-d for CSR,
``(nnz_blocks, bs_r, bs_c)`` for BSR), ``indices`` (column, or block column, of each stored
entry) and ``indptr`` (row, or block row, ``r`` holds entries ``indptr[r]:indptr[r+1]``).
The products are reductions whose extent is read from ``indptr`` at run time. BSR products
are two stages as in TVM: a block stage (tag ``..._bsrmm_block``, one result per block row,
row in the block and output row) and a reshape to the dense result (tag ``..._bsrmm``), which
the x86 and CUDA schedules and the auto-scheduler's sparse sketch rule recognise by tag.
"""
from __future__ import annotations

from ...auto_scheduler.task_input import register_task_input_check_func
from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from ...tensor.extern import extern
from ...tir import ir_builder
from ...tir.op import indexdiv, indexmod
from ..utils import get_const_tuple


def _check(t, what, fn, ndims):
    if not isinstance(t, Tensor):
        raise TepadError(f"topi.nn.{fn}: {what} must be a te.Tensor, got {type(t).__name__}")
    if len(t.shape) not in ndims:
        raise TepadError(f"topi.nn.{fn}: {what} must have {' or '.join(map(str, ndims))} "
                         f"dimensions, got shape {list(get_const_tuple(t.shape))}")


def _row_reduce(indptr, row, name="elem_idx"):
    start = indptr[row]
    return start, reduce_axis((0, indptr[row + 1] - start), name=name)


def sparse_dense_sp_rhs(data, weight_data, weight_indices, weight_indptr):
    """``data @ W.T`` for a dense ``data`` ``(M, K)`` and a sparse ``W`` ``(N, K)`` (CSR when
    ``weight_data`` is 1-d, BSR when 3-d); the result is ``(M, N)``."""
    _check(data, "data", "sparse_dense", (2,))
    _check(weight_data, "weight_data", "sparse_dense", (1, 3))
    _check(weight_indices, "weight_indices", "sparse_dense", (1,))
    _check(weight_indptr, "weight_indptr", "sparse_dense", (1,))
    if len(weight_data.shape) == 1:
        return _sp_rhs_csr(data, weight_data, weight_indices, weight_indptr)
    return _sp_rhs_bsr(data, weight_data, weight_indices, weight_indptr)


def sparse_dense_sp_lhs(data_data, data_indices, data_indptr, weight):
    """``A @ weight.T`` for a sparse ``A`` ``(M, K)`` (CSR or BSR) and a dense ``weight``
    ``(N, K)``; the result is ``(M, N)``."""
    _check(weight, "weight", "sparse_dense", (2,))
    _check(data_data, "data_data", "sparse_dense", (1, 3))
    _check(data_indices, "data_indices", "sparse_dense", (1,))
    _check(data_indptr, "data_indptr", "sparse_dense", (1,))
    if len(data_data.shape) == 1:
        return _sp_lhs_csr(data_data, data_indices, data_indptr, weight)
    return _sp_lhs_bsr(data_data, data_indices, data_indptr, weight)


def sparse_dense(dense_data, sparse_data, sparse_indices, sparse_indptr, sparse_lhs=False):
    """``dense_data @ S.T`` (``sparse_lhs=False``: ``dense_data`` ``(M, K)``, ``S``
    ``(N, K)``) or ``S @ dense_data.T`` (``sparse_lhs=True``: ``S`` ``(M, K)``,
    ``dense_data`` ``(N, K)``), ``S`` given as CSR (1-d data) or BSR (3-d data) arrays."""
    if sparse_lhs:
        return sparse_dense_sp_lhs(sparse_data, sparse_indices, sparse_indptr, dense_data)
    return sparse_dense_sp_rhs(dense_data, sparse_data, sparse_indices, sparse_indptr)


def _sp_rhs_csr(data, w_data, w_indices, w_indptr):
    oshape = (get_const_tuple(data.shape)[0], get_const_tuple(w_indptr.shape)[0] - 1)

    def f(i, row):
        start, e = _row_reduce(w_indptr, row)
        return te_op.sum(w_data[start + e] * data[i, w_indices[start + e]], axis=e)

    return compute(oshape, f, name="sparse_dense", tag="sparse_dense_sp_rhs_csrmm")


def _sp_lhs_csr(a_data, a_indices, a_indptr, weight):
    oshape = (get_const_tuple(a_indptr.shape)[0] - 1, get_const_tuple(weight.shape)[0])

    def f(row, i):
        start, e = _row_reduce(a_indptr, row)
        return te_op.sum(a_data[start + e] * weight[i, a_indices[start + e]], axis=e)

    return compute(oshape, f, name="sparse_dense", tag="sparse_dense_sp_lhs_csrmm")


def _sp_rhs_bsr(data, w_data, w_indices, w_indptr):
    m, k = get_const_tuple(data.shape)
    _, bs_r, bs_c = get_const_tuple(w_data.shape)
    num_blocks = get_const_tuple(w_indptr.shape)[0] - 1

    def block(i, nb_j, j):
        start, e = _row_reduce(w_indptr, nb_j)
        c = reduce_axis((0, bs_c), name="c")
        off = start + e
        return te_op.sum(w_data[off, j, c] * data[i, bs_c * w_indices[off] + c], axis=[e, c])

    blk = compute((m, num_blocks, bs_r), block, name="sparse_dense_block",
                  tag="sparse_dense_sp_rhs_bsrmm_block",
                  attrs={"FLOP": 2 * m * num_blocks * bs_r * k})
    return compute((m, num_blocks * bs_r),
                   lambda i, n: blk[i, indexdiv(n, bs_r), indexmod(n, bs_r)],
                   name="sparse_dense", tag="sparse_dense_sp_rhs_bsrmm")


def _sp_lhs_bsr(a_data, a_indices, a_indptr, weight):
    n = get_const_tuple(weight.shape)[0]
    _, bs_r, bs_c = get_const_tuple(a_data.shape)
    num_blocks = get_const_tuple(a_indptr.shape)[0] - 1

    def block(nb_i, i, j):
        start, e = _row_reduce(a_indptr, nb_i)
        c = reduce_axis((0, bs_c), name="c")
        off = start + e
        return te_op.sum(a_data[off, i, c] * weight[j, bs_c * a_indices[off] + c],
                         axis=[e, c])

    blk = compute((num_blocks, bs_r, n), block, name="sparse_dense_block",
                  tag="sparse_dense_sp_lhs_bsrmm_block")
    return compute((num_blocks * bs_r, n),
                   lambda r, j: blk[indexdiv(r, bs_r), indexmod(r, bs_r), j],
                   name="sparse_dense", tag="sparse_dense_sp_lhs_bsrmm")


# --------------------------------------------------------------------------- transpose

def sparse_transpose(sparse_data, sparse_indices, sparse_indptr):
    """The CSR arrays ``[data, indices, indptr]`` of the transpose of a square CSR matrix
    (an extern stage: counting sort of the entries by column)."""
    for t, w in ((sparse_data, "sparse_data"), (sparse_indices, "sparse_indices"),
                 (sparse_indptr, "sparse_indptr")):
        _check(t, w, "sparse_transpose", (1,))
    nnz = get_const_tuple(sparse_data.shape)[0]
    n = get_const_tuple(sparse_indptr.shape)[0] - 1
    outs = extern([(nnz,), (nnz,), (n + 1,)], [sparse_data, sparse_indices, sparse_indptr],
                  lambda ins, outs: _csr_transpose_ir(n, nnz, *ins, *outs),
                  tag="sparse_transpose_csr", dtype=[sparse_data.dtype, "int32", "int32"],
                  name="out")
    return list(outs)


def csr_transpose_ir(data, indices, indptr, out_data, out_indices, out_indptr):
    """The IR (an ``ir_builder`` statement) of ``sparse_transpose``: from the buffers of a
    square CSR matrix (``data`` / ``indices`` of nnz entries, ``indptr`` of n + 1) fill the
    transpose's three output buffers (TVM 0.6's ``csr_transpose_ir``)."""
    nnz = get_const_tuple(data.shape)[0]
    n = get_const_tuple(indptr.shape)[0] - 1
    return _csr_transpose_ir(n, nnz, data, indices, indptr, out_data, out_indices, out_indptr)


def _csr_transpose_ir(n, nnz, data, indices, indptr, out_data, out_indices, out_indptr):
    ib = ir_builder.create()
    d, ind, ptr = ib.buffer_ptr(data), ib.buffer_ptr(indices), ib.buffer_ptr(indptr)
    od, oind, optr = ib.buffer_ptr(out_data), ib.buffer_ptr(out_indices), \
        ib.buffer_ptr(out_indptr)
    with ib.for_range(0, n + 1, name="col") as col:
        optr[col] = 0
    with ib.for_range(0, nnz, name="e") as e:           # entries per column, shifted by one
        optr[ind[e] + 1] = optr[ind[e] + 1] + 1
    with ib.for_range(0, n, name="col") as col:          # prefix sums: column starts
        optr[col + 1] = optr[col + 1] + optr[col]
    with ib.for_range(0, n, name="row") as row:          # place entries, advancing starts
        with ib.for_range(0, ptr[row + 1] - ptr[row], name="idx") as idx:
            src = ptr[row] + idx
            col = ind[src]
            oind[optr[col]] = row
            od[optr[col]] = d[src]
            optr[col] = optr[col] + 1
    with ib.for_range(0, n, name="col") as col:          # undo the advance: shift back
        optr[n - col] = optr[n - col - 1]
    optr[0] = 0
    return ib.get()


# --------------------------------------------------------------------------- add

def sparse_add(dense_data, sparse_data, sparse_indices, sparse_indptr):
    """``dense_data + S`` for a 2-d dense tensor and a CSR matrix ``S`` of its shape (an
    extern stage copying the dense values, then adding the stored entries)."""
    _check(dense_data, "dense_data", "sparse_add", (2,))
    for t, w in ((sparse_data, "sparse_data"), (sparse_indices, "sparse_indices"),
                 (sparse_indptr, "sparse_indptr")):
        _check(t, w, "sparse_add", (1,))
    if dense_data.dtype != sparse_data.dtype:
        raise TepadError(f"topi.nn.sparse_add: dense_data ({dense_data.dtype}) and sparse_data "
                         f"({sparse_data.dtype}) must have the same dtype")
    rows, cols = get_const_tuple(dense_data.shape)

    def ir(ins, outs):
        ib = ir_builder.create()
        dd, sd, si, sp = (ib.buffer_ptr(b) for b in ins)
        out = ib.buffer_ptr(outs[0])
        with ib.for_range(0, rows, name="row", kind="parallel") as row:
            with ib.for_range(0, cols, name="col") as col:
                out[row * cols + col] = dd[row * cols + col]
            with ib.for_range(0, sp[row + 1] - sp[row], name="idx") as idx:
                e = sp[row] + idx
                out[row * cols + si[e]] = out[row * cols + si[e]] + sd[e]
        return ib.get()

    return extern((rows, cols), [dense_data, sparse_data, sparse_indices, sparse_indptr], ir,
                  tag="sparse_add_csr", dtype=dense_data.dtype, name="sparse_add_csr_output")


# --------------------------------------------------------------------------- conv2d

def sparse_conv2d(dense_data, sparse_data, sparse_indices, sparse_indptr, layout="NHWC",
                  kernel_size=1):
    """A 1x1 convolution with a BSR weight ``(out_channels, in_channels)``: ``layout``
    "NHWC" (data ``(N, H, W, C)``, result ``(N, H, W, out_channels)``) or "NCHW".
    ``sparse_data`` is ``(nnz_blocks, bs_r, bs_c)``, or ``(nnz_blocks, bs_r)`` for 1-wide
    blocks (then the block stage has no ``c`` reduction). Only ``kernel_size=1`` (TVM's 3x3
    variant is an x86 AutoTVM template)."""
    _check(dense_data, "dense_data", "sparse_conv2d", (4,))
    _check(sparse_data, "sparse_data", "sparse_conv2d", (2, 3))
    if layout not in ("NHWC", "NCHW"):
        raise TepadError(f"topi.nn.sparse_conv2d: layout must be 'NHWC' or 'NCHW', got "
                         f"{layout!r}")
    if kernel_size != 1:
        raise TepadError(f"topi.nn.sparse_conv2d: kernel_size must be 1, got {kernel_size}")
    wide = len(sparse_data.shape) == 3
    bs_r = get_const_tuple(sparse_data.shape)[1]
    bs_c = get_const_tuple(sparse_data.shape)[2] if wide else 1
    num_blocks = get_const_tuple(sparse_indptr.shape)[0] - 1
    nhwc = layout == "NHWC"

    def block_value(i, y, x, nb_j, j):
        start, e = _row_reduce(sparse_indptr, nb_j)
        off = start + e
        if wide:
            c = reduce_axis((0, bs_c), name="c")
            col = sparse_indices[off] * bs_c + c
            w, axes = sparse_data[off, j, c], [e, c]
        else:
            col = sparse_indices[off]
            w, axes = sparse_data[off, j], [e]
        d = dense_data[i, y, x, col] if nhwc else dense_data[i, col, y, x]
        return te_op.sum(w * d, axis=axes)

    attrs = {"layout": layout}
    if nhwc:
        n, h, w_, _ = get_const_tuple(dense_data.shape)
        blk = compute((n, h, w_, num_blocks, bs_r),
                      lambda i, h, w, nb_j, j: block_value(i, h, w, nb_j, j),
                      name="sparse_conv2d_block", tag="sparse_conv2d_sp_bsrmm_block",
                      attrs=attrs)
        return compute((n, h, w_, num_blocks * bs_r),
                       lambda i, y, x, o: blk[i, y, x, indexdiv(o, bs_r), indexmod(o, bs_r)],
                       name="sparse_conv2d", tag="sparse_conv2d_sp_bsrmm", attrs=attrs)
    n, _, h, w_ = get_const_tuple(dense_data.shape)
    blk = compute((n, num_blocks, bs_r, h, w_),
                  lambda i, nb_j, j, h, w: block_value(i, h, w, nb_j, j),
                  name="sparse_conv2d_block", tag="sparse_conv2d_sp_bsrmm_block", attrs=attrs)
    return compute((n, num_blocks * bs_r, h, w_),
                   lambda i, o, y, x: blk[i, indexdiv(o, bs_r), indexmod(o, bs_r), y, x],
                   name="sparse_conv2d", tag="sparse_conv2d_sp_bsrmm", attrs=attrs)


def sparse_dense_alter_layout(_attrs, _inputs, _tinfos, _out_type):
    """TVM's graph-level layout hook for sparse_dense: no change (None), as TVM's generic
    version."""
    return None


# --------------------------------------------------------------------------- task inputs

def _const_int(x) -> int:
    return int(get_const_tuple([x])[0])


def try_get_sparse_input(args):
    """``{tensor: buffer name}`` for the BSR weight arrays of the first BSR
    ``sparse_dense`` found among ``args``' producers, named as the auto-scheduler's task
    inputs expect: ``sparse_dense_bsr_{N}_{K}_{bs_r}_{bs_c}_{nnz_blocks}_{len(indptr)}_``
    followed by ``W_data``, ``W_indices``, ``W_indptr``; ``{}`` when there is none."""
    return _find_sparse(args, "sparse_dense_sp_rhs_bsrmm", 2, _dense_names)


def try_get_conv2d_sparse_input(args):
    """As ``try_get_sparse_input`` for ``sparse_conv2d`` (prefix ``sparse_conv2d_bsr_{M}_{H}
    _{W}_{N}_{K}_{bs_r}_{bs_c}_{nnz_blocks}_{len(indptr)}_``)."""
    return _find_sparse(args, "sparse_conv2d_sp_bsrmm", 4, _conv_names)


def _weights(block, dense):
    """The BSR arrays (data, indices, indptr) among the block stage's inputs other than
    ``dense``: data is the 2-d or 3-d one, indices the 1-d one as long as data, indptr the
    other 1-d one."""
    ins = [t for t in block.op.input_tensors if t is not dense]
    data = [t for t in ins if len(t.shape) in (2, 3)]
    if len(data) != 1:
        return None
    nnz = _const_int(data[0].shape[0])
    one = [t for t in ins if len(t.shape) == 1]
    idx = [t for t in one if _const_int(t.shape[0]) == nnz]
    ptr = [t for t in one if t not in idx[:1]]
    if not idx or len(ptr) != 1:
        return None
    return data[0], idx[0], ptr[0]


def _dense_names(out, block, dense):
    data, idx, ptr = _weights(block, dense)
    n = _const_int(out.shape[1])
    k = _const_int(dense.shape[1])
    _, bs_r, bs_c = get_const_tuple(data.shape)
    return data, idx, ptr, (f"sparse_dense_bsr_{n}_{k}_{bs_r}_{bs_c}_"
                            f"{_const_int(idx.shape[0])}_{_const_int(ptr.shape[0])}_")


def _conv_names(out, block, dense):
    data, idx, ptr = _weights(block, dense)
    bs_r = get_const_tuple(data.shape)[1]
    bs_c = get_const_tuple(data.shape)[2] if len(data.shape) == 3 else 1
    shape = get_const_tuple(dense.shape)
    if block.op.attrs.get("layout") == "NCHW":
        m, k, h, w = shape
    else:
        m, h, w, k = shape
    n = (_const_int(ptr.shape[0]) - 1) * bs_r
    return data, idx, ptr, (f"sparse_conv2d_bsr_{m}_{h}_{w}_{n}_{k}_{bs_r}_{bs_c}_"
                            f"{_const_int(idx.shape[0])}_{_const_int(ptr.shape[0])}_")


def _find_sparse(args, tag, dense_rank, names):
    seen = set()
    stack = [t for t in args if isinstance(t, Tensor)]
    while stack:
        t = stack.pop()
        if id(t.op) in seen:
            continue
        seen.add(id(t.op))
        if getattr(t.op, "tag", "") == tag and len(t.op.input_tensors) == 1:
            block = t.op.input_tensors[0]
            dense = [x for x in block.op.input_tensors if len(x.shape) == dense_rank]
            try:
                got = len(dense) == 1 and _weights(block, dense[0]) and \
                    names(t, block, dense[0])
            except (TepadError, TypeError, ValueError):
                got = None
            if got:
                data, idx, ptr, prefix = got
                return {data: prefix + "W_data", idx: prefix + "W_indices",
                        ptr: prefix + "W_indptr"}
        stack.extend(t.op.input_tensors)
    return {}


register_task_input_check_func(try_get_sparse_input)
register_task_input_check_func(try_get_conv2d_sparse_input)

__all__ = ["csr_transpose_ir", "sparse_dense", "sparse_dense_sp_rhs", "sparse_dense_sp_lhs", "sparse_transpose",
           "sparse_add", "sparse_conv2d", "sparse_dense_alter_layout", "try_get_sparse_input",
           "try_get_conv2d_sparse_input"]
