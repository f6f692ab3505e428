"""TVM's ``topi.cuda.tensor_intrin`` wmma declarations: tensor intrinsics that move 16 x 16
tiles between shared/global memory and the tensor-core fragment scopes ``wmma.matrix_a`` /
``wmma.matrix_b`` / ``wmma.accumulator`` and multiply fragments (``tvm_load_matrix_sync``,
``tvm_fill_fragment`` + ``tvm_mma_sync``, ``tvm_store_matrix_sync``).

tepad's tensor-core lowering (the emulator's and NVPTX's) has the m16n16k16 shape with float16
inputs and float32 accumulation only; every other shape or dtype is a TepadError naming what is
supported (TVM also has 8 x 32 x 16 / 32 x 8 x 16, int8, int4 and float16 accumulation)."""
from __future__ import annotations

from ... import tir
from ...tensor import reduce_axis, sum as _sum
from ...tensor.operation import compute, placeholder
from ...tensor.tensor_intrin import decl_tensor_intrin
from ...errors import TepadError

SHAPE = (16, 16, 16)
IN_DTYPE = "float16"
ACC_DTYPE = "float32"


def check_wmma_config(where: str, shape=SHAPE, in_dtype=IN_DTYPE, out_dtype=ACC_DTYPE) -> None:
    """A TepadError naming ``where`` unless ``shape`` / dtypes are the supported ones."""
    if tuple(int(x) for x in shape) != SHAPE:
        raise TepadError(f"{where}: wmma fragment shape {tuple(shape)} is not supported; "
                         f"tepad's tensor cores take (16, 16, 16) only")
    if in_dtype is not None and str(in_dtype) != IN_DTYPE:
        raise TepadError(f"{where}: input dtype {in_dtype!r} is not supported; tepad's tensor "
                         f"cores take float16 inputs only")
    if out_dtype is not None and str(out_dtype) != ACC_DTYPE:
        raise TepadError(f"{where}: accumulation dtype {out_dtype!r} is not supported; "
                         f"tepad's tensor cores accumulate in float32 only")


def _warp_index(offset, rows, cols):
    """Which 16 x 16 fragment of a fragment buffer starts at element ``offset``."""
    size = rows * cols
    return offset // size + offset % size // cols


def _load(scope, strides_dst, strides_from, shape, layout, A_shape, C_shape, in_dtype,
          where):
    check_wmma_config(where, shape, in_dtype, None)
    if layout not in ("row_major", "col_major"):
        raise TepadError(f"{where}: layout {layout!r}; expected 'row_major' or 'col_major'")
    m, n, k = shape
    rows, cols = (m, k) if scope == "wmma.matrix_a" else (k, n)
    A = placeholder(A_shape, name="A", dtype=in_dtype)
    BA = tir.decl_buffer(A.shape, A.dtype, scope="shared", strides=strides_from,
                         data_alignment=32, offset_factor=16)
    C = compute(C_shape, lambda *i: A(*i), name="C")
    BC = tir.decl_buffer(C.shape, C.dtype, scope=scope, strides=strides_dst,
                         data_alignment=32, offset_factor=256)

    def body(ins, outs):
        src, dst = ins[0], outs[0]
        ib = tir.ir_builder.create()
        ib.emit(tir.call_intrin("handle", "tir.tvm_load_matrix_sync", dst.data, m, n, k,
                                _warp_index(dst.elem_offset, rows, cols),
                                src.access_ptr("r"), src.strides[0], layout))
        return ib.get()
    return decl_tensor_intrin(C.op, body, binds={A: BA, C: BC})


def intrin_wmma_load_matrix_A(strides_dst, strides_from, shape, layout, A_shape, C_shape,
                              in_dtype):
    """Shared memory (strides ``strides_from``) -> ``wmma.matrix_a`` (``strides_dst``):
    ``C = A`` over ``A_shape`` / ``C_shape`` (16 x 16), ``layout`` how the shared tile holds
    the m x k operand (``"row_major"``: element (m, k) at ``m * stride + k``)."""
    return _load("wmma.matrix_a", strides_dst, strides_from, shape, layout, A_shape, C_shape,
                 in_dtype, "intrin_wmma_load_matrix_A")


def intrin_wmma_load_matrix_W(strides_dst, strides_from, shape, layout, A_shape, C_shape,
                              in_dtype):
    """Shared memory -> ``wmma.matrix_b``, as ``intrin_wmma_load_matrix_A``; ``layout`` of the
    k x n operand (``"col_major"``: element (k, n) at ``n * stride + k``, a weight kept
    (n, k) as dense's is)."""
    return _load("wmma.matrix_b", strides_dst, strides_from, shape, layout, A_shape, C_shape,
                 in_dtype, "intrin_wmma_load_matrix_W")


def intrin_wmma_gemm(AL_gemm, WL_gemm, CL_compute, strides_A, strides_W, strides_Conv, shape):
    """Fragment multiply-accumulate: ``CL_compute`` (a 16 x 16 float32 sum over a 16-long
    reduction of ``AL_gemm`` and ``WL_gemm``, float16 placeholders, in whatever index order the
    caller's stage uses) as ``tvm_fill_fragment`` (init) and ``tvm_mma_sync`` (update)."""
    check_wmma_config("intrin_wmma_gemm", shape, AL_gemm.dtype, CL_compute.dtype)
    if WL_gemm.dtype != IN_DTYPE:
        raise TepadError(f"intrin_wmma_gemm: WL_gemm dtype {WL_gemm.dtype!r}; tepad's tensor "
                         f"cores take float16 inputs only")
    m, n, k = shape
    A, B, C = AL_gemm, WL_gemm, CL_compute
    BA = tir.decl_buffer(A.shape, A.dtype, name="BA", scope="wmma.matrix_a",
                         data_alignment=32, offset_factor=256, strides=strides_A)
    BB = tir.decl_buffer(B.shape, B.dtype, name="BB", scope="wmma.matrix_b",
                         data_alignment=32, offset_factor=256, strides=strides_W)
    BC = tir.decl_buffer(C.shape, C.dtype, name="BC", scope="wmma.accumulator",
                         data_alignment=32, offset_factor=256, strides=strides_Conv)

    def body(ins, outs):
        a, b = ins
        (c,) = outs
        ia = _warp_index(a.elem_offset, m, k)
        ib_ = _warp_index(b.elem_offset, k, n)
        ic = _warp_index(c.elem_offset, m, n)

        def init():
            ib = tir.ir_builder.create()
            ib.emit(tir.call_intrin("handle", "tir.tvm_fill_fragment", c.data, m, n, k, ic,
                                    0.0))
            return ib.get()

        def update():
            ib = tir.ir_builder.create()
            ib.emit(tir.call_intrin("handle", "tir.tvm_mma_sync", c.data, ic, a.data, ia,
                                    b.data, ib_, c.data, ic))
            return ib.get()
        return update(), init(), update()
    return decl_tensor_intrin(C.op, body, binds={A: BA, B: BB, C: BC})


def intrin_wmma_store_matrix(strides_dst, strides_from, shape, out_dtype, A_shape, C_shape,
                             scope="global"):
    """``wmma.accumulator`` (``strides_from``) -> a 16 x 16 row-major tile of memory in
    ``scope`` (TVM's stores to ``"shared"``; tepad's TOPI schedules store straight to the
    global output) with row stride ``strides_dst[0]``."""
    check_wmma_config("intrin_wmma_store_matrix", shape, None, out_dtype)
    m, n, k = shape
    A = placeholder(A_shape, name="A", dtype=out_dtype)
    BA = tir.decl_buffer(A.shape, A.dtype, scope="wmma.accumulator", strides=strides_from,
                         data_alignment=32, offset_factor=256)
    C = compute(C_shape, lambda *i: A(*i), name="C")
    BC = tir.decl_buffer(C.shape, C.dtype, scope=scope, strides=strides_dst,
                         data_alignment=32, offset_factor=16)

    def body(ins, outs):
        src, dst = ins[0], outs[0]
        ib = tir.ir_builder.create()
        ib.emit(tir.call_intrin("handle", "tir.tvm_store_matrix_sync", src.data, m, n, k,
                                _warp_index(src.elem_offset, m, n), dst.access_ptr("w"),
                                dst.strides[0], "row_major"))
        return ib.get()
    return decl_tensor_intrin(C.op, body, binds={A: BA, C: BC})


def dp4a(x_scope="local", y_scope="local", z_scope="local", dtypes=("int8", "int8")):
    """TVM's ``dp4a`` tensor intrinsic: ``z[0] (+)= sum_k x[k] * y[k]`` over 4 8-bit lanes,
    widened to int32 (uint32 when ``y`` is uint8), for ``tensorize`` of a 4-long reduction.

    TVM's body calls the CUDA instruction ``__dp4a`` on the lanes loaded as one 32-bit word;
    tepad's body is the four widened multiply-adds (the same integers on every target, the
    emulator's included), with TVM's reset (store 0) and update (add to the old value)."""
    if len(dtypes) != 2 or any(str(d) not in ("int8", "uint8") for d in dtypes):
        raise TepadError(f"dp4a: dtypes {tuple(dtypes)!r}; dp4a multiplies 8-bit lanes: "
                         "give two of 'int8' / 'uint8'")
    n = 4
    acc = "int32" if dtypes[1] == "int8" else "uint32"
    x = placeholder((n,), name="x", dtype=dtypes[0])
    y = placeholder((n,), name="y", dtype=dtypes[1])
    k = reduce_axis((0, n), name="rc")
    z = compute((1,), lambda i: _sum(x[k].astype(acc) * y[k].astype(acc), axis=[k]))
    params = {"data_alignment": 4, "offset_factor": 1}
    binds = {t: tir.decl_buffer(t.shape, t.dtype, t.op.name, scope=sc, **params)
             for t, sc in ((x, x_scope), (y, y_scope), (z, z_scope))}

    def body(ins, outs):
        xx, yy = ins
        (zz,) = outs

        def instr(index):
            ib = tir.ir_builder.create()
            if index == 1:
                ib.emit(zz.vstore(0, tir.const(0, acc)))
                return ib.get()
            total = tir.const(0, acc) if index == 0 else zz.vload(0)
            for lane in range(n):
                total = total + xx.vload(lane).astype(acc) * yy.vload(lane).astype(acc)
            ib.emit(zz.vstore(0, total))
            return ib.get()
        return instr(0), instr(1), instr(2)
    return decl_tensor_intrin(z.op, body, binds=binds, default_buffer_params=params)
