"""TVM's "How to optimize convolution on GPU" schedule: a 3x3 convolution in HWCN layout.

Input ``A`` is (size, size, in_channel, batch), filters ``W`` are (3, 3, in_channel,
out_channel), stride 1, padding 1, output ``B`` is (size, size, out_channel, batch). A block
computes 64 output channels x 64 batch images of one output pixel with 8 x 8 threads and 2 x 2
virtual threads (each thread 4 x 4 strided outputs kept in registers, ``BL``). Input and filter
panels of 8 channels go through shared memory (``AA``, ``WW``, loaded cooperatively with
4-wide vector accesses) and then registers (``AL``, ``WL``).
"""
from tepad import te, tir

SIZES = {"batch": 64, "in_channel": 16, "out_channel": 64, "size": 6}   # small default
FULL = {"batch": 256, "in_channel": 256, "out_channel": 512, "size": 14}
KERNEL = 3
PAD = 1


def schedule(batch=SIZES["batch"], in_channel=SIZES["in_channel"],
             out_channel=SIZES["out_channel"], size=SIZES["size"], tile=8, num_thread=8,
             step=8, vthread=2):
    """``(s, [A, W, B])``: the tutorial's schedule at these sizes."""
    s, args, _ = schedule_with_stages(batch, in_channel, out_channel, size, tile, num_thread,
                                      step, vthread)
    return s, args


def schedule_with_stages(batch=SIZES["batch"], in_channel=SIZES["in_channel"],
                         out_channel=SIZES["out_channel"], size=SIZES["size"], tile=8,
                         num_thread=8, step=8, vthread=2):
    """``(s, [A, W, B], {"AA", "WW", "AL", "WL", "BL": the cache stages' tensors})``."""
    A = te.placeholder((size, size, in_channel, batch), name="A")
    W = te.placeholder((KERNEL, KERNEL, in_channel, out_channel), name="W")
    out_size = size - KERNEL + 2 * PAD + 1
    Apad = te.compute(
        (size + 2 * PAD, size + 2 * PAD, in_channel, batch),
        lambda yy, xx, cc, nn: tir.if_then_else(
            tir.all(yy >= PAD, yy - PAD < size, xx >= PAD, xx - PAD < size),
            A[yy - PAD, xx - PAD, cc, nn], tir.const(0.0, "float32")),
        name="Apad")
    rc = te.reduce_axis((0, in_channel), name="rc")
    ry = te.reduce_axis((0, KERNEL), name="ry")
    rx = te.reduce_axis((0, KERNEL), name="rx")
    B = te.compute(
        (out_size, out_size, out_channel, batch),
        lambda yy, xx, ff, nn: te.sum(Apad[yy + ry, xx + rx, rc, nn] * W[ry, rx, rc, ff],
                                      axis=[ry, rx, rc]),
        name="B")

    s = te.create_schedule(B.op)
    s[Apad].compute_inline()
    AA = s.cache_read(Apad, "shared", [B])
    WW = s.cache_read(W, "shared", [B])
    AL = s.cache_read(AA, "local", [B])
    WL = s.cache_read(WW, "local", [B])
    BL = s.cache_write(B, "local")

    block_factor = tile * num_thread
    block_x, block_y, block_z = (te.thread_axis(f"blockIdx.{c}") for c in "xyz")
    thread_x = te.thread_axis((0, num_thread), "threadIdx.x")
    thread_y = te.thread_axis((0, num_thread), "threadIdx.y")
    thread_xz = te.thread_axis((0, vthread), "vthread", name="vx")
    thread_yz = te.thread_axis((0, vthread), "vthread", name="vy")

    hi, wi, fi, ni = s[B].op.axis
    bz = s[B].fuse(hi, wi)
    by, fi = s[B].split(fi, factor=block_factor)
    bx, ni = s[B].split(ni, factor=block_factor)
    s[B].bind(bz, block_z)
    s[B].bind(by, block_y)
    s[B].bind(bx, block_x)
    tyz, fi = s[B].split(fi, nparts=vthread)
    txz, ni = s[B].split(ni, nparts=vthread)
    ty, fi = s[B].split(fi, nparts=num_thread)
    tx, ni = s[B].split(ni, nparts=num_thread)
    s[B].reorder(bz, by, bx, tyz, txz, ty, tx, fi, ni)
    s[B].bind(tyz, thread_yz)
    s[B].bind(txz, thread_xz)
    s[B].bind(ty, thread_y)
    s[B].bind(tx, thread_x)

    s[BL].compute_at(s[B], tx)
    yi, xi, fi, ni = s[BL].op.axis
    ry, rx, rc = s[BL].op.reduce_axis
    rco, rci = s[BL].split(rc, factor=step)
    s[BL].reorder(rco, ry, rx, rci, fi, ni)
    s[AA].compute_at(s[BL], rx)
    s[WW].compute_at(s[BL], rx)
    s[AL].compute_at(s[BL], rci)
    s[WL].compute_at(s[BL], rci)

    for shared in (AA, WW):
        yi, xi, ci, last = s[shared].op.axis
        ty, ci = s[shared].split(ci, nparts=num_thread)
        tx, last = s[shared].split(last, nparts=num_thread)
        _, last = s[shared].split(last, factor=4)
        s[shared].reorder(ty, tx, yi, xi, ci, last)
        s[shared].bind(ty, thread_y)
        s[shared].bind(tx, thread_x)
        s[shared].vectorize(last)
    return s, [A, W, B], {"AA": AA, "WW": WW, "AL": AL, "WL": WL, "BL": BL}


def inputs(batch=SIZES["batch"], in_channel=SIZES["in_channel"],
           out_channel=SIZES["out_channel"], size=SIZES["size"], **_):
    import numpy as np
    rng = np.random.default_rng(0)
    return [rng.random((size, size, in_channel, batch), dtype="float32"),
            rng.random((KERNEL, KERNEL, in_channel, out_channel), dtype="float32")]


def reference(a, w):
    import numpy as np
    size = a.shape[0]
    ap = np.pad(a, ((PAD, PAD), (PAD, PAD), (0, 0), (0, 0)))
    out = np.zeros((size, size, w.shape[3], a.shape[3]), dtype="float64")
    for ry in range(KERNEL):
        for rx in range(KERNEL):
            out += np.einsum("yxcn,cf->yxfn", ap[ry:ry + size, rx:rx + size], w[ry, rx])
    return out.astype("float32")


def flops(batch=SIZES["batch"], in_channel=SIZES["in_channel"],
          out_channel=SIZES["out_channel"], size=SIZES["size"], **_):
    return 2.0 * size * size * out_channel * batch * in_channel * KERNEL * KERNEL
