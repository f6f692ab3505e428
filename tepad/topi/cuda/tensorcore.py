"""TVM's ``topi.cuda.dense_tensorcore`` / ``batch_matmul_tensorcore`` and their schedules:
float16 operands multiplied on tensor cores (16 x 16 x 16 wmma fragments) with float32
accumulation.

The schedule gives each warp one 16 x 16 output tile (up to 2 x 2 warps per block, laid out
over ``threadIdx.y`` / ``threadIdx.z``): per 16-long k step the block stages its strips of the
two operands in shared memory (the 32 lanes of ``threadIdx.x`` copy them), loads them into
``wmma.matrix_a`` / ``wmma.matrix_b`` fragments, multiplies into a ``wmma.accumulator``
fragment and finally stores that straight to the (global) output. A bias, when given, is a
second, elementwise kernel. Sizes must be multiples of 16 (TVM also takes multiples of 8 / 32
with its other fragment shapes); run it on the CPU with ``TEPAD_CUDA=emulate``."""
from __future__ import annotations

from ...schedule import create_schedule
from ...tensor.operation import compute, placeholder, reduce_axis, thread_axis, var
from ...tensor.operation import sum as reduce_sum
from ...tensor.tensor import ComputeOp, Tensor
from ...errors import TepadError
from .. import tag
from .schedules import schedule_injective_from_existing
from .tensor_intrin import (ACC_DTYPE, IN_DTYPE, SHAPE, intrin_wmma_gemm,
                            intrin_wmma_load_matrix_A, intrin_wmma_load_matrix_W,
                            intrin_wmma_store_matrix)

__all__ = ["dense_tensorcore", "schedule_dense_tensorcore", "batch_matmul_tensorcore",
           "schedule_batch_matmul_tensorcore"]

_DENSE_TAG = "dense_tensorcore"
_BMM_TAG = "batch_matmul_tensorcore"


def _const_shape(t, what, where):
    try:
        return tuple(int(x) for x in t.shape)
    except (TypeError, AttributeError):
        raise TepadError(f"{where}: {what} needs a constant shape, got {list(t.shape)}") \
            from None


def _check_operands(where, tensors, sizes, out_dtype):
    for name, t in tensors:
        if t.dtype != IN_DTYPE:
            raise TepadError(f"{where}: {name} has dtype {t.dtype!r}; tepad's tensor-core "
                             f"version takes float16 operands only (16 x 16 x 16 fragments)")
    if out_dtype != ACC_DTYPE:
        raise TepadError(f"{where}: out_dtype {out_dtype!r}; tepad's tensor cores accumulate "
                         f"in float32 only (TVM also takes float16)")
    bad = {k: v for k, v in sizes.items() if v % 16}
    if bad:
        raise TepadError(f"{where}: sizes {bad} are not multiples of 16; tepad's tensor-core "
                         f"version takes (M, K, N) multiples of 16 only (16 x 16 x 16 "
                         f"fragments)")


def dense_tensorcore(data, weight, bias=None, out_dtype=None):
    """``out[i, j] = sum_k data[i, k] * weight[j, k] (+ bias[j])``: ``data`` (M, K) and
    ``weight`` (N, K), float16, M / K / N multiples of 16; ``out_dtype`` float32 (the default;
    TVM's default is the input dtype, which tepad's float32-only accumulators cannot give)."""
    where = "dense_tensorcore"
    out_dtype = ACC_DTYPE if out_dtype is None else str(out_dtype)
    if len(data.shape) != 2 or len(weight.shape) != 2:
        raise TepadError(f"{where}: data and weight must be 2-D, got {list(data.shape)} and "
                         f"{list(weight.shape)}")
    M, K = _const_shape(data, "data", where)
    N, K2 = _const_shape(weight, "weight", where)
    if K != K2:
        raise TepadError(f"{where}: data (M, K) = {(M, K)} and weight (N, K) = {(N, K2)} "
                         f"disagree on K")
    _check_operands(where, [("data", data), ("weight", weight)], {"M": M, "K": K, "N": N},
                    out_dtype)
    if bias is not None and (len(bias.shape) != 1 or _const_shape(bias, "bias", where) != (N,)):
        raise TepadError(f"{where}: bias must have shape ({N},), got {list(bias.shape)}")
    k = reduce_axis((0, K), name="k")
    out = compute((M, N), lambda i, j: reduce_sum(data[i, k].astype(out_dtype) *
                                                  weight[j, k].astype(out_dtype), axis=k),
                  name="T_dense", tag=_DENSE_TAG)
    if bias is not None:
        out = compute((M, N), lambda i, j: out[i, j] + bias[j].astype(out_dtype),
                      name="T_add", tag=tag.BROADCAST)
    return out


def batch_matmul_tensorcore(x, y, out_shape=None, out_dtype=None, transpose_a=False,
                            transpose_b=True):
    """``out[b, i, j] = sum_k x[b, i, k] * y[b, j, k]``: ``x`` (B, M, K), ``y`` (B, N, K),
    float16, M / K / N multiples of 16, float32 out. As TVM's, only ``transpose_a=False,
    transpose_b=True`` is supported and ``out_shape`` is not used; the batch sizes must
    agree (no broadcasting)."""
    where = "batch_matmul_tensorcore"
    if transpose_a or not transpose_b:
        raise TepadError(f"{where}: transpose_a={transpose_a}, transpose_b={transpose_b}; "
                         f"only transpose_a=False, transpose_b=True is supported (as TVM's)")
    out_dtype = ACC_DTYPE if out_dtype is None else str(out_dtype)
    if len(x.shape) != 3 or len(y.shape) != 3:
        raise TepadError(f"{where}: x and y must be 3-D, got {list(x.shape)} and "
                         f"{list(y.shape)}")
    B, M, K = _const_shape(x, "x", where)
    B2, N, K2 = _const_shape(y, "y", where)
    if B != B2 or K != K2:
        raise TepadError(f"{where}: x (B, M, K) = {(B, M, K)} and y (B, N, K) = "
                         f"{(B2, N, K2)} must agree on B and K")
    _check_operands(where, [("x", x), ("y", y)], {"M": M, "K": K, "N": N}, out_dtype)
    k = reduce_axis((0, K), name="k")
    return compute((B, M, N), lambda b, i, j: reduce_sum(x[b, i, k].astype(out_dtype) *
                                                         y[b, j, k].astype(out_dtype), axis=k),
                   name="T_batch_matmul", tag=_BMM_TAG)


# ------------------------------------------------------------------------------ schedules
def _gemm_intrin():
    m, n, kk = SHAPE
    A = placeholder((m, kk), name="A", dtype=IN_DTYPE)
    W = placeholder((n, kk), name="W", dtype=IN_DTYPE)
    k = reduce_axis((0, kk), name="k")
    C = compute((m, n), lambda i, j: reduce_sum(A[i, k].astype(ACC_DTYPE) *
                                                W[j, k].astype(ACC_DTYPE), axis=k), name="C")
    return intrin_wmma_gemm(A, W, C, None, None, None, SHAPE)


def _schedule_wmma(s, C):
    """Schedule the tensor-core product ``C`` (2-D, or 3-D with a leading batch axis)."""
    data, weight = C.op.input_tensors
    batched = len(C.shape) == 3
    M, N = (int(v) for v in C.shape[-2:])
    wy = 2 if M % 32 == 0 else 1
    wz = 2 if N % 32 == 0 else 1
    AS, WS = s.cache_read(data, "shared", [C]), s.cache_read(weight, "shared", [C])
    AF = s.cache_read(AS, "wmma.matrix_a", [C])
    WF = s.cache_read(WS, "wmma.matrix_b", [C])
    CF = s.cache_write(C, "wmma.accumulator")
    i, j = C.op.axis[-2:]
    bi, ii = s[C].split(i, factor=16 * wy)
    bj, jj = s[C].split(j, factor=16 * wz)
    ty, ii = s[C].split(ii, factor=16)
    tz, jj = s[C].split(jj, factor=16)
    if batched:
        s[C].reorder(C.op.axis[0], bi, bj, ty, tz, ii, jj)
        s[C].bind(C.op.axis[0], thread_axis("blockIdx.z"))
    else:
        s[C].reorder(bi, bj, ty, tz, ii, jj)
    s[C].bind(bi, thread_axis("blockIdx.x"))
    s[C].bind(bj, thread_axis("blockIdx.y"))
    s[C].bind(ty, thread_axis("threadIdx.y"))
    s[C].bind(tz, thread_axis("threadIdx.z"))
    s[CF].compute_at(s[C], tz)
    ci, cj = CF.op.axis[-2:]
    (ck,) = CF.op.reduce_axis
    ko, ki = s[CF].split(ck, factor=16)
    s[CF].reorder(ko, ci, cj, ki)
    for F in (AF, WF, AS, WS):
        s[F].compute_at(s[CF], ko)
    for S in (AS, WS):
        f = s[S].fuse(*S.op.axis)
        f, t = s[S].split(f, factor=32)
        f, y = s[S].split(f, factor=wy)
        s[S].bind(t, thread_axis("threadIdx.x"))
        s[S].bind(y, thread_axis("threadIdx.y"))
    m, n, kk = SHAPE
    shared = [var("s"), 1]
    s[AF].tensorize(AF.op.axis[-2], intrin_wmma_load_matrix_A(
        None, shared, SHAPE, "row_major", (m, kk), (m, kk), IN_DTYPE))
    s[WF].tensorize(WF.op.axis[-2], intrin_wmma_load_matrix_W(
        None, shared, SHAPE, "col_major", (n, kk), (n, kk), IN_DTYPE))
    s[CF].tensorize(ci, _gemm_intrin())
    s[C].tensorize(ii, intrin_wmma_store_matrix(shared, None, SHAPE, ACC_DTYPE, (m, n),
                                                (m, n)))


def _schedule(outs, product_tag, where):
    outs = [outs] if isinstance(outs, Tensor) else list(outs)
    s = create_schedule([o.op for o in outs])
    done = []

    def visit(op):
        if op in done or not isinstance(op, ComputeOp):
            return
        done.append(op)
        if op.tag == product_tag:
            _schedule_wmma(s, op.output(0))
            return
        if tag.is_broadcast(op.tag) or tag.is_injective(op.tag):
            if op not in s.outputs:
                s[op].compute_inline()
            else:
                schedule_injective_from_existing(s, op.output(0))
            for t in op.input_tensors:
                visit(t.op)
            return
        raise TepadError(f"{where}: cannot schedule {op.name} (tag {op.tag!r}); expected the "
                         f"{product_tag} compute and elementwise ops after it")
    for o in outs:
        visit(o.op)
    if not any(op.tag == product_tag for op in done):
        raise TepadError(f"{where}: no {product_tag} compute among the outputs' producers")
    return s


def schedule_dense_tensorcore(outs):
    """Schedule of ``dense_tensorcore`` (and elementwise ops after it, e.g. its bias add)."""
    return _schedule(outs, _DENSE_TAG, "schedule_dense_tensorcore")


def schedule_batch_matmul_tensorcore(outs):
    """Schedule of ``batch_matmul_tensorcore`` (and elementwise ops after it)."""
    return _schedule(outs, _BMM_TAG, "schedule_batch_matmul_tensorcore")
