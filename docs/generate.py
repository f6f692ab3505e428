#!/usr/bin/env python3
"""Regenerate the tepad output pasted in docs/*.md, so the docs stay true.

Every generated block in a doc sits between two markers::

    <!-- tepad:NAME -->
    ```text
    ... output of SNIPPETS["NAME"]() ...
    ```
    <!-- /tepad:NAME -->

    python docs/generate.py            rewrite the blocks in place (and docs/api.md)
    python docs/generate.py --check    exit 1 (and name them) when a block is stale
    python docs/generate.py --list     the snippet names

docs/api.md, the API reference, is written whole from the docstrings by
``docs/api_reference.py`` (snippet name ``api``); ``--check`` fails when it is stale too.

The ```python blocks of the docs are run by tests/test_docs.py (its docstring has the
conventions: ``<!-- docs-setup ... -->`` for a file's imports, ``<!-- fragment -->`` before a
block that is shown but not run).

Timings and build times are masked (``…``) so a regeneration changes nothing unless tepad's
output changed. Snippets run the real compiler (schedules, InferBound, passes, builds).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS))

import tepad  # noqa: E402
from tepad import cli, te, tir  # noqa: E402
import api_reference  # noqa: E402
import tvm_names  # noqa: E402

API = DOCS / "api.md"

EX = ROOT / "examples"
SNIPPETS = {}


def snippet(fn):
    SNIPPETS[fn.__name__] = fn
    return fn


def _cli(*argv):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = cli.main([str(a) for a in argv])
    text = buf.getvalue()
    if code != 0:
        raise RuntimeError(f"tepad {' '.join(map(str, argv))} exited {code}:\n{text}")
    return _mask(text)


def _mask(text):
    text = re.sub(r"\(\d+(\.\d+)? ms\)", "(… ms)", text)
    text = re.sub(r"in \d+ ms", "in … ms", text)
    text = re.sub(r"time: .*", "time: median … ms, min … ms", text)
    # rounding-level errors depend on the host target (FMA contracts a * b + c on some CPUs)
    text = re.sub(r"max abs error (\d\.\d+e[-+]\d+)",
                  lambda m: m.group(0) if float(m.group(1)) >= 1e-6 else "max abs error < 1e-6",
                  text)
    return text.rstrip("\n")


def _rel(p):
    return str(Path(p).relative_to(ROOT))


def _ir(s, args, **kw):
    return tepad.lower(s, args, **kw).script()


# ----------------------------------------------------------------------------- tutorial
def _blur(n=16, tiled=False, at=False, vec=False, par=False, ty=4):
    A = te.placeholder((n, n), "float32", name="A")
    Bx = te.compute((n, n - 2), lambda y, x: (A[y, x] + A[y, x + 1] + A[y, x + 2]) / 3.0,
                    name="Bx")
    By = te.compute((n - 2, n - 2),
                    lambda y, x: (Bx[y, x] + Bx[y + 1, x] + Bx[y + 2, x]) / 3.0, name="By")
    s = te.create_schedule(By.op)
    if tiled:
        yo, yi = s[By].split(By.op.axis[0], factor=ty)
        if at:
            s[Bx].compute_at(s[By], yo)
        if vec:
            s[By].vectorize(By.op.axis[1])
            s[Bx].vectorize(s[Bx].op.axis[1])
        if par:
            s[By].parallel(yo)
    return s, [A, By]


@snippet
def tut_naive():
    s, args = _blur()
    return _ir(s, args)


@snippet
def tut_bounds_naive():
    s, _ = _blur()
    return cli.bounds_text(s)


@snippet
def tut_compute_at():
    s, args = _blur(tiled=True, at=True)
    return _ir(s, args)


@snippet
def tut_bounds_at():
    s, _ = _blur(tiled=True, at=True)
    return cli.bounds_text(s) + "\n\n" + cli.explain_text(s)


@snippet
def tut_fast():
    s, args = _blur(tiled=True, at=True, vec=True, par=True)
    return _ir(s, args)


@snippet
def tut_run():
    return _cli("run", EX / "blur.py", "--repeat", "3")


@snippet
def tut_regions():
    return _cli("bounds", EX / "blur.py", "--stage", "Bx", "--iters", "3").split(
        "producer Bx", 1)[1].join(["producer Bx", ""])


# ----------------------------------------------------------------------------- primitives
def _pair(n=8, m=8):
    A = te.placeholder((n, m), "float32", name="A")
    B = te.compute((n, m), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((n, m), lambda i, j: B[i, j] + 1.0, name="C")
    return A, B, C, te.create_schedule(C.op)


def _one(n=8, m=8):
    A = te.placeholder((n, m), "float32", name="A")
    B = te.compute((n, m), lambda i, j: A[i, j] * 2.0, name="B")
    return A, B, te.create_schedule(B.op)


@snippet
def prim_base():
    A, B, s = _one()
    return _ir(s, [A, B])


@snippet
def prim_split():
    A, B, s = _one(8, 10)
    jo, ji = s[B].split(B.op.axis[1], factor=4)
    return _ir(s, [A, B])


@snippet
def prim_split_nparts():
    A, B, s = _one()
    io, ii = s[B].split(B.op.axis[0], nparts=2)
    return _ir(s, [A, B])


@snippet
def prim_tile():
    A, B, s = _one()
    s[B].tile(B.op.axis[0], B.op.axis[1], 4, 4)
    return _ir(s, [A, B])


@snippet
def prim_fuse():
    A, B, s = _one()
    s[B].fuse(*B.op.axis)
    return _ir(s, [A, B])


@snippet
def prim_reorder():
    A, B, s = _one()
    i, j = B.op.axis
    s[B].reorder(j, i)
    return _ir(s, [A, B])


@snippet
def prim_pair_base():
    A, B, C, s = _pair()
    return _ir(s, [A, C])


@snippet
def prim_compute_at():
    A, B, C, s = _pair()
    s[B].compute_at(s[C], C.op.axis[0])
    return _ir(s, [A, C])


@snippet
def prim_compute_inline():
    A, B, C, s = _pair()
    s[B].compute_inline()
    return _ir(s, [A, C])


@snippet
def prim_vectorize():
    A, B, s = _one()
    s[B].vectorize(B.op.axis[1])
    return _ir(s, [A, B])


@snippet
def prim_unroll():
    A, B, s = _one(8, 4)
    s[B].unroll(B.op.axis[1])
    return _ir(s, [A, B])


@snippet
def prim_parallel():
    A, B, s = _one()
    s[B].parallel(B.op.axis[0])
    return _ir(s, [A, B])


@snippet
def prim_cache_read():
    A, B, s = _one()
    AA = s.cache_read(A, "local", [B])
    s[AA].compute_at(s[B], B.op.axis[0])
    return _ir(s, [A, B])


@snippet
def prim_cache_write():
    A = te.placeholder((8, 8), "float32", name="A")
    k = te.reduce_axis((0, 8), name="k")
    B = te.compute((8,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    BL = s.cache_write(B, "local")
    io, ii = s[B].split(B.op.axis[0], factor=4)
    s[BL].compute_at(s[B], io)
    return _ir(s, [A, B])


@snippet
def prim_cache_write_after_split():
    A = te.placeholder((6, 8), "float32", name="A")
    B = te.compute((6, 8), lambda i, j: A[i, j] * 2.0, name="B")
    s = te.create_schedule(B.op)
    jo, ji = s[B].split(B.op.axis[1], factor=4)
    s[B].reorder(jo, B.op.axis[0], ji)
    s[B].vectorize(ji)
    s.cache_write(B, "local")
    return _ir(s, [A, B])


@snippet
def prim_rfactor():
    A = te.placeholder((4, 10), "float32", name="A")
    k = te.reduce_axis((0, 10), name="k")
    B = te.compute((4,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(k, factor=4)
    BF = s.rfactor(B, ki)
    s[BF].parallel(BF.op.axis[0])
    return _ir(s, [A, B])


@snippet
def prim_transform_layout():
    A, B, s = _one(4, 6)
    s[B].transform_layout(lambda i, j: [j // 4, i, j % 4], pad_value=0.0)
    return _ir(s, [A, B])


@snippet
def prim_transform_layout_sep():
    A, B, s = _one(4, 8)
    s[B].transform_layout(lambda i, j: [j // 4, i, te.AXIS_SEPARATOR, j % 4])
    return _lower_upto(s, [A, B], "storage_flatten")


def _scale_intrin(n, body):
    x = te.placeholder((n,), "float32", name="x")
    y = te.compute((n,), lambda i: x[i] * 2.0, name="y")
    return te.decl_tensor_intrin(y.op, body, name="scale",
                                 default_buffer_params={"offset_factor": 1})


@snippet
def prim_tensorize():
    A, B, s = _one()
    scale = _scale_intrin(4, lambda ins, outs: tir.call_extern(
        "int32", "scale4", ins[0].access_ptr("r"), outs[0].access_ptr("w")))
    jo, ji = s[B].split(B.op.axis[1], factor=4)
    s[B].tensorize(ji, scale)
    return _ir(s, [A, B])


@snippet
def prim_tensorize_plain():
    A, B, s = _one()

    def body(ins, outs):
        u = te.var("u")
        return tir.For(u, 0, 4, tir.ForKind.SERIAL,
                       outs[0].vstore([u], ins[0].vload([u]) * 2.0))
    jo, ji = s[B].split(B.op.axis[1], factor=4)
    s[B].tensorize(ji, _scale_intrin(4, body))
    return _ir(s, [A, B])


def _lower_upto(s, args, name):
    for step in cli.lower_steps(s, args):
        if step.label == name:
            return step.func.script()
    raise KeyError(name)


@snippet
def prim_rolling_before():
    return _cli("lower", EX / "maxpool_rolling.py", "--func", "without_rolling",
                "--pass", "simplify.flattened").split("\n", 1)[1]


@snippet
def prim_rolling_after():
    return _cli("lower", EX / "maxpool_rolling.py", "--pass", "simplify.flattened").split("\n", 1)[1]


def _double_buffer(double=True):
    A = te.placeholder((6, 8), "float32", name="A")
    C = te.compute((6, 8), lambda i, j: A[i, j] + A[i, 7 - j], name="C")
    s = te.create_schedule(C.op)
    AA = s.cache_read(A, "global", [C])
    s[AA].compute_at(s[C], C.op.axis[0])
    if double:
        s[AA].double_buffer()
    return _ir(s, [A, C])


@snippet
def prim_double_buffer_before():
    return _double_buffer(False)


@snippet
def prim_double_buffer_after():
    return _double_buffer()


# ----------------------------------------------------------------------------- inferbound
def _cd(shape_d=(5, 16), fd=lambda C: (lambda i, j: C[i, j] * 2)):
    C = te.compute((5, 16), lambda i, j: tir.const(5, "int32"), name="C")
    D = te.compute(shape_d, fd(C), name="D")
    return C, D, te.create_schedule(D.op)


def _te_ir(s, args):
    from tepad.lower.pipeline import schedule_to_primfunc
    return schedule_to_primfunc(s, args).script()


def _ib(s, args):
    return (cli.bounds_text(s) + "\n\n# after ScheduleOps (before flattening):\n" +
            _te_ir(s, args))


@snippet
def ib_ex1():
    C, D, s = _cd()
    return _ib(s, [D])


@snippet
def ib_ex2():
    C, D, s = _cd()
    s[C].compute_at(s[D], D.op.axis[1])
    return _ib(s, [D])


@snippet
def ib_ex3():
    C, D, s = _cd()
    s[C].compute_at(s[D], D.op.axis[0])
    return _ib(s, [D])


@snippet
def ib_ex4():
    C, D, s = _cd((4, 5, 16), lambda C: (lambda di, dj, dk: C[dj, dk] * 2))
    s[C].compute_at(s[D], D.op.axis[2])
    return _ib(s, [D])


@snippet
def ib_ex5():
    C, D, s = _cd()
    d_o, d_i = s[D].split(D.op.axis[1], factor=8)
    s[C].compute_at(s[D], d_i)
    return _ib(s, [D])


@snippet
def ib_scan():
    m, n = 6, 8
    X = te.placeholder((m, n), name="X")
    state = te.placeholder((m, n), name="state")
    init = te.compute((1, n), lambda _, i: X[0, i], name="init")
    h = te.compute((m, n), lambda t, i: state[t - 1, i] * 0.5, name="h")
    update = te.compute((m, n), lambda t, i: h[t, i] + X[t, i], name="update")
    res = te.scan(init, update, state, name="res")
    last = te.compute((4,), lambda i: res[m - 1, i], name="last")
    s = te.create_schedule(last.op)
    xo, xi = s[update].split(update.op.axis[1], factor=2)
    s[h].compute_at(s[update], xo)
    return _ib(s, [X, last])


@snippet
def ib_chain():
    C = te.compute((5, 16), lambda i, j: tir.const(5, "int32"), name="C")
    D = te.compute((5, 16), lambda di, dj: C[di, dj] * 2, name="D")
    E = te.compute((5, 16), lambda ei, ej: D[ei, ej] * 4, name="E")
    s = te.create_schedule(E.op)
    s[C].compute_at(s[D], D.op.axis[1])
    s[D].compute_at(s[E], E.op.axis[1])
    return _ib(s, [E])


@snippet
def ib_relax():
    C = te.compute((5, 16), lambda i, j: tir.const(5, "int32"), name="C")
    D = te.compute((5, 16), lambda di, dj: C[di, dj] * 2, name="D")
    E = te.compute((5, 16), lambda ei, ej: D[ei, ej] + 4, name="E")
    s = te.create_schedule(E.op)
    s[D].compute_at(s[E], E.op.axis[1])
    return _ib(s, [E])


@snippet
def ib_split_tail():
    A = te.placeholder((10,), "float32", name="A")
    B = te.compute((10,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    s[B].split(B.op.axis[0], factor=4)
    return cli.bounds_text(s) + "\n\n" + _ir(s, [A, B]) + "\n\n# exact_bounds=True:\n" + \
        _ir(s, [A, B], exact_bounds=True)


@snippet
def ib_exact():
    A = te.placeholder((16, 16), "float32", name="A")
    B = te.compute((16, 16), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((8, 8), lambda i, j: B[2 * i, 2 * j] + B[2 * i + 1, 2 * j + 1], name="C")
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=2)
    s[B].compute_at(s[C], io)
    return cli.bounds_text(s) + "\n\n" + cli.explain_text(s)


def _blur_gpu(scope, at):
    A = te.placeholder((66,), "float32", name="A")
    B = te.compute((64,), lambda i: A[i] + A[i + 1] + A[i + 2], name="B")
    s = te.create_schedule(B.op)
    AS = s.cache_read(A, scope, [B])
    bx, tx = s[B].split(B.op.axis[0], factor=16)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    s[AS].compute_at(s[B], bx if at == "block" else tx)
    return _ib(s, [A, B])


@snippet
def ib_thread_shared():
    return _blur_gpu("shared", "block")


@snippet
def ib_thread_local():
    return _blur_gpu("local", "thread")


@snippet
def ib_thread_exact():
    A = te.placeholder((8, 48), "float32", name="A")
    C = te.compute((8, 48), lambda i, j: A[i, j] * 2.0, name="C")
    s = te.create_schedule(C.op)
    AS = s.cache_read(A, "shared", [C])
    bx, tx = s[C].split(s[C].fuse(*C.op.axis), factor=64)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    s[AS].compute_at(s[C], bx)
    return cli.bounds_text(s) + "\n\n" + cli.explain_text(s)


# ----------------------------------------------------------------------------- padding
@snippet
def pad_layout_rowsum():
    return _cli("layout", EX / "row_summation.py", "--stage", "A").replace(
        "\n  ... ", "\n  ... ")


@snippet
def pad_rowsum_lower():
    return _cli("lower", EX / "row_summation.py", "--pass", "simplify").split("\n", 1)[1]


@snippet
def pad_rowsum_loops():
    mod = cli.load_module(EX / "row_summation.py")
    A = te.placeholder((16, 14), "float32", name="A")
    j = te.reduce_axis((0, 14), name="j")
    B = te.compute((16,), lambda i: te.sum(A[i, j], axis=j), name="B")
    s = te.create_schedule(B.op)
    s[A].transform_layout(mod.layout, pad_value=0.0)
    jo, ji = s[B].split(j, factor=4)
    f = tepad.lower(s, [A, B], flatten=False)
    from tepad.lower.passes.remove_branching_through_overcompute import \
        remove_branching_through_overcompute
    return "# tepad.lower:\n" + f.script() + \
        "\n\n# remove_branching_through_overcompute:\n" + \
        remove_branching_through_overcompute(f).script()


@snippet
def pad_layout_conv1d():
    return _cli("layout", EX / "padded_conv1d.py")


@snippet
def pad_conv1d_lower():
    return _cli("lower", EX / "padded_conv1d.py", "--pass", "simplify").split("\n", 1)[1]


@snippet
def pad_conv1d_run():
    return _cli("run", EX / "padded_conv1d.py", "--repeat", "3")


@snippet
def pad_nchwc_layout():
    return _cli("layout", EX / "nhwc_to_nchwc.py", "--stage", "B")


@snippet
def pad_nchwc_lower():
    mod = cli.load_module(EX / "nhwc_to_nchwc.py")
    s, args = mod.schedule()
    return _lower_upto(s, args, "storage_flatten")


@snippet
def pad_nchwc_run():
    return _cli("run", EX / "nhwc_to_nchwc.py", "--repeat", "3")


@snippet
def pad_undef():
    A = te.placeholder((14,), "float32", name="A")
    B = te.compute((14,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    s[B].transform_layout(lambda i: [i // 4, i % 4], pad_value=tir.undef("float32"))
    f = tepad.lower(s, [A, B])
    return "# tepad.lower:\n" + f.script() + "\n\n# what build compiles " \
        "(lower_for_codegen: the build phase of PIPELINE):\n" + \
        tepad.lower.lower_for_codegen(f).script()


# ----------------------------------------------------------------------------- coming from TVM
TVM_SCRIPT = '''\
import numpy as np
import tepad as tvm
from tepad import te

n = 64
A = te.placeholder((n, n), name="A")
B = te.placeholder((n, n), name="B")
k = te.reduce_axis((0, n), name="k")
C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
s = te.create_schedule(C.op)
xo, yo, xi, yi = s[C].tile(C.op.axis[0], C.op.axis[1], 8, 8)
ko, ki = s[C].split(k, factor=4)
s[C].reorder(xo, yo, ko, xi, ki, yi)
s[C].vectorize(yi)
s[C].parallel(xo)

bounds = te.schedule.InferBound(s)
print({iv.name: str(r.extent) for iv, r in bounds.items() if iv in s[C].leaf_iter_vars})
print(tvm.lower(s, [A, B, C], name="mm"))
f = tvm.build(s, [A, B, C], target="llvm", name="mm")
a = np.random.rand(n, n).astype("float32")
b = np.random.rand(n, n).astype("float32")
c = np.zeros((n, n), dtype="float32")
f(a, b, c)                       # numpy arrays, not tvm.nd.array
print(np.allclose(c, a @ b, rtol=1e-4))
'''


@snippet
def tvm_script_output():
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(TVM_SCRIPT, "<coming_from_tvm>", "exec"), {"__name__": "__docs__"})
    return buf.getvalue().rstrip("\n")


@snippet
def tvm_script_source():
    return TVM_SCRIPT.rstrip("\n")


@snippet
def tvm_names_table():
    return tvm_names.table()


# ----------------------------------------------------------------------------- driver
BLOCK = re.compile(r"(<!-- tepad:(?P<name>[\w]+) -->\n)(?P<body>.*?)(<!-- /tepad:(?P=name) -->)",
                   re.S)


def render(name):
    text = SNIPPETS[name]()
    if name.endswith("_table"):          # markdown, pasted as it is
        return text + "\n"
    lang = "python" if name.endswith("_source") else "text"
    return f"```{lang}\n{text}\n```\n"


def process(path: Path, check: bool, only=None):
    src = path.read_text()
    stale = []

    def repl(m):
        name = m.group("name")
        if name not in SNIPPETS:
            raise SystemExit(f"{path.name}: unknown snippet {name!r}")
        if only and name not in only:
            return m.group(0)
        new = render(name)
        if new != m.group("body"):
            stale.append(name)
        return m.group(1) + new + m.group(4)
    out = BLOCK.sub(repl, src)
    if not check and out != src:
        path.write_text(out)
    return stale


def process_api(check: bool) -> bool:
    """Whether docs/api.md differs from ``api_reference.render()``; rewritten unless ``check``."""
    new = api_reference.render()
    stale = not API.is_file() or API.read_text() != new
    if stale and not check:
        API.write_text(new)
    return stale


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="fail when a block is stale")
    ap.add_argument("--list", action="store_true", help="list snippet names")
    ap.add_argument("--only", nargs="*", help="regenerate only these snippets")
    ns = ap.parse_args(argv)
    if ns.list:
        print("\n".join(list(SNIPPETS) + ["api"]))
        return 0
    bad = {}
    for path in sorted(DOCS.glob("*.md")):
        if path.name in ("errors.md", API.name):
            continue
        st = process(path, ns.check, ns.only)
        if st:
            bad[path.name] = st
    if (not ns.only or "api" in ns.only) and process_api(ns.check):
        bad[API.name] = ["api"]
    for f, names in bad.items():
        print(f"{'stale' if ns.check else 'updated'}: {f}: {', '.join(names)}")
    return 1 if ns.check and bad else 0


if __name__ == "__main__":
    sys.exit(main())
