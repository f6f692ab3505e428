"""Builders shared by the tests in tests/gpu."""
import importlib.util
from pathlib import Path

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
    """TVM's opt_conv_cuda.py tutorial schedule (HWCN conv, shared/local caches, vthreads), as
    examples/gpu/conv2d_hwcn.py writes it, at a size the emulator runs quickly (the
    tutorial's is 256 x 256 x 512, 14 x 14)."""
    return gpu_example("conv2d_hwcn").schedule(batch, in_channel, out_channel, in_size)


def gpu_example(stem):
    """The module examples/gpu/<stem>.py."""
    path = Path(__file__).resolve().parents[2] / "examples" / "gpu" / f"{stem}.py"
    spec = importlib.util.spec_from_file_location(f"gpu_example_{stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def rfactor_rows(n=64, m=64, factor=16, rows_per_block=32, predicate=True, reducer=None,
                 scale=None):
    """TVM's reduction.py tutorial: rfactor + threadIdx.x over the row sums of A (or the row
    ``reducer`` of ``A * scale``)."""
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), "k")
    red = reducer or te.sum
    B = te.compute((n,), lambda i: red(A[i, k] if scale is None else A[i, k] * scale, axis=k),
                   name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(B.op.reduce_axis[0], factor=factor)
    BF = s.rfactor(B, ki)
    xo, xi = s[B].split(s[B].op.axis[0], factor=rows_per_block)
    s[B].bind(xo, te.thread_axis("blockIdx.x"))
    s[B].bind(xi, te.thread_axis("threadIdx.y"))
    tx = te.thread_axis("threadIdx.x")
    s[B].bind(s[B].op.reduce_axis[0], tx)
    s[BF].compute_at(s[B], s[B].op.reduce_axis[0])
    if predicate:
        s[B].set_store_predicate(tx.var.equal(0))
    return s, [A, B]
