"""fp32 matrix product ``C = A @ B`` for a GPU, laid out against shared-memory bank conflicts.

A block of 16 x 16 threads computes a 64 x 128 tile of ``C``. Each thread owns a 4 x 8 piece
of it as two *column strips* 64 columns apart (a virtual thread: columns ``4 tx .. 4 tx + 3``
and ``64 + 4 tx ..``), held in registers (``CL``, scope local). For each step of ``step`` k
values:

* the block copies the step's 64 rows of ``A`` into shared memory **k-major** (``AS[k, i]``):
  a thread then reads its 4 rows as one 16-byte vector, and the 16 threads of a half warp that
  share ``ty`` read the same address (a broadcast, no conflict); the rows of ``AS`` are padded
  to 68 floats (``storage_align``) so that the transposing copy's stores of 8 consecutive
  ``k`` fall into distinct banks;
* the block copies ``step`` x 128 of ``B`` (``BS[k, j]``) with 16-byte vector loads and stores;
  a thread reads its two strips as two 16-byte vectors, consecutive threads on consecutive
  addresses (conflict-free);
* the ``step`` k values are unrolled, 32 fused multiply-adds each, on register copies of the
  operands (``AL``, ``BL``).

Tails: ``A`` and ``B`` are read through zero-padded stages (``AP``, ``BP``: ``if_then_else``
on the copy into shared memory) and the product is computed over the padded extents
(``CP``), so the multiply-adds carry no guard; only the final store into ``C`` is guarded when
the sizes do not divide the tile. The shared stages are double-buffered (``double_buffer``):
each k step loads the next tile into the other half while it computes on this one, and the
last k step is peeled off the loop.

``ptxas -v`` for sm_90 at the default knobs: 66 registers, no spills, 12544 bytes of shared
memory, two copies of 6272 (tests/gpu/test_matmul_strips.py checks it). ``tune_template`` is its AutoTVM template
(``gpu/matmul_strips``).
"""
from tepad import autotvm, te, tir

N = 128          # small default size (the emulator runs it); the GPU benchmark uses 4096
FULL = {"n": 4096}
TILE_Y, TILE_X = 64, 128


def _ceil(a, b):
    return (a + b - 1) // b * b


def schedule(n=N, m=None, k=None, step=8, unroll=True, vector=4):
    """``(s, [A, B, C])`` for ``A`` (n, k) @ ``B`` (k, m); ``step``: k values per shared tile;
    ``vector``: floats per global->shared copy of ``B`` (1 turns vectorizing off)."""
    m = n if m is None else m
    k = n if k is None else k
    npad, mpad, kpad = _ceil(n, TILE_Y), _ceil(m, TILE_X), _ceil(k, step)
    A = te.placeholder((n, k), "float32", name="A")
    B = te.placeholder((k, m), "float32", name="B")
    # k-major, zero-padded copies of the operands: the only guarded reads
    AP = te.compute((kpad, npad), lambda r, i: tir.if_then_else(
        tir.all(i < n, r < k), A[tir.min(i, n - 1), tir.min(r, k - 1)], 0.0), name="AP")
    BP = te.compute((kpad, mpad), lambda r, j: tir.if_then_else(
        tir.all(r < k, j < m), B[tir.min(r, k - 1), tir.min(j, m - 1)], 0.0), name="BP")
    r = te.reduce_axis((0, kpad), name="r")
    CP = te.compute((npad, mpad), lambda i, j: te.sum(AP[r, i] * BP[r, j], axis=r), name="CP")
    C = te.compute((n, m), lambda i, j: CP[i, j], name="C")

    s = te.create_schedule(C.op)
    s[AP].set_scope("shared")
    s[BP].set_scope("shared")
    s[CP].set_scope("local")
    AL = s.cache_read(AP, "local", [CP])
    BL = s.cache_read(BP, "local", [CP])

    block_x, block_y = te.thread_axis("blockIdx.x"), te.thread_axis("blockIdx.y")
    thread_x = te.thread_axis((0, 16), "threadIdx.x")
    thread_y = te.thread_axis((0, 16), "threadIdx.y")
    strip = te.thread_axis((0, 2), "vthread", name="vx")

    by, yi = s[C].split(C.op.axis[0], factor=TILE_Y)
    bx, xi = s[C].split(C.op.axis[1], factor=TILE_X)
    vx, xi = s[C].split(xi, nparts=2)             # the two strips, 64 columns apart
    ty, yi = s[C].split(yi, nparts=16)
    tx, xi = s[C].split(xi, nparts=16)
    s[C].reorder(by, bx, ty, vx, tx, yi, xi)
    s[C].bind(by, block_y)
    s[C].bind(bx, block_x)
    s[C].bind(ty, thread_y)
    s[C].bind(vx, strip)
    s[C].bind(tx, thread_x)

    s[CP].compute_at(s[C], tx)
    yc, xc = s[CP].op.axis
    ko, ki = s[CP].split(s[CP].op.reduce_axis[0], factor=step)
    s[CP].reorder(ko, ki, yc, xc)
    if unroll:
        s[CP].unroll(ki)
    s[CP].unroll(yc)
    s[CP].unroll(xc)

    for shared in (AP, BP):
        s[shared].compute_at(s[CP], ko)
        s[shared].double_buffer()
    # AS[k, i]: rows padded to 68 floats; consecutive threads on consecutive k (A's rows are
    # contiguous in k) for coalesced global reads
    s[AP].storage_align(AP.op.axis[0], 32, 4)
    kr, ii = s[AP].op.axis
    s[AP].reorder(ii, kr)
    fused = s[AP].fuse(ii, kr)
    _, inner = s[AP].split(fused, factor=256)
    fy, fx = s[AP].split(inner, nparts=16)
    s[AP].bind(fy, thread_y)
    s[AP].bind(fx, thread_x)
    # BS[k, j]: vector copies along j
    fused = s[BP].fuse(*s[BP].op.axis)
    rest, vec = s[BP].split(fused, factor=vector)
    _, inner = s[BP].split(rest, factor=256)
    fy, fx = s[BP].split(inner, nparts=16)
    s[BP].bind(fy, thread_y)
    s[BP].bind(fx, thread_x)
    if vector > 1:
        s[BP].vectorize(vec)
    for local in (AL, BL):
        s[local].compute_at(s[CP], ki)
        s[local].vectorize(s[local].op.axis[-1])
    return s, [A, B, C]


@autotvm.template("gpu/matmul_strips")
def tune_template(n=N, m=None, k=None):
    """The AutoTVM template of this schedule: knobs ``step`` (k values per shared tile),
    ``vector`` (floats per copy of B into shared memory) and ``unroll`` (the k steps); the
    first choice of each is the example's own schedule."""
    cfg = autotvm.get_config()
    cfg.define_knob("step", [8, 4, 16])
    cfg.define_knob("vector", [4, 2, 1])
    cfg.define_knob("unroll", [1, 0])
    return schedule(n, m, k, step=cfg["step"].val, vector=cfg["vector"].val,
                    unroll=bool(cfg["unroll"].val))


def inputs(n=N, m=None, k=None, **_):
    import numpy as np
    m = n if m is None else m
    k = n if k is None else k
    rng = np.random.default_rng(0)
    return [rng.random((n, k), dtype="float32") - 0.5, rng.random((k, m), dtype="float32") - 0.5]


def reference(a, b):
    return a @ b


def flops(n=N, m=None, k=None, **_):
    m = n if m is None else m
    k = n if k is None else k
    return 2.0 * n * m * k
