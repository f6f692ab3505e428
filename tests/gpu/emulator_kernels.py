"""Hand-built GPU kernels (the lowered form of docs/gpu.md: launch attributes, shared/local
allocations, barriers) for the emulator tests, and their ``emulate_cuda`` fixture."""
import pytest

from tepad import te, tir


@pytest.fixture
def emulate_cuda(monkeypatch):
    """``TEPAD_CUDA=emulate`` for one test (modules import it and use it via pytestmark), with
    the race check on: every emulated kernel also runs with its threads and blocks reversed
    and must store the same bits."""
    monkeypatch.setenv("TEPAD_CUDA", "emulate")
    monkeypatch.setenv("TEPAD_CUDA_RACECHECK", "1")

SYNC = tir.Call("int32", "tir.tvm_storage_sync", [tir.StringImm("shared")])


def launch(ib, tag, extent):
    iv = te.thread_axis(tag)
    ib.scope_attr(iv, "thread_extent", extent)
    return iv.var


def func(name, buffers, ib):
    return tir.PrimFunc(buffers, ib.get()).with_attr("global_symbol", name)


def tiled_matmul(n, tile, barriers=True):
    """C = A @ B (n x n, float32): a (tile x tile) block of threads per output tile, tiles of A
    and B staged through shared memory inside the k loop, one accumulator per thread in
    local memory that lives across the barriers."""
    A, B, C = (tir.decl_buffer((n, n), "float32", nm) for nm in "ABC")
    ib = tir.ir_builder.create()
    by = launch(ib, "blockIdx.y", n // tile)
    bx = launch(ib, "blockIdx.x", n // tile)
    As = ib.allocate("float32", tile * tile, "A_shared", scope="shared")
    Bs = ib.allocate("float32", tile * tile, "B_shared", scope="shared")
    ty = launch(ib, "threadIdx.y", tile)
    tx = launch(ib, "threadIdx.x", tile)
    acc = ib.allocate("float32", 1, "acc", scope="local")
    a, b, c = ib.buffer_ptr(A), ib.buffer_ptr(B), ib.buffer_ptr(C)
    row, col = by * tile + ty, bx * tile + tx
    acc[0] = tir.const(0.0, "float32")
    with ib.for_range(0, n // tile, "ko") as ko:
        As[ty * tile + tx] = a[row, ko * tile + tx]
        Bs[ty * tile + tx] = b[ko * tile + ty, col]
        if barriers:
            ib.emit(SYNC)
        with ib.for_range(0, tile, "ki") as ki:
            acc[0] = acc[0] + As[ty * tile + ki] * Bs[ki * tile + tx]
        if barriers:
            ib.emit(SYNC)
    c[row, col] = acc[0]
    return func("tiled_matmul", [A, B, C], ib)


def block_row_sum(rows, cols, threads):
    """out[r] = sum(X[r, :]): one block per row; each thread sums a strided slice into a
    register, then a tree reduction through shared memory with a barrier per level."""
    X = tir.decl_buffer((rows, cols), "float32", "X")
    out = tir.decl_buffer((rows,), "float32", "out")
    ib = tir.ir_builder.create()
    bx = launch(ib, "blockIdx.x", rows)
    red = ib.allocate("float32", threads, "red", scope="shared")
    tx = launch(ib, "threadIdx.x", threads)
    part = ib.allocate("float32", 1, "part", scope="local")
    x, o = ib.buffer_ptr(X), ib.buffer_ptr(out)
    part[0] = tir.const(0.0, "float32")
    with ib.for_range(0, (cols + threads - 1) // threads, "k") as k:
        with ib.if_scope(k * threads + tx < cols):
            part[0] = part[0] + x[bx, k * threads + tx]
    red[tx] = part[0]
    ib.emit(SYNC)
    stride = threads // 2
    while stride:
        with ib.if_scope(tx < stride):
            red[tx] = red[tx] + red[tx + stride]
        ib.emit(SYNC)
        stride //= 2
    with ib.if_scope(tx == 0):
        o[bx] = red[0]
    return func("block_row_sum", [X, out], ib)


def neighbour_sum(n, threads):
    """out[i] = 2*X[i] + 2*X[next i in the block]: a thread-dependent let-bound value lives
    across the barrier that publishes it to the other threads."""
    X = tir.decl_buffer((n,), "float32", "X")
    out = tir.decl_buffer((n,), "float32", "out")
    ib = tir.ir_builder.create()
    bx = launch(ib, "blockIdx.x", n // threads)
    sh = ib.allocate("float32", threads, "sh", scope="shared")
    tx = launch(ib, "threadIdx.x", threads)
    x, o = ib.buffer_ptr(X), ib.buffer_ptr(out)
    v = ib.let("v", x[bx * threads + tx] * tir.const(2.0, "float32"))
    sh[tx] = v
    ib.emit(SYNC)
    o[bx * threads + tx] = v + sh[(tx + 1) % threads]
    return func("neighbour_sum", [X, out], ib)
