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


# --------------------------------------------------------------------------- TVM's intrinsics
def _frag(ib_buf):
    return ib_buf.elem_offset // 256


def intrin_load_matrix(scope, dtype="float16", layout="row_major"):
    """A 16 x 16 tile of shared memory -> the fragment ``scope`` (tvm_load_matrix_sync)."""
    from tepad import tir
    n = 16
    A = te.placeholder((n, n), name="A", dtype=dtype)
    BA = tir.decl_buffer(A.shape, A.dtype, scope="shared", data_alignment=32,
                         offset_factor=16, strides=[te.var("s"), 1])
    C = te.compute((n, n), lambda i, j: A[i, j], name="C")
    BC = tir.decl_buffer(C.shape, C.dtype, scope=scope, data_alignment=32, offset_factor=256)

    def body(ins, outs):
        ib = tir.ir_builder.create()
        src, dst = ins[0], outs[0]
        ib.emit(tir.call_intrin("handle", "tir.tvm_load_matrix_sync", dst.data, n, n, n,
                                _frag(dst), src.access_ptr("r"), src.strides[0], layout))
        return ib.get()
    return te.decl_tensor_intrin(C.op, body, binds={A: BA, C: BC})


def intrin_gemm():
    """C(16 x 16, float32) += A(16 x 16, float16) @ B(16 x 16, float16) on fragments:
    tvm_fill_fragment (init) and tvm_mma_sync (update)."""
    from tepad import tir
    n = 16
    A = te.placeholder((n, n), name="A", dtype="float16")
    B = te.placeholder((n, n), name="B", dtype="float16")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k].astype("float32") *
                                               B[k, j].astype("float32"), axis=k), name="C")
    BA = tir.decl_buffer(A.shape, A.dtype, name="BA", scope="wmma.matrix_a",
                         data_alignment=32, offset_factor=256)
    BB = tir.decl_buffer(B.shape, B.dtype, name="BB", scope="wmma.matrix_b",
                         data_alignment=32, offset_factor=256)
    BC = tir.decl_buffer(C.shape, C.dtype, name="BC", scope="wmma.accumulator",
                         data_alignment=32, offset_factor=256)

    def body(ins, outs):
        a, b = ins
        (c,) = outs

        def init():
            ib = tir.ir_builder.create()
            ib.emit(tir.call_intrin("handle", "tir.tvm_fill_fragment", c.data, n, n, n,
                                    _frag(c), 0.0))
            return ib.get()

        def update():
            ib = tir.ir_builder.create()
            ib.emit(tir.call_intrin("handle", "tir.tvm_mma_sync", c.data, _frag(c), a.data,
                                    _frag(a), b.data, _frag(b), c.data, _frag(c)))
            return ib.get()
        return update(), init(), update()
    return te.decl_tensor_intrin(C.op, body, binds={A: BA, B: BB, C: BC})


def intrin_store_matrix():
    """The accumulator fragment -> a 16 x 16 tile of global memory (tvm_store_matrix_sync)."""
    from tepad import tir
    n = 16
    A = te.placeholder((n, n), name="A", dtype="float32")
    BA = tir.decl_buffer(A.shape, A.dtype, scope="wmma.accumulator", data_alignment=32,
                         offset_factor=256)
    C = te.compute((n, n), lambda i, j: A[i, j], name="C")
    BC = tir.decl_buffer(C.shape, C.dtype, scope="global", data_alignment=32,
                         offset_factor=16, strides=[te.var("s"), 1])

    def body(ins, outs):
        ib = tir.ir_builder.create()
        src, dst = ins[0], outs[0]
        ib.emit(tir.call_intrin("handle", "tir.tvm_store_matrix_sync", src.data, n, n, n,
                                _frag(src), dst.access_ptr("w"), dst.strides[0], "row_major"))
        return ib.get()
    return te.decl_tensor_intrin(C.op, body, binds={A: BA, C: BC})


def tensorize_wmma(s, AF, BF, CF, C, cf_axes, c_axes):
    """TVM's tutorial tensorization: fragment loads, the 16 x 16 x 16 mma, the store."""
    ci, cj, ki = cf_axes
    s[AF].tensorize(AF.op.axis[0], intrin_load_matrix("wmma.matrix_a"))
    s[BF].tensorize(BF.op.axis[0], intrin_load_matrix("wmma.matrix_b"))
    s[CF].tensorize(ci, intrin_gemm())
    s[C].tensorize(c_axes[0], intrin_store_matrix())
