"""A float16 matmul with float32 accumulation scheduled as TVM's tensor-core examples are:
A and B staged through shared memory into ``wmma.matrix_a`` / ``wmma.matrix_b`` fragments, C
accumulated in a ``wmma.accumulator`` fragment of 16 x 16 per warp, warps laid out over
``threadIdx.y`` / ``threadIdx.z``, the k loop split by 16."""
from tepad import te


def wmma_matmul(n, warps=(1, 1), tensorize_with=None):
    """``(schedule, [A, B, C], (AF, BF, CF))`` of C = A @ B (n x n, n a multiple of 16 times
    the warp grid). ``tensorize_with``: a function ``(s, AF, BF, CF, axes) -> None`` that
    tensorizes the fragment stages (``axes``: CF's 16 x 16 x 16 loops and AF/BF/C's inner
    16 x 16 loops)."""
    A = te.placeholder((n, n), name="A", dtype="float16")
    B = te.placeholder((n, n), name="B", dtype="float16")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k].astype("float32") *
                                               B[k, j].astype("float32"), axis=k), name="C")
    s = te.create_schedule(C.op)
    AS, BS = s.cache_read(A, "shared", [C]), s.cache_read(B, "shared", [C])
    AF = s.cache_read(AS, "wmma.matrix_a", [C])
    BF = s.cache_read(BS, "wmma.matrix_b", [C])
    CF = s.cache_write(C, "wmma.accumulator")
    wy, wz = warps
    i, j = C.op.axis
    bi, ii = s[C].split(i, factor=16 * wy)
    bj, jj = s[C].split(j, factor=16 * wz)
    ty, ii = s[C].split(ii, factor=16)
    tz, jj = s[C].split(jj, factor=16)
    s[C].reorder(bi, bj, ty, tz, ii, jj)
    s[C].bind(bi, te.thread_axis("blockIdx.x"))
    s[C].bind(bj, te.thread_axis("blockIdx.y"))
    s[C].bind(ty, te.thread_axis("threadIdx.y"))
    s[C].bind(tz, te.thread_axis("threadIdx.z"))
    s[CF].compute_at(s[C], tz)
    ci, cj = CF.op.axis
    (ck,) = CF.op.reduce_axis
    ko, ki = s[CF].split(ck, factor=16)
    s[CF].reorder(ko, ci, cj, ki)
    for F in (AF, BF, AS, BS):
        s[F].compute_at(s[CF], ko)
    for S in (AS, BS):
        f = s[S].fuse(*S.op.axis)
        f, t = s[S].split(f, factor=32)
        f, y = s[S].split(f, factor=wy)
        s[S].bind(t, te.thread_axis("threadIdx.x"))
        s[S].bind(y, te.thread_axis("threadIdx.y"))
    if tensorize_with is not None:
        tensorize_with(s, AF, BF, CF, C, (ci, cj, ki), (ii, jj))
    return s, [A, B, C], (AF, BF, CF)
