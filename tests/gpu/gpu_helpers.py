"""Builders shared by the tests in tests/gpu."""
from tepad import te, tir
from tepad.lower.pipeline import Options, lower_for_codegen, run_pipeline, schedule_to_primfunc
from tepad.lower.passes.thread_sync import SYNC_OP
from tepad.tir import expr as E
from tepad.tir import stmt as S


def gpu_lower(s, args, name="main", target="cuda"):
    """The build phase's GPU function (what the back ends get)."""
    return lower_for_codegen(s, args, name, Options(target=target))


def gpu_lower_until(s, args, stop_before):
    """The GPU pipeline up to (not including) the step ``stop_before``."""
    f = schedule_to_primfunc(s, args, "main")
    return run_pipeline(f, opts=Options(target="cuda"), stop_before=stop_before)


def nodes(node, cls):
    if isinstance(node, tir.PrimFunc):
        node = node.body
    out = []
    tir.post_order_visit(node, lambda n: out.append(n) if isinstance(n, cls) else None)
    return out


def calls(node, op):
    return [c for c in nodes(node, E.Call) if c.op == op]


def syncs(node):
    return [c for c in calls(node, SYNC_OP)]


def allocs(node):
    """``{allocation name: scope}``."""
    return {a.buffer_var.name: a.annotations.get("scope") for a in nodes(node, S.Allocate)}


def func(params, body):
    return tir.PrimFunc([b.data for b in params], body, {b.data: b for b in params},
                        {"global_symbol": "main"})


def launch(tag, extent, body):
    iv = te.thread_axis(tag)
    return iv, S.AttrStmt(iv, "thread_extent", extent, body)


def top_level_order(stmt):
    """Statements of the innermost SeqStmt reached through attrs/allocates/lets from ``stmt``,
    as a list."""
    while not isinstance(stmt, S.SeqStmt):
        stmt = stmt.body
    return list(stmt.seq)


def elementwise(n=1024, factor=64):
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0 + 1.0, name="B")
    s = te.create_schedule(B.op)
    bx, tx = s[B].split(B.op.axis[0], factor=factor)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    return s, [A, B]


def tiled_matmul(n=64, tile=16, shared=True):
    """TVM-tutorial style matmul: 16x16 blocks, A/B tiles staged through shared memory."""
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    AA = s.cache_read(A, "shared", [C])
    BB = s.cache_read(B, "shared", [C])
    CL = s.cache_write(C, "local")
    by, ty = s[C].split(C.op.axis[0], factor=tile)
    bx, tx = s[C].split(C.op.axis[1], factor=tile)
    s[C].reorder(by, bx, ty, tx)
    s[C].bind(by, te.thread_axis("blockIdx.y"))
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(ty, te.thread_axis("threadIdx.y"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    s[CL].compute_at(s[C], tx)
    ko, ki = s[CL].split(s[CL].op.reduce_axis[0], factor=tile)
    for S_ in (AA, BB):
        s[S_].compute_at(s[CL], ko)
        a, b = s[S_].op.axis
        ya, xa = s[S_].split(a, nparts=tile)
        yb, xb = s[S_].split(b, nparts=tile)
        s[S_].reorder(ya, yb, xa, xb)
        s[S_].bind(ya, te.thread_axis("threadIdx.y"))
        s[S_].bind(yb, te.thread_axis("threadIdx.x"))
    return s, [A, B, C]


def opt_conv_cuda(batch=64, in_channel=16, out_channel=64, in_size=4):
    """TVM's opt_conv_cuda.py tutorial schedule (HWCN conv, shared/local caches, vthreads),
    at a size the emulator runs quickly (the tutorial's is 256 x 256 x 512, 14 x 14)."""
    kernel, pad = 3, 1
    A = te.placeholder((in_size, in_size, in_channel, batch), name="A")
    W = te.placeholder((kernel, kernel, in_channel, out_channel), name="W")
    out_size = in_size - kernel + 2 * pad + 1
    Apad = te.compute(
        (in_size + 2 * pad, in_size + 2 * pad, in_channel, batch),
        lambda yy, xx, cc, nn: tir.if_then_else(
            tir.all(yy >= pad, yy - pad < in_size, xx >= pad, xx - pad < in_size),
            A[yy - pad, xx - pad, cc, nn], tir.const(0.0, "float32")), name="Apad")
    rc = te.reduce_axis((0, in_channel), name="rc")
    ry = te.reduce_axis((0, kernel), name="ry")
    rx = te.reduce_axis((0, kernel), name="rx")
    B = te.compute((out_size, out_size, out_channel, batch),
                   lambda yy, xx, ff, nn: te.sum(Apad[yy + ry, xx + rx, rc, nn] *
                                                 W[ry, rx, rc, ff], axis=[ry, rx, rc]),
                   name="B")
    s = te.create_schedule(B.op)
    s[Apad].compute_inline()
    AA = s.cache_read(Apad, "shared", [B])
    WW = s.cache_read(W, "shared", [B])
    AL = s.cache_read(AA, "local", [B])
    WL = s.cache_read(WW, "local", [B])
    BL = s.cache_write(B, "local")
    tile, num_thread, step, vthread = 8, 8, 8, 2
    block_factor = tile * num_thread
    thread_x = te.thread_axis((0, num_thread), "threadIdx.x")
    thread_y = te.thread_axis((0, num_thread), "threadIdx.y")
    hi, wi, fi, ni = s[B].op.axis
    bz = s[B].fuse(hi, wi)
    by, fi = s[B].split(fi, factor=block_factor)
    bx, ni = s[B].split(ni, factor=block_factor)
    s[B].bind(bz, te.thread_axis("blockIdx.z"))
    s[B].bind(by, te.thread_axis("blockIdx.y"))
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    tyz, fi = s[B].split(fi, nparts=vthread)
    txz, ni = s[B].split(ni, nparts=vthread)
    ty, fi = s[B].split(fi, nparts=num_thread)
    tx, ni = s[B].split(ni, nparts=num_thread)
    s[B].reorder(bz, by, bx, tyz, txz, ty, tx, fi, ni)
    s[B].bind(tyz, te.thread_axis((0, vthread), "vthread", name="vy"))
    s[B].bind(txz, te.thread_axis((0, vthread), "vthread", name="vx"))
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
    for st in (AA, WW):
        yi, xi, ci, last = s[st].op.axis
        ty, ci = s[st].split(ci, nparts=num_thread)
        tx, last = s[st].split(last, nparts=num_thread)
        _, last = s[st].split(last, factor=4)
        s[st].reorder(ty, tx, yi, xi, ci, last)
        s[st].bind(ty, thread_y)
        s[st].bind(tx, thread_x)
        s[st].vectorize(last)
    return s, [A, W, B]
